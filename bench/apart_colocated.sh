#!/usr/bin/env bash
# Where the policy's apart slots start (search config key apart_colocated,
# planner/search/search_options.h), on the paper's models in simulation: for
# each model (configs/k40-paper-Ngpu.yaml, the zoo's default paper-scale sizes)
# and seed, the policy alone with the heavy gradient ops free to move
# (`--budget BUDGET --refine 0 --gradients heavy`) twice, side by side, one per
# core: with each slot's first samples on its op's device at the share that a
# preference fixed at 2 gives on the model's D devices, e^2 / (e^2 + D - 1)
# (the compiled default, apart_colocated 0, written out as a share), and at
# SHARE (default 0.9). Each run's search config is
# configs/search.yaml with apart_colocated set, written to OUTDIR. Prints, per
# model, each setting's median step over the seeds with its range, the median
# and range of its improvement over the best baseline, and the seeds' paired
# ratios (SHARE / fixed: below 1, SHARE is faster), median and range; then,
# per model, the two medians' improvements set against the larger of the two
# settings' ranges over the seeds (issue 40's measure, as bench/search_paper.sh
# prints it for its contenders).
#   [MODELS="nmt8 nmt4"] [SEEDS="1 2 3"] [SHARE=0.9] [REUSE=1] bench/apart_colocated.sh [BUDGET] [OUTDIR]
# (defaults: the five models with heavy gradient ops (ResNet-152 has none),
# seeds 1 2 3, 5m, build/apart_colocated; REUSE=1 keeps the pairs whose logs
# OUTDIR already holds, to print the table again or go on after an
# interruption). Nothing is offered to bench/best-known/, whose placements
# keep every gradient with its op. Run from the repository root after
# scripts/build.sh; logs and placements stay in OUTDIR.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
budget=${1:-5m}
bench_duration BUDGET "$budget"
out=${2:-build/apart_colocated}
planner=${PLANNER:-build/planner/planner}
seeds=${SEEDS:-1 2 3}
share=${SHARE:-0.9}
if ! awk -v s="$share" 'BEGIN { exit !(s + 0 == s && s >= 0.001 && s <= 0.999) }'; then
  echo "bench/apart_colocated.sh: SHARE '$share' is not a probability in [0.001, 0.999]" >&2
  exit 2
fi
bench_need "$planner"
mkdir -p "$out"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
echo "bench/apart_colocated.sh on $(date -u +%F) at $(git describe --always --dirty 2>/dev/null ||
  echo '?'), host $(uname -n), $(nproc) cores; seeds: $seeds; the policy alone for $budget" \
  "with --gradients heavy, the two settings side by side"
# configs/search.yaml with apart_colocated set to $2, as $1.
config() {
  sed "s/^apart_colocated: [0-9.]*/apart_colocated: $2/" configs/search.yaml >"$1"
  grep -q "^apart_colocated: $2 " "$1"
}
fmt="%-13s %-6s %-34s %-26s %-34s %-26s %-26s\n"
table="$out/table.txt"
verdicts="$out/verdicts.txt"
: >"$verdicts"
# "nmt8: share 0.9 13.5% [12.4..20.6%], fixed 9.8% [4.4..13.5%]: ahead by 3.70
# points, within the larger spread (9.10 points)", from each seed's improvement
# over the best baseline as its log prints it.
verdict() {
  local name=$1
  for seed in $seeds; do
    echo "a $(result_pct "$out/$name-share-s$seed.log")"
    echo "b $(result_pct "$out/$name-fixed-s$seed.log")"
  done | compare "$name" "share $share" "fixed"
}
printf "$fmt" model fixed "fixed (ms)" "fixed (% over best)" "share $share (ms)" \
  "share (% over best)" "share / fixed" >"$table"
for row in "${paper_rows[@]}"; do
  IFS='|' read -r name zoo gpus _ <<<"$row"
  # ResNet-152 has no heavy gradient op: both settings would be the colocated policy.
  if [[ $name == resnet ]] || ! picked "$name"; then continue; fi
  # shellcheck disable=SC2086
  "$planner" zoo $zoo -o "$out/$name.pb" >/dev/null
  devices="configs/k40-paper-${gpus}gpu.yaml"
  # The cluster's devices: its GPUs and the one CPU.
  fixed=$(awk -v d=$((gpus + 1)) 'BEGIN { printf "%.3f", exp(2) / (exp(2) + d - 1) }')
  config "$out/$name-fixed.yaml" "$fixed"
  config "$out/$name-share.yaml" "$share"
  for seed in $seeds; do
    if [[ ${REUSE:-0} == 1 && -s "$out/$name-fixed-s$seed.log" &&
      -s "$out/$name-share-s$seed.log" ]]; then
      continue
    fi
    for setting in fixed share; do
      "$planner" search "$out/$name.pb" "$devices" --seed "$seed" --budget "$budget" --refine 0 \
        --gradients heavy --config "$out/$name-$setting.yaml" \
        -o "$out/$name-$setting-s$seed.yaml" >"$out/$name-$setting-s$seed.log" &
    done
    wait
  done
  col() { for seed in $seeds; do result_ms "$out/$name-$1-s$seed.log"; done | summary ""; }
  pct() { for seed in $seeds; do result_pct "$out/$name-$1-s$seed.log"; done | summary "%"; }
  ratio=$(for seed in $seeds; do
    echo "$(result_ms "$out/$name-share-s$seed.log") $(result_ms "$out/$name-fixed-s$seed.log")"
  done | awk '$1 > 0 && $2 > 0 {print $1 / $2}' | summary "")
  printf "$fmt" "$name" "$fixed" "$(col fixed)" "$(pct fixed)" "$(col share)" "$(pct share)" \
    "$ratio" >>"$table"
  tail -1 "$table"
  verdict "$name" >>"$verdicts"
done
echo
echo "the policy alone: --budget $budget --refine 0 --gradients heavy, median [range] over seeds"
echo "$seeds; fixed: apart_colocated at e^2 / (e^2 + devices - 1), as the default (0) has it;"
echo "share: apart_colocated $share; share / fixed: each seed's two results, run side by side"
cat "$table"
echo
cat "$verdicts"
