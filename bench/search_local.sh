#!/usr/bin/env bash
# Real-reward searches on this machine: for every model in models/tfjs
# and the zoo's two-branch model (parallel branches), `planner search --reward
# real` on configs/local-2cpu.yaml for N policy updates, then the table of the
# best single-device baseline against the found placement, both re-measured at
# the end (3 interleaved runs each, median; planner search does this itself).
#   bench/search_local.sh [N] [OUTDIR]      (default 30, build/search_local)
# Run from the repository root after scripts/build.sh, on an otherwise idle machine.
set -euo pipefail
n=${1:-30}
out=${2:-build/search_local}
planner=${PLANNER:-build/planner/planner}
mkdir -p "$out"
"$planner" zoo two_branch -o "$out/two_branch.pb" >/dev/null
models=("$out/two_branch.pb")
for m in models/tfjs/*.json; do models+=("$m"); done
table="$out/table.txt"
printf "%-24s %-26s %-30s %s\n" model "best baseline" "found (method)" "found / baseline" >"$table"
for m in "${models[@]}"; do
  name=$(basename "$m"); name=${name%.*}
  log="$out/$name.log"
  "$planner" search "$m" configs/local-2cpu.yaml --reward real --iterations "$n" \
    -o "$out/$name.yaml" --csv "$out/$name.csv" --svg "$out/$name.svg" >"$log"
  # Re-measured figures when the search found a placement; else the baseline's.
  base=$(awk '/^  best baseline/{print $3" "$4" "$5}' "$log")
  found=$(awk '/^  best found/{sub(",", "", $5); print $4" "$5" ("$3")"}' "$log")
  ratio=$(awk '/^  best found/{b=$0} /^  best baseline/{a=$4} END{split(b,x," "); printf "%.3f", x[4]/a}' "$log")
  printf "%-24s %-26s %-30s %s\n" "$name" "$base" "$found" "$ratio" >>"$table"
  tail -1 "$table"
done
echo
cat "$table"
