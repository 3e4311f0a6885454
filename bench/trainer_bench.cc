// The data-parallel trainer against PyTorch DDP, and its strategies' accuracy.
//
// Throughput (default): LeNet on Fashion-MNIST, 2 ranks on this machine, batch
// 64 per rank, SGD with momentum, one compute thread per rank and Gloo:
// `trainer launch --nproc 2 train lenet --strategy sync` against
// bench/ddp_lenet.py under Debian's python3-torch (DDP, the same model, data
// order, batch and optimizer), interleaved round by round, alternating which goes first. Prints
// each round, the median ratio of images/s (trainer / DDP) with its range, and
// the share of the trainer's all-reduce time that the backward pass did not
// hide, with DDP's default buckets (1 MiB first, 25 MiB) and with small ones.
//
// Strategies (--strategies): each of sync, async (a compute group per rank),
// easgd and gossip trains LeNet with 2
// ranks until test accuracy reaches --target (default 0.85) or --epochs pass,
// evaluating every 200 steps; prints the accuracy reached and the training time
// to it, side by side; then `trainer tune` (Omnivore's optimizer) to the same
// target, its training time beside untuned sync's (lr 0.01, momentum 0.9), and
// the time its probes took on top.
//
// Exported (--exported NAME --onnx FILE): the same throughput comparison on one
// of scripts/pytorch/export_models.py's PyTorch models, FILE its ONNX export:
// `trainer launch --nproc 2 train FILE --data synthetic --strategy sync`
// against bench/ddp_exported.py (DDP on the same PyTorch model, prepared and in
// eval mode as exported, the same synthetic loss, one fixed batch per rank, the
// batch the export holds, B: export_models.py --batch B).
//
//   trainer_bench [--rounds R] [--steps N] [--strategies] [--target A] [--epochs E]
//                 [--exported NAME --onnx FILE --batch B]
//                 [--trainer PATH] [--python PATH] [--script PATH]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/args.h"
#include "sim/statistics.h"

namespace {

struct Options {
  int rounds = 5;
  int steps = 400;
  bool strategies = false;
  double target = 0.85;
  int epochs = 10;
  std::string trainer = TRAINER_BIN;
  std::string python = "/usr/bin/python3";
  std::string script = DDP_SCRIPT;
  std::string exported;  // a model of export_models.py, with `onnx` its export
  std::string onnx;
  int exported_batch = 2;  // the batch it was exported with (export_models.py --batch)
};

// Runs `cmd` in a shell and returns its stdout; empty on failure (said on stderr).
std::string Run(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>/tmp/trainer_bench.err").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (rc != 0) {
    std::ifstream err("/tmp/trainer_bench.err");
    std::stringstream ss;
    ss << err.rdbuf();
    std::fprintf(stderr, "trainer_bench: `%s` failed (status %d): %s\n", cmd.c_str(), rc,
                 ss.str().c_str());
    return "";
  }
  return out;
}

