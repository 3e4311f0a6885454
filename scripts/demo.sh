#!/usr/bin/env bash
# Installs, builds, and runs the planner on a small default: inspects a real
# TensorFlow.js model, converts it to a binary GraphDef, shows the local
# two-CPU-device configuration, and measures the model's training step there
# (with a Chrome trace in out/trace.json). MODEL and DEVICES may be given as arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:-../shared/models/tfjs/movenet-lightning.json}
DEVICES=${2:-configs/local-2cpu.yaml}
bash scripts/setup.sh
bash scripts/build.sh
mkdir -p out
build/planner/planner inspect "$MODEL"
build/planner/planner import "$MODEL" -o out/model.pb
build/planner/planner inspect out/model.pb --json >/dev/null && echo "out/model.pb re-imports"
build/planner/planner devices "$DEVICES"
build/planner/planner measure "$MODEL" "$DEVICES" --trace out/trace.json
