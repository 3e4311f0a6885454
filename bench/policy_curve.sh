#!/usr/bin/env bash
# Reads planner search --csv curves and prints, per file, when the policy's best
# first beat its starting best (the best baseline) by GAIN (default 0.005, 0.5%),
# the first update whose samples' mean came within 10% of that starting best,
# and the mean over the last ten updates with a sample that ran (docs/search.md,
# "Scopes as the groups"). An update whose every sample failed has no mean (the
# CSV's mean_step_s is 0 there): it counts in neither, and is counted apart.
#   [GAIN=0.005] bench/policy_curve.sh OUT/*-policy-s*.csv
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 1 "$@"
gain=${GAIN:-0.005}
for csv in "$@"; do
  awk -F, -v gain="$gain" -v f="$csv" '
    NR == 2 { start = $6 }
    NR > 1 && $3 == 0 { none++ }
    NR > 1 && $3 > 0 {
      if (!g && $6 < start * (1 - gain)) { g = sprintf("update %d, %.0f s", $1, $2) }
      if (!w && $3 < start * 1.1) { w = sprintf("update %d", $1) }
      m[++n] = $3
    }
    END {
      s = 0; k = 0
      for (i = n; i > 0 && k < 10; i--) { s += m[i]; k++ }
      printf "%s: first %.1f%% gain: %s; mean within 10%%: %s; last-10 mean %s; %d update(s) with every sample failed\n",
        f, 100 * gain, g ? g : "never", w ? w : "never",
        k ? sprintf("%.1f ms", 1000 * s / k) : "-", none
    }' "$csv"
done
