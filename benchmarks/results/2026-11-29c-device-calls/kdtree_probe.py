"""cupyx's periodic k-d tree (the three test_kdtree.py::TestPeriodic cases open since 27 Nov)
with every cupyx RawKernel/RawModule made by safekern: what each query raises, in full, and
the results against the same queries plain (a second process runs them plain: `plain`).

    python kdtree_probe.py [safekern|plain] OUT.npz
"""
import sys
import traceback

import numpy as np

mode, out = sys.argv[1], sys.argv[2]
if mode == "safekern":
    import cupy
    import cupy._core

    import safekern.cupy as skcp
    for mod in (cupy, cupy._core):
        mod.RawKernel, mod.RawModule = skcp.RawKernel, skcp.RawModule
import cupy
from cupy import testing
import cupyx.scipy.spatial as sp

import safekern

results = {}


def run(label, fn):
    try:
        value = fn()
        safekern.sync()
        cupy.cuda.Device().synchronize()
        results[label] = value
        print(f"{label}: ok")
    except Exception as err:                       # noqa: BLE001 -- printed in full
        print(f"{label}: {type(err).__name__}: {err}")
        traceback.print_exc(limit=4)
        try:
            safekern.sync()
        except Exception as err2:                  # noqa: BLE001
            print(f"  (and at sync: {type(err2).__name__}: {err2})")


n, m = 100, 2
data = testing.shaped_random((n, m), cupy, cupy.float64, scale=1, seed=1234)
for off in (0, 1, -1):
    for p in (1, 2, 3.0, np.inf):
        def box(off=off, p=p):
            dd, ii = sp.KDTree(data, boxsize=1.0).query(data + off, 3, p=p)
            return np.concatenate([cupy.asnumpy(dd).ravel(), cupy.asnumpy(ii).ravel()])
        run(f"box off={off} p={p}", box)

    def ball(off=off):
        res = sp.KDTree(data, boxsize=1.0, leafsize=100).query_ball_point(
            data + off, 0.5, return_sorted=True)
        return np.concatenate([np.asarray(cupy.asnumpy(cupy.asarray(r)), np.float64).ravel()
                               for r in res])
    run(f"ball off={off}", ball)


def ball_tree():
    t1 = sp.KDTree(data, boxsize=1.0, leafsize=100)
    t2 = sp.KDTree(data.copy(), boxsize=1.0, leafsize=100)
    res = t1.query_ball_tree(t2, 0.5)
    return np.concatenate([np.asarray(cupy.asnumpy(cupy.asarray(r)), np.float64).ravel()
                           for r in res])


run("ball_tree", ball_tree)
np.savez(out, **{k.replace(" ", "_"): v for k, v in results.items()})
