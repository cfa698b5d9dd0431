"""OpenCL C of public projects that builds plainly and that safekern refused or broke (a probe of
444 programs of silx, gputools, PyOpenCL's examples and clEsperanto's kernels, 29 Nov 2026):
the `as_<type>()` reinterpretations (silx's bitonic sort and LZ4 codec) and `printf`
(clEsperanto's detect_maxima_3d_x) are parsed, their arguments' accesses checked; a function
that a function-like macro defines (Random123's `DEF_ROTL(32)`) is refused at its line instead of
a rewrite that no longer builds."""
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


@pytest.mark.parametrize("src, name, line", [
    ("#define DEF_ROTL(W) inline uint rotl##W(uint x, uint n) "
     "{ return (x << n) | (x >> (W - n)); }\nDEF_ROTL(32)\n"
     "__kernel void k(__global uint *out) { int i = get_global_id(0); "
     "out[i] = rotl32(out[i], 3u); }\n", "rotl32", 2),
    ("#define DEF_K(T) \\\n__kernel void add_##T(__global T *a, __global const T *b) "
     "{ int i = get_global_id(0); a[i] += b[i]; }\nDEF_K(float)\n", "add_float", 3),
])
def test_a_function_a_macro_defines_is_refused_at_its_line(clenv, src, name, line):
    cl.Program(clenv.ctx, src).build()            # (PyOpenCL builds it)
    with pytest.raises(safekern.UnsupportedError, match=f"parameter list of '{name}' is "
                       "written through a macro") as info:
        skcl.Program(clenv.ctx, src, filename="macro_fn.cl").build()
    assert (info.value.filename, info.value.lineno) == ("macro_fn.cl", line)


def test_as_type_in_an_included_file_is_parsed(tmp_path):
    """The reinterpretations are declared for a program whose text uses them, and for one whose
    included file does (the parse is tried again with them)."""
    from safekern.frontend.c import opencl

    (tmp_path / "bits.h").write_text("inline uint bits_of(float x) { return as_uint(x); }\n")
    src = ('#include "bits.h"\n__kernel void k(__global uint *o, __global const float *a) '
           '{ int i = get_global_id(0); o[i] = bits_of(a[i]); }\n')
    rw = opencl.rewrite(src, filename="inc.cl", options=(f"-I{tmp_path}",))
    assert {e.text for e in rw.report() if e.kind == "bounds"} == {"o[i]", "a[i]"}
