#!/usr/bin/env bash
# The bench programs and scripts refuse bad arguments in one line naming the
# argument (exit 2), before any work: build/bench/climb_speed's --budget,
# --rounds and --layers, build/bench/fleet_bench's --sizes, bench/speed_figures.sh's ROUNDS,
# bench/apart_colocated.sh's SHARE, bench/split_ranking_runs.sh's N,
# bench/ab_pooled.py without logs (and its counts on a known log), every
# script's budget, arguments and --help
# (bench/usage.sh). And
# bench/best_known.sh offers no placement with gradients apart (--gradients
# heavy) as a best known, which keep every gradient with its op.
# Usage: bad_flags_test.sh CLIMB_SPEED_BIN SOURCE_DIR FLEET_BENCH_BIN
set -uo pipefail
climb_speed=$1 src=$2 fleet_bench=$3
failed=0
expect() {  # WANTED-MESSAGE COMMAND...: exit 2 and one line on stderr holding the message
  local wanted=$1 err rc
  shift
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc != 2 || $(wc -l <<<"$err") != 1 || $err != *"$wanted"* ]]; then
    echo "FAILED: $* gave exit $rc and: $err (wanted exit 2 and one line with '$wanted')"
    failed=1
  fi
}
expect "--rounds must be an integer from 1 to 1000, got 'x'" "$climb_speed" --rounds x
expect "--budget must be a number above 0" "$climb_speed" --budget -1
expect "--layers must be an integer from 1 to 64, got 'a'" "$climb_speed" --layers 2,a
expect "--sizes must be small or paper-scale, got 'big'" "$fleet_bench" --sizes big
expect "ROUNDS must be a positive integer, not '0'" bash "$src/bench/speed_figures.sh" 0
expect "SHARE '2' is not a probability in [0.001, 0.999]" \
  env SHARE=2 bash "$src/bench/apart_colocated.sh"
# Every script (bench/usage.sh): a bad budget, too few arguments, and --help.
expect "search_paper.sh: BUDGET '15x' is not a duration (90, 90s, 15m or 2h)" \
  bash "$src/bench/search_paper.sh" 15x
expect "measure_ab.sh: expected at least 5 argument(s), got 1 (--help shows the usage)" \
  bash "$src/bench/measure_ab.sh" planner
expect "profile_flags_ab.sh: expected at least 3 argument(s), got 1 (--help shows the usage)" \
  bash "$src/bench/profile_flags_ab.sh" planner
expect "split_ranking_runs.sh: N must be a positive whole number, not 'x'" \
  bash "$src/bench/split_ranking_runs.sh" x
for script in "$src"/bench/*.sh; do
  case $(basename "$script") in lib.sh | usage.sh) continue ;; esac
  out=$(bash "$script" --help 2>&1)
  rc=$?
  first=$(sed -n 2p "$script" | sed 's/^# *//')
  if [[ $rc != 0 || $(head -1 <<<"$out") != "$first" ]]; then
    echo "FAILED: $script --help gave exit $rc and: $(head -2 <<<"$out")"
    failed=1
  fi
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf 'placement: {a: gpu0}\ngradients_apart: {g: gpu1}\n' >"$scratch/apart.yaml"
kept_before=$(cksum <"$src/bench/best-known/nmt2.yaml")
err=$(bash "$src/bench/best_known.sh" offer nmt2 "$scratch/apart.yaml" 2>&1 >/dev/null)
if [[ $err != *"apart.yaml runs gradient ops apart from their op (--gradients heavy): not offered"* ||
  $(cksum <"$src/bench/best-known/nmt2.yaml") != "$kept_before" ]]; then
  echo "FAILED: best_known.sh offer of a placement with gradients apart: $err"
  failed=1
fi
expect "usage: python3 bench/ab_pooled.py LOG" python3 "$src/bench/ab_pooled.py"
# bench/ab_pooled.py counts pair by pair: m's etf both order as the hardware,
# its metis only B (the hardware 1.2x slower), its scotch is within 5% (left
# out); n's etf only A (the hardware faster).
printf 'm single 10 10 10\nm etf 8 9 9\nm metis 12 9 12\nm scotch 10.2 9 9\nn single 10 10 10\nn etf 8 9 11\n' \
  >"$scratch/ab.log"
out=$(python3 "$src/bench/ab_pooled.py" "$scratch/ab.log" "$scratch/ab.log" 2>&1)
wanted="pooled over 2 runs: pairs the hardware ran >5% apart: 6; ordered as the hardware by both 2, A only 2, B only 2, neither 0 (sign test p = 1.000); where they differ, splits the hardware ran faster: A right 2, B right 0; slower: A right 0, B right 2"
if [[ $out != *"$wanted"* ]]; then
  echo "FAILED: ab_pooled.py on a known log gave: $out"
  failed=1
fi
exit $failed
