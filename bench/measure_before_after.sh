#!/usr/bin/env bash
# Two builds of the executor side by side on real steps: for each model, three
# placements on configs/local-2cpu.yaml (every op on cpu0; metis; a random
# split, each forward op on cpu0 or cpu1 by awk's rand() from seed 7), measured
# with `planner measure --steps 8` by OLD and NEW in turn, placement by
# placement, for ROUNDS rounds. Prints per model and placement each build's
# median step and the median and range over the rounds of the paired ratio
# NEW / OLD (below 1: NEW is faster). A ratio whose range spans 1 is noise.
#   bench/measure_before_after.sh OLD_PLANNER NEW_PLANNER [ROUNDS] [MODEL...]
#   (from the repository root; default 5 rounds and age, blazeface, emotion,
#   facemesh-attention, facemesh-detection-short, movenet-lightning, selfie)
set -uo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 2 "$@"
old=$1 new=$2
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(age blazeface emotion facemesh-attention facemesh-detection-short movenet-lightning selfie)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for m in "${models[@]}"; do
  M=models/tfjs/$m.json
  "$new" baseline "$M" configs/local-2cpu.yaml --method single:cpu0 -o "$out/$m.single.yaml" \
    >/dev/null 2>&1 || { echo "$m: cannot place it" >&2; continue; }
  "$new" baseline "$M" configs/local-2cpu.yaml --method metis -o "$out/$m.metis.yaml" >/dev/null 2>&1
  awk 'BEGIN { srand(7) } /: cpu0$/ { if (rand() < 0.5) sub(/cpu0$/, "cpu1") } { print }' \
    "$out/$m.single.yaml" >"$out/$m.random.yaml"
done
rows="$out/rows"
for r in $(seq "$rounds"); do
  for m in "${models[@]}"; do
    [ -f "$out/$m.random.yaml" ] || continue
    for p in single metis random; do
      for build in old new; do
        bin=$old
        [ $build = new ] && bin=$new
        t=$("$bin" measure models/tfjs/$m.json configs/local-2cpu.yaml --placement \
          "$out/$m.$p.yaml" --steps 8 2>&1 | sed -n 's/.*robust mean \([0-9.]*\) ms.*/\1/p')
        echo "$r $m $p $build ${t:-nan}" >>"$rows"
      done
    done
  done
done
# Rows: round model placement build ms.
awk '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { ms[$2, $3, $4, $1] = $5; if (!(($2, $3) in seen)) { seen[$2, $3] = 1; order[++k] = $2 " " $3 }
    if ($1 > rounds) rounds = $1 }
  END {
    printf "%-26s %-7s %10s %10s %8s %17s\n", "model", "placing", "old ms", "new ms", "new/old", "range"
    for (i = 1; i <= k; i++) {
      split(order[i], f, " "); n = 0
      for (r = 1; r <= rounds; r++) {
        o = ms[f[1], f[2], "old", r]; w = ms[f[1], f[2], "new", r]
        if (o == "nan" || w == "nan" || o == "" || w == "") continue
        n++; a[n] = o; b[n] = w; q[n] = w / o
      }
      if (n == 0) continue
      lo = q[1]; hi = q[1]; for (j = 2; j <= n; j++) { if (q[j] < lo) lo = q[j]; if (q[j] > hi) hi = q[j] }
      printf "%-26s %-7s %10.3f %10.3f %8.3f %8.3f-%.3f\n", f[1], f[2], median(a, n), median(b, n), median(q, n), lo, hi
    }
  }' "$rows"