double Number(const std::string& text, const std::string& key) {
  std::smatch m;
  std::regex re("\"?" + key + "\"?[:=] ?([-0-9.eE+]+)");
  if (!std::regex_search(text, m, re)) return -1;
  return std::atof(m[1].str().c_str());
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// 0 for no values (a run that printed none).
double Median(std::vector<double> v) { return v.empty() ? 0 : sim::Median(std::move(v)); }

struct Ours {
  double images_per_s = -1, comm_ms = 0, exposed_ms = 0;
};

Ours RunTrainer(const Options& o, const std::string& extra) {
  std::string report = "/tmp/trainer_bench_report.json";
  std::remove(report.c_str());
  std::string out = Run(o.trainer + " launch --nproc 2 train " +
                        (o.exported.empty() ? std::string("lenet") : o.onnx + " --data synthetic") +
                        " --strategy sync --steps " + std::to_string(o.steps) +
                        " --log-every 0 --quiet --report " + report + " " + extra);
  std::string json = Slurp(report);
  Ours r;
  if (out.empty() && json.empty()) return r;
  r.images_per_s = Number(json, "images_per_s");
  r.comm_ms = Number(json, "comm_ms");
  r.exposed_ms = Number(json, "exposed_ms");
  return r;
}

double RunDdp(const Options& o, int port) {
  std::string env = "MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) + " WORLD_SIZE=2";
  std::string args = o.exported.empty() ? " " + o.script + " --steps " + std::to_string(o.steps)
                                        : std::string(" ") + EXPORTED_DDP_SCRIPT + " " +
                                              o.exported + " --steps " + std::to_string(o.steps) +
                                              " --batch " + std::to_string(o.exported_batch);
  std::string out = Run("(" + env + " RANK=1 " + o.python + args + " >/dev/null & " + env +
                        " RANK=0 " + o.python + args + "; wait)");
  return Number(out, "images_per_s");
}

int Throughput(const Options& o) {
  if (o.exported.empty()) {
    std::printf("LeNet, Fashion-MNIST, 2 ranks x batch 64, ");
  } else {
    std::printf("%s (%s), one fixed synthetic batch per rank, eval-mode model, ",
                o.exported.c_str(), o.onnx.c_str());
  }
  std::printf(
      "momentum SGD, 1 thread per rank, Gloo; "
      "%d steps per run, %d rounds (alternating which goes first)\n",
      o.steps, o.rounds);
  std::printf("%-6s %14s %14s %8s %22s\n", "round", "trainer img/s", "DDP img/s", "ratio",
              "not overlapped / comm");
  std::vector<double> ratios, exposed;
  for (int r = 0; r < o.rounds; ++r) {
    Ours ours;
    double ddp;
    if (r % 2 == 0) {
      ours = RunTrainer(o, "");
      ddp = RunDdp(o, 29700 + r);
    } else {
      ddp = RunDdp(o, 29700 + r);
      ours = RunTrainer(o, "");
    }
    if (ours.images_per_s <= 0 || ddp <= 0) return 1;
    double ratio = ours.images_per_s / ddp;
    double share = ours.comm_ms > 0 ? ours.exposed_ms / ours.comm_ms : 0;
    ratios.push_back(ratio);
    exposed.push_back(share);
    std::printf("%-6d %14.0f %14.0f %8.3f %12.2f/%.2f ms\n", r + 1, ours.images_per_s, ddp, ratio,
                ours.exposed_ms, ours.comm_ms);
    std::fflush(stdout);
  }
  auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  std::printf(
      "images/s ratio trainer / DDP: median %.3f (range %.3f-%.3f over %d rounds; target "
      ">= 1.0)\n",
      Median(ratios), *lo, *hi, o.rounds);
  std::printf(
      "all-reduce not overlapped by the backward pass, DDP's buckets (1 MiB, 25 MiB%s): median "
      "%.0f%% of t_comm\n",
      o.exported.empty() ? "; LeNet's 244 KiB of gradients fill one" : "", 100 * Median(exposed));
  std::vector<double> small;
  for (int r = 0; r < std::max(1, o.rounds / 2); ++r) {
    Ours s = RunTrainer(o, "--first-bucket-kb 16 --bucket-kb 64");
    if (s.images_per_s <= 0) return 1;
    small.push_back(s.comm_ms > 0 ? s.exposed_ms / s.comm_ms : 0);
    std::printf(
        "small buckets (16 KiB first, 64 KiB): %.0f img/s, %.2f of %.2f ms not overlapped\n",
        s.images_per_s, s.exposed_ms, s.comm_ms);
  }
  std::printf("all-reduce not overlapped, small buckets: median %.0f%% of t_comm\n",
              100 * Median(small));
  return 0;
}

int Strategies(const Options& o) {
  std::printf(
      "LeNet, Fashion-MNIST, 2 ranks x batch 64, lr 0.01, momentum 0.9; until %.0f%% test "
      "accuracy or %d epochs, evaluated every 200 steps\n",
      100 * o.target, o.epochs);
  std::printf("%-8s %10s %14s %12s\n", "strategy", "accuracy", "time to it", "steps");
  int failed = 0;
  for (const char* s : {"sync", "async", "easgd", "gossip"}) {
    std::string report = "/tmp/trainer_bench_report.json";
    std::remove(report.c_str());
    char target[32];
    std::snprintf(target, sizeof target, "%.4f", o.target);
    Run(o.trainer + " launch --nproc 2 train lenet --strategy " + s + " --epochs " +
        std::to_string(o.epochs) + " --eval-every 200 --target-accuracy " + target +
        " --log-every 0 --quiet --report " + report);
    std::string json = Slurp(report);
    std::smatch m;
    std::regex last("\\{\"step\": ([0-9]+), \"train_s\": ([0-9.]+), \"accuracy\": ([0-9.]+)\\}\\]");
    if (!std::regex_search(json, m, last)) {
      std::printf("%-8s did not finish\n", s);
      ++failed;
      continue;
    }
    double acc = std::atof(m[3].str().c_str());
    std::printf("%-8s %9.2f%% %12.1f s %12s%s\n", s, 100 * acc, std::atof(m[2].str().c_str()),
                m[1].str().c_str(), acc >= o.target ? "" : "  (target not reached)");
    failed += acc < o.target;
  }
  // Omnivore's optimizer against the untuned sync above (lr 0.01, momentum 0.9).
  std::string report = "/tmp/trainer_bench_tune.json";
  std::remove(report.c_str());
  char target[32];
  std::snprintf(target, sizeof target, "%.4f", o.target);
  Run(o.trainer + " tune lenet --nproc 2 --epochs " + std::to_string(o.epochs) +
      " --target-accuracy " + target + " --report " + report);
  std::string json = Slurp(report);
  double reached = Number(json, "time_to_target_s"), probes = Number(json, "tune_s");
  if (reached < 0 || json.empty()) {
    std::printf("%-8s did not reach the target\n", "tuned");
    return 1;
  }
  std::printf(
      "%-8s %9.2f%% %12.1f s %12s  (+ %.1f s of probes; choices: %s)\n", "tuned",
      100 * Number(json, "accuracy"), reached, "-", probes,
      json.substr(json.find("\"choices\"") + 12, json.rfind(']') - json.find("\"choices\"") - 12)
          .c_str());
  return failed ? 1 : 0;
}

}  // namespace

