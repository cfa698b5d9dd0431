"""Loop versioning of CUDA C (frontend/c/loop_versions.py): a counted loop whose body only reads
memory runs a copy with its affine accesses checked once before the loop and its data-dependent
ones checked without a branch; anything else keeps the loop as the rewrite checks it. Here the
rewrite and NVRTC (no GPU); under `-m gpu` the failures a versioned loop reports are the
checked loop's."""
import re

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern  # noqa: E402
from safekern.backends.cupy import nvrtc, program  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402
from tests.support.cupy_device import cupy_with_a_device  # noqa: E402

SPMV = r"""
extern "C" __global__ void spmv(const int* indptr, const int* indices, const float* data,
                                const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n) {
        float acc = 0.0f;
        for (int k = indptr[row]; k < indptr[row + 1]; k++)
            acc += data[k] * x[indices[k]];   // @spmv
        y[row] = acc;
    }
}
"""

GRID_STRIDE = r"""
extern "C" __global__ void total(const float* x, float* out, int n) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += x[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""

#: loops that must stay as they are: (why, body of `for (int k = lo; k < hi; k++) ...`)
KEPT = {
    "a store": "y[k] = x[k];",
    "a store through a local pointer": "{ float* p = y; p[k] = x[k]; }",
    "a store to a parameter the function moves": "{ y[k] = x[k]; y += 1; }",
    "a call": "acc += __ldg(&x[k]);",
    "an inner loop": "for (int j = 0; j < 2; j++) acc += x[k + j];",
    "the counter changed": "{ acc += x[k]; k += 1; }",
    "the bound changed": "{ acc += x[k]; hi -= 1; }",
    "a return": "{ if (x[k] < 0) return; acc += x[k]; }",
}


def _rewrite(src, name="v.cu"):
    return cuda.rewrite(src, filename=name, arch="sm_90").source


def _body(text):
    return text[text.rfind("#line 1"):]


def test_spmv_is_versioned():
    text = _body(_rewrite(SPMV))
    fast, slow = text.split("} else for", 1)
    # before the loop: start and bound once (checked), the affine accesses over the range
    assert re.search(r"__sk_lo\w+ = \(long long\)\(int\)\(indptr \[ __sk_ix32\( row ,", fast)
    # (data[k], indices[k]: k itself, from lo to the last k)
    assert fast.count("__sk_vin(") == 2 and "(__sk_n_3) > 0" in fast
    # x's last element as an int index reaches it (an extent capped at 2**31)
    assert re.search(r"unsigned int (__sk_dl\w+) = \(unsigned int\)\(\(\(__sk_n_3\) < "
                     r"2147483648LL \? \(__sk_n_3\) : 2147483648LL\) - 1LL\);", fast)
    # first a scan: the loop with x[...] clamped and the largest column kept, then acc as
    # before the loop (its work is dead: only the largest column is left of it)
    assert "data [ k ] * x [ __sk_dm32( indices [ k ] , __sk_dl" in fast
    assert re.search(r"decltype\(acc\) (__sk_sv\w+) = acc; for .*; acc = \1; "
                     r"(__sk_vr\w+) = (__sk_dq\w+) > (__sk_dl\w+); \} if \(!\2\) \{ for ", fast)
    # then the work: x[...] clamped only, no running maximum in the loop that loads x
    work = fast[fast.rindex("if (!__sk_vr"):]
    assert "data [ k ] * x [ __sk_dc32( indices [ k ] , __sk_dl" in work
    assert "__sk_dm32" not in work and "__sk_dq" not in work
    # a column past x's last: the loop as the rewrite checks it, from the locals as they were
    assert "acc += data[__sk_ix(k, __sk_n_2," in slow and "x[__sk_ix(indices[__sk_ix(k," in slow


def _loops_of(ptx):
    """The PTX lines of each loop (a label and the branch back to it)."""
    lines, where, out = ptx.splitlines(), {}, []
    for i, ln in enumerate(lines):
        m = re.match(r"^\s*(\$L__BB\d+_\d+):", ln)
        if m:
            where[m.group(1)] = i
        b = re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+)", ln)
        if b and b.group(1) in where:
            out.append("\n".join(lines[where[b.group(1)]:i + 1]))
    return out


def test_spmv_loop_that_loads_x_keeps_no_running_maximum():
    """The loop that loads x (the work) is the user's loop with a clamp: a running maximum
    there cost the H100 1.85x (NVRTC kept 32 registers and issued 3 loads ahead instead of
    21); the maximum is found by the scan before it, a loop that loads no float."""
    ptx = nvrtc.compile_program(_rewrite(SPMV), filename="v.cu", arch="sm_90",
                                options=program.compile_options(()), cubin=False).ptx.decode()
    loops = _loops_of(ptx[ptx.index(".entry spmv("):])
    work = [lp for lp in loops if "ld.global.f32" in lp]
    scans = [lp for lp in loops if "max.u32" in lp]
    assert work and scans
    assert not any("max.u32" in lp for lp in work)
    assert all("min.u32" in lp for lp in work if "fma.rn.f32" in lp)


#: an index carried from one iteration to the next (pos, acc saved before the loop)
CARRIED = r"""
extern "C" __global__ void walk(const int* step, const float* x, float* y, int n, int len) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n) {
        float acc = 0.0f;
        int pos = row;
        for (int k = 0; k < len; k++) {
            pos += step[row * len + k];
            acc += x[pos];
        }
        y[row] = acc + pos;
    }
}
"""

IF_BODY = r"""
extern "C" __global__ void pos(const float* x, float* out, int n) {
    float acc = 0.0f;
    for (int k = 0; k < n; k++) if (x[k] > 0.0f) acc += x[k];
    for (int k = 0; k < n; k++) { acc += x[k]; };
    out[0] = acc;
}
"""


def test_versioned_sources_compile():
    assert _body(_rewrite(IF_BODY)).count("__sk_vin(") == 3         # both loops (x[k])
    carried = _body(_rewrite(CARRIED))
    assert "decltype(pos) __sk_sv" in carried and "decltype(acc) __sk_sv" in carried
    for src in (SPMV, GRID_STRIDE, K.GATHER, IF_BODY, CARRIED):
        out = nvrtc.compile_program(_rewrite(src), filename="v.cu", arch="sm_90",
                                    options=program.compile_options(()), cubin=True)
        assert out.cubin[:4] == b"\x7fELF" and "warning" not in out.log, out.log


def test_a_loop_invariant_step_is_tested_positive_and_without_overflow():
    text = _body(_rewrite(GRID_STRIDE))
    step = "(long long)(blockDim . x * gridDim . x)"
    assert f"{step} > 0" in text and f"<= 2147483647LL - {step}" in text
    # the start converted to the counter's type first (a wrapped int start stays negative)
    assert "= (long long)(int)(blockIdx . x * blockDim . x + threadIdx . x)" in text


@pytest.mark.parametrize("why", sorted(KEPT))
def test_loops_that_are_kept(why):
    src = ("extern \"C\" __global__ void k(const float* x, float* y, int lo, int hi) {\n"
           "    float acc = 0.0f;\n"
           f"    for (int k = lo; k < hi; k++) {KEPT[why]}\n"
           "    y[0] = acc;\n}\n")
    text = _body(_rewrite(src))
    assert "int k = __sk_lo" not in text, why           # the k loop is left as it is
    # (an inner loop of its own is versioned: k is invariant in it)
    assert ("__sk_lo" in text) == (why == "an inner loop"), why


def test_a_loop_writing_a_shared_or_global_variable_is_kept():
    # (a bad index makes the loop run again: writes others may see must not happen twice)
    for decl in ("__shared__ float sh;", "static __device__ float sh;"):
        src = (("__device__ float sh;\n" if "static" in decl else "") +
               "extern \"C\" __global__ void k(const float* x, const int* ix, float* y, int n) {\n"
               f"    {'' if 'static' in decl else decl}\n"
               "    for (int k = 0; k < n; k++) sh += x[ix[k]];\n"
               "    y[0] = sh;\n}\n")
        text = _body(_rewrite(src))
        assert "__sk_dm32(" not in text and "int k = __sk_lo" not in text, decl


def test_a_macro_for_a_constant_may_be_in_the_loop_another_macro_not():
    src = ("#define TILE 4\n#define LIMIT (n - r)\n"
           "extern \"C\" __global__ void k(const float* x, float* y, int n) {\n"
           "    int r = threadIdx.x; float acc = 0.0f, other = 0.0f;\n"
           "    for (int i = 0; i < TILE; i++) acc += x[r * TILE + i];\n"
           "    for (int i = 0; i < LIMIT; i++) other += x[r + i];\n"
           "    y[r] = acc + other;\n}\n")
    text = _rewrite(src)
    assert _body(text).count("__sk_vok(") == 1 and "x [ r * TILE + i ]" in _body(text)
    out = nvrtc.compile_program(text, filename="v.cu", arch="sm_90",
                                options=program.compile_options(()), cubin=True)
    assert out.cubin[:4] == b"\x7fELF" and "warning" not in out.log, out.log


def test_checks_off_and_eliminate_off_leave_loops_alone():
    assert "__sk_dm32(" not in _body(cuda.rewrite(SPMV, checks=False).source)
    assert "__sk_dm32(" not in _body(cuda.rewrite(SPMV, eliminate=False).source)


# -- on a GPU: a versioned loop reports what the checked loop reports -------------------------

@pytest.mark.gpu
def test_on_a_gpu_versioned_spmv_computes_and_reports_like_the_checked_loop():
    cp = cupy_with_a_device()
    import safekern.cupy as skcp

    k = skcp.RawKernel(SPMV, "spmv", filename="spmv_versioned.cu")
    indptr = cp.asarray(np.array([0, 2, 2, 5], np.int32))
    indices = cp.asarray(np.array([0, 3, 1, 2, 3], np.int32))
    data = cp.asarray(np.arange(1, 6, dtype=np.float32))
    x = cp.asarray(np.array([1, 10, 100, 1000], np.float32))
    y = cp.zeros(3, cp.float32)
    k((1,), (32,), (indptr, indices, data, x, y, np.int32(3)))
    safekern.sync()
    np.testing.assert_array_equal(y.get(), [1 + 2000, 0, 30 + 400 + 5000])
    # a column past x: the data-dependent check, the first bad one of the row
    bad = cp.asarray(np.array([0, 3, 1, 7, 9], np.int32))
    k((1,), (32,), (indptr, bad, data, x, y, np.int32(3)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.array, e.index, e.size, e.lineno) == ("x", 7, 4, K.line(SPMV, "spmv"))
    # a row range past data: the affine check, in the loop that checks every access
    long_ptr = cp.asarray(np.array([0, 2, 2, 6], np.int32))
    k((1,), (32,), (long_ptr, indices, data, x, y, np.int32(3)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert e.array in ("data", "indices") and (e.index, e.size) == (5, 5)
