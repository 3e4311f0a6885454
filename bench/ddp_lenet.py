"""PyTorch DDP baseline for bench/trainer_bench: the trainer's LeNet (graph/models.cc:
conv 5x5 SAME 1->6, ReLU, max-pool 2, conv 5x5 VALID 6->16, ReLU, max-pool 2, dense 400->120
ReLU, 120->84 ReLU, 84->10, mean softmax cross-entropy), SGD with momentum, Fashion-MNIST
from Debian's dataset-fashion-mnist, one thread per process, Gloo. Started torchrun-style
(MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE); rank r takes slice r of each global batch,
as `trainer train` does. Rank 0 prints one line: images_per_s=<float> steps=<int> seconds=<float>.

usage: python3 ddp_lenet.py --steps N [--batch B] [--lr LR] [--momentum M] [--data DIR]
"""
import argparse
import gzip
import os
import struct
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return torch.frombuffer(bytearray(data[4 + 4 * ndim:]), dtype=torch.uint8).reshape(dims)


def find(dir_, stem):
    for name in (stem + ".gz", stem):
        if os.path.exists(os.path.join(dir_, name)):
            return os.path.join(dir_, name)
    raise SystemExit(f"ddp_lenet.py: {stem}(.gz) not found in {dir_}")


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.logits = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.logits(F.relu(self.fc2(F.relu(self.fc1(x)))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    torch.set_num_threads(1)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    images = read_idx(find(a.data, "train-images-idx3-ubyte")).float().div_(255).unsqueeze(1)
    labels = read_idx(find(a.data, "train-labels-idx1-ubyte")).long()
    g = torch.Generator().manual_seed(1)
    order = torch.randperm(images.shape[0], generator=g)
    torch.manual_seed(1)
    model = nn.parallel.DistributedDataParallel(LeNet())
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=a.momentum)
    per_epoch = images.shape[0] // (a.batch * world)
    start = time.perf_counter()
    for step in range(a.steps):
        s = step % per_epoch
        idx = order[(s * world + rank) * a.batch:(s * world + rank + 1) * a.batch]
        x, y = images[idx], labels[idx]
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()
    seconds = time.perf_counter() - start
    dist.barrier()
    if rank == 0:
        print(f"images_per_s={a.steps * a.batch * world / seconds:.2f} steps={a.steps} "
              f"seconds={seconds:.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
