#!/usr/bin/env bash
# Two placements of one model measured side by side: ROUNDS rounds (default
# 12), each measuring both back to back in alternating order (ABBA), STEPS
# timed steps each (default 10, after 2 warm-up steps); prints each round's
# medians and the ratio B / A, then the median ratio and its range.
# Usage: bench/measure_ab.sh PLANNER MODEL DEVICES A.yaml B.yaml [ROUNDS]
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 5 "$@"
planner="$1" model="$2" devices="$3" a="$4" b="$5" rounds="${6:-12}"
median_s() {
  "$planner" measure "$model" "$devices" --placement "$1" --steps "${STEPS:-10}" --warmup 2 \
    --json | sed -n 's/.*"median_s":\([0-9.e+-]*\).*/\1/p'
}
ratios=()
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then ta="$(median_s "$a")"; tb="$(median_s "$b")"
  else tb="$(median_s "$b")"; ta="$(median_s "$a")"; fi
  ratio="$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.4f", b / a }')"
  ratios+=("$ratio")
  echo "round $r: A $(awk -v t="$ta" 'BEGIN { printf "%.3f", 1e3 * t }') ms, B $(awk -v t="$tb" 'BEGIN { printf "%.3f", 1e3 * t }') ms, B / A $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ r[NR] = $1 } END {
  m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
  printf "B / A over %d rounds: median %.3f (range %.3f-%.3f)\n", NR, m, r[1], r[NR] }'
