#!/usr/bin/env python3
"""Start-up time of test binaries: each runs with no test selected, so what is
timed is loading its libraries and their static initialisers (LibTorch's
operator registry, above all), which CTest pays once per process.

Why: CTest runs one process per test case (gtest_discover_tests) or per suite
(planner_discover_suites, cmake/TestSuites.cmake); this is the per-process
price that chooses between them.

usage: bench/test_startup.py [--runs 5] [BINARY ...]
Prints each binary's median wall time and range over the runs, interleaved.
"""
import argparse
import statistics
import subprocess
import sys
import time

DEFAULT = [
    "build/tests/runtime/runtime_kernels_forward_test",  # links LibTorch
    "build/tests/graph/graph_graph_test",  # torch-free
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("binaries", nargs="*", default=DEFAULT)
    a = ap.parse_args()
    times = {b: [] for b in a.binaries}
    for _ in range(a.runs):
        for b in a.binaries:  # interleaved: a VM's swings fall on each alike
            start = time.monotonic()
            try:
                subprocess.run([b, "--gtest_filter=-*"], check=True, stdout=subprocess.DEVNULL)
            except (OSError, subprocess.CalledProcessError) as e:
                sys.exit(f"test_startup: {b}: {e}")
            times[b].append(time.monotonic() - start)
    for b, t in times.items():
        print(f"{statistics.median(t):6.3f} s (range {min(t):.3f}..{max(t):.3f}, {a.runs} runs)  {b}")


if __name__ == "__main__":
    main()
