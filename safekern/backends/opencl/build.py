"""PyOpenCL backend: build checked programs (through the kernel cache), failure buffers, launches.

    built = build_program(ctx, source, filename=..., options=[...], devices=None)
    built.program        # a built pyopencl.Program (of the checked source, or the user's own
                         # with SAFEKERN_CHECKS=0)
    built.rewritten      # frontend.opencl.Rewrite, or None when checks are off
    source = failure_source(ctx, device)     # one failure buffer per context and device
    hidden_size(arg)     # bytes behind a kernel argument for a pointer parameter

PyOpenCL is imported when this module is; the core never imports it. Building a checked
program wraps PyOpenCL's synchronisation calls as sync points (sync.py).
"""
from __future__ import annotations

import os
import shlex
import threading
import warnings
import weakref
from dataclasses import dataclass

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ... import config, runtime
from ..._stack import user_stacklevel
from ...errors import CompilationError, UncheckedWarning
from ...failures import BUFFER_LEN, TABLE
from ...memo import BoundedMemo
from ...frontend.c.buildlog import map_build_log
from ...frontend.c.edits import prelude_lines
from ...frontend.c.line_map import LineMap
from ...frontend.c import opencl as frontend
from ..overlap import strided_extent
from . import macro_sites, sync as opencl_sync


# -- failure buffers, one per (context, device) -------------------------------------------------

class OpenCLFailureSource(runtime.FailureSource):
    def __init__(self, context, device):
        super().__init__()
        before = _references(context)
        # A wrapper of our own (`queue.context` gives a new one on each access), so the
        # references this source holds are exactly the three made here.
        self.context = cl.Context.from_int_ptr(context.int_ptr, retain=True)
        self.device = device
        self.key = (context.int_ptr, device.int_ptr)     # (its key in runtime's registry)
        self.name = f"OpenCL device {device.name!r} ({device.platform.name})"
        self.queue = cl.CommandQueue(self.context, device)
        self.buffer = cl.Buffer(self.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                                hostbuf=np.zeros(BUFFER_LEN, dtype=np.int64))
        # The context's reference count that this source's wrapper, queue and buffer make
        # (as the driver counts them: a queue or buffer may or may not retain its context).
        self.own_references = _references(context) - before
        # Queues that ran checked launches since the last check (held until then: PyOpenCL
        # queues cannot be weakly referenced).
        self._queues: dict[int, object] = {}
        self._lock = threading.Lock()

    def note_queue(self, queue) -> None:
        # (Noted already: the launch, enqueued before this read, is one synchronize() finishes,
        # whether it clears the queues before or after.)
        if self._queues.get(queue.int_ptr) is queue:
            return
        with self._lock:
            self._queues[queue.int_ptr] = queue

    def matches(self, target) -> bool:
        if target is None:
            return True
        if isinstance(target, cl.CommandQueue):
            return target.context == self.context and target.device == self.device
        if isinstance(target, cl.Context):
            return target == self.context
        if isinstance(target, cl.Device):
            return target == self.device
        return False

    def synchronize(self) -> None:
        with self._lock:
            queues = list(self._queues.values())
            self._queues.clear()
        for q in queues:
            q.finish()

    def read(self) -> list[int]:
        host = np.empty(BUFFER_LEN, dtype=np.int64)
        cl.enqueue_copy(self.queue, host, self.buffer, is_blocking=True)
        return [int(v) for v in host]

    def reset(self) -> None:
        cl.enqueue_copy(self.queue, self.buffer, np.zeros(BUFFER_LEN, dtype=np.int64),
                        is_blocking=True)


_plain_queues: dict[int, object] = {}      # SAFEKERN_CHECKS=0: queues to finish at sync()
_plain_lock = threading.Lock()


def _references(context) -> int:
    return context.get_info(cl.context_info.REFERENCE_COUNT)


def _orphaned(source: OpenCLFailureSource) -> bool:
    """Nothing but the source itself refers to its context: the user dropped every queue,
    program, buffer and context object of it (each holds a reference)."""
    try:
        return _references(source.context) <= source.own_references
    except cl.Error:
        return False


