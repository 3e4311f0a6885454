#!/usr/bin/env bash
# Every baseline on the paper's models and machines (the zoo's models at their
# default, paper-scale sizes; configs/k40-paper-{2,4,8}gpu.yaml, simulated):
# each method's simulated step and the time it took to plan, one row per
# model, with the date, the host and the commit. Deterministic: the step times
# repeat exactly; the planning times are this host's wall clock. msct:dual is
# m-SCT with its linear program solved by the dual simplex, run after the
# others: not among the search's baselines, so not in the column "best".
#
# usage: bench/baselines_paper.sh [PLANNER] [OUTDIR]    (MODELS="nmt2 nmt4" for some)
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
cd "$(dirname "$0")/.."
planner=${1:-build/planner/planner}
bench_need "$planner"
out=${2:-/tmp/baselines_paper}
mkdir -p "$out"
rev=$(git describe --always --dirty 2>/dev/null || echo '?')
echo "bench/baselines_paper.sh on $(date -u +%F) at $rev, host $(uname -n), $(nproc) cores"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
methods=(expert etf msct msct:dual metis scotch)
printf "%-13s %-4s" model gpus
for m in "${methods[@]}"; do printf " %-22s" "$m ms (plan s)"; done
printf " %-14s %s\n" "msct vs etf" best
for row in "${paper_rows[@]}"; do
  IFS='|' read -r name zoo gpus _ <<<"$row"
  if ! picked "$name"; then continue; fi
  # shellcheck disable=SC2086
  "$planner" zoo $zoo -o "$out/$name.pb" >/dev/null
  log="$out/$name.log"
  "$planner" baseline "$out/$name.pb" "configs/k40-paper-${gpus}gpu.yaml" >"$log" 2>&1 ||
    echo "(exit $?)" >>"$log"
  "$planner" baseline --method msct:dual "$out/$name.pb" "configs/k40-paper-${gpus}gpu.yaml" \
    >>"$log" 2>&1 || echo "(exit $?)" >>"$log"
  printf "%-13s %-4s" "$name" "$gpus"
  for m in "${methods[@]}"; do
    cell=$(awk -v m="$m" '$1 == m {
      if ($3 == "ms") { plan = $0; sub(/.*planned in /, "", plan); sub(/ s\).*/, "", plan);
                        printf "%s (%s)", $2, plan }
      else if ($2 == "out") printf "OOM"
      else printf "%s", $2 }' "$log")
    printf " %-22s" "${cell:--}"
  done
  # m-SCT's step against etf's: negative is faster.
  versus=$(awk '$1 == "etf" && $3 == "ms" {e = $2} $1 == "msct" && $3 == "ms" {m = $2}
    END { if (e > 0 && m > 0) printf "%+.1f%%", 100 * (m - e) / e; else printf "-" }' "$log")
  printf " %-14s %s\n" "$versus" "$(awk '/^best:/{print $2, $3, $4}' "$log")"
done
