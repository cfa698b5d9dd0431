"""The C rewrite of asserts and integer divisions, without a device: what is checked, proven
safe or left unchecked (and why), the messages the failure table holds, lines kept, constructs
refused at their line, SAFEKERN_KERNEL_ASSERTS=0 and SAFEKERN_CHECKS=0; the CUDA versions
compile with NVRTC (marker nvrtc)."""
from __future__ import annotations

import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern import failures
from safekern.frontend.c import cuda, messages, opencl
from tests.opencl import c_safety_kernels as K


def ocl(src, **kw):
    rw = opencl.rewrite(src, filename="k.cl", **kw)
    failures.TABLE.register_all(rw.failure_sites)     # as the backend does, so codes decode
    return rw


def cu(src, **kw):
    rw = cuda.rewrite(src, filename="k.cu", **kw)
    failures.TABLE.register_all(rw.failure_sites)
    return rw


def rows(report, kind=None):
    return [(e.lineno, e.text, e.status, e.reason) for e in report
            if (e.kind != "bounds" if kind is None else e.kind == kind)]


def user_lines(text, filename):
    marker = f'#line 1 "{filename}"\n'
    return text[text.index(marker) + len(marker):].split("\n")


def message(code, values=(0, 0, 0), thread=(1, 0, 0), block=(2, 0, 0)):
    buf = [code, *values, *thread, *block, 0] + [0] * (failures.BUFFER_LEN - 11)
    return failures.exception_from_buffer(buf)


# -- what is checked ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(K.CASES))
@pytest.mark.parametrize("dialect", ["opencl", "cuda"])
def test_each_case_checks_its_site_and_keeps_lines(name, dialect):
    case = K.CASES[name]
    src = case.opencl if dialect == "opencl" else case.cuda
    rw = ocl(src) if dialect == "opencl" else cu(src)
    text, report = (rw.source, rw.report())
    line = K.site_line(case, dialect)
    assert [e.lineno for e in report if e.kind == case.kind and e.status == "checked"] == [line]
    body = user_lines(text, "k.cl" if dialect == "opencl" else "k.cu")
    assert len(body) == len(src.split("\n"))
    for before, after in zip(src.split("\n"), body):
        if "__sk_" not in after and "__SK_" not in after:
            assert before == after


def test_messages_name_the_condition_the_expression_and_the_values():
    rw = ocl(K.CASES["divide"].opencl)
    (site,) = [s for s in rw.failure_sites if s.kind == "zero_division" and s.lineno == 4
               and s.message and "x[i] / d[i]" in s.message]
    err = message(site.code, (50, 0, 0))
    assert isinstance(err, safekern.KernelZeroDivisionError) and isinstance(err,
                                                                           ZeroDivisionError)
    assert str(err).splitlines()[0] == "division by zero in `x[i] / d[i]`: `d[i]` is 0 " \
                                       "(dividend 50)"
    assert (err.lineno, err.col, err.end_col) == (4, 12, 23)      # the caret: `x[i] / d[i]`
    assert rw.report() and "^^^^^^^^^^^" in str(err)
    rw = cu(K.CASES["assert_msg"].cuda)
    (entry,) = [s for s in rw.safety if s.kind == "assert"]
    err = message(entry.code, (37, 37, 255))
    assert type(err) is safekern.KernelAssertionError
    assert str(err).splitlines()[0] == "x[37] is 37, not 00ff"
    assert err.kernel == "k" and err.filename == "k.cu" and err.lineno == 3


def test_printf_conversions():
    assert messages.printf_template("a %d b %5i %-3u %08x %X %o %c %% {x}") == (
        "a {0} b {1:5} {2:<3} {3:08x} {4:X} {5:o} {6:c} % {{x}}", 7)
    assert messages.printf_template("%ld %llu %zu") == ("{0} {1} {2}", 3)
    assert messages.printf_template("%f") == (None, None)
    assert messages.c_string(r'"tab\there \"q\" \x41\101"') == 'tab\there "q" AA'


