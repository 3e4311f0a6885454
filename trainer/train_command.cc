// `trainer train`: one rank of a data-parallel run, started torchrun-style
// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) or alone as a world of one.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "frontend/args.h"
#include "graph/file_util.h"
#include "graph/summary.h"
#include "trainer/commands.h"
#include "trainer/strategy.h"
#include "trainer/train.h"

namespace trainer {
namespace {

const frontend::CommandSpec kSpec{
    "train",
    "MODEL [--strategy sync|async|easgd|gossip] [--groups G] [--devices D.yaml --placement "
    "P.yaml]\n"
    "       [--data fashion-mnist|synthetic] [--epochs N] [--steps N] [--batch B] [--lr LR]\n"
    "       [--momentum M] [--checkpoint DIR [--resume]] [--target-accuracy A] ...",
    "Trains MODEL (a model file, or a `planner zoo` name such as lenet) data-parallel: this\n"
    "process is one rank (RANK of WORLD_SIZE, meeting at MASTER_ADDR:MASTER_PORT, as torchrun\n"
    "sets them; without them, a world of one). Each rank runs the placed training graph on\n"
    "its devices and its shard of the data. `trainer launch` starts all ranks here.",
    {"MODEL"},
    {{"--strategy", "NAME", "sync (default), async, easgd or gossip (docs/trainer.md)"},
     {"--devices", "FILE", "this rank's devices (default: one CPU core, core RANK mod cores)"},
     {"--placement", "FILE", "a placement of MODEL on --devices (from planner search)"},
     {"--data", "NAME", "fashion-mnist (default; inputs 'images', 'labels') or synthetic"},
     {"--data-dir", "DIR", "Fashion-MNIST's files (default: Debian's dataset-fashion-mnist)"},
     {"--epochs", "N", "passes over the training set (default 1)"},
     {"--steps", "N", "train N steps in all (counted from the run's start), instead of --epochs"},
     {"--batch", "B", "examples per rank and step (default 64)"},
     {"--optimizer", "NAME", "sgd or momentum (default)"},
     {"--lr", "LR", "learning rate (default 0.01)"},
     {"--momentum", "M", "momentum (default 0.9)"},
     {"--bucket-kb", "KB",
      "sync, or async with fewer --groups than ranks: all-reduce bucket size (default 25600, "
      "DDP's 25 MiB)"},
     {"--first-bucket-kb", "KB", "with --bucket-kb: the first bucket's size (default 1024)"},
     {"--groups", "G", "async: compute groups, 1 (synchronous) to ranks (default, fully async)"},
     {"--period", "T", "easgd: steps between elastic averaging (default 1)"},
     {"--alpha", "A", "easgd: elastic rate (default 0.9 / ranks)"},
     {"--mix", "B", "gossip: weight of the peer's model (default 0.5)"},
     {"--shared-devices", "",
      "with --devices: every rank on the file as written, even where trainer launch (or "
      "torchrun) would give each rank on this host its own copy of its cores and GPUs"},
     {"--checkpoint", "DIR", "write DIR/rank-R.ckpt at epoch ends (atomically)"},
     {"--checkpoint-every", "N", "also every N steps"},
     {"--resume", "", "continue from --checkpoint DIR's checkpoint"},
     {"--eval-every", "N", "evaluate on the test set every N steps (default: epoch ends)"},
     {"--no-eval", "", "do not evaluate (probes and benchmarks)"},
     {"--target-accuracy", "A", "stop once test accuracy reaches A (0..1)"},
     {"--log-every", "N", "steps between progress lines (default 100; 0: none)"},
     {"--seed", "S", "Fashion-MNIST's data order, and gossip's pairing (default 1)"},
     {"--timeout", "DURATION",
      "how long a rank waits for the others (default 60s; 90, 90s, 2m or 500ms)"},
     {"--report", "FILE", "rank 0 writes the run's figures as JSON"},
     {"--probe", "G:LR:M,...",
      "instead of training, run each configuration (compute groups, learning rate, momentum) "
      "--probe-steps steps from the same model (what trainer tune runs)"},
     {"--probe-steps", "K", "steps per probe (default 60)"},
     {"--quiet", "", "print only the summary"}},
    "trainer"};

// "1:0.1:0.9,2:0.03:0.3" -> configurations; the error names the bad item.
graph::Result<std::vector<TuneConfig>> ParseProbes(const std::string& v, int world) {
  std::vector<TuneConfig> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t end = v.find(',', start);
    std::string item = v.substr(start, end == std::string::npos ? std::string::npos : end - start);
    TuneConfig c;
    char tail = 0;
    if (std::sscanf(item.c_str(), "%d:%lf:%lf%c", &c.groups, &c.learning_rate, &c.momentum,
                    &tail) != 3 ||
        c.groups < 1 || c.groups > world || !(c.learning_rate > 0) || c.momentum < 0 ||
        c.momentum >= 1) {
      return graph::InvalidArgument("--probe item '" + item +
                                    "' must be GROUPS:LR:MOMENTUM with 1 <= GROUPS <= ranks (" +
                                    std::to_string(world) + "), LR > 0, 0 <= MOMENTUM < 1");
    }
    out.push_back(c);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string ProbesJson(const TrainReport& r) {
  std::string out;
  for (const Probe& p : r.probes) {
    char b[256];
    std::snprintf(
        b, sizeof b,
        "%s{\"groups\": %d, \"lr\": %.6g, \"momentum\": %.6g, \"steps\": %lld, "
        "\"step_s\": %.6f, \"first_loss\": %s, \"final_loss\": %s, "
        "\"base_loss\": %s}",
        out.empty() ? "" : ", ", p.config.groups, p.config.learning_rate, p.config.momentum,
        static_cast<long long>(p.steps), p.step_s, graph::JsonNumber(p.first_loss, 5).c_str(),
        graph::JsonNumber(p.final_loss, 5).c_str(), graph::JsonNumber(p.base_loss, 5).c_str());
    out += b;
  }
  return out;
}

std::string ReportJson(const TrainOptions& o, const TrainReport& r, int world) {
  std::string evals;
  for (const Evaluation& e : r.evaluations) {
    char b[128];
    std::snprintf(b, sizeof b, "%s{\"step\": %lld, \"train_s\": %.4f, \"accuracy\": %.5f}",
                  evals.empty() ? "" : ", ", static_cast<long long>(e.step), e.train_s, e.accuracy);
    evals += b;
  }
  double n = std::max<int64_t>(r.steps, 1);
  char b[768];
  std::snprintf(b, sizeof b,
                "{\"strategy\": \"%s\", \"ranks\": %d, \"batch\": %lld, \"steps\": %lld, "
                "\"examples\": %lld, \"train_s\": %.4f, \"images_per_s\": %.2f, "
                "\"forward_ms\": %.4f, \"backward_ms\": %.4f, \"comm_ms\": %.4f, "
                "\"exposed_ms\": %.4f, \"update_ms\": %.4f, \"first_loss\": %s, "
                "\"final_loss\": %s, "
                "\"evaluations\": [",
                o.strategy.name.c_str(), world, static_cast<long long>(o.batch),
                static_cast<long long>(r.steps), static_cast<long long>(r.examples), r.train_s,
                r.images_per_s(), 1e3 * r.forward_s / n, 1e3 * r.backward_s / n, 1e3 * r.comm_s / n,
                1e3 * r.exposed_s / n, 1e3 * r.update_s / n,
                graph::JsonNumber(r.first_loss, 5).c_str(),
                graph::JsonNumber(r.final_loss, 5).c_str());
  return b + evals + "], \"probes\": [" + ProbesJson(r) + "]}\n";
}

// With --probe, the first flag given that only training uses ("" when none).
// A probe run trains each of its configurations (compute groups, learning
// rate, momentum) for --probe-steps steps, from --checkpoint's model with
// --resume, and writes no checkpoint, no evaluation and no progress lines.
std::string UnusedByProbes(const frontend::Args& args, const TrainOptions& o) {
  for (const char* flag : {"--strategy", "--groups", "--lr", "--momentum", "--epochs", "--steps",
                           "--period", "--alpha", "--mix", "--checkpoint-every", "--eval-every",
                           "--target-accuracy", "--log-every"}) {
    if (args.Has(flag)) {
      return std::string(flag) +
             " goes with training: --probe runs each of its configurations (groups, learning "
             "rate, momentum) for --probe-steps steps";
    }
  }
  if (o.optimizer == "sgd") {
    return "--optimizer sgd with --probe would drop the probes' momenta: leave --optimizer out";
  }
  if (!o.checkpoint_dir.empty() && !o.resume) {
    return "--checkpoint with --probe needs --resume: probes start from a checkpoint and write "
           "none";
  }
  return "";
}

// The first flag given that the run would not use, with why ("" when none):
// refused, not silently ignored.
std::string UnusedFlag(const frontend::Args& args, const TrainOptions& o) {
  const bool probe = args.Has("--probe");
  if (std::string why = probe ? UnusedByProbes(args, o) : ""; !why.empty()) return why;
  const std::string& strategy = o.strategy.name;
  // async all-reduces within compute groups of more than one rank; fully
  // asynchronous (no --groups) each rank is a group of its own. Probes run
  // sync or async with groups.
  const bool bucketed =
      probe || strategy == "sync" || (strategy == "async" && o.strategy.groups > 0);
  const bool accuracy = o.evaluate && o.data == "fashion-mnist";
  const struct {
    const char* flag;
    bool unused;
    const char* why;
  } rules[] = {
      {"--groups", o.strategy.groups > 1 && strategy != "async", "applies to --strategy async"},
      {"--period", strategy != "easgd", "applies to --strategy easgd"},
      {"--alpha", strategy != "easgd", "applies to --strategy easgd"},
      {"--mix", strategy != "gossip", "applies to --strategy gossip"},
      {"--bucket-kb", !bucketed,
       "applies to the all-reduce of --strategy sync, or of async with --groups"},
      {"--first-bucket-kb", !bucketed,
       "applies to the all-reduce of --strategy sync, or of async with --groups"},
      {"--momentum", o.optimizer == "sgd", "applies to --optimizer momentum (sgd has none)"},
      {"--data-dir", o.data != "fashion-mnist", "applies to --data fashion-mnist"},
      {"--shared-devices", o.devices.empty(), "applies to --devices"},
      {"--seed", o.data != "fashion-mnist" && strategy != "gossip",
       "orders --data fashion-mnist and pairs --strategy gossip (synthetic data has no order)"},
      {"--checkpoint-every", o.checkpoint_dir.empty(), "needs --checkpoint DIR"},
      {"--target-accuracy", !accuracy,
       "needs test accuracy (Fashion-MNIST data, without --no-eval)"},
      {"--eval-every", !accuracy, "needs test accuracy (Fashion-MNIST data, without --no-eval)"},
      {"--steps", args.Has("--epochs"), "replaces --epochs: give one of them"},
      {"--probe-steps", !probe, "applies to --probe"},
  };
  for (const auto& r : rules) {
    if (r.unused && args.Has(r.flag)) return std::string(r.flag) + " " + r.why;
  }
  return "";
}

// The flags into `o` and `timeout_s`, every check that needs no file or
// peer: 0, or a usage error's exit status (2), printed. trainer launch runs it
// on its command before starting any rank.
int ParseTrainFlags(const frontend::Args& args, TrainOptions* out, double* timeout_s) {
  TrainOptions& o = *out;
  o.model = args.positional()[0];
  o.strategy.name = args.Get("--strategy", "sync");
  o.devices = args.Get("--devices");
  o.placement = args.Get("--placement");
  o.data = args.Get("--data", "fashion-mnist");
  o.data_dir = args.Get("--data-dir");
  o.optimizer = args.Get("--optimizer", "momentum");
  o.checkpoint_dir = args.Get("--checkpoint");
  o.resume = args.Has("--resume");
  o.shared_devices = args.Has("--shared-devices");
  o.quiet = args.Has("--quiet");
  o.evaluate = !args.Has("--no-eval");
  if (o.resume && o.checkpoint_dir.empty())
    return frontend::UsageError(kSpec, "--resume needs --checkpoint DIR");
  struct IntFlag {
    const char* flag;
    int64_t lo, hi;
    int64_t* target;
  };
  int64_t epochs = o.epochs, bucket_kb = 25 << 10, first_kb = 1 << 10, period = 1, seed = 1,
          groups = 0;
  for (IntFlag f : {IntFlag{"--epochs", 1, 1 << 20, &epochs},
                    {"--steps", 1, int64_t{1} << 40, &o.max_steps},
                    {"--batch", 1, 1 << 20, &o.batch},
                    {"--bucket-kb", 1, 1 << 24, &bucket_kb},
                    {"--first-bucket-kb", 1, 1 << 24, &first_kb},
                    {"--period", 1, 1 << 20, &period},
                    {"--groups", 1, 1 << 16, &groups},
                    {"--checkpoint-every", 1, int64_t{1} << 40, &o.checkpoint_every},
                    {"--eval-every", 1, int64_t{1} << 40, &o.eval_every},
                    {"--log-every", 0, int64_t{1} << 40, &o.log_every},
                    {"--seed", 0, int64_t{1} << 40, &seed},
                    {"--probe-steps", 2, 1 << 20, &o.probe_steps}}) {
    if (!args.Has(f.flag)) continue;
    auto v = frontend::ParseIntInRange(f.flag, args.Get(f.flag), f.lo, f.hi);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    *f.target = *v;
  }
  o.batch_given = args.Has("--batch");
  o.epochs = static_cast<int>(epochs);
  o.strategy.buckets.bucket_bytes = bucket_kb << 10;
  o.strategy.buckets.first_bucket_bytes = first_kb << 10;
  o.strategy.period = static_cast<int>(period);
  o.strategy.groups = static_cast<int>(groups);
  o.seed = static_cast<uint64_t>(seed);
  o.strategy.seed = o.seed;
  struct NumFlag {
    const char* flag;
    double lo, hi;
  };
  double lr = o.learning_rate, momentum = o.momentum, timeout = 60;
  double* targets[] = {&lr, &o.strategy.alpha, &o.strategy.mix, &o.target_accuracy};
  int k = 0;
  for (NumFlag f :
       {NumFlag{"--lr", 0, 1e3}, {"--alpha", 0, 1}, {"--mix", 0, 1}, {"--target-accuracy", 0, 1}}) {
    double* target = targets[k++];
    if (!args.Has(f.flag)) continue;
    auto v = frontend::ParseNumberInRange(f.flag, args.Get(f.flag), f.lo, f.hi);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    *target = *v;
  }
  if (args.Has("--timeout")) {  // a duration, as launch's --grace and planner's
    auto v = frontend::ParseDurationSeconds("--timeout", args.Get("--timeout"));
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    if (*v < 0.1 || *v > 1e6) {
      return frontend::UsageError(
          kSpec, "--timeout must be from 100ms to 1000000s, got '" + args.Get("--timeout") + "'");
    }
    timeout = *v;
  }
  if (args.Has("--momentum")) {
    auto v = frontend::ParseNumberFromTo("--momentum", args.Get("--momentum"), 0, 1);
    if (!v.ok()) return frontend::UsageError(kSpec, v.status());
    momentum = *v;
  }
  o.learning_rate = static_cast<float>(lr);
  o.momentum = static_cast<float>(momentum);
  *timeout_s = timeout;
  // Names checked here, as every other flag's value is: they were found only
  // once training started, and exited 1.
  if (graph::Status st = CheckStrategyName(o.strategy.name); !st.ok()) {
    return frontend::UsageError(kSpec, st);
  }
  if (graph::Status st = CheckTrainData(o.data); !st.ok()) return frontend::UsageError(kSpec, st);
  if (o.optimizer != "sgd" && o.optimizer != "momentum") {
    return frontend::UsageError(kSpec,
                                "--optimizer must be sgd or momentum, not '" + o.optimizer + "'");
  }
  if (std::string why = UnusedFlag(args, o); !why.empty()) return frontend::UsageError(kSpec, why);
  if (args.Has("--report")) {
    if (auto st = frontend::CheckOutputWritable("--report", args.Get("--report")); !st.ok()) {
      return frontend::UsageError(kSpec, st);
    }
  }
  return 0;
}

int Run(const frontend::Args& args) {
  TrainOptions o;
  double timeout = 60;
  if (int code = ParseTrainFlags(args, &o, &timeout); code != 0) return code;
  // Made after the flags are checked (a missing one failed only after the training); one to resume
  // from must exist.
  if (!o.checkpoint_dir.empty() && !o.resume) {
    std::error_code ec;
    std::filesystem::create_directories(o.checkpoint_dir, ec);
    if (ec || !std::filesystem::is_directory(o.checkpoint_dir)) {
      return frontend::CommandError(
          kSpec, graph::IoError(o.checkpoint_dir + ": cannot write --checkpoint's directory (" +
                                (ec ? ec.message() : "not a directory") + ")"));
    }
  }
  Rendezvous r;
  if (std::getenv("RANK") || std::getenv("WORLD_SIZE") || std::getenv("MASTER_PORT")) {
    auto env = RendezvousFromEnvironment();
    if (!env.ok()) return frontend::UsageError(kSpec, env.status());
    r = *env;
  } else {
    r.master_port = FreeLoopbackPort();
  }
  r.timeout_s = timeout;
  if (args.Has("--probe")) {
    auto probes = ParseProbes(args.Get("--probe"), r.world_size);
    if (!probes.ok()) return frontend::UsageError(kSpec, probes.status());
    o.probes = *probes;
  }
  // As many groups as ranks: each rank a group of its own, with no all-reduce
  // (the ranks are known only now; no --groups is refused with the flags).
  for (const char* flag : {"--bucket-kb", "--first-bucket-kb"}) {
    if (args.Has(flag) && !args.Has("--probe") && o.strategy.name == "async" &&
        o.strategy.groups == r.world_size && r.world_size > 1) {
      return frontend::UsageError(
          kSpec, std::string(flag) + " applies to the all-reduce of --strategy sync, or of async " +
                     "with fewer --groups than ranks (" + std::to_string(r.world_size) + ")");
    }
  }
  auto report = Train(o, r);
  if (!report.ok()) return frontend::CommandError(kSpec, report.status());
  if (r.rank != 0) return 0;
  char line[256];
  std::snprintf(line, sizeof line, "%lld steps, %lld images in %.2f s: %.1f images/s on %d rank(s)",
                static_cast<long long>(report->steps), static_cast<long long>(report->examples),
                report->train_s, report->images_per_s(), r.world_size);
  std::printf("%s\n%s\n", line, StepTimesLine(*report).c_str());
  if (!report->evaluations.empty()) {
    std::printf("final test accuracy %.2f%%\n", 100 * report->evaluations.back().accuracy);
  }
  if (args.Has("--report")) {
    graph::Status st =
        graph::WriteFileAtomic(args.Get("--report"), ReportJson(o, *report, r.world_size));
    if (!st.ok()) return frontend::CommandError(kSpec, st);
  }
  return 0;
}

}  // namespace

int TrainCommand(int argc, char** argv) { return frontend::RunCommand(kSpec, argc, argv, Run); }

int CheckTrainCommand(int argc, char** argv) {
  int code = 0;
  std::optional<frontend::Args> args = frontend::ParseCommandLine(kSpec, argc, argv, &code);
  if (!args) return code == 0 ? -1 : code;  // -1: the help was printed
  TrainOptions o;
  double timeout = 60;
  return ParseTrainFlags(*args, &o, &timeout);
}

}  // namespace trainer
