"""Kernels for tests/numba/test_body_versioning.py: device functions whose indices are all known
on entry (frontend/python/body_versioning.py), shaped like fbpic's field gather (a cell's
corners read from three fields at indices the caller computed), and ones that must not be
versioned the same way."""
from numba import cuda

import safekern
from tests.numba.numba_kernels import site_line


@safekern.jit(device=True)
def corners(Fr, Ft, Fz, iz, ir, w):
    # fbpic's add_linear_gather_for_mode, cut down: four corners of three fields
    acc = 0.0
    acc += w * Fr[iz, ir]  # site: corners_first
    acc += w * Ft[iz, ir]
    acc += w * Fz[iz, ir + 1]  # site: corners_upper
    acc += w * Fr[iz + 1, ir + 1]
    if ir == 0:
        acc += Ft[iz + 1, 0]  # site: corners_guard
    return acc


@safekern.jit
def gather_corners(Fr, Ft, Fz, izs, irs, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = corners(Fr, Ft, Fz, izs[i], irs[i], 0.5)


@safekern.jit(device=True)
def by_index(a, idx, s):
    # a whole index tuple, and a slice, as parameters: the entry test takes the tuple; the
    # slice's access is no scalar access, its function runs checked
    return a[idx] + a[idx] * 2 + a[s, 0][0] + a[idx]


@safekern.jit
def gather_by_index(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = by_index(a, (i, i + 1), slice(i, i + 1))


def expected_line(name: str) -> int:
    return site_line(__file__, name)


# corners, inlined by numba at each call (fbpic's gather is): two checked copies, whose records
# are calls of one record function (backends/numba/cold_records.py)
corners_inlined = safekern.jit(device=True, inline=True)(corners.py_func)

@safekern.jit
def gather_corners_twice(Fr, Ft, Fz, izs, irs, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        iz, ir = izs[i], irs[i]
        e = corners_inlined(Fr, Ft, Fz, iz, ir, 0.5)
        b = corners_inlined(Fz, Fr, Ft, iz, ir, 0.25)
        out[i] = e + b
