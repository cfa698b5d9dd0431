"""Accesses, helper calls and barriers written through the source's own macros are checked
(frontend/c/macros.py expands each use in place, on its lines): the expansion follows C's rules,
the rewrite checks what it holds, the result builds and catches an out-of-bounds access written
inside a macro argument on PoCL, at the user's line.

The shapes are those of PyOpenCL's library programs (issue 30): a helper called through a macro
(`GET_RANDOM_NUM(gen_bits(...))`, `TW(i)`), accesses in a reduction macro's arguments
(`PCL_REDUCE(a[i], a[j])`), a barrier macro with its own `;`, an argument-list macro ending in a
comma (`USER_ARGS`).
"""
from __future__ import annotations

from tests.support.opencl_env import clenv  # noqa: F401  (fixture; sets up the ICD vendors first)

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern.frontend.c import macros, opencl, parse as C
from safekern.frontend.c.opencl import OpenCLDialect


def expanded(src: str) -> str:
    d = OpenCLDialect()
    ps = C.parse(src, filename="m.cl", args=d.parse_args(()), headers=d.headers())
    return macros.expand_in_bodies(ps)


def body_line(text: str, lineno: int) -> str:
    return " ".join(text.split("\n")[lineno - 1].split())


def test_expansion_follows_cs_rules_and_keeps_lines():
    src = """#define CAT(a, b) a##b
#define STR(a) #a
#define AT(p, i) p[i]
#define QUAD(p, i) AT(p, AT(p, i))
#define VA(f, ...) f(__VA_ARGS__)
#define SELF SELF[0]
#define N 4
int g(int a, int b) { return a + b; }
__kernel void k(__global int *out, __global int *SELF) {
    int myvar = AT(out, CAT(my, var));
    out[0] = QUAD(out, myvar) + VA(g, out[1],
                                   2);
    out[2] = sizeof(STR(a b)) + SELF;
#undef N
#define N 5
    out[3] = AT(out, N);
    out[4] = N;
}
"""
    text = expanded(src)
    assert body_line(text, 10) == "int myvar = out[myvar];"
    # an argument is expanded before substitution, the result rescanned; what an argument
    # wrote on the use's second line stays there
    assert body_line(text, 11) == "out[0] = out[out[myvar]] + g(out[1],"
    assert body_line(text, 12) == "2);"
    assert body_line(text, 13) == 'out[2] = sizeof(STR(a b)) + SELF[0];'  # no self-expansion
    assert body_line(text, 16) == "out[3] = out[5];"     # the definition in force there
    assert body_line(text, 17) == "out[4] = N;"     # nothing to check: left as written
    assert text.count("\n") == src.count("\n")


def test_macros_from_elsewhere_and_uses_holding_directives_stay_as_written():
    src = """#define ADD(a, b) (a + b)
__kernel void k(__global int *out, int i) {
    out[i] = ADD(out[i],
#ifdef ONE
        1
#else
        2
#endif
    );
    out[0] = CLK_LOCAL_MEM_FENCE;
}
"""
    assert expanded(src) is None


PROGRAM = """int twice(int v) { return 2 * v; }
#define TW(v) twice(v)
#define PCL_REDUCE(a, b) (a + b)
#define local_barrier() barrier(CLK_LOCAL_MEM_FENCE);
#define USER_ARGS input,
#define USER_ARG_DECL __global const int *input,
int get(USER_ARG_DECL int i) { return input[i]; }
__kernel void k(__global int *out, __global const int *input, __local int *ldata, int n)
{
    int lid = get_local_id(0), i = get_global_id(0);
    ldata[lid] = TW(get(USER_ARGS i));
    local_barrier()
    out[i] = PCL_REDUCE(ldata[lid],
                        ldata[(lid + n) % 32]);
}
"""


def test_library_shapes_are_checked_not_refused():
    rw = opencl.rewrite(PROGRAM, filename="k.cl")
    rows = [(e.lineno, e.status.value) for e in rw.report() if e.kind == "bounds"]
    assert rows == [(7, "checked"), (11, "checked"), (13, "checked"), (13, "checked"),
                    (14, "checked")]
    assert "written inside the expansion" not in " ".join(e.reason for e in rw.report())


def test_out_of_bounds_inside_a_macro_argument_is_caught_at_the_users_line(clenv):
    cla = pytest.importorskip("pyopencl.array")
    skcl = pytest.importorskip("safekern.opencl")
    prg = skcl.Program(clenv.ctx, PROGRAM, filename="k.cl").build()
    n = 64
    inp = cla.to_device(clenv.queue, np.arange(n, dtype=np.int32))
    out = cla.zeros(clenv.queue, n, np.int32)
    import pyopencl as cl

    prg.k(clenv.queue, (n,), (32,), out, inp, cl.LocalMemory(32 * 4), np.int32(1))
    safekern.sync()
    expect = 2 * np.arange(n) + 2 * ((np.arange(n) % 32 + 1) % 32 + np.arange(n) // 32 * 32)
    assert (out.get() == expect).all()
    # (lid + n) % 32 stays in bounds; the local buffer is too small by one int
    prg.k(clenv.queue, (n,), (32,), out, inp, cl.LocalMemory(31 * 4), np.int32(1))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.lineno, info.value.array) in ((11, "ldata"), (13, "ldata"),
                                                     (14, "ldata"))
    assert "ldata" in info.value.source_line
