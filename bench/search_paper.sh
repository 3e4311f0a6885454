#!/usr/bin/env bash
# The paper's table, in simulation: for each benchmark of Mirhoseini et al.
# (ICLR 2018, Table 1) on the paper's machine (configs/k40-paper-Ngpu.yaml),
# the baselines (the best, the expert's, etf's, metis's and scotch's), the best
# placement of the policy's search within BUDGET, the result after the refinement
# (--refine REFINE) and its improvement over the best baseline and over the
# kinds of baseline the papers name (single devices, the expert, and the graph
# partitioners they cite: Scotch, and METIS for the min-cut), the paper's
# improvement, the search
# time at which the result was found, and the simulator's lower bound on any placement's step time with
# the largest improvement it leaves (runtime/simulator.h).
#   [MODELS="nmt4 nmt8"] bench/search_paper.sh [BUDGET] [OUTDIR] [CONFIG] [REFINE]
# (defaults 15m, build/search_paper, the compiled search settings, and 60s;
# CONFIG is a search config such as configs/search-warm.yaml, "" for none;
# MODELS picks rows by name, all six by default)
# Run from the repository root after scripts/build.sh. Logs, placements, curves
# (CSV) and pictures (SVG) are left in OUTDIR.
set -euo pipefail
budget=${1:-15m}
out=${2:-build/search_paper}
config=()
if [[ -n "${3:-}" ]]; then config=(--config "$3"); fi
refine=${4:-60s}
planner=${PLANNER:-build/planner/planner}
mkdir -p "$out"
# name | zoo arguments | GPUs | the paper's improvement over the best baseline
rows=(
  "inception_v3|inception_v3|2|16.3%"
  "resnet|resnet|2|-"
  "rnnlm|rnnlm|2|-"
  "nmt2|nmt --layers 2|2|60.6%"
  "nmt4|nmt --layers 4|4|53.7%"
  "nmt8|nmt --layers 8|8|no worse than expert"
)
table="$out/table.txt"
fmt="%-13s %-5s %-26s %-12s %-12s %-12s %-12s %-26s %-12s %-12s %-14s %-22s %-14s %-26s\n"
printf "$fmt" model gpus "best baseline" expert etf metis scotch "policy's best" "+ refine" improvement \
  "paper's set" "paper" "found at (s)" "lower bound (at most)" >"$table"
for row in "${rows[@]}"; do
  IFS='|' read -r name zoo gpus paper <<<"$row"
  if [[ -n "${MODELS:-}" && " $MODELS " != *" $name "* ]]; then continue; fi
  # shellcheck disable=SC2086
  "$planner" zoo $zoo -o "$out/$name.pb" >/dev/null
  log="$out/$name.log"
  "$planner" search "$out/$name.pb" "configs/k40-paper-${gpus}gpu.yaml" --budget "$budget" \
    --refine "$refine" "${config[@]}" --seed 1 -o "$out/$name.yaml" --csv "$out/$name.csv" --svg "$out/$name.svg" >"$log"
  best_baseline=$(awk '/^  best baseline/{print ($3=="none" ? "none ran" : $3" "$4" "$5)}' "$log")
  expert=$(awk '$1=="expert"{print ($2=="out" ? "OOM" : $2" "$3)}' "$log")
  etf=$(awk '$1=="etf"{print ($2=="out" ? "OOM" : $2=="skipped:" ? "skipped" : $2" "$3)}' "$log")
  metis=$(awk '$1=="metis"{print ($2=="out" ? "OOM" : $2=="skipped:" ? "skipped" : $2" "$3)}' "$log")
  scotch=$(awk '$1=="scotch"{print ($2=="out" ? "OOM" : $2=="skipped:" ? "skipped" : $2" "$3)}' "$log")
  policy=$(awk '/^policy search:/{print $4" "$5" "$6}' "$log")
  ours=$(awk '/^  best found/{print $4" "$5}' "$log")
  improvement=$(grep -o '[-0-9.]*% faster' "$log" | head -1 | cut -d' ' -f1 || true)
  # Against the kinds of baseline the papers name only (docs/benchmarks.md):
  # each single device, the expert, Scotch and METIS; not etf.
  paper_set=$(awk -v ours="${ours%% *}" '
    ($1 ~ /^single:/ || $1=="expert" || $1=="scotch" || $1=="metis") && $3=="ms" &&
    (best=="" || $2+0 < best) {best=$2+0}
    END {if (best != "" && ours != "") printf "%.1f%%", 100 * (1 - ours / best)}' "$log")
  found=$(grep -o 'at [0-9.]* s)' "$log" | head -1 | tr -dc '0-9.' || true)
  # The simulator's lower bound on any placement, and the improvement it allows.
  bound=$(awk '/^  lower bound /{print $3" "$4}' "$log" | tr -d ':')
  most=$(grep -o 'at most [-0-9.]*%' "$log" | head -1 | cut -d' ' -f3 || true)
  # shellcheck disable=SC2059
  printf "$fmt" "$name" "$gpus" "$best_baseline" "$expert" "$etf" "$metis" "$scotch" "$policy" "$ours" \
    "${improvement:-0%}" "${paper_set:--}" "$paper" "${found:-0 (a baseline)}" \
    "$bound (${most:--})" >>"$table"
  tail -1 "$table"
done
echo
cat "$table"
