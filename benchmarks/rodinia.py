"""Data, launches and NumPy references of the six Rodinia cases (kernels: `rodinia_kernels.py`).

Launch geometry follows Rodinia's host code (hotspot.cu, srad.cu, needle.cu, pathfinder.cu,
lud.cu, backprop_cuda.cu). Full sizes are for an H200 and keep a step at a millisecond or more
while the NumPy reference stays a few seconds; quick sizes are a few blocks for the CUDA
simulator (ragged edges where the kernel allows them: hotspot and pathfinder; srad, nw and lud
need multiples of 16, as in Rodinia). `cases.CASES` lists these after the first fourteen.
"""
from __future__ import annotations

import numpy as np

from . import rodinia_kernels as R
from .casekit import EPS32, Case, all_of, blocks, equal, within


def _pingpong(launch, total, per_launch, first_src):
    """Rodinia's time loop: launches of `per_launch` steps (fewer at the end) alternating
    between two buffers; the input buffer is only read, so every step computes the same."""
    plan, src, t = [], first_src, 0
    while t < total:
        dst = ("buf_a", "buf_b")[len(plan) % 2]
        plan.append(launch(min(per_launch, total - t), src, dst, t))
        src, t = dst, t + per_launch
    return plan, src


def _hotspot_parameters(cells=1024):
    """Rodinia's chip constants for a chip of cells x cells; the cell size of its 1024 x 1024
    input keeps the explicit scheme stable at any grid size (Rodinia's formulas would make
    cells of a 4096 x 4096 grid 16 times smaller and the time step unstable)."""
    t_chip, chip, k_si, spec_heat, factor = 0.0005, 0.016, 100.0, 1.75e6, 0.5
    g = chip / cells
    cap = factor * spec_heat * t_chip * g * g
    rx = ry = g / (2.0 * k_si * t_chip * g)
    rz = t_chip / (k_si * g * g)
    step = 0.001 / (3.0e6 / (factor * t_chip * spec_heat))
    return tuple(np.float32(v) for v in (cap, rx, ry, rz, step))


def _hotspot_reference(temp, power, total, params):
    cap, rx, ry, rz, step = (float(p) for p in params)
    t = temp.astype(np.float64)
    p64 = power.astype(np.float64)
    for _ in range(total):
        pad = np.pad(t, 1, mode="edge")        # neighbours outside the grid: the cell itself
        t = t + (step / cap) * (p64 + (pad[2:, 1:-1] + pad[:-2, 1:-1] - 2 * t) / ry
                                + (pad[1:-1, 2:] + pad[1:-1, :-2] - 2 * t) / rx
                                + (80.0 - t) / rz)
    return t


def hotspot(quick, rng):
    (rows, cols), ph, total = ((11, 23), 2, 3) if quick else ((4096, 4096), 2, 8)
    temp = (323.0 + 20.0 * rng.random((rows, cols))).astype(np.float32)
    power = (1e-3 * rng.random((rows, cols))).astype(np.float32)
    params = _hotspot_parameters()
    arrays = dict(power=power, temp=temp, buf_a=np.zeros_like(temp), buf_b=np.zeros_like(temp))
    small = R.HS_BLOCK - 2 * ph                     # cells a block computes per launch
    grid = (blocks(cols, small), blocks(rows, small))

    def plan(d):
        launch = lambda it, src, dst, t: (     # noqa: E731
            "hotspot", grid, (R.HS_BLOCK, R.HS_BLOCK),
            (np.int32(it), d["power"], d[src], d[dst], np.int32(ph), np.int32(ph), *params))
        return _pingpong(launch, total, ph, "temp")[0]

    final = _pingpong(lambda *a: None, total, ph, "temp")[1]
    return Case(
        "hotspot", f"Rodinia hotspot: {total} time steps of the thermal stencil, {ph} per "
        "launch on a shared tile with a shrinking halo", f"{rows}x{cols} float32",
        {"hotspot": R.hotspot}, arrays, (final,), plan,
        lambda: {final: _hotspot_reference(temp, power, total, params)},
        # float32 arithmetic, a few roundings per step that the stencil averages
        lambda got, ref: within(final, got[final], ref[final], rtol=(8 * total + 8) * EPS32),
        traffic_bytes=blocks(total, ph) * 3 * temp.nbytes,
        extra={"pyramid_height": ph, "total_steps": total, "params": params, "final": final})


