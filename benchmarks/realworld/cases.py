"""The real-world cases: data, launches and references for the kernels of `manifest.py`.

Each kernel runs as its project runs it: the project's launch geometry (xarray-spatial's
`cuda_args` -- 22 x 22 threads -- or `calc_cuda_dims`, stumpy's 512 threads per block and one
launch per window, fbpic's 256, ...), its argument types and realistic sizes. The data and
launches are ours (the projects' host code is not copied). The reference is the project's own
kernel run by plain numba on the same data (`plain_reference`): a checked kernel must compute
what the unchecked one does; float atomics (fbpic's deposition, the pair counts) are compared
within a tolerance, since their order of addition is the device's.
"""
from __future__ import annotations

import math

import numpy as np

from ..casekit import Case, equal, within
from ..casekit import blocks as _blocks
from ..casekit import nbytes as _nbytes
from .loader import RealWorldKernel, plain_reference

RW = RealWorldKernel


def _xrspatial_grid(shape, side=22):
    """xarray-spatial's `cuda_args`: sqrt(MAX_THREADS_PER_BLOCK / 2) threads a side (22)."""
    return tuple(_blocks(d, side) for d in shape), (side, side)


def _raster(quick, rng, count=1):
    n = (45, 38) if quick else (8192, 8192)
    # a smooth terrain with noise: elevations in metres
    y, x = np.mgrid[0:n[0], 0:n[1]].astype(np.float32)
    out = []
    for _ in range(count):
        base = 500 + 80 * np.sin(x / 97.0 + rng.random()) * np.cos(y / 131.0)
        out.append((base + rng.random(n, dtype=np.float32) * 3).astype(np.float32))
    return n, out


def _case(name, summary, size, kernels, arrays, outputs, plan, *, tol=None, traffic=None,
          notes=""):
    """A case whose reference is the project's kernel under plain numba."""
    reference = plain_reference(kernels, arrays, outputs, plan)

    def compare(got, ref):
        for o in outputs:
            problem = _same(o, got[o], ref[o], tol)
            if problem:
                return problem
        return None

    return Case(name, summary, size, kernels, arrays, outputs, plan, reference, compare,
                traffic_bytes=traffic, notes=notes)


def _same(name, got, ref, tol):
    """None when `got` is `ref` (NaN where it has NaN, the same infinities) within `tol`."""
    if np.iscomplexobj(ref):
        return _same(name + ".real", got.real, ref.real, tol) or \
            _same(name + ".imag", got.imag, ref.imag, tol)
    if got.shape != ref.shape:
        return f"{name}: shape {got.shape}, expected {ref.shape}"
    alike = (got == ref) | (np.isnan(got) & np.isnan(ref)) if got.dtype.kind == "f" else \
        (got == ref)
    if alike.all():
        return None
    if tol is None:
        return equal(name, got, ref)
    g, r = got[~alike], ref[~alike]
    if not (np.isfinite(g).all() and np.isfinite(r).all()):
        at = np.argwhere(~alike)[0]
        return f"{name}: at {tuple(at)} got {got[tuple(at)]}, expected {ref[tuple(at)]}"
    return within(name, g, r, rtol=tol, atol=tol * float(np.abs(ref[np.isfinite(ref)]).max()))


def _nan_like(a):
    return np.full(a.shape, np.nan, np.float32)


# -- xarray-spatial (MIT) ---------------------------------------------------------------------

def _focal(case_name, source, kernel_name, summary, radius):
    def build(quick, rng):
        n, (data,) = _raster(quick, rng)
        side = 2 * radius + 1
        yy, xx = np.mgrid[-radius:radius + 1, -radius:radius + 1]
        kernel = (xx * xx + yy * yy <= radius * radius).astype(np.float64)   # circle_kernel
        arrays = dict(data=data, kernel=kernel, out=_nan_like(data))
        grid, block = _xrspatial_grid(n)
        return _case(case_name, summary, f"{n[0]}x{n[1]} float32, {side}x{side} circle",
                     {"k": RW(source, kernel_name)},
                     arrays, ("out",),
                     lambda d: [("k", grid, block, (d["data"], d["kernel"], d["out"]))],
                     tol=1e-6, traffic=_nbytes(data) * 2)
    build.__name__ = case_name
    return build


