"""Data, launch geometry and NumPy reference of every benchmark kernel.

A `Case` is one benchmark at one size: its host arrays, which of them the kernels write (reset
from the host copy before a verification), the launches of one step (the unit an application
repeats), and the NumPy result a step must produce. Full sizes are for an H200 (data several
times its 60 MB L2, or at least about a millisecond per launch); quick sizes are a few hundred
threads so the CUDA simulator runs them in a fraction of a second, with ragged edges (sizes that
are not multiples of the block) so the bounds guards are exercised.
"""
from __future__ import annotations

import math
import os

import numpy as np

from . import kernels as K
from . import rodinia
from .realworld import cases as realworld
from .realworld.loader import available as realworld_available
from .casekit import EPS32, Case, equal, within
from .casekit import all_of as _all
from .casekit import blocks as _blocks
from .casekit import nbytes as _nbytes


# The cases ---------------------------------------------------------------------------------

def vector_add(quick, rng):
    n, bs = (203, 64) if quick else (1 << 26, 256)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    arrays = dict(a=a, b=b, out=np.zeros(n, np.float32))
    return Case(
        "vector_add", "out = a + b", f"n={n:,} float32", {"vector_add": K.vector_add}, arrays,
        ("out",), lambda d: [("vector_add", _blocks(n, bs), bs, (d["a"], d["b"], d["out"]))],
        lambda: {"out": a + b},      # float32 addition rounds the same on both sides
        lambda got, ref: equal("out", got["out"], ref["out"]),
        traffic_bytes=3 * a.nbytes)


def saxpy(quick, rng):
    n, bs = (203, 64) if quick else (1 << 26, 256)
    alpha = np.float32(2.5)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    arrays = dict(x=x, y=y)
    return Case(
        "saxpy", "y = alpha * x + y (in place)", f"n={n:,} float32", {"saxpy": K.saxpy}, arrays,
        ("y",), lambda d: [("saxpy", _blocks(n, bs), bs, (alpha, d["x"], d["y"]))],
        lambda: {"y": float(alpha) * x.astype(np.float64) + y},
        # one rounding (a fused multiply-add) or two (x, y >= 0): within 2 ulp, with margin
        lambda got, ref: within("y", got["y"], ref["y"], rtol=3 * EPS32),
        traffic_bytes=3 * x.nbytes,
        notes="each launch adds alpha*x to y again; y is reset before verifying")


def _jacobi_sweep(u):
    out = u.copy()
    # the same float32 sum order as the kernel: ((up + down) + left) + right
    out[1:-1, 1:-1] = np.float32(0.25) * (((u[:-2, 1:-1] + u[2:, 1:-1]) + u[1:-1, :-2])
                                          + u[1:-1, 2:])
    return out


def jacobi(quick, rng):
    (n, m), (bx, by) = ((13, 21), (8, 8)) if quick else ((8192, 8192), (32, 8))
    u0 = rng.random((n, m), dtype=np.float32)
    arrays = dict(u=u0, v=u0.copy())
    grid = (_blocks(m, bx), _blocks(n, by))

    def reference():
        v = _jacobi_sweep(u0)
        return {"v": v, "u": _jacobi_sweep(v)}

    def compare(got, ref):
        return _all(*(within(k, got[k], ref[k], rtol=4 * EPS32) for k in ("v", "u")))

    return Case(
        "jacobi", "two Jacobi sweeps of a 5-point stencil, ping-pong u -> v -> u",
        f"{n}x{m} float32", {"jacobi": K.jacobi}, arrays, ("u", "v"),
        lambda d: [("jacobi", grid, (bx, by), (d["u"], d["v"])),
                   ("jacobi", grid, (bx, by), (d["v"], d["u"]))],
        reference, compare, traffic_bytes=4 * u0.nbytes)


def _matmul_case(name, kernel, quick, rng):
    (n, k, m), block = ((20, 18, 13), (8, 8)) if quick else ((2048, 2048, 2048), (16, 16))
    if name == "matmul_tiled":
        # one 256-thread block on the simulator (slow barriers), still two tiles along k
        n, block = (13 if quick else n), (K.TILE, K.TILE)
    a = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, m)).astype(np.float32)
    arrays = dict(a=a, b=b, c=np.zeros((n, m), np.float32))
    grid = (_blocks(m, block[0]), _blocks(n, block[1]))

    def reference():
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        return {"c": a64 @ b64, "bound": np.abs(a64) @ np.abs(b64)}

    def compare(got, ref):
        # the classical bound for a float32 dot product of length k, with a factor of 2 margin
        return within("c", got["c"], ref["c"], rtol=2 * k * EPS32, atol=1e-30,
                      scale=ref["bound"])

    return Case(
        name, "C = A @ B" + (" through shared TILE x TILE tiles" if name == "matmul_tiled"
                             else ", one output element per thread"),
        f"{n}x{k} @ {k}x{m} float32", {name: kernel}, arrays, ("c",),
        lambda d: [(name, grid, block, (d["a"], d["b"], d["c"]))], reference, compare)


