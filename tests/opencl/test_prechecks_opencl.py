"""Prechecks (frontend/c/prechecks.py): a checked index that is a private scalar is tested by a
statement before its statement, which returns at once -- only where that is exactly the checked
semantics. The rewrite's text for each rule, and on PoCL the failure each reports: the same
site, line, index, size, axis and work-item as the in-expression check (SAFEKERN_ELIMINATE=0
makes no prechecks), the first failure winning, later launches skipped and counted."""
from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern
from benchmarks import opencl_cases
from safekern.frontend.c import opencl as front
from tests.support.checks import assert_bounds_error
from tests.support.settings import set_safekern

cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(120, method="thread")

PRE = "__sk_fail_bits(__sk_fb,"        # only a precheck calls the record from the user's text
TEST = "if (__SK_UNLIKELY(*__sk_fp)) return;"


def body(source, filename="k.cl", **kw):
    text = front.rewrite(source, filename=filename, **kw).source
    return text[text.rfind("#line 1"):]


def bfs(assume_all=False):
    src = opencl_cases.OPENCL_SOURCES["bfs_step"]
    r = front.rewrite(src, filename="bench.cl", launch_predicates=True)
    if not assume_all:
        return r.source[r.source.rfind("#line 1"):]
    codes = frozenset(p.code for p in r.kernels[0].launch.preds)
    return body(src, "bench.cl", launch_predicates=True, assume=codes)


def test_bfs_step_prechecks_its_private_indexes():
    text = bfs()
    # nindex[u] (the for's init), nlist[k], level[v] (an if's condition), next_frontier[v]
    assert text.count(PRE) == 4
    for var, arr in (("u", "nindex"), ("k", "nlist"), ("v", "level"), ("v", "next_frontier")):
        assert (f"if (__SK_UNLIKELY((ulong)(long)((int)({var})) >= (ulong)(__sk_n_{arr}))) "
                f"{{ __sk_fail_bits(__sk_fb, ") in text
    assert "for (int k = nindex[u];" in text and "int v = nlist[k];" in text
    assert "if (level[v] < 0) {" in text and "next_frontier[v] = 1; }" in text
    # kept in the expression: behind `&&`, and in the for's condition
    assert "u < n && frontier[__sk_ix32((int)(u)," in text
    assert "k < nindex[__sk_ix32((int)(u + 1)," in text


def test_bfs_step_launch_variant_has_no_flag_left():
    """The variant a launch whose predicates hold runs: every check left is a precheck, so
    nothing sets the flag and no test of it is left (the A/B's `precheck` row)."""
    text = bfs(assume_all=True)
    assert text.count(PRE) == 3 and "__sk_ix" not in text and "__sk_fp" not in text


