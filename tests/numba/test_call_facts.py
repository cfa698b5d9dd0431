"""Device functions checked with what their callers know of the arrays they pass
(frontend/python/call_facts.py, backends/numba/specialise.py): accesses those facts prove run
unchecked, in the checked kernel (facts proven there) or in its launch variant (facts its
launch predicates prove); accesses they do not prove still fail, reported."""
import os

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import call_facts_kernels as K
from tests.numba.test_launch_variants import ran_variant

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def callee_statuses(rewritten, name=None):
    """{access text: status} of the checked device functions `rewritten` calls."""
    out = {}
    for dev in rewritten.device_calls.values():
        if name is None or dev.__name__ == name:
            for s in dev.rewritten.sites:
                if s.kind in ("load", "store", "atomic"):
                    out.setdefault(s.text, set()).add(s.status)
    return out


def test_a_window_the_launch_proves_is_read_unchecked_in_the_variant():
    rewritten = K.slope.rewritten
    # the checked kernel's callee checks its reads (once on entry: its indices are constants,
    # body_versioning.py)
    assert callee_statuses(rewritten) and all(
        st == {"hoisted"} for st in callee_statuses(rewritten).values())
    variant = callee_statuses(rewritten.launch_variant)
    assert variant["w[2, 2]"] == {"eliminated"} and variant["cellsize[0]"] == {"eliminated"}
    assert all(st == {"eliminated"} for st in variant.values()), variant
    # the slice itself is no check: it cannot fail
    [window] = [e for e in K.slope.check_report() if e.kind == "load" and e.function == "slope"]
    assert window.status == "eliminated" and "slice never fails" in window.reason
    # the report: the callee's reads are proven at launch, with the kernel's predicates
    callee = [e for e in K.slope.check_report() if e.function == "window_slope"]
    assert len(callee) == 13 and all(e.status == "proven at launch" for e in callee)
    assert "a.shape[0] >= out.shape[0]" in callee[0].predicate
    a = np.arange(48, dtype=np.float64).reshape(6, 8)
    out = cuda.to_device(np.zeros((6, 8)))
    K.slope[(2, 2), (4, 4)](cuda.to_device(a), cuda.to_device(np.array([0.5])), out)
    safekern.sync()
    assert ran_variant(K.slope)
    got = out.copy_to_host()
    w = a[1:4, 1:4]
    dx = (w[0, 2] + 2 * w[1, 2] + w[2, 2]) - (w[0, 0] + 2 * w[1, 0] + w[2, 0])
    dy = (w[2, 0] + 2 * w[2, 1] + w[2, 2]) - (w[0, 0] + 2 * w[0, 1] + w[0, 2])
    assert got[2, 2] == (dx + dy) / 4.0


