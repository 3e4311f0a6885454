"""The devices file of a GPU host that a GPU run was kept from: its measured link.

Usage: devices_file.py GPU          print configs/GPU-1gpu.yaml as the kept runs make it
       devices_file.py --write      write every GPU's file into configs/
       devices_file.py --check      exit 1 naming each configs/ file that differs
GPU: one of the table below (h100, h200).

The file has the host's devices as the runs measured them (their host.yaml),
the GPU's compute and memory figures from NVIDIA's datasheet (sources in
docs/hardware.md; the simulator uses them for ops no profile has), and the
link between cpu0 and gpu0 as `planner profile` measured it on that host: its
fit to copies of one tensor alone, in each direction, in each model's profile
of each run listed; the file's link (one figure for both directions,
docs/devices.md) is the median of those fits' latencies and of their
bandwidths, each rounded to three significant figures. The copies' fit is the
link's own figure; `planner profile`'s default refits the link to a split
step's copies, which includes the executor's waits (docs/simulator.md, "On a
GPU"), and a profile's links replace the file's when both are given.
Where a run kept profile-copies.tsv (since 2026-11-28) that is the copies'
fit; before, profile.tsv was, and its link lines must then be fits to 5 sizes.

Why a script: a figure in configs/ is printed by a committed script from the
runs kept in bench/gpu-runs/, and the test `configs_gpu_measured` checks that
configs/ still holds what this prints.
"""
import os
import re
import statistics
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# The datasheet's figures (docs/hardware.md has the sources) and the runs whose
# profiles measured the link. A run kept later is added to its list.
GPUS = {
    "h100": {
        "title": "NVIDIA H100 (SXM5 80 GB variant)",
        "memory": "80GiB", "memory_note": "80 GB HBM3 (the driver reports a little less)",
        "peak_flops": "67 TFLOP/s", "flops_note": "H100 SXM FP32 (non-tensor)",
        "memory_bandwidth": "3.35 TB/s", "bandwidth_note": "H100 SXM HBM3",
        "runs": ["bench/gpu-runs/h100-2026-11-27"],
    },
    "h200": {
        "title": "NVIDIA H200 (SXM 141 GB)",
        "memory": "141GB", "memory_note": "141 GB HBM3e",
        "peak_flops": "67 TFLOP/s",
        "flops_note": "H200 SXM FP32 (non-tensor); 132 SMs x 128 x 2 x 1.98 GHz",
        "memory_bandwidth": "4.8 TB/s", "bandwidth_note": "H200 SXM HBM3e",
        "runs": ["bench/gpu-runs/h200-2026-11-28", "bench/gpu-runs/h200-2026-11-29"],
    },
}


def fail(message):
    sys.exit(f"devices_file.py: {message}")


def host_cpu(run):
    """(cores, threads) of the run's host.yaml cpu0."""
    path = os.path.join(ROOT, run, "host.yaml")
    try:
        text = open(path).read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    m = re.search(r"\{name: cpu0, kind: cpu, cores: \[([0-9, ]+)\], threads: (\d+)\}", text)
    if not m:
        fail(f"{path}: no line '{{name: cpu0, kind: cpu, cores: [...], threads: N}}'")
    return [int(c) for c in m.group(1).split(",")], int(m.group(2))


def copies_fits(run):
    """[(profile path, src, dst, latency s, bytes/s)] of the run's cpu0-gpu0 copies' fits."""
    fits = []
    run_dir = os.path.join(ROOT, run)
    for model in sorted(os.listdir(run_dir)):
        d = os.path.join(run_dir, model)
        if not os.path.isdir(d):
            continue
        copies = os.path.join(d, "profile-copies.tsv")
        path = copies if os.path.exists(copies) else os.path.join(d, "profile.tsv")
        if not os.path.exists(path):
            continue
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if f[0] != "link" or {f[1], f[2]} != {"cpu0", "gpu0"}:
                continue
            if path != copies and f[5] != "5":
                fail(f"{path}: link {f[1]} -> {f[2]} fitted to {f[5]} samples, not to copies of "
                     "5 sizes: keep the copies' fit as profile-copies.tsv")
            fits.append((os.path.relpath(path, ROOT), f[1], f[2], float(f[3]), float(f[4])))
    if not fits:
        fail(f"{run_dir}: no profile with a link between cpu0 and gpu0")
    return fits


