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
# Usage: PLANNER_DEBS=.cuda-debs OUT=DIR EXPORTED="mobilenet_v2:32:m.pb" scripts/cuda/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-out}"
mkdir -p "$out"
exec > >(tee "$out/gpu_check.log") 2>&1
export PYTHONUNBUFFERED=1
read -r -a exported <<<"${EXPORTED:-}"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv
start=$SECONDS
PLANNER_TARGETS="planner runtime_executor_cuda_test runtime_profiler_cuda_test" \
  bash scripts/cuda/build.sh >"$out/build.log" 2>&1 ||
  { grep -B2 -A8 "error" "$out/build.log" | head -80; exit 1; }
echo "built in $((SECONDS - start)) s"
B=build-cuda
P=$B/planner/planner
# BINARIES=1: stripped copies in OUT, for a later call on a fresh host to reuse.
if [ -n "${BINARIES:-}" ]; then
  for f in "$P" "$B/tests/runtime/runtime_executor_cuda_test"; do strip -o "$out/$(basename "$f")" "$f"; done
  ls -la "$out"
fi
for t in runtime_executor_cuda_test runtime_profiler_cuda_test; do
  timeout 90 "$B/tests/runtime/$t" 2>&1 | grep -vE "^\[ RUN|^\[----------\]|^$"
done
# A cpu device of 8 host cores beside the GPU: the default 2 cores make every
# CPU-heavy placement of Inception-V3 seconds long.
printf 'devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1, 2, 3, 4, 5, 6, 7], threads: 8}\n  - {name: gpu0, kind: cuda, index: 0}\n' >"$out/host.yaml"
printf 'devices:\n  - {name: gpu0, kind: cuda, index: 0, graphs: on}\n' >"$out/gpu-graphs.yaml"
timeout 170 bash bench/cuda_vs_eager.sh 3 "$B" "${exported[@]}"
"$P" zoo inception_v3 --batch 32 -o "$out/inception.pb" >/dev/null
timeout 30 "$P" measure "$out/inception.pb" "$out/gpu-graphs.yaml" --steps 10
STEPS=3 timeout 200 bash bench/sim_accuracy_gpu.sh "$out/host.yaml" 3 "$B" inception_v3:--batch=32
for spec in "${exported[@]}"; do
  STEPS=3 timeout 60 bash bench/sim_accuracy_gpu.sh "$out/host.yaml" 2 "$B" "${spec#*:*:}"
done
echo "done in $((SECONDS - start)) s"