rw_convolve_2d = _focal("rw_convolve_2d", "xrspatial_convolution", "_convolve_2d_cuda",
                        "xarray-spatial convolve_2d (focal apply)", 4)
rw_focal_std = _focal("rw_focal_std", "xrspatial_focal", "_focal_std_cuda",
                      "xarray-spatial focal_stats std", 2)
rw_focal_max = _focal("rw_focal_max", "xrspatial_focal", "_focal_max_cuda",
                      "xarray-spatial focal_stats max", 2)


def rw_focal_mean(quick, rng):
    n, (data,) = _raster(quick, rng)
    data[::97, ::89] = np.nan
    arrays = dict(data=data, excludes=np.array([np.nan], np.float32),
                  out=np.zeros_like(data))
    grid, block = _xrspatial_grid(n)
    return _case("rw_focal_mean", "xarray-spatial focal mean, 3x3 with excludes",
                 f"{n[0]}x{n[1]} float32", {"k": RW("xrspatial_focal", "_mean_gpu")}, arrays,
                 ("out",), lambda d: [("k", grid, block, (d["data"], d["excludes"], d["out"]))],
                 tol=1e-6, traffic=_nbytes(data) * 2)


def _surface(source, summary, cellsize_arrays):
    def build(quick, rng):
        n, (data,) = _raster(quick, rng)
        arrays = dict(data=data, out=_nan_like(data))
        for k in range(cellsize_arrays):
            arrays[f"cell{k}"] = np.array([30.0 + k], np.float32)
        grid, block = _xrspatial_grid(n)
        names = [f"cell{k}" for k in range(cellsize_arrays)]
        return _case(f"rw_{source[10:]}", summary, f"{n[0]}x{n[1]} float32",
                     {"k": RW(source, "_run_gpu")}, arrays, ("out",),
                     lambda d: [("k", grid, block,
                                 (d["data"], *[d[c] for c in names], d["out"]))],
                     tol=1e-6, traffic=_nbytes(data) * 2,
                     notes="3x3 windows passed to a device function as slices")
    build.__name__ = f"rw_{source[10:]}"
    return build


rw_slope = _surface("xrspatial_slope", "xarray-spatial slope", 2)
rw_aspect = _surface("xrspatial_aspect", "xarray-spatial aspect", 0)
rw_curvature = _surface("xrspatial_curvature", "xarray-spatial curvature", 1)


def rw_hillshade(quick, rng):
    n, (data,) = _raster(quick, rng)
    arrays = dict(data=data, out=_nan_like(data))
    alt, az = 25 * np.pi / 180, (360.0 - 225) * np.pi / 180
    grid = (_blocks(n[0], 32), _blocks(n[1], 32))          # calc_cuda_dims: 32 x 32
    return _case("rw_hillshade", "xarray-spatial hillshade", f"{n[0]}x{n[1]} float32",
                 {"k": RW("xrspatial_hillshade", "_gpu_calc_numba")}, arrays, ("out",),
                 lambda d: [("k", grid, (32, 32), (d["data"], d["out"], math.sin(alt),
                                                   math.cos(alt), az))],
                 tol=1e-6, traffic=_nbytes(data) * 2)


def rw_perlin(quick, rng):
    n = (45, 38) if quick else (8192, 8192)
    p = rng.permutation(2 ** 20)
    p = np.append(p, p)                 # as xarray-spatial: a doubled permutation, int64
    arrays = dict(p=p, out=np.zeros(n, np.float32))
    grid, block = _xrspatial_grid(n)
    return _case("rw_perlin", "xarray-spatial perlin noise: permutation-table gathers",
                 f"{n[0]}x{n[1]} float32, freq 32", {"k": RW("xrspatial_perlin", "_perlin_gpu")},
                 arrays, ("out",),
                 lambda d: [("k", grid, block, (d["p"], 0.0, 32.0, 0.0, 32.0, 1.0, d["out"]))],
                 tol=1e-5, traffic=_nbytes(arrays["out"]))


def _bands(kernel, summary, scalars):
    def build(quick, rng):
        n, bands = _raster(quick, rng, 3)
        arrays = dict(nir=bands[0], red=bands[1] * 0.7, blue=bands[2] * 0.4,
                      out=_nan_like(bands[0]))
        grid, block = _xrspatial_grid(n)
        return _case(f"rw{kernel[:-4]}", summary, f"{n[0]}x{n[1]} float32, 3 bands",
                     {"k": RW("xrspatial_multispectral", kernel)}, arrays, ("out",),
                     lambda d: [("k", grid, block, (d["nir"], d["red"], d["blue"], *scalars,
                                                    d["out"]))],
                     tol=1e-6, traffic=4 * _nbytes(bands[0]))
    build.__name__ = f"rw{kernel[:-4]}"
    return build


