"""The gathers of a straight run are checked again at the run's end (frontend/python/gathers.py):
every load of the run is issued before the first branch of its checks, as in numba's kernel
(a Perlin-like kernel: six global loads in one stretch, one before).

What must stay true: each failure is still recorded, at its own line, before the run's effects
(the thread leaves after the run as before); a run holds no store, no conditional load and no
call of a device function that checks or stores; a load's record reads the array it loaded
from. Behaviour runs on the simulator here (its helpers record where the load is) and on the
GPU with `-m gpu`, where the records come at the run's end."""
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import gather_kernels as K

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(300)]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _lines(kernel):
    source = kernel.rewritten.source
    return [line.strip() for line in source.splitlines() if line.strip()]


def _first(lines, prefix):
    return next(k for k, line in enumerate(lines) if line.startswith(prefix))


def test_the_four_gathers_load_before_their_checks():
    lines = _lines(K.perlin_like)
    loads = [k for k, line in enumerate(lines) if "_sk_loadq(" in line]
    checks = [k for k, line in enumerate(lines) if line.startswith("_sk_load_check(")]
    assert sum(line.count("_sk_loadq(") for line in lines) == 8
    # p[xi] and p[xi + 1] are read twice each: one check each (the first's)
    assert len(checks) == 6 and max(loads) < min(checks), lines
    # in the order the loads ran: each index kept in a temporary of its own
    assert [lines[k].split(", ")[1] for k in checks] == \
        ["_sk_gi0", "_sk_gi1", "_sk_gi3", "_sk_gi5", "_sk_gi6", "_sk_gi8"], lines
    # then the arithmetic on the loaded values (no index alive through it), one exit, the store
    assert max(checks) < _first(lines, "n00 = _sk_dev0(vec, _sk_gv2,") < \
        lines.index("if _sk_flag[0]:") < _first(lines, "out[i, j] =")
    # its failing checks end the thread (exit_mode.py): the joins would keep the indices alive
    assert K.perlin_like.rewritten.checks_exit


def test_a_device_function_that_checks_ends_the_run():
    assert "_sk_loadq" not in K.calls_a_checked_device_function.rewritten.source


def test_a_store_ends_the_run_after_its_checks():
    lines = _lines(K.store_between)
    store = _first(lines, "_sk_store(out, j")
    before = [k for k, line in enumerate(lines) if line.startswith("_sk_load_check(")]
    # (c = p[b] is no gather: it keeps its own branch, loop_loads.py)
    assert [k < store for k in before] == [True, True, False, False], lines


def test_a_conditional_load_is_not_deferred():
    lines = _lines(K.conditional_load)
    assert "_sk_loadq" not in lines[_first(lines, "a = ")]
    assert lines[_first(lines, "b = ")].startswith("b = _sk_gv")
    assert _first(lines, "a = ") < _first(lines, "_sk_gi0 = i")


def test_an_element_read_twice_is_checked_once_while_its_index_holds():
    lines = _lines(K.read_twice)
    checks = [line.split(", ")[:2] for line in lines if line.startswith("_sk_load_check(")]
    # p[i] twice (one check), q twice, then i changes: p[i] is another element, checked again
    assert sum(line.count("_sk_loadq(") for line in lines) == 6, lines
    assert checks == [["_sk_load_check(p", "_sk_gi0"], ["_sk_load_check(q", "_sk_gi1"],
                      ["_sk_load_check(q", "_sk_gi3"], ["_sk_load_check(p", "_sk_gi5"],
                      ["_sk_load_check(q", "_sk_gi6"]], lines
    assert lines[_first(lines, "_sk_gi3 = ")].startswith("_sk_gi3 = _sk_loadq(p, _sk_gi0,")
    # the last gather reads i after `i = i + 1`, and comes after it; the checks after it
    assert lines.index("i = i + 1") < lines.index("_sk_gi5 = i") < \
        _first(lines, "_sk_load_check(")


def test_an_index_computed_by_a_call_is_checked_each_time():
    # (a call may give another value each time -- a random number generator's -- so the same
    # text is not the same element)
    lines = _lines(K.read_twice_through_a_call)
    assert sum(line.startswith("_sk_load_check(p") for line in lines) == 2, lines


def test_a_call_that_does_more_than_compute_keeps_its_run_as_it_was():
    # a random number generator writes its state: its gathers are not moved nor deferred
    assert "_sk_loadq" not in K.random_gathers.rewritten.source


def test_a_reassigned_array_ends_the_run():
    lines = _lines(K.reassigned)
    assert _first(lines, "_sk_load_check(p, _sk_gi1") < lines.index("p = q") < \
        _first(lines, "_sk_gi3 = ")


@pytest.fixture(scope="module")
def ptx_summary():
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "tests.numba.gather_probe"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        if "NVVM" in proc.stderr and "not found" in proc.stderr.lower():
            pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
        raise AssertionError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_loads_issue_together_as_in_numbas_kernel(ptx_summary):
    # numba's kernel: all six in one stretch (the four outer ones wait for the two inner ones
    # anyway); checked, the four outer ones together after the inner ones' checks (one at a
    # time before gathers.py)
    assert ptx_summary["cas64"] >= 6           # every element gathered still checked
    assert ptx_summary["plain"] >= ptx_summary["checked"] >= 4, ptx_summary


def _line_of(kernel, text):
    src, first = inspect.getsourcelines(kernel.py_func)
    return first + next(k for k, line in enumerate(src) if text in line)


def _table():
    return (np.arange(64, dtype=np.int64) * 5) % 17


def _perlin_reference(p, shape):
    vec = np.array([[0, 1], [0, -1], [1, 0], [-1, 0]], np.int32)
    out = np.zeros(shape, np.float32)
    for i in range(shape[0]):
        for j in range(shape[1]):
            x, y = j * 0.25, i * 0.25
            xi, yi = int(x), int(y)

            def grad(h, a, b):
                f = h % 4
                return vec[f][0] * a + vec[f][1] * b
            out[i, j] = (grad(p[p[xi] + yi], x - xi, y - yi) +
                         grad(p[p[xi] + yi + 1], x - xi, y - yi - 1) +
                         grad(p[p[xi + 1] + yi + 1], x - xi - 1, y - yi - 1) +
                         grad(p[p[xi + 1] + yi], x - xi - 1, y - yi))
    return out


def test_the_noise_is_numbas():
    p = _table()
    d_out = cuda.to_device(np.zeros((8, 8), np.float32))
    K.perlin_like[(1, 1), (8, 8)](cuda.to_device(p), d_out)
    safekern.sync()
    assert np.allclose(d_out.copy_to_host(), _perlin_reference(p, (8, 8)))


@pytest.mark.parametrize("line", ["n00 = ", "n11 = "])
def test_a_bad_gather_is_reported_at_its_line_and_nothing_is_written(line):
    p = _table()
    if line == "n00 = ":
        p[0] = 10_000               # thread (0, 0), xi = yi = 0: n00's p[p[0] + 0] is p[10_000]
        want, index = "n00 = ", 10_000
    else:
        p[1] = 500                  # n11's p[p[0 + 1] + 0 + 1] is p[501] (n00, n01 read p[0])
        want, index = "n11 = ", 501
    d_out = cuda.to_device(np.full((4, 4), 7, np.float32))
    K.perlin_like[(1, 1), (4, 4)](cuda.to_device(p), d_out)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert err.lineno == _line_of(K.perlin_like, want) and err.array == "p"
    assert err.index == index and err.thread == (0, 0, 0)
    out = d_out.copy_to_host()
    assert out[0, 0] == 7, "the failing thread wrote its stand-in result"
