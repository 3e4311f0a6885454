#!/usr/bin/python3
"""Exports PyTorch models to ONNX with the reference values the planner is
checked against (bench/onnx_pytorch_parity.cc).

For each model, in OUT/<model>/:
  model.onnx            torch.onnx.export (eval mode, no constant folding, so
                        initializers keep the module's parameter names)
  input_<i>.pb          the inputs (ONNX TensorProto)
  output_<i>.pb         PyTorch's forward outputs on them
  loss.pb               the loss of one training step: the planner's synthetic
                        loss for graphs without one, sum over outputs of
                        mean(output ** 2) (docs/training.md)
  grads/<k>.pb          d loss / d parameter, named as the ONNX initializer
  meta.txt              opset and learning rate

Needs Debian's python3-torch 1.13, python3-torchvision 0.14 and python3-onnx.
Usage: export_models.py [--batch N] OUT [MODEL...]   (N examples per batch, default 2; --help)
"""
import math
import os
import sys

import onnx
import torch
import torchvision
from onnx import numpy_helper
from torch import nn

torch.manual_seed(0)
LEARNING_RATE = 0.1


class VitTiny(nn.Module):
    """A small vision transformer: conv patches, class token, nn.TransformerEncoder."""

    def __init__(self, side=32, patch=8, width=64, heads=4, layers=2, classes=10):
        super().__init__()
        self.patches = nn.Conv2d(3, width, patch, stride=patch)
        n = (side // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, width) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, width) * 0.02)
        layer = nn.TransformerEncoderLayer(width, heads, 2 * width, dropout=0.1,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        p = self.patches(x).flatten(2).transpose(1, 2)
        p = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], dim=1) + self.pos
        return self.head(self.norm(self.encoder(p))[:, 0])


class LstmLm(nn.Module):
    """An LSTM language model: embedding, 2-layer nn.LSTM, tied-size decoder."""

    def __init__(self, vocab=500, width=64, hidden=96):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, hidden, num_layers=2)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, ids):
        y, _ = self.lstm(self.embed(ids))
        return self.decoder(y)


class GptBlock(nn.Module):
    """A GPT-style decoder: token + position embeddings, one pre-norm block with
    causal nn.MultiheadAttention and a GELU MLP, final LayerNorm, LM head."""

    def __init__(self, vocab=500, steps=16, width=64, heads=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Parameter(torch.randn(1, steps, width) * 0.02)
        self.ln1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))
        self.lnf = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        mask = torch.triu(torch.full((steps, steps), float("-inf")), diagonal=1)
        # Not persistent: exported as a constant, not as a (trainable) initializer.
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, ids):
        x = self.tok(ids) + self.pos
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask, need_weights=False)
        x = x + a
        x = x + self.mlp(self.ln2(x))
        return self.head(self.lnf(x))


