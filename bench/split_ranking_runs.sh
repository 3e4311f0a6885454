#!/usr/bin/env bash
# Runs tests/planner/sources/split_ranking_test.cc N times (default 10) and
# prints the range and median of what its figures line reports: age's step
# with one stream per core over its step on one core, measured and simulated,
# and how far the simulated ratio is off; and how many runs passed, skipped
# (the hardware did not resolve the split as faster) or failed. The figures
# quoted in the test's comments and in docs/simulator.md come from here.
#   bench/split_ranking_runs.sh [N]   (from the repository root, after bash scripts/build.sh)
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
n=${1:-10}
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
  echo "split_ranking_runs.sh: N must be a positive whole number, not '$n'" >&2
  exit 2
fi
test=build/tests/planner/planner_split_ranking_test
bench_need "$test"
for _ in $(seq "$n"); do
  out=$("$test" 2>&1 || true)
  status=failed
  grep -q "^\[       OK \]" <<<"$out" && status=passed
  grep -q "^\[  SKIPPED \]" <<<"$out" && status=skipped
  line=$(grep -m1 -o "split / single measured [0-9.]*, simulated [0-9.]*, off by [-+0-9.]*" <<<"$out" ||
    echo "split / single measured nan, simulated nan, off by nan")
  echo "$status $line"
done | tee /dev/stderr | awk '
  function q(a, n, p,   i, j, t, x) {  # p-quantile of a[1..n], linear interpolation
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    x = 1 + p * (n - 1); i = int(x); return a[i] + (x - i) * (a[i < n ? i + 1 : i] - a[i])
  }
  { runs[$1]++ }
  $6 != "nan," { k++; m[k] = $6 + 0; s[k] = $8 + 0; g[k] = $11 + 0 }
  END {
    printf "%d runs: %d passed, %d skipped, %d failed\n", NR, runs["passed"], runs["skipped"], runs["failed"]
    if (k == 0) { print "no figures line"; exit }
    printf "split / single measured %.3f-%.3f (median %.3f), simulated %.3f-%.3f (median %.3f), off by %+.3f to %+.3f (median %+.3f), over %d runs with figures\n",
      q(m, k, 0), q(m, k, 1), q(m, k, 0.5), q(s, k, 0), q(s, k, 1), q(s, k, 0.5), q(g, k, 0), q(g, k, 1), q(g, k, 0.5), k
  }'