def test_division_sites_by_type_and_divisor():
    src = r"""__kernel void k(__global int *a, __global float *f, int n, uint u) {
    const int four = 4;
    int i = get_global_id(0);
    int4 v = (int4)(i);
    a[i] = i / 3 + i % four + i / n;
    a[i] += (int)(u % (uint)n) + (int)(i / -2);
    f[i] = f[i] / n;
    v = v / n;
    a[i] = (int)(sizeof(int) / 2) + v.x;
}"""
    got = rows(ocl(src).report())
    assert got == [
        (5, "i / 3", "safe", "non-zero constant divisor"),
        (5, "i % four", "safe", "non-zero constant divisor"),
        (5, "i / n", "checked", ""),
        (6, "u % (uint)n", "checked", ""),
        (6, "i / -2", "safe", "non-zero constant divisor"),
        (8, "v / n", "unchecked", "a vector division: its components are not checked"),
        (9, "sizeof(int) / 2", "safe", "non-zero constant divisor"),
    ]
    body = user_lines(ocl(src).source, "k.cl")
    assert "__sk_mod_uint(u , (uint)n" in body[5] and "__sk_div_int(i , n" in body[4]
    assert "] / n;" in body[6] and "__sk_div" not in body[6]      # float: as it was


def test_cuda_templates_constants_lambdas_and_constexpr():
    src = r"""
template <int N> __device__ int part(int x, int y) { return x / N + y / x; }
__device__ constexpr int half(int x, int y) { return x / y; }
template <typename T> __global__ void k(T* a, T d, int n) {
    int i = threadIdx.x;
    __shared__ float tile[N_TILE / 2];
    a[i] = a[i] / d + part<4>(i, n) + half(i, n);
    a[i] /= d;
    auto f = [](int p, int q) { return p % q; };
    auto g = [&](int p) { return p % n; };
    a[i] += f(i, n) + g(i);
}
""".replace("N_TILE", "32")
    got = rows(cu(src).report())
    assert got == [
        (2, "x / N", "checked", ""),
        (2, "y / x", "checked", ""),
        (3, "x / y", "unchecked", "inside a constexpr function, which may run at compile time"),
        (6, "32 / 2", "safe", "non-zero constant divisor"),
        (7, "a[i] / d", "checked", ""),
        (8, "a[i] /= d", "unchecked", "the operand types are template-dependent: write `a = "
                                      "a / b` to have it checked"),
        (9, "p % q", "unchecked", "inside a lambda without a capture default ([=] or [&]), "
                                  "which cannot see safekern's sizes"),
        (10, "p % n", "checked", ""),
    ]


def test_constant_expressions_are_left_to_the_compiler():
    src = r"""
template <int B, int D> __global__ void k(float* a) {
    __shared__ float tile[B / D];
    a[threadIdx.x] = tile[threadIdx.x % (B / D)];
}
"""
    got = rows(cu(src).report())
    assert ("B / D", "unchecked", "a constant expression (left to the compiler)") in \
        [r[1:] for r in got]
    assert "tile[B / D]" in cu(src).source


# -- asserts --------------------------------------------------------------------------------------

def test_assert_forms_and_constant_conditions():
    src = r"""__kernel void k(__global int *a, int n) {
    int i = get_global_id(0);
    SAFEKERN_ASSERT(1);
    SAFEKERN_ASSERT(i < n && a[i] >= 0);
    SAFEKERN_ASSERT_MSG(a[i] != 3, "no threes");
}"""
    rw = ocl(src)
    assert rows(rw.report(), "assert") == [
        (3, "SAFEKERN_ASSERT(1)", "safe", "constant true condition"),
        (4, "SAFEKERN_ASSERT(i < n && a[i] >= 0)", "checked", ""),
        (5, 'SAFEKERN_ASSERT_MSG(a[i] != 3, "no threes")', "checked", ""),
    ]
    body = user_lines(rw.source, "k.cl")
    assert body[2].strip() == "__SK_ASSERT_OFF(1);"
    assert body[3].strip().startswith("(__SK_LIKELY((i < n && a[__sk_ix32((int)(i), ")
    assert '"no threes"' not in body[4] and ", 0, 0, 0))" in body[4]
    # the accesses inside the condition are checked, in both dialects
    assert [e.status for e in rw.report() if e.kind == "bounds" and e.lineno == 4] == ["checked"]


@pytest.mark.parametrize("call, problem", [
    ('SAFEKERN_ASSERT_MSG(i < n, "%d and %d", i)', "the message has 2 conversions and 1 "
                                                   "values are given"),
    ('SAFEKERN_ASSERT_MSG(i < n, "%f", x)', "has a conversion safekern cannot show"),
    ('SAFEKERN_ASSERT_MSG(i < n, "%d", x)', "the values of SAFEKERN_ASSERT_MSG are recorded "
                                            "as integers; `x` is not one"),
    ('SAFEKERN_ASSERT_MSG(i < n, "%d%d%d%d", i, i, i, i)', "at most 3"),
])
def test_misused_asserts_are_refused_at_their_line(call, problem):
    src = f"""#define CHECK(c) SAFEKERN_ASSERT(c)
__kernel void k(__global int *a, int n, float x) {{
    int i = get_global_id(0);
    {call};
}}"""
    with pytest.raises(safekern.UnsupportedError) as info:
        ocl(src)
    assert problem in info.value.problem and info.value.lineno == 4
    assert info.value.filename == "k.cl"


