"""What a kept CPU + GPU placement puts on its cpu devices, as the simulator sees it.

Usage: sim_cpu_side.py RUN MODEL PLACEMENT [PLANNER]
RUN: a kept error-table run (bench/gpu-runs/h200-2026-11-29); MODEL: one of
its folders, made again from its zoo `spec` (torchvision specs are not
handled: bench/sim_accuracy_gpu_kept.sh makes those); PLACEMENT: a kept
placement's file name without .placement (etf, scotch, single_cpu0).
PLANNER: the planner binary (default build/planner/planner).

Simulates the placement with the run's profile.tsv and a trace, and prints
its step, devices and transfers as `planner simulate` does, the ops on cpu
devices with the longest simulated spans, then the copies into cpu devices by
source and size: how many, MiB in all, simulated seconds in all. Why: on
the H200 lent on 2026-11-29 NMT-2's etf measured four times its prediction
(docs/simulator.md, "On a GPU"); this says what that step does on the cpu
side, which the measured traces would have to be set against.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[2])
    run, model, placement = sys.argv[1:4]
    planner = sys.argv[4] if len(sys.argv) == 5 else "build/planner/planner"
    d = os.path.join(run, model)
    spec = open(os.path.join(d, "spec")).read().strip()
    if spec.startswith("torchvision:"):
        sys.exit(f"sim_cpu_side.py: {d}/spec is {spec}: only zoo specs are made here")
    name, _, flags = spec.partition(":")
    args = [a for f in flags.split(",") if f for a in f.split("=", 1)]
    with tempfile.TemporaryDirectory() as tmp:
        pb, trace = os.path.join(tmp, "model.pb"), os.path.join(tmp, "trace.json")
        subprocess.run([planner, "zoo", name, *args, "-o", pb], check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run([planner, "simulate", pb, os.path.join(run, "host.yaml"), "--placement",
                              os.path.join(d, placement + ".placement"), "--profile",
                              os.path.join(d, "profile.tsv"), "--trace", trace],
                             check=True, capture_output=True, text=True).stdout
        events = json.load(open(trace))["traceEvents"]
    # The step, each device's busy time (summed over its workers) and the transfers.
    print("\n".join(l for l in out.splitlines()[1:] if not l.startswith(("lower bound", "critical", "trace:"))))
    # The trace's tids below 1000 are the cpu devices' workers (a GPU's are 1000 and up).
    ops = [e for e in events if e.get("cat") == "op" and e.get("tid", 1000) < 1000]
    print(f"{len(ops)} ops on cpu workers, {sum(e['dur'] for e in ops) / 1e6:.3f} s in all; the longest:")
    for e in sorted(ops, key=lambda e: -e["dur"])[:8]:
        print(f"  {e['dur'] / 1e3:9.3f} ms  {e['name']} ({e['args'].get('op', '?')})")
    copies = collections.defaultdict(lambda: [0, 0, 0.0])
    for e in events:
        if e.get("cat") == "transfer" and e.get("tid", 1000) < 1000:
            c = copies[(e["args"]["from"], e["args"]["bytes"])]
            c[0] += 1
            c[1] += e["args"]["bytes"]
            c[2] += e["dur"] / 1e6
    print("copies into cpu workers, by source and size (the most bytes first):")
    for (src, size), (n, total, s) in sorted(copies.items(), key=lambda kv: -kv[1][1])[:6]:
        print(f"  from {src}: {n:4d} of {size / 2**20:8.3f} MiB, {total / 2**20:9.1f} MiB, {s:.3f} s")


if __name__ == "__main__":
    main()
