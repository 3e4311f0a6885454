#!/usr/bin/env bash
# Shows that a change left the search's behaviour as it was: two `planner`
# binaries (before and after the change) run the same seeded simulated
# searches on three zoo models and two models/tfjs models, and their
# placements, reward curves (CSV) and printed lines must be identical.
#
# usage: bench/search_unchanged.sh BEFORE_PLANNER AFTER_PLANNER [ITERATIONS]
#
# What is compared, and what is not:
# - placement files byte for byte, less their two wall-clock fields
#   (search.seconds, search.found_at_seconds);
# - the CSVs byte for byte, less their elapsed_s column;
# - stdout line for line, with every "N s" and "N.N s" (wall-clock seconds)
#   masked, less the "update N: ..." progress lines: which updates print one
#   depends on the clock (an improvement, or a second since the last), and
#   the CSV holds every update's figures.
# The hill climb is off (--refine 0) in those five: it stops on a wall-clock
# budget, so what it reaches depends on the machine's speed. A sixth run climbs
# on emotion.json, whose climb ends by its patience (500 fruitless kicks) well
# inside its 120 s here; its placement and climb counters must match too.
# Prints one line per model and "unchanged" or the first differences; exits 1
# on any difference.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 1 "$@"

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BEFORE_PLANNER AFTER_PLANNER [ITERATIONS]" >&2
  exit 2
fi
before=$1
after=$2
iterations=${3:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
devices=$root/configs/k40-paper-2gpu.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$after" zoo rnnlm -o "$work/rnnlm.pb" >/dev/null
"$after" zoo nmt --sizes small -o "$work/nmt.pb" >/dev/null
"$after" zoo inception_v3 --batch 8 -o "$work/inception_v3.pb" >/dev/null
models=("$work/rnnlm.pb" "$work/nmt.pb" "$work/inception_v3.pb"
  "$root/models/tfjs/emotion.json" "$root/models/tfjs/age.json")

# run BINARY MODEL OUTDIR [REFINE]: one seeded sim search, its outputs normalised.
run() {
  local bin=$1 model=$2 out=$3 refine=${4:-0}
  mkdir -p "$out"
  "$bin" search "$model" "$devices" --reward sim --seed 1 --iterations "$iterations" \
    --refine "$refine" --profile-cache off -o "$out/placement.yaml" --csv "$out/curve.csv" \
    --checkpoint "$out/ckpt" >"$out/stdout" 2>"$out/stderr" || echo "exit $?" >>"$out/stderr"
  grep -v -E '^  (seconds|found_at_seconds):' "$out/placement.yaml" >"$out/placement.cmp" || true
  cut -d, -f1,3- "$out/curve.csv" >"$out/curve.cmp"
  grep -Ev '^update [0-9]+: ' "$out/stdout" |
    sed -E -e 's/[0-9]+(\.[0-9]+)? s\b/N s/g' -e "s#$out#OUT#g" >"$out/stdout.cmp"
  cat "$out/stderr" >>"$out/stdout.cmp"
}

status=0
for model in "${models[@]}" climb:"$root/models/tfjs/emotion.json"; do
  refine=0
  if [[ $model == climb:* ]]; then
    model=${model#climb:}
    refine=120s
  fi
  name=$(basename "$model")
  [[ $refine != 0 ]] && name+=" with the climb"
  run "$before" "$model" "$work/before/$name" "$refine"
  run "$after" "$model" "$work/after/$name" "$refine"
  same=1
  for f in placement.cmp curve.cmp stdout.cmp; do
    if ! cmp -s "$work/before/$name/$f" "$work/after/$name/$f"; then
      same=0
      echo "$name: ${f%.cmp} differs:"
      diff "$work/before/$name/$f" "$work/after/$name/$f" | head -10 || true
    fi
  done
  if [[ $same == 1 ]]; then
    echo "$name: unchanged ($(grep -c . "$work/after/$name/curve.cmp") CSV rows," \
      "$(grep -c . "$work/after/$name/placement.cmp") placement lines," \
      "$(grep -c . "$work/after/$name/stdout.cmp") printed lines)"
  else
    status=1
  fi
done
exit $status
