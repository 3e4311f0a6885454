#!/usr/bin/env bash
# `planner search --reward real` on a host with a GPU (issue 37, item 4;
# docs/search.md, "On real devices the hardware decides"): for each model, the
# search profiles the devices file's cpu and cuda devices into a fresh cache,
# measures the baselines, trains the policy on measured step times for BUDGET,
# climbs on the profile's simulator for REFINE and measures the climb's pick,
# then measures its result against the best baseline in interleaved rounds and
# prints the verdict. Prints each search's log; with KEEP=DIR keeps its
# placement, reward curve and log in DIR/NAME.
# Usage: bench/search_real_gpu.sh DEVICES BUILD_DIR BUDGET MODEL...
#   MODEL: a zoo spec NAME[:FLAGS] (flags as --flag=value, comma-separated) or
#     a GraphDef FILE.pb (`planner import` of an ONNX export, say)
#   REFINE=DURATION: the climb after the policy (default 30s)
#   CAP=S: each search's seconds at most (default 200); at the cap the search
#     gets SIGINT, which leaves its files valid and its result "not decided"
#   SEED=S: the search's seed (default 1)
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
bench_args 4 "$@"
devices="$(realpath "$1")"
build="$(realpath "$2")"
budget="$3"
shift 3
planner="$build/planner/planner"
bench_need "$planner"
keep=""
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && keep="$(realpath "$KEEP")"; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for spec in "$@"; do
  if [[ "$spec" == *.pb ]]; then
    name="$(basename "$spec" .pb)"
    model="$(realpath "$spec")"
  else
    name="${spec%%:*}"
    model="$tmp/$name.pb"
    bench_zoo "$planner" "$spec" "$model"
  fi
  dir="$tmp/$name"
  mkdir -p "$dir"
  echo "[$name] planner search $spec $(basename "$devices") --reward real --budget $budget --refine ${REFINE:-30s} --seed ${SEED:-1}"
  start=$SECONDS
  rc=0
  timeout -s INT -k 30 "${CAP:-200}" "$planner" search "$model" "$devices" --reward real \
    --budget "$budget" --refine "${REFINE:-30s}" --seed "${SEED:-1}" \
    --profile-cache "$dir/cache" -o "$dir/placement.yaml" --csv "$dir/curve.csv" \
    >"$dir/search.log" 2>&1 || rc=$?
  sed "s/^/[$name] /" "$dir/search.log"
  echo "[$name] exit $rc after $((SECONDS - start)) s"
  if [ -n "$keep" ]; then
    mkdir -p "$keep/$name"
    cp "$dir/search.log" "$keep/$name/"
    for f in placement.yaml curve.csv; do [ -f "$dir/$f" ] && cp "$dir/$f" "$keep/$name/"; done
    echo "$spec" >"$keep/$name/spec"
  fi
done