rw_evi = _bands("_evi_gpu", "xarray-spatial EVI", (6.0, 7.5, 1.0, 2.5))
rw_arvi = _bands("_arvi_gpu", "xarray-spatial ARVI", ())


# -- stumpy (BSD-3-Clause) --------------------------------------------------------------------

def rw_stump(quick, rng):
    """gpu_stump's inner loop: one launch per window j, each updating QT and the profile."""
    n, m, steps = (300, 8, 3) if quick else (1 << 20, 64, 16)
    t = np.cumsum(rng.standard_normal(n))                 # a random walk
    windows = np.lib.stride_tricks.sliding_window_view(t, m)
    l = n - m + 1
    qt = windows @ t[:m]
    mu, sigma = windows.mean(1), windows.std(1)
    arrays = dict(T=t, QT_even=qt.copy(), QT_odd=np.zeros(l), QT_first=qt.copy(), mu=mu,
                  sigma=sigma, const=np.zeros(l, np.bool_),
                  profile=np.full((l, 1), np.inf), profile_L=np.full(l, np.inf),
                  profile_R=np.full(l, np.inf), indices=np.full((l, 1), -1, np.int64),
                  indices_L=np.full(l, -1, np.int64), indices_R=np.full(l, -1, np.int64),
                  bfs=np.zeros(1, np.int64))
    outputs = ("QT_even", "QT_odd", "profile", "profile_L", "profile_R", "indices",
               "indices_L", "indices_R")
    excl_zone = int(math.ceil(m / 4))
    grid = _blocks(l, 512)

    def plan(d):
        return [("k", grid, 512, (j, d["T"], d["T"], m, d["QT_even"], d["QT_odd"],
                                  d["QT_first"], d["mu"], d["sigma"], d["mu"], d["sigma"],
                                  d["const"], d["const"], l, True, excl_zone, d["profile"],
                                  d["profile_L"], d["profile_R"], d["indices"],
                                  d["indices_L"], d["indices_R"], True, d["bfs"], 1, 1))
                for j in range(1, steps + 1)]

    return _case("rw_stump", "stumpy gpu_stump: matrix profile updates, one launch per window",
                 f"n={n:,}, m={m}, {steps} windows a step",
                 {"k": RW("stumpy_gpu_stump", "_compute_and_update_PI_kernel")}, arrays,
                 outputs, plan, tol=1e-9, traffic=10 * 8 * l)


# -- fbpic (BSD-3-Clause-LBNL) ----------------------------------------------------------------

def rw_fbpic_deposit(quick, rng):
    n, nz, nr = (300, 16, 8) if quick else (1 << 23, 1024, 256)
    dz, dr = 1e-7, 2e-7
    r = rng.random(n) * (nr - 1.5) * dr
    theta = rng.random(n) * 2 * np.pi
    arrays = dict(x=r * np.cos(theta), y=r * np.sin(theta), z=rng.random(n) * nz * dz,
                  w=rng.random(n) + 0.5, rho=np.zeros((nz, nr), np.complex128),
                  beta_n=rng.random(nr) * 0.1)
    grid = _blocks(n, 256)
    return _case("rw_fbpic_deposit",
                 "fbpic charge deposition (unsorted): float atomics on .real/.imag views",
                 f"{n:,} particles, {nz}x{nr} complex128 grid, mode 1",
                 {"k": RW("fbpic_deposit", "deposit_rho_gpu_unsorted")}, arrays, ("rho",),
                 lambda d: [("k", grid, 256, (d["x"], d["y"], d["z"], d["w"], 1.0, 1 / dz, 0.0,
                                              nz, 1 / dr, 0.0, nr, d["rho"], 1, d["beta_n"]))],
                 tol=1e-9, traffic=4 * 8 * n)


