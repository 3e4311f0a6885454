#!/usr/bin/env bash
# The PyTorch models of scripts/pytorch/export_models.py (seven) through the whole
# pipeline on this machine's two CPU devices (configs/local-2cpu.yaml): export,
# forward and SGD step against PyTorch (bench/onnx_pytorch_parity), measure,
# profile, a simulated search from the profile, and a real-reward search with
# the hardware's verdict (interleaved rounds, one-sided Wilcoxon test).
#   bench/pytorch_models.sh [BUDGET] [OUTDIR]   (default 60s per search, build/pytorch_models)
# Run from the repository root after scripts/build.sh, on an otherwise idle machine.
set -euo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
budget=${1:-60s}
bench_duration BUDGET "$budget"
out=${2:-build/pytorch_models}
planner=${PLANNER:-build/planner/planner}
bench_need "$planner"
devices=configs/local-2cpu.yaml
mkdir -p "$out"
/usr/bin/python3 scripts/pytorch/export_models.py "$out" 2>/dev/null
build/bench/onnx_pytorch_parity "$out" | tee "$out/parity.txt"
table="$out/table.txt"
printf "%-16s %-12s %-28s %-28s %s\n" model "measured" "sim search (from profile)" \
  "real search: best found" "on the hardware" >"$table"
for dir in "$out"/*/; do
  name=$(basename "$dir")
  model="$dir/model.onnx"
  "$planner" measure "$model" "$devices" --steps 10 >"$out/$name.measure"
  measured=$(awk '/^step time/{print $5" "$6}' "$out/$name.measure")
  "$planner" profile "$model" "$devices" -o "$out/$name.profile" >"$out/$name.profile.log"
  "$planner" search "$model" "$devices" --reward sim --profile "$out/$name.profile" \
    --budget "$budget" --refine 30s -o "$out/$name.sim.yaml" >"$out/$name.sim.log"
  sim=$(awk '/^  best found/{print $4" "$5" ("$3")"}' "$out/$name.sim.log")
  "$planner" search "$model" "$devices" --reward real --profile "$out/$name.profile" \
    --budget "$budget" -o "$out/$name.real.yaml" >"$out/$name.real.log"
  found=$(awk '/^  best found/{print $4" "$5" ("$3")"}' "$out/$name.real.log")
  verdict=$(awk '/^  on hardware/{sub(/^  on hardware +/, ""); print}' "$out/$name.real.log")
  printf "%-16s %-12s %-28s %-28s %s\n" "$name" "$measured" "$sim" "$found" "$verdict" >>"$table"
  tail -1 "$table"
done
echo
cat "$table"