def three_figures(x):
    return float(f"{x:.3g}")


def spread(values, scale, unit):
    return (f"{statistics.median(values) * scale:.3g} {unit} "
            f"[{min(values) * scale:.3g}..{max(values) * scale:.3g}]")


def devices_file(gpu):
    g = GPUS[gpu]
    hosts = {run: host_cpu(run) for run in g["runs"]}
    if len(set(map(str, hosts.values()))) != 1:
        fail(f"{gpu}: the runs' host.yaml files differ: {hosts}")
    cores, threads = next(iter(hosts.values()))
    fits = [fit for run in g["runs"] for fit in copies_fits(run)]
    latency_us = three_figures(statistics.median(f[3] for f in fits) * 1e6)
    bandwidth_gbs = three_figures(statistics.median(f[4] for f in fits) / 1e9)
    by_way = []
    for src, dst in (("cpu0", "gpu0"), ("gpu0", "cpu0")):
        way = [f for f in fits if (f[1], f[2]) == (src, dst)]
        by_way.append(f"#   {src} -> {dst}: latency {spread([f[3] for f in way], 1e6, 'us')}, "
                      f"bandwidth {spread([f[4] for f in way], 1e-9, 'GB/s')}, {len(way)} fits")
    profiles = sorted({f[0] for f in fits})
    lines = [
        f"# One host with one {g['title']}, as measured by the GPU runs kept in",
        *[f"# {run}/" for run in g["runs"]],
        f"# Written by scripts/cuda/devices_file.py {gpu}; edit that script, not this file",
        "# (ctest's configs_gpu_measured checks the two agree). Format: docs/devices.md.",
        "# gpu0's figures are NVIDIA's datasheet's (docs/hardware.md), for ops no profile has.",
        "# The link is `planner profile`'s fit to copies of one tensor alone on that host,",
        f"# the median over both directions of the {len(profiles)} profiles' fits:",
        *[f"#   {p}" for p in profiles],
        "# median [range] by direction:",
        *by_way,
        "# The datasheet's PCIe Gen5 x16 gives 63 GB/s per direction (docs/hardware.md); the",
        "# executor's copies (Tensor::to, from and to LibTorch's pageable host memory) reach",
        "# this much of it. A profile's links replace the file's.",
        "devices:",
        "  - name: cpu0",
        "    kind: cpu",
        f"    cores: [{', '.join(map(str, cores))}]",
        f"    threads: {threads}",
        "  - name: gpu0",
        "    kind: cuda",
        "    index: 0",
        f"    memory: {g['memory']}".ljust(33) + f"# {g['memory_note']}",
        f"    peak_flops: {g['peak_flops']}".ljust(33) + f"# {g['flops_note']}",
        f"    memory_bandwidth: {g['memory_bandwidth']}".ljust(33) + f"# {g['bandwidth_note']}",
        "links:",
        "  - between: [cpu0, gpu0]",
        f"    bandwidth: {bandwidth_gbs:g} GB/s",
        f"    latency: {latency_us:g}us",
    ]
    return "\n".join(lines) + "\n"


def config_path(gpu):
    return os.path.join(ROOT, "configs", f"{gpu}-1gpu.yaml")


def main(argv):
    if argv == ["--write"]:
        for gpu in GPUS:
            with open(config_path(gpu), "w") as out:
                out.write(devices_file(gpu))
            print(f"wrote {os.path.relpath(config_path(gpu), ROOT)}")
    elif argv == ["--check"]:
        stale = []
        for gpu in GPUS:
            try:
                held = open(config_path(gpu)).read()
            except OSError as e:
                held = f"({e.strerror})"
            if held != devices_file(gpu):
                stale.append(os.path.relpath(config_path(gpu), ROOT))
        if stale:
            fail(f"{', '.join(stale)}: not what the kept runs make; run "
                 "scripts/cuda/devices_file.py --write and read the difference")
        print(f"configs/ holds what the kept runs make for {', '.join(GPUS)}")
    elif len(argv) == 1 and argv[0] in GPUS:
        sys.stdout.write(devices_file(argv[0]))
    else:
        sys.exit("\n".join(__doc__.strip().splitlines()[2:6]))


if __name__ == "__main__":
    main(sys.argv[1:])
