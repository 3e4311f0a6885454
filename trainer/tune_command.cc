// `trainer tune`: Omnivore's optimizer run as processes. Before each epoch
// (or every --retune epochs) it probes every candidate configuration from the
// current checkpoint for a few steps (tuner.h's model picks the one with the
// least estimated time to a fixed loss decrease), prints what it tried and why it
// chose, then trains the epoch with the choice and checkpoints; it stops at
// --target-accuracy. Training and tuning times are reported apart.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <regex>
#include <sstream>

#include "data/fashion_mnist.h"
#include "frontend/args.h"
#include "graph/file_util.h"
#include "trainer/commands.h"
#include "trainer/tuner.h"

namespace trainer {
namespace {

const frontend::CommandSpec kSpec{
    "tune",
    "MODEL --nproc N [--epochs E] [--target-accuracy A] [--batch B] [--probe-steps K]\n"
    "       [--retune E] [--eval-every S] [--dir DIR] [--report FILE]",
    "Omnivore's optimizer: picks compute groups (sync or async), learning rate and momentum\n"
    "by short probes, trains an epoch with the choice, and re-tunes at epoch boundaries, on\n"
    "N local ranks (Fashion-MNIST). Prints every probe and the reason for each choice.",
    {"MODEL"},
    {{"--nproc", "N", "ranks, 1 to 256 (required)"},
     {"--epochs", "E", "epochs at most (default 10)"},
     {"--target-accuracy", "A", "stop once test accuracy reaches A (0..1)"},
     {"--batch", "B", "examples per rank and step (default 64)"},
     {"--probe-steps", "K", "steps per probe (default 60)"},
     {"--retune", "E", "re-tune every E epochs (default 1)"},
     {"--eval-every", "S", "steps between evaluations while training (default 200)"},
     {"--switch-margin", "X",
      "a re-tune changes configuration only for a probe X times faster per unit of loss "
      "(default 2; 1: always the fastest probe)"},
     {"--dir", "DIR", "working directory for checkpoints and logs (default: a new one in /tmp)"},
     {"--data-dir", "DIR", "Fashion-MNIST's files (default: Debian's dataset-fashion-mnist)"},
     {"--report", "FILE", "the run's figures as JSON"}},
    "trainer"};

double Number(const std::string& text, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\"" + key + "\": ([-0-9.eE+naif]+)"))) return NAN;
  return std::atof(m[1].str().c_str());
}

// `s` as one word for sh: in single quotes, each ' written as '\''. A path
// with an apostrophe broke the command, and one with more could run others.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Why a run failed, from its log at `path`: the first line that is not
// launch's own about its ranks (the failing rank's reason), else the last
// line (a rank killed without a word), or what kept the log from being read.
std::string FailureLine(const std::string& path) {
  auto text = graph::ReadFile(path);
  if (!text.ok()) return text.status().message();
  std::istringstream lines(*text);
  std::string line, last = "(no output)";
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line.rfind("trainer launch: rank ", 0) != 0) return line;
    last = line;
  }
  return last;
}

