#!/usr/bin/env python3
"""Cold compile time of some of the build's translation units under flag variants.

Why: the build on CI's 2 cores is most of a CI run, and debug info is a large
part of each torch-heavy unit's cost. This compiles each named unit (no ccache)
with the build's own command, its flags replaced per variant, interleaved and
repeated, and prints each variant's total (median over repeats) and its ratio
to the first variant's. A variant is flags joined by '+' without their dash
("g1", "O1", "g1+O1"); each replaces the build's flags of its family (-g*, -O*).

usage: bench/compile_cost.py [--build build] [--repeats 2] [--variants g,g1]
                             [UNIT-SUFFIX ...]
The default units are a mix: torch-heavy tests and libraries, and torch-free code.
The sanitizer build's choice of -O1: --build build-asan --variants O2,O1
graph/onnx.cc frontend/args.cc tests/planner/refine/refine_test.cc sim/simulator.cc
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_UNITS = [
    "tests/planner/search/policy_test.cc",
    "planner/job/search_job.cc",
    "runtime/kernels_forward.cc",
    "sim/simulator.cc",
    "graph/shape_rules_nn.cc",
]
FAMILIES = [{"-g", "-g0", "-g1", "-g2", "-g3"}, {"-O0", "-O1", "-O2", "-O3", "-Os", "-Og"}]


def command_for(entry, variant, obj):
    args = shlex.split(entry["command"])
    if os.path.basename(args[0]) == "ccache":
        args = args[1:]
    for flag in ("-" + f for f in variant.split("+")):
        family = next((f for f in FAMILIES if flag in f), None)
        if family is None:
            sys.exit(f"compile_cost: -{variant}: {flag} is neither a -g nor an -O flag")
        args = [a for a in args if a not in family] + [flag]
    args[args.index("-o") + 1] = obj
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--variants", default="g,g1")
    ap.add_argument("units", nargs="*", default=DEFAULT_UNITS)
    a = ap.parse_args()
    db = os.path.join(a.build, "compile_commands.json")
    try:
        entries = json.load(open(db))
    except (OSError, ValueError) as e:
        sys.exit(f"compile_cost: {db}: {e} (configure the build first)")
    chosen = []
    for unit in a.units:
        match = [e for e in entries if e["file"].endswith("/" + unit)]
        if not match:
            sys.exit(f"compile_cost: no unit ending in {unit} in {db}")
        chosen.append(match[0])
    variants = a.variants.split(",")
    times = {v: [0.0] * a.repeats for v in variants}
    obj = os.path.join(tempfile.mkdtemp(prefix="compile_cost."), "unit.o")
    print(f"{len(chosen)} units, {a.repeats} repeats, variants {', '.join('-' + v for v in variants)}")
    for r in range(a.repeats):
        for entry in chosen:
            order = variants if r % 2 == 0 else list(reversed(variants))  # interleaved
            for v in order:
                start = time.monotonic()
                subprocess.run(command_for(entry, v, obj), cwd=entry["directory"], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                took = time.monotonic() - start
                times[v][r] += took
                print(f"  repeat {r + 1} -{v:5s} {took:6.1f} s  {os.path.relpath(entry['file'])}",
                      flush=True)
    first = statistics.median(times[variants[0]])
    for v in variants:
        med = statistics.median(times[v])
        spread = f"{min(times[v]):.1f}..{max(times[v]):.1f}"
        print(f"-{v:5s} all units: median {med:6.1f} s (range {spread}), "
              f"{med / first:.2f} of -{variants[0]}'s")


if __name__ == "__main__":
    main()
