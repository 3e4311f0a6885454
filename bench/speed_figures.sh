#!/usr/bin/env bash
# The README's speed figures for the search's inner loops, measured side by
# side: one simulation of NMT-8 (build/bench/sim_speed, both placements) and
# one policy update on NMT-8 (build/bench/search_update) with the defaults
# (`grouper: auto`, which places NMT-8's name scopes), with the learned Grouper
# (configs/search-learned.yaml) and with the paper's settings
# (configs/search-paper.yaml), alternated ROUNDS times (3 by default). Prints
# every run's figure, then each one's median and range over the rounds. The
# VMs differ by 2-3x and swing within minutes: compare the rows of one run.
#
#   bench/speed_figures.sh [ROUNDS] [BUILD_DIR]
#
# Prints the date, the commit, the host and its CPU first. Run from the
# repository root after scripts/build.sh.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
cd "$(dirname "$0")/.."
rounds=${1:-3}
build=${2:-build}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench/speed_figures.sh: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2; }
for p in "$build/bench/sim_speed" "$build/bench/search_update"; do
  [[ -x $p ]] || { echo "bench/speed_figures.sh: $p is missing (run scripts/build.sh)" >&2; exit 2; }
done
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
s=$([[ $rounds == 1 ]] || echo s)  # "1 round", "3 rounds"
echo "bench/speed_figures.sh on $(date -u +%F) at $(git describe --always --dirty 2>/dev/null ||
  echo '?'), host $(uname -n), $(nproc) cores ($cpu), $rounds round$s alternated"

declare -A runs  # figure name -> the rounds' values, space-separated
add() { runs[$1]="${runs[$1]:-} $2"; }
update() {  # NAME [--config FILE]
  local name=$1 out
  shift
  out=$("$build/bench/search_update" "$@") || { echo "search_update $* failed" >&2; exit 1; }
  local s
  s=$(sed -n 's/^one policy update.*: \([0-9.]*\) s median.*/\1/p' <<<"$out")
  [[ -n $s ]] || { echo "search_update $*: no figure in its output" >&2; exit 1; }
  echo "  update, $name: $s s ($(sed -n 's/.*groups (\(.*\))$/\1/p' <<<"$out"))"
  add "update, $name (s)" "$s"
}
for ((r = 1; r <= rounds; ++r)); do
  echo "round $r:"
  out=$("$build/bench/sim_speed") || { echo "sim_speed failed" >&2; exit 1; }
  # The first block is the paper-scale sizes (the zoo's defaults).
  layer=$(grep -m1 '^  a layer per GPU' <<<"$out" | awk '{print $5}')
  random=$(grep -m1 '^  ops at random' <<<"$out" | awk '{print $4}')
  echo "  one simulation of paper-scale NMT-8: a layer per GPU $layer ms, ops at random $random ms"
  add "simulation, a layer per GPU (ms)" "$layer"
  add "simulation, ops at random (ms)" "$random"
  update "defaults"
  update "learned Grouper" --config configs/search-learned.yaml
  update "paper's settings" --config configs/search-paper.yaml
done
echo "medians [range] over $rounds round$s:"
for name in "simulation, a layer per GPU (ms)" "simulation, ops at random (ms)" \
  "update, defaults (s)" "update, learned Grouper (s)" "update, paper's settings (s)"; do
  # shellcheck disable=SC2086
  printf '%s\n' ${runs[$name]} | sort -g | awk -v name="$name" '
    { v[NR] = $1 }
    END {
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "  %-34s %.3f [%.3f..%.3f]\n", name, m, v[1], v[NR]
    }'
done