struct Child {
  std::string exe, model, dir, data_dir;
  int64_t nproc = 2, batch = 64;
  double seconds = 0;  // wall time of the last Run
  int stopped_by = 0;  // the signal that stopped the last Run, or 0
  // Runs `trainer launch ... train MODEL FLAGS`; returns its --report's JSON,
  // empty on failure (`what` failed, and the log's tail, printed).
  std::string Run(const std::string& what, const std::string& flags) {
    std::string report = dir + "/report.json", log = dir + "/child.log";
    std::remove(report.c_str());
    std::string cmd = ShellQuote(exe) + " launch --nproc " + std::to_string(nproc) + " train " +
                      ShellQuote(model) + " --batch " + std::to_string(batch) +
                      (data_dir.empty() ? "" : " --data-dir " + ShellQuote(data_dir)) +
                      " --quiet --report " + ShellQuote(report) + " " + flags + " >" +
                      ShellQuote(log) + " 2>&1";
    auto t0 = std::chrono::steady_clock::now();
    int rc = std::system(cmd.c_str());
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto json = graph::ReadFile(report);
    // ^C reaches launch and its ranks too (std::system ignores it here):
    // launch ends with 128 + the signal, and that is a stop, not a failure.
    if (WIFEXITED(rc) && (WEXITSTATUS(rc) == 128 + SIGINT || WEXITSTATUS(rc) == 128 + SIGTERM)) {
      stopped_by = WEXITSTATUS(rc) - 128;
      std::cerr << frontend::MessagePrefix(kSpec) << "stopped by "
                << (stopped_by == SIGINT ? "SIGINT" : "SIGTERM") << " during " << what << " ("
                << dir << " keeps the checkpoints and logs)\n";
      return "";
    }
    if (rc != 0 || !json.ok()) {
      std::cerr << frontend::MessagePrefix(kSpec) << what << " failed: " << FailureLine(log) << " ("
                << log << " has the run's output)\n";
      return "";
    }
    return *json;
  }
};

bool SameConfig(const TuneConfig& a, const TuneConfig& b) {
  return a.groups == b.groups && std::fabs(a.learning_rate - b.learning_rate) < 1e-12 &&
         std::fabs(a.momentum - b.momentum) < 1e-12;
}

std::string ConfigFlags(const TuneConfig& c) {
  char b[160];
  std::snprintf(b, sizeof b, "--strategy %s --groups %d --lr %.6g --momentum %.6g",
                c.groups == 1 ? "sync" : "async", c.groups, c.learning_rate, c.momentum);
  return b;
}

// All candidates in one run of the ranks (train --probe), from the checkpoint
// at `ckpt` when `resume`.
std::vector<Probe> RunProbes(Child* child, const std::vector<TuneConfig>& candidates, int64_t steps,
                             const std::string& ckpt, bool resume) {
  std::string list;
  for (const TuneConfig& c : candidates) {
    char b[96];
    std::snprintf(b, sizeof b, "%s%d:%.6g:%.6g", list.empty() ? "" : ",", c.groups, c.learning_rate,
                  c.momentum);
    list += b;
  }
  std::string json = child->Run(
      "the probes", "--probe " + list + " --probe-steps " + std::to_string(steps) +
                        (resume ? " --checkpoint " + ShellQuote(ckpt) + " --resume" : ""));
  std::vector<Probe> probes;
  std::regex item(
      "\\{\"groups\": ([0-9]+), \"lr\": ([-0-9.e+]+), \"momentum\": ([-0-9.e+]+), "
      "\"steps\": ([0-9]+), \"step_s\": ([-0-9.e+naif]+), \"first_loss\": "
      "([-0-9.e+naif]+), \"final_loss\": ([-0-9.e+naif]+), \"base_loss\": "
      "([-0-9.e+naif]+)\\}");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), item); it != std::sregex_iterator();
       ++it) {
    Probe p;
    p.config = {std::atoi((*it)[1].str().c_str()), std::atof((*it)[2].str().c_str()),
                std::atof((*it)[3].str().c_str())};
    p.ok = true;
    p.steps = std::atoll((*it)[4].str().c_str());
    p.step_s = std::atof((*it)[5].str().c_str());
    p.first_loss = std::atof((*it)[6].str().c_str());
    p.final_loss = std::atof((*it)[7].str().c_str());
    p.base_loss = std::atof((*it)[8].str().c_str());
    probes.push_back(p);
  }
  return probes;
}

// The command's settings past the child's.
struct TuneFlags {
  int64_t epochs = 10, retune = 1, eval_every = 200;
  TunerOptions tuner;
  // A re-tune replaces the running configuration only when a probe promises
  // this many times its speed: short probes favour small steps (short-horizon
  // bias) and are noisy. 1 is pure greedy.
  double switch_margin = 2;
  double target = 0;  // test accuracy to stop at (0: none)
};

