#include "frontend/args.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace frontend {

namespace {

// "planner search", or "sim_accuracy" for a program that is its own command.
std::string Invocation(const CommandSpec& spec) {
  return spec.program.empty() ? spec.name : spec.program + " " + spec.name;
}

// CLI11 is called here only: this file is its adapter. Its exceptions become
// our one-line statuses; its formatter prints our usage line above the option
// list it generates.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(const CommandSpec& spec) : spec_(spec) { column_width(26); }
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::string s =
        "usage: " + Invocation(spec_) + " " + spec_.usage + "\n\n" + spec_.summary + "\n";
    if (spec_.flags.empty()) return s;
    s += make_groups(app, mode);
    return s.back() == '\n' ? s : s + "\n";
  }
  // The metavar alone: every flag takes one value per occurrence.
  std::string make_option_opts(const CLI::Option* opt) const override {
    return opt->get_type_name().empty() ? "" : " " + opt->get_type_name();
  }

 private:
  const CommandSpec& spec_;
};

}  // namespace

// A CLI11 app for `spec` whose results land in the given maps: every valued
// flag collects its values in command-line order, every switch counts.
struct CliApp {
  explicit CliApp(const CommandSpec& spec) : app(spec.summary, Invocation(spec)) {
    app.formatter(std::make_shared<HelpFormatter>(spec));
    app.allow_extras();  // unknown options and extra arguments: our message, below
    if (spec.command_follows) app.prefix_command();
    app.set_help_flag("-h,--help", "print this help and exit");
    for (const FlagSpec& f : spec.flags) {
      if (f.value.empty()) {
        app.add_flag(f.name, switches[f.name], f.help)->disable_flag_override();
      } else {
        app.add_option(f.name, values[f.name], f.help)
            ->type_name(f.value)
            ->allow_extra_args(false)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      }
    }
    positional.resize(spec.positional.size());
    for (size_t i = 0; i < spec.positional.size(); ++i) {
      app.add_option(spec.positional[i], positional[i]);
    }
  }
  CLI::App app;
  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, int64_t> switches;
  std::vector<std::string> positional;
};

namespace {

// Whether the last positional argument takes zero or more ("MODEL...").
bool Variadic(const CommandSpec& spec) {
  const std::string last = spec.positional.empty() ? "" : spec.positional.back();
  return last.size() > 3 && last.compare(last.size() - 3, 3, "...") == 0;
}

// A usage of several lines as one line, for an error message.
std::string OneLine(const std::string& text) {
  std::string s;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      s += text[i];
      continue;
    }
    s += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  return s;
}

// Our wording for CLI11's complaints that are not about the argument count.
std::string Translate(const CommandSpec& spec, const CLI::ParseError& e) {
  const std::string what = e.what();
  for (const FlagSpec& f : spec.flags) {
    // CLI11 starts its message with the flag, with or without its dashes.
    const std::string bare = f.name.substr(f.name.find_first_not_of('-'));
    if (what.rfind(f.name + ":", 0) != 0 && what.rfind(bare + " ", 0) != 0) continue;
    if (f.value.empty()) return f.name + " takes no value";
    return f.name + " needs a value " + f.value;
  }
  return what;
}

// "--placement=" with nothing after the '=': CLI11 would take the next
// argument as its value; the old parser and users expect an error.
graph::Status CheckEmptyInlineValues(const CommandSpec& spec, int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 4 || arg.rfind("--", 0) != 0 || arg.back() != '=') continue;
    const std::string name = arg.substr(0, arg.size() - 1);
    for (const FlagSpec& f : spec.flags) {
      if (f.name == name && !f.value.empty()) {
        return graph::InvalidArgument(spec.name + ": " + name + " needs a value " + f.value);
      }
    }
  }
  return graph::Status::Ok();
}

}  // namespace

