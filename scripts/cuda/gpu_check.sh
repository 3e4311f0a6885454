#!/usr/bin/env bash
# Issue 37's whole GPU run in one call, for a lent GPU host without network:
# build (PLANNER_DEBS=DIR as for scripts/cuda/build.sh; only what this runs),
# the CUDA tests, the executor against PyTorch eager with and without CUDA
# graphs (bench/cuda_vs_eager.sh), a measured step with the allocator's peak,
# and the simulator's error on CPU + GPU (bench/sim_accuracy_gpu.sh). EXPORTED:
# NAME:BATCH:FILE.pb models besides the zoo's Inception-V3 (GraphDefs that
# `planner import` made of scripts/pytorch/export_models.py's exports: the
# CUDA build has no ONNX reader). Logs go to OUT (default out/). Each part has
# its own time limit, so that one slow part leaves the others their turn.
# EAGER=0 leaves out the comparison with eager; ROUNDS=N rounds of the error
# table (default 3), for Inception-V3, the EXPORTED models, then NMT-2, while
# LIMIT seconds last (on the H200 lent on 2026-11-28, the paper-scale NMT-2's two
# profiles alone took 235 s; on 2026-11-29 NMT=nmt:--layers=2,--sizes=small got one
# round in what was left of the call). The table's profiles, placements,
# measurements and traces are kept in OUT/keep.tgz, for
# bench/sim_accuracy_gpu.sh's REUSE on any build: one file, since the device
# tool returns at most 8 files a call. INCEPTION_CAP=S: Inception-V3's seconds
# at most (default 300; its single:cpu0 steps take about 10 s each).
# For a second call on the same warm host: PREBUILT=1 uses build-cuda/ as it
# is when its planner exists, TESTS=0 leaves out the CUDA tests, INCEPTION=0
# leaves Inception-V3 out of the table, NMT=SPEC names the NMT model (default
# nmt:--layers=2; empty: none). Each part prints the seconds since the start.
# SEARCHES, SEARCH_BUDGET, SEARCH_CAP: real-reward searches (below); DIFFS:
# `planner simulate --diff` of an earlier run's kept placements; PINNED_AB:
# those measured with host_copies pageable and pinned (below). All run before
# the error table, within LIMIT.
# Usage: PLANNER_DEBS=.cuda-debs OUT=DIR EXPORTED="mobilenet_v2:32:m.pb" scripts/cuda/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=bench/usage.sh
source bench/usage.sh  # bench_zoo
out="${OUT:-out}"
mkdir -p "$out"
exec > >(tee "$out/gpu_check.log") 2>&1
export PYTHONUNBUFFERED=1
read -r -a exported <<<"${EXPORTED:-}"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv
# What a trainer on NCCL (issue 37's item 6; the CUDA build has no trainer)
# would build against: whether the host's LibTorch ships c10d's NCCL and Gloo
# process groups' headers, Gloo's own, and NCCL's header and library.
timeout 60 python3 - <<'PY' || echo "the NCCL probe failed"
import glob, os, site, torch, torch.distributed as dist
inc = os.path.join(os.path.dirname(torch.__file__), "include")
for h in ("torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp",
          "torch/csrc/distributed/c10d/ProcessGroupGloo.hpp", "gloo/context.h"):
    print(f"{h}: {'present' if os.path.exists(os.path.join(inc, h)) else 'absent'}")
roots = site.getsitepackages() + [os.path.dirname(os.path.dirname(torch.__file__))]
for pattern in ("nvidia/nccl/include/nccl.h", "nvidia/nccl/lib/libnccl.so*"):
    found = sorted({f for r in roots for f in glob.glob(os.path.join(r, pattern))})
    print(f"{pattern}: {', '.join(found) or 'absent'}")
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, NCCL available "
      f"{dist.is_nccl_available()}, Gloo available {dist.is_gloo_available()}")
