#!/usr/bin/env bash
# Tries torchvision's model architectures as a PyTorch user would bring them:
# each built with random weights (Debian's python3-torchvision 0.14, nothing
# downloaded), exported by torch.onnx.export (opset 17, eval mode, one image
# of 64 x 64 (224 x 224 for AlexNet and VGG, 96 x 96 for Inception-V3, 32 x 32
# for the ViT), a clip of 4 frames of 32 x 32 for the 3-D ResNets, or of 16
# frames of 224 x 224 for S3D and MViT, whose pools need them), then `planner simulate` on
# configs/k40-paper-2gpu.yaml. Prints one line per
# model (ok with its simulated step, or the one-line error: PyTorch's export
# or ours) and the counts.
#   bench/torchvision_models.sh [SCRATCH]   (default /tmp/torchvision-models)
# Run from the repository root after scripts/build.sh.
set -uo pipefail
# shellcheck source=bench/usage.sh
source "$(dirname "${BASH_SOURCE[0]}")/usage.sh"
bench_usage "$@"
scratch=${1:-/tmp/torchvision-models}
planner=${PLANNER:-build/planner/planner}
bench_need "$planner"
py=/usr/bin/python3
if ! "$py" -c 'import torch, torchvision, onnx' 2>/dev/null; then
  echo "$(basename "$0"): /usr/bin/python3 lacks torch, torchvision or onnx (scripts/setup.sh installs them)" >&2
  exit 1
fi
mkdir -p "$scratch"
# Each model's export: "exported NAME" or "export failed NAME: why".
"$py" - "$scratch" <<'PY' >"$scratch/exports.txt" 2>/dev/null
import sys, warnings
import torch, torchvision
sys.path.insert(0, "scripts/pytorch")
from export_models import SegmentationOut as Out  # a segmentation model's {"out": ...}
warnings.filterwarnings("ignore")
m, out = torchvision.models, sys.argv[1]
seg = m.segmentation

# 64 x 64 images; 224 x 224 where the exporter needs the adaptive pool's input
# to be a multiple of its output (AlexNet, VGG).
image, clip, full = (1, 3, 64, 64), (1, 3, 4, 32, 32), (1, 3, 224, 224)
long_clip = (1, 3, 16, 224, 224)
cases = [
    ("alexnet", m.alexnet, full), ("vgg11", m.vgg11, full),
    ("squeezenet1_0", m.squeezenet1_0, image), ("densenet121", m.densenet121, image),
    ("googlenet", lambda: m.googlenet(aux_logits=False, init_weights=True), image),
    ("inception_v3", lambda: m.inception_v3(aux_logits=False, init_weights=True), (1, 3, 96, 96)),
    ("resnet50", m.resnet50, image), ("resnext50_32x4d", m.resnext50_32x4d, image),
    ("shufflenet_v2_x1_0", m.shufflenet_v2_x1_0, image), ("mnasnet0_5", m.mnasnet0_5, image),
    ("mobilenet_v3_small", m.mobilenet_v3_small, image),
    ("regnet_y_400mf", m.regnet_y_400mf, image), ("convnext_tiny", m.convnext_tiny, image),
    ("efficientnet_v2_s", m.efficientnet_v2_s, image),
    ("vit_b_16", lambda: m.vit_b_16(image_size=32), (1, 3, 32, 32)),
    ("swin_t", m.swin_t, image),
    ("fcn_resnet50", lambda: Out(seg.fcn_resnet50(weights_backbone=None, num_classes=3, aux_loss=False)), image),
    ("deeplabv3_mobilenet_v3_large", lambda: Out(seg.deeplabv3_mobilenet_v3_large(weights_backbone=None, num_classes=3, aux_loss=False)), image),
    ("lraspp_mobilenet_v3_large", lambda: Out(seg.lraspp_mobilenet_v3_large(weights_backbone=None, num_classes=3)), image),
    ("r3d_18", m.video.r3d_18, clip), ("mc3_18", m.video.mc3_18, clip),
    ("r2plus1d_18", m.video.r2plus1d_18, clip), ("s3d", m.video.s3d, long_clip),
    ("mvit_v1_b", m.video.mvit_v1_b, long_clip),
]
for name, make, shape in cases:
    try:
        torch.manual_seed(1)
        model = make().eval()
        torch.onnx.export(model, (torch.rand(shape),), f"{out}/{name}.onnx", opset_version=17,
                          do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
        print(f"exported {name}", flush=True)
    except Exception as e:  # PyTorch's exporter refused it
        print(f"export failed {name}: {str(e).splitlines()[0][:160]}", flush=True)
PY
ok=0 refused=0 unexported=0 total=0
while read -r line; do
  total=$((total + 1))
  if [[ "$line" == "export failed "* ]]; then
    unexported=$((unexported + 1))
    echo "${line#export failed }"
    continue
  fi
  name=${line#exported }
  model="$scratch/$name.onnx"
  if out=$("$planner" simulate "$model" configs/k40-paper-2gpu.yaml 2>&1); then
    ok=$((ok + 1))
    echo "$name: ok, $(grep -m1 '^simulated step time' <<<"$out")"
  else
    refused=$((refused + 1))
    echo "$name: $(tail -1 <<<"$out")"
  fi
done <"$scratch/exports.txt"
echo "torchvision models: $ok of $total imported and simulated, $refused refused by the planner, $unexported not exported by PyTorch"
