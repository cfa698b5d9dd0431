"""A kernel without barriers leaves once after a run of straight statements that may fail, not
after each (exits.py); the loads of such a run, gathers too, keep their branch (loop_loads.py:
Perlin noise's gathers branch-free held 48 registers against numba's 32, half its occupancy).

What must stay true, run on the simulator: a bad index in any gather of the run is still
reported, at its own line, and a failing thread still writes nothing -- neither through a
checked store in the run nor through a store proven in bounds after it (a plain store, which
does not test the flag: the thread must have left before it).
"""
import numpy as np
import pytest
from numba import cuda

import safekern
from tests.support import differential
from tests.support.rewrites import rewrite

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def two_gathers(p, q, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[p[i] + 1]
        b = q[q[i + 1] + 2]
        out[i] = a + b


def gathers_then_plain_store(p, out, marks):
    i = cuda.grid(1)
    if i < out.shape[0] and i < marks.shape[0]:
        a = p[p[i]]
        b = p[p[i] + 1]
        marks[i] = 7            # proven in bounds: a plain store, which tests no flag
        out[i] = a + b


def _lines(fn):
    import inspect

    src, first = inspect.getsourcelines(fn)
    return {line.strip(): first + k for k, line in enumerate(src)}


def _first_failure(kernel, *args, n=8):
    dev = [cuda.to_device(a) for a in args]
    kernel[1, n](*dev)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    return info.value, [d.copy_to_host() for d in dev]


def _table(n=8):
    p = np.arange(2 * n + 4, dtype=np.int64) % n
    return p


@pytest.mark.parametrize("statement", ["a = p[p[i] + 1]", "b = q[q[i + 1] + 2]"])
def test_a_bad_gather_in_the_run_is_reported_at_its_line(statement):
    p, q = _table(), _table()
    bad = 3
    if statement.startswith("a"):
        p[bad] = 10 ** 6                    # p[p[3] + 1] is out of bounds
    else:
        q[bad + 1] = 10 ** 6                # q[q[4] + 2], read by thread 3, is out of bounds
    err, (_, _, out) = _first_failure(safekern.jit(two_gathers), p, q, np.ones(8))
    assert err.lineno == _lines(two_gathers)[statement]
    assert err.index == 10 ** 6 + (1 if statement.startswith("a") else 2)
    assert out[bad] == 1                    # the failing thread stored nothing
    # every thread's first failure, what escapes, the outputs: the same with elimination off
    diffs = differential.compare_function(two_gathers, 1, 8,
                                          lambda: [p.copy(), q.copy(), np.ones(8)])
    assert not diffs, diffs


def test_a_failing_thread_leaves_before_a_plain_store():
    p = _table()
    p[2] = 10 ** 6                          # thread 2's first gather fails
    kernel = safekern.jit(gathers_then_plain_store)
    err, (_, out, marks) = _first_failure(kernel, p, np.zeros(8), np.zeros(8, np.int64))
    assert err.lineno == _lines(gathers_then_plain_store)["a = p[p[i]]"]
    assert marks[2] == 0, "the failing thread ran on to a store that tests no flag"
    assert list(marks[:2]) == [7, 7]          # (the threads before it ran on)


def test_the_run_leaves_once_and_its_gathers_keep_their_branch(tmp_path):
    rw = rewrite(tmp_path, """
def k(p, out, marks):
    i = cuda.grid(1)
    if i < out.shape[0] and i < marks.shape[0]:
        a = p[p[i]]
        b = p[p[i] + 1]
        marks[i] = 7
        out[i] = a + b
""")
    body = rw.source.split("if i < out.shape[0] and i < marks.shape[0]:")[1]
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    assert lines[0].startswith("a = _sk_load(p, _sk_load(p, i")
    assert lines[1].startswith("b = _sk_load(p, _sk_load(p, i")
    # one exit for the two gathers, before the plain store (not one after each gather)
    assert lines[2] == "if _sk_flag[0]:", lines
    store = lines.index("marks[i] = 7")
    assert "return" in lines[3:store] and lines.count("if _sk_flag[0]:") == 1, lines


def test_a_lone_gather_keeps_its_branch(tmp_path):
    rw = rewrite(tmp_path, """
def k(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = p[p[i]]
""")
    assert "_sk_loadv" not in rw.source


def test_a_print_ends_the_run(tmp_path):
    rw = rewrite(tmp_path, """
def k(p, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[p[i]]
        print(a)
        b = p[p[i] + 1]
        out[i] = a + b
""")
    lines = [line.strip() for line in rw.source.splitlines() if line.strip()]
    first = next(k for k, line in enumerate(lines) if line.startswith("a = "))
    assert "if _sk_flag[0]:" in lines[first:lines.index("print(a)")], lines


FIELD_READS = """
def k(F, G, z, r, out):
    i = cuda.grid(1)
    if i < out.shape[0] and i < z.shape[0] and i < r.shape[0]:
        iz = int(z[i])
        ir = int(r[i])
        a = F[iz, ir]
        b = G[iz, ir]
        c = F[iz + 1, ir]
        d = G[iz + 1, ir + 1]
        out[i] = a + b + c + d
"""


@pytest.mark.parametrize("device", [False, True], ids=["kernel", "device function"])
def test_field_reads_that_are_not_gathers_keep_their_branch(tmp_path, device):
    # fbpic's field gather: eighteen 2-D reads at computed cells in one straight run. Made
    # branch-free (2adaf32) they held 144 registers instead of 112 (nvJitLink, sm_90), which
    # halved the kernel's occupancy: 1.47x -> 1.61x plain numba on an H100 (issue 26).
    body = FIELD_READS if not device else FIELD_READS.replace("out[i] = a + b + c + d",
                                                              "return a + b + c + d")
    rw = rewrite(tmp_path, body, device=device)
    src = rw.source
    reads = [line for line in src.splitlines() if line.strip()[:4] in ("a = ", "b = ", "c = ",
                                                                        "d = ")]
    assert len(reads) == 4 and all("_sk_load(" in line for line in reads), reads
    assert "_sk_loadv" not in src
    if not device:           # (the kernel's run still leaves once after it: exits.py)
        run = src.split("a = ")[1].split("d = ")[0]
        assert "_sk_flag[0]" not in run, src


def test_gathers_and_field_reads_of_a_straight_run_keep_their_branch(tmp_path):
    rw = rewrite(tmp_path, """
def k(p, F, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = p[p[i] + 1]
        b = p[p[i] + 2]
        c = F[i, 1]
        d = F[i, 2]
        out[i] = a + b + c + d
""")
    lines = {line.strip()[:1]: line.strip() for line in rw.source.splitlines()
             if line.strip()[:4] in ("a = ", "b = ", "c = ", "d = ")}
    assert lines["a"].startswith("a = _sk_load(p, _sk_load(p, "), lines
    assert lines["b"].startswith("b = _sk_load(p, _sk_load(p, "), lines
    assert lines["c"].startswith("c = _sk_load(F, "), lines
    assert lines["d"].startswith("d = _sk_load(F, "), lines
