#!/usr/bin/env bash
# The executor's training step on a GPU against PyTorch eager's on the same GPU,
# interleaved. Per round: `planner measure` of the zoo's Inception-V3 (batch
# 32) with every op on one cuda device, op by op (`graphs: off`) and replayed
# as a CUDA graph (`graphs: on`; docs/runtime.md, "CUDA graphs"), then
# bench/inception_eager.py (torchvision's Inception-V3, same batch). Then the
# same for each EXPORTED model: NAME:BATCH:FILE.pb, a GraphDef that `planner
# import` made of scripts/pytorch/export_models.py's NAME exported at BATCH
# (momentum SGD, as bench/eager_exported.py runs it on the GPU). Prints each
# round's medians and the ratios to eager, then the median ratio per model.
# Needs a build against a CUDA LibTorch (scripts/cuda/build.sh) and python3
# with torch and torchvision.
# Usage: bench/cuda_vs_eager.sh [ROUNDS] [BUILD_DIR] [NAME:BATCH:FILE.pb ...]
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
rounds="${1:-3}"
planner="$(realpath "${2:-$(dirname "$0")/../build-cuda}")/planner/planner"
bench_need "$planner"
shift $(( $# < 2 ? $# : 2 ))
exported=()
for spec in "$@"; do exported+=("${spec%%:*}:$(echo "$spec" | cut -d: -f2):$(realpath "${spec#*:*:}")"); done
cd "$(dirname "$0")/.."
[ -x "$planner" ] || { echo "cuda_vs_eager.sh: no $planner (scripts/cuda/build.sh)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$planner" zoo inception_v3 --batch 32 -o "$tmp/inception.pb" >/dev/null
for graphs in off on; do
  printf 'devices:\n  - {name: gpu0, kind: cuda, index: 0, graphs: %s}\n' "$graphs" >"$tmp/$graphs.yaml"
done
# The median (ms) a run prints, or the run's output on stderr and exit.
median() {
  local out m
  out="$("$@" 2>&1)" || { echo "cuda_vs_eager.sh: failed: $*" >&2; echo "$out" >&2; exit 1; }
  m="$(echo "$out" | sed -n 's/.* median \([0-9.]*\).*/\1/p' | head -1)"
  [ -n "$m" ] || { echo "cuda_vs_eager.sh: no median from: $*" >&2; echo "$out" >&2; exit 1; }
  echo "$out" | grep "CUDA graph" >&2 || true
  echo "$m"
}
# One round of MODEL: op by op, graphed, eager; a line, and the ratios kept.
round() {
  local name="$1" r="$2" eager
  shift 2
  local off on
  off=$(median "$planner" measure "$tmp/model.pb" "$tmp/off.yaml" --steps 10 "${flags[@]}")
  on=$(median "$planner" measure "$tmp/model.pb" "$tmp/on.yaml" --steps 10 "${flags[@]}") || on=nan
  eager=$(median "$@")
  awk -v n="$name" -v r="$r" -v s="$off" -v g="$on" -v e="$eager" 'BEGIN {
    printf "%s round %s: executor %.3f ms, with CUDA graphs %.3f ms, eager %.3f ms; executor/eager %.2f, graphs/eager %.2f\n",
      n, r, s, g, e, s / e, g / e }' | tee -a "$tmp/rounds.txt"
}
cp "$tmp/inception.pb" "$tmp/model.pb"
flags=()
for r in $(seq "$rounds"); do round inception_v3 "$r" python3 bench/inception_eager.py 10; done
for spec in "${exported[@]}"; do
  IFS=: read -r name batch file <<<"$spec"
  cp "$file" "$tmp/model.pb"
  flags=(--optimizer momentum)
  for r in $(seq "$rounds"); do
    round "$name" "$r" python3 bench/eager_exported.py "$name" --batch "$batch" --device cuda
  done
done
python3 - "$tmp/rounds.txt" <<'PY'
import re, statistics, sys
by = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) round .* executor/eager ([0-9.]+), graphs/eager ([0-9.]+)", line)
    if m:
        by.setdefault(m.group(1), []).append((float(m.group(2)), float(m.group(3))))
for name, v in by.items():
    a, b = [x for x, _ in v], [y for _, y in v]
    print(f"{name}: median executor/eager {statistics.median(a):.2f} ({min(a):.2f}-{max(a):.2f}), "
          f"with CUDA graphs {statistics.median(b):.2f} ({min(b):.2f}-{max(b):.2f}) over {len(v)} rounds")
PY