def failure_source(context, device) -> OpenCLFailureSource:
    """The failure buffer of a (context, device) pair, from the runtime's one registry. Keyed
    by the handles: a handle the driver reuses for a new context or device gets a new source.

    Making one first forgets the sources of contexts the user has dropped (nothing pending on
    them): a program that makes context after context -- PyOpenCL's own tests, a service --
    would otherwise keep every one alive, with its device memory (NVIDIA's OpenCL then fails
    new contexts with OUT_OF_HOST_MEMORY)."""
    key = (context.int_ptr, device.int_ptr)     # (OpenCLFailureSource.key)

    def make():
        runtime.release_sources("opencl", _orphaned)
        return OpenCLFailureSource(context, device)

    return runtime.failure_source(
        "opencl", key, make,
        current=lambda source: source.context == context and source.device == device)


def note_plain_launch(queue) -> None:
    """A launch of the user's own kernel on `queue` (checks off, or a plain launch):
    safekern.sync() finishes the queue."""
    with _plain_lock:
        _plain_queues[queue.int_ptr] = queue
    if config.get().checks:
        runtime.plain_launched(_plain_sync)


def _plain_sync(target=None) -> None:
    with _plain_lock:
        queues = list(_plain_queues.values())
    for q in queues:
        if target is None or q == target or (isinstance(target, cl.Context)
                                             and q.context == target):
            q.finish()
            with _plain_lock:
                _plain_queues.pop(q.int_ptr, None)
    for source in runtime.failure_sources("opencl"):
        if source.matches(target):
            source.synchronize()


runtime.register_plain_sync(_plain_sync)


# -- hidden sizes ---------------------------------------------------------------------------

def hidden_size(arg, param_name: str, kernel: str) -> int:
    """Bytes a pointer parameter may access, from the argument passed for it."""
    if type(arg) is cl.Buffer:          # (the common case first)
        return arg.size
    if arg is None:
        return 0
    if isinstance(arg, cla.Array):
        return int(arg.nbytes)
    if isinstance(arg, cl.LocalMemory):
        return int(arg.size)
    if isinstance(arg, cl.MemoryObjectHolder):
        return int(arg.size)
    svm_size = getattr(arg, "size", None) if isinstance(arg, cl.SVMPointer) else None
    if svm_size is not None:
        return int(svm_size)
    if isinstance(arg, cl.SVM):
        return int(np.asarray(arg.mem).nbytes)
    raise TypeError(f"kernel {kernel!r}: argument for pointer parameter {param_name!r} must be "
                    "a pyopencl Buffer, pyopencl.array.Array, LocalMemory or SVM pointer, "
                    f"not {type(arg).__name__}")


def array_argument(arg, param_name: str, kernel: str):
    """What PyOpenCL gets for a pyopencl.array.Array: its buffer (a sub-buffer at an offset)."""
    if not arg.offset:
        return arg.base_data
    try:
        return arg.base_data.get_sub_region(arg.offset, arg.nbytes)
    except cl.Error as err:
        raise TypeError(f"kernel {kernel!r}: array for {param_name!r} starts at byte offset "
                        f"{arg.offset} of its buffer, which the device cannot address as a "
                        f"sub-buffer ({err}); pass a copy or a cl.Buffer") from None


# -- where an argument's bytes are (the overlap check, safekern/backends/overlap.py) ---------------

# (cl_mem handle, size) of a buffer -> (handle of the buffer it is a sub-buffer of, or its own;
# its offset there). Keyed on the handle because PyOpenCL's Buffer objects cannot be weakly
# referenced; the size in the key keeps a handle the driver reuses for a buffer of another size
# from inheriting a stale entry.
_buffer_roots = BoundedMemo(4096)
# id(pyopencl.array.Array) -> (weak reference, span): an array's buffer and offset are fixed.
_array_spans = BoundedMemo(4096)


def _buffer_root(ptr: int, size: int, buf) -> tuple[int, int]:
    key = (ptr, size)
    hit = _buffer_roots.get(key)
    if hit is None:
        parent, offset = _parent_of(ptr)
        hit = (parent, offset) if parent else (ptr, 0)
        _buffer_roots.put(key, hit)
    return hit


