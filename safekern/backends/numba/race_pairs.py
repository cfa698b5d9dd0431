"""Can two threads of one launch touch one element, one writing, unordered? (races.py's pairs)

For two accesses with index forms `c*g_p + b` per axis (g the thread's coordinates), the
write's index is first put in the other array's elements (a view shifted by k elements: `+ k`;
a reversed view: `k - index`). An element is then shared when, per axis,
`c_w*g_p + b_w = c_o*g'_q + b_o`. With `c_o = ±c_w` (a shift, or a reflection such as
`a[n - 1 - i]`) the other thread is `g'_q = s*g_p + d` with `s = c_w / c_o` and
`d = (b_w - b_o) / c_o` (no integer solution: never shared); an index naming one element for
every thread pins the other side's coordinate; thread coordinates that no axis mentions are free
to differ. Each access's guards and bounds give an interval per coordinate, and the question --
is there a thread g running the write and a thread g' running the other access with g != g' --
is answered per coordinate on those boxes. That is Futhark's `noMemOverlap` question, answered for one
launch: overlap unless disjointness is proven, a proof only where the overlap is certain.

Barriers (frontend/python/race_phases.py): two accesses whose grid-sync phases are disjoint are
ordered; whose block phases are disjoint, ordered for two threads of one block, and then only a
pair of threads of *different* blocks conflicts. A proof needs both phases to be one and the
same number (or, for threads of different blocks, the grid phase alone).

Coordinates: the global coordinates g_x, g_y, g_z ("g" mode: a block is `g_k // blockDim_k`)
where the forms allow; a form naming `threadIdx.k` alone under a launch with several blocks
along k (or `blockIdx.k` alone with blocks wider than a thread) is not a function of g, and
then the pair is decided over t_x..t_z, b_x..b_z ("tb" mode: the block is b; g_k is then the
two-coordinate form `t_k + blockDim_k * b_k`, which no proof uses).
"""
from __future__ import annotations

from ...frontend.python.races import THREAD_ATOMS

PROVEN, FREE, MAYBE = "proven", "free", "maybe"
PROVEN_ACROSS_BLOCKS = "proven across blocks"   # only two threads of different blocks meet
_EXACT = 1 << 40        # values this small, times launch extents, stay far from 2**63
_AXES = {"x": 0, "y": 1, "z": 2}
_SAME, _ORDERED, _UNSURE = "same", "ordered", "unsure"


class Launch:
    """What the forms may mention, for one launch."""

    def __init__(self, griddim, blockdim, memories: dict, scalars: dict):
        self.grid = griddim
        self.block = blockdim
        self.extent = tuple(g * b for g, b in zip(griddim, blockdim))
        self.memories = memories
        self.scalars = scalars

    def needs_tb(self, forms) -> bool:
        """Does a form name threadIdx.k or blockIdx.k where it is not a global coordinate?"""
        for form in forms:
            for atom, _ in form.terms:
                if atom[0] == "cuda" and atom[1] in ("threadIdx", "blockIdx"):
                    k = _AXES[atom[2]]
                    if (self.grid if atom[1] == "threadIdx" else self.block)[k] != 1:
                        return True
        return False

    def extents(self, tb: bool) -> tuple:
        return self.block + self.grid if tb else self.extent

    def evaluate(self, form, tb: bool = False):
        """(coordinate coefficients {k: c}, constant) of a form, or None if it mentions
        something this launch does not fix."""
        coeffs: dict = {}
        const = form.const

        def add(k, c):
            coeffs[k] = coeffs.get(k, 0) + c
        for atom, c in form.terms:
            if atom in THREAD_ATOMS:
                k = atom[1]
                add(k, c)
                if tb:                       # g_k = t_k + blockDim_k * b_k
                    add(3 + k, c * self.block[k])
                continue
            kind = atom[0]
            if kind == "shape":
                memory = self.memories.get(atom[1])
                if memory is None or atom[2] >= len(memory.shape):
                    return None
                const += c * memory.shape[atom[2]]
            elif kind == "name":
                value = self.scalars.get(atom[1])
                if value is None or abs(value) >= _EXACT:
                    return None
                const += c * value
            elif kind == "cuda" and atom[1] in ("blockDim", "gridDim"):
                const += c * (self.block if atom[1] == "blockDim" else self.grid)[_AXES[atom[2]]]
            elif kind == "cuda" and atom[1] == "gridsize":
                const += c * self.extent[0]
            elif kind == "cuda" and atom[1] in ("threadIdx", "blockIdx"):
                k = _AXES[atom[2]]
                if tb:
                    add(k if atom[1] == "threadIdx" else 3 + k, c)
                    continue
                # threadIdx is the global coordinate when there is one block along it, blockIdx
                # when blocks are one thread wide; otherwise it is not a function of g alone.
                if (self.grid if atom[1] == "threadIdx" else self.block)[k] != 1:
                    return None
                add(k, c)
            else:
                return None
        if abs(const) >= _EXACT or any(abs(c) >= _EXACT for c in coeffs.values()):
            return None             # the kernel's 64-bit arithmetic might wrap: no conclusion
        return {k: c for k, c in coeffs.items() if c}, const


