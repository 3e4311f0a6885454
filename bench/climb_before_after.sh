#!/usr/bin/env bash
# Two builds' hill-climb pace side by side: for each NMT model of LAYERS (the
# paper-scale sizes on configs/k40-paper-*gpu.yaml), `climb_speed --cutoff on
# --rounds 1 --budget BUDGET_S` from OLD and then NEW, ROUNDS rounds, in turn.
# The climb is deterministic, so both builds try the same moves in the same
# order and only their pace can differ. Prints each run's moves per second,
# then per model each build's median and the median and range over the rounds
# of the paired ratio NEW / OLD (above 1: NEW climbs faster). A ratio whose
# range spans 1 is noise.
#   bench/climb_before_after.sh OLD_CLIMB_SPEED NEW_CLIMB_SPEED [ROUNDS] [BUDGET_S] [LAYERS]
#   (from the repository root; default 5 rounds of 20 s and LAYERS 2,8)
set -uo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 2 "$@"
old=$1 new=$2
rounds=${3:-5} budget=${4:-20} layers=${5:-2,8}
bench_need "$old" "$new"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for r in $(seq "$rounds"); do
  for l in ${layers//,/ }; do
    for build in old new; do
      bin=$old
      [ $build = new ] && bin=$new
      pace=$("$bin" --layers "$l" --rounds 1 --budget "$budget" --cutoff on |
        sed -n 's/.*median \([0-9.]*\) moves\/s.*/\1/p')
      echo "round $r NMT-$l $build ${pace:-nan} moves/s"
      echo "$r $l $build ${pace:-nan}" >>"$rows"
    done
  done
done
# Rows: round layers build moves/s.
awk '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { v[$2, $3, $1] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } if ($1 > rounds) rounds = $1 }
  END {
    printf "%-7s %12s %12s %8s %13s\n", "model", "old moves/s", "new moves/s", "new/old", "range"
    for (i = 1; i <= k; i++) {
      n = 0
      for (r = 1; r <= rounds; r++) {
        o = v[order[i], "old", r]; w = v[order[i], "new", r]
        if (o == "nan" || w == "nan" || o == "" || w == "" || o == 0) continue
        n++; a[n] = o; b[n] = w; q[n] = w / o
      }
      if (n == 0) continue
      lo = q[1]; hi = q[1]; for (j = 2; j <= n; j++) { if (q[j] < lo) lo = q[j]; if (q[j] > hi) hi = q[j] }
      printf "NMT-%-3s %12.1f %12.1f %8.3f %6.3f-%.3f\n", order[i], median(a, n), median(b, n), median(q, n), lo, hi
    }
  }' "$rows"
