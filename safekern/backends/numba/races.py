"""Races through global memory, decided at a launch from the race summary and the arguments.

The front end summarises each array parameter's accesses (frontend/python/races.py); here, with the
launch's shapes, scalars and geometry and the arguments' memory, each pair of a write and
another access to the same memory is *proven* to conflict (two distinct threads touch one
element, both accesses certainly run and are in bounds), proven *free*, or *maybe*.

Whether two accesses can meet -- in one element, from two distinct threads, unordered by the
kernel's barriers and grid syncs -- is race_pairs.py's question (shifts, reflections, barrier
phases); here are the arguments' memory, the pairs to ask about, the memo and the verdicts.

Verdicts: a proven conflict raises RaceError at the launch (nothing runs). Arguments that share
memory where neither is proven give one RaceWarning per kernel and pair (SAFEKERN_RACES=error:
a RaceError). An in-place parameter whose conflict is only possible stays silent (its
check_report() entry says "may race").
"""
from __future__ import annotations

import linecache
import threading
import warnings
import weakref
from dataclasses import dataclass

import numpy as np

from ... import config
from ..._stack import user_stacklevel
from ...errors import RaceError, RaceWarning
from ...memo import BoundedMemo
from ...report import ReportEntry, Status
from .race_pairs import FREE, MAYBE, PROVEN, PROVEN_ACROSS_BLOCKS, Launch, pair_verdict

_MEMO_SIZE = 256


@dataclass(frozen=True, eq=False)      # compared and hashed by identity: a memo key
class Memory:
    """Where an array argument lives: device memory or a host array (copied by the launch)."""

    device: bool
    ptr: int
    lo: int
    hi: int                 # [lo, hi): every byte an element of it occupies
    shape: tuple
    strides: tuple          # bytes
    itemsize: int


# id(array) -> (weak reference, Memory): arrays need not be hashable (the simulator's are not);
# the weak reference tells a live entry from a reused id, and its callback drops the entry.
_memory_cache: dict = {}
_SCALARS = (int, float, complex, bool, np.number, np.bool_, type(None))


_ATTR = "_safekern_memory"     # where an array object keeps its Memory (its layout is fixed)
_INTEGERS = frozenset({int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                       np.uint32, np.uint64})
_NOT_MEMORY = frozenset({float, bool, complex, type(None), np.float16, np.float32, np.float64,
                         np.complex64, np.complex128, np.bool_})
_NO_ATTR: set = set()          # classes whose instances take no attribute (NumPy arrays)


def memory_of(arg) -> Memory | None:
    """The memory of an array argument (numba device array, simulator array, CUDA array
    interface, NumPy array), or None for anything else. Kept on the array object where it
    takes an attribute (numba's and the simulator's arrays: one attribute read per launch),
    else in a table by identity, guarded by a weak reference."""
    if isinstance(arg, _SCALARS):
        return None
    memory = getattr(arg, _ATTR, None) if arg.__class__ not in _NO_ATTR else None
    if memory is not None:
        return memory
    key = id(arg)
    hit = _memory_cache.get(key)
    if hit is not None and hit[0]() is arg:
        return hit[1]
    memory = _describe(arg)
    if memory is None:
        return None
    try:
        object.__setattr__(arg, _ATTR, memory)
        return memory
    except (AttributeError, TypeError):
        _NO_ATTR.add(arg.__class__)
    try:
        ref = weakref.ref(arg, lambda _, key=key: _memory_cache.pop(key, None))
    except TypeError:           # not weakly referenceable: described at every launch
        return memory
    _memory_cache[key] = (ref, memory)
    return memory


def _describe(arg) -> Memory | None:
    host = getattr(arg, "_ary", None)           # the simulator's arrays wrap a NumPy array
    if isinstance(host, np.ndarray):
        memory = _from_interface(host.__array_interface__, host.itemsize, device=True)
    elif isinstance(arg, np.ndarray):
        memory = _from_interface(arg.__array_interface__, arg.itemsize, device=False)
    elif hasattr(arg, "__cuda_array_interface__"):
        cai = arg.__cuda_array_interface__
        memory = _from_interface(cai, np.dtype(cai["typestr"]).itemsize, device=True)
    else:
        return None
    return memory