def rw_fbpic_gather(quick, rng):
    n, nz, nr = (300, 16, 8) if quick else (1 << 23, 1024, 256)
    dz, dr = 1e-7, 2e-7
    r = rng.random(n) * (nr - 1.5) * dr
    theta = rng.random(n) * 2 * np.pi
    fields = {k: (rng.standard_normal((nz, nr)) + 1j * rng.standard_normal((nz, nr)))
              for k in ("Er", "Et", "Ez_m", "Br", "Bt", "Bz_m")}
    outputs = ("Ex", "Ey", "Ez", "Bx", "By", "Bz")
    arrays = dict(x=r * np.cos(theta), y=r * np.sin(theta), z=rng.random(n) * nz * dz,
                  **fields, **{k: np.zeros(n) for k in outputs})
    grid = _blocks(n, 256)
    return _case("rw_fbpic_gather", "fbpic field gathering (mode 1): grid reads at particles' cells",
                 f"{n:,} particles, {nz}x{nr} complex128 fields",
                 {"k": RW("fbpic_gather", "gather_field_gpu_linear_one_mode")}, arrays, outputs,
                 lambda d: [("k", grid, 256, (d["x"], d["y"], d["z"], nr * dr, 1 / dz, 0.0, nz,
                                              1 / dr, 0.0, nr, d["Er"], d["Et"], d["Ez_m"],
                                              d["Br"], d["Bt"], d["Bz_m"], 1,
                                              *[d[k] for k in outputs]))],
                 tol=1e-12, traffic=9 * 8 * n)


def _particles(n, rng, names):
    return {k: rng.standard_normal(n) for k in names}


def rw_fbpic_push_p(quick, rng):
    n = 300 if quick else 1 << 24
    arrays = _particles(n, rng, ("ux", "uy", "uz", "Ex", "Ey", "Ez", "Bx", "By", "Bz"))
    arrays["inv_gamma"] = 1 / np.sqrt(1 + arrays["ux"] ** 2 + arrays["uy"] ** 2 +
                                      arrays["uz"] ** 2)
    outputs = ("ux", "uy", "uz", "inv_gamma")
    grid = _blocks(n, 256)
    return _case("rw_fbpic_push_p", "fbpic momentum push (Vay pusher, an inline device function)",
                 f"{n:,} particles, float64", {"k": RW("fbpic_push", "push_p_gpu")}, arrays,
                 outputs,
                 lambda d: [("k", grid, 256, (*[d[k] for k in ("ux", "uy", "uz", "inv_gamma",
                                                              "Ex", "Ey", "Ez", "Bx", "By",
                                                              "Bz")],
                                              -1.602e-19, 9.109e-31, n, 1e-15))],
                 tol=1e-12, traffic=14 * 8 * n)


def rw_fbpic_push_x(quick, rng):
    n = 300 if quick else 1 << 24
    arrays = _particles(n, rng, ("x", "y", "z", "ux", "uy", "uz"))
    arrays["inv_gamma"] = 1 / np.sqrt(1 + arrays["ux"] ** 2 + arrays["uy"] ** 2 +
                                      arrays["uz"] ** 2)
    grid = _blocks(n, 256)
    return _case("rw_fbpic_push_x", "fbpic position push", f"{n:,} particles, float64",
                 {"k": RW("fbpic_push", "push_x_gpu")}, arrays, ("x", "y", "z"),
                 lambda d: [("k", grid, 256, (*[d[k] for k in ("x", "y", "z", "ux", "uy", "uz",
                                                              "inv_gamma")],
                                              1e-15, 1.0, 1.0, 1.0))],
                 tol=1e-12, traffic=10 * 8 * n)


# -- bnlhack19 (BSD-3-Clause) -----------------------------------------------------------------

def _points(n, rng, box):
    return [rng.uniform(0, box, n).astype(np.float32) for _ in range(3)] + \
        [rng.uniform(0, 1, n).astype(np.float32)]


def rw_pairs_brute(quick, rng):
    n1, n2, box, rmax = (200, 150, 250.0, 30.0) if quick else (65536, 8192, 250.0, 30.0)
    x1, y1, z1, w1 = _points(n1, rng, box)
    x2, y2, z2, w2 = _points(n2, rng, box)
    rbins2 = (np.logspace(-1, np.log10(rmax), 15) ** 2).astype(np.float32)
    arrays = dict(x1=x1, y1=y1, z1=z1, w1=w1, x2=x2, y2=y2, z2=z2, w2=w2, rbins2=rbins2,
                  result=np.zeros(15, np.float64))
    grid = _blocks(n1, 512)
    return _case("rw_pairs_brute", "bnlhack19 weighted pair counts, brute force, atomics",
                 f"{n1:,} x {n2:,} points", {"k": RW("bnlhack19_pairs",
                                                     "count_weighted_pairs_3d_cuda")},
                 arrays, ("result",),
                 lambda d: [("k", grid, 512, tuple(d[k] for k in (
                     "x1", "y1", "z1", "w1", "x2", "y2", "z2", "w2", "rbins2", "result")))],
                 tol=1e-6)


