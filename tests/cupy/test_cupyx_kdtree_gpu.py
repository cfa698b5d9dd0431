"""A bug of cupyx found by safekern: the periodic k-d tree reads past the tree
(cupyx/scipy/spatial/_kdtree_utils.py, `compute_knn` and `compute_query_ball`, v14.2.0).

With a box (`KDTree(data, boxsize=...)`), coming back up from the child nearer the query point,
the periodic branch computes `close_dist`, the distance to that child, without asking whether
the child exists (`cur_far_child < n` guards the far child's; a missing child is reached as
`curr >= n`, which sets `prev = curr` and climbs to the parent). With n = 100 points in 2-D,
the node 100 is read: `tree[200]` of 200 (and its bounds past `tree_bounds`). CuPy's tests
TestPeriodic::test_kdtree_box, test_kdtree_ball and test_kdtree_ball_tree meet it at every
query. The value read feeds `far_dist <= close_dist * epsfac`, a choice of the next node.
The fix proposed (docs/compatibility.md): read the close child's distance and bounds only
where it exists. cupyx is CuPy's, installed on the GPU machine; nothing of it is copied here.
"""
import numpy as np
import pytest

from tests.support.cupy_device import cupy_with_a_device, cupyx_module_checked

cp = cupy_with_a_device()

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300, method="thread")]

BUGGY = """                close_dist = compute_distance(
                    point, close_child, box_bounds, n_dims, p, 1, false);

                close_bound_dist = min_bound_dist(
                    close_bounds, point[cur_dim], box_bounds[cur_dim],
                    cur_dim);
"""
FIXED = """                if(cur_close_child < n) {
                close_dist = compute_distance(
                    point, close_child, box_bounds, n_dims, p, 1, false);

                close_bound_dist = min_bound_dist(
                    close_bounds, point[cur_dim], box_bounds[cur_dim],
                    cur_dim);
                }
"""


@pytest.fixture
def kd(monkeypatch):
    """cupyx's _kdtree_utils with its modules made by safekern's RawModule."""
    yield from cupyx_module_checked(monkeypatch, "cupyx.scipy.spatial",
                                    "cupyx.scipy.spatial._kdtree_utils")


def _data():
    from cupy import testing

    return testing.shaped_random((100, 2), cp, cp.float64, scale=1, seed=1234)


def test_the_periodic_knn_reads_past_the_tree(kd):
    from cupyx.scipy.spatial import KDTree

    assert kd.KNN_KERNEL.count(BUGGY) == 2          # compute_knn and compute_query_ball
    data = _data()
    with pytest.raises(safekern.BoundsError) as info:
        KDTree(data, boxsize=1.0).query(data, 3, p=2)
        safekern.sync()
    err = info.value
    call = kd.KNN_KERNEL[:kd.KNN_KERNEL.index(BUGGY)].count("\n") + 1
    assert (err.array, err.index, err.size) == ("point2", 200, 200)
    assert err.kernel.split("<")[0] == "compute_distance"
    assert any("knn_periodic" in k for k in err.called_from)
    assert any(site.lineno == call for site in err.call_chain)


@pytest.mark.parametrize("p", [1, 2, np.inf])
def test_the_proposed_fix_removes_it(kd, monkeypatch, p):
    scipy_spatial = pytest.importorskip("scipy.spatial")
    from cupyx.scipy.spatial import KDTree

    monkeypatch.setattr(kd, "KNN_MODULE", skcp.RawModule(
        code=kd.KNN_KERNEL.replace(BUGGY, FIXED), options=("-std=c++17",),
        name_expressions=kd.KNN_MODULE.name_expressions))
    data = _data()
    for off in (0, 1, -1):
        dd, ii = KDTree(data, boxsize=1.0).query(data + off, 3, p=p)
        safekern.sync()
        want_d, want_i = scipy_spatial.KDTree(data.get(), boxsize=1.0).query(
            data.get() + off, 3, p=p)
        np.testing.assert_allclose(dd.get(), want_d, rtol=1e-7)
        np.testing.assert_array_equal(ii.get(), want_i)
    got = KDTree(data, boxsize=1.0, leafsize=100).query_ball_point(data, 0.5,
                                                                   return_sorted=True)
    safekern.sync()
    want = scipy_spatial.KDTree(data.get(), boxsize=1.0, leafsize=100).query_ball_point(
        data.get(), 0.5, return_sorted=True)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(g)), np.asarray(w))