def test_opencl_assert_through_the_sources_own_macro_is_checked():
    # the macro's use is expanded in place (frontend/c/macros.py), on its own line
    src = """#define CHECK(c) SAFEKERN_ASSERT(c)
__kernel void k(__global int *a, int n) {
    int i = get_global_id(0);
    CHECK(i < n);
    a[0] = 1;
}"""
    rw = ocl(src)
    assert [(e.lineno, e.status) for e in rw.report() if e.kind == "assert"] == [(4, "checked")]
    assert "__sk_afail(" in user_lines(rw.source, "k.cl")[3]


def test_cuda_assert_through_a_macro():
    # the source's own macro: its use is expanded in place and the assert checked
    src = r"""#define CHECK(c) assert(c)
extern "C" __global__ void k(int* a, int n) {
    CHECK(threadIdx.x < n);
    SAFEKERN_ASSERT(a[0] == 0);
}"""
    rw = cu(src)
    assert [(r[0], r[2]) for r in rows(rw.report(), "assert")] == [(3, "checked"),
                                                                     (4, "checked")]
    # one the options define stays CUDA's own
    src = r"""extern "C" __global__ void k(int* a, int n) {
    CHECK(threadIdx.x < n);
}"""
    rw = cu(src, options=("-DCHECK(c)=assert(c)",))
    assert rows(rw.report(), "assert") == [
        (2, "CHECK(threadIdx.x < n)", "unchecked", "written through a macro: compiled as "
         "CUDA's own assert (a failure traps and ends the CUDA context)")]
    assert "CHECK(threadIdx.x < n);" in rw.source


def test_asserts_compiled_away_drop_their_accesses():
    src = r"""__kernel void k(__global int *a, int n) {
    int i = get_global_id(0);
    SAFEKERN_ASSERT_MSG(a[i + 1] > 0, "a[%d] = %d", i, a[i]);
    a[i] = a[i] / n;
}"""
    rw = ocl(src, kernel_asserts=False)
    assert [(e.lineno, e.kind, e.status) for e in rw.report()] == [
        (3, "assert", "unchecked"), (4, "bounds", "checked"), (4, "zero_division", "checked"),
        (4, "bounds", "checked")]
    assert user_lines(rw.source, "k.cl")[2].startswith("    __SK_ASSERT_OFF(a[i + 1] > 0,")
    assert "__SK_ASSERT_OFF(...) ((void)0)" in rw.source


def test_checks_off_defines_safekern_assert_as_nothing():
    src = K.CASES["assert_msg"].opencl
    text = opencl.checks_off_source(src, "a.cl")
    assert text.endswith(src) and '#line 1 "a.cl"\n' in text
    assert "#define SAFEKERN_ASSERT_MSG(...) ((void)0)" in text
    assert opencl.checks_off_source(K.CASES["divide"].opencl) == K.CASES["divide"].opencl
    rw = cuda.rewrite(K.CASES["assert_msg"].cuda, filename="a.cu", checks=False)
    assert "#define SAFEKERN_ASSERT_MSG(...) ((void)0)" in rw.source
    assert rw.source.endswith(K.CASES["assert_msg"].cuda)


def test_portable_fallback_definition_is_ignored_by_the_checked_build():
    src = r"""#ifndef SAFEKERN_ASSERT
#define SAFEKERN_ASSERT(c)
#endif
__kernel void k(__global int *a, int n) {
    SAFEKERN_ASSERT(a[0] < n);
}"""
    rw = ocl(src)
    assert rows(rw.report(), "assert") == [(5, "SAFEKERN_ASSERT(a[0] < n)", "checked", "")]


# -- OpenCL barriers and 32-bit codes -------------------------------------------------------------

