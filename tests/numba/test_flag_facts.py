"""`if computed:` knows what held where `computed = True` ran (flag_facts.py), and nothing more:
each kernel that breaks a premise (a fact over a rebound name, a second True assignment, a
flag passed in, a guard conjunct over a loop variable) keeps its check and still raises."""
import numpy as np
import pytest
from numba import cuda

import safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def flag_after_loop(a, out, n):
    tx = cuda.threadIdx.x
    ok = False
    for i in range(n):
        ok = False
        if tx < a.shape[0] and i % 2 == 0:
            ok = True
    if ok:
        out[tx] = a[tx]


def rebound_after(a, out):
    j = cuda.threadIdx.x
    ok = False
    if j < a.shape[0]:
        ok = True
    j = j + 100                      # the fact `j < a.shape[0]` no longer holds
    if ok:
        out[0] = a[j]


def two_true(a, out, j):
    ok = False
    if j < a.shape[0]:
        ok = True
    if j > 500:
        ok = True                    # a second way to True, under no bound on j
    if ok:
        out[0] = a[j]


def passed_in(a, out, ok, j):
    if j < a.shape[0]:
        ok = True
    if ok:                           # the caller may pass True
        out[0] = a[j]


def loop_variable(a, out, n):
    ok = False
    i = 0
    for i in range(n):
        if i >= 0 and i < a.shape[0] and i % 7 == 0:
            ok = True
    if ok:
        out[0] = a[i]                # i is n - 1 here, not the i compared with a.shape[0]


def _statuses(fn):
    kernel = safekern.jit(fn)
    return kernel, {r["text"]: (r["status"], r["reason"]) for r in kernel.check_report()
                    if r["kind"] == "load"}


def test_the_flag_carries_its_guard_past_the_loop():
    kernel, found = _statuses(flag_after_loop)
    status, reason = found["a[tx]"]
    assert status == "eliminated" and "the flag at line" in reason, found
    a, out = np.arange(4.0), np.zeros(8)
    kernel[1, 8](a, out, 5)
    safekern.sync()
    assert list(out) == [0.0, 1.0, 2.0, 3.0, 0, 0, 0, 0]


@pytest.mark.parametrize("fn, args", [
    (rebound_after, lambda: (np.arange(8.0), np.zeros(1))),
    (two_true, lambda: (np.arange(8.0), np.zeros(1), 2000)),
    (passed_in, lambda: (np.arange(8.0), np.zeros(1), True, 2000)),
    (loop_variable, lambda: (np.arange(8.0), np.zeros(1), 20)),
])
def test_a_broken_premise_keeps_the_check(fn, args):
    kernel, found = _statuses(fn)
    site = next(text for text in found if text.startswith("a["))
    # (a launch predicate over the scalars may prove it where it holds: not here)
    assert found[site][0] in ("checked", "proven at launch"), found
    with pytest.raises(safekern.BoundsError) as info:
        kernel[1, 2](*args())
        safekern.sync()
    assert info.value.array == "a"
