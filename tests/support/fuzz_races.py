"""The race analysis against what threads really do: generated kernels, recorded accesses.

Each seed gives a numba kernel over two array parameters `a`, `b` and a scalar `m` -- accesses
indexed by shifts (`a[i + 2]`), reflections (`b[a.shape[0] - 1 - i]`, `a[m - i]`), one element
for everyone (`a[0]`) and strides safekern does not relate (`a[2 * i]`), in 1-D and 2-D (with
transposes), under guards that keep them in bounds -- with `cuda.syncthreads()`,
`syncthreads_count`, `cuda.cg.this_grid().sync()`, a checked device function holding a barrier,
barriers under a uniform condition and in loops; a launch (1 to 3 blocks, `i` from `cuda.grid(1)`,
`threadIdx.x` alone or `threadIdx.x + blockIdx.x * blockDim.x`); and arguments that are
separate arrays, one array twice, shifted views of one buffer or a reversed view.

Ground truth: a twin of the kernel (plain numba, the same control flow) records every access on
the CUDA simulator -- thread, block, barriers and grid syncs passed, the element's offset in the
underlying buffer, read or write -- and two records conflict when they name one element, one
writes, the threads differ, no grid sync lies between them and they are in different blocks or
no barrier lies between them. (The simulator runs blocks one after another, which does not
matter: the records say which phase an access ran in, not when.)

Verdicts (`compare`): safekern's findings for the launch (RaceChecker.findings, what the launch
check raises or warns from) against the ground truth:
- "false positive": a proven race where no two threads conflict -- never allowed;
- "unsound": proven free where two threads conflict -- never allowed;
- "missed": a conflict safekern only suspects; none allowed for the kernels marked `exact`
  (straight-line, barriers unconditional, guards modelled, layouts safekern relates, indices
  with coefficient +-1: shifts and reflections), where the analysis must decide exactly.
"""
from __future__ import annotations

import os
import random
import tempfile
from dataclasses import dataclass

import numpy as np

_COORDS = {"grid": "cuda.grid(1)", "tid": "cuda.threadIdx.x",
           "global": "cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x"}
_COORDS_2D = {"grid": "i, j = cuda.grid(2)",
              "tid": "i = cuda.threadIdx.x\n    j = cuda.threadIdx.y",
              "global": "i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x\n"
                        "    j = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y"}
_LOG_COLUMNS = 6        # thread, block, barriers passed, grid syncs passed, element, write


@dataclass
class RaceCase:
    seed: int
    source: str                 # the module: kernel `k` (safekern) and its recording twin
    griddim: tuple              # three extents each
    blockdim: tuple
    layout: str                 # separate | same | shift | reverse
    shape: tuple                # of a and of b
    offsets: tuple              # a's and b's first element in the buffer (elements)
    m: int
    exact: bool                 # the analysis must decide this one exactly
    accesses: int = 0           # records one thread may make at most: the log's size


