#!/usr/bin/env bash
# What `planner search --gradients heavy` buys on the paper's models, in
# simulation: for each model (configs/k40-paper-Ngpu.yaml, the zoo's default
# paper-scale sizes) and seed, the hill climb alone from the baselines
# (`--iterations 0 --refine BUDGET`) twice, side by side, one per core: with
# every gradient on its op's device (--gradients colocated, the default) and
# with the heavy gradient ops free to move (--gradients heavy). Prints, per
# model, each setting's median step over the seeds with its range, how many
# gradient ops the heavy result placed apart, and the seeds' paired ratios
# (heavy / colocated: below 1, heavy is faster), median and range.
#   [MODELS="nmt8 nmt4"] [SEEDS="1 2 3"] [REUSE=1] bench/gradients_apart.sh [BUDGET] [OUTDIR]
# (defaults: all six models, seeds 1 2 3, 5m, build/gradients_apart; REUSE=1
# keeps the pairs whose logs OUTDIR already holds, to print the table again or
# go on after an interruption). Nothing is
# offered to bench/best-known/, whose placements keep every gradient with its op.
# Run from the repository root after scripts/build.sh; logs and placements stay
# in OUTDIR.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
budget=${1:-5m}
bench_duration BUDGET "$budget"
out=${2:-build/gradients_apart}
planner=${PLANNER:-build/planner/planner}
bench_need "$planner"
seeds=${SEEDS:-1 2 3}
mkdir -p "$out"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
echo "bench/gradients_apart.sh on $(date -u +%F) at $(git describe --always --dirty 2>/dev/null ||
  echo '?'), host $(uname -n), $(nproc) cores; seeds: $seeds; the climb alone for $budget," \
  "the two settings side by side"
fmt="%-13s %-34s %-34s %-12s %-26s\n"
table="$out/table.txt"
printf "$fmt" model "colocated (ms)" "heavy (ms)" "apart (ops)" "heavy / colocated" >"$table"
for row in "${paper_rows[@]}"; do
  IFS='|' read -r name zoo gpus _ <<<"$row"
  if ! picked "$name"; then continue; fi
  # shellcheck disable=SC2086
  "$planner" zoo $zoo -o "$out/$name.pb" >/dev/null
  devices="configs/k40-paper-${gpus}gpu.yaml"
  for seed in $seeds; do
    if [[ ${REUSE:-0} == 1 && -s "$out/$name-colocated-s$seed.log" &&
      -s "$out/$name-heavy-s$seed.log" ]]; then
      continue
    fi
    for setting in colocated heavy; do
      "$planner" search "$out/$name.pb" "$devices" --seed "$seed" --iterations 0 \
        --refine "$budget" --gradients "$setting" -o "$out/$name-$setting-s$seed.yaml" \
        >"$out/$name-$setting-s$seed.log" &
    done
    wait
  done
  col() { for seed in $seeds; do result_ms "$out/$name-$1-s$seed.log"; done | summary ""; }
  apart=$(for seed in $seeds; do
    awk '/^gradients_apart:/{on=1; next} on && /^  /{n++} on && !/^  /{on=0} END{print n+0}' \
      "$out/$name-heavy-s$seed.yaml"
  done | summary "" | sed 's/\.000//g')
  ratio=$(for seed in $seeds; do
    echo "$(result_ms "$out/$name-heavy-s$seed.log") $(result_ms "$out/$name-colocated-s$seed.log")"
  done | awk '$1 > 0 && $2 > 0 {print $1 / $2}' | summary "")
  printf "$fmt" "$name" "$(col colocated)" "$(col heavy)" "$apart" "$ratio" >>"$table"
  tail -1 "$table"
done
echo
echo "the climb alone: --iterations 0 --refine $budget, median [range] over seeds $seeds;"
echo "apart: gradient ops the heavy result runs on another device than their op;"
echo "heavy / colocated: each seed's two results, run side by side"
cat "$table"
