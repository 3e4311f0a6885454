// Command-line parsing for every command and bench program: flags declared up
// front in a CommandSpec, parsed by CLI11 (args.cc is its one adapter), unknown
// flags, missing values and a wrong argument count rejected with a one-line
// message, and --help generated from the spec.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/duration.h"
#include "graph/status.h"

namespace frontend {

struct FlagSpec {
  std::string name;   // "--batch" or "-o"
  std::string value;  // metavar when the flag takes a value ("N"), empty for a switch
  std::string help;
};

struct CommandSpec {
  std::string name;     // "inspect"
  std::string usage;    // "MODEL [--json] [--batch N]"
  std::string summary;  // one line
  // Names of the positional arguments, each required; a last name ending in
  // "..." takes zero or more.
  std::vector<std::string> positional;
  std::vector<FlagSpec> flags;
  // The executable whose command this is, in usage lines and errors; empty for
  // a program that is its own command (the bench programs), named by `name`.
  std::string program = "planner";
  // Parsing stops at the first positional argument: it and everything after it
  // are positional() verbatim (a command to run, as `trainer launch ... train
  // MODEL ...`), and `positional` above must be empty.
  bool command_follows = false;
};

struct CliApp;  // args.cc's CLI11 app

class Args {
 public:
  // Parses argv after the subcommand name. "--help" yields ok() with help() set.
  static graph::Result<Args> Parse(const CommandSpec& spec, int argc, char** argv);

  bool help() const { return help_; }
  bool Has(const std::string& flag) const { return values_.count(flag) > 0; }
  // The flag's value (its last, if given more than once).
  std::string Get(const std::string& flag, const std::string& dflt = "") const;
  // Every value of a repeatable flag, in command-line order.
  std::vector<std::string> GetAll(const std::string& flag) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // The flag's value as an integer in [lo, hi], or `dflt` when it is absent;
  // the error names the flag and the range.
  graph::Result<int64_t> GetInt(const std::string& flag, int64_t dflt, int64_t lo,
                                int64_t hi) const;
  // The flag's value as a number in (lo, hi], or `dflt` when it is absent.
  graph::Result<double> GetNumber(const std::string& flag, double dflt, double lo, double hi) const;

 private:
  static graph::Result<Args> WithCommand(const CommandSpec& spec, CliApp& cli, Args a);
  void TakeFlags(CliApp& cli);

  bool help_ = false;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

// Typed reads of several flags with one error check: each read gives the
// flag's value, or `dflt` when it is absent or wrong; status() is the first
// error, naming its flag and range.
class TypedFlags {
 public:
  explicit TypedFlags(const Args& args) : args_(args) {}
  int Int(const std::string& flag, int dflt, int lo, int hi);
  double Number(const std::string& flag, double dflt, double lo, double hi);
  const graph::Status& status() const { return status_; }

 private:
  const Args& args_;
  graph::Status status_;
};

std::string HelpText(const CommandSpec& spec);

// The start of every subcommand: parses argv, and on a usage error prints it and
// sets *exit_code = 2, on --help prints the help and sets *exit_code = 0; in
// both cases returns nothing and the command returns *exit_code.
std::optional<Args> ParseCommandLine(const CommandSpec& spec, int argc, char** argv,
                                     int* exit_code);

// Runs a command: parses argv (after the command's name) by `spec` and calls
// `run` with the arguments, returning its exit status; on --help prints the
// help and returns 0, on a usage error prints it and returns 2.
int RunCommand(const CommandSpec& spec, int argc, char** argv,
               const std::function<int(const Args&)>& run);

// For a program that is its own command (a bench program): parses argv
// after argv[0]; on --help prints the help and exits 0, on a usage error
// prints it and exits 2, as CLI11's own programs do.
Args ParseProgramArgs(const CommandSpec& spec, int argc, char** argv);

// What a command's messages start with: "planner measure: ", "trainer train: ",
// "sim_accuracy: ".
std::string MessagePrefix(const CommandSpec& spec);

// Prints "<program> <name>: <message>" on stderr; returns 2, a command's exit
// status for a usage error.
int UsageError(const CommandSpec& spec, const graph::Status& st);
int UsageError(const CommandSpec& spec, const std::string& message);

// Prints "<program> <name>: <message>" on stderr; returns 1, a command's exit
// status for bad input (a missing file, a model it cannot place, ...).
int CommandError(const CommandSpec& spec, const graph::Status& st);

// "12.34 MiB", for command output.
std::string FormatMib(int64_t bytes);
// "12.345 ms" from seconds, for command output (graph/duration.h).
using graph::FormatMs;

// Refuses an output path whose directory is missing or not writable, so that a
// command fails before its work rather than after; the error names `flag`.
// A path that exists must be a regular file (not a directory, FIFO or device).
graph::Status CheckOutputWritable(const std::string& flag, const std::string& path);

// A file named twice: an output that another output would overwrite, or that
// would overwrite one of the command's inputs. Each pair is (what names it,
// the path: "-o" and "--csv", "the model", ...); empty paths are skipped. Paths
// compare as the files they name (a relative and an absolute path alike).
graph::Status CheckDistinctFiles(const std::vector<std::pair<std::string, std::string>>& outputs,
                                 const std::vector<std::pair<std::string, std::string>>& inputs);

// Parses a positive integer flag value; error names the flag.
graph::Result<int64_t> ParsePositiveInt(const std::string& flag, const std::string& value);
// Parses an integer flag value in [lo, hi]; error names the flag and the range.
graph::Result<int64_t> ParseIntInRange(const std::string& flag, const std::string& value,
                                       int64_t lo, int64_t hi);

// Parses a number in (lo, hi]; error names the flag and the range.
graph::Result<double> ParseNumberInRange(const std::string& flag, const std::string& value,
                                         double lo, double hi);
// A number from lo to hi, both included ("must be a number from 0 to 1").
graph::Result<double> ParseNumberFromTo(const std::string& flag, const std::string& value,
                                        double lo, double hi);

// Parses a duration: "90" or "90s" (seconds), "15m", "2h", "500ms"; positive
// and at most 10^7 s (115 days). The error names the flag.
graph::Result<double> ParseDurationSeconds(const std::string& flag, const std::string& value);
// The same, or 0 (any unit: "0", "0s") for a setting that 0 turns off.
graph::Result<double> ParseDurationOrOff(const std::string& flag, const std::string& value);

}  // namespace frontend
