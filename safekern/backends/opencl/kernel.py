"""A kernel of a checked program: a real `pyopencl.Kernel` (a subclass) whose hidden arguments
are bound at fixed trailing indices.

The rewritten kernel takes the user's parameters, then `__sk_fb` (the failure buffer) at index
n_user and one `long` size per pointer parameter after it (frontend/c/opencl.py). PyOpenCL's
own machinery sets the user's arguments: its generated invokers (`knl(queue, ...)`, `set_args`,
after `set_scalar_arg_dtypes` too) call `self._set_arg_multi`, `self._set_arg_buf_multi` and
`self._set_arg_buf_pack_multi` with the OpenCL argument indices, and this class overrides those
three (and `set_arg`) to set, with each pointer argument, the size of the memory behind it.
`num_args` is the user's count, so PyOpenCL's invokers check and generate for the user's
parameters. The failure buffer is bound before each launch (it is per device).

Every argument set is also recorded by index: the overlap check (races.md) reads the buffers,
launch variants (c_launch.py) read the scalars and get the same arguments replayed. A kernel
with launch variants or plain launches sets a launch's arguments on the kernel that launch runs
only, just before it runs, and there only those that changed since that kernel last ran
(arguments.py); `set_arg`/`set_args` outside a launch set them on this kernel at once, as
PyOpenCL does, for `enqueue_nd_range_kernel`. A NumPy scalar is set through
`_set_arg_buf_multi`, which takes its bytes as PyOpenCL's `_set_arg_multi` ends up doing after
five failed casts.

The host path of a launch repeats little: an argument passed again at its index (the same
buffer, the same NumPy scalar) is not looked at again (`_passed`), the overlap check is skipped for the objects of the last launch it found disjoint, the launch
predicates are memoised on what they read (c_launch.py).
"""
from __future__ import annotations

import operator
import threading
import weakref

import numpy as np
import pyopencl as cl
import pyopencl._cl as _cl
import pyopencl.array as cla

from ... import config, runtime
from ...errors import user_boundary
from ..c_launch import CLaunchVariants, opencl_geometry, plain_launch
from . import build as backend
from .arguments import HANDLES, SVM_POINTER, ArgumentLedger
from .registry import checked_program_of

_BASE = _cl.Kernel
_LONG = np.dtype(np.int64).char.encode()     # PyOpenCL's pack character of a 64-bit long
_PACKED: dict = {}                           # pack character -> its NumPy scalar type
# NumPy scalars whose bytes are fixed (not np.void: a structured array's element is a view)
_SCALARS = frozenset(np.dtype(c).type for c in "?bBhHiIlLqQefdFDg")
_UNSET = object()
#: int_ptr -> the checked kernel of that handle (Kernel.from_int_ptr)
_by_handle: "weakref.WeakValueDictionary[int, Kernel]" = weakref.WeakValueDictionary()
#: PyOpenCL < 2024.2 is built with pybind11, whose kernels keep their attributes in a __dict__
#: of pybind11's own. A Python subclass that adds a __dict__ of its own has it visited twice
#: by the collector (pybind11's traversal and CPython's find the same one), so a reference
#: cycle through such a kernel is never freed: with it the kernel's program and context (a
#: context per dropped program: tests/opencl/test_failure_sources_released.py, the oldest
#: versions' CI). Kernel then declares empty __slots__ and keeps pybind11's dictionary.
CYCLES_LEAK = type(_cl.Kernel).__name__ == "pybind11_type"