def test_a_window_past_the_array_still_fails_in_the_callee():
    # `a` smaller than `out`: the predicate fails, the checked kernel runs; the window at the
    # edge of `a` is clamped to two rows, and w[2, ...] is past it.
    out = cuda.to_device(np.zeros((6, 8)))
    K.slope[(2, 2), (4, 4)](cuda.to_device(np.ones((4, 8))), cuda.to_device(np.array([1.0])),
                            out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert "w[" in str(info.value) and "window_slope" in str(info.value)


def test_an_empty_cellsize_still_fails():
    out = cuda.to_device(np.zeros((6, 8)))
    K.slope[(2, 2), (4, 4)](cuda.to_device(np.ones((6, 8))), cuda.to_device(np.zeros(0)), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert "cellsize[0]" in str(info.value)


def test_a_window_proven_in_the_kernel_specialises_the_checked_kernel_call():
    statuses = callee_statuses(K.slope_inside.rewritten)
    assert statuses["w[0, 0]"] == {"eliminated"} and statuses["cellsize[0]"] == {"checked"}


def test_a_row_of_a_local_array_indexed_modulo_its_rows_is_read_unchecked():
    statuses = callee_statuses(K.perlin.rewritten)
    assert statuses == {"vec[f]": {"eliminated"}, "vec[f][0]": {"eliminated"},
                        "vec[f][1]": {"eliminated"}}
    # and the kernel's own stores into rows of its local array
    stores = [e for e in K.perlin.check_report() if e.kind == "store"]
    assert stores and all(e.status == "eliminated" for e in stores)
    p = np.array([0, 1, 2, 3, 5, 7, -1, -6], dtype=np.int64)
    out = cuda.to_device(np.zeros(8))
    K.perlin[1, 8](cuda.to_device(p), out)
    safekern.sync()
    vec = np.array([[0, 1], [0, -1], [1, 0], [-1, 0]])
    np.testing.assert_array_equal(out.copy_to_host(),
                                  [vec[h % 4][0] * 1.0 + vec[h % 4][1] * 2.0 for h in p])


def test_an_index_modulo_more_than_the_rows_stays_checked_and_fails():
    statuses = callee_statuses(K.perlin_five.rewritten)
    assert statuses["vec[f]"] == {"checked"}
    out = cuda.to_device(np.zeros(4))
    K.perlin_five[1, 4](cuda.to_device(np.array([0, 1, 4, 2], dtype=np.int64)), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert "vec[f]" in str(info.value)


def test_a_window_off_by_one_stays_checked_and_fails():
    statuses = callee_statuses(K.pairs_off_by_one.rewritten)
    assert statuses["w[1]"] == {"checked"}
    out = cuda.to_device(np.zeros(4))
    K.pairs_off_by_one[1, 4](cuda.to_device(np.arange(4.0)), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert "w[1]" in str(info.value)


def test_facts_about_a_parameter_end_where_it_is_rebound():
    statuses = callee_statuses(K.rebinding.rewritten)
    assert statuses["w[2]"] == {"eliminated", "checked"}     # before and after `w = other`
    out = cuda.to_device(np.zeros(2))
    K.rebinding[1, 2](cuda.to_device(np.arange(6.0)), cuda.to_device(np.zeros(1)), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert "w[2]" in str(info.value)


_WARM = """
import json
import numpy as np
from numba import cuda
import safekern
from safekern.backends.numba import stored
from tests.numba import call_facts_kernels as K
main = K.slope.rewritten
variant = main.launch_variant
calls = [d for d in variant.device_calls.values()]
statuses = sorted({s.status for d in calls for s in d.rewritten.sites})
out = cuda.to_device(np.zeros((6, 8)))
K.slope[(2, 2), (4, 4)](cuda.to_device(np.ones((6, 8))), cuda.to_device(np.array([1.0])), out)
safekern.sync()
K.slope[(2, 2), (4, 4)](cuda.to_device(np.ones((4, 8))), cuda.to_device(np.array([1.0])), out)
try:
    safekern.sync()
    err = None
except safekern.BoundsError as e:
    err = e.array
print(json.dumps({"stored": stored.is_stored(main), "variant_stored": stored.is_stored(variant),
                  "specialised": [d.specialised_from is not None for d in calls],
                  "statuses": statuses, "error": err}))
"""


def test_a_warm_start_keeps_the_specialised_callees(tmp_path):
    import json
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, SAFEKERN_CACHE=str(tmp_path / "cf.cache"),
               PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _WARM], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert [r["stored"] for r in runs] == [False, True]
    assert [r["variant_stored"] for r in runs] == [False, True]
    assert all(r["specialised"] == [True] and r["statuses"] == ["eliminated"] for r in runs)
    assert all(r["error"] == "w" for r in runs)


@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1",
                    reason="numba-cuda itself cannot compile mutual recursion without signatures "
                           "(its own test_recursion skips: 'Needs insert_unresolved_ref support "
                           "in target'); on a GPU numba's type inference stops at it, so the "
                           "simulator is where this specialisation can run")
def test_mutually_recursive_device_functions_specialise_without_end():
    # ping(view of 2) -> pong(view of 2) -> ping(view of 2): the specialisation of ping asked
    # for while it is being made is ping itself
    out = cuda.to_device(np.zeros(3))
    K.ping_pong[1, 4](cuda.to_device(np.arange(4.0)), out)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host(), [3.0, 6.0, 9.0])


def test_a_slice_beside_an_integer_index_checks_the_integer_only():
    def load_status(kernel):
        [load] = [e for e in kernel.check_report() if e.kind == "load" and e.text == "a[i, 1:3]"]
        return load.status

    assert load_status(K.row_sums_guarded) == "eliminated"
    assert load_status(K.row_sums) != "eliminated"
    out = cuda.to_device(np.zeros(4))
    K.row_sums_guarded[1, 4](cuda.to_device(np.arange(12.0).reshape(3, 4)), out)
    safekern.sync()
    np.testing.assert_array_equal(out.copy_to_host()[:3], [3.0, 11.0, 19.0])
    K.row_sums[1, 4](cuda.to_device(np.arange(12.0).reshape(3, 4)), out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert info.value.array == "a" and info.value.index == 3
