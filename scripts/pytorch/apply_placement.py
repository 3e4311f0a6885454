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
devices, by PyTorch's names or the planner's ({"cuda:1": "cuda:0"} or {"gpu1":
"cuda:0"}, to try a placement on fewer GPUs). A file that does not fit the model
(a module it lacks, one holding parameters of its own that it does not list) or this
machine (a GPU it lacks), or a device_map key the file does not use, raises
PlacementError in one line naming the file before any module moves.

Run as a script, it checks a placement on a model exported by
export_models.py: python3 apply_placement.py MODEL_NAME MODULES.yaml. The
placed model's output must equal the unplaced one's, and every op must find its
operands on one device. Where this machine lacks a GPU the file names, each
tensor stays on the CPU and carries the device it would be on instead, and an
op whose operands carry two raises, as PyTorch would on the real devices.
"""
import re
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


class PlacementError(ValueError):
    """A module file that does not fit the model or this machine: raised, in
    one line naming the file, before any module moves."""


def _read(path):
    try:
        with open(path) as f:
            placement = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise PlacementError(f"{path}: cannot read it: {str(e).splitlines()[0]}") from None
    if not isinstance(placement, dict) or not isinstance(placement.get("modules"), list):
        raise PlacementError(f"{path}: not a module placement (no 'modules' list; "
                             "planner search|baseline --export-modules writes one)")
    for k, m in enumerate(placement["modules"]):
        if not isinstance(m, dict) or not all(
                isinstance(m.get(key), str) for key in ("module", "device", "torch", "output")):
            raise PlacementError(f"{path}: module entry {k + 1} lacks one of module, device, "
                                 "torch, output (each a string)")
        if not re.fullmatch(r"cpu|cuda(:[0-9]+)?", m["torch"]):
            raise PlacementError(f"{path}: module entry {k + 1} ('{m['module']}'): torch device "
                                 f"'{m['torch']}' is neither cpu nor cuda:N")
    return placement


def _renames(placement, path, device_map):
    """device_map by PyTorch name ("cuda:1") or the planner's ("gpu1") -> by
    PyTorch name; a key the file does not use is an error (a typo)."""
    torch_of = {m["device"]: m["torch"] for m in placement["modules"]}
    used = set(torch_of.values()) | {m["output"] for m in placement["modules"]}
    renames = {}
    for key, to in device_map.items():
        name = torch_of.get(key, key)
        if name not in used:
            raise PlacementError(f"{path}: device_map renames '{key}', which the file does not "
                                 f"use (it uses {', '.join(sorted(used))})")
        renames[name] = to
    return renames


def _check(model, placement, path, renames, check_devices, strict):
    have = dict(model.named_modules())
    listed = [m["module"] for m in placement["modules"]]
    unknown = [n for n in listed if n not in have]
    if unknown:
        raise PlacementError(
            f"{path}: {len(unknown)} of its {len(listed)} modules are not in this model "
            f"({', '.join(repr(n) for n in unknown[:3])}{', ...' if len(unknown) > 3 else ''}): "
            f"it was written for another model (model: {placement.get('model')})")
    # The planner lists every module that holds parameters of its own; one it
    # did not list is another model's (a resnet18 file on resnet34: its extra
    # blocks), which would stay with the nearest listed module above it. Not
    # strict: only a module outside every listed one (the model itself unlisted).
    listed_set = set(listed)
    if strict:
        loose = [n for n, mod in have.items()
                 if any(True for _ in mod.parameters(recurse=False)) and n not in listed_set]
    else:
        covered = lambda n: any(n == m or n.startswith(m + ".") or m == "" for m in listed)
        loose = [n for n, mod in have.items()
                 if any(True for _ in mod.parameters(recurse=False)) and not covered(n)]
    if loose:
        raise PlacementError(
            f"{path}: {len(loose)} modules of this model hold parameters and are not listed "
            f"({', '.join(repr(n) for n in loose[:3])}{', ...' if len(loose) > 3 else ''}): it "
            f"was written for another model (model: {placement.get('model')})"
            + ("; strict=False places each with the nearest listed module above it"
               if strict else ""))
    if not check_devices:
        return
    gpus = torch.cuda.device_count()
    for d in sorted(used_devices(placement, renames)):
        if d.startswith("cuda") and int((d.split(":") + ["0"])[1]) >= gpus:
            to = "cuda:0" if gpus else "cpu"
            raise PlacementError(
                f"{path}: places modules on {d}, and this machine has {gpus} GPU(s): map it to "
                f"a device it has, e.g. device_map={{'{d}': '{to}'}}")


def used_devices(placement, renames=None):
    """The PyTorch devices the file moves modules and outputs to, after renames."""
    renames = renames or {}
    return {renames.get(d, d) for m in placement["modules"] for d in (m["torch"], m["output"])}


def apply_placement(model, path, device_map=None, check_devices=True, strict=True):
    """Moves each listed module of `model` to its device and wraps its forward
    (see the module docstring). Everything is checked first, and a file that
    does not fit raises PlacementError before any module moves: a module name
    this model lacks, a module holding parameters of its own that the file does
    not list (the planner lists every one: a resnet18 file on resnet34 leaves
    its extra blocks out), a device_map key the file does not use, a GPU this
    machine lacks (unless `check_devices` is False, as for the device-tag check
    below). With `strict` False, a module the file does not list goes with the
    nearest listed module above it (for a model exported with some modules
    folded away, a batch norm into its convolution)."""
    placement = _read(path)
    renames = _renames(placement, path, device_map or {})
    _check(model, placement, path, renames, check_devices, strict)
    for m in placement["modules"]:
        module = model.get_submodule(m["module"])  # "" is the model itself
        device = renames.get(m["torch"], m["torch"])
        module.to(device)
        _place(module, device, renames.get(m["output"], m["output"]))
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
    export_models.prepare(model, inputs, name in export_models.TRAIN_MODE)
    try:
        named = used_devices(_read(path))
    except PlacementError as e:
        sys.exit(str(e))
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
    # Every output tensor (a model may return several), tags dropped.
    def outputs():
        return [t.detach().as_subclass(torch.Tensor).cpu()
                for t in tree_flatten(model(*inputs))[0] if torch.is_tensor(t)]

    expected = outputs()
    try:
        placement = apply_placement(model, path, check_devices=not missing)
    except PlacementError as e:
        sys.exit(f"{name}: {e}")
    try:
        got = outputs()
    except RuntimeError as e:
        sys.exit(f"{name}: the placed forward fails: {str(e).splitlines()[0]}")
    err = max((g - e).abs().max().item() for g, e in zip(got, expected))
    print(f"{name}: {len(placement['modules'])} modules placed, max |placed - unplaced| = {err:.3g}")
    if err > 1e-5:
        sys.exit(1)


if __name__ == "__main__":
    main()
