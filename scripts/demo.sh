#!/usr/bin/env bash
# Installs, builds, and runs the planner on a small default: inspects a real
# TensorFlow.js model, converts it to a binary GraphDef, shows the local
# two-CPU-device configuration, measures the model's training step there (with a
# Chrome trace in out/trace.json), then runs the main job, `planner search`: on
# that model and those devices with measured rewards, and on the paper's 2-layer NMT on
# its Haswell + 2 K40 machine with simulated ones; last, the trainer trains LeNet on
# Fashion-MNIST with two ranks, placed by a planner baseline. Outputs (placements, curves,
# pictures, placed GraphDefs) go to out/. MODEL and DEVICES may be given as arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:-models/tfjs/movenet-lightning.json}
DEVICES=${2:-configs/local-2cpu.yaml}
bash scripts/setup.sh
bash scripts/build.sh
mkdir -p out
build/planner/planner inspect "$MODEL"
build/planner/planner import "$MODEL" -o out/model.pb
build/planner/planner inspect out/model.pb --json >/dev/null && echo "out/model.pb re-imports"
build/planner/planner devices "$DEVICES"
build/planner/planner measure "$MODEL" "$DEVICES" --trace out/trace.json
build/planner/planner search "$MODEL" "$DEVICES" --reward real --iterations 10 \
  -o out/placement.yaml --csv out/curve.csv --svg out/search.svg --export-graphdef out/placed.pb
build/planner/planner zoo nmt --layers 2 -o out/nmt2.pb
build/planner/planner search out/nmt2.pb configs/k40-paper-2gpu.yaml --budget 60s --refine 30s \
  -o out/nmt2-placement.yaml --csv out/nmt2-curve.csv --svg out/nmt2-search.svg
build/planner/planner zoo lenet --batch 64 -o out/lenet.pb
build/planner/planner baseline out/lenet.pb configs/local-2cpu.yaml --method etf -o out/lenet-placement.yaml
build/trainer/trainer launch --nproc 2 train out/lenet.pb --devices configs/local-2cpu.yaml \
  --placement out/lenet-placement.yaml --strategy sync --epochs 1 --log-every 200
