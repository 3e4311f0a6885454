#!/usr/bin/env bash
# The fastest placement known for each of the paper's models on the paper's
# machine (the zoo's models at their default, paper-scale sizes on
# configs/k40-paper-{2,4,8}gpu.yaml, simulated), kept in bench/best-known/NAME.yaml,
# so that "how close does a search come to the best we know" is a number.
#
#   bench/best_known.sh check
#       simulates each kept placement and prints its step time (the figures
#       quoted in docs/search.md come from here, never from the files' own
#       simulated_step_s, which the simulator of the day may no longer give).
#   bench/best_known.sh offer NAME PLACEMENT...
#       keeps the fastest of PLACEMENT(s) as NAME's best known when it is faster
#       in simulation than the kept one (any method's placement of that model:
#       a search's -o, a baseline's, with every gradient on its op's device:
#       one with gradients_apart is refused). bench/search_paper.sh offers its
#       results.
#   [MODELS="nmt2 nmt4"] [SEED=1] bench/best_known.sh search [BUDGET] [OUTDIR]
#       a long search per model (`planner search --order climb-first --budget
#       BUDGET --refine 5m`; BUDGET 15m by default, so 20 minutes a model), each
#       result offered as above. Logs and placements stay in OUTDIR
#       (build/best_known by default).
# Every command prints the date, the commit and the host first. Run from the
# repository root after scripts/build.sh (PLANNER=... for another binary).
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
cd "$(dirname "$0")/.."
planner=${PLANNER:-build/planner/planner}
kept=bench/best-known
models_dir=${BEST_KNOWN_MODELS:-build/best_known/models}
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

die() { echo "bench/best_known.sh: $*" >&2; exit 2; }
row_of() {  # NAME -> "zoo|gpus"
  local row name zoo gpus
  for row in "${paper_rows[@]}"; do
    IFS='|' read -r name zoo gpus _ <<<"$row"
    if [[ $name == "$1" ]]; then echo "$zoo|$gpus"; return; fi
  done
  die "unknown model '$1' (one of: inception_v3 resnet rnnlm nmt2 nmt4 nmt8)"
}
model_of() {  # NAME -> the zoo model's file, written once
  local zoo gpus
  IFS='|' read -r zoo gpus <<<"$(row_of "$1")"
  mkdir -p "$models_dir"
  # shellcheck disable=SC2086
  [[ -s "$models_dir/$1.pb" ]] || "$planner" zoo $zoo -o "$models_dir/$1.pb" >/dev/null
  echo "$models_dir/$1.pb"
}
devices_of() {
  local zoo gpus
  IFS='|' read -r zoo gpus <<<"$(row_of "$1")"
  echo "configs/k40-paper-${gpus}gpu.yaml"
}
simulated_ms() {  # NAME PLACEMENT -> its simulated step in ms, or nothing if it fails
  "$planner" simulate "$(model_of "$1")" "$(devices_of "$1")" --placement "$2" 2>/dev/null |
    awk '/^simulated step time:/{print $4}' || true
}
header() {
  echo "bench/best_known.sh $1 on $(date -u +%F) at $(git describe --always --dirty 2>/dev/null ||
    echo '?'), host $(uname -n), $(nproc) cores"
}

check() {
  header check
  printf "%-13s %-16s %s\n" model "best known ms" "found by"
  local row name zoo gpus ms
  for row in "${paper_rows[@]}"; do
    IFS='|' read -r name zoo gpus _ <<<"$row"
    picked "$name" || continue
    if [[ ! -s "$kept/$name.yaml" ]]; then
      printf "%-13s %-16s %s\n" "$name" - "(none kept)"
      continue
    fi
    ms=$(simulated_ms "$name" "$kept/$name.yaml")
    printf "%-13s %-16s %s\n" "$name" "${ms:-fails}" \
      "$(awk -F': ' '/^# found by:/{print $2}' "$kept/$name.yaml")"
  done
}

# offer NAME HOW PLACEMENT...: keeps the fastest candidate if it beats the kept one.
offer() {
  local name=$1 how=$2 best="" best_ms="" p ms old_ms
  shift 2
  row_of "$name" >/dev/null
  for p in "$@"; do
    [[ -s "$p" ]] || { echo "$name: $p: no such placement file" >&2; continue; }
    # The best known keep every gradient with its op, as the default search
    # does; a placement with gradients apart (--gradients heavy) is another race.
    if grep -q '^gradients_apart:' "$p"; then
      echo "$name: $p runs gradient ops apart from their op (--gradients heavy): not offered" >&2
      continue
    fi
    ms=$(simulated_ms "$name" "$p")
    if [[ -z "$ms" ]]; then
      echo "$name: $p does not simulate on $(devices_of "$name") (not this model's placement?)" >&2
      continue
    fi
    if [[ -z "$best" ]] || awk -v a="$ms" -v b="$best_ms" 'BEGIN{exit !(a < b)}'; then
      best=$p best_ms=$ms
    fi
  done
  [[ -n "$best" ]] || return 0
  old_ms=""
  [[ -s "$kept/$name.yaml" ]] && old_ms=$(simulated_ms "$name" "$kept/$name.yaml")
  if [[ -n "$old_ms" ]] && ! awk -v a="$best_ms" -v b="$old_ms" 'BEGIN{exit !(a < b)}'; then
    echo "$name: kept $old_ms ms; offered $best_ms ms ($best): not faster"
    return 0
  fi
  mkdir -p "$kept"
  {
    echo "# The fastest placement known of the zoo's $name on $(devices_of "$name"), simulated:"
    echo "# $best_ms ms when kept. bench/best_known.sh check prints today's figure."
    echo "# found by: $how ($(date -u +%F), $(git describe --always --dirty 2>/dev/null || echo '?'))"
    grep -v '^# ' "$best"
  } >"$kept/$name.yaml.tmp"
  mv "$kept/$name.yaml.tmp" "$kept/$name.yaml"
  echo "$name: kept $best_ms ms (was ${old_ms:-none}) from $best"
}

search() {
  local budget=${1:-15m} out=${2:-build/best_known} row name zoo gpus seed=${SEED:-1}
  header "search $budget"
  mkdir -p "$out"
  for row in "${paper_rows[@]}"; do
    IFS='|' read -r name zoo gpus _ <<<"$row"
    picked "$name" || continue
    "$planner" search "$(model_of "$name")" "$(devices_of "$name")" --seed "$seed" \
      --order climb-first --budget "$budget" --refine 5m -o "$out/$name.yaml" \
      --csv "$out/$name.csv" >"$out/$name.log" 2>&1 || { tail -3 "$out/$name.log"; continue; }
    offer "$name" "planner search --seed $seed --order climb-first --budget $budget --refine 5m" \
      "$out/$name.yaml"
  done
}

case "${1:-}" in
  check) check ;;
  offer)
    [[ $# -ge 3 ]] || die "usage: bench/best_known.sh offer NAME PLACEMENT..."
    name=$2
    shift 2
    offer "$name" "${HOW:-offered by hand}" "$@"
    ;;
  search) shift; search "$@" ;;
  *) die "usage: bench/best_known.sh check | offer NAME PLACEMENT... | search [BUDGET] [OUTDIR]" ;;
esac