const frontend::CommandSpec kSpec{
    "trainer_bench",
    "[--rounds R] [--steps N] [--strategies] [--target A] [--epochs E]\n"
    "       [--exported NAME --onnx FILE --batch B] [--trainer PATH] [--python PATH] "
    "[--script PATH]",
    "The trainer against PyTorch DDP on LeNet (or an exported PyTorch model), interleaved;\n"
    "with --strategies, each strategy's accuracy and time to --target.",
    {},
    {{"--rounds", "R", "interleaved rounds (default 5)"},
     {"--steps", "N", "steps per run (default 400)"},
     {"--strategies", "", "train each strategy to --target instead"},
     {"--target", "A", "test accuracy to reach with --strategies (default 0.85)"},
     {"--epochs", "E", "epochs at most with --strategies (default 10)"},
     {"--exported", "NAME", "one of scripts/pytorch/export_models.py's models, for DDP"},
     {"--onnx", "FILE", "its ONNX export, for the trainer"},
     {"--batch", "B", "the batch the export holds (default 2)"},
     {"--trainer", "PATH", "the trainer executable (default: this build's)"},
     {"--python", "PATH", "the python with torch (default /usr/bin/python3)"},
     {"--script", "PATH", "the DDP script (default bench/ddp_lenet.py)"}},
    /*program=*/""};

int main(int argc, char** argv) {
  const frontend::Args args = frontend::ParseProgramArgs(kSpec, argc, argv);
  Options o;
  frontend::TypedFlags flags(args);
  o.rounds = flags.Int("--rounds", o.rounds, 1, 10000);
  o.steps = flags.Int("--steps", o.steps, 1, 10000000);
  o.epochs = flags.Int("--epochs", o.epochs, 1, 10000);
  o.exported_batch = flags.Int("--batch", o.exported_batch, 1, 100000);
  o.target = flags.Number("--target", o.target, 0, 1);
  if (!flags.status().ok()) return frontend::UsageError(kSpec, flags.status());
  o.strategies = args.Has("--strategies");
  o.trainer = args.Get("--trainer", o.trainer);
  o.python = args.Get("--python", o.python);
  o.script = args.Get("--script", o.script);
  o.exported = args.Get("--exported");
  o.onnx = args.Get("--onnx");
  if (o.exported.empty() != o.onnx.empty()) {
    return std::fprintf(stderr, "trainer_bench: --exported and --onnx go together\n"), 2;
  }
  return o.strategies ? Strategies(o) : Throughput(o);
}