// Reads the flags into `child` and `f`; the exit status of a usage error, else
// nullopt.
std::optional<int> ParseTuneFlags(const frontend::Args& args, Child* child, TuneFlags* f) {
  child->model = args.positional()[0];
  child->data_dir = args.Get("--data-dir");
  struct IntFlag {
    const char* flag;
    int64_t* target;
  };
  if (!args.Has("--nproc")) return frontend::UsageError(kSpec, "--nproc N is required");
  for (IntFlag i : {IntFlag{"--nproc", &child->nproc},
                    {"--epochs", &f->epochs},
                    {"--batch", &child->batch},
                    {"--probe-steps", &f->tuner.probe_steps},
                    {"--retune", &f->retune},
                    {"--eval-every", &f->eval_every}}) {
    if (!args.Has(i.flag)) continue;
    const std::string flag = i.flag;
    // --nproc as launch takes it (1 to 256), refused here before any work.
    auto v = frontend::ParseIntInRange(i.flag, args.Get(i.flag), flag == "--probe-steps" ? 4 : 1,
                                       flag == "--nproc" ? 256 : 1 << 20);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    *i.target = *v;
  }
  if (args.Has("--switch-margin")) {
    auto v = frontend::ParseNumberInRange("--switch-margin", args.Get("--switch-margin"), 0, 1e6);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    f->switch_margin = std::max(1.0, *v);
    // It judges a re-tune against the running choice; the first tune has none.
    if (f->retune >= f->epochs) {
      return frontend::UsageError(kSpec, "--switch-margin applies to re-tunes, and with --retune " +
                                             std::to_string(f->retune) + " and --epochs " +
                                             std::to_string(f->epochs) +
                                             " there are none after the first choice");
    }
  }
  if (args.Has("--target-accuracy")) {
    auto v = frontend::ParseNumberInRange("--target-accuracy", args.Get("--target-accuracy"), 0, 1);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    f->target = *v;
  }
  child->dir = args.Get("--dir");
  struct stat dir_stat;
  if (!child->dir.empty() && ::stat(child->dir.c_str(), &dir_stat) == 0 &&
      !S_ISDIR(dir_stat.st_mode)) {
    return frontend::UsageError(kSpec, "--dir " + child->dir + ": a file, not a directory");
  }
  bool made_dir = true;
  if (child->dir.empty()) {
    char tmpl[] = "/tmp/trainer-tune-XXXXXX";
    if (!mkdtemp(tmpl))
      return frontend::UsageError(kSpec, "cannot make a working directory in /tmp");
    child->dir = tmpl;
  } else if (mkdir(child->dir.c_str(), 0755) != 0) {
    if (errno != EEXIST) {
      return frontend::UsageError(kSpec, "--dir " + child->dir + ": cannot create it");
    }
    made_dir = false;
  }
  // Checked before the probes, not after the last epoch (and after --dir,
  // which may hold it).
  if (args.Has("--report")) {
    if (auto st = frontend::CheckOutputWritable("--report", args.Get("--report")); !st.ok()) {
      if (made_dir) ::rmdir(child->dir.c_str());  // made just now, still empty
      return frontend::UsageError(kSpec, st);
    }
  }
  return std::nullopt;
}

// What the run has done so far.
struct TuneProgress {
  TuneConfig chosen;
  std::string choices;  // every epoch's configuration, as JSON strings
  double train_s = 0, tune_s = 0, accuracy = 0;
  double reached_at = -1;  // training seconds when the target was first reached; < 0: not yet
};

