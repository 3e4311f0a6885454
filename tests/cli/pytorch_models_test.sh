#!/usr/bin/env bash
# PyTorch models end to end (docs/onnx.md): exports resnet18, mobilenet_v2,
# efficientnet_b0, a small ViT, an LSTM language model, a GPT-style block, a
# model of PyTorch's index ops (gather, tril, scatter_add), a small 3-D network,
# resnet18 exported in train mode (batch norm by the batch's statistics),
# torchvision's Swin-T and LR-ASPP (shape arithmetic left to run time) with
# Debian's python3-torch
# (scripts/pytorch/export_models.py), then
#   - checks the forward outputs and one SGD step against PyTorch's
#     (bench/onnx_pytorch_parity: loss, every gradient, every parameter);
#   - checks that `planner inspect` finds no unsupported op in any of them;
#   - places each with `planner baseline --method etf` on the simulated
#     2-GPU paper cluster, writes its placement per PyTorch module, and
#     applies each to its PyTorch model (GPUs this machine lacks are device
#     tags: the check is that the forward stays exact and no op's operands
#     are on two devices);
#   - measures one of them on this machine's CPUs.
# Usage: pytorch_models_test.sh PARITY_BIN PLANNER_BIN SOURCE_DIR
# Exits 77 (skipped) without Debian's torch, torchvision and onnx for python3.
set -euo pipefail
parity=$1 planner=$2 src=$3
py=/usr/bin/python3
if ! "$py" -c 'import torch, torchvision, onnx' 2>/dev/null; then
  echo "skipped: /usr/bin/python3 lacks torch, torchvision or onnx (scripts/setup.sh installs them)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$py" "$src/scripts/pytorch/export_models.py" "$out" 2>/dev/null
"$parity" "$out"
for dir in "$out"/*/; do
  name=$(basename "$dir")
  model="$dir/model.onnx"
  "$planner" inspect "$model" > "$out/$name.inspect"
  if ! grep -q "unsupported ops (0): none" "$out/$name.inspect"; then
    echo "$name: planner inspect reports unsupported ops" >&2
    cat "$out/$name.inspect" >&2
    exit 1
  fi
  "$planner" baseline "$model" "$src/configs/k40-paper-2gpu.yaml" --method etf \
    --export-modules "$out/$name.modules.yaml" > "$out/$name.baseline"
  if ! grep -q "module: " "$out/$name.modules.yaml"; then
    echo "$name: no modules in $name.modules.yaml" >&2
    exit 1
  fi
  # What applying the file costs against etf's own placement, simulated.
  if ! grep -q "applied as written, its step simulates at" "$out/$name.baseline"; then
    echo "$name: no simulated step of the module placement as applied" >&2
    cat "$out/$name.baseline" >&2
    exit 1
  fi
  echo "$name: inspect ok, $(grep '^modules: ' "$out/$name.baseline")"
done
# resnet18's first convolution is a module of its own: it must be listed; and
# each file applies to its PyTorch model (scripts/pytorch/apply_placement.py):
# the placed forward gives the unplaced one's output, and no op finds its
# operands on two devices (GPUs this machine lacks are tags on CPU tensors).
# metis's placements too on the two transformers: they split a model's own
# ops (the position embedding's add) from its blocks, and the attention's
# mask is a keyword argument.
grep -q 'module: "conv1"' "$out/resnet18.modules.yaml"
for name in resnet18 mobilenet_v2 efficientnet_b0 vit_tiny lstm_lm gpt_block index_ops video3d \
  resnet18_train swin_t lraspp; do
  (cd "$src/scripts/pytorch" && "$py" apply_placement.py "$name" "$out/$name.modules.yaml")
done
# A file for another model, or naming a GPU this machine lacks, or renaming a
# device it does not use, is refused in one line before any module moves.
if (cd "$src/scripts/pytorch" && "$py" apply_placement.py mobilenet_v2 \
      "$out/resnet18.modules.yaml") > "$out/wrong_model.txt" 2>&1; then
  echo "resnet18's module file was applied to mobilenet_v2" >&2
  exit 1
fi
grep -q "of its [0-9]* modules are not in this model" "$out/wrong_model.txt" \
  || { cat "$out/wrong_model.txt" >&2; exit 1; }
(cd "$src/scripts/pytorch" && "$py" - "$out/resnet18.modules.yaml") <<'PY'
import sys, torch, torchvision
from apply_placement import apply_placement, PlacementError
path = sys.argv[1]
for device_map, says in [({"cuda:7": "cpu"}, "renames 'cuda:7', which the file does not use"),
                         ({"gpu0": "cpu"}, "places modules on cuda:1")]:
    if "places modules" in says and torch.cuda.device_count() >= 2:
        continue  # the GPUs are there
    model = torchvision.models.resnet18()
    try:
        apply_placement(model, path, device_map=device_map)
        sys.exit(f"apply_placement took device_map={device_map}")
    except PlacementError as e:
        assert says in str(e), str(e)
        assert model.forward.__name__ == "forward", "a module moved before the refusal"
# A larger model that has every module the file lists: its extra blocks hold
# parameters the file does not list.
model = torchvision.models.resnet34()
try:
    apply_placement(model, path, check_devices=False)
    sys.exit("resnet18's module file was applied to resnet34")
except PlacementError as e:
    assert "32 modules of this model hold parameters and are not listed ('layer1.2.conv1'" in str(e), str(e)
    assert model.forward.__name__ == "forward", "a module moved before the refusal"
print("apply_placement: a wrong device_map, a missing GPU and a larger model are refused before any move")
PY
# What torch.save writes (weights, a pickled module, TorchScript) holds no graph
# of ops: the planner says so and how to export one.
"$py" - "$out" <<'PY'
import sys, torch, torchvision
m = torchvision.models.resnet18()
torch.save(m.state_dict(), sys.argv[1] + "/r18_state.pth")
torch.jit.script(m).save(sys.argv[1] + "/r18_script.pt")
PY
for f in r18_state.pth r18_script.pt; do
  if "$planner" inspect "$out/$f" > "$out/$f.txt" 2>&1; then
    echo "planner inspect read $f" >&2
    exit 1
  fi
  grep -q "$f: a PyTorch file (torch.save or TorchScript).*torch.onnx.export" "$out/$f.txt" \
    || { cat "$out/$f.txt" >&2; exit 1; }
done
for name in vit_tiny gpt_block; do
  "$planner" baseline "$out/$name/model.onnx" "$src/configs/k40-paper-2gpu.yaml" --method metis \
    --export-modules "$out/$name.metis.modules.yaml" > /dev/null
  (cd "$src/scripts/pytorch" && "$py" apply_placement.py "$name" "$out/$name.metis.modules.yaml")
done
"$planner" measure "$out/lstm_lm/model.onnx" "$src/configs/local-2cpu.yaml" --steps 2 --warmup 1