def rw_pairs_chop(quick, rng):
    n, cells, box, rmax = (400, 2, 250.0, 30.0) if quick else (1 << 18, 8, 250.0, 30.0)
    x1, y1, z1, w1 = _points(n, rng, box)
    x2, y2, z2, w2 = _points(n, rng, box)

    def cell_of(x, y, z):
        c = lambda v: np.minimum((v / box * cells).astype(np.int64), cells - 1)  # noqa: E731
        return (c(x) * cells + c(y)) * cells + c(z)

    order = np.argsort(cell_of(x2, y2, z2), kind="stable")
    x2, y2, z2, w2 = x2[order], y2[order], z2[order], w2[order]
    indx2 = np.searchsorted(cell_of(x2, y2, z2), np.arange(cells ** 3 + 1)).astype(np.int64)
    rbins2 = (np.logspace(-1, np.log10(rmax), 15) ** 2).astype(np.float32)
    arrays = dict(x1=x1, y1=y1, z1=z1, w1=w1, cell1=cell_of(x1, y1, z1), x2=x2, y2=y2, z2=z2,
                  w2=w2, indx2=indx2, rbins2=rbins2, result=np.zeros(15, np.float64))
    grid = _blocks(n, 512)
    return _case("rw_pairs_chop", "bnlhack19 pair counts within a cell: CSR-style ranges",
                 f"{n:,} points, {cells ** 3} cells",
                 {"k": RW("bnlhack19_pairs", "double_chop_pairs_cuda")}, arrays, ("result",),
                 lambda d: [("k", grid, 512, tuple(d[k] for k in (
                     "x1", "y1", "z1", "w1", "cell1", "x2", "y2", "z2", "w2", "indx2", "rbins2",
                     "result")))],
                 tol=1e-6)


# -- numba-cuda's documentation examples (BSD-2-Clause) ---------------------------------------

def rw_docs_matmul(quick, rng):
    n = 40 if quick else 2048
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    arrays = dict(a=a, b=b, c=np.zeros((n, n), np.float32))
    grid = (_blocks(n, 16), _blocks(n, 16))
    return _case("rw_docs_matmul", "numba-cuda docs: fast_matmul, 16x16 shared tiles",
                 f"{n}^3 float32", {"k": RW("numba_docs_matmul", "fast_matmul")}, arrays,
                 ("c",), lambda d: [("k", grid, (16, 16), (d["a"], d["b"], d["c"]))],
                 tol=1e-6)


def rw_docs_laplace(quick, rng):
    blocks, threads, steps = (2, 32, 20) if quick else (128, 256, 2000)
    size = blocks * threads
    data = np.zeros(size)
    data[size // 2] = 10000.0
    arrays = dict(buf_0=data, buf_1=np.zeros(size))
    return _case("rw_docs_laplace", "numba-cuda docs: 1-D heat equation, a grid sync a step",
                 f"{size:,} points, {steps} steps",
                 {"k": RW("numba_docs_laplace", "solve_heat_equation")}, arrays,
                 ("buf_0", "buf_1"),
                 lambda d: [("k", blocks, threads, (d["buf_0"], d["buf_1"], steps, 0.25))],
                 tol=1e-12)


# numba's simulator swaps `cuda` in a kernel's globals but not `nb.cuda`, which perlin calls
rw_perlin.gpu_only = True

#: the real-world builders, in report order (after the suite's 20 in `cases.CASES`)
BUILDERS = (rw_convolve_2d, rw_focal_std, rw_focal_max, rw_focal_mean, rw_slope, rw_aspect,
            rw_curvature, rw_hillshade, rw_perlin, rw_evi, rw_arvi, rw_stump, rw_fbpic_deposit,
            rw_fbpic_gather, rw_fbpic_push_p, rw_fbpic_push_x, rw_pairs_brute, rw_pairs_chop,
            rw_docs_matmul, rw_docs_laplace)