// Epoch `e`'s re-tune: probes every candidate from the checkpoint, prints them,
// and chooses the configuration to train with, keeping the running one unless
// a probe is switch_margin times better per unit of loss. False when the
// command must end (a failed probe run, or no probe lowered the loss at first).
bool Retune(Child* child, const std::vector<TuneConfig>& candidates, const TuneFlags& f, int64_t e,
            int64_t steps_per_epoch, const std::string& ckpt, TuneProgress* p) {
  std::vector<Probe> probes = RunProbes(child, candidates, f.tuner.probe_steps, ckpt, e > 0);
  p->tune_s += child->seconds;
  if (probes.size() != candidates.size()) return false;
  std::printf(
      "epoch %lld: probes from step %lld (untrained, the loss on the second half's "
      "batches is %.4f)\n  %-40s %10s %10s %10s %14s\n",
      static_cast<long long>(e + 1), static_cast<long long>(e * steps_per_epoch),
      probes[0].base_loss, "configuration", "ms/step", "loss 1st", "loss 2nd", "s per -1 loss");
  for (const Probe& probe : probes) {
    std::printf("  %-40s %10.2f %10.4f %10.4f %14.3g\n", Describe(probe.config).c_str(),
                1e3 * probe.step_s, probe.first_loss, probe.final_loss, SecondsPerUnitLoss(probe));
  }
  const int best = ChooseProbe(probes);
  if (best < 0 && e == 0) {
    std::cerr << frontend::MessagePrefix(kSpec) << "no configuration lowered the loss in "
              << f.tuner.probe_steps << " steps: try more --probe-steps\n";
    return false;
  }
  if (best < 0) {  // later in training the loss falls slower than mini-batch noise
    std::printf("  no probe lowered the loss measurably in %lld steps: keeping %s\n",
                static_cast<long long>(f.tuner.probe_steps), Describe(p->chosen).c_str());
    return true;
  }
  const Probe& b = probes[best];
  double incumbent = std::numeric_limits<double>::infinity();
  for (const Probe& probe : probes) {
    if (e > 0 && SameConfig(probe.config, p->chosen)) incumbent = SecondsPerUnitLoss(probe);
  }
  if (std::isfinite(incumbent) && SecondsPerUnitLoss(b) * f.switch_margin > incumbent) {
    std::printf(
        "  keeping %s: %.3g s per unit of loss against the best probe's %.3g s (%s), "
        "not %gx better\n",
        Describe(p->chosen).c_str(), incumbent, SecondsPerUnitLoss(b), Describe(b.config).c_str(),
        f.switch_margin);
    return true;
  }
  p->chosen = b.config;
  std::printf("  chose %s: %.2f ms per step x %.0f steps per unit of loss = %.3g s, the least\n",
              Describe(p->chosen).c_str(), 1e3 * b.step_s, SecondsPerUnitLoss(b) / b.step_s,
              SecondsPerUnitLoss(b));
  return true;
}

// Trains epoch `e` with the chosen configuration from the checkpoint, and
// reads its evaluations (the first at the target, if any, sets reached_at).
// False when the training run failed.
bool TrainEpoch(Child* child, const TuneFlags& f, int64_t e, const std::string& ckpt,
                TuneProgress* p) {
  p->choices += (p->choices.empty() ? "\"" : ", \"") + Describe(p->chosen) + "\"";
  std::string json =
      child->Run("training epoch " + std::to_string(e + 1) + " with " + Describe(p->chosen),
                 ConfigFlags(p->chosen) + " --epochs " + std::to_string(e + 1) + " --checkpoint " +
                     ShellQuote(ckpt) + (e > 0 ? " --resume" : "") +
                     " --log-every 0 --eval-every " + std::to_string(f.eval_every) +
                     (f.target > 0 ? " --target-accuracy " + std::to_string(f.target) : ""));
  if (json.empty()) return false;
  std::regex eval("\\{\"step\": ([0-9]+), \"train_s\": ([0-9.]+), \"accuracy\": ([0-9.]+)\\}");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), eval); it != std::sregex_iterator();
       ++it) {
    p->accuracy = std::atof((*it)[3].str().c_str());
    if (f.target > 0 && p->accuracy >= f.target && p->reached_at < 0) {
      p->reached_at = p->train_s + std::atof((*it)[2].str().c_str());
    }
  }
  p->train_s += Number(json, "train_s");
  std::printf(
      "epoch %lld with %s: test accuracy %.2f%%, %.1f s of training so far, %.1f s of "
      "probes\n",
      static_cast<long long>(e + 1), Describe(p->chosen).c_str(), 100 * p->accuracy, p->train_s,
      p->tune_s);
  std::fflush(stdout);
  return true;
}

