#!/usr/bin/env bash
# The simulator's error table on CPU + GPU (docs/simulator.md, "On a GPU") from
# a run kept in the repository (bench/gpu-runs/RUN: what scripts/cuda/
# gpu_check.sh's keep.tgz holds, the traces left out): the measurements and the
# profile are that GPU host's, the predictions this build's simulator's. Any
# build will do, a CPU-only one too: simulating needs no GPU. Each model is
# made again from its `spec`: a zoo spec NAME[:FLAGS], or torchvision:NAME:BATCH
# (scripts/pytorch/export_models.py's export, which needs Debian's python3-torch,
# then `planner import`; the two give the same bytes each time).
# A run whose models have a profile-copies.tsv (the links' first fit) is also
# simulated with it, in a second column.
# OFF_GPU=copies: the links off a GPU taken from profile-copies.tsv into
# profile.tsv (the 2026-11-28 run's split step held each GPU op back, which
# may have lengthened the copies off the GPU: docs/simulator.md, "On a GPU").
# RUN/more-rounds.log (a later call's rounds of the same placements on the same
# host, one line each: "[T s] MODEL PLACEMENT round R: SECONDS"): its medians
# join the kept ones.
# Usage: [OFF_GPU=copies] bench/sim_accuracy_gpu_kept.sh [RUN_DIR] [BUILD_DIR]
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
here="$(cd "$(dirname "$0")" && pwd)"
run="$(realpath "${1:-$here/gpu-runs/h100-2026-11-27}")"
build="$(realpath "${2:-$here/../build}")"
planner="$build/planner/planner"
bench_need "$planner"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ "${OFF_GPU:-}" = copies ] || [ -f "$run/more-rounds.log" ]; then
  cp -r "$run" "$tmp/run"
  run="$tmp/run"
fi
if [ -f "$run/more-rounds.log" ]; then
  while read -r model placement seconds; do
    [ -f "$run/$model/$placement.measured" ] ||
      { echo "sim_accuracy_gpu_kept.sh: more-rounds.log names $model/$placement, not kept" >&2; exit 1; }
    echo "$seconds" >>"$run/$model/$placement.measured"
  done < <(sed -n 's/^\[[0-9]* s\] \([a-z0-9_]*\) \([a-z0-9_]*\) round [0-9]*: \([0-9.e+-]*\)$/\1 \2 \3/p' \
    "$run/more-rounds.log")
fi
if [ "${OFF_GPU:-}" = copies ]; then
  for d in "$run"/*/; do
    [ -f "$d/profile-copies.tsv" ] || continue
    # Each `link SRC DST` line whose SRC is a cuda device of host.yaml's and
    # DST is not: profile-copies.tsv's line for that pair.
    awk -F'\t' -v OFS='\t' 'FILENAME ~ /host.yaml$/ {
        if (match($0, /name: [^,}]*/) && $0 ~ /kind: cuda/) gpu[substr($0, RSTART + 6, RLENGTH - 6)] = 1
        next }
      FILENAME ~ /copies/ { if ($1 == "link") first[$2 "\t" $3] = $0; next }
      $1 == "link" && ($2 in gpu) && !($3 in gpu) && (($2 "\t" $3) in first) { print first[$2 "\t" $3]; next }
      { print }' "$run/host.yaml" "$d/profile-copies.tsv" "$d/profile.tsv" >"$d/profile.off"
    mv "$d/profile.off" "$d/profile.tsv"
  done
fi
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