@pytest.mark.parametrize("name, src", [
    ("barrier", "__kernel void k(__global int *a, __local int *t) {\n"
                "    int i = get_global_id(0);\n    a[i] = 1;\n"
                "    barrier(CLK_LOCAL_MEM_FENCE);\n}\n"),
    ("helper with a barrier", "void sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }\n"
                              "__kernel void k(__global int *a) {\n"
                              "    int i = get_global_id(0);\n    a[i] = 1;\n    sync();\n}\n"),
    ("async copy", "__kernel void k(__global int *a, __local int *t) {\n"
                   "    int i = get_global_id(0);\n    a[i] = 1;\n"
                   "    event_t e = async_work_group_copy(t, a, 4, 0);\n"
                   "    wait_group_events(1, &e);\n}\n"),
    ("assigned in the statement", "__kernel void k(__global int *a, __global int *b, int j) {\n"
                                  "    int i = 0;\n    int r = (i = j) + a[i];\n"
                                  "    b[get_global_id(0)] = r;\n}\n"),
    ("incremented in the statement", "__kernel void k(__global int *a, __global int *b) {\n"
                                     "    int i = get_global_id(0);\n"
                                     "    int r = i++ + a[i];\n"
                                     "    b[get_global_id(0)] = r;\n}\n"),
    ("behind &&", "__kernel void k(__global int *a, __global int *b, int n) {\n"
                  "    int i = get_global_id(0);\n    int r = i < n && a[i] > 0;\n"
                  "    b[get_global_id(0)] = r;\n}\n"),
    ("behind ||", "__kernel void k(__global int *a, __global int *b, int n) {\n"
                  "    int i = get_global_id(0);\n    int r = i >= n || a[i] > 0;\n"
                  "    b[get_global_id(0)] = r;\n}\n"),
    ("in a ?: branch", "__kernel void k(__global int *a, __global int *b, int n) {\n"
                       "    int i = get_global_id(0);\n    int r = i < n ? a[i] : 0;\n"
                       "    b[get_global_id(0)] = r;\n}\n"),
    ("in a for condition", "__kernel void k(__global int *a, __global int *b, int i) {\n"
                           "    int s = 0;\n    for (int k = 0; k < a[i]; k++) s += k;\n"
                           "    b[get_global_id(0)] = s;\n}\n"),
    ("in a for increment", "__kernel void k(__global int *a, __global int *b, int i) {\n"
                           "    int s = 0;\n    for (int k = 0; k < 4; k += a[i]) s += k;\n"
                           "    b[get_global_id(0)] = s;\n}\n"),
    ("in a while condition", "__kernel void k(__global int *a, __global int *b, int i) {\n"
                             "    int s = 0;\n    while (a[i] > s) s++;\n"
                             "    b[get_global_id(0)] = s;\n}\n"),
    ("in a device function", "int get(__global int *a, int i) {\n"
                             "    int t[4] = {1, 2, 3, 4};\n    return t[i] + a[0];\n}\n"
                             "__kernel void k(__global int *a, __global int *b, int i) {\n"
                             "    int r = get(a, i);\n"
                             "    b[get_global_id(0)] = r;\n}\n"),
    ("index written by a macro", "#define I i\n"
                                 "__kernel void k(__global int *a, __global int *b, int i) {\n"
                                 "    int r = a[I];\n"
                                 "    b[get_global_id(0)] = r;\n}\n"),
    ("address taken", "__kernel void k(__global int *a, __global int *b, int i) {\n"
                      "    int *p = &i;\n    int r = a[i];\n"
                      "    b[get_global_id(0)] = r;\n}\n"),
    ("after an expression check", "__kernel void k(__global int *a, __global int *b, int i) {\n"
                                  "    int r = a[i + 1] * a[i];\n"
                                  "    b[get_global_id(0)] = r;\n}\n"),
    ("a __local index", "__kernel void k(__global int *a, __global int *b) {\n"
                        "    __local int i;\n    int r = a[i];\n"
                        "    b[get_global_id(0)] = r;\n}\n"),
    ("declared in the statement", "__kernel void k(__global int *a, __global int *b) {\n"
                                  "    int i = 1, x = a[i];\n    int r = x;\n"
                                  "    b[get_global_id(0)] = r;\n}\n"),
])
def test_no_precheck_where_it_would_change_the_semantics(name, src):
    text = body(src)
    assert PRE not in text, name
    # (each index of `i` is the statement's first check: only the rule at stake stops it)
    assert "[__sk_ix32((int)(i)" in text or "__sk_ix32((int)(I)" in text, name


@pytest.mark.parametrize("call", ["sub_group_reduce_add(2)", "work_group_reduce_add(2)"])
def test_no_precheck_in_a_kernel_with_a_group_collective(call):
    src = ("__kernel void k(__global int *a) {\n    int i = get_global_id(0);\n    a[i] = 1;\n"
           f"    a[get_global_id(0)] = {call};\n}}\n")
    text = body(src, options=["-cl-std=CL2.0"])
    assert PRE not in text and "a[__sk_ix32((int)(i)," in text


def test_a_macro_from_the_options_is_not_prechecked():
    src = ("__kernel void k(__global int *a, __global int *b, int i) {\n"
           "    int r = AT(a, i);\n    b[get_global_id(0)] = r;\n}\n")
    text = body(src, options=["-DAT(p,j)=p[j]"])
    assert PRE not in text and "AT(a, i)" in text


def test_a_macro_of_the_source_is_prechecked_as_its_expansion():
    """The source's own function-like macros are written out in the body (macros.py): the
    expansion is the text the rewrite checks, prechecks included."""
    src = ("#define AT(p, j) p[j]\n__kernel void k(__global int *a, __global int *b, int i) {\n"
           "    int r = AT(a, i);\n    b[get_global_id(0)] = r;\n}\n")
    assert "return; } int r = a[i];" in body(src)


@pytest.mark.parametrize("src, before", [
    ("__kernel void k(__global int *a, __global int *b, int i) {\n"
     "    if (a[i] > 0) b[0] = 1;\n}\n", "if (a[i] > 0)"),
    ("__kernel void k(__global int *a, __global int *b, int n) {\n"
     "    for (int j = 0; j < n; j++) b[j] = 1;\n}\n", "b[j] = 1; }"),
    ("__kernel void k(__global int *a, __global int *b, int i) {\n"
     "    switch (a[i]) { case 0: b[0] = 1; break; default: b[0] = 2; }\n}\n", "switch (a[i])"),
    ("__kernel void k(__global int *a, __global int *b, long i, ulong u) {\n"
     "    b[i] = a[u];\n}\n", "b[i] = a[u];"),
])
def test_precheck_before_the_statement(clenv, src, before):
    text = body(src)
    assert PRE in text and before in text
    assert text[:text.index(before)].endswith("return; } ")
    skcl.Program(clenv.ctx, src, filename="k.cl").build()      # builds on PoCL