// --report's JSON. time_to_target_s is null without a target or before it was
// reached (a number there would read as a time).
graph::Status WriteReport(const std::string& path, const TuneProgress& p) {
  char reached[32] = "null";
  if (p.reached_at >= 0) std::snprintf(reached, sizeof reached, "%.4f", p.reached_at);
  char b[256];
  std::snprintf(b, sizeof b,
                "{\"train_s\": %.4f, \"tune_s\": %.4f, \"accuracy\": %.5f, "
                "\"time_to_target_s\": %s, \"choices\": [",
                p.train_s, p.tune_s, p.accuracy, reached);
  return graph::WriteFileAtomic(path, b + p.choices + "]}\n");
}

int Run(const frontend::Args& args, const std::string& self) {
  Child child;
  child.exe = self;
  TuneFlags f;
  if (const std::optional<int> usage = ParseTuneFlags(args, &child, &f)) return *usage;
  auto train_set = data::LoadFashionMnist(
      child.data_dir.empty() ? data::DefaultFashionMnistDir() : child.data_dir, true);
  if (!train_set.ok()) return frontend::CommandError(kSpec, train_set.status());
  const int64_t steps_per_epoch = train_set->count / (child.batch * child.nproc);
  if (steps_per_epoch < 1) return frontend::UsageError(kSpec, "the batch exceeds the data set");
  const std::string ckpt = child.dir + "/ckpt";
  mkdir(ckpt.c_str(), 0755);
  const std::vector<TuneConfig> candidates = Candidates(static_cast<int>(child.nproc), f.tuner);
  std::printf(
      "tuning %s on %lld ranks: %zu candidates (momenta tried fall as groups rise: "
      "asynchrony adds implicit momentum 1 - 1/groups), %lld-step probes\n",
      child.model.c_str(), static_cast<long long>(child.nproc), candidates.size(),
      static_cast<long long>(f.tuner.probe_steps));
  // A directory made here would otherwise be left unnamed in /tmp.
  std::printf("working directory: %s (the probes' and the epochs' checkpoints and logs%s)\n",
              child.dir.c_str(), args.Has("--dir") ? "" : "; --dir sets it");
  std::fflush(stdout);
  TuneProgress p;
  for (int64_t e = 0; e < f.epochs && p.reached_at < 0; ++e) {
    if (e % f.retune == 0 && !Retune(&child, candidates, f, e, steps_per_epoch, ckpt, &p)) {
      return child.stopped_by ? 128 + child.stopped_by : 1;
    }
    if (!TrainEpoch(&child, f, e, ckpt, &p)) return child.stopped_by ? 128 + child.stopped_by : 1;
  }
  if (f.target > 0 && p.reached_at >= 0) {
    std::printf("reached %.0f%% after %.1f s of training (and %.1f s of probes)\n", 100 * f.target,
                p.reached_at, p.tune_s);
  } else if (f.target > 0) {
    std::printf("did not reach %.0f%% in %lld epochs\n", 100 * f.target,
                static_cast<long long>(f.epochs));
  }
  // What a user runs to go on training the tuned model with the last choice.
  std::printf("to train on with it: trainer launch --nproc %lld train %s %s --checkpoint %s "
              "--resume\n",
              static_cast<long long>(child.nproc), child.model.c_str(),
              ConfigFlags(p.chosen).c_str(), ckpt.c_str());
  if (args.Has("--report")) {
    if (graph::Status st = WriteReport(args.Get("--report"), p); !st.ok()) {
      return frontend::CommandError(kSpec, st);
    }
  }
  return f.target > 0 && p.reached_at < 0 ? 1 : 0;
}

}  // namespace

int TuneCommand(int argc, char** argv, const std::string& self) {
  return frontend::RunCommand(kSpec, argc, argv,
                              [&self](const frontend::Args& args) { return Run(args, self); });
}

}  // namespace trainer