PY
start=$SECONDS
B="${BUILD_DIR:-build-cuda}"
P=$B/planner/planner
if [ -n "${PREBUILT:-}" ] && [ -x "$P" ]; then
  echo "build-cuda as it is (PREBUILT)"
else
  PLANNER_TARGETS="planner runtime_executor_cuda_test runtime_profiler_cuda_test" \
    bash scripts/cuda/build.sh >"$out/build.log" 2>&1 ||
    { grep -B2 -A8 "error" "$out/build.log" | head -80; exit 1; }
  echo "built in $((SECONDS - start)) s"
fi
# BINARIES=1: stripped copies in OUT, for a later call on a fresh host to reuse.
if [ -n "${BINARIES:-}" ]; then
  for f in "$P" "$B/tests/runtime/runtime_executor_cuda_test"; do strip -o "$out/$(basename "$f")" "$f"; done
  ls -la "$out"
fi
if [ "${TESTS:-1}" != 0 ]; then
  for t in runtime_executor_cuda_test runtime_profiler_cuda_test; do
    timeout 90 "$B/tests/runtime/$t" 2>&1 | grep -vE "^\[ RUN|^\[----------\]|^$"
  done
fi
# A cpu device of 8 host cores beside the GPU (configs/h100-1gpu.yaml and
# h200-1gpu.yaml have it too): two cores make every CPU-heavy placement of
# Inception-V3 seconds long. No figures: the profiles measure them.
printf 'devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1, 2, 3, 4, 5, 6, 7], threads: 8}\n  - {name: gpu0, kind: cuda, index: 0}\n' >"$out/host.yaml"
printf 'devices:\n  - {name: gpu0, kind: cuda, index: 0, graphs: on}\n' >"$out/gpu-graphs.yaml"
if [ "${EAGER:-1}" != 0 ]; then
  timeout 170 bash bench/cuda_vs_eager.sh 3 "$B" "${exported[@]}"
  "$P" zoo inception_v3 --batch 32 -o "$out/inception.pb" >/dev/null
  timeout 30 "$P" measure "$out/inception.pb" "$out/gpu-graphs.yaml" --steps 10
fi
keep="$(mktemp -d)/keep"
mkdir -p "$keep"
cp "$out/host.yaml" "$keep/"
deadline=$((start + ${LIMIT:-540}))
# Real-reward searches on CPU + GPU (issue 37, item 4): SEARCHES="SPEC ..." as
# bench/search_real_gpu.sh takes them, each for SEARCH_BUDGET (default 60s) of
# policy updates and at most SEARCH_CAP seconds (default 200), or what is left
# of LIMIT; kept in keep.tgz's searches/.
read -r -a searches <<<"${SEARCHES:-}"
for spec in "${searches[@]}"; do
  left=$((deadline - SECONDS))
  cap=$((left < ${SEARCH_CAP:-200} ? left : ${SEARCH_CAP:-200}))
  if [ "$cap" -lt 60 ]; then echo "no time left to search $spec"; continue; fi
  echo "[$((SECONDS - start)) s] real-reward search of $spec, within $cap s"
  KEEP="$keep/searches" CAP="$cap" bash bench/search_real_gpu.sh "$out/host.yaml" "$B" \
    "${SEARCH_BUDGET:-60s}" "$spec"
  tar czf "$out/keep.tgz" -C "$(dirname "$keep")" keep