class _Gen:
    def __init__(self, rng: random.Random, dims: int):
        self.rng = rng
        self.dims = dims
        self.exact = True
        self.kernel: list = []
        self.twin: list = []
        self.statements = 0

    def axis(self, arr: str, k: int, var: str, write: bool) -> str:
        r = self.rng
        c = 0 if r.random() < 0.4 else r.randint(-2, 2)     # many in-place, race-free kernels
        kinds = ["shift", "shift", "shift", "reflect", "reflect", "scalar", "stride"]
        kind = r.choice(kinds + ([] if write else ["const"]) + (["const"] if k else []))
        if kind == "shift":
            return f"{var} + {c}" if c >= 0 else f"{var} - {-c}"
        if kind == "reflect":
            return f"{arr}.shape[{k}] - 1 - {var}" + (f" + {c}" if c > 0 else
                                                      f" - {-c}" if c else "")
        if kind == "scalar":
            return f"m - {var}"
        if kind == "const":
            return str(abs(c))
        self.exact = False                  # a stride of 2 against 1: not related
        return f"2 * {var} + {abs(c)}"

    def index(self, arr: str, write: bool) -> tuple:
        """One expression per axis; in 2-D sometimes transposed (`a[j, i]`)."""
        names = ["i", "j"][:self.dims]
        if self.dims == 2 and self.rng.random() < 0.25:
            names.reverse()
        return tuple(self.axis(arr, k, v, write) for k, v in enumerate(names))

    def access(self, ind: int) -> None:
        r = self.rng
        x, y = r.choice("ab"), r.choice("ab")
        ew = self.index(x, True)
        # Half the statements update in place (each thread its own element): the conflicts
        # are then across statements, and barriers are what decides them.
        y, er = (x, ew) if r.random() < 0.5 else (y, self.index(y, False))
        read = r.random() < 0.8

        def bounds(arr, e):
            return [f"0 <= {v} < {arr}.shape[{k}]" for k, v in enumerate(e)]
        conds = bounds(x, ew) + (bounds(y, er) if read else [])
        if r.random() < 0.2:
            conds.append("i < m")
        if r.random() < 0.1:
            conds.append("i % 3 != 1")      # not a comparison of linear forms
            self.exact = False
        guard = " and ".join(conds)
        pad = "    " * ind
        value = f"{y}[{', '.join(er)}] + 1.0" if read else "i * 1.0"
        self.kernel += [f"{pad}if {guard}:", f"{pad}    {x}[{', '.join(ew)}] = {value}"]
        rec = [f"{pad}if {guard}:", f"{pad}    s = cuda.atomic.add(cnt, 0, {2 if read else 1})"]

        def element(arr, e):
            return " + ".join([f"OFF_{arr}"] + [f"STEP{k}_{arr} * ({v})" for k, v in enumerate(e)])
        slot = 0
        if read:
            rec.append(f"{pad}    note(log, s, tid, blk, be, ge, {element(y, er)}, 0)")
            slot = 1
        rec.append(f"{pad}    note(log, s + {slot}, tid, blk, be, ge, {element(x, ew)}, 1)")
        self.twin += rec
        self.statements += 4            # two records, at most two loop trips

    def barrier(self, ind: int, kind: str) -> None:
        pad = "    " * ind
        if kind == "sync":
            self.kernel.append(f"{pad}cuda.syncthreads()")
            self.twin += [f"{pad}cuda.syncthreads()", f"{pad}be += 1"]
        elif kind == "grid":
            self.kernel.append(f"{pad}cuda.cg.this_grid().sync()")
            self.twin += [f"{pad}cuda.cg.this_grid().sync()", f"{pad}be += 1", f"{pad}ge += 1"]
        elif kind == "count":               # a barrier that returns a count
            self.kernel.append(f"{pad}c = cuda.syncthreads_count(i < m)")
            self.twin += [f"{pad}c = cuda.syncthreads_count(i < m)", f"{pad}be += 1"]
        elif kind == "helper":              # a checked device function with a barrier
            self.exact = False
            self.kernel.append(f"{pad}block_barrier(0)")
            self.twin += [f"{pad}block_barrier_rec(0)", f"{pad}be += 1"]
        else:                               # under a condition every thread evaluates alike
            self.exact = False
            self.kernel += [f"{pad}if m > 2:", f"{pad}    cuda.syncthreads()"]
            self.twin += [f"{pad}if m > 2:", f"{pad}    cuda.syncthreads()", f"{pad}    be += 1"]

    def body(self, ind: int, n: int, in_loop: bool = False) -> None:
        """n accesses, most of them separated by a barrier (so that the barriers are what
        makes many of the kernels correct), some barriers conditional or in a loop."""
        r = self.rng
        for k in range(n):
            self.access(ind)
            if k == n - 1 and r.random() < 0.7:
                break
            roll = r.random()
            if roll < 0.5:
                self.barrier(ind, "sync")
            elif roll < 0.65:
                self.barrier(ind, "grid")
            elif roll < 0.7:
                self.barrier(ind, r.choice(["count", "helper"]))
            elif roll < 0.78:
                self.barrier(ind, "cond")
            elif roll < 0.88 and not in_loop:
                self.exact = False
                pad = "    " * ind
                self.kernel.append(f"{pad}for r in range(2):")
                self.twin.append(f"{pad}for r in range(2):")
                self.body(ind + 1, 1, in_loop=True)
                self.barrier(ind + 1, r.choice(["sync", "grid"]))
                if r.random() < 0.5:
                    self.body(ind + 1, 1, in_loop=True)