_CL_MEM_ASSOCIATED_MEMOBJECT = 0x1107
_CL_MEM_OFFSET = 0x1108
_opencl_library = None


def _parent_of(handle: int) -> tuple[int, int]:
    """(the handle of the buffer `handle` is a sub-buffer of, or 0; its offset there), read as
    plain integers with clGetMemObjectInfo. Not through PyOpenCL's get_info, which wraps the
    parent in a new Buffer object: collected later with the user's buffers, its release was the
    likeliest cause of a segmentation fault in NVIDIA's driver during garbage collection."""
    global _opencl_library
    import ctypes

    if _opencl_library is None:
        import glob

        here = os.path.dirname(cl.__file__)
        bundled = sorted(glob.glob(os.path.join(here + ".libs", "libOpenCL*.so*")) +
                         glob.glob(os.path.join(os.path.dirname(here), "pyopencl.libs",
                                                "libOpenCL*.so*")))
        for name in bundled + ["libOpenCL.so.1", "libOpenCL.so"]:
            try:
                _opencl_library = ctypes.CDLL(name)
                break
            except OSError:
                continue
        else:
            _opencl_library = False
    if not _opencl_library:
        return 0, 0
    get = _opencl_library.clGetMemObjectInfo
    parent, offset = ctypes.c_void_p(), ctypes.c_size_t()
    for param, out in ((_CL_MEM_ASSOCIATED_MEMOBJECT, parent), (_CL_MEM_OFFSET, offset)):
        if get(ctypes.c_void_p(handle), ctypes.c_uint(param), ctypes.c_size_t(ctypes.sizeof(out)),
               ctypes.byref(out), None) != 0:
            return 0, 0
    return int(parent.value or 0), int(offset.value)


def memory_span(arg):
    """(root, lo, hi): the global memory a kernel argument reaches, as bytes [lo, hi) of the
    buffer `root` (a cl_mem handle; "svm" for shared virtual memory); None for anything else
    (__local memory, a null pointer, scalars)."""
    if isinstance(arg, cla.Array):
        hit = _array_spans.get(id(arg))
        if hit is not None and hit[0]() is arg:
            return hit[1]
        span = _array_span(arg)
        key = id(arg)
        _array_spans.put(key, (weakref.ref(arg, lambda _, key=key: _array_spans.pop(key, None)),
                               span))
        return span
    if isinstance(arg, cl.Buffer):
        size = arg.size
        root, base = _buffer_root(arg.int_ptr, size, arg)
        return root, base, base + size
    if isinstance(arg, cl.SVMPointer):
        ptr = int(arg.svm_ptr)
        return "svm", ptr, ptr + int(arg.size or 0)
    if isinstance(arg, cl.SVM):
        face = np.asarray(arg.mem).__array_interface__
        ptr = int(face["data"][0])
        return "svm", ptr, ptr + int(np.asarray(arg.mem).nbytes)
    return None


def _array_span(arg):
    data = arg.base_data
    if not isinstance(data, cl.Buffer):
        return memory_span(data) if data is not None else None
    root, base = _buffer_root(data.int_ptr, data.size, data)
    lo, hi = strided_extent(arg.shape, arg.strides, arg.dtype.itemsize)
    start = base + int(arg.offset)
    return root, start + lo, start + hi


# -- building ---------------------------------------------------------------------------------

@dataclass
class BuiltProgram:
    program: object                  # pyopencl.Program, built
    rewritten: frontend.Rewrite | None
    source: str
    filename: str
    options: tuple
    int64_atomics: bool = True
    devices: tuple = ()
    assumed: frozenset = frozenset()     # a launch variant: the checks it leaves out


def normalise_options(options) -> list[str]:
    if options is None:
        return []
    if isinstance(options, str):
        return shlex.split(options)
    return [o.decode() if isinstance(o, bytes) else str(o) for o in options]