def test_an_unbraced_body_gets_braces():
    text = body("__kernel void k(__global int *b, int n) {\n"
                "    for (int j = 0; j < n; j++) b[j] = 1;\n}\n")
    assert "j++) { if (__SK_UNLIKELY((ulong)(long)((int)(j)) >= " in text
    assert "return; } b[j] = 1; }" in text


def test_a_ulong_index_records_that_it_is_unsigned():
    text = body("__kernel void k(__global int *a, ulong u) {\n    a[u] = 1;\n}\n")
    assert "if (__SK_UNLIKELY((ulong)((long)(u)) >= (ulong)(__sk_n_a))) { __sk_fail_bits(" \
           "__sk_fb, " in text and ", __sk_n_a, 0, 1); return; }" in text


# -- behaviour on PoCL ------------------------------------------------------------------------

STEP = opencl_cases.OPENCL_SOURCES["bfs_step"]
GATHER = """__kernel void gather(__global const int *idx, __global const float *x,
                     __global float *y, __global float *z) {
    int v = idx[get_global_id(0)];
    float t = x[v];
    y[v] = t;
    z[get_global_id(0)] = t;
}
__kernel void fill(__global float *y, float c) { y[get_global_id(0)] = c; }
"""


def _gather_failure(clenv, monkeypatch, eliminate, bad):
    set_safekern(monkeypatch, ELIMINATE=int(eliminate))
    prg = skcl.Program(clenv.ctx, GATHER, filename="g.cl").build()
    q = clenv.queue
    idx = np.arange(32, dtype=np.int32)
    idx[21] = bad
    x = cla.to_device(q, np.arange(32, dtype=np.float32))
    y, z = cla.zeros(q, 32, np.float32), cla.zeros(q, 32, np.float32)
    prg.gather(q, (32,), (8,), cla.to_device(q, idx), x, y, z)
    for _ in range(2):
        prg.fill(q, (32,), (8,), z, np.float32(3))
    e = assert_bounds_error(kernel="gather", lineno=4, array="x", index=bad, size=32,
                            thread=(5, 0, 0), block=(2, 0, 0), axis=0)
    assert "float t = x[v];" in str(e)
    return e


@pytest.mark.parametrize("bad", [32, -7, 2 ** 31 - 1, -2 ** 31])
def test_a_precheck_reports_what_the_expression_check_reports(clenv, monkeypatch, bad):
    """The first bad access (line 4) wins over the next statement's (line 5), negative
    indexes included; the two later launches are skipped and counted."""
    text = body(GATHER)
    assert text.count(PRE) == 2      # x[v], y[v] (idx, z: get_global_id(0), no variable)
    ours = _gather_failure(clenv, monkeypatch, True, bad)
    plain = _gather_failure(clenv, monkeypatch, False, bad)
    assert str(ours) == str(plain)
    for name in ("index", "size", "axis", "thread", "block", "lineno", "col",
                 "skipped_launches"):
        assert getattr(ours, name) == getattr(plain, name), name
    assert ours.skipped_launches == 2


def test_bfs_step_runs_and_fails_as_before(clenv, monkeypatch):
    q = clenv.queue
    nindex = np.array([0, 2, 3, 5, 6], np.int32)
    nlist = np.array([1, 2, 0, 3, 1, 2], np.int32)
    level = np.array([0, -1, -1, -1], np.int32)
    frontier = np.array([1, 0, 0, 0], np.uint8)
    want = np.array([0, 1, 1, 0], np.uint8)
    for eliminate in (1, 0):
        set_safekern(monkeypatch, ELIMINATE=eliminate)
        prg = skcl.Program(clenv.ctx, STEP, filename="bench.cl").build()
        nxt = cla.zeros(q, 4, np.uint8)
        prg.bfs_step(q, (4,), (4,), cla.to_device(q, nindex), cla.to_device(q, nlist),
                     cla.to_device(q, frontier), cla.to_device(q, level), nxt, np.int32(4))
        safekern.sync()
        np.testing.assert_array_equal(nxt.get(), want)
    errors = []
    for eliminate in (1, 0):
        set_safekern(monkeypatch, ELIMINATE=eliminate)
        prg = skcl.Program(clenv.ctx, STEP, filename="bench.cl").build()
        bad = nlist.copy()
        bad[1] = -3                       # vertex 0's second neighbour: level[-3]
        prg.bfs_step(q, (4,), (4,), cla.to_device(q, nindex), cla.to_device(q, bad),
                     cla.to_device(q, frontier), cla.to_device(q, level), cla.zeros(q, 4, np.uint8),
                     np.int32(4))
        errors.append(assert_bounds_error(kernel="bfs_step", array="level", index=-3, size=4,
                                          thread=(0, 0, 0), block=(0, 0, 0)))
    assert errors[0].lineno == errors[1].lineno and errors[0].col == errors[1].col
