"""PyTorch eager's training step on one of scripts/pytorch/export_models.py's
models, on one thread (or a GPU: --device cuda): the single-device reference
for `planner measure` on the same model's export (eval mode as exported, the
planner's synthetic loss, momentum SGD, one fixed batch). Prints the median
and minimum of the timed steps.

usage: /usr/bin/python3 bench/eager_exported.py MODEL [--batch B] [--steps N] [--device cpu|cuda]
  e.g. python3 scripts/pytorch/export_models.py --batch 8 /tmp/pt8 resnet18
       /usr/bin/python3 bench/eager_exported.py resnet18 --batch 8
       build/planner/planner measure /tmp/pt8/resnet18/model.onnx configs/local-2cpu.yaml --optimizer momentum
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts",
                                "pytorch"))
import export_models  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--batch", type=int, default=export_models.BATCH)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    a = p.parse_args()
    export_models.BATCH = a.batch
    torch.set_num_threads(1)
    make, inputs_of, _ = export_models.MODELS[a.model]
    torch.manual_seed(1)
    model = make()
    inputs = inputs_of()
    export_models.prepare(model, inputs)
    model = model.to(a.device)
    inputs = [x.to(a.device) for x in inputs]
    # A GPU runs kernels asynchronously: a step is over when they have run.
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad(set_to_none=True)
        out = model(*inputs)
        outs = out if isinstance(out, tuple) else (out,)
        sum(y.square().mean() for y in outs).backward()
        opt.step()

    for _ in range(3):
        step()
    sync()
    times = []
    for _ in range(a.steps):
        t = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t)
    times.sort()
    print(f"{a.model} batch {a.batch} on {a.device}, eager step: median {1000 * times[len(times) // 2]:.3f} ms, "
          f"min {1000 * times[0]:.3f} ms over {a.steps} steps")


if __name__ == "__main__":
    main()
