"""OpenCL C of public projects that builds plainly and that safekern refused or broke (a probe of
444 programs of silx, gputools, PyOpenCL's examples and clEsperanto's kernels, 29 Nov 2026):
the `as_<type>()` reinterpretations (silx's bitonic sort and LZ4 codec) and `printf`
(clEsperanto's detect_maxima_3d_x) are parsed, their arguments' accesses checked; a function
that a function-like macro defines (Random123's `DEF_ROTL(32)`) is compiled as written and
reported unchecked, as CUDA C's are, instead of refused or rewritten into a program that no
longer builds."""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

import safekern

cl = pytest.importorskip("pyopencl")
skcl = pytest.importorskip("safekern.opencl")

pytestmark = pytest.mark.timeout(240, method="thread")

AS_TYPE = """
__kernel void bits(__global uint *out, __global const float *in, int off)
{
    int i = get_global_id(0);
    out[i] = as_uint(in[i + off]);
    uint4 v = as_uint4(vload4(0, in));
    if (i == 0 && v.x != as_uint(in[0])) printf("mismatch %u\\n", v.x);
}
"""


def test_as_type_and_printf_are_checked_and_run(clenv):
    safekern.sync()
    prg = skcl.Program(clenv.ctx, AS_TYPE, filename="as_type.cl").build()
    report = prg.check_report()
    assert {e.text for e in report if e.kind == "bounds"} >= {"in[i + off]", "vload4(0, in)"}
    src = np.linspace(-2, 2, 16).astype(np.float32)
    mf = cl.mem_flags
    inp = cl.Buffer(clenv.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=src)
    out = cl.Buffer(clenv.ctx, mf.READ_WRITE, src.nbytes)
    prg.bits(clenv.queue, (16,), None, out, inp, np.int32(0))
    got = np.empty(16, np.uint32)
    cl.enqueue_copy(clenv.queue, got, out)
    safekern.sync()
    np.testing.assert_array_equal(got, src.view(np.uint32))
    prg.bits(clenv.queue, (16,), None, out, inp, np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.lineno, info.value.index, info.value.size) == (5, 16, 16)


# Random123's shapes: a helper a macro writes (`DEF_ROTL(32)`), one that reads a buffer, a
# kernel a macro writes, and a macro-written helper calling a helper of the source (philox.cl's
# _philox2xWround_tpl -> mulhilo32; the probes' repro_5.py)
MACRO_WRITTEN = r"""
inline uint rotl(uint x, uint n) { return (x << (n & 31)) | (x >> ((32 - n) & 31)); }
#define DEF_ROTL(W) inline uint rotl##W(uint x, uint n) { return (x << n) | (x >> (W - n)); }
DEF_ROTL(32)
#define DEF_LOAD(T) inline T load_##T(__global const T *p, int i) { return p[i]; }
DEF_LOAD(uint)
#define DEF_MIX(W) \
inline uint mix##W(uint a) { return rotl(a, W); }
DEF_MIX(13)
#define DEF_K(T) \
__kernel void add_##T(__global T *a, __global const T *b) { int i = get_global_id(0); a[i] += b[i]; }
DEF_K(uint)
__kernel void k(__global uint *out, __global const uint *in)
{
    int i = get_global_id(0);
    out[i] = rotl32(load_uint(in, i), 3u) + mix13(in[i]) + rotl(in[i], 5u);
}
"""


def _run_both(clenv, checked, plain, name, host_out, host_in):
    """The outputs of kernel `name` of the checked and of the plain program on the same data."""
    mf = cl.mem_flags
    results = []
    for prg in (checked, plain):
        out = cl.Buffer(clenv.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host_out)
        inp = cl.Buffer(clenv.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=host_in)
        getattr(prg, name)(clenv.queue, host_out.shape, None, out, inp)
        got = np.empty_like(host_out)
        cl.enqueue_copy(clenv.queue, got, out)
        results.append(got)
    safekern.sync()
    return results