graph::Result<Args> Args::WithCommand(const CommandSpec& spec, CliApp& cli, Args a) {
  a.positional_ = cli.app.remaining();
  if (!a.positional_.empty() && a.positional_[0] == "--") {
    a.positional_.erase(a.positional_.begin());  // "launch --nproc 2 -- train ..."
  } else if (!a.positional_.empty() && a.positional_[0].size() > 1 && a.positional_[0][0] == '-') {
    return graph::InvalidArgument(spec.name + ": unknown option '" +
                                  a.positional_[0].substr(0, a.positional_[0].find('=')) +
                                  "' (see --help)");
  }
  a.TakeFlags(cli);
  return a;
}

void Args::TakeFlags(CliApp& cli) {
  for (auto& [flag, vs] : cli.values) {
    if (!vs.empty()) values_[flag] = std::move(vs);
  }
  for (const auto& [flag, n] : cli.switches) {
    if (n > 0) values_[flag].assign(n, "");
  }
}

graph::Result<Args> Args::Parse(const CommandSpec& spec, int argc, char** argv) {
  GRAPH_RETURN_IF_ERROR(CheckEmptyInlineValues(spec, argc, argv));
  std::vector<std::string> reversed(argv, argv + argc);
  std::reverse(reversed.begin(), reversed.end());
  Args a;
  std::unique_ptr<CliApp> app;
  try {
    app = std::make_unique<CliApp>(spec);  // a spec CLI11 refuses throws here
    app->app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    a.help_ = true;
    return a;
  } catch (const CLI::ParseError& e) {
    return graph::InvalidArgument(spec.name + ": " + Translate(spec, e));
  } catch (const CLI::Error& e) {
    assert(false && "a CommandSpec CLI11 refuses (a flag declared twice?)");
    return graph::Internal(spec.name + ": " + e.what());
  }
  CliApp& cli = *app;
  if (spec.command_follows) return WithCommand(spec, cli, std::move(a));
  size_t extra = 0;
  for (const std::string& r : cli.app.remaining()) {
    if (r.size() > 1 && r[0] == '-' && r != "--") {
      return graph::InvalidArgument(spec.name + ": unknown option '" + r.substr(0, r.find('=')) +
                                    "' (see --help)");
    }
    extra += r != "--";
  }
  for (size_t i = 0; i < spec.positional.size(); ++i) {
    if (cli.app.count(spec.positional[i]) > 0) a.positional_.push_back(cli.positional[i]);
  }
  const size_t got = a.positional_.size() + extra;
  const size_t required = spec.positional.size() - (Variadic(spec) ? 1 : 0);
  if (got < required || (got > spec.positional.size() && !Variadic(spec))) {
    return graph::InvalidArgument(spec.name + ": expected " + (Variadic(spec) ? "at least " : "") +
                                  std::to_string(required) + " argument(s), got " +
                                  std::to_string(got) + "; usage: " + Invocation(spec) + " " +
                                  OneLine(spec.usage));
  }
  for (const std::string& r : cli.app.remaining()) {
    if (r != "--") a.positional_.push_back(r);  // the variadic last argument's rest
  }
  a.TakeFlags(cli);
  return a;
}

std::string Args::Get(const std::string& flag, const std::string& dflt) const {
  auto it = values_.find(flag);
  return it == values_.end() ? dflt : it->second.back();
}

graph::Result<int64_t> Args::GetInt(const std::string& flag, int64_t dflt, int64_t lo,
                                    int64_t hi) const {
  return Has(flag) ? ParseIntInRange(flag, Get(flag), lo, hi) : graph::Result<int64_t>(dflt);
}

graph::Result<double> Args::GetNumber(const std::string& flag, double dflt, double lo,
                                      double hi) const {
  return Has(flag) ? ParseNumberInRange(flag, Get(flag), lo, hi) : graph::Result<double>(dflt);
}