def _from_interface(face, itemsize, *, device) -> Memory:
    shape = tuple(face["shape"])
    strides = face.get("strides")
    if strides is None:
        strides, step = [], itemsize
        for n in reversed(shape):
            strides.append(step)
            step *= n
        strides = tuple(reversed(strides))
    ptr = int(face["data"][0] or 0)
    lo = hi = ptr
    if all(shape):
        for n, s in zip(shape, strides):
            if s >= 0:
                hi += (n - 1) * s
            else:
                lo += (n - 1) * s
        hi += itemsize
    return Memory(device, ptr, lo, hi, shape, tuple(strides), itemsize)


@dataclass(frozen=True)
class Finding:
    verdict: str
    write: object                    # Access
    other: object                    # Access
    array: str
    other_array: str
    across_blocks: bool = False      # proven for two threads of different blocks only


class RaceChecker:
    """One kernel's launch-time race check (see the module doc)."""

    def __init__(self, summary, *, kernel: str, filename: str):
        self.summary = summary
        self.kernel = kernel
        self.filename = filename
        self.written = [p for p in summary.params if summary.written(p)]
        self.used = [p for p in summary.params if summary.uses(p)]
        self._warned: set = set()
        self._lock = threading.Lock()
        # launch layout -> findings: the verdict depends only on the geometry, the arguments'
        # memory (Memory objects, by identity, held here so an identity is never reused) and
        # the integer scalars.
        self._memo = BoundedMemo(_MEMO_SIZE)

    @property
    def needed(self) -> bool:
        return bool(self.written)

    def findings(self, args, griddim, blockdim) -> list[Finding]:
        params = self.summary.params
        memories, scalars = {}, {}
        for name, arg in zip(params, args):
            memory = memory_of(arg)
            if memory is not None:
                memories[name] = memory
            elif isinstance(arg, (int, np.integer)) and not isinstance(
                    arg, (bool, np.bool_, np.timedelta64)):   # timedelta64 is an integer class
                scalars[name] = int(arg)
        launch = Launch(griddim, blockdim, memories, scalars)
        out = []
        for name in self.written:
            memory = memories.get(name)
            if memory is None or name in self.summary.opaque or 0 in memory.strides:
                continue
            out += self._pairs(name, name, launch, ((1, 0),), in_place=True)
        for i, p in enumerate(self.used):
            for q in self.used[i + 1:]:
                mp, mq = memories.get(p), memories.get(q)
                if mp is None or mq is None or not (mp.device and mq.device):
                    continue
                if p not in self.written and q not in self.written:
                    continue
                if mp.hi <= mq.lo or mq.hi <= mp.lo:
                    continue                      # disjoint memory
                relation = _relation(mp, mq)
                if relation is None or self.summary.unknown(p) or self.summary.unknown(q):
                    out.append(Finding(MAYBE, None, None, p, q))
                    continue
                out += self._pairs(p, q, launch, relation)
                # the inverse: element_p = sign * (element_q - offset)
                out += self._pairs(q, p, launch, tuple((s, -s * t) for s, t in relation))
        return out

    def _pairs(self, p, q, launch, relation, in_place=False) -> list[Finding]:
        out = []
        accesses_q = self.summary.accesses.get(q, [])
        mp, mq = launch.memories[p], launch.memories[q]
        for w in self.summary.accesses.get(p, []):
            if not w.write:
                continue
            for a in accesses_q:
                if in_place and a is not w and a.write and id(a) < id(w):
                    continue                      # each write-write pair once
                if a is w and w.uniform_value:
                    continue                      # threads storing one value: benign
                verdict = pair_verdict(w, a, launch, mp, mq, relation)
                if verdict == PROVEN_ACROSS_BLOCKS:
                    out.append(Finding(PROVEN, w, a, p, q, across_blocks=True))
                elif verdict != FREE:
                    out.append(Finding(verdict, w, a, p, q))
        return out

    def check(self, args, griddim, blockdim, mode=None) -> None:
        """Raise RaceError for a proven race; warn once for shared memory not proven free.
        `mode`: SAFEKERN_RACES (the dispatcher read the settings already), else read here."""
        if mode is None:
            mode = config.get().races
        if mode == "off" or not self.written:
            return
        key = [griddim, blockdim]
        for arg in args:                 # this runs at every launch: no call on the usual path
            cls = arg.__class__
            if cls in _INTEGERS:
                key.append(arg)
            elif cls in _NOT_MEMORY:
                key.append(None)
            else:
                memory = getattr(arg, _ATTR, None) if cls not in _NO_ATTR else None
                key.append(memory if memory is not None else memory_of(arg))
        key = tuple(key)
        try:
            findings = self._memo.get(key)
        except TypeError:          # an unhashable launch configuration: no memo
            findings, key = None, None
        if findings is None:
            try:
                geometry = _dim3(griddim), _dim3(blockdim)
            except (TypeError, ValueError):
                return             # not a launch configuration: numba's launch says so
            findings = self.findings(args, *geometry)
            if key is not None:
                self._memo.put(key, findings)
        if not findings:
            return
        for f in findings:
            if f.verdict == PROVEN:
                raise self._error(f)
        for f in findings:
            if f.verdict != MAYBE or f.array == f.other_array:
                continue                          # in place, unproven: check_report only
            if mode == "error":
                raise self._error(f, proven=False)
            key = tuple(sorted((f.array, f.other_array)))
            with self._lock:
                if key in self._warned:
                    continue
                self._warned.add(key)
            where = f" (line {f.write.lineno})" if f.write is not None else ""
            warnings.warn(RaceWarning(
                f"safekern: kernel {self.kernel!r}: arguments {f.array!r} and "
                f"{f.other_array!r} share memory and safekern cannot prove that no two threads "
                f"touch one element{where}; the kernel runs"), stacklevel=user_stacklevel())

    def _error(self, f: Finding, proven=True) -> RaceError:
        w, a = f.write, f.other
        message = "" if proven and w is not None else (
            f"arguments {f.array!r} and {f.other_array!r} share memory and safekern cannot "
            "prove the launch race-free (SAFEKERN_RACES=error)")
        line = w.lineno if w is not None else None
        return RaceError(
            message, kernel=self.kernel, filename=self.filename, lineno=line,
            source_line=linecache.getline(self.filename, line) if line else None,
            array=f.array, other=f.other_array, write_line=line,
            read_line=a.lineno if a is not None else None,
            write_text=w.text if w is not None else None,
            other_text=a.text if a is not None else None,
            other_write=bool(a is not None and a.write), across_blocks=f.across_blocks)

    def report(self, function: str) -> list[ReportEntry]:
        """check_report() entries of `function`: the verdict per written parameter that holds
        for any launch."""
        rows = []
        for name in self.written:
            accesses = self.summary.accesses.get(name, [])
            unknown = [a for a in accesses if a.index is None]
            ranged = [a for a in accesses
                      if a.phase[0] != a.phase[1] or a.phase[2] != a.phase[3]]
            # (the row sits at the access it is about -- its line, column and text -- or at the
            # line where the array's use is not modelled)
            at = None
            if name in self.summary.opaque:
                line, why = self.summary.opaque[name]
                status, reason = Status.MAY_RACE, f"its accesses are not known ({why})"
            elif unknown:
                at, status, reason = unknown[0], Status.MAY_RACE, "a data-dependent index"
            elif ranged:
                at, status = ranged[0], Status.MAY_RACE
                reason = ("how many barriers run before it is not known (a barrier in a loop, "
                          "under a condition, syncwarp or in a device function)")
            else:
                at, status = accesses[0], Status.RACE_CHECKED
                reason = "in place: each launch is proven race-free or refused"
            if at is not None:
                line, col, text = at.lineno, at.col, at.text
            else:
                col, text = 0, ""
            rows.append(ReportEntry(function, line, col, text, name, status, reason,
                                    kind="race"))
        return rows