def test_opencl_division_in_the_header_of_a_barrier_loop_stays_unchecked():
    src = r"""__kernel void k(__global float *a, int tile, int n) {
    __local float s[64];
    for (int t = 0; t < n / tile; t++) {
        s[get_local_id(0)] = a[t];
        barrier(CLK_LOCAL_MEM_FENCE);
        a[t] += s[0] / 2 + (float)(t % tile);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""
    got = rows(ocl(src).report())
    assert got == [
        (3, "n / tile", "unchecked", "in the header of a loop that holds a barrier: a failing "
                                     "work-item could leave the loop while its group waits"),
        (6, "t % tile", "checked", "")]


def test_opencl_helper_with_a_barrier_checks_its_divisions():
    # A helper with barriers that can fail keeps its group together as a kernel does
    # (exits.py), so its divisions and accesses are checked.
    src = r"""float helper(__local float *s, int n, int d) {
    barrier(CLK_LOCAL_MEM_FENCE);
    return (float)(n / d);
}
__kernel void k(__global float *a, int d) {
    __local float s[4];
    a[0] = helper(s, 4, d);
}"""
    (row,) = rows(ocl(src).report(), "zero_division")
    assert row[:3] == (3, "n / d", "checked")
    rw = ocl(src.replace("(n / d)", "(n / d) + s[n]"))
    assert [r[:3] for r in rows(rw.report(), "zero_division")] == [(3, "n / d", "checked")]


def test_opencl_without_64_bit_atomics_uses_31_bit_codes():
    rw = ocl(K.CASES["divide"].opencl, int64_atomics=False)
    (entry,) = [e for e in rw.report() if e.kind == "zero_division"]
    codes = [s.code for s in rw.failure_sites if s.kind == "zero_division"]
    assert f"{failures.code32(codes[0]):#x}L" in rw.source and entry.status == "checked"


# -- NVRTC ----------------------------------------------------------------------------------------

def _nvrtc():
    from safekern.backends.cupy import nvrtc

    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable as err:  # pragma: no cover - CI installs nvidia-cuda-nvrtc
        pytest.skip(f"NVRTC not available: {err}")
    return nvrtc


@pytest.mark.nvrtc
@pytest.mark.parametrize("mode", ["checked", "asserts off", "checks off", "c++11"])
@pytest.mark.parametrize("name", list(K.CASES))
def test_cuda_cases_compile(name, mode):
    nvrtc = _nvrtc()
    from safekern.backends.cupy import api as backend

    src = K.CASES[name].cuda
    rw = cuda.rewrite(src, filename=f"{name}.cu", checks=mode != "checks off",
                      kernel_asserts=mode != "asserts off")
    options = backend.compile_options(())
    if mode == "c++11":
        options = tuple(o for o in options if "-std" not in o) + ("--std=c++11",)
    out = nvrtc.compile_program(rw.source, filename=f"{name}.cu", arch="sm_90",
                                options=options)
    ptx = out.ptx.decode()
    assert out.cubin[:4] == b"\x7fELF"
    # a checked assert is safekern's failure path, not CUDA's trap
    assert ("__assertfail" in ptx) == (mode == "checks off" and name == "assert")


@pytest.mark.nvrtc
def test_cuda_dependent_division_checks_only_integer_instances():
    nvrtc = _nvrtc()
    from safekern.backends.cupy import api as backend

    src = r"""
template <typename T> __global__ void q(T* a, T d) { a[threadIdx.x] = a[threadIdx.x] / d; }
"""
    rw = cuda.rewrite(src, filename="q.cu")
    out = nvrtc.compile_program(rw.source, filename="q.cu", arch="sm_90",
                                options=backend.compile_options(()),
                                name_expressions=("q<int>", "q<float>", "q<unsigned long>"))
    ptx = out.ptx.decode()
    # the int and unsigned long instances test the divisor (one more failure call than the
    # bounds checks make); the float one divides as before
    calls = {}
    for name, sym in out.lowered_names.items():
        body = ptx[ptx.index(f".entry {sym}("):]
        calls[name] = body[:body.index("\n}\n")].count("__sk_fail")
    assert calls["q<int>"] == calls["q<unsigned long>"] == calls["q<float>"] + 1, calls


@pytest.mark.parametrize("where", ["source", "options"])
def test_cuda_assert_follows_ndebug_as_c_does(where):
    src = r"""extern "C" __global__ void k(int* a, int n) {
    assert(a[0] < n);
    SAFEKERN_ASSERT(a[1] < n);
}"""
    if where == "source":
        rw = cuda.rewrite("#define NDEBUG\n" + src, filename="k.cu")
        line = 3
    else:
        rw = cuda.rewrite(src, filename="k.cu", options=("-D", "NDEBUG"))
        line = 2
    assert rows(rw.report(), "assert") == [
        (line, "assert(a[0] < n)", "unchecked", "compiled away (NDEBUG is defined)"),
        (line + 1, "SAFEKERN_ASSERT(a[1] < n)", "checked", "")]       # safekern's own: kept
    assert "__SK_ASSERT_OFF(a[0] < n);" in rw.source
