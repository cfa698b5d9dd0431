"""PyTorch's synchronisation points, as safekern sync points (see safekern/sync_points.py).

numba and CuPy kernels run on torch CUDA tensors (through `__cuda_array_interface__`); their
failures must reach a PyTorch user where PyTorch already waits for the device. safekern never
imports torch: backends.watch_libraries (called when numba or CuPy hooks go in) wraps these once
the user has imported it, at the latest when the next checked launch makes a device pending:
- `Tensor.cpu()`, `.item()`, `.tolist()`,          the tensor's device, for a CUDA tensor (on a
  `.numpy(force=True)`, `bool(t)`, `float(t)`,     CPU tensor they do not wait: no check)
  `int(t)`
- `Tensor.to("cpu")`, `.to(device="cpu")`,         the tensor's device, for a blocking copy of a
  `.to(cpu_tensor)`                                 CUDA tensor to the host (non_blocking=True
                                                    does not wait: its synchronize() raises)
- `torch.cuda.synchronize(device=None)`            that device (None: the current one)
- `torch.cuda.Stream.synchronize()` (and every     the stream's device
  stream class: ExternalStream, current_stream())
- `torch.cuda.Event.synchronize()`                 the event's device (not recorded: current)
The methods of `torch.Tensor` come from the C base `torch._C.TensorBase`: the wrappers are set
on the Python class `torch.Tensor` (every tensor and Parameter is one), uninstall deletes them
again. A function bound before the hooks went in (`from torch.cuda import synchronize`) is not
wrapped. CUDA graphs: graphs.py.
"""
from __future__ import annotations

import sys

from ... import sync_points
from ...sync_points import NOT_A_SYNC_POINT, Hook

BACKEND = "torch"
_TENSOR_METHODS = ("cpu", "item", "tolist", "numpy", "__bool__", "__float__", "__int__")


def _index(device) -> int:
    """A CUDA device number from what torch takes for one (None: the current device)."""
    import torch

    if isinstance(device, int):
        return device
    index = None if device is None else torch.device(device).index
    return int(torch.cuda.current_device()) if index is None else int(index)


def _tensor(args, kwargs):
    tensor = args[0]
    return tensor.device.index if tensor.is_cuda else NOT_A_SYNC_POINT


def _to(args, kwargs):
    """Tensor.to(device=None, dtype=None, non_blocking=False, ...), to(dtype, non_blocking,
    ...), to(other, non_blocking, ...): a sync point when a CUDA tensor is copied to the host
    and the copy waits."""
    import torch

    tensor = args[0]
    if not tensor.is_cuda:
        return NOT_A_SYNC_POINT
    dest, flags = kwargs.get("device"), []
    if len(args) > 1:
        first = args[1]
        if isinstance(first, torch.dtype):
            flags = args[2:]
        elif isinstance(first, torch.Tensor):
            dest, flags = first.device, args[2:]
        else:
            dest, flags = first, args[3:]
    non_blocking = kwargs.get("non_blocking", flags[0] if flags else False)
    if dest is None or non_blocking or torch.device(dest).type != "cpu":
        return NOT_A_SYNC_POINT
    return tensor.device.index


def _synchronize(args, kwargs):
    return _index(args[0] if args else kwargs.get("device"))


def _stream(args, kwargs):
    return _index(args[0].device)


def _event(args, kwargs):
    try:
        device = args[0].device         # None until the event is recorded
    except Exception:   # noqa: BLE001 -- a torch without Event.device
        device = None
    return _index(device)


def hooks() -> list[Hook]:
    import torch

    return [*(Hook(torch.Tensor, name, _tensor) for name in _TENSOR_METHODS),
            Hook(torch.Tensor, "to", _to),
            Hook(torch.cuda, "synchronize", _synchronize),
            Hook(torch.cuda.Stream, "synchronize", _stream),
            Hook(torch.cuda.Event, "synchronize", _event)]


def install() -> None:
    """Wrap PyTorch's sync points and hook its CUDA graphs (once)."""
    from . import graphs

    if not sync_points.is_installed(BACKEND):
        sync_points.install(BACKEND, hooks())
    graphs.install()


def install_if_imported() -> bool:
    """install() if the user has imported torch: True then (with SAFEKERN_SYNC_POINTS=0 the
    sync points stay out; the next watch() tries again)."""
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "Tensor") or not hasattr(torch, "cuda"):
        return False        # not imported (or still importing)
    install()
    return True


__all__ = ["install", "install_if_imported", "hooks", "BACKEND"]
