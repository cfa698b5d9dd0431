"""The race analysis against what threads really do: generated kernels, recorded accesses.

Each seed gives a numba kernel over two array parameters `a`, `b` and a scalar `m` -- accesses
indexed by shifts (`a[i + 2]`), reflections (`b[a.shape[0] - 1 - i]`, `a[m - i]`), one element
for everyone (`a[0]`) and strides safekern does not relate (`a[2 * i]`), under guards that keep
them in bounds -- with `cuda.syncthreads()`, `cuda.cg.this_grid().sync()`, barriers under a
uniform condition and in loops; a launch (1 to 3 blocks, `i` from `cuda.grid(1)`,
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
from dataclasses import dataclass, field

import numpy as np

_COORDS = {"grid": "cuda.grid(1)", "tid": "cuda.threadIdx.x",
           "global": "cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x"}
_LOG_COLUMNS = 6        # thread, block, barriers passed, grid syncs passed, element, write


@dataclass
class RaceCase:
    seed: int
    source: str                 # the module: kernel `k` (safekern) and its recording twin
    griddim: int
    blockdim: int
    layout: str                 # separate | same | shift | reverse
    sizes: tuple                # (len(a), len(b)); for shift, the buffer's offsets too
    m: int
    exact: bool                 # the analysis must decide this one exactly
    accesses: int = 0           # records one thread may make at most: the log's size
    notes: list = field(default_factory=list)


class _Gen:
    def __init__(self, rng: random.Random, threads: int):
        self.rng = rng
        self.threads = threads
        self.exact = True
        self.kernel: list = []
        self.twin: list = []
        self.statements = 0

    def index(self, arr: str, write: bool) -> str:
        r = self.rng
        c = 0 if r.random() < 0.4 else r.randint(-2, 2)     # many in-place, race-free kernels
        kinds = ["shift", "shift", "shift", "reflect", "reflect", "scalar", "stride"]
        kind = r.choice(kinds + ([] if write else ["const"]))
        if kind == "shift":
            return f"i + {c}" if c >= 0 else f"i - {-c}"
        if kind == "reflect":
            return f"{arr}.shape[0] - 1 - i" + (f" + {c}" if c > 0 else f" - {-c}" if c else "")
        if kind == "scalar":
            return "m - i"
        if kind == "const":
            return str(abs(c))
        self.exact = False                  # a stride of 2 against 1: not related
        return f"2 * i + {abs(c)}"

    def access(self, ind: int) -> None:
        r = self.rng
        x, y = r.choice("ab"), r.choice("ab")
        ew = self.index(x, True)
        # Half the statements update in place (each thread its own element): the conflicts
        # are then across statements, and barriers are what decides them.
        y, er = (x, ew) if r.random() < 0.5 else (y, self.index(y, False))
        read = r.random() < 0.8
        conds = [f"0 <= {ew} < {x}.shape[0]"] + ([f"0 <= {er} < {y}.shape[0]"] if read else [])
        if r.random() < 0.2:
            conds.append("i < m")
        if r.random() < 0.1:
            conds.append("i % 3 != 1")      # not a comparison of linear forms
            self.exact = False
        guard = " and ".join(conds)
        pad = "    " * ind
        value = f"{y}[{er}] + 1.0" if read else "i * 1.0"
        self.kernel += [f"{pad}if {guard}:", f"{pad}    {x}[{ew}] = {value}"]
        rec = [f"{pad}if {guard}:", f"{pad}    s = cuda.atomic.add(cnt, 0, {2 if read else 1})"]
        slot = 0
        if read:
            rec.append(f"{pad}    note(log, s, tid, blk, be, ge, OFF_{y} + STEP_{y} * ({er}), 0)")
            slot = 1
        rec.append(f"{pad}    note(log, s + {slot}, tid, blk, be, ge, OFF_{x} + STEP_{x} * ({ew}), 1)")
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
            elif roll < 0.7:
                self.barrier(ind, "grid")
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
    blockdim = rng.choice([4, 8, 16])
    griddim = rng.choice([1, 1, 1, 2, 3])
    coord = rng.choice(list(_COORDS))
    threads = blockdim * griddim
    g = _Gen(rng, threads)
    g.body(1, rng.randint(1, 4))
    n = threads if coord != "tid" else blockdim
    la, lb = (max(1, n + rng.randint(-3, 3)) for _ in range(2))
    layout = rng.choice(["separate", "same", "same", "shift", "shift", "reverse"])
    if layout in ("same", "reverse"):
        lb = la
    offsets = {"separate": (0, 1, 1 << 20, 1), "same": (0, 1, 0, 1),
               "reverse": (0, 1, la - 1, -1)}
    if layout == "shift":
        lb = la
        sa, sb = rng.randint(0, 3), rng.randint(0, 3)
        offsets["shift"] = (sa, 1, sb, 1)
    if layout == "reverse":
        g.exact = False
    off_a, step_a, off_b, step_b = offsets[layout]
    m = rng.randint(0, n + 2)
    head = ["import numpy as np", "from numba import cuda", "import safekern", "",
            f"OFF_a, STEP_a, OFF_b, STEP_b = {off_a}, {step_a}, {off_b}, {step_b}", "", "",
            "@cuda.jit(device=True)",
            "def note(log, s, tid, blk, be, ge, element, write):",
            "    log[s, 0] = tid", "    log[s, 1] = blk", "    log[s, 2] = be",
            "    log[s, 3] = ge", "    log[s, 4] = element", "    log[s, 5] = write", "", ""]
    kernel = ["@safekern.jit", "def k(a, b, m):", f"    i = {_COORDS[coord]}"] + g.kernel
    twin = ["@cuda.jit", "def k_rec(a, b, m, log, cnt):", f"    i = {_COORDS[coord]}",
            "    tid = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x",
            "    blk = cuda.blockIdx.x", "    be = 0", "    ge = 0"] + g.twin
    source = "\n".join(head + kernel + ["", ""] + twin) + "\n"
    return RaceCase(seed, source, griddim, blockdim, layout,
                    (la, lb) + offsets[layout], m, g.exact, g.statements)


def arguments(case: RaceCase):
    """Device arrays `a`, `b` laid out as the case says, and `m`."""
    from numba import cuda

    la, lb, off_a, _, off_b, _ = case.sizes
    if case.layout == "separate":
        return cuda.to_device(np.zeros(la)), cuda.to_device(np.zeros(lb)), case.m
    if case.layout == "same":
        a = cuda.to_device(np.zeros(la))
        return a, a, case.m
    if case.layout == "reverse":
        a = cuda.to_device(np.zeros(la))
        return a, a[::-1], case.m
    buf = cuda.to_device(np.zeros(la + 4))
    return buf[off_a:off_a + la], buf[off_b:off_b + lb], case.m


def ground_truth(module, case: RaceCase, args) -> bool:
    """Do two threads of the launch conflict (see the module doc)?"""
    from numba import cuda

    threads = case.griddim * case.blockdim
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
    checker = module.k._races
    if checker is None:
        return "free"
    found = checker.findings(args, (case.griddim, 1, 1), (case.blockdim, 1, 1))
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