def matmul_naive(quick, rng):
    return _matmul_case("matmul_naive", K.matmul_naive, quick, rng)


def matmul_tiled(quick, rng):
    return _matmul_case("matmul_tiled", K.matmul_tiled, quick, rng)


def reduce_sum(quick, rng):
    n, bs, nb = (150, 16, 3) if quick else (1 << 26, 256, 1024)
    x = rng.random(n, dtype=np.float32)
    arrays = dict(x=x, partial=np.zeros(nb, np.float32))
    stride = bs * nb
    per_thread = _blocks(n, stride)

    def reference():
        padded = np.zeros(per_thread * stride, np.float64)
        padded[:n] = x
        # element i belongs to block (i // bs) % nb, as the grid-stride loop walks it
        return {"partial": padded.reshape(per_thread, nb, bs).sum(axis=(0, 2))}

    def compare(got, ref):
        # a float32 sum of per_thread terms, then a tree of log2(bs) levels; x >= 0
        return within("partial", got["partial"], ref["partial"],
                      rtol=2 * (per_thread + math.log2(bs) + 1) * EPS32)

    return Case(
        "reduce_sum", "per-block sums: grid-stride loop, shared-memory tree with barriers",
        f"n={n:,} float32, {nb} blocks of {bs}", {"reduce_sum": K.reduce_sum}, arrays,
        ("partial",), lambda d: [("reduce_sum", nb, bs, (d["x"], d["partial"]))],
        reference, compare, traffic_bytes=x.nbytes)


def prefix_scan(quick, rng):
    # quick: more blocks (10) than threads (8), so the block-sums scan walks two chunks
    n, bs = (75, 8) if quick else (1 << 26, 1024)
    nb = _blocks(n, bs)
    x = rng.integers(0, 4, n, dtype=np.int32)
    arrays = dict(x=x, out=np.zeros(n, np.int32), sums=np.zeros(nb, np.int32))
    return Case(
        "prefix_scan", "inclusive scan: block scans, a scan of the block totals, offsets",
        f"n={n:,} int32, blocks of {bs}",
        {"scan_blocks": K.scan_blocks, "scan_block_sums": K.scan_block_sums,
         "scan_add_offsets": K.scan_add_offsets},
        arrays, ("out", "sums"),
        lambda d: [("scan_blocks", nb, bs, (d["x"], d["out"], d["sums"])),
                   ("scan_block_sums", 1, bs, (d["sums"],)),
                   ("scan_add_offsets", nb, bs, (d["out"], d["sums"]))],
        lambda: {"out": np.cumsum(x, dtype=np.int64).astype(np.int32)},
        lambda got, ref: equal("out", got["out"], ref["out"]),
        traffic_bytes=4 * x.nbytes)


def histogram(quick, rng):
    n, bs, nb = (300, 32, 2) if quick else (1 << 28, 256, 1056)
    data = rng.integers(0, K.BINS, n, dtype=np.uint8)
    arrays = dict(data=data, bins=np.zeros(K.BINS, np.int32))
    return Case(
        "histogram", "256-bin histogram: shared-memory atomics, then global atomics",
        f"n={n:,} uint8, {nb} blocks of {bs}", {"histogram": K.histogram}, arrays, ("bins",),
        lambda d: [("histogram", nb, bs, (d["data"], d["bins"]))],
        lambda: {"bins": np.bincount(data, minlength=K.BINS).astype(np.int32)},
        lambda got, ref: equal("bins", got["bins"], ref["bins"]),
        traffic_bytes=data.nbytes,
        notes="the bins accumulate over the timed launches (int32 wrap-around is harmless); "
              "they are zeroed before verifying")


def gather_scatter(quick, rng):
    n, bs = (301, 64) if quick else (1 << 25, 256)
    x = rng.random(n, dtype=np.float32)
    gidx = rng.integers(0, n, n, dtype=np.int32)
    sidx = rng.permutation(n).astype(np.int32)
    arrays = dict(x=x, gidx=gidx, sidx=sidx, gathered=np.zeros(n, np.float32),
                  scattered=np.zeros(n, np.float32))

    def reference():
        scattered = np.zeros(n, np.float32)
        scattered[sidx] = x
        return {"gathered": x[gidx], "scattered": scattered}

    return Case(
        "gather_scatter",
        "gathered[i] = x[gidx[i]]; scattered[sidx[i]] = x[i] (sidx a permutation)",
        f"n={n:,} float32, int32 indices", {"gather_scatter": K.gather_scatter}, arrays,
        ("gathered", "scattered"),
        lambda d: [("gather_scatter", _blocks(n, bs), bs,
                    (d["x"], d["gidx"], d["sidx"], d["gathered"], d["scattered"]))],
        reference,
        lambda got, ref: _all(equal("gathered", got["gathered"], ref["gathered"]),
                              equal("scattered", got["scattered"], ref["scattered"])),
        traffic_bytes=5 * x.nbytes)


