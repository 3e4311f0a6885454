#!/usr/bin/env bash
# Real-reward searches on this machine: for every model in models/tfjs, the
# zoo's two-branch model (parallel branches) and its chain (no op can run beside
# another, so no gain may be claimed), `planner search --reward real` on
# configs/local-2cpu.yaml for N policy updates and a REFINE hill climb on the
# simulator of the devices' profile (made on first use, cached), then the table:
# the best baseline, the result, and the hardware's verdict (planner search
# measures the found placement against the best baseline in 9 interleaved
# rounds and claims a gain only when the one-sided Wilcoxon test gives p < 0.05).
#   bench/search_local.sh [N] [REFINE] [OUTDIR]   (default 30, 60s, build/search_local)
# Run from the repository root after scripts/build.sh, on an otherwise idle machine.
set -euo pipefail
n=${1:-30}
refine=${2:-60s}
out=${3:-build/search_local}
planner=${PLANNER:-build/planner/planner}
mkdir -p "$out"
"$planner" zoo two_branch -o "$out/two_branch.pb" >/dev/null
"$planner" zoo chain -o "$out/chain.pb" >/dev/null
models=("$out/two_branch.pb" "$out/chain.pb")
for m in models/tfjs/*.json; do models+=("$m"); done
table="$out/table.txt"
printf "%-26s %-24s %-28s %s\n" model "best baseline" "result (method)" "on the hardware" >"$table"
for m in "${models[@]}"; do
  name=$(basename "$m"); name=${name%.*}
  log="$out/$name.log"
  "$planner" search "$m" configs/local-2cpu.yaml --reward real --iterations "$n" \
    --refine "$refine" -o "$out/$name.yaml" --csv "$out/$name.csv" --svg "$out/$name.svg" >"$log"
  base=$(awk '/^  best baseline/{print $3" "$4" "$5}' "$log")
  found=$(awk '/^  best found/{print $4" "$5" ("$3")"}' "$log")
  verdict=$(awk '/^  on hardware/{sub(/^  on hardware +/, ""); sub(/ \(median ratio/, " (ratio"); sub(/, 90% interval [0-9.-]+/, ""); sub(/ over 9 interleaved rounds/, ""); print}' "$log")
  printf "%-26s %-24s %-28s %s\n" "$name" "$base" "$found" "$verdict" >>"$table"
  tail -1 "$table"
done
echo
cat "$table"
