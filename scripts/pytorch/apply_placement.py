#!/usr/bin/python3
"""Applies a placement per PyTorch module (`planner search|baseline
--export-modules FILE`) to a model, in plain PyTorch.

    from apply_placement import apply_placement
    apply_placement(model, "resnet18.modules.yaml")
    y = model(x)        # x on the device of the first module

Each listed module moves to its device (Module.to). A forward pre-hook moves
its inputs there, and a forward hook moves its output to the device of the
enclosing module's own ops (a residual add, a concatenation), so every op of
the original forward finds its operands on one device. `device_map` renames
devices ({"cuda:1": "cuda:0"} to try a placement on fewer GPUs).

Run as a script, it checks a placement on a model exported by
export_models.py: python3 apply_placement.py MODEL_NAME MODULES.yaml
"""
import sys

import torch
import yaml


def _move(value, device):
    if torch.is_tensor(value):
        return value.to(device)
    if isinstance(value, (tuple, list)):
        return type(value)(_move(v, device) for v in value)
    return value


def apply_placement(model, path, device_map=None):
    device_map = device_map or {}
    with open(path) as f:
        placement = yaml.safe_load(f)
    for m in placement["modules"]:
        module = model.get_submodule(m["module"])
        device = device_map.get(m["torch"], m["torch"])
        output = device_map.get(m["output"], m["output"])
        module.to(device)
        module.register_forward_pre_hook(lambda mod, args, d=device: _move(args, d))
        module.register_forward_hook(lambda mod, args, out, d=output: _move(out, d))
    return placement


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: apply_placement.py MODEL_NAME MODULES.yaml")
    import export_models
    name, path = sys.argv[1], sys.argv[2]
    make, inputs_of, _ = export_models.MODELS[name]
    torch.manual_seed(1)
    model = make()
    inputs = inputs_of()
    export_models.prepare(model, inputs)
    # GPUs this machine lacks stand in as the CPU, so the hooks still run.
    with open(path) as f:
        named = {d for m in yaml.safe_load(f)["modules"] for d in (m["torch"], m["output"])}
    missing = {d: "cpu" for d in named
               if d.startswith("cuda") and int(d.split(":")[1]) >= torch.cuda.device_count()}
    if missing:
        print(f"{name}: {', '.join(sorted(missing))} not on this machine: run on the CPU")
    with torch.no_grad():
        expected = model(*inputs)
        placement = apply_placement(model, path, missing)
        got = model(*inputs)
    err = (got.cpu() - expected).abs().max().item()
    print(f"{name}: {len(placement['modules'])} modules placed, max |placed - unplaced| = {err:.3g}")
    if err > 1e-5:
        sys.exit(1)


if __name__ == "__main__":
    main()