def random_csr(rng, n, lo, hi):
    """A random n x n CSR pattern: row lengths uniform in [lo, hi], columns uniform."""
    degrees = rng.integers(lo, hi + 1, n)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(degrees, out=indptr[1:])
    if indptr[-1] >= 2 ** 31:
        raise ValueError("random_csr: too many nonzeros for int32 indices")
    indices = rng.integers(0, n, int(indptr[-1]), dtype=np.int32)
    return indptr.astype(np.int32), indices, degrees


def spmv_csr(quick, rng):
    n, lo, hi, bs = (101, 0, 7, 32) if quick else (1 << 22, 8, 24, 256)
    indptr, indices, degrees = random_csr(rng, n, lo, hi)
    data = rng.uniform(-1, 1, indices.size).astype(np.float32)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    arrays = dict(indptr=indptr, indices=indices, data=data, x=x, y=np.zeros(n, np.float32))

    def reference():
        rows = np.repeat(np.arange(n), degrees)
        prod = data.astype(np.float64) * x[indices]
        return {"y": np.bincount(rows, prod, minlength=n),
                "bound": np.bincount(rows, np.abs(prod), minlength=n)}

    def compare(got, ref):
        return within("y", got["y"], ref["y"], rtol=2 * (hi + 1) * EPS32, atol=1e-30,
                      scale=ref["bound"])

    return Case(
        "spmv_csr", "y = A @ x, A in CSR form, one row per thread",
        f"{n:,} rows, {indices.size:,} nonzeros, float32", {"spmv_csr": K.spmv_csr}, arrays,
        ("y",), lambda d: [("spmv_csr", _blocks(n, bs), bs,
                           (d["indptr"], d["indices"], d["data"], d["x"], d["y"]))],
        reference, compare, traffic_bytes=_nbytes(indptr, indices, data, x, x))


def bfs_step(quick, rng):
    n, lo, hi, bs = (97, 0, 6, 32) if quick else (1 << 22, 0, 32, 256)
    indptr, indices, degrees = random_csr(rng, n, lo, hi)
    visited = rng.random(n) < 0.3
    level = np.where(visited, rng.integers(0, 3, n), -1).astype(np.int32)
    frontier = (level == 2).astype(np.uint8)
    arrays = dict(indptr=indptr, indices=indices, frontier=frontier, level=level,
                  next_frontier=np.zeros(n, np.uint8))

    def reference():
        rows = np.repeat(np.arange(n), degrees)
        reached = indices[frontier[rows] != 0]
        out = np.zeros(n, np.uint8)
        out[reached[level[reached] < 0]] = 1
        return {"next_frontier": out}

    return Case(
        "bfs_step", "one top-down BFS level on a random graph",
        f"{n:,} vertices, {indices.size:,} edges", {"bfs_step": K.bfs_step}, arrays,
        ("next_frontier",),
        lambda d: [("bfs_step", _blocks(n, bs), bs, (d["indptr"], d["indices"], d["frontier"],
                                                     d["level"], d["next_frontier"]))],
        reference,
        lambda got, ref: equal("next_frontier", got["next_frontier"], ref["next_frontier"]))


def transpose(quick, rng):
    (n, m), block = ((41, 23), (K.TTILE, 2)) if quick else ((8192, 8192), (K.TTILE, 8))
    a = rng.random((n, m), dtype=np.float32)
    arrays = dict(a=a, out=np.zeros((m, n), np.float32))
    grid = (_blocks(m, K.TTILE), _blocks(n, K.TTILE))
    return Case(
        "transpose", "out = a.T through a padded shared tile", f"{n}x{m} float32",
        {"transpose": K.transpose}, arrays, ("out",),
        lambda d: [("transpose", grid, block, (d["a"], d["out"]))],
        lambda: {"out": np.ascontiguousarray(a.T)},
        lambda got, ref: equal("out", got["out"], ref["out"]),
        traffic_bytes=2 * a.nbytes)


