"""PyTorch DDP baseline for `build/bench/trainer_bench --exported MODEL`: one of
the PyTorch models of scripts/pytorch/export_models.py, built and prepared as
that script builds and exports it (same seed, eval mode: batch norm with its
running statistics, dropout off, as the exported graph trains), trained
data-parallel with DDP, SGD with momentum, the planner's synthetic loss (the sum
over outputs of mean(output ** 2)), one fixed random batch per rank (as
`trainer train --data synthetic` feeds), one thread per process, Gloo. Started
torchrun-style (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE). Rank 0 prints one
line: images_per_s=<float> steps=<int> seconds=<float>.

usage: python3 ddp_exported.py MODEL --steps N [--batch B] [--lr LR] [--momentum M]
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts",
                                "pytorch"))
import export_models  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--batch", type=int, default=export_models.BATCH,
                   help="examples per batch, as exported (export_models.py --batch)")
    a = p.parse_args()
    export_models.BATCH = a.batch
    torch.set_num_threads(1)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    make, inputs_of, _ = export_models.MODELS[a.model]
    torch.manual_seed(1)
    module = make()
    inputs = inputs_of()
    export_models.prepare(module, inputs)  # ends in eval mode, as exported
    model = nn.parallel.DistributedDataParallel(module)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=a.momentum)
    batch = inputs[0].shape[1 if a.model == "lstm_lm" else 0]
    start = time.perf_counter()
    for _ in range(a.steps):
        opt.zero_grad(set_to_none=True)
        out = model(*inputs)
        outs = out if isinstance(out, tuple) else (out,)
        sum(y.square().mean() for y in outs).backward()
        opt.step()
    seconds = time.perf_counter() - start
    dist.barrier()
    if rank == 0:
        print(f"images_per_s={a.steps * batch * world / seconds:.2f} steps={a.steps} "
              f"seconds={seconds:.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
