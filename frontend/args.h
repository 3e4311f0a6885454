// Command-line parsing for the `planner` subcommands: flags declared up front,
// unknown flags and missing values rejected with a one-line message.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/status.h"

namespace planner {

struct FlagSpec {
  std::string name;   // "--batch" or "-o"
  std::string value;  // metavar when the flag takes a value ("N"), empty for a switch
  std::string help;
};

struct CommandSpec {
  std::string name;                     // "inspect"
  std::string usage;                    // "MODEL [--json] [--batch N]"
  std::string summary;                  // one line
  std::vector<std::string> positional;  // names of required positional arguments
  std::vector<FlagSpec> flags;
};

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

 private:
  bool help_ = false;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

std::string HelpText(const CommandSpec& spec);

// The start of every subcommand: parses argv, and on a usage error prints it and
// sets *exit_code = 2, on --help prints the help and sets *exit_code = 0; in
// both cases returns nothing and the command returns *exit_code.
std::optional<Args> ParseCommandLine(const CommandSpec& spec, int argc, char** argv,
                                     int* exit_code);

// Prints "<command_prefix><message>" on stderr; returns 1, a command's exit
// status for bad input.
int ReportError(const char* command_prefix, const graph::Status& st);

// "12.34 MiB", for command output.
std::string FormatMib(int64_t bytes);
// "12.345 ms" from seconds, for command output.
std::string FormatMs(double seconds);

// Refuses an output path whose directory is missing or not writable, so that a
// command fails before its work rather than after; the error names `flag`.
graph::Status CheckOutputWritable(const std::string& flag, const std::string& path);

// Parses a positive integer flag value; error names the flag.
graph::Result<int64_t> ParsePositiveInt(const std::string& flag, const std::string& value);
// Parses an integer flag value in [lo, hi]; error names the flag and the range.
graph::Result<int64_t> ParseIntInRange(const std::string& flag, const std::string& value,
                                       int64_t lo, int64_t hi);

// Parses a number in (lo, hi]; error names the flag and the range.
graph::Result<double> ParseNumberInRange(const std::string& flag, const std::string& value,
                                         double lo, double hi);

// Parses a duration: "90" or "90s" (seconds), "15m", "2h"; positive. The error
// names the flag.
graph::Result<double> ParseDurationSeconds(const std::string& flag, const std::string& value);

}  // namespace planner
