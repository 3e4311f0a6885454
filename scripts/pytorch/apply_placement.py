#!/usr/bin/python3
"""Applies a placement per PyTorch module (`planner search|baseline
--export-modules FILE`) to a model, in plain PyTorch.

    from apply_placement import apply_placement
    apply_placement(model, "resnet18.modules.yaml")
    y = model(x)        # x on the device of the first module

Each listed module moves to its device (Module.to), the model itself (module
"") first. Its forward moves its inputs there, and its output to the device of
the enclosing module's own ops where one of them reads it (a residual add, a
concatenation), so every op of the original forward finds its operands on one
device. `device_map` renames
devices ({"cuda:1": "cuda:0"} to try a placement on fewer GPUs).

Run as a script, it checks a placement on a model exported by
export_models.py: python3 apply_placement.py MODEL_NAME MODULES.yaml. The
placed model's output must equal the unplaced one's, and every op must find its
operands on one device. Where this machine lacks a GPU the file names, each
tensor stays on the CPU and carries the device it would be on instead, and an
op whose operands carry two raises, as PyTorch would on the real devices.
"""
import sys

import torch
import yaml
from torch.utils._pytree import tree_flatten


def _move(value, device):
    if torch.is_tensor(value):
        return value.to(device)
    if isinstance(value, (tuple, list)):
        return type(value)(_move(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _move(v, device) for k, v in value.items()}
    return value


def _place(module, device, output):
    """Wraps module.forward: its arguments, keyword ones too (an attention
    mask), move to `device`, its output to `output`. A forward pre-hook would
    miss the keyword arguments in PyTorch before 2.0."""
    forward = module.forward

    def placed(*args, **kwargs):
        return _move(forward(*_move(args, device), **_move(kwargs, device)), output)

    module.forward = placed


def apply_placement(model, path, device_map=None):
    device_map = device_map or {}
    with open(path) as f:
        placement = yaml.safe_load(f)
    for m in placement["modules"]:
        module = model.get_submodule(m["module"])  # "" is the model itself
        device = device_map.get(m["torch"], m["torch"])
        module.to(device)
        _place(module, device, device_map.get(m["output"], m["output"]))
    return placement


class _OnDevice(torch.Tensor):
    """A CPU tensor standing for one on `self.device_tag` ("cuda:1"): an op whose
    operands (these tensors, and parameters tagged by _tag_to) stand for two
    devices raises, as PyTorch does on real ones; its outputs stand for the one."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        flat, _ = tree_flatten((args, kwargs))
        tags = {t.device_tag for t in flat
                if torch.is_tensor(t) and getattr(t, "device_tag", None)}
        if len(tags) > 1:
            raise RuntimeError(f"{getattr(func, '__name__', func)}: operands on "
                               f"{', '.join(sorted(tags))}")
        out = super().__torch_function__(func, types, args, kwargs)
        if tags:
            tag = tags.pop()
            for t in tree_flatten(out)[0]:
                if isinstance(t, _OnDevice):
                    t.device_tag = tag
        return out


def _tag_move(value, device):
    if torch.is_tensor(value):
        tagged = value.as_subclass(_OnDevice)
        tagged.device_tag = device
        return tagged
    if isinstance(value, (tuple, list)):
        return type(value)(_tag_move(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _tag_move(v, device) for k, v in value.items()}
    return value


def _tag_to(module, device):
    for t in list(module.parameters()) + list(module.buffers()):
        t.device_tag = device
    return module


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
    with open(path) as f:
        named = {d for m in yaml.safe_load(f)["modules"] for d in (m["torch"], m["output"])}
    missing = sorted(d for d in named
                     if d.startswith("cuda") and int(d.split(":")[1]) >= torch.cuda.device_count())
    global _move
    if missing:
        print(f"{name}: {', '.join(missing)} not on this machine: each tensor stays on the CPU "
              "tagged with its device")
        _move, torch.nn.Module.to = _tag_move, _tag_to
        _tag_to(model, "cpu")
        inputs = _tag_move(inputs, "cpu")
    # Gradients on, as in training: nn.TransformerEncoderLayer's inference fast
    # path (one fused op over all its parameters) is not what was exported.
    expected = model(*inputs).detach()
    placement = apply_placement(model, path)
    try:
        got = model(*inputs).detach()
    except RuntimeError as e:
        sys.exit(f"{name}: the placed forward fails: {str(e).splitlines()[0]}")
    plain = [t.as_subclass(torch.Tensor).cpu() for t in (got, expected)]  # tags dropped
    err = (plain[0] - plain[1]).abs().max().item()
    print(f"{name}: {len(placement['modules'])} modules placed, max |placed - unplaced| = {err:.3g}")
    if err > 1e-5:
        sys.exit(1)


if __name__ == "__main__":
    main()
