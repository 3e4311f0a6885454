"""A split step's copies between a cpu and a GPU, measured against simulated.

Usage: copy_spans.py RUN PROBE [PLANNER]
RUN: a kept error-table run (bench/gpu-runs/h100-2026-11-27): its
Inception-V3 etf placement is simulated with its profile, with a trace.
PROBE: a kept launch probe (bench/gpu-runs/h100-2026-11-27-probe): its
measured traces of the same placement, etf.ROUND.trace.json.gz.
PLANNER: the planner binary (default build/planner/planner).

Prints, per measured round and direction, the copies by size (under 4 KiB,
4-256 KiB, 0.25-4 MiB, 4 MiB and over): how many, the median span of the
measured ones (from the copy's request to its end: a copy to or from a GPU
waits for the GPU's queue inside it) and of the simulated ones (the copy
alone: the simulator adds the wait before it), and the ratio of the medians.
This is what led `planner profile` to refit the links between a cpu and a GPU
to a split step's copies (docs/simulator.md, "On a GPU").
"""
import glob
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile

BUCKETS = [("under 4 KiB", 4096), ("4-256 KiB", 262144), ("0.25-4 MiB", 4 << 20),
           ("4 MiB and over", float("inf"))]


def copies(path):
    """(device row, copy name, occurrence) -> (bytes, span us) of a Chrome trace's
    transfers (a node's outputs copied to one device share a name)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)["traceEvents"]
    rows = {e["tid"]: e["args"]["name"] for e in trace if e.get("ph") == "M"}
    out = {}
    for e in trace:
        if e.get("ph") == "X" and e.get("cat") == "transfer":
            row = rows.get(e["tid"], str(e["tid"])).split(" #")[0]
            k = 0
            while (row, e["name"], k) in out:
                k += 1
            out[(row, e["name"], k)] = (e["args"]["bytes"], e["dur"])
    return out


def bucket(size):
    return next(name for name, below in BUCKETS if size < below)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    run, probe = sys.argv[1], sys.argv[2]
    planner = sys.argv[3] if len(sys.argv) > 3 else "build/planner/planner"
    tmp = tempfile.mkdtemp()
    model, trace = os.path.join(tmp, "inception_v3.pb"), os.path.join(tmp, "etf.json")
    subprocess.run([planner, "zoo", "inception_v3", "--batch", "32", "-o", model], check=True,
                   stdout=subprocess.DEVNULL)
    kept = os.path.join(run, "inception_v3")
    subprocess.run([planner, "simulate", model, os.path.join(run, "host.yaml"), "--placement",
                    os.path.join(kept, "etf.placement"), "--profile",
                    os.path.join(kept, "profile.tsv"), "--trace", trace], check=True,
                   stdout=subprocess.DEVNULL)
    simulated = copies(trace)
    print(f"{'round':28} {'copy':14} {'size':15} {'n':>4} {'measured us':>12} "
          f"{'simulated us':>13} {'ratio':>6}")
    for path in sorted(glob.glob(os.path.join(probe, "etf.*.trace.json.gz"))):
        measured = copies(path)
        for row, what in (("gpu0", "onto the GPU"), ("cpu0", "off the GPU")):
            spans = {name: ([], []) for name, _ in BUCKETS}
            for key, (size, span) in measured.items():
                if key[0] == row and key in simulated:
                    spans[bucket(size)][0].append(span)
                    spans[bucket(size)][1].append(simulated[key][1])
            for name, _ in BUCKETS:
                m, s = spans[name]
                if not m:
                    continue
                mm, sm = statistics.median(m), statistics.median(s)
                print(f"{os.path.basename(path):28} {what:14} {name:15} {len(m):4} {mm:12.1f} "
                      f"{sm:13.1f} {mm / sm:5.2f}x")


if __name__ == "__main__":
    main()
