"""The CuPy backend's parts below the RawKernel/RawModule classes (backends/cupy/api.py):
per-device failure buffers, the hidden size of a pointer argument, compiling with NVRTC through
the kernel cache, and loading a cubin into CuPy.

CuPy is imported when first needed.
"""
from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ... import config, runtime
from ...errors import CompilationError, UnsupportedError
from ...failures import BUFFER_LEN
from ...frontend.c import cuda as frontend
from ..capture import host_work_allowed
from . import nvrtc

log = logging.getLogger("safekern.cupy")

DEFAULT_ARCH = "sm_90"


def _cupy():
    cupy = sys.modules.get("cupy")      # (launches call this: no import statement's cost)
    if cupy is not None:
        return cupy
    try:
        import cupy
    except ImportError as err:
        raise ImportError("safekern.cupy needs CuPy to launch kernels: pip install "
                          "cupy-cuda13x (or the wheel for your CUDA)") from err
    return cupy


# -- pointers the user vouches for --------------------------------------------------------------

class Unchecked:
    """A pointer argument launched without a size: accesses through it are not checked."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"skcp.unchecked({self.value!r})"


def unchecked(ptr) -> Unchecked:
    """Mark a kernel argument (a raw address, or anything) as unchecked: the kernel still
    runs its other checks; accesses through this parameter are not bounded. check_report()
    lists such launches."""
    return ptr if isinstance(ptr, Unchecked) else Unchecked(ptr)


# -- failure buffers, one per device ------------------------------------------------------------

class CupyFailureSource(runtime.FailureSource):
    def __init__(self, device_id: int):
        super().__init__()
        cp = _cupy()
        self.device_id = device_id
        with cp.cuda.Device(device_id):
            props = cp.cuda.runtime.getDeviceProperties(device_id)
            name = props.get("name", b"")
            self.name = f"CUDA device {device_id} " \
                        f"({name.decode() if isinstance(name, bytes) else name})"
            # Zeroed on a stream of its own, with no device-wide synchronize: the first checked
            # launch may come inside a stream capture (backends/capture.py).
            with host_work_allowed():
                side = cp.cuda.Stream(non_blocking=True)
                with side:
                    self.buffer = cp.zeros(BUFFER_LEN, dtype=np.int64)
                side.synchronize()
                del side

    def matches(self, target) -> bool:
        if target is None:
            return True
        cp = _cupy()
        from .sync import stream_class, stream_device

        if isinstance(target, (cp.cuda.Stream, stream_class())):
            return stream_device(target) == self.device_id
        if isinstance(target, cp.cuda.Device):
            return target.id == self.device_id
        if isinstance(target, (int, np.integer)):
            return int(target) == self.device_id
        # numba-cuda's sync points (a CuPy kernel on numba's device arrays): a context, whose
        # device is the one it is on, or a stream, whose context's is
        context = target if hasattr(target, "device") else getattr(target, "context", None)
        device = getattr(getattr(context, "device", None), "id", None)
        return device is not None and int(device) == self.device_id

    def synchronize(self) -> None:
        cp = _cupy()
        cp.cuda.Device(self.device_id).synchronize()

    def read(self) -> list[int]:
        cp = _cupy()
        with cp.cuda.Device(self.device_id):
            return [int(v) for v in self.buffer.get()]

    def reset(self) -> None:
        cp = _cupy()
        with cp.cuda.Device(self.device_id):
            self.buffer.fill(0)
            cp.cuda.Device(self.device_id).synchronize()


def failure_source(device_id: int) -> CupyFailureSource:
    """The failure buffer of a device (made at its first checked launch), from the runtime's
    one registry of failure sources."""
    return runtime.failure_source("cupy", device_id, lambda: CupyFailureSource(device_id))


def _plain_sync(target) -> None:
    """sync()'s wait with checks off: the CuPy stream or device `target`, device number
    `target`, else every device."""
    try:
        import cupy as cp
    except ImportError:
        return
    if isinstance(target, (cp.cuda.Stream, cp.cuda.Device)):
        target.synchronize()
    elif isinstance(target, int):
        cp.cuda.Device(target).synchronize()
    else:
        for dev in range(cp.cuda.runtime.getDeviceCount()):
            cp.cuda.Device(dev).synchronize()


runtime.register_plain_sync(_plain_sync)

_plain_devices: set = set()    # devices that ran a plain launch since sync() last waited there


def _plain_launch_sync(target) -> None:
    """sync()'s wait for plain launches: on the devices that ran one, not on every device
    (a device-wide wait on an idle device still costs host time in the user's sync), or on
    the CuPy stream or device `target`. A device is forgotten before its wait, so that a
    plain launch made meanwhile (another thread) is waited for at the next sync."""
    cp = _cupy()
    if isinstance(target, (cp.cuda.Stream, cp.cuda.Device)):
        target.synchronize()
        return
    for dev in list(_plain_devices):
        if target is None or target == dev:
            _plain_devices.discard(dev)
            cp.cuda.Device(dev).synchronize()
        elif not isinstance(target, int):      # another library's stream, context or device
            cp.cuda.Device(dev).synchronize()


def note_plain_launch(device: int) -> None:
    """A plain launch ran on `device` (c_launch.PlainLaunch): safekern.sync() waits for it."""
    _plain_devices.add(device)
    runtime.plain_launched(_plain_launch_sync)


# -- arguments ----------------------------------------------------------------------------------

def pointer_bytes(arr) -> int:
    """Bytes a kernel may reach from an array's data pointer (its span in memory)."""
    if arr._c_contiguous or arr._f_contiguous:   # (CuPy's flags, without building arr.flags)
        return int(arr.nbytes)
    if arr.size == 0:
        return 0
    if any(s < 0 for s in arr.strides):
        raise ValueError("an array with negative strides reaches memory before its data "
                         "pointer; pass cupy.ascontiguousarray(...) instead")
    return int(sum((n - 1) * s for n, s in zip(arr.shape, arr.strides)) + arr.itemsize)


def hidden_argument(value, param: str, kernel: str, position: int):
    """(the value to pass, its size in bytes, -1 for unchecked) for a pointer parameter."""
    cp = _cupy()
    if isinstance(value, cp.ndarray):
        return value, pointer_bytes(value)
    if isinstance(value, Unchecked):
        return value.value, -1
    if value is None:
        return None, 0
    if isinstance(value, cp.cuda.MemoryPointer):
        mem = value.mem
        return value, max(0, int(mem.size) - (int(value.ptr) - int(mem.ptr)))
    if hasattr(value, "__cuda_array_interface__"):
        arr = cp.asarray(value)
        return arr, pointer_bytes(arr)
    what = type(value).__name__
    hint = ("a raw address has no size" if isinstance(value, (int, np.integer))
            else "it is not a CuPy array")
    if isinstance(value, np.ndarray):
        hint = "it is a NumPy (host) array; copy it to the device with cupy.asarray"
    raise TypeError(f"argument {position} ('{param}') of kernel '{kernel}' is a pointer "
                    f"parameter but got {what} ({hint}); pass a cupy.ndarray, or "
                    f"skcp.unchecked(...) to launch without checking '{param}'")


def memory_span(value, nbytes: int):
    """(0, lo, hi): the device bytes a pointer argument reaches (CUDA's unified addresses make
    one address space of every device), for the overlap check; None for a null pointer or an
    argument launched unchecked (nbytes < 0)."""
    if value is None or nbytes < 0:
        return None
    pointer = value.data if isinstance(value, _cupy().ndarray) or (
        hasattr(value, "data") and hasattr(value, "shape")) else value
    ptr = int(pointer.ptr)
    return 0, ptr, ptr + nbytes


# -- compiling and loading ---------------------------------------------------------------------

def device_arch(device_id: int | None = None) -> tuple[str, bool]:
    """(arch, cubin) for a device: 'sm_90' and True when NVRTC can make a cubin for it; else
    the newest architecture NVRTC knows below it, compiled to PTX for the driver to JIT."""
    cp = _cupy()
    dev = cp.cuda.Device(device_id) if device_id is not None else cp.cuda.Device()
    cc = int(dev.compute_capability)
    supported = nvrtc.supported_archs()
    if cc in supported:
        return f"sm_{cc}", True
    lower = [a for a in supported if a <= cc]
    if not lower:
        raise CompilationError(f"NVRTC {nvrtc.version()} cannot compile for compute "
                               f"capability {cc} (it supports {supported})")
    return f"sm_{max(lower)}", False


def compile_options(options) -> tuple[str, ...]:
    """The options CuPy would use (its include paths, default C++ standard) and -ftz=true
    after the user's, as CuPy appends it; without CuPy, the CUDA headers of the wheels."""
    opts = tuple(options)
    for opt in opts:
        if opt in nvrtc.RELOCATABLE_OPTIONS:
            raise UnsupportedError(f"option {opt!r} makes relocatable device code, which needs "
                                   "a link step safekern does not do")
    try:
        from cupy._core import core as cupy_core

        opts = tuple(cupy_core.assemble_cupy_compiler_options(opts))
    except Exception:      # no CuPy, or a CuPy without the private helper
        if not any("-std=" in o for o in opts):
            opts += ("--std=c++17",)
        opts += tuple(f"-I{d}" for d in nvrtc.include_dirs())
    return nvrtc.strip_arch_options(opts) + ("-ftz=true",)


def parse_include_dirs(options) -> list[str]:
    """Directories libclang searches after safekern's stand-ins: CuPy's headers and the CUDA
    headers, so `#include <cupy/complex.cuh>` parses."""
    dirs = []
    try:
        from cupy._core import core as cupy_core

        # The CCCL (CUB, Thrust, libcu++) CuPy bundles and compiles with comes first, as in
        # CuPy's options: libclang parses the headers the compiler will see.
        dirs += [opt[2:] for opt in cupy_core._get_cccl_include_options()]
        dirs.append(cupy_core._get_header_dir_path())
    except Exception:
        pass
    return dirs + nvrtc.include_dirs()


def _versions() -> dict:
    out = {"nvrtc": ".".join(map(str, nvrtc.version()))}
    try:
        import cupy

        out["cupy"] = cupy.__version__
    except ImportError:
        out["cupy"] = None
    return out


@dataclass
class Binary:
    cubin: bytes
    ptx: bytes
    lowered: dict
    log: str


class Compiled(NamedTuple):
    """What compile_rewrite returns: the Binary, and what its `load` made of it (None
    without one)."""

    binary: Binary
    module: object = None


def compile_rewrite(rw: frontend.Rewrite, *, options, arch: str, cubin: bool,
                    name_expressions, device_fields: dict, log_stream=None, load=None):
    """NVRTC through the kernel cache (a hit compiles nothing): a Compiled, the Binary and
    what `load` (a function of the Binary, e.g. load_module; optional) returns.

    One build-or-load path (cache.kernels.get_or_build): a cached binary that `load` refuses
    (RuntimeError: the driver refused it) is rejected there and built again."""
    from ...cache.kernels import get_or_build, pack_payload, unpack_payload

    fields = {
        "kind": "cupy-rawmodule", "source": rw.source, "filename": rw.filename,
        "options": tuple(options), "name_expressions": tuple(name_expressions), "arch": arch,
        "cubin": cubin, "checks": rw.checked, "includes": rw.includes,
        "env": tuple(config.environ_snapshot().items()), **_versions(), **device_fields,
    }
    if rw.assumed:      # a launch variant: the checks it leaves out are part of the key
        fields["launch_subset"] = tuple(rw.assumed)
    describe = f"cupy module {rw.filename!r} ({', '.join(k.name for k in rw.kernels)})"
    if rw.assumed:
        describe += f", launch variant without {len(rw.assumed)} check(s)"

    def build() -> bytes:
        try:
            out = nvrtc.compile_program(rw.source, filename=rw.filename, arch=arch,
                                        options=options, name_expressions=name_expressions,
                                        cubin=cubin)
        except nvrtc.NvrtcError as err:
            raise nvrtc.to_compilation_error(err, {rw.filename: rw.original},
                                             rewritten=rw.checked) from None
        return pack_payload({"lowered": out.lowered_names, "log": out.log, "arch": arch},
                            {"cubin": out.cubin or b"", "ptx": out.ptx})

    def binary_of(payload) -> Binary:
        meta, blobs = unpack_payload(payload)
        return Binary(blobs.get("cubin", b""), blobs.get("ptx", b""), dict(meta["lowered"]),
                      meta.get("log", ""))

    def load_payload(payload):
        binary = binary_of(payload)
        return binary, (load(binary) if load is not None else None)

    binary, loaded = get_or_build(fields, build, load_payload, describe=describe,
                                  meta={"kernel": describe, "backend": "cupy", "arch": arch},
                                  refused=(RuntimeError,))
    if log_stream is not None and binary.log:
        log_stream.write(binary.log)
    return Compiled(binary, loaded)


def load_module(binary: Binary):
    """A cupy.cuda.function.Module from the cubin (or the PTX, which the driver compiles)."""
    cp = _cupy()
    errors = []
    for image in (binary.cubin, binary.ptx):
        if not image:
            continue
        mod = cp.cuda.function.Module()
        try:
            with host_work_allowed():       # (a first launch inside a stream capture)
                mod.load(bytes(image))
            return mod
        except Exception as err:     # CUDADriverError: the driver refused this image
            errors.append(err)
    raise RuntimeError(f"the CUDA driver refused the compiled module: {errors[-1] if errors else 'no image'}")


def device_fields(device_id: int) -> dict:
    cp = _cupy()
    props = cp.cuda.runtime.getDeviceProperties(device_id)
    name = props.get("name", b"")
    return {"device_name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": str(cp.cuda.Device(device_id).compute_capability),
            "driver": int(cp.cuda.runtime.driverGetVersion())}


__all__ = ["Unchecked", "unchecked", "CupyFailureSource", "failure_source", "pointer_bytes",
           "hidden_argument", "memory_span", "device_arch", "compile_options",
           "compile_rewrite", "load_module",
           "parse_include_dirs", "device_fields", "Binary", "DEFAULT_ARCH"]
