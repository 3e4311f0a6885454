#!/usr/bin/env bash
# What `planner search --baseline-rounds` changes (docs/search.md, "The best
# baseline is measured again"): for each model, one real-reward search with no
# policy update and no climb (--iterations 0 --refine 0) on DEVICES, whose log
# gives each baseline's one measurement and, for the three fastest, the median
# after the rounds. Where the fastest by one draw is not the fastest by median,
# the two placements are measured side by side (bench/measure_ab.sh, AB_ROUNDS
# rounds, default 12) to say which the hardware prefers. Prints a row a model
# and the count of models where the pick changed, and where the side-by-side
# rounds sided with the median's pick.
# Usage: bench/baseline_rounds.sh [DEVICES] [OUTDIR] [MODEL...]
#   (defaults configs/local-2cpu.yaml, build/baseline_rounds, the zoo's
#   two_branch and every model in models/tfjs); ROUNDS=N: --baseline-rounds
#   (default 3). Run from the repository root after scripts/build.sh.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
devices=${1:-configs/local-2cpu.yaml}
out=${2:-build/baseline_rounds}
shift $(($# < 2 ? $# : 2))
planner=${PLANNER:-build/planner/planner}
bench_need "$planner"
mkdir -p "$out"
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  "$planner" zoo two_branch -o "$out/two_branch.pb" >/dev/null
  models=("$out/two_branch.pb" models/tfjs/*.json)
fi
echo "bench/baseline_rounds.sh on $(date -u +%F) at $(git describe --always --dirty 2>/dev/null ||
  echo '?'), host $(uname -n), $(nproc) cores; $devices; --baseline-rounds ${ROUNDS:-3}"
fmt="%-26s %-26s %-26s %s\n"
# shellcheck disable=SC2059
printf "$fmt" model "fastest by one draw" "fastest by median" "side by side (median / one draw)"
changed=0 sided=0
for model in "${models[@]}"; do
  name=$(basename "${model%.*}")
  log="$out/$name.log"
  "$planner" search "$model" "$devices" --reward real --iterations 0 --refine 0 \
    --baseline-rounds "${ROUNDS:-3}" --profile-cache "$out/cache" -o "$out/$name.yaml" >"$log" 2>&1 ||
    { echo "$name: planner search failed (its log: $log)"; continue; }
  # The baselines' lines ("  NAME  12.345 ms (planned in ...)") and the line of medians.
  first=$(awk '/^  [a-z:0-9]+ +[0-9.]+ ms \(planned/ && (!b || $2 < t) { b = $1; t = $2 }
               END { print b, t }' "$log")
  median=$(sed -n 's/^  measured again ([^)]*): //p' "$log" | tr ',' '\n' |
    awk 'NF && (!b || $2 < t) { b = $1; t = $2 } END { print b, t }')
  a=${first%% *} b=${median%% *}
  side="-"
  if [ -n "$b" ] && [ "$a" != "$b" ]; then
    changed=$((changed + 1))
    for m in "$a" "$b"; do
      "$planner" baseline "$model" "$devices" --method "$m" --profile-cache "$out/cache" \
        -o "$out/$name.$m.yaml" >/dev/null
    done
    side=$(bash bench/measure_ab.sh "$planner" "$model" "$devices" "$out/$name.$a.yaml" \
      "$out/$name.$b.yaml" "${AB_ROUNDS:-12}" | tail -1 | sed 's/^B \/ A over //')
    awk -v s="$side" 'BEGIN { split(s, w, " "); exit !(w[4] < 1) }' && sided=$((sided + 1))
  fi
  # shellcheck disable=SC2059
  printf "$fmt" "$name" "$first ms" "${median:--} ms" "$side"
done
echo "the pick changed on $changed model(s); the side-by-side rounds put the median's pick ahead on $sided"