def test_functions_a_macro_writes_run_unchecked_with_pyopencls_results(clenv):
    """Not refused: compiled as written, reported unchecked with the reason at the macro's use,
    and every kernel (the macro-written one too) gives what plain PyOpenCL gives."""
    safekern.sync()
    checked = skcl.Program(clenv.ctx, MACRO_WRITTEN, filename="r123.cl").build()
    plain = cl.Program(clenv.ctx, MACRO_WRITTEN).build()
    report = checked.check_report()
    (load,) = [e for e in report if e.function == "load_uint"]
    assert load.status == "unchecked" and load.lineno == 6
    assert "'load_uint' is written by macro 'DEF_LOAD'" in load.reason
    assert "compiled as written" in load.reason
    kernel = [e for e in report if e.function == "add_uint"]
    assert kernel[0].text == "kernel add_uint" and kernel[0].lineno == 12
    assert "launched as written, with the user's arguments" in kernel[0].reason
    assert all(e.status == "unchecked" for e in kernel)
    by_text = {e.text: e for e in report if e.function == "k"}
    assert by_text["out[i]"].status != "unchecked" and by_text["in[i]"].status != "unchecked"
    assert "is written by macro" in str(report)
    host_out = np.arange(64, dtype=np.uint32) * np.uint32(2654435761)
    host_in = (np.arange(64, dtype=np.uint32) * np.uint32(40503) + np.uint32(7))[::-1].copy()
    for name in ("k", "add_uint"):
        got, want = _run_both(clenv, checked, plain, name, host_out, host_in)
        np.testing.assert_array_equal(got, want)
    # the checked kernel still checks its own accesses
    small = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, 16 * 4)
    big = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    checked.k(clenv.queue, (64,), None, small, big)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.kernel, info.value.lineno, info.value.size) == ("k", 16, 16)


def test_as_type_in_an_included_file_is_parsed(tmp_path):
    """The reinterpretations are declared for a program whose text uses them, and for one whose
    included file does (the parse is tried again with them)."""
    from safekern.frontend.c import opencl

    (tmp_path / "bits.h").write_text("inline uint bits_of(float x) { return as_uint(x); }\n")
    src = ('#include "bits.h"\n__kernel void k(__global uint *o, __global const float *a) '
           '{ int i = get_global_id(0); o[i] = bits_of(a[i]); }\n')
    rw = opencl.rewrite(src, filename="inc.cl", options=(f"-I{tmp_path}",))
    assert {e.text for e in rw.report() if e.kind == "bounds"} == {"o[i]", "a[i]"}


# silx's backproj_cpu_kernel uses FLOORCEIL_x, a macro written over several lines: its expansion
# kept one line splice (libclang's spelling of the `}` after it), which added a line and moved
# every later failure one line down per use (its d_SLICE stores were reported past the end).
MULTILINE_MACRO = """#define FLOORCEIL(x) {\\
    xm = (int) floor(x);\\
    xp = (int) ceil(x);\\
}
#define AT(arr, i) (arr[i])
kernel void k(global const float *a, global float *out, float x) {
    int xm, xp;
    int i = get_global_id(0);
    FLOORCEIL(x);
    float v = AT(a, i + xm);
    out[i + xp] = v;
}
"""


@pytest.mark.parametrize("x, line, array, text", [
    (0.5, 11, "out", "    out[i + xp] = v;"),
    (-1.5, 10, "a", "    float v = AT(a, i + xm);")])
def test_lines_after_a_multi_line_macro_stay_the_users(clenv, x, line, array, text):
    prg = skcl.Program(clenv.ctx, MULTILINE_MACRO, filename="macro.cl").build()
    mf = cl.mem_flags
    a = cl.Buffer(clenv.ctx, mf.READ_WRITE, 64 * 4)
    out = cl.Buffer(clenv.ctx, mf.READ_WRITE, 64 * 4)
    prg.k(clenv.queue, (64,), None, a, out, np.float32(x))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    e = info.value
    assert (e.lineno, e.array, e.source_line) == (line, array, text)


def test_two_programs_under_one_filename_report_their_own_lines(clenv):
    # (gputools builds templated sources under one name): the failure names B's text, not A's
    a_src = "kernel void k(global float *out, int n) {\n    int i = get_global_id(0);\n" \
            "    out[i] = 1.0f;\n}\n"
    b_src = a_src.replace("out[i] = 1.0f;", "out[i + n] = 2.0f;")
    skcl.Program(clenv.ctx, a_src, filename="same.cl").build()
    b = skcl.Program(clenv.ctx, b_src, filename="same.cl").build()
    out = cl.Buffer(clenv.ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    b.k(clenv.queue, (64,), None, out, np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.lineno, info.value.source_line) == (3, "    out[i + n] = 2.0f;")