int TypedFlags::Int(const std::string& flag, int dflt, int lo, int hi) {
  auto v = args_.GetInt(flag, dflt, lo, hi);
  if (v.ok()) return static_cast<int>(*v);
  if (status_.ok()) status_ = v.status();
  return dflt;
}

double TypedFlags::Number(const std::string& flag, double dflt, double lo, double hi) {
  auto v = args_.GetNumber(flag, dflt, lo, hi);
  if (v.ok()) return *v;
  if (status_.ok()) status_ = v.status();
  return dflt;
}

std::vector<std::string> Args::GetAll(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>() : it->second;
}

std::string HelpText(const CommandSpec& spec) {
  try {
    CliApp cli(spec);
    return cli.app.help();
  } catch (const CLI::Error& e) {
    assert(false && "a CommandSpec CLI11 refuses (a flag declared twice?)");
    return "usage: " + Invocation(spec) + " " + spec.usage + "\n";
  }
}

std::optional<Args> ParseCommandLine(const CommandSpec& spec, int argc, char** argv,
                                     int* exit_code) {
  auto args = Args::Parse(spec, argc, argv);
  if (!args.ok()) {
    std::cerr << (spec.program.empty() ? "" : spec.program + " ") << args.status().message()
              << "\n";
    *exit_code = 2;
    return std::nullopt;
  }
  if (args->help()) {
    std::cout << HelpText(spec);
    *exit_code = 0;
    return std::nullopt;
  }
  return std::move(args).value();
}

int RunCommand(const CommandSpec& spec, int argc, char** argv,
               const std::function<int(const Args&)>& run) {
  int exit_code = 0;
  std::optional<Args> args = ParseCommandLine(spec, argc, argv, &exit_code);
  return args ? run(*args) : exit_code;
}

Args ParseProgramArgs(const CommandSpec& spec, int argc, char** argv) {
  int exit_code = 0;
  std::optional<Args> args =
      ParseCommandLine(spec, argc > 0 ? argc - 1 : 0, argc > 0 ? argv + 1 : argv, &exit_code);
  if (!args) std::exit(exit_code);
  return std::move(args).value();
}

std::string MessagePrefix(const CommandSpec& spec) { return Invocation(spec) + ": "; }

int UsageError(const CommandSpec& spec, const graph::Status& st) {
  return UsageError(spec, st.message());
}

int UsageError(const CommandSpec& spec, const std::string& message) {
  std::cerr << MessagePrefix(spec) << message << "\n";
  return 2;
}

int CommandError(const CommandSpec& spec, const graph::Status& st) {
  std::cerr << MessagePrefix(spec) << st.message() << "\n";
  return 1;
}

std::string FormatMib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f MiB", static_cast<double>(bytes) / 1048576.0);
  return buf;
}

graph::Status CheckOutputWritable(const std::string& flag, const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    return graph::IoError(path + ": cannot write " + flag + " output ('" + dir +
                          "' is a file, not a directory)");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return graph::IoError(path + ": cannot write " + flag + " output (directory '" + dir +
                          "' is missing or not writable)");
  }
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return graph::IoError(path + ": cannot write " + flag + " output (" +
                          (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") + ")");
  }
  // Outputs are written atomically, through a new file beside them: one made
  // now proves the directory takes files (access() passes /proc for root).
  std::string probe = dir + "/.planner-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    return graph::IoError(path + ": cannot write " + flag + " output (cannot create a file in '" +
                          dir + "': " + std::strerror(errno) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return graph::Status::Ok();
}

graph::Status CheckDistinctFiles(const std::vector<std::pair<std::string, std::string>>& outputs,
                                 const std::vector<std::pair<std::string, std::string>>& inputs) {
  auto file = [](const std::string& path) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : p.string();
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path.empty()) continue;
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].second.empty() && file(outputs[j].second) == file(path)) {
        return graph::InvalidArgument(path + ": named by both " + outputs[j].first + " and " +
                                      flag + " (one would overwrite the other)");
      }
    }
    for (const auto& [what, input] : inputs) {
      if (!input.empty() && file(input) == file(path)) {
        return graph::InvalidArgument(path + ": " + flag + " would overwrite " + what);
      }
    }
  }
  return graph::Status::Ok();
}

