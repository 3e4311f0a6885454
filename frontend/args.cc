#include "frontend/args.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace planner {

graph::Result<Args> Args::Parse(const CommandSpec& spec, int argc, char** argv) {
  Args a;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      a.help_ = true;
      return a;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::string value;
      bool inline_value = false;
      size_t eq = arg.find('=');
      if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        inline_value = true;
      }
      const FlagSpec* flag = nullptr;
      for (const FlagSpec& f : spec.flags) {
        if (f.name == arg) flag = &f;
      }
      if (!flag) {
        return graph::InvalidArgument(spec.name + ": unknown option '" + arg + "' (see --help)");
      }
      if (flag->value.empty()) {
        if (inline_value) return graph::InvalidArgument(spec.name + ": " + arg + " takes no value");
        a.values_[arg].push_back("");
        continue;
      }
      if (!inline_value) {
        if (i + 1 >= argc) {
          return graph::InvalidArgument(spec.name + ": " + arg + " needs a value " + flag->value);
        }
        value = argv[++i];
      }
      a.values_[arg].push_back(value);
      continue;
    }
    a.positional_.push_back(arg);
  }
  if (a.positional_.size() != spec.positional.size()) {
    return graph::InvalidArgument(
        spec.name + ": expected " + std::to_string(spec.positional.size()) + " argument(s), got " +
        std::to_string(a.positional_.size()) + "; usage: planner " + spec.name + " " + spec.usage);
  }
  return a;
}

std::string Args::Get(const std::string& flag, const std::string& dflt) const {
  auto it = values_.find(flag);
  return it == values_.end() ? dflt : it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>() : it->second;
}

std::string HelpText(const CommandSpec& spec) {
  std::string s = "usage: planner " + spec.name + " " + spec.usage + "\n\n" + spec.summary + "\n";
  if (!spec.flags.empty()) s += "\noptions:\n";
  for (const FlagSpec& f : spec.flags) {
    std::string left = "  " + f.name + (f.value.empty() ? "" : " " + f.value);
    if (left.size() < 24) left.resize(24, ' ');
    s += left + " " + f.help + "\n";
  }
  return s;
}

std::optional<Args> ParseCommandLine(const CommandSpec& spec, int argc, char** argv,
                                     int* exit_code) {
  auto args = Args::Parse(spec, argc, argv);
  if (!args.ok()) {
    std::cerr << "planner " << args.status().message() << "\n";
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

int ReportError(const char* command_prefix, const graph::Status& st) {
  std::cerr << command_prefix << st.message() << "\n";
  return 1;
}

std::string FormatMib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f MiB", static_cast<double>(bytes) / 1048576.0);
  return buf;
}

std::string FormatMs(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f ms", seconds * 1e3);
  return buf;
}

graph::Status CheckOutputWritable(const std::string& flag, const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  if (access(dir.c_str(), W_OK) != 0) {
    return graph::IoError(path + ": cannot write " + flag + " output (directory '" + dir +
                          "' is missing or not writable)");
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

graph::Result<double> ParseNumberInRange(const std::string& flag, const std::string& value,
                                         double lo, double hi) {
  double v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size() || !(v > lo) || !(v <= hi)) {
    char range[96];
    std::snprintf(range, sizeof range, " must be a number above %g and at most %g, got '", lo, hi);
    return graph::InvalidArgument(flag + range + value + "'");
  }
  return v;
}

graph::Result<double> ParseDurationSeconds(const std::string& flag, const std::string& value) {
  double v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  const std::string unit(p, value.data() + value.size());
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (ec != std::errc() || scale == 0 || !(v > 0) || !std::isfinite(v * scale)) {
    return graph::InvalidArgument(
        flag + " must be a positive duration such as 90s, 15m or 2h, got '" + value + "'");
  }
  return v * scale;
}

}  // namespace planner