def _driver_options(ctx, options: list[str]) -> tuple[bytes, list[str]]:
    """The options PyOpenCL itself would pass (its include path, PYOPENCL_BUILD_OPTIONS)."""
    try:
        opts_bytes, _ = cl.Program._process_build_options(ctx, options)
    except AttributeError:     # an older/newer PyOpenCL without the helper
        opts_bytes = " ".join(shlex.quote(o) for o in options).encode()
    return opts_bytes, shlex.split(opts_bytes.decode("utf-8", "replace"))


def _driver_build(ctx, text: str, opts_bytes: bytes, devices, filename: str, n_prelude: int,
                  user_source: str = ""):
    prg = cl._cl._Program(ctx, text)
    try:
        prg.build(opts_bytes, devices)
    except cl.Error as err:
        raise _build_error(prg, err, ctx, devices, filename, n_prelude,
                           user_source) from None
    return cl.Program(prg)


def _build_error(prg, err, ctx, devices, filename, n_prelude,
                 user_source) -> CompilationError:
    logs = []
    for dev in devices or ctx.devices:
        try:
            text = prg.get_build_info(dev, cl.program_build_info.LOG)
        except cl.Error:
            text = ""
        if text and text.strip():
            logs.append((dev, text))
    if not logs:
        return CompilationError(f"the OpenCL driver failed to build the program: {err}")
    line_map = LineMap.of(user_source, filename)     # (the source's own #line directives)
    mapped, first = map_build_log(logs[0][1], filename, n_prelude, line_map)
    problem = first.message if first is not None else "build failed"
    lineno = first.lineno if first is not None else None
    named = (first.filename if first is not None else None) or filename
    physical = line_map.physical(named, lineno)
    lines = user_source.split("\n")
    source_line = lines[physical - 1] if physical and 0 < physical <= len(lines) else None
    error = CompilationError(
        f"OpenCL build failed: {problem}\n--- build log ({logs[0][0].name}) ---\n"
        f"{mapped.strip()}", filename=named, lineno=lineno, source_line=source_line,
        col=first.col if first is not None and source_line is not None else None)
    error.build_log = mapped
    return error


def _cache_fields(ctx, devices, text: str, options: list[str]) -> dict:
    devs = tuple((d.platform.name, d.platform.version, d.name, d.version, d.driver_version)
                 for d in devices)
    return {"backend": "opencl", "source": text, "options": tuple(options), "devices": devs,
            "pyopencl": cl.VERSION_TEXT, "checks": config.get().checks,
            "env": tuple(config.environ_snapshot().items())}


def _cached_build(ctx, text, options, devices, filename, n_prelude, describe, user_source,
                  assumed=frozenset()):
    """Build `text`, with its binaries kept in safekern's cache (cache.kernels.get_or_build,
    the one build-or-load path: a cached binary the driver refuses is rejected there and the
    program built from source again)."""
    from ...cache.kernels import get_or_build, pack_payload, unpack_payload

    opts_bytes, _ = _driver_options(ctx, options)
    devices = list(devices or ctx.devices)
    fields = _cache_fields(ctx, devices, text, list(options) + [opts_bytes.decode()])
    if assumed:          # a launch variant: the checks it leaves out are part of the key
        fields["launch_subset"] = tuple(sorted(assumed))

    def from_source():
        return _driver_build(ctx, text, opts_bytes, devices, filename, n_prelude, user_source)

    def build():
        prg = from_source()
        binaries = prg.get_info(cl.program_info.BINARIES)
        payload = pack_payload({"devices": [d.name for d in devices],
                                "empty": any(not b for b in binaries)},
                               {f"device{i}": bytes(b) for i, b in enumerate(binaries)})
        return payload, prg           # built already: not loaded again from the payload

    def load(payload):
        info, blobs = unpack_payload(payload)
        if info.get("empty"):
            return from_source()      # the driver gave no binary to keep
        binaries = [blobs[f"device{i}"] for i in range(len(devices))]
        prg = cl._cl._Program(ctx, devices, binaries)
        prg.build(opts_bytes, devices)
        return cl.Program(prg)

    meta = {"backend": "opencl", "device": ", ".join(d.name for d in devices)}
    return get_or_build(fields, build, load, describe=describe, meta=meta,
                        refused=(cl.Error, KeyError, ValueError), uncached=from_source)