done
# For a kept placement RUN/MODEL/PLACEMENT: sets run, m and p, and makes RUN's
# zoo model (its spec file) as FILE; fails, saying so, for a model not of the zoo.
kept_model() {  # RUN/MODEL/PLACEMENT FILE
  run="${1%/*/*}" m="$(basename "$(dirname "$1")")" p="$(basename "$1")"
  local spec
  spec="$(cat "$run/$m/spec")"
  case "$spec" in *.pb | torchvision:*) echo "$1: not a zoo model, not made again here"; return 1 ;; esac
  bench_zoo "$P" "$spec" "$2"
}
# Where the measured timeline parts from the simulated one, for placements an
# earlier run kept: DIFFS="RUN/MODEL/PLACEMENT ..." (bench/gpu-runs/...), each
# measured on this host with that run's profile and devices file by `planner
# simulate --diff`; kept in keep.tgz's diffs/.
read -r -a diffs <<<"${DIFFS:-}"
for d in "${diffs[@]}"; do
  if [ $((deadline - SECONDS)) -lt 40 ]; then echo "no time left for $d"; continue; fi
  mkdir -p "$keep/diffs"
  kept_model "$d" "$keep/diffs/model.pb" || continue
  echo "[$((SECONDS - start)) s] $m $p: where the measured timeline parts from the simulated one"
  mv "$keep/diffs/model.pb" "$keep/diffs/$m.pb"
  timeout $((deadline - SECONDS)) "$P" simulate "$keep/diffs/$m.pb" "$run/host.yaml" \
    --placement "$run/$m/$p.placement" --profile "$run/$m/profile.tsv" --diff --steps 3 \
    --trace "$keep/diffs/$m.$p.sim.json" 2>&1 | tee "$keep/diffs/$m.$p.diff"
  rm -f "$keep/diffs/$m.pb"
  tar czf "$out/keep.tgz" -C "$(dirname "$keep")" keep
done
# A cuda device's host_copies: pageable against pinned (docs/devices.md) on
# placements an earlier run kept: PINNED_AB="RUN/MODEL/PLACEMENT ...", each
# measured with RUN's devices file as it is and with host_copies: pinned, in
# 3 rounds of alternating order (the placement's devices digest left out: kept
# placements before 2026-11-30 carry the digest of their devices file's bytes).
read -r -a pinned_ab <<<"${PINNED_AB:-}"
for d in "${pinned_ab[@]}"; do
  ab="$(mktemp -d)"
  kept_model "$d" "$ab/model.pb" || continue
  sed '/^devices_digest:/d' "$run/$m/$p.placement" >"$ab/placement.yaml"
  cp "$run/host.yaml" "$ab/pageable.yaml"
  sed 's/kind: cuda, index: \([0-9]*\)}/kind: cuda, index: \1, host_copies: pinned}/' \
    "$run/host.yaml" >"$ab/pinned.yaml"
  for r in 1 2 3; do
    order="pageable pinned"
    [ "$r" = 2 ] && order="pinned pageable"
    for how in $order; do
      if [ $((deadline - SECONDS)) -lt 30 ]; then echo "no time left for $d"; break 2; fi
      echo "[$((SECONDS - start)) s] $m $p, host_copies: $how, round $r"
      timeout $((deadline - SECONDS)) "$P" measure "$ab/model.pb" "$ab/$how.yaml" \
        --placement "$ab/placement.yaml" --steps 3 --warmup 1 2>&1 |
        grep -E "step time|transfers|^  (cpu|gpu)[0-9]* "
    done
  done
done
rounds="${ROUNDS:-3}"
# The error table, model by model, each within its cap and what is left of
# LIMIT seconds (default 540) from the start; keep.tgz is rewritten after each.
accuracy() {  # CAP_S MODEL
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 30 ]; then echo "no time left for $2"; return; fi
  echo "[$((SECONDS - start)) s] $2, within $((left < $1 ? left : $1)) s"
  STEPS=3 KEEP="$keep" timeout $((left < $1 ? left : $1)) \
    bash bench/sim_accuracy_gpu.sh "$out/host.yaml" "$rounds" "$B" "$2"
  tar czf "$out/keep.tgz" -C "$(dirname "$keep")" keep
}
[ "${INCEPTION:-1}" != 0 ] && accuracy "${INCEPTION_CAP:-300}" inception_v3:--batch=32
for spec in "${exported[@]}"; do accuracy 120 "${spec#*:*:}"; done
nmt="${NMT-nmt:--layers=2}"
[ -n "$nmt" ] && accuracy 200 "$nmt"
echo "done in $((SECONDS - start)) s"
