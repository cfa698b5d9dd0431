"""`if computed:` knows what held where `computed = True` ran (flag_facts.py), and nothing more:
each kernel that breaks a premise (a fact over a rebound name, a second True assignment, a
flag passed in, a guard conjunct over a loop variable) keeps its check and still raises.

Rodinia's pathfinder needs one more step: its column is bounded through `valid_xmax`, a
choice (`a if c else b`) in a fact, not in the index, and the launch prover now splits such a
fact's cases as the static prover does (launch.py): `dst.shape[0] >= wall.shape[1]` at launch.
"""
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


PF = 16


def pathfinder_like(wall, dst, border, iteration, scale):
    tx = cuda.threadIdx.x
    w = 1.0 / scale                  # a float scalar: its bound is no predicate (aliases.py)
    cols = wall.shape[1]
    blk_x = (PF - 2 * iteration) * cuda.blockIdx.x - border     # (no grid bound of it)
    blk_xmax = blk_x + PF - 1
    xidx = blk_x + tx
    valid_xmin = -blk_x if blk_x < 0 else 0
    valid_xmax = PF - 1 - (blk_xmax - cols + 1) if blk_xmax > cols - 1 else PF - 1
    is_valid = tx >= valid_xmin and tx <= valid_xmax
    computed = False
    for i in range(iteration):
        computed = False
        if tx >= i + 1 and tx <= PF - i - 2 and is_valid:
            computed = True
    if computed:
        dst[xidx] = wall[0, xidx] * w


def test_a_column_bounded_through_a_choice_is_proven_at_launch():
    kernel = safekern.jit(pathfinder_like)
    found = {r["text"]: r for r in kernel.check_report() if r["kind"] == "store"}
    assert found["dst[xidx]"]["status"] == "proven at launch"
    predicate = found["dst[xidx]"]["predicate"]
    assert "dst.shape[0] >= wall.shape[1]" in predicate and "scale" not in predicate
    wall = np.arange(2 * 40, dtype=np.float64).reshape(2, 40)
    dst = np.full(40, -1.0)
    kernel[4, PF](wall, dst, 1, 2, 2.0)
    safekern.sync()
    written = dst != -1
    assert written.any() and (dst[written] == wall[0][written] / 2).all()


def test_a_launch_breaking_the_predicate_still_raises():
    kernel = safekern.jit(pathfinder_like)
    wall = np.arange(2 * 40, dtype=np.float64).reshape(2, 40)
    with pytest.raises(safekern.BoundsError) as info:
        kernel[4, PF](wall, np.zeros(30), 1, 2, 2.0)      # dst shorter than a row of wall
        safekern.sync()
    assert info.value.array == "dst"