def _relation(mp: Memory, mq: Memory):
    """`element of q = sign * element of p + offset`, as ((sign, offset), ...) per axis (or one
    for all), for the layouts this handles: the same memory; two 1-D views of one buffer with
    one stride (a shift) or opposite strides (one reversed, `a[::-1]`); else None."""
    if 0 in mp.strides or 0 in mq.strides:
        return None              # broadcast layouts: one element at many indices
    if mp.ptr == mq.ptr and mp.strides == mq.strides and mp.itemsize == mq.itemsize:
        return ((1, 0),)
    if len(mp.shape) == len(mq.shape) == 1 and mp.itemsize == mq.itemsize and \
            mp.strides[0] and abs(mp.strides[0]) == abs(mq.strides[0]):
        # ptr_p + e * stride_p = ptr_q + f * stride_q
        step, diff = mp.strides[0], mp.ptr - mq.ptr
        if diff % step == 0:
            return ((1, diff // step),) if mq.strides[0] == step else ((-1, -diff // step),)
    return None


def _dim3(d) -> tuple:
    if isinstance(d, (int, np.integer)):
        return (int(d), 1, 1)
    d = tuple(int(x) for x in d)
    return d + (1,) * (3 - len(d))


__all__ = ["RaceChecker", "memory_of", "pair_verdict", "PROVEN", "FREE", "MAYBE"]