class IndexOps(nn.Module):
    """PyTorch's index ops as the exporter writes them: torch.tril of computed
    scores (Trilu), torch.gather of each position's own token's logit
    (GatherElements), and scatter_add pooling positions into buckets by token
    (ScatterElements with reduction "add"), as a mixture-of-experts router
    pools tokens per expert."""

    def __init__(self, vocab=500, width=32, buckets=4):
        super().__init__()
        self.buckets = buckets
        self.embed = nn.Embedding(vocab, width)
        self.query = nn.Linear(width, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        scores = torch.tril(x @ self.query(x).transpose(1, 2))
        h = scores.softmax(-1) @ x
        logits = self.head(h)
        own = torch.gather(logits, 2, ids.unsqueeze(-1))
        bucket = (ids % self.buckets).unsqueeze(-1).expand_as(h)
        pooled = h.new_zeros(h.shape[0], self.buckets, h.shape[2]).scatter_add(1, bucket, h)
        return logits, own, pooled


class Video3d(nn.Module):
    """A small 3-D network (video clips, volumes): a strided stem whose pads are
    not TensorFlow's SAME, max and average pools with padding (counted and not),
    a grouped and a dilated convolution, a residual block, batch norm, a
    ceil_mode pool whose last window runs past the input, and a decoder's
    upsampling: a transposed convolution, trilinear and nearest interpolation."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv3d(3, 16, (3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False),
            nn.BatchNorm3d(16), nn.ReLU())
        self.pool = nn.MaxPool3d(3, stride=2, padding=1)
        self.block = nn.Sequential(
            nn.Conv3d(16, 16, 3, padding=1, groups=4), nn.BatchNorm3d(16), nn.ReLU(),
            nn.Conv3d(16, 16, 3, padding=2, dilation=2))
        self.down = nn.Conv3d(16, 32, 1, stride=2)
        self.avg = nn.AvgPool3d(3, stride=1, padding=1)
        self.avg_real = nn.AvgPool3d(3, stride=1, padding=1, count_include_pad=False)
        self.ceil = nn.MaxPool3d(2, stride=2, ceil_mode=True)
        self.up = nn.ConvTranspose3d(32, 16, 3, stride=2, padding=1, output_padding=1)
        self.mix = nn.Conv3d(32, 16, 1)
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = torch.relu(x + self.block(x))
        x = self.ceil(self.avg_real(self.avg(self.down(x))))
        m = self.mix(x)
        tri = nn.functional.interpolate(m, scale_factor=2, mode="trilinear")
        near = nn.functional.interpolate(m, scale_factor=(1, 2, 2), mode="nearest")
        return self.head(torch.cat([x.mean((2, 3, 4)), (self.up(x) * tri).mean((2, 3, 4)),
                                    near.square().mean((2, 3, 4))], 1))


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return {"out": ...}: its tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def images(batch, side):
    return (torch.rand(batch, 3, side, side) * 2 - 1,)


def tokens(shape, vocab=500):
    return (torch.randint(0, vocab, shape, dtype=torch.int64),)


# Examples per batch (--batch): 2 for the checks, larger for throughput.
BATCH = 2

# name: (constructor, example inputs, opset)
MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(num_classes=10),
                 lambda: images(BATCH, 64), 13),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(num_classes=10),
                     lambda: images(BATCH, 64), 13),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(num_classes=10),
                        lambda: images(BATCH, 64), 13),
    "vit_tiny": (VitTiny, lambda: images(BATCH, 32), 13),
    "lstm_lm": (LstmLm, lambda: tokens((12, BATCH)), 13),
    "gpt_block": (GptBlock, lambda: tokens((BATCH, 16)), 17),
    "index_ops": (IndexOps, lambda: tokens((BATCH, 16)), 17),
    # Shape arithmetic the exporter leaves to run time: Swin pads its windows
    # to a computed multiple (Pad, Mod, a reversed Slice, ScatterND for the
    # shifted-window mask) and LR-ASPP resizes to another tensor's size.
    # Clips of 10 frames of 32x32: the stem's pads and the first pool's are not
    # TensorFlow's SAME there, and the ceil_mode pool pads its odd depth.
    "video3d": (Video3d, lambda: (torch.rand(BATCH, 3, 10, 32, 32) * 2 - 1,), 13),
    # resnet18 as it trains: batch norm by each batch's statistics (exported in
    # train mode, TRAIN_MODE below).
    "resnet18_train": (lambda: torchvision.models.resnet18(num_classes=10),
                       lambda: images(BATCH, 64), 14),
    "swin_t": (lambda: torchvision.models.swin_t(num_classes=10), lambda: images(BATCH, 64), 17),
    "lraspp": (lambda: SegmentationOut(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights_backbone=None, num_classes=3)), lambda: images(BATCH, 64), 17),
}


# Models exported and checked in train mode (the others in eval mode).
TRAIN_MODE = {"resnet18_train"}


def prepare(model, inputs, train=False):
    """Makes the reference numerically meaningful, then puts the model in eval mode
    (train mode where `train`: batch norm by the batch's statistics).

    torch.onnx.export merges initializers of equal value (nn.TransformerEncoder's
    deep-copied layers, LayerNorm's ones), so each parameter gets a small random
    perturbation first. Batch norm's running statistics are set to one batch's
    (momentum None: a cumulative average), so that activations keep their scale
    through deep networks instead of vanishing under the initial statistics.
    """
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.reset_running_stats()
                m.momentum = None
        model.train()
        model(*inputs)
    model.train(train)


def save(tensor, path, name=""):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(tensor.detach().contiguous().numpy(), name).SerializeToString())


def export(name, out_root):
    make, inputs_of, opset = MODELS[name]
    torch.manual_seed(1)
    model = make()
    inputs = inputs_of()
    prepare(model, inputs, name in TRAIN_MODE)
    out = os.path.join(out_root, name)
    os.makedirs(os.path.join(out, "grads"), exist_ok=True)
    path = os.path.join(out, "model.onnx")
    # PRESERVE keeps BatchNormalization apart from the convolutions (EVAL would
    # fold it into their weights, which then lose their names).
    torch.onnx.export(model, inputs, path, opset_version=opset, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=[f"input_{i}" for i in range(len(inputs))])
    initializers = {i.name for i in onnx.load(path).graph.initializer}
    for i, x in enumerate(inputs):
        save(x, os.path.join(out, f"input_{i}.pb"))
    # One training step's loss and gradients (eval mode: batch norm uses its
    # running statistics and dropout is off, as in the exported graph; train
    # mode: the batch's statistics, as in that graph).
    outputs = model(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    loss = sum(y.float().square().mean() for y in outputs)
    loss.backward()
    for i, y in enumerate(outputs):
        save(y, os.path.join(out, f"output_{i}.pb"))
    save(loss, os.path.join(out, "loss.pb"))
    k = 0
    missing = []
    for pname, p in model.named_parameters():
        if p.grad is None:
            continue
        if pname not in initializers:
            missing.append(pname)
            continue
        save(p.grad, os.path.join(out, "grads", f"{k:04d}.pb"), pname)
        k += 1
    with open(os.path.join(out, "meta.txt"), "w") as f:
        f.write(f"opset {opset}\nlearning_rate {LEARNING_RATE}\nparameters {k}\n")
        for m in missing:
            f.write(f"unnamed {m}\n")
    print(f"{name}: opset {opset}, {k} parameters, loss {loss.item():.6g}"
          + (f", {len(missing)} parameters not named in the ONNX file" if missing else ""))


def main():
    global BATCH
    import argparse
    parser = argparse.ArgumentParser(
        prog="export_models.py",
        description="Exports PyTorch models to ONNX as torch.onnx.export writes them, each "
                    "into OUT/NAME/ (model.onnx, its inputs and one SGD step's reference).")
    parser.add_argument("--batch", type=int, default=BATCH, metavar="N",
                        help=f"examples per batch (default {BATCH})")
    parser.add_argument("out", metavar="OUT", help="the folder to write into")
    parser.add_argument("names", metavar="MODEL", nargs="*",
                        help=f"models to export (default all: {', '.join(MODELS)})")
    args = parser.parse_intermixed_args()  # flags anywhere: OUT --batch 4 MODEL
    if args.batch < 1:
        parser.error(f"--batch must be at least 1, not {args.batch}")
    BATCH = args.batch
    for n in args.names:
        if n not in MODELS:
            parser.error(f"unknown model '{n}' (known: {', '.join(MODELS)})")
    for n in args.names or list(MODELS):
        export(n, args.out)


if __name__ == "__main__":
    main()
