#!/usr/bin/env bash
# The paper's table, in simulation, with three contenders: for each benchmark of
# Mirhoseini et al. (ICLR 2018, Table 1) on the paper's machine
# (configs/k40-paper-Ngpu.yaml), at the zoo's default (paper-scale) sizes:
#   - the baselines: the best, the expert's, etf's, metis's and scotch's;
#   - the policy alone: `planner search --budget BUDGET --refine 0`;
#   - the hill climb alone from the baselines, for the same total time:
#     `--iterations 0 --refine BUDGET+REFINE`;
#   - the two together: `--budget BUDGET --refine REFINE`, and with PATIENCE set
#     `--patience PATIENCE` (the policy stops once its best has not improved for
#     that long and the climb gets the budget left), and with ORDER=climb-first
#     `--order climb-first` (the climb first, until it stalls for PATIENCE or
#     60 s, then the policy from its result, then the climb for the time left);
# each contender's improvement over the best baseline, the paper's improvement,
# and the simulator's lower bound on any placement's step time with the largest
# improvement it leaves (sim/simulator.h).
#   [MODELS="nmt4 nmt8"] [PATIENCE=60s] [ORDER=climb-first] bench/search_paper.sh [BUDGET] [OUTDIR] [CONFIG] [REFINE]
# (defaults 15m, build/search_paper, the compiled search settings, and 60s;
# BUDGET and REFINE in seconds or with s/m/h; CONFIG is a search config such as
# configs/search-paper.yaml, "" for the compiled one; MODELS picks rows by name,
# all six by default). Run from the repository root after scripts/build.sh.
# Logs, placements, curves (CSV) and pictures (SVG) are left in OUTDIR.
set -euo pipefail
budget=${1:-15m}
out=${2:-build/search_paper}
config=()
if [[ -n "${3:-}" ]]; then config=(--config "$3"); fi
refine=${4:-60s}
planner=${PLANNER:-build/planner/planner}
seconds() {  # 90, 90s, 15m, 2h -> seconds
  local v=$1
  case $v in
    *h) echo $((${v%h} * 3600)) ;; *m) echo $((${v%m} * 60)) ;; *s) echo "${v%s}" ;; *) echo "$v" ;;
  esac
}
total=$(($(seconds "$budget") + $(seconds "$refine")))
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
fmt="%-13s %-4s %-24s %-11s %-11s %-11s %-11s %-20s %-20s %-20s %-20s %-26s\n"
printf "$fmt" model gpus "best baseline" expert etf metis scotch "policy alone" \
  "climb alone" "policy + climb" "paper" "lower bound (at most)" >"$table"
# "1234.567 ms (12.3%)": a log's result and its improvement over the best baseline.
result() {
  local log=$1 ms pct
  ms=$(awk '/^  best found/{print $4}' "$log")
  pct=$(grep -o '[-0-9.]*% faster than the best' "$log" | head -1 | cut -d' ' -f1 || true)
  echo "$ms (${pct:-0%})"
}
for row in "${rows[@]}"; do
  IFS='|' read -r name zoo gpus paper <<<"$row"
  if [[ -n "${MODELS:-}" && " $MODELS " != *" $name "* ]]; then continue; fi
  # shellcheck disable=SC2086
  "$planner" zoo $zoo -o "$out/$name.pb" >/dev/null
  devices="configs/k40-paper-${gpus}gpu.yaml"
  run() {  # LOG-SUFFIX ARGS...: one search of this row
    local suffix=$1
    shift
    "$planner" search "$out/$name.pb" "$devices" "${config[@]}" --seed 1 \
      -o "$out/$name-$suffix.yaml" --csv "$out/$name-$suffix.csv" \
      --svg "$out/$name-$suffix.svg" "$@" >"$out/$name-$suffix.log"
  }
  run policy --budget "$budget" --refine 0
  run climb --iterations 0 --refine "${total}s"
  run both --budget "$budget" --refine "$refine" ${PATIENCE:+--patience "$PATIENCE"} \
    ${ORDER:+--order "$ORDER"}
  log="$out/$name-both.log"
  best_baseline=$(awk '/^  best baseline/{print ($3=="none" ? "none ran" : $3" "$4)}' "$log")
  col() { awk -v m="$1" '$1==m{print ($2=="out" ? "OOM" : $2=="skipped:" ? "skipped" : $2)}' "$log"; }
  bound=$(awk '/^  lower bound /{print $3}' "$log")
  most=$(grep -o 'at most [-0-9.]*%' "$log" | head -1 | cut -d' ' -f3 || true)
  # shellcheck disable=SC2059
  printf "$fmt" "$name" "$gpus" "$best_baseline" "$(col expert)" "$(col etf)" "$(col metis)" \
    "$(col scotch)" "$(result "$out/$name-policy.log")" "$(result "$out/$name-climb.log")" \
    "$(result "$log")" "$paper" "$bound (${most:--})" >>"$table"
  tail -1 "$table"
done
echo
echo "times in ms; improvements over the best baseline; policy alone: --budget $budget --refine 0;"
echo "climb alone: --iterations 0 --refine ${total}s; policy + climb: --budget $budget --refine $refine" \
  "${PATIENCE:+--patience $PATIENCE} ${ORDER:+--order $ORDER}"
cat "$table"
