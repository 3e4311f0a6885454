#!/usr/bin/env bash
# The simulator's error table on CPU + GPU (docs/simulator.md, "On a GPU") from
# a run kept in the repository (bench/gpu-runs/RUN: what scripts/cuda/
# gpu_check.sh's keep.tgz holds, the traces left out): the measurements and the
# profile are that GPU host's, the predictions this build's simulator's. Any
# build will do, a CPU-only one too: simulating needs no GPU. Each model is
# made again from its `spec`: a zoo spec NAME[:FLAGS], or torchvision:NAME:BATCH
# (scripts/pytorch/export_models.py's export, which needs Debian's python3-torch,
# then `planner import`; the two give the same bytes each time).
# Usage: bench/sim_accuracy_gpu_kept.sh [RUN_DIR] [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
run="$(realpath "${1:-$here/gpu-runs/h100-2026-11-27}")"
build="$(realpath "${2:-$here/../build}")"
planner="$build/planner/planner"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
models=()
for d in "$run"/*/; do
  name="$(basename "$d")"
  spec="$(cat "$d/spec")"
  case "$spec" in
    torchvision:*)
      IFS=: read -r _ model batch <<<"$spec"
      /usr/bin/python3 "$here/../scripts/pytorch/export_models.py" --batch "$batch" "$tmp/onnx" \
        "$model" >/dev/null
      "$planner" import "$tmp/onnx/$model/model.onnx" -o "$tmp/$name.pb" >/dev/null
      models+=("$tmp/$name.pb")
      ;;
    *) models+=("$spec") ;;
  esac
done
REUSE="$run" bash "$here/sim_accuracy_gpu.sh" "$run/host.yaml" 0 "$build" "${models[@]}"
