#!/usr/bin/env bash
# The paper's table, in simulation, with three contenders: for each benchmark of
# Mirhoseini et al. (ICLR 2018, Table 1) on the paper's machine
# (configs/k40-paper-Ngpu.yaml), at the zoo's default (paper-scale) sizes:
#   - the baselines: the best, the expert's, etf's, metis's and scotch's;
#   - the policy alone: `planner search --budget BUDGET --refine 0`;
#   - the hill climb alone from the baselines, for the same total time:
#     `--iterations 0 --refine BUDGET+REFINE`;
#   - the two together: `--budget BUDGET --refine REFINE` (by default the policy
#     stops once its best has not improved by 0.5% for 60 s, and the climb gets
#     the budget left), with PATIENCE set `--patience PATIENCE` (PATIENCE=0: the
#     policy keeps its whole budget), with PATIENCE_GAIN `--patience-gain
#     PATIENCE_GAIN` (an improvement below it does not count), with PATIENCE_FIRST
#     `--patience-first PATIENCE_FIRST` (0: the first patience is PATIENCE's), and with ORDER=climb-first
#     `--order climb-first` (the climb first, until it stalls for PATIENCE or
#     60 s, then the policy from its result, then the climb for the time left),
#     and with KICKS=random `--kicks random` (the last climb's kicks random rather
#     than onto the policy's samples), and with CLIMB_STARTS=N `--climb-starts N` (1: the
#     climb after the policy from its best alone); with SWEEPS=full, the climb alone and the
#     default search get `--sweeps full` (every name scope every sweep), and with
#     UNITS=scopes `--units scopes` (the climb moves name scopes only, not runs of them),
#     and with CUTOFF=off `--cutoff off` (each of the climb's moves simulated to its end),
#     and with GRADIENTS=heavy, all three get `--gradients heavy` (the policy and the climb
#     may run the heaviest gradient ops apart from their op);
# each contender's improvement over the best baseline, the paper's improvement,
# the best placement known (bench/best_known.sh) and how far the two together
# are from it (not with GRADIENTS=heavy: the kept placements keep every gradient
# with its op), and the simulator's lower bound on any placement's step time
# with the largest improvement it leaves (sim/simulator.h).
# With SEEDS="1 2 3" each contender runs once per seed and its cell is the
# median step over the seeds, the median improvement and the range of the
# improvements [min..max]. Every result is offered to bench/best_known.sh,
# which keeps it when it beats the best known (OFFER=0: not).
# With "climb" and "both" both among them, each seed's two results are also
# set against each other: how much faster policy + climb ended than the climb alone,
# and the verdict by issue 40's measure (the medians' improvements differ by more
# than the larger of the two ranges over the seeds: ahead or behind beyond it,
# else within).
# CONTENDERS picks which of the three run ("policy climb both" by default); a
# contender left out prints "-". REUSE=1 keeps the searches whose logs OUTDIR
# already holds, so the table can be printed again from them.
#   [MODELS="nmt4 nmt8"] [SEEDS="1 2 3"] [CONTENDERS="climb both"] [PATIENCE=0|60s] [PATIENCE_GAIN=0.5%] [PATIENCE_FIRST=0|30s] [ORDER=climb-first] [KICKS=random] [CLIMB_STARTS=1] [SWEEPS=full] [UNITS=scopes] [CUTOFF=off] [GRADIENTS=heavy] bench/search_paper.sh [BUDGET] [OUTDIR] [CONFIG] [REFINE]
# (defaults 15m, build/search_paper, the compiled search settings, and 60s;
# BUDGET and REFINE in seconds or with s/m/h; CONFIG is a search config such as
# configs/search-paper.yaml, "" for the compiled one; MODELS picks rows by name,
# all six by default). Run from the repository root after scripts/build.sh.
# Logs, placements, curves (CSV) and pictures (SVG) are left in OUTDIR.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
budget=${1:-15m}
bench_duration BUDGET "$budget"
out=${2:-build/search_paper}
config=()
if [[ -n "${3:-}" ]]; then config=(--config "$3"); fi
refine=${4:-60s}
bench_duration REFINE "$refine"
planner=${PLANNER:-build/planner/planner}
bench_need "$planner"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
total=$(($(seconds "$budget") + $(seconds "$refine")))
# What planner search refuses (each run would fail partway through the table).
if [[ ${ORDER:-} == climb-first && ${PATIENCE:-} =~ ^0+[smh]?$ ]]; then
  echo "$(basename "$0"): PATIENCE=0 with ORDER=climb-first would never hand the climb's" \
    "result to the policy" >&2
  exit 2