def generate(seed: int) -> RaceCase:
    rng = random.Random(seed)
    dims = 2 if rng.random() < 0.3 else 1
    if dims == 1:
        blockdim, griddim = (rng.choice([4, 8, 16]),), (rng.choice([1, 1, 1, 2, 3]),)
    else:
        blockdim = rng.choice([(4, 4), (8, 2), (2, 8), (4, 2)])
        griddim = rng.choice([(1, 1), (1, 1), (2, 1), (1, 2), (2, 2)])
    coord = rng.choice(list(_COORDS))
    g = _Gen(rng, dims)
    g.body(1, rng.randint(1, 4))
    # Arrays about as large as the threads that index them, so that the guards matter.
    span = [b * (gd if coord != "tid" else 1) for b, gd in zip(blockdim, griddim)]
    shape = tuple(max(1, n + rng.randint(-2, 2)) for n in span)
    if dims == 2 and rng.random() < 0.5:
        shape = (shape[0], shape[0])                 # square: transposes stay in bounds
    layout = rng.choice(["separate", "same", "same", "shift", "shift", "reverse"])
    elements = int(np.prod(shape))
    row = shape[-1]
    step = (row, 1) if dims == 2 else (1,)
    if layout == "separate":
        offsets = (0, 1 << 20)
    elif layout == "same":
        offsets = (0, 0)
    elif layout == "shift":                          # views of one buffer, whole rows apart
        offsets = (rng.randint(0, 3) * (row if dims == 2 else 1),
                   rng.randint(0, 3) * (row if dims == 2 else 1))
        if dims == 2:
            g.exact = False                          # 2-D views: not related by safekern
    else:                                            # b is a reversed along its first axis
        offsets = (0, (shape[0] - 1) * step[0])
        if dims == 2:
            g.exact = False                          # 2-D views: not related by safekern
    steps_b = step if layout != "reverse" else (-step[0],) + step[1:]
    m = rng.randint(0, span[0] + 2)
    consts = [f"OFF_a, OFF_b = {offsets[0]}, {offsets[1]}"] + [
        f"STEP{k}_a, STEP{k}_b = {step[k]}, {steps_b[k]}" for k in range(dims)]
    head = ["import numpy as np", "from numba import cuda", "import safekern", ""] + consts + [
            "", "", "@safekern.jit(device=True)", "def block_barrier(x):",
            "    cuda.syncthreads()", "    return x", "", "",
            "@cuda.jit(device=True)", "def block_barrier_rec(x):",
            "    cuda.syncthreads()", "    return x", "", "",
            "@cuda.jit(device=True)",
            "def note(log, s, tid, blk, be, ge, element, write):",
            "    log[s, 0] = tid", "    log[s, 1] = blk", "    log[s, 2] = be",
            "    log[s, 3] = ge", "    log[s, 4] = element", "    log[s, 5] = write", "", ""]
    start = f"    i = {_COORDS[coord]}" if dims == 1 else f"    {_COORDS_2D[coord]}"
    kernel = ["@safekern.jit", "def k(a, b, m):", start] + g.kernel
    twin = ["@cuda.jit", "def k_rec(a, b, m, log, cnt):", start,
            "    tid = (cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x) + (cuda.threadIdx.y"
            " + cuda.blockIdx.y * cuda.blockDim.y) * cuda.gridDim.x * cuda.blockDim.x",
            "    blk = cuda.blockIdx.x + cuda.blockIdx.y * cuda.gridDim.x",
            "    be = 0", "    ge = 0"] + g.twin
    source = "\n".join(head + kernel + ["", ""] + twin) + "\n"
    return RaceCase(seed, source, griddim + (1,) * (3 - dims), blockdim + (1,) * (3 - dims),
                    layout, shape, offsets, m, g.exact, g.statements)


def arguments(case: RaceCase):
    """Device arrays `a`, `b` laid out as the case says, and `m`."""
    from numba import cuda

    shape = case.shape
    if case.layout == "separate":
        return cuda.to_device(np.zeros(shape)), cuda.to_device(np.zeros(shape)), case.m
    if case.layout == "same":
        a = cuda.to_device(np.zeros(shape))
        return a, a, case.m
    if case.layout == "reverse":
        a = cuda.to_device(np.zeros(shape))
        return a, a[::-1], case.m
    rows = [o // (shape[-1] if len(shape) == 2 else 1) for o in case.offsets]
    buf = cuda.to_device(np.zeros((shape[0] + 4,) + shape[1:]))
    return buf[rows[0]:rows[0] + shape[0]], buf[rows[1]:rows[1] + shape[0]], case.m


def ground_truth(module, case: RaceCase, args) -> bool:
    """Do two threads of the launch conflict (see the module doc)?"""
    from numba import cuda

    threads = int(np.prod(case.griddim) * np.prod(case.blockdim))
    log = cuda.to_device(np.full((threads * case.accesses + 1, _LOG_COLUMNS), -1, np.int64))
    cnt = cuda.to_device(np.zeros(1, np.int64))
    module.k_rec[case.griddim, case.blockdim](*args, log, cnt)
    rows = log.copy_to_host()[:int(cnt.copy_to_host()[0])]
    by_element: dict = {}
    for tid, blk, be, ge, element, write in rows.tolist():
        by_element.setdefault(element, []).append((tid, blk, be, ge, write))
    for records in by_element.values():
        writes = [r for r in records if r[4]]
        for w in writes:
            for o in records:
                if o[0] != w[0] and o[3] == w[3] and (o[1] != w[1] or o[2] == w[2]):
                    return True
    return False


def verdict(module, case: RaceCase, args) -> str:
    """"error" (a proven race: RaceError at the launch), "maybe" or "free"."""
    checker = module.k.dispatch.races
    if checker is None:
        return "free"
    found = checker.findings(args, case.griddim, case.blockdim)
    kinds = {f.verdict for f in found}
    return "error" if "proven" in kinds else "maybe" if "maybe" in kinds else "free"


def compare(case: RaceCase, workdir: str | None = None) -> tuple[str, bool, str]:
    """(outcome, conflict, verdict): outcome is "ok", "false positive", "unsound" or
    "missed" (see the module doc)."""
    from tests.support.differential import forget, import_file

    workdir = workdir or tempfile.gettempdir()
    path = os.path.join(workdir, f"race_fuzz_{case.seed}.py")
    with open(path, "w") as f:
        f.write(case.source)
    module = import_file(path, f"race_fuzz_{case.seed}")
    try:
        args = arguments(case)
        said = verdict(module, case, args)
        conflict = ground_truth(module, case, args)
    finally:
        forget(module)
        os.remove(path)
    if said == "error" and not conflict:
        return "false positive", conflict, said
    if said == "free" and conflict:
        return "unsound", conflict, said
    if said == "maybe" and conflict:
        return "missed", conflict, said
    return "ok", conflict, said