def _ceil_div(a, b):
    return -((-a) // b)


def _restrict(intervals, coeffs, const, *, upper=None):
    """Intersect per-coordinate intervals with `sum(c*g) + const >= 0` (and, with `upper`,
    `< upper`). Returns (intervals, exact) or None when it can never hold; exact=False when
    the constraint ties several coordinates (then it is ignored, so existence is uncertain)."""
    if not coeffs:
        ok = const >= 0 and (upper is None or const < upper)
        return (intervals, True) if ok else None
    if len(coeffs) > 1:
        return intervals, False
    (k, c), = coeffs.items()
    lo, hi = intervals[k]
    if c > 0:                   # c*g + const >= 0
        lo = max(lo, _ceil_div(-const, c))
    else:
        hi = min(hi, const // (-c))
    if upper is not None:       # c*g + const <= upper - 1
        if c > 0:
            hi = min(hi, (upper - 1 - const) // c)
        else:
            lo = max(lo, _ceil_div(upper - 1 - const, c))
    if lo > hi:
        return None
    out = list(intervals)
    out[k] = (lo, hi)
    return out, True


def _reach(access, launch, memory, tb):
    """Per-coordinate intervals of the threads that run `access` in bounds, whether they are
    exact, and the evaluated index; None: no thread runs it in bounds; "unknown"."""
    intervals = [(0, e - 1) for e in launch.extents(tb)]
    exact = access.certain
    for guard in access.guards:
        value = launch.evaluate(guard, tb)
        if value is None:
            exact = False
            continue
        result = _restrict(intervals, *value)
        if result is None:
            return None
        intervals, ok = result
        exact = exact and ok
    index = [launch.evaluate(f, tb) for f in access.index]
    if any(v is None for v in index) or len(index) != len(memory.shape):
        return "unknown"
    for (coeffs, const), extent in zip(index, memory.shape):
        result = _restrict(intervals, coeffs, const, upper=extent)
        if result is None:
            return None
        intervals, ok = result
        exact = exact and ok
    return intervals, exact, index


def _relation(a, b) -> str:
    """Two phase intervals: one and the same number, disjoint, or neither."""
    (alo, ahi), (blo, bhi) = a, b
    if alo == ahi == blo == bhi:
        return _SAME
    if (ahi is not None and ahi < blo) or (bhi is not None and bhi < alo):
        return _ORDERED
    return _UNSURE


def _other_block(x, d, s, size) -> bool:
    """Is there g in the interval x whose image s*g + d lies in another block of `size`?"""
    lo, hi = x
    if s == 1:
        if d == 0:
            return False
        if abs(d) >= size:
            return True
        r = lo % size
        if d > 0:       # g % size >= size - d
            first = lo if r >= size - d else lo + (size - d - r)
        else:           # g % size < -d
            first = lo if r < -d else lo + (size - r)
        return first <= hi
    # g and d - g in one block b: g in [b*size, b*size + size - 1] and in
    # [d - b*size - size + 1, d - b*size]; at most two blocks b qualify.
    same = 0
    for b in range(_ceil_div(d - 2 * size + 2, 2 * size), d // (2 * size) + 1):
        low = max(b * size, d - b * size - size + 1, lo)
        high = min(b * size + size - 1, d - b * size, hi)
        same += max(0, high - low + 1)
    return same < hi - lo + 1


def _spans_blocks(x, y, size) -> bool:
    """Independent g in x and g' in y: can they lie in different blocks?"""
    return len({x[0] // size, x[1] // size, y[0] // size, y[1] // size}) > 1


def pair_verdict(write, other, launch, memory_w, memory_o, relation=((1, 0),)) -> str:
    """PROVEN / FREE / MAYBE for a write and another access whose arrays share elements as
    `element_o = sign * element_w + offset`, `relation` giving (sign, offset) per axis (or
    one for all): (1, 0) for the same memory, (1, k) for a view shifted by k elements, (-1, k)
    for a reversed view."""
    if write.index is None or other.index is None:
        return MAYBE
    pw, po = write.phase, other.phase
    grid = _relation(pw[2:], po[2:])
    if grid == _ORDERED:
        return FREE                  # a grid sync between them, for every pair of threads
    block = _relation(pw[:2], po[:2])
    tb = launch.needs_tb(write.guards + write.index + other.guards + other.index)
    reach_w = _reach(write, launch, memory_w, tb)
    reach_o = _reach(other, launch, memory_o, tb)
    if reach_w is None or reach_o is None:
        return FREE
    if reach_w == "unknown" or reach_o == "unknown":
        return MAYBE
    (iw, exact_w, index_w), (io, exact_o, index_o) = reach_w, reach_o
    if len(index_w) != len(index_o) or len(relation) not in (1, len(index_w)):
        return MAYBE
    relation = relation * len(index_w) if len(relation) == 1 else relation
    # The write's index in the other array's elements: sign * index + offset, per axis.
    index_w = [({k: sign * c for k, c in cw.items()}, sign * bw + offset)
               for (cw, bw), (sign, offset) in zip(index_w, relation)]
    # Per axis, g'_q = s*g_p + d: the other thread's coordinate q from this thread's p.
    mapping: dict = {}                   # q -> (p, s, d)
    sources: set = set()
    iw, io = list(iw), list(io)
    for (cw, bw), (co, bo) in zip(index_w, index_o):
        if len(cw) > 1 or len(co) > 1:
            return MAYBE
        if not cw or not co:
            # One side names one element for every thread: the other side's coordinate is
            # pinned to the one value that names it (`a[i + 2]` against `a[2]`: i = 0).
            if cw or co:
                (k, c), = (cw or co).items()
                box = iw if cw else io
                step = (bo - bw) if cw else (bw - bo)
                if step % c or not box[k][0] <= step // c <= box[k][1]:
                    return FREE
                box[k] = (step // c, step // c)
            elif bw != bo:
                return FREE          # this axis never names the same element
            continue
        (p, c), = cw.items()
        (q, c_o), = co.items()
        if abs(c) != abs(c_o) or p in sources or q in mapping:
            return MAYBE
        step = bw - bo
        if step % c_o:
            return FREE              # no integer solution
        mapping[q] = (p, c // c_o, step // c_o)
        sources.add(p)
    # This thread's coordinates: p's range is what both accesses allow; others its own.
    mine = list(iw)
    for q, (p, s, d) in mapping.items():
        lo, hi = (io[q][0] - d, io[q][1] - d) if s == 1 else (d - io[q][1], d - io[q][0])
        lo, hi = max(mine[p][0], lo), min(mine[p][1], hi)
        if lo > hi:
            return FREE
        mine[p] = (lo, hi)
    if any(io[k][0] > io[k][1] for k in range(len(io)) if k not in mapping):
        return FREE
    # Per coordinate of the other thread: can it differ from this thread's, and lie in
    # another block? (Each coordinate's witness may be chosen apart: the ranges are a box.)
    distinct = other_block = False
    sizes = launch.block
    for k in range(len(mine)):
        x = mine[k]
        if k in mapping and mapping[k][0] == k:
            _, s, d = mapping[k]
            differs = d != 0 if s == 1 else (x[0] != x[1] or 2 * x[0] != d)
            apart = (k >= 3 and differs) if tb else _other_block(x, d, s, sizes[k])
        else:
            if k in mapping:
                p, s, d = mapping[k]
                y = sorted((s * mine[p][0] + d, s * mine[p][1] + d))
            else:
                y = io[k]
            differs = not (x[0] == x[1] == y[0] == y[1])
            apart = (k >= 3 and differs) if tb else _spans_blocks(x, y, sizes[k])
        distinct = distinct or differs
        other_block = other_block or apart
    if not distinct:
        return FREE                  # only a thread and itself
    if block == _ORDERED and not other_block:
        return FREE                  # threads of one block, a barrier between the accesses
    if block == _UNSURE and not other_block:
        return MAYBE
    if not (exact_w and exact_o and grid == _SAME):
        return MAYBE
    return PROVEN if block == _SAME else PROVEN_ACROSS_BLOCKS


__all__ = ["Launch", "pair_verdict", "PROVEN", "PROVEN_ACROSS_BLOCKS", "FREE", "MAYBE"]