def device_caps(devices) -> tuple[bool, bool]:
    """(every device has 64-bit global atomics, every device is little-endian)."""
    int64 = all("cl_khr_int64_base_atomics" in d.extensions.split() for d in devices)
    little = all(bool(d.endian_little) for d in devices)
    return int64, little


def variants_possible(devices) -> bool:
    """Launch variants assume 64-bit size_t (the parse's; work-item arithmetic in a 32-bit
    one could wrap where the predicates say it does not)."""
    return all(int(d.address_bits) == 64 for d in devices)


def rewrite_program(ctx, source: str, *, filename: str, options: list, devices: list,
                    assume=frozenset(), parse_extra=()):
    """(the checked form of `source`, whether every device has 64-bit atomics); the failure
    codes registered. `parse_extra`: options for libclang's parse only (compile()'s headers)."""
    if not assume:       # (a launch variant is built at a launch: the hooks stay as they are)
        opencl_sync.install()
    int64, little = device_caps(devices)
    _, parse_options = _driver_options(ctx, options)
    parse_options = list(parse_options) + list(parse_extra)
    try:
        rewritten = frontend.rewrite(source, filename=filename, options=parse_options,
                                     int64_atomics=int64, little_endian=little,
                                     kernel_asserts=config.get().kernel_asserts,
                                     eliminate=config.get().eliminate,
                                     launch_predicates=config.get().launch_predicates and
                                     not assume and variants_possible(devices),
                                     assume=assume)
    except frontend.ParseError as err:
        # The driver has the last word on the user's own source (and its messages are the
        # ones users know); libclang's is the fallback.
        _driver_build(ctx, source, _driver_options(ctx, options)[0], devices, filename, 0,
                      source)
        raise CompilationError(
            f"safekern's parser (libclang) cannot analyse this program although the OpenCL "
            f"driver builds it: {err.message}", filename=filename, lineno=err.lineno,
            source_line=err.source_line, col=err.col) from None
    # What the program's failure codes mean, for sync() to name them; the rewrite runs (and
    # registers nothing) whether the binary then comes from the cache or the driver.
    if macro_sites.library_program(filename):
        rewritten.failure_sites = macro_sites.at_user_code(source, rewritten.failure_sites)
    TABLE.register_all(rewritten.failure_sites)
    if not assume:
        for function, why in rewritten.unchecked_functions:
            warnings.warn(UncheckedWarning(
                f"safekern: {filename}: '{function}' runs unchecked ({why})"),
                stacklevel=user_stacklevel())
    return rewritten, int64


def build_program(ctx, source: str, *, filename: str, options=None,
                  devices=None, assume=frozenset(), checks: bool | None = None) -> BuiltProgram:
    """Rewrite and build a program (from the kernel cache when it holds it): the one build
    path of every form of it. `assume`: the failure codes of checks a launch variant leaves
    out (their predicates hold); `checks=False` (default: SAFEKERN_CHECKS): the user's own
    program, as plain launches run it (c_launch.PlainLaunch)."""
    options = normalise_options(options)
    devices = list(devices) if devices is not None else list(ctx.devices)
    describe = f"opencl program {filename}"
    if not (config.get().checks if checks is None else checks):
        text = frontend.checks_off_source(source, filename)
        prg = _cached_build(ctx, text, options, devices, filename, prelude_lines(text),
                            describe, source)
        return BuiltProgram(prg, None, source, filename, tuple(options))
    rewritten, int64 = rewrite_program(ctx, source, filename=filename, options=options,
                                       devices=devices, assume=assume)
    n_prelude = prelude_lines(rewritten.source)
    if assume:
        describe += f", launch variant without {len(assume)} check(s)"
    prg = _cached_build(ctx, rewritten.source, options, devices, filename, n_prelude, describe,
                        source, assumed=assume)
    return BuiltProgram(prg, rewritten, source, filename, tuple(options), int64,
                        tuple(devices), frozenset(assume))


__all__ = ["build_program", "rewrite_program", "BuiltProgram", "failure_source",
           "OpenCLFailureSource",
           "hidden_size", "array_argument", "normalise_options", "note_plain_launch",
           "device_caps", "memory_span"]
