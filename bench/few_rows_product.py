#!/usr/bin/python3
"""Products of a few rows by NMT-8's Placer decoder weight ([2048, 1040], 8.5 MB):
one gemv per row against one gemm, forward (x W^T) and backward (g W), on one
thread, as planner::search::FewRowsTimesWeight chooses between them (kGemvRows,
planner/search/deferred_gradient.h). Prints the median and range of 7 runs of 100
products per row count; the two ways are interleaved within each run.

Uses Debian's python3-torch (scripts/setup.sh installs it), the same LibTorch
and OpenBLAS the planner links:  /usr/bin/python3 bench/few_rows_product.py
"""
import time

import torch

torch.set_num_threads(1)
OUT, IN = 2048, 1040
weight = torch.randn(OUT, IN)


def ways(rows):
    x, g = torch.randn(rows, IN), torch.randn(rows, OUT)
    return {
        "gemm forward": lambda: torch.mm(x, weight.t()),
        "gemv forward": lambda: torch.stack([torch.mv(weight, x[r]) for r in range(rows)]),
        "gemm backward": lambda: torch.mm(g, weight),
        "gemv backward": lambda: torch.stack([torch.mv(weight.t(), g[r]) for r in range(rows)]),
    }


for rows in (1, 4, 8, 16, 17):
    fs = ways(rows)
    times = {name: [] for name in fs}
    for f in fs.values():
        f()
    for _ in range(7):
        for name, f in fs.items():
            t = time.perf_counter()
            for _ in range(100):
                f()
            times[name].append((time.perf_counter() - t) / 100 * 1e6)
    for name, v in times.items():
        v.sort()
        print(f"{rows:2d} rows  {name:14s} {v[3]:7.0f} us median ({v[0]:.0f}-{v[-1]:.0f})")