graph::Result<int64_t> ParsePositiveInt(const std::string& flag, const std::string& value) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size() || v < 1) {
    return graph::InvalidArgument(flag + " must be a positive integer, got '" + value + "'");
  }
  return v;
}

graph::Result<int64_t> ParseIntInRange(const std::string& flag, const std::string& value,
                                       int64_t lo, int64_t hi) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size() || v < lo || v > hi) {
    return graph::InvalidArgument(flag + " must be an integer from " + std::to_string(lo) + " to " +
                                  std::to_string(hi) + ", got '" + value + "'");
  }
  return v;
}

namespace {

// A number that parses whole and that `in_range` accepts; else the error
// "FLAG must be a number <range>, got 'VALUE'", `range` a printf format of lo
// and hi.
graph::Result<double> ParseNumber(const std::string& flag, const std::string& value, double lo,
                                  double hi, bool lo_included, const char* range) {
  double v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  const bool above = lo_included ? v >= lo : v > lo;
  if (ec != std::errc() || p != value.data() + value.size() || !above || !(v <= hi)) {
    char text[96];
    std::snprintf(text, sizeof text, range, lo, hi);
    return graph::InvalidArgument(flag + " must be a number " + text + ", got '" + value + "'");
  }
  return v;
}

}  // namespace

graph::Result<double> ParseNumberInRange(const std::string& flag, const std::string& value,
                                         double lo, double hi) {
  return ParseNumber(flag, value, lo, hi, false, "above %g and at most %g");
}

graph::Result<double> ParseNumberFromTo(const std::string& flag, const std::string& value,
                                        double lo, double hi) {
  return ParseNumber(flag, value, lo, hi, true, "from %g to %g");
}

namespace {

// "90", "90s", "15m", "2h", "500ms": seconds, or nullopt when not a
// non-negative finite duration.
std::optional<double> DurationSeconds(const std::string& value) {
  double v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  const std::string unit(p, value.data() + value.size());
  const double scale = unit.empty() || unit == "s" ? 1
                       : unit == "ms"              ? 1e-3
                       : unit == "m"               ? 60
                       : unit == "h"               ? 3600
                                                   : 0;
  if (ec != std::errc() || scale == 0 || !(v >= 0) || !std::isfinite(v * scale)) {
    return std::nullopt;
  }
  return v * scale;
}

// Beyond this a duration is no longer a time anyone waits for, and its
// callers' conversions to whole milliseconds or a clock's time point overflow
// (99999999999h reached them).
constexpr double kMaxDurationS = 1e7;

graph::Status TooLong(const std::string& flag, const std::string& value) {
  return graph::InvalidArgument(flag + " must be at most 10000000s (115 days), got '" + value +
                                "'");
}

}  // namespace

graph::Result<double> ParseDurationSeconds(const std::string& flag, const std::string& value) {
  const std::optional<double> s = DurationSeconds(value);
  if (!s || !(*s > 0)) {
    return graph::InvalidArgument(
        flag + " must be a positive duration such as 90s, 15m, 2h or 500ms, got '" + value + "'");
  }
  if (*s > kMaxDurationS) return TooLong(flag, value);
  return *s;
}

graph::Result<double> ParseDurationOrOff(const std::string& flag, const std::string& value) {
  const std::optional<double> s = DurationSeconds(value);
  if (!s) {
    return graph::InvalidArgument(flag + " must be a duration such as 90s, 15m, 2h or 500ms, or " +
                                  "0 for off, got '" + value + "'");
  }
  if (*s > kMaxDurationS) return TooLong(flag, value);
  return *s;
}

}  // namespace frontend