def nbody(quick, rng):
    n, bs, sample = (67, 32, 67) if quick else (1 << 15, 256, 256)
    eps2 = np.float32(0.01)
    pos = np.empty((n, 4), np.float32)
    pos[:, :3] = rng.standard_normal((n, 3))
    pos[:, 3] = rng.uniform(0.5, 1.5, n)
    arrays = dict(pos=pos, acc=np.zeros((n, 3), np.float32))
    rows = np.sort(rng.choice(n, sample, replace=False))

    def reference():
        p = pos.astype(np.float64)
        d = p[None, :, :3] - p[rows, None, :3]                      # (sample, n, 3)
        r2 = (d * d).sum(axis=2) + float(eps2)
        terms = d * (p[None, :, 3] / (r2 * np.sqrt(r2)))[:, :, None]
        return {"acc": terms.sum(axis=1), "bound": np.abs(terms).sum(axis=1)}

    def compare(got, ref):
        # float32 sums of n terms: a statistical bound (sqrt(n) growth) with a wide margin
        return within("acc (sampled rows)", got["acc"][rows], ref["acc"],
                      rtol=(32 * math.sqrt(n) + 16) * EPS32, scale=ref["bound"])

    return Case(
        "nbody", "all-pairs gravitational accelerations (compute bound)",
        f"{n:,} bodies float32", {"nbody": K.nbody}, arrays, ("acc",),
        lambda d: [("nbody", _blocks(n, bs), bs, (d["pos"], d["acc"], eps2))],
        reference, compare, notes=f"verified on {sample} sampled bodies")


def kmeans_assign(quick, rng):
    n, dims, k, bs = (101, 4, 5, 32) if quick else (1 << 22, 16, 64, 256)
    centers = rng.standard_normal((k, dims)) * 4
    points = (centers[rng.integers(0, k, n)] + rng.standard_normal((n, dims))).astype(np.float32)
    centroids = (centers + 0.5 * rng.standard_normal((k, dims))).astype(np.float32)
    arrays = dict(points=points, centroids=centroids, labels=np.full(n, -1, np.int32))

    def distances(rows):
        x = points[rows].astype(np.float64)
        c = centroids.astype(np.float64)
        return (x * x).sum(1)[:, None] - 2 * x @ c.T + (c * c).sum(1)[None, :]

    def reference():
        best = np.empty(n, np.float64)
        labels = np.empty(n, np.int32)
        for start in range(0, n, 1 << 20):
            d = distances(slice(start, start + (1 << 20)))
            labels[start:start + d.shape[0]] = d.argmin(1)
            best[start:start + d.shape[0]] = d.min(1)
        return {"labels": labels, "best": best}

    def compare(got, ref):
        labels = got["labels"]
        if labels.shape != ref["labels"].shape:
            return f"labels: shape {labels.shape}, expected {ref['labels'].shape}"
        if labels.min() < 0 or labels.max() >= k:
            return f"labels: values outside [0, {k}): min {labels.min()}, max {labels.max()}"
        # a different label is right only in a float32 near-tie
        diff = np.flatnonzero(labels != ref["labels"])
        if diff.size == 0:
            return None
        x = points[diff].astype(np.float64)
        chosen = ((x - centroids[labels[diff]].astype(np.float64)) ** 2).sum(1)
        return within(f"distance to the chosen centroid ({diff.size} labels differ from "
                      "NumPy's)", chosen, ref["best"][diff], rtol=4 * dims * EPS32,
                      scale=ref["best"][diff] + (x * x).sum(1) + 1.0)

    return Case(
        "kmeans_assign", "k-means assignment step: nearest of k centroids per point",
        f"{n:,} points x {dims} dims, k={k}, float32", {"kmeans_assign": K.kmeans_assign},
        arrays, ("labels",),
        lambda d: [("kmeans_assign", _blocks(n, bs), bs,
                    (d["points"], d["centroids"], d["labels"]))],
        reference, compare, traffic_bytes=points.nbytes)


#: name -> builder(quick: bool, rng) -> Case, in report order: the 14 kernels of the first suite,
#: then the six ported from Rodinia (`rodinia.py`); a case's data seed is its position here
CASES = {f.__name__: f for f in (
    vector_add, saxpy, jacobi, matmul_naive, matmul_tiled, reduce_sum, prefix_scan, histogram,
    gather_scatter, spmv_csr, bfs_step, transpose, nbody, kmeans_assign, *rodinia.BUILDERS,
    # the real-world set (realworld/): kernels of public projects, when they were extracted
    *(b for b in realworld.BUILDERS if realworld_available() and not (
        getattr(b, "gpu_only", False) and os.environ.get("NUMBA_ENABLE_CUDASIM") == "1")))}
#: the suite's own kernels (written for safekern or ported by it), the rest are real-world
SUITE = tuple(n for n in CASES if not n.startswith("rw_"))


def build(name: str, quick: bool, seed: int = 1234) -> Case:
    # a seed per case: a case's data do not depend on which other cases run
    index = list(CASES).index(name)
    return CASES[name](quick, np.random.default_rng([seed, index]))


__all__ = ["Case", "CASES", "build", "within", "equal", "random_csr"]
