#!/usr/bin/env bash
# Issue 37's whole GPU run in one call, for a lent GPU host without network:
# build (PLANNER_DEBS=DIR as for scripts/cuda/build.sh), the CUDA tests, the
# executor against PyTorch eager (bench/cuda_vs_eager.sh), a measured step
# with the allocator's peak, the simulator's error on CPU + GPU
# (bench/sim_accuracy_gpu.sh) and a real-reward search on CPU + GPU. Logs go
# to OUT (default out/). Each part has its own time limit, so that one slow
# part leaves the others their turn.
# Usage: PLANNER_DEBS=.cuda-debs OUT=DIR scripts/cuda/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-out}"
mkdir -p "$out"
exec > >(tee "$out/gpu_check.log") 2>&1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv
bash scripts/cuda/build.sh >"$out/build.log" 2>&1 || { grep -A6 "error" "$out/build.log" | head -80; exit 1; }
B=build-cuda
P=$B/planner/planner
for t in runtime_executor_cuda_test runtime_profiler_cuda_test; do
  timeout 90 "$B/tests/runtime/$t" 2>&1 | grep -E "OK \]|FAILED|PASSED|Failure|Expected|Which|actual"
done
# A cpu device of 8 host cores beside the GPU: the default 2 cores make every
# CPU-heavy placement of Inception-V3 seconds long.
printf 'devices:\n  - {name: cpu0, kind: cpu, cores: [0, 1, 2, 3, 4, 5, 6, 7], threads: 8}\n  - {name: gpu0, kind: cuda, index: 0}\n' >"$out/host.yaml"
printf 'devices:\n  - {name: gpu0, kind: cuda, index: 0}\n' >"$out/gpu.yaml"
timeout 100 bash bench/cuda_vs_eager.sh 3 "$B"
"$P" zoo inception_v3 --batch 32 -o "$out/inception.pb" >/dev/null
timeout 40 "$P" measure "$out/inception.pb" "$out/gpu.yaml" --steps 10 --trace "$out/inception-gpu.json"
timeout 300 bash bench/sim_accuracy_gpu.sh "$out/host.yaml" 3 "$B" inception_v3:--batch=32
timeout 75 "$P" search models/tfjs/emotion.json "$out/host.yaml" --reward real --budget 30s \
  -o "$out/emotion.placement"
timeout 240 bash bench/sim_accuracy_gpu.sh "$out/host.yaml" 2 "$B" nmt:--layers=2
