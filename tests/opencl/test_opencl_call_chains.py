"""A failure inside an OpenCL helper function names the calls that led to it (call_chains.py):
the helper's line, then each caller's line, as CUDA C device functions do. Before 29 Nov 2026
such a failure named the helper as if it were the kernel, and no caller."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(180, method="thread")

SRC = """float get(__global const float *a, int i) {
    return a[i];
}

float twice(__global const float *a, int i) {
    return 2.0f * get(a, i);
}

__kernel void direct(__global const float *a, __global float *out, int off) {
    int i = get_global_id(0);
    out[i] = get(a, i + off);
}

__kernel void nested(__global const float *a, __global float *out, int off, int which) {
    int i = get_global_id(0);
    if (which == 0)
        out[i] = twice(a, i + off);
    else
        out[i] = get(a, i) + twice(a, i * off);
}
"""


def _run(clenv, kernel, *scalars):
    q = clenv.queue
    prg = skcl.Program(clenv.ctx, SRC, filename="chains.cl").build()
    a = cla.to_device(q, np.arange(16, dtype=np.float32))
    out = cla.zeros(q, 16, np.float32)
    getattr(prg, kernel)(q, (16,), None, a.data, out.data, *(np.int32(s) for s in scalars))
    return out


def test_a_helper_failure_names_its_caller(clenv):
    out = _run(clenv, "direct", 0)
    safekern.sync()
    np.testing.assert_array_equal(out.get(), np.arange(16))
    _run(clenv, "direct", 1)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.kernel, e.lineno, e.array, e.index, e.size) == ("get", 2, "a", 16, 16)
    assert e.called_from == ("direct",)
    assert [(f.kernel, f.lineno) for f in e.call_chain] == [("direct", 11)]
    text = str(e)
    assert "in device function 'get' called from kernel 'direct' at chains.cl:2" in text
    assert "called from 'direct' at chains.cl:11\n      out[i] = get(a, i + off);\n" \
           "               ^^^" in text


def test_two_levels_and_the_line_of_each_call(clenv):
    out = _run(clenv, "nested", 0, 0)
    safekern.sync()
    np.testing.assert_array_equal(out.get(), 2 * np.arange(16))
    _run(clenv, "nested", 1, 0)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.kernel, e.lineno, e.index) == ("get", 2, 16)
    assert [(f.kernel, f.lineno) for f in e.call_chain] == [("twice", 6), ("nested", 17)]
    # the same helper reached from another line of the same kernel
    _run(clenv, "nested", 2, 1)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.kernel, e.lineno) == ("get", 2) and e.index >= 16
    assert [(f.kernel, f.lineno) for f in e.call_chain] == [("twice", 6), ("nested", 19)]


def test_without_64_bit_atomics_the_helper_is_named_without_its_callers():
    # 31-bit failure codes leave no room for a chain: the helper's own line is reported.
    from safekern.frontend.c.opencl import rewrite

    rw = rewrite(SRC, filename="chains.cl", int64_atomics=False)
    assert "__sk_cs" in rw.source and "^ (long)__sk_cs" not in rw.source
    assert not [s for s in rw.failure_sites if s.kind == "call"]
    rw64 = rewrite(SRC, filename="chains.cl")
    calls = sorted((s.kernel, s.lineno, s.callee) for s in rw64.failure_sites
                   if s.kind == "call")
    assert calls == [("direct", 11, "get"), ("nested", 17, "twice"), ("nested", 19, "get"),
                     ("nested", 19, "twice"), ("twice", 6, "get")]
