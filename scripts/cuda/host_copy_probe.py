"""What a copy off the GPU costs by where it lands (issue 37; docs/runtime.md,
"CUDA devices"): Tensor.to('cpu') into a fresh pageable tensor each time (as
the executor copies), copy_ into one pageable tensor reused, copy_ into pinned
memory, and the same onto the GPU; then 8 threads copying off the GPU into
fresh tensors at once (etf's NMT-2 placement makes 160 copies of 32 MiB a
step). Prints the median over REPS of each, in ms and GB/s.
Usage: python3 scripts/cuda/host_copy_probe.py [REPS]"""
import statistics
import sys
import threading
import time

import torch

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 15


def median_s(f):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        f()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def show(what, mib, s):
    print(f"{what:42} {mib:5d} MiB  {1e3 * s:9.3f} ms  {mib * 2**20 / s / 1e9:7.2f} GB/s")


for mib in (1, 4, 32, 128):
    n = mib * 2**20 // 4
    gpu = torch.randn(n, device="cuda")
    reused = torch.zeros(n)
    pinned = torch.zeros(n, pin_memory=True)
    host = torch.randn(n)
    show("off the GPU, fresh pageable (Tensor.to)", mib, median_s(lambda: gpu.to("cpu")))
    show("off the GPU, pageable reused (copy_)", mib, median_s(lambda: reused.copy_(gpu)))
    show("off the GPU, pinned reused (copy_)", mib, median_s(lambda: pinned.copy_(gpu)))
    show("fresh pageable, zero-filled (no GPU)", mib, median_s(lambda: torch.zeros(n)))
    show("onto the GPU from pageable (Tensor.to)", mib, median_s(lambda: host.to("cuda")))
    show("onto the GPU from pinned (Tensor.to)", mib, median_s(lambda: pinned.to("cuda")))

n = 32 * 2**20 // 4
gpus = [torch.randn(n, device="cuda") for _ in range(8)]


def eight_at_once():
    threads = [threading.Thread(target=lambda g=g: g.to("cpu")) for g in gpus]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


show("8 threads at once off the GPU, fresh (all 8)", 32, median_s(eight_at_once) / 8)
