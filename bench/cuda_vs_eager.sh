#!/usr/bin/env bash
# The executor's training step on a GPU against PyTorch eager's on the same GPU,
# interleaved: per round, `planner measure` of the zoo's Inception-V3 (batch 32)
# with every op on one cuda device, `sync: step` then `sync: op`
# (docs/devices.md), then bench/inception_eager.py (torchvision's Inception-V3,
# same batch). Prints each round's medians and the ratios to eager. Needs a
# build against a CUDA LibTorch (scripts/cuda/build.sh) and python3 with torch
# and torchvision.
# Usage: bench/cuda_vs_eager.sh [ROUNDS] [BUILD_DIR]
set -euo pipefail
rounds="${1:-3}"
planner="$(realpath "${2:-$(dirname "$0")/../build-cuda}")/planner/planner"
cd "$(dirname "$0")/.."
[ -x "$planner" ] || { echo "cuda_vs_eager.sh: no $planner (scripts/cuda/build.sh)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$planner" zoo inception_v3 --batch 32 -o "$tmp/inception.pb" >/dev/null
for sync in step op; do
  printf 'devices:\n  - {name: gpu0, kind: cuda, index: 0, sync: %s}\n' "$sync" >"$tmp/$sync.yaml"
done
# The median (ms) a run prints, or the run's output on stderr and exit.
median() {
  local out m
  out="$("$@" 2>&1)" || { echo "cuda_vs_eager.sh: failed: $*" >&2; echo "$out" >&2; exit 1; }
  m="$(echo "$out" | sed -n 's/.* median \([0-9.]*\).*/\1/p' | head -1)"
  [ -n "$m" ] || { echo "cuda_vs_eager.sh: no median from: $*" >&2; echo "$out" >&2; exit 1; }
  echo "$m"
}
for r in $(seq "$rounds"); do
  step=$(median "$planner" measure "$tmp/inception.pb" "$tmp/step.yaml" --steps 10)
  op=$(median "$planner" measure "$tmp/inception.pb" "$tmp/op.yaml" --steps 10)
  eager=$(median python3 bench/inception_eager.py 10)
  awk -v r="$r" -v s="$step" -v o="$op" -v e="$eager" 'BEGIN {
    printf "round %s: executor sync step %.3f ms, sync op %.3f ms, eager %.3f ms; step/eager %.2f, op/eager %.2f\n",
      r, s, o, e, s / e, o / e }'
done