fi
if (($(seconds "$refine") == 0)) && [[ -n "${KICKS:-}${SWEEPS:-}${UNITS:-}${CUTOFF:-}${CLIMB_STARTS:-}" ]]; then
  echo "$(basename "$0"): KICKS, SWEEPS, UNITS, CUTOFF and CLIMB_STARTS shape the hill climb," \
    "which REFINE 0 turns off" >&2
  exit 2
fi
mkdir -p "$out"
table="$out/table.txt"
paired="$out/paired.txt"
: >"$paired"
seeds=${SEEDS:-1}
contenders=" ${CONTENDERS:-policy climb both} "
fmt="%-13s %-4s %-24s %-11s %-11s %-11s %-11s %-11s %-30s %-30s %-30s %-20s %-26s %-26s\n"
echo "bench/search_paper.sh on $(date -u +%F) at $(git describe --always --dirty 2>/dev/null ||
  echo '?'), host $(uname -n), $(nproc) cores; seeds: $seeds; contenders:$contenders"
printf "$fmt" model gpus "best baseline" expert etf msct metis scotch "policy alone" \
  "climb alone" "policy + climb" "paper" "best known (p+c behind)" "lower bound (at most)" \
  >"$table"
# "1234.567 ms (12.3%) [10.1..13.0%]": the median step over the seeds' logs of
# one contender, the median improvement and their range (one seed: no range).
result() {
  local suffix=$1 ms pcts
  if [[ $contenders != *" $suffix "* ]]; then
    echo "-"
    return
  fi
  ms=$(for seed in $seeds; do result_ms "$out/$name-$suffix-s$seed.log"; done |
    sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
  pcts=$(for seed in $seeds; do result_pct "$out/$name-$suffix-s$seed.log"; done | sort -g)
  echo "$pcts" | awk -v ms="$ms" '{a[NR]=$1}
    END { med = (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2);
          printf "%s ms (%.1f%%)", ms, med; if (NR > 1) printf " [%.1f..%.1f%%]", a[1], a[NR] }'
}
# "nmt2: policy + climb 16.0% [15.5..16.8%], climb alone 15.4% [15.4..15.4%]: ahead by 0.62
# points, within the larger spread (1.30 points)": improvements over the best
# baseline (BASELINE_MS) from each seed's step, so the verdict needs no rounding.
# Then what it would take: "nmt4: ahead beyond the climb alone's own spread needs a
# median under 1106.720 ms (24.3% over the best baseline); the best placement known is
# 1103.373 ms (24.5%)" (KNOWN_MS: bench/best_known.sh's; the larger spread can only ask
# more).
# "the policy: 27 updates in 30.9 s, its fastest sample 1601.650 ms (76 samples
# failed), then the climb continued from expert": what the default search's
# policy did before its climb, from OUT/NAME-both-sSEED.{csv,log}; nothing
# without them.
policy_phase() {
  local from
  [[ -s $1.csv && -s $1.log ]] || return 0
  from=$(grep -o 'continued from [^ ]*' "$1.log" | head -1)
  awk -F, -v from="${from:-}" 'NR > 1 { u++; t = $2; f += $5; if ($4 > 0 && (m == "" || $4 < m)) m = $4 }
    END { if (u == 0) exit
          printf "the policy: %d updates in %.1f s, its fastest sample %s (%d samples failed)", u, t,
            (m == "" ? "none" : sprintf("%.3f ms", 1000 * m)), f
          if (from != "") printf ", then the climb %s", from
          printf "\n" }' "$1.csv"
}
verdict() {
  local name=$1 baseline_ms=$2 known_ms=${3:-} pcts
  pcts=$(for seed in $seeds; do
    echo "a $(result_ms "$out/$name-both-s$seed.log")"
    echo "b $(result_ms "$out/$name-climb-s$seed.log")"
  done | awk -v bb="$baseline_ms" '$2 > 0 && bb > 0 { print $1, 100 * (bb - $2) / bb }')
  if ! grep -q '^a ' <<<"$pcts" || ! grep -q '^b ' <<<"$pcts"; then return 0; fi
  compare "$name" "policy + climb" "climb alone" <<<"$pcts"
  awk '$1 == "b" { print $2 }' <<<"$pcts" | sort -g |
    awk -v m="$name" -v bb="$baseline_ms" -v known="$known_ms" '
    function median(v, n) { return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    { c[NR] = $1 }
    END {
      need = median(c, NR) + (c[NR] - c[1])
      printf "%s: ahead beyond the climb alone%ss own spread needs a median under %.3f ms (%.1f%% over the best baseline)",
        m, "\047", bb * (1 - need / 100), need
      if (known > 0) printf "; the best placement known is %.3f ms (%.1f%%)", known, 100 * (bb - known) / bb
      printf "\n"
    }'
}
for row in "${paper_rows[@]}"; do
  IFS='|' read -r name zoo gpus paper <<<"$row"
  if ! picked "$name"; then continue; fi
  # shellcheck disable=SC2086
  "$planner" zoo $zoo -o "$out/$name.pb" >/dev/null
  devices="configs/k40-paper-${gpus}gpu.yaml"
  run() {  # LOG-SUFFIX SEED ARGS...: one search of this row, if it is a contender
    local suffix=$1-s$2 seed=$2
    if [[ $contenders != *" $1 "* ]]; then return; fi
    if [[ ${REUSE:-0} == 1 && -s "$out/$name-$suffix.log" ]]; then return; fi
    shift 2
    "$planner" search "$out/$name.pb" "$devices" "${config[@]}" --seed "$seed" \
      -o "$out/$name-$suffix.yaml" --csv "$out/$name-$suffix.csv" \
      --svg "$out/$name-$suffix.svg" "$@" >"$out/$name-$suffix.log"
    if [[ ${OFFER:-1} != 0 ]]; then
      HOW="bench/search_paper.sh $suffix ${config[*]} $*" bash bench/best_known.sh offer "$name" \
        "$out/$name-$suffix.yaml" | sed 's/^/  best known: /'
    fi
  }
  for seed in $seeds; do
    run policy "$seed" --budget "$budget" --refine 0 ${GRADIENTS:+--gradients "$GRADIENTS"}
    run climb "$seed" --iterations 0 --refine "${total}s" ${SWEEPS:+--sweeps "$SWEEPS"} \
      ${UNITS:+--units "$UNITS"} ${CUTOFF:+--cutoff "$CUTOFF"} ${GRADIENTS:+--gradients "$GRADIENTS"}
    run both "$seed" --budget "$budget" --refine "$refine" ${PATIENCE:+--patience "$PATIENCE"} \
      ${PATIENCE_GAIN:+--patience-gain "$PATIENCE_GAIN"} ${PATIENCE_FIRST:+--patience-first "$PATIENCE_FIRST"} \
      ${ORDER:+--order "$ORDER"} ${KICKS:+--kicks "$KICKS"} ${CLIMB_STARTS:+--climb-starts "$CLIMB_STARTS"} \
      ${SWEEPS:+--sweeps "$SWEEPS"} ${UNITS:+--units "$UNITS"} ${CUTOFF:+--cutoff "$CUTOFF"} \
      ${GRADIENTS:+--gradients "$GRADIENTS"}
  done
  log=$(ls "$out/$name"-{both,climb,policy}-s"${seeds%% *}".log 2>/dev/null | head -1 || true)
  best_baseline=$(awk '/^  best baseline/{print ($3=="none" ? "none ran" : $3" "$4)}' "$log")
  col() { awk -v m="$1" '$1==m{print ($2=="out" ? "OOM" : $2=="skipped:" ? "skipped" : $2)}' "$log"; }
  bound=$(awk '/^  lower bound /{print $3}' "$log")
  most=$(grep -o 'at most [-0-9.]*%' "$log" | head -1 | cut -d' ' -f3 || true)
  # shellcheck disable=SC2059
  known=$(MODELS=$name bash bench/best_known.sh check | awk -v m="$name" '$1 == m {print $2}')
  both_ms=$(result both | cut -d' ' -f1 | tr -d -)
  behind=$(awk -v a="$both_ms" -v b="$known" \
    'BEGIN { if (a > 0 && b > 0) printf "%+.1f%%", 100 * (a - b) / b; else printf "-" }')
  # The kept placements keep every gradient with its op: a search with the
  # gradients free is not set against them.
  if [[ ${GRADIENTS:-} == heavy ]]; then
    behind="colocated; not compared"
    known_ms=""
  else
    known_ms=$known
  fi
  printf "$fmt" "$name" "$gpus" "$best_baseline" "$(col expert)" "$(col etf)" "$(col msct)" \
    "$(col metis)" "$(col scotch)" "$(result policy)" "$(result climb)" "$(result both)" \
    "$paper" "${known:--} ($behind)" "$bound (${most:--})" >>"$table"
  tail -1 "$table"
  # Seed by seed, policy + climb against the climb alone (run one after the other).
  if [[ $contenders == *" climb "* && $contenders == *" both "* ]]; then
    for seed in $seeds; do
      awk -v m="$name" -v s="$seed" -v b="$(result_ms "$out/$name-both-s$seed.log")" \
        -v c="$(result_ms "$out/$name-climb-s$seed.log")" 'BEGIN { if (b > 0 && c > 0)
          printf "%s seed %s: policy + climb %s ms, climb alone %s ms: %+.2f%%\n", m, s, b, c,
            100 * (c - b) / c }' >>"$paired"
      policy_phase "$out/$name-both-s$seed" | sed "s/^/  /" >>"$paired"
    done
    # The issue's measure: the medians' improvements over the best baseline
    # differ by more than the larger of the two ranges over the seeds.
    verdict "$name" "$(echo "$best_baseline" | cut -d' ' -f2)" "$known_ms" >>"$paired"
  fi
done
echo
echo "times in ms; improvements over the best baseline (median [range] over seeds $seeds);"
both_flags="--budget $budget --refine $refine${PATIENCE:+ --patience $PATIENCE}"
both_flags+="${PATIENCE_GAIN:+ --patience-gain $PATIENCE_GAIN}${PATIENCE_FIRST:+ --patience-first $PATIENCE_FIRST}"
both_flags+="${ORDER:+ --order $ORDER}${KICKS:+ --kicks $KICKS}${CLIMB_STARTS:+ --climb-starts $CLIMB_STARTS}"
both_flags+="${SWEEPS:+ --sweeps $SWEEPS}${UNITS:+ --units $UNITS}${CUTOFF:+ --cutoff $CUTOFF}"
both_flags+="${GRADIENTS:+ --gradients $GRADIENTS}"
climb_flags="--iterations 0 --refine ${total}s${SWEEPS:+ --sweeps $SWEEPS}${UNITS:+ --units $UNITS}"
climb_flags+="${CUTOFF:+ --cutoff $CUTOFF}${GRADIENTS:+ --gradients $GRADIENTS}"
# The flags of the contenders that ran.
flags=()
[[ $contenders == *" policy "* ]] && flags+=("policy alone: --budget $budget --refine 0${GRADIENTS:+ --gradients $GRADIENTS}")
[[ $contenders == *" climb "* ]] && flags+=("climb alone: $climb_flags")
[[ $contenders == *" both "* ]] && flags+=("policy + climb: $both_flags")
(IFS=';'; echo "${flags[*]/#/ }" | sed 's/^ //')
cat "$table"
if [[ -s "$paired" ]]; then
  echo "seed by seed, how much faster policy + climb ended than the climb alone (+: faster):"
  cat "$paired"
fi
