# The PyTorch-eager side of bench/cuda_vs_eager.sh: training steps (forward,
# backward, SGD) of torchvision's Inception-V3 without its auxiliary head, batch
# 32, 299x299 random images, 1000 classes, float32 with PyTorch's default TF32
# settings (cuDNN convolutions may use TF32, matrix products do not), as the
# planner's executor runs the zoo's Keras-style Inception-V3 on a cuda device.
# Prints the median, min and max of the timed steps in ms.
# Usage: python3 bench/inception_eager.py [STEPS]
import sys, time, statistics, torch, torchvision
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
torch.manual_seed(0)
m = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False).cuda().train()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x = torch.rand(32, 3, 299, 299, device="cuda")
y = torch.randint(0, 1000, (32,), device="cuda")
lf = torch.nn.CrossEntropyLoss()
def step():
    opt.zero_grad(set_to_none=True)
    lf(m(x), y).backward()
    opt.step()
for _ in range(3): step()
torch.cuda.synchronize()
ts = []
for _ in range(steps):
    t = time.perf_counter(); step(); torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e3)
print(f"eager median {statistics.median(ts):.3f} ms min {min(ts):.3f} max {max(ts):.3f} over {steps} steps")