class Kernel(_cl.Kernel):
    """A kernel of a checked program, called exactly like a pyopencl.Kernel (it is one).

    `Kernel(program, name)` of a program safekern did not build gives PyOpenCL's own kernel."""

    if CYCLES_LEAK:
        __slots__ = ()          # (no second __dict__: see CYCLES_LEAK)

    def __new__(cls, program, name):
        if checked_program_of(program) is None:
            return _BASE(program, name)
        return super().__new__(cls, program, name)

    def __init__(self, program, name):
        owner = checked_program_of(program)
        built = owner._require_built()
        rewritten = built.rewritten
        info = rewritten.kernel(name) if rewritten is not None else None
        # Set before PyOpenCL's __init__: PyOpenCL < 2025 makes its generic invoker there,
        # for `num_args` arguments.
        self._sk_owner = owner
        self._function_name = name
        self._info = info
        if info is not None:
            self._n_user = info.n_user_args
        super().__init__(owner._get_prg(), name)
        n = self.num_args if info is None else info.n_user_args
        self._n_user = n
        _by_handle[self.int_ptr] = self
        #: pointer parameter index -> (hidden size index, parameter name)
        self._pointer_slots = {p.index: (n + 1 + k, p.name)
                               for k, p in enumerate(info.pointer_params)} if info else {}
        self._values: dict = {}       # argument index -> the object set (buffers, scalars)
        # argument index -> the object `_set_arg_multi` set last there, where its bytes and
        # size are fixed (arguments.py): passed again, it changes nothing
        self._passed: dict = {}
        self._args = ArgumentLedger()     # what is set, and on which kernel (module doc)
        self._args.watch(self)
        # the pointer parameters' sizes, in parameter order (the launch predicates' `nb`)
        self._nb = [0] * len(self._pointer_slots)
        self._nb_pos = {i: k for k, i in enumerate(sorted(self._pointer_slots))}
        self._disjoint = None         # the arguments of the last launch found disjoint
        self._fb_source = None        # the failure source whose buffer is bound
        self._fb_queue = None         # the queue it was looked up for
        self._arg_types = None
        self._vector_args = ()        # positions of VectorArg types (set_scalar_arg_dtypes)
        # buffer arguments that share memory (races.md); one check per kernel of the program
        # (its warning is given once), however often the kernel is retrieved
        self._overlap = owner._overlap_check(name, info) if info is not None else None
        self._overlap_positions = self._overlap.positions if self._overlap is not None else ()
        self._lock = threading.Lock()   # one thread's arguments and launch at a time
        self._launch = None           # CLaunchVariants, made at the first launch (or False)
        self._plain = None            # c_launch.PlainLaunch, made with _launch (or None)
        self._variant_kernels: list = []
        self._plain_kernels: list = []    # the user's kernel: the user's arguments only
        # id(kernel) -> the fresh kernel that runs in its place, where it held an SVM pointer
        # that an argument of another kind replaced (arguments.py, `_stand_in`)
        self._stand_ins: dict = {}
        # Launch variants and plain launches: the arguments of a launch are set on the kernel
        # that runs only (module doc)
        self._deferring = False       # a launch's set_args: recorded, set on no kernel yet
        if info is not None and hasattr(_BASE, "_set_enqueue_and_set_args"):
            # PyOpenCL >= 2025 made its generic invoker for every argument of the driver's
            from pyopencl.invoker import generate_enqueue_and_set_args
            self._set_enqueue_and_set_args(*generate_enqueue_and_set_args(
                name, n, n, None, warn_about_arg_count_bug=False,
                work_around_arg_count_bug=False, devs=owner._ctx().devices))

    # -- what PyOpenCL reads -------------------------------------------------------------------
    @property
    def num_args(self) -> int:
        n = self.__dict__.get("_n_user")
        return n if n is not None else _BASE.num_args.__get__(self)

    @property
    def function_name(self) -> str:
        return self._function_name

    @property
    def program(self):
        return self._sk_owner

    @property
    def _source(self):
        """The user's source (PyOpenCL's capture_call reads it)."""
        return self._sk_owner.source_text

    @_source.setter
    def _source(self, value):
        """(PyOpenCL < 2025's __init__ sets it from the raw program: the checked text.)"""

    @property
    def cl_kernel(self):
        """The kernel itself (older safekern versions wrapped one)."""
        return self

    def get_info(self, param):
        if param == cl.kernel_info.NUM_ARGS:
            return self._n_user
        if param == cl.kernel_info.PROGRAM:
            return self._sk_owner
        return _BASE.get_info(self, param)

    def get_arg_info(self, index, param):
        if not 0 <= index < self._n_user:
            raise _invalid_index(self, index, "clGetKernelArgInfo")
        return super().get_arg_info(index, param)

    @staticmethod
    def from_int_ptr(int_ptr_value: int, retain: bool = True):
        """The checked kernel of that handle where safekern made it; PyOpenCL's otherwise."""
        hit = _by_handle.get(int_ptr_value)
        return hit if hit is not None else _BASE.from_int_ptr(int_ptr_value, retain)

    def clone(self):
        return Kernel(self._sk_owner, self.function_name)

    def set_scalar_arg_dtypes(self, arg_types) -> None:
        from pyopencl.tools import VectorArg

        self._arg_types = tuple(arg_types)
        self._vector_args = tuple(i for i, t in enumerate(self._arg_types)
                                  if isinstance(t, VectorArg))
        _BASE.set_scalar_arg_dtypes(self, arg_types)
        swapped = type(self)
        if swapped is not Kernel:
            # PyOpenCL < 2025 gives the kernel a class of its own whose __call__ is the
            # invoker: back to this class, the invoker where PyOpenCL's trampolines call it.
            self.__class__ = Kernel
            self._enqueue, self._set_args = swapped.__call__, swapped.set_args
        elif "set_args" in self.__dict__:     # (its fallback when the class cannot change)
            self._set_args = self.__dict__.pop("set_args")

    set_arg_types = set_scalar_arg_dtypes

    # -- argument setting: PyOpenCL's invokers call these ---------------------------------------
    def _set_arg_multi(self, entries) -> None:
        out, scalars, sizes, fresh = [], [], [], []
        n, passed = self._n_user, self._passed
        for k in range(0, len(entries), 2):
            index, value = entries[k], entries[k + 1]
            if passed.get(index, _UNSET) is value:    # set last here, fixed: nothing new
                continue
            if not 0 <= index < n:
                raise _invalid_index(self, index, "clSetKernelArg")
            if isinstance(value, np.generic):     # its bytes: set_arg_buf (module doc)
                self._values[index] = value
                scalars += (index, value)
            else:
                if SVM_POINTER is not None and isinstance(value, SVM_POINTER) and \
                        not self._args.svm:
                    self._svm_seen()
                out += (index, self._note_object(index, value, sizes))
            if type(value) in _SCALARS or isinstance(value, HANDLES):
                fresh += (index, value)
        if out:
            self._set("_set_arg_multi", out, 2)
        if scalars:
            self._set("_set_arg_buf_multi", scalars, 2)
        if sizes:          # (packed: a NumPy scalar costs PyOpenCL ~10 us to set, this 0.1)
            self._set("_set_arg_buf_pack_multi", sizes, 3)
        for k in range(0, len(fresh), 2):      # (after the setters: they may raise)
            passed[fresh[k]] = fresh[k + 1]

    def set_arg(self, index, value) -> None:
        self._set_arg_multi((index, value))

    def _set_arg_buf_multi(self, entries) -> None:
        for k in range(0, len(entries), 2):
            self._check_index(entries[k])
            self._values[entries[k]] = entries[k + 1]
            self._passed.pop(entries[k], None)
        self._set("_set_arg_buf_multi", list(entries), 2)

    def _set_arg_buf_pack_multi(self, entries) -> None:
        for k in range(0, len(entries), 3):
            index, char, value = entries[k:k + 3]
            self._check_index(index)
            self._passed.pop(index, None)
            kind = _PACKED.get(char)
            if kind is None:
                kind = _PACKED[char] = np.dtype(char.decode()).type
            try:
                self._values[index] = kind(value)
            except (TypeError, ValueError, OverflowError):
                self._values[index] = value
        self._set("_set_arg_buf_pack_multi", list(entries), 3)

    def _check_index(self, index) -> None:
        if not 0 <= index < self._n_user:
            raise _invalid_index(self, index, "clSetKernelArg")

    def _note_object(self, index, value, sizes):
        """Record an object argument; for a pointer parameter, add its size to `sizes`
        (entries of _set_arg_buf_pack_multi)."""
        self._values[index] = value
        slot = self._pointer_slots.get(index)
        if slot is not None:
            size = backend.hidden_size(value, slot[1], self.function_name)
            self._nb[self._nb_pos[index]] = size
            sizes += (slot[0], _LONG, size)
        if isinstance(value, cla.Array):      # safekern's addition: an Array for a buffer
            value = backend.array_argument(value, self._name(index), self.function_name)
        return value

    def _set(self, setter: str, flat: list, width: int) -> None:
        entries = tuple(flat)
        if self._launch is False and self._plain is None and not self._args.svm:
            # no other kernel: no replay
            getattr(_BASE, setter)(self, entries)
            return
        # The variants and the user's kernel get the arguments when they run (_catch_up);
        # this kernel now, unless a launch sets them (the kernel it runs gets them then).
        self._args.record(setter, entries, width)
        if not self._deferring:
            self._args.catch_up(self)

    def _svm_seen(self) -> None:
        """The first SVM pointer: from now on every argument goes through the ledger, which
        notes the kernels given one (arguments.py), and a launch sets the arguments on the
        kernel it runs only (`_stand_in` may pick another). What was set before without the
        ledger is recorded in it: the failure buffer now, the arguments when passed again
        (none skipped as passed already)."""
        self._args.svm = True
        if self._fb_source is not None:
            self._args.record("_set_arg_multi", (self._n_user, self._fb_source.buffer), 2)
        self._passed.clear()

    def _stand_in(self, knl):
        """`knl`, or the kernel that runs in its place: a fresh kernel of the same program
        once `knl` cannot take the recorded arguments (`ArgumentLedger.refuses`: an SVM
        pointer replaced by something else, which NVIDIA's OpenCL refuses to launch)."""
        current = self._stand_ins.get(id(knl), knl)
        if not self._args.refuses(current):
            return current
        if current is not knl:
            self._args.forget(current)        # (dropped below)
        fresh = _BASE(_BASE.get_info(current, cl.kernel_info.PROGRAM), self.function_name)
        self._args.watch(fresh)
        self._stand_ins[id(knl)] = fresh
        return fresh

    def _catch_up(self, knl, user_only: bool = False) -> None:
        """Set on `knl` the arguments it lacks (`user_only`: the user's kernel, which has no
        hidden ones), a call per setter."""
        self._args.catch_up(knl, self._n_user if user_only else None)

    def _name(self, i) -> str:
        if self._info is not None and i < len(self._info.params):
            return self._info.params[i].name
        return f"#{i}"

    # -- launching ------------------------------------------------------------------------------
    @user_boundary          # a RaceError (overlapping arguments) from the user's line
    def __call__(self, queue, global_size, local_size, *args, global_offset=None,
                 wait_for=None, g_times_l=False, allow_empty_ndrange=False):
        if self._info is None:         # SAFEKERN_CHECKS=0: PyOpenCL's launch, sync() finishes
            evt = super().__call__(queue, global_size, local_size, *args,
                                   global_offset=global_offset, wait_for=wait_for,
                                   g_times_l=g_times_l, allow_empty_ndrange=allow_empty_ndrange)
            backend.note_plain_launch(queue)
            return evt
        expected = len(self._arg_types) if self._arg_types is not None else self._n_user
        if len(args) != expected:
            names = ", ".join(p.name for p in self._info.params)
            raise TypeError(f"kernel {self.function_name!r} takes {expected} arguments"
                            f"{' (' + names + ')' if names else ''}, {len(args)} given")
        variants = self._launch if self._launch is not None else self._launch_variants()
        with self._lock:                   # (threads sharing the kernel: set and launch as one)
            evt, source = self._launch_checked(queue, global_size, local_size, args,
                                               global_offset, wait_for, g_times_l,
                                               allow_empty_ndrange, variants)
        self._launched(queue, source)
        return evt

    def _launch_checked(self, queue, global_size, local_size, args, global_offset, wait_for,
                        g_times_l, allow_empty_ndrange, variants):
        source = self._bind_failure_buffer(queue)
        plain = self._plain
        if not variants and self._overlap is None and plain is None and not self._args.svm:
            # PyOpenCL's own invoker sets the arguments (the overrides add the sizes).
            evt = super().__call__(queue, global_size, local_size, *args,
                                   global_offset=global_offset, wait_for=wait_for,
                                   g_times_l=g_times_l, allow_empty_ndrange=allow_empty_ndrange)
        else:
            # With variants or the user's kernel, the arguments are recorded (sizes, scalars
            # for the mask) and set on the kernel that runs only: setting each on every one
            # doubled the host time of a launch, more than hotspot's kernel takes on an H100.
            self._deferring = self._launch is not False or plain is not None or self._args.svm
            try:
                self.set_args(*args)
            finally:
                self._deferring = False
            if self._overlap is not None:
                self._check_overlap()             # before anything runs
            knl = self
            m = 0 if not variants else variants.mask_of(
                self._values, self._nb, opencl_geometry, global_size,
                local_size, global_offset, g_times_l)
            own = None if plain is None else plain.kernel(m, source)
            if own is not None:                   # nothing can fail: the user's own kernel
                knl, source = own, None
            elif m:                               # the checks this launch proves left out
                knl = variants.variant(m) or self
            if self._args.svm:
                knl = self._stand_in(knl)
            self._catch_up(knl, user_only=own is not None)
            evt = _cl.enqueue_nd_range_kernel(queue, knl, global_size, local_size,
                                              global_offset, self._wait_list(wait_for, args),
                                              g_times_l, allow_empty_ndrange)
        return evt, source

    def _wait_list(self, wait_for, args):
        """`wait_for` and, as PyOpenCL's invoker adds them, the events of VectorArg arrays."""
        if not self._vector_args:
            return wait_for
        events = [e for i in self._vector_args for e in args[i].events]
        return [*(wait_for or ()), *events] if events else wait_for

    def _bind_failure_buffer(self, queue):
        source = self._fb_source
        # The queue of the last launch (held: its context, device and so its source stay)
        # has the same source while the registry keeps it.
        if queue is not self._fb_queue or not runtime.is_current("opencl", source.key, source):
            source = backend.failure_source(queue.context, queue.device)
            self._fb_queue = queue
        if source is not self._fb_source:
            self._set("_set_arg_multi", [self._n_user, source.buffer], 2)
            self._fb_source = source
        return source

    def _before_enqueue(self, queue):
        """For `pyopencl.enqueue_nd_range_kernel` after set_arg/set_args (hooks.py)."""
        if self._info is None:
            return None
        missing = [self._name(i) for i in range(self._n_user) if i not in self._values]
        if missing:
            raise TypeError(f"kernel {self.function_name!r}: arguments {missing} not set "
                            "(set_args)")
        if self._overlap is not None:
            self._check_overlap()
        source = self._bind_failure_buffer(queue)
        self._catch_up(self)                # (after a launch that ran another kernel)
        return source

    def _launched(self, queue, source) -> None:
        if source is None or not config.get().checks:
            backend.note_plain_launch(queue)
            return
        source.note_queue(queue)
        runtime.after_launch(source)

    def _check_overlap(self) -> None:
        """The overlap check of this launch's buffers; none for the objects of the last launch
        found disjoint (an object's memory is fixed: build.memory_span)."""
        now = tuple(map(self._values.get, self._overlap_positions))
        last = self._disjoint
        if last is not None and all(map(operator.is_, now, last)):
            return
        self._disjoint = None
        if self._overlap.check([backend.memory_span(v) for v in now]):
            self._disjoint = now

    # -- launch variants -------------------------------------------------------------------------
    def _launch_variants(self):
        """The kernel's launch variants (None: it has no launch predicates, or
        SAFEKERN_LAUNCH_PREDICATES=0)."""
        if self._launch is None:
            info = self._info
            self._launch = False
            settings = config.get()
            if info is not None and info.launch and settings.launch_predicates and \
                    settings.checks:
                self._launch = CLaunchVariants(info.launch, self._make_variant,
                                               python_int=False)
            built = self._sk_owner._require_built()
            if info is not None and settings.checks and self._sk_owner._variants_ok and \
                    built.rewritten is not None:
                self._plain = plain_launch(info, built.rewritten.state, self._launch or None,
                                           self._make_plain, settings)
        return self._launch or None

    def _make_plain(self):
        """The user's own kernel (a program built from the unmodified source), with the
        user's arguments set so far."""
        knl = _BASE(self._sk_owner._variant(frozenset(), checks=False).program._get_prg(),
                    self.function_name)
        self._plain_kernels.append(knl)
        self._args.watch(knl)
        self._catch_up(knl, user_only=True)
        return knl

    def _make_variant(self, codes):
        knl = _BASE(self._sk_owner._variant(codes).program._get_prg(), self.function_name)
        self._variant_kernels.append(knl)
        self._args.watch(knl)
        self._catch_up(knl)                 # the arguments set so far
        return knl

    def _scalar_args(self) -> list:
        return [self._values.get(i) for i in range(self._n_user)]

    def _size_args(self) -> tuple:
        return tuple(self._nb)

    def _size_value(self, arg, i):
        """The size argument for `arg` given for pointer parameter `i` (tests' launch probes)."""
        return np.int64(backend.hidden_size(arg, self._name(i), self.function_name))

    def __repr__(self) -> str:
        return f"<safekern.opencl.Kernel {self.function_name!r} of {self._sk_owner.filename}>"


def _invalid_index(kernel, index, routine):
    """PyOpenCL's error for an argument index past the user's arguments."""
    return cl.LogicError(_cl._ErrorRecord(
        msg=f"kernel {kernel.function_name!r} has "
            f"{kernel.num_args} arguments; no argument {index}",
        code=cl.status_code.INVALID_ARG_INDEX, routine=routine))


__all__ = ["Kernel", "CYCLES_LEAK"]
