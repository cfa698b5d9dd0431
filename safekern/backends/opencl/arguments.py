"""`ArgumentLedger`: the arguments of a checked OpenCL kernel, and which of them each kernel a
launch may run already has.

A launch of a checked kernel runs one of several OpenCL kernels -- the checked one, a launch
variant, the user's own (kernel.py, c_launch.py) -- and the launch's arguments are set on the
one that runs only, just before it runs. clSetKernelArg copies the value into the kernel, which
keeps it until it is set again; so the ledger sets on a kernel only the arguments that differ
from what that kernel was last given. PyOpenCL sets every argument at every call, and a NumPy
scalar costs it five failed casts before it takes the scalar's bytes (wrap_cl.hpp's set_arg:
~20 us on a CPU host, hotspot passes nine), so a launch that repeats its scalars and buffers
sets nothing here.

An argument is what PyOpenCL's setters take: `(index, value)` for `_set_arg_multi` and
`_set_arg_buf_multi`, `(index, typechar, value)` for `_set_arg_buf_pack_multi`. Two are the
same when the kernel would get the same bytes from both: the same object of a type whose bytes
cannot change (a memory object, local memory, an SVM pointer, a number; not an array, whose
contents can), or numbers of one type that compare equal (a float zero only as the same
object: -0.0 == 0.0; a NaN never).

NVIDIA's OpenCL refuses the launch of a kernel (INVALID_KERNEL_ARGS) one of whose arguments held
an SVM pointer and then anything else -- a buffer, even `svm.as_buffer(ctx)`, or NULL -- while an
SVM pointer after a buffer is fine (benchmarks/results/2026-11-29c-device-calls/
svm_switch_probe.py). PyOpenCL's users never meet it where they take a new kernel for each
launch (`prg.twice(...)` makes one each time); safekern keeps one kernel per name and its
variants, so the ledger says which kernel can no longer take the recorded arguments
(`refuses`), and kernel.py runs a fresh one in its place.
"""
from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl._cl as _cl

_BASE = _cl.Kernel
# Types whose equal values have equal bytes.
_EXACT = frozenset([int, bool, bytes, np.bool_, *(np.dtype(c).type for c in "bBhHiIlLqQ")])
# Equal and nonzero: equal bytes (IEEE formats have one encoding per nonzero value).
_FLOATS = frozenset([float, *(np.dtype(c).type for c in "efd")])
# Objects whose argument is a handle or a size that stays theirs (as None: a null pointer).
_SVM = SVM_POINTER = getattr(cl, "SVMPointer", None)
HANDLES = tuple(t for t in (cl.MemoryObjectHolder, cl.LocalMemory, cl.Sampler, _SVM,
                            type(None)) if t is not None)
_FIXED = _EXACT | _FLOATS


def same_value(a, b) -> bool:
    """Whether the kernel gets the same bytes for argument values `a` and `b` (a sure yes)."""
    kind = type(a)
    if a is b:
        return kind in _FIXED or isinstance(a, HANDLES)
    if kind is not type(b):
        return False
    if kind in _EXACT:
        return a == b
    return kind in _FLOATS and a == b and a != 0


def same_entry(a: tuple, b: tuple) -> bool:
    """Two entries of one setter for one index (module doc): the same argument."""
    return same_value(a[-1], b[-1]) and (len(a) == 2 or a[1] == b[1])


class ArgumentLedger:
    """The arguments set on a checked kernel by index (`records`: index -> (setter, entry)),
    and per kernel that may run a launch (`watch`), the records it has."""

    def __init__(self):
        self.records: dict = {}
        self._has: dict = {}          # id(kernel) -> {index: the record it was given}
        self._behind: set = set()     # ids of the kernels that lack a record
        #: an SVM pointer was set through this ledger (module doc; until then nothing is noted)
        self.svm = False
        self._svm_held: dict = {}     # id(kernel) -> indices it was given an SVM pointer at

    def watch(self, knl) -> None:
        """`knl` (kept alive by its owner) gets the arguments from now on (`catch_up`)."""
        self._has.setdefault(id(knl), {})
        self._behind.add(id(knl))

    def record(self, setter: str, entries: tuple, width: int) -> bool:
        """Record the flat `entries` of `setter` (`width` items each); whether any differs
        from the argument recorded for its index."""
        records, changed = self.records, False
        for k in range(0, len(entries), width):
            entry = entries[k:k + width]
            old = records.get(entry[0])
            if old is None or old[0] != setter or not same_entry(old[1], entry):
                records[entry[0]] = (setter, entry)
                changed = True
        if changed:
            self._behind.update(self._has)
        return changed

    def catch_up(self, knl, limit: int | None = None) -> None:
        """Set on `knl` the recorded arguments it lacks (`limit`: those of lower indices only,
        for the user's own kernel, which has no hidden ones), one call per setter."""
        key = id(knl)
        if key not in self._behind:
            return
        has = self._has.setdefault(key, {})
        groups: dict = {}
        for index, rec in self.records.items():
            if has.get(index) is not rec and (limit is None or index < limit):
                groups.setdefault(rec[0], []).append(rec)
        for setter, recs in groups.items():
            getattr(_BASE, setter)(knl, tuple(x for rec in recs for x in rec[1]))
            for rec in recs:
                has[rec[1][0]] = rec
            if self.svm and setter == "_set_arg_multi":
                held = [rec[1][0] for rec in recs if isinstance(rec[1][1], _SVM)]
                if held:
                    self._svm_held.setdefault(key, set()).update(held)
        self._behind.discard(key)

    def refuses(self, knl) -> bool:
        """Whether `knl` held an SVM pointer at an index whose recorded argument is not one
        (module doc: NVIDIA's OpenCL refuses that launch)."""
        held = self._svm_held.get(id(knl))
        if not held:
            return False
        records = self.records
        return not all(i in records and records[i][0] == "_set_arg_multi" and
                       isinstance(records[i][1][1], _SVM) for i in held)

    def forget(self, knl) -> None:
        """`knl` gets nothing more (it is dropped: its id may be another kernel's later)."""
        key = id(knl)
        self._has.pop(key, None)
        self._behind.discard(key)
        self._svm_held.pop(key, None)

    def lags(self, knl) -> bool:
        """Whether `knl` may lack a recorded argument."""
        return id(knl) in self._behind


__all__ = ["ArgumentLedger", "HANDLES", "SVM_POINTER", "same_value", "same_entry"]
