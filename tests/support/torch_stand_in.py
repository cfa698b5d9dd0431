"""A stand-in `torch` module with the calls safekern hooks (tests/core/test_torch_sync.py): CI
has no PyTorch, and the hooking logic (which calls wait for the device, which device, what a
graph replay marks) must be tested there too. It mirrors PyTorch's shapes where the hooks depend
on them: tensor methods defined on a C-like base class and inherited by `torch.Tensor`,
`torch.cuda.synchronize` a module function, `Stream`/`Event`/`CUDAGraph` Python classes,
`Tensor.to`'s overloads, `numpy()` of a CUDA tensor refused unless force=True.

`torch.log` records each original call, so a test sees that the original ran before a failure
was raised."""
from __future__ import annotations

import types


def make_torch(device_count: int = 2):
    torch = types.ModuleType("torch")
    torch.log = []
    cuda = types.ModuleType("torch.cuda")
    torch.cuda = cuda
    state = {"current": 0, "capturing": set(), "streams": 100}

    class dtype:
        def __init__(self, name):
            self.name = name

    class device:
        def __init__(self, spec, index=None):
            if isinstance(spec, device):
                spec, index = spec.type, spec.index
            elif isinstance(spec, int):
                spec, index = "cuda", spec
            kind, _, number = str(spec).partition(":")
            if kind not in ("cpu", "cuda"):
                raise RuntimeError(f"Expected one of cpu, cuda device type: {spec}")
            self.type = kind
            self.index = int(number) if number else index

    class TensorBase:                       # torch._C.TensorBase: methods in C
        def __init__(self, values, where="cpu"):
            self.values = list(values)
            self.device = device(where)

        @property
        def is_cuda(self):
            return self.device.type == "cuda"

        def _copy(self, where):
            return Tensor(self.values, where)

        def cpu(self, memory_format=None):
            torch.log.append(("cpu", self.device.type))
            return self._copy("cpu")

        def item(self):
            torch.log.append(("item", self.device.type))
            return self.values[0]

        def tolist(self):
            torch.log.append(("tolist", self.device.type))
            return list(self.values)

        def numpy(self, *, force=False):
            torch.log.append(("numpy", self.device.type))
            if self.is_cuda and not force:
                raise TypeError("can't convert cuda:0 device type tensor to numpy")
            return list(self.values)

        def to(self, *args, **kwargs):
            torch.log.append(("to", self.device.type))
            dest = kwargs.get("device")
            if args and isinstance(args[0], Tensor):
                dest = args[0].device
            elif args and not isinstance(args[0], dtype):
                dest = args[0]
            return self._copy(device(dest)) if dest is not None else self

        def __bool__(self):
            torch.log.append(("bool", self.device.type))
            return bool(self.values[0])

        def __float__(self):
            torch.log.append(("float", self.device.type))
            return float(self.values[0])

        def __int__(self):
            torch.log.append(("int", self.device.type))
            return int(self.values[0])

    class Tensor(TensorBase):               # torch.Tensor: the Python class users get
        pass

    def tensor(values, device="cpu"):
        return Tensor(values, device)

    def _index(dev):
        if dev is None:
            return state["current"]
        index = dev if isinstance(dev, int) else device(dev).index
        return state["current"] if index is None else index

    def synchronize(device=None):
        torch.log.append(("synchronize", _index(device)))

    class Stream:
        def __init__(self, device=None):
            state["streams"] += 1
            self.cuda_stream = state["streams"]
            self.device = torch.device("cuda", _index(device))

        def synchronize(self):
            torch.log.append(("stream.synchronize", self.cuda_stream))

    class ExternalStream(Stream):
        pass

    class Event:
        def __init__(self):
            self.device = None

        def record(self, stream=None):
            self.device = (stream or cuda.current_stream()).device

        def synchronize(self):
            torch.log.append(("event.synchronize", self.device))

    class CUDAGraph:
        def capture_begin(self, pool=None, capture_error_mode="global"):
            state["capturing"].add(cuda.current_stream().cuda_stream)
            torch.log.append(("capture_begin", cuda.current_stream().cuda_stream))

        def capture_end(self):
            state["capturing"].discard(cuda.current_stream().cuda_stream)
            torch.log.append(("capture_end",))
            if state.get("end_error"):          # an invalidated capture ends with an error
                raise state.pop("end_error")

        def replay(self):
            torch.log.append(("replay",))

    def current_stream(device=None):
        return state["stream"]

    def set_stream(stream):
        state["stream"] = stream

    torch.dtype, torch.device, torch.Tensor, torch.tensor = dtype, device, Tensor, tensor
    torch.float32 = dtype("float32")
    torch._C = types.SimpleNamespace(TensorBase=TensorBase)
    cuda.synchronize, cuda.Stream, cuda.ExternalStream = synchronize, Stream, ExternalStream
    cuda.Event, cuda.CUDAGraph = Event, CUDAGraph
    cuda.current_stream, cuda.set_stream = current_stream, set_stream
    cuda.current_device = lambda: state["current"]
    cuda.device_count = lambda: device_count
    cuda.is_initialized = lambda: True
    cuda.is_current_stream_capturing = lambda: state["stream"].cuda_stream in state["capturing"]
    for cls in (dtype, device, TensorBase, Tensor, Stream, ExternalStream, Event, CUDAGraph):
        cls.__qualname__ = cls.__name__                 # as PyTorch's classes are named
        for attr in vars(cls).values():
            if callable(attr) and hasattr(attr, "__qualname__"):
                attr.__qualname__ = f"{cls.__name__}.{attr.__name__}"
    torch._state = state
    state["stream"] = Stream()
    return torch


__all__ = ["make_torch"]
