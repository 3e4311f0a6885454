#!/usr/bin/env bash
# Real-reward searches on this machine: for every model in models/tfjs, the
# zoo's two-branch model (parallel branches) and its chain (no op can run beside
# another, so no gain may be claimed), `planner search --reward real` on
# configs/local-2cpu.yaml for N policy updates and a REFINE hill climb on the
# simulator of the devices' profile (made on first use, cached), then the table:
# the best baseline, the result, and the hardware's verdict (planner search
# measures the found placement against the best baseline in 9 interleaved
# rounds and claims a gain only when the one-sided Wilcoxon test gives p < 0.05),
# and the climb's pick: the placement the hill climb chose on the simulator,
# its simulated and measured step and the simulator's error on it, with the
# median |error| over the models whose climb picked a placement ("-": the climb
# found nothing faster than its start on the simulator, so nothing was measured).
# RECALIBRATE="on off" runs each model with `--recalibrate on` and then `off`
# (the climb's simulator refitted to the search's measured steps, or the
# profile as made), one after the other per model, and prints a table for each.
# Each table ends with the median error and the number of significant gains;
# with both settings, how many models' picks each setting predicted closer.
# REUSE=1 keeps the searches whose logs OUTDIR already holds, so the tables can
# be printed again from them.
#   [RECALIBRATE=on|off|"on off"] [REUSE=1] bench/search_local.sh [N] [REFINE] [OUTDIR]
#   (default on, 30, 60s, build/search_local)
# Run from the repository root after scripts/build.sh, on an otherwise idle machine.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
n=${1:-30}
refine=${2:-60s}
bench_duration REFINE "$refine"
if [[ $refine =~ ^0+[smh]?$ ]]; then
  echo "$(basename "$0"): REFINE must be more than 0: the tables are about the climb's pick" >&2
  exit 2
fi
out=${3:-build/search_local}
planner=${PLANNER:-build/planner/planner}
bench_need "$planner"
mkdir -p "$out"
"$planner" zoo two_branch -o "$out/two_branch.pb" >/dev/null
"$planner" zoo chain -o "$out/chain.pb" >/dev/null
models=("$out/two_branch.pb" "$out/chain.pb")
for m in models/tfjs/*.json; do models+=("$m"); done
settings=${RECALIBRATE:-on}
fmt="%-26s %-24s %-28s %-34s %s\n"
for setting in $settings; do
  printf "$fmt" model "best baseline" "result (method)" "climb's pick: sim / measured" \
    "on the hardware" >"$out/table-$setting.txt"
  : >"$out/climb_errors-$setting.txt"
done
for m in "${models[@]}"; do
  name=$(basename "$m"); name=${name%.*}
  for setting in $settings; do
    log="$out/$name-$setting.log"
    table="$out/table-$setting.txt"
    if [[ ${REUSE:-0} != 1 || ! -s $log ]]; then
      "$planner" search "$m" configs/local-2cpu.yaml --reward real --iterations "$n" \
        --refine "$refine" --recalibrate "$setting" -o "$out/$name-$setting.yaml" \
        --csv "$out/$name-$setting.csv" --svg "$out/$name-$setting.svg" >"$log"
    fi
    base=$(awk '/^  best baseline/{print $3" "$4" "$5}' "$log")
    found=$(awk '/^  best found/{print $4" "$5" ("$3")"}' "$log")
    verdict=$(awk '/^  on hardware/{sub(/^  on hardware +/, ""); sub(/ \(median ratio/, " (ratio"); sub(/, 90% interval [0-9.-]+/, ""); sub(/ over 9 interleaved rounds/, ""); print}' "$log")
    # "refine: its placement (1,234.567 ms simulated) measured 1,300.000 ms"
    pick=$(awk '/^refine: its placement \(/{
        sim = $4; meas = $8; gsub(/[(,]/, "", sim); gsub(/,/, "", meas)
        if (meas + 0 > 0) printf "%.3f / %.3f ms (%+.1f%%)\n", sim, meas, 100 * (sim - meas) / meas
      }' "$log" | tail -1)
    if [[ -n $pick ]]; then
      echo "$name $(echo "$pick" | sed 's/.*(\(.*\)%)/\1/')" >>"$out/climb_errors-$setting.txt"
    else
      pick="-"
    fi
    printf "$fmt" "$name" "$base" "$found" "$pick" "$verdict" >>"$table"
    echo "recalibrate $setting: $(tail -1 "$table")"
  done
done
for setting in $settings; do
  # The median |error| and the errors' range over the models whose climb picked.
  awk '{ print ($2 < 0 ? -$2 : $2), $2 }' "$out/climb_errors-$setting.txt" | sort -g | awk '
    { a[NR] = $1; if (NR == 1 || $2 < lo) lo = $2; if (NR == 1 || $2 > hi) hi = $2 }
    END {
      if (NR == 0) { print "the climb picked no placement on any model"; exit }
      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      printf "the climb\047s picks: median |simulated - measured| %.1f%% over %d models (errors %+.1f%% to %+.1f%%)\n", m, NR, lo, hi
    }' >>"$out/table-$setting.txt"
  gains=$(grep -c '% faster than ' "$out/table-$setting.txt" || true)
  echo "significant gains: $gains of ${#models[@]} models" >>"$out/table-$setting.txt"
  echo
  echo "--recalibrate $setting ($(date -u +%F), $(git describe --always --dirty 2>/dev/null || echo '?'), N=$n, REFINE=$refine):"
  cat "$out/table-$setting.txt"
done
if [[ " $settings " == *" on "* && " $settings " == *" off "* ]]; then
  # Models where both settings' climbs picked: whose pick each predicted closer.
  join <(sort "$out/climb_errors-on.txt") <(sort "$out/climb_errors-off.txt") | awk '
    { on = ($2 < 0 ? -$2 : $2); off = ($3 < 0 ? -$3 : $3); n++
      if (on < off) closer_on++; else if (off < on) closer_off++ }
    END { printf "\nboth picked on %d models: --recalibrate on closer on %d, off closer on %d\n",
          n, closer_on, closer_off }'
fi