def _srad_reference(j0, roi, lam, niter):
    r1, r2, c1, c2 = roi
    j = j0.astype(np.float64)
    for _ in range(niter):
        region = j[r1:r2 + 1, c1:c2 + 1]
        mean = region.mean()
        q0sqr = ((region * region).mean() - mean * mean) / (mean * mean)
        pad = np.pad(j, 1, mode="edge")
        dn, ds = pad[:-2, 1:-1] - j, pad[2:, 1:-1] - j
        dw, de = pad[1:-1, :-2] - j, pad[1:-1, 2:] - j
        g2 = (dn * dn + ds * ds + dw * dw + de * de) / (j * j)
        lap = (dn + ds + dw + de) / j
        qsqr = (0.5 * g2 - lap * lap / 16.0) / (1 + 0.25 * lap) ** 2
        c = np.clip(1.0 / (1.0 + (qsqr - q0sqr) / (q0sqr * (1 + q0sqr))), 0.0, 1.0)
        cs = np.concatenate([c[1:], c[-1:]], axis=0)
        ce = np.concatenate([c[:, 1:], c[:, -1:]], axis=1)
        j = j + 0.25 * lam * (c * dn + cs * ds + c * dw + ce * de)
    return j


def srad(quick, rng):
    (rows, cols), roi, niter, nb, bs = (((32, 32), (0, 15, 0, 19), 2, 2, 16) if quick
                                        else ((4096, 4096), (0, 127, 0, 127), 2, 64, 256))
    lam = np.float32(0.5)
    j0 = np.exp(rng.random((rows, cols), dtype=np.float32)).astype(np.float32)
    zeros = lambda: np.zeros((rows, cols), np.float32)      # noqa: E731
    arrays = dict(j=j0, c=zeros(), e_c=zeros(), w_c=zeros(), n_c=zeros(), s_c=zeros(),
                  partial=np.zeros((nb, 2), np.float32), stats=np.zeros(1, np.float32))
    r1, r2, c1, c2 = (np.int32(v) for v in roi)
    size_r = np.float32((roi[1] - roi[0] + 1) * (roi[3] - roi[2] + 1))
    grid, block = (cols // R.SRAD_BLOCK, rows // R.SRAD_BLOCK), (R.SRAD_BLOCK, R.SRAD_BLOCK)

    def plan(d):
        dirs = (d["e_c"], d["w_c"], d["n_c"], d["s_c"], d["j"], d["c"])
        return [("srad_reduce", nb, bs, (d["j"], r1, r2, c1, c2, d["partial"])),
                ("srad_stats", 1, bs, (d["partial"], size_r, d["stats"])),
                ("srad_1", grid, block, dirs + (d["stats"],)),
                ("srad_2", grid, block, dirs + (lam,))] * niter

    return Case(
        "srad", f"Rodinia srad_v2: {niter} iterations of region statistics (two reduction "
        "kernels), diffusion coefficients and image update", f"{rows}x{cols} float32",
        {"srad_reduce": R.srad_reduce, "srad_stats": R.srad_stats, "srad_1": R.srad_1,
         "srad_2": R.srad_2}, arrays, ("j",), plan,
        lambda: {"j": _srad_reference(j0, roi, float(lam), niter)},
        # float32 derivatives and region sums feeding a saturated coefficient, twice (a float32
        # emulation in NumPy stays within 4 EPS32 of this float64 reference at full size)
        lambda got, ref: within("j", got["j"], ref["j"], rtol=64 * EPS32),
        traffic_bytes=niter * 13 * j0.nbytes,
        notes="each step updates J again; J is reset before verifying")


def _nw_scores(reference, penalty):
    n1 = reference.shape[0]
    score = np.empty((n1, n1), np.int32)
    steps = penalty * np.arange(n1, dtype=np.int64)
    score[0] = -steps
    cand = np.empty(n1, np.int64)
    for i in range(1, n1):
        up = score[i - 1].astype(np.int64)
        cand[0] = -i * penalty
        np.maximum(up[:-1] + reference[i, 1:], up[1:] - penalty, out=cand[1:])
        # score[i, j] = max(cand[j], score[i, j - 1] - penalty): a running maximum
        score[i] = np.maximum.accumulate(cand + steps) - steps
    return score


def nw(quick, rng):
    n, penalty = (32, 10) if quick else (8192, 10)
    substitution = rng.integers(-4, 12, (24, 24))
    substitution = np.triu(substitution) + np.triu(substitution, 1).T    # symmetric, BLOSUM-like
    seq1 = rng.integers(1, 11, n + 1)
    seq2 = rng.integers(1, 11, n + 1)
    reference = np.zeros((n + 1, n + 1), np.int32)
    reference[1:, 1:] = substitution[seq1[1:, None], seq2[None, 1:]]
    matrix = np.zeros((n + 1, n + 1), np.int32)
    matrix[0, :] = -penalty * np.arange(n + 1)
    matrix[:, 0] = -penalty * np.arange(n + 1)
    width = n // R.NW_BLOCK
    pen = np.int32(penalty)

    def plan(d):
        ref, mat = d["reference"], d["matrix"]
        return ([("nw_shared_1", i, R.NW_BLOCK, (ref, mat, pen, np.int32(i)))
                 for i in range(1, width + 1)]
                + [("nw_shared_2", i, R.NW_BLOCK, (ref, mat, pen, np.int32(i), np.int32(width)))
                   for i in range(width - 1, 0, -1)])

    return Case(
        "nw", "Rodinia nw: Needleman-Wunsch, one launch per anti-diagonal of 16x16 tiles "
        f"({2 * width - 1} launches)", f"{n}x{n} int32",
        {"nw_shared_1": R.nw_shared_1, "nw_shared_2": R.nw_shared_2},
        dict(reference=reference, matrix=matrix), ("matrix",), plan,
        lambda: {"matrix": _nw_scores(reference, penalty)},
        lambda got, ref: equal("matrix", got["matrix"], ref["matrix"]),
        traffic_bytes=2 * matrix.nbytes)


def _pathfinder_reference(src, wall):
    r = src.astype(np.int64)
    for row in wall:
        left = np.concatenate([r[:1], r[:-1]])
        right = np.concatenate([r[1:], r[-1:]])
        r = np.minimum(np.minimum(left, r), right) + row
    return r.astype(np.int32)


def pathfinder(quick, rng):
    cols, rows, ph = (300, 8, 3) if quick else (1 << 20, 257, 16)
    data = rng.integers(0, 10, (rows, cols), dtype=np.int32)
    src, wall = data[0].copy(), data[1:].copy()
    arrays = dict(wall=wall, src=src, buf_a=np.zeros(cols, np.int32),
                  buf_b=np.zeros(cols, np.int32))
    nblocks = blocks(cols, R.PF_BLOCK - 2 * ph)

    def plan(d):
        launch = lambda it, s, t_dst, t: (     # noqa: E731
            "pathfinder", nblocks, R.PF_BLOCK,
            (np.int32(it), d["wall"], d[s], d[t_dst], np.int32(t), np.int32(ph)))
        return _pingpong(launch, rows - 1, ph, "src")[0]

    final = _pingpong(lambda *a: None, rows - 1, ph, "src")[1]
    return Case(
        "pathfinder", f"Rodinia pathfinder: minimum-cost path down {rows - 1} rows, {ph} rows "
        "per launch in a shared row with barriers", f"{rows}x{cols:,} int32",
        {"pathfinder": R.pathfinder}, arrays, (final,), plan,
        lambda: {final: _pathfinder_reference(src, wall)},
        lambda got, ref: equal(final, got[final], ref[final]),
        traffic_bytes=wall.nbytes, extra={"final": final})


def _lu_packed(a):
    """L (unit lower, below the diagonal) and U packed in one float64 matrix, no pivoting."""
    m = a.astype(np.float64)
    n, nb = m.shape[0], 256
    for k in range(0, n, nb):
        e = min(k + nb, n)
        for i in range(k, e):                   # the diagonal block's columns, then its rows
            m[i + 1:, i] /= m[i, i]
            m[i + 1:, i + 1:e] -= np.outer(m[i + 1:, i], m[i, i + 1:e])
        if e < n:
            lower = np.tril(m[k:e, k:e], -1) + np.eye(e - k)
            m[k:e, e:] = np.linalg.solve(lower, m[k:e, e:])
            m[e:, e:] -= m[e:, k:e] @ m[k:e, e:]
    return m


def _lu_compare(got, ref):
    m = got["m"].astype(np.float64)
    lower = np.tril(m, -1) + np.eye(m.shape[0])
    upper = np.triu(m)
    # the backward error of LU in float32: |A - L U| <= n eps |L| |U|, with a factor 2 margin
    return within("L @ U (backward error against A)", lower @ upper, ref["a"],
                  rtol=2 * m.shape[0] * EPS32, atol=1e-30, scale=np.abs(lower) @ np.abs(upper))


def lud(quick, rng):
    n = 48 if quick else 2048
    b = R.LUD_BLOCK
    # diagonally dominant, so that LU without pivoting is stable (as Rodinia's inputs are)
    a = (rng.random((n, n)) + n * np.eye(n)).astype(np.float32)

    def plan(d):
        m, steps = d["m"], []
        for off in range(0, n - b, b):
            rest = (n - off) // b - 1
            steps += [("lud_diagonal", 1, b, (m, np.int32(off))),
                      ("lud_perimeter", rest, 2 * b, (m, np.int32(off))),
                      ("lud_internal", (rest, rest), (b, b), (m, np.int32(off)))]
        return steps + [("lud_diagonal", 1, b, (m, np.int32(n - b)))]

    return Case(
        "lud", f"Rodinia lud: blocked LU without pivoting, diagonal / perimeter / internal "
        f"kernels per {b}-column panel", f"{n}x{n} float32",
        {"lud_diagonal": R.lud_diagonal, "lud_perimeter": R.lud_perimeter,
         "lud_internal": R.lud_internal}, dict(m=a), ("m",), plan,
        lambda: {"m": _lu_packed(a), "a": a.astype(np.float64)}, _lu_compare,
        notes="each step factors the previous step's result again; m is reset before "
              "verifying, which checks |A - L U| against the float32 bound")


def backprop(quick, rng):
    n_in, hid = (48, R.BP_WIDTH) if quick else (1 << 21, R.BP_WIDTH)
    nb = n_in // R.BP_HEIGHT
    units = rng.random(n_in + 1, dtype=np.float32)
    units[0] = 1.0                                              # the bias unit
    weights = rng.uniform(-1, 1, (n_in + 1, hid + 1)).astype(np.float32)
    oldw = rng.uniform(-0.1, 0.1, (n_in + 1, hid + 1)).astype(np.float32)
    delta = rng.uniform(-1, 1, hid + 1).astype(np.float32)
    arrays = dict(units=units, weights=weights, oldw=oldw, delta=delta,
                  partial=np.zeros((nb, hid), np.float32))
    block = (R.BP_WIDTH, R.BP_HEIGHT)

    def reference():
        terms = (units[1:, None].astype(np.float64) * weights[1:, 1:]).reshape(nb, R.BP_HEIGHT,
                                                                             hid)
        ly = units.astype(np.float64)[:, None]
        ly[0] = 1.0                                             # the bias row: ETA * delta
        learn = R.BP_ETA * delta[None, 1:].astype(np.float64) * ly
        momentum = R.BP_MOMENTUM * oldw[:, 1:].astype(np.float64)
        w, old = weights.astype(np.float64), oldw.astype(np.float64)
        w[:, 1:] += learn + momentum
        old[:, 1:] = learn + momentum
        scale = np.zeros_like(w)
        scale[:, 1:] = np.abs(learn) + np.abs(momentum)
        return {"partial": terms.sum(1), "partial_bound": np.abs(terms).sum(1), "weights": w,
                "oldw": old, "change_scale": scale}

    def compare(got, ref):
        # a float32 product and a tree of log2(HEIGHT) sums; one rounding of a float64 update
        return all_of(
            within("partial", got["partial"], ref["partial"], rtol=2 * (R.BP_LOG2_HEIGHT + 1)
                   * EPS32, atol=1e-30, scale=ref["partial_bound"]),
            within("weights", got["weights"], ref["weights"], rtol=2 * EPS32,
                   scale=np.abs(ref["weights"]) + ref["change_scale"]),
            within("oldw", got["oldw"], ref["oldw"], rtol=2 * EPS32, atol=1e-30,
                   scale=np.abs(ref["oldw"]) + ref["change_scale"]))

    return Case(
        "backprop", "Rodinia backprop: hidden-layer forward pass (shared-memory tree per 16 "
        "inputs) and weight adjustment", f"{n_in:,} inputs x {hid} hidden units float32",
        {"bpnn_layerforward": R.bpnn_layerforward,
         "bpnn_adjust_weights": R.bpnn_adjust_weights}, arrays,
        ("partial", "weights", "oldw"),
        lambda d: [("bpnn_layerforward", nb, block, (d["units"], d["weights"], d["partial"])),
                   ("bpnn_adjust_weights", nb, block,
                    (d["delta"], d["units"], d["weights"], d["oldw"]))],
        reference, compare, traffic_bytes=5 * weights.nbytes,
        notes="each step adjusts the weights again; they are reset before verifying")


#: the builders, in report order after the first fourteen of `cases.CASES`
BUILDERS = (hotspot, srad, nw, pathfinder, lud, backprop)

__all__ = ["BUILDERS", "hotspot", "srad", "nw", "pathfinder", "lud", "backprop"]
