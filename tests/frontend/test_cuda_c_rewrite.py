"""The CUDA C rewrite (no GPU, no CuPy): golden rewritten sources, what is checked, hidden
parameters, line numbers kept, constructs rejected at their line."""
import os
import re
import pathlib

import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern.frontend.c import cuda
from tests.cupy import cuda_c_kernels as K

GOLDEN = pathlib.Path(__file__).parent / "golden" / "cuda"
GOLDEN_CASES = ["gather", "shift", "histogram", "transpose", "block_sum", "copy_via", "axpy",
                "row_sums", "advance", "smooth", "vote", "cg_scan"]


def user_part(text: str, filename: str) -> str:
    marker = f'#line 1 "{filename}"\n'
    assert marker in text
    return text[text.index(marker) + len(marker):]


@pytest.mark.parametrize("name", GOLDEN_CASES)
def test_golden_rewrite(name):
    src, _ = K.COMPILING[name]
    rw = cuda.rewrite(src, filename=f"{name}.cu")
    got = user_part(rw.source, f"{name}.cu")
    path = GOLDEN / f"{name}.cu"
    if os.environ.get("UPDATE_GOLDEN") == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got)
        if os.environ.get("UPDATE_GOLDEN") != "1":
            pytest.fail(f"golden file {path} was missing and has been written; check it in")
    assert got == path.read_text(), f"rewrite of {name} changed (UPDATE_GOLDEN=1 rewrites)"


@pytest.mark.parametrize("name", sorted(K.COMPILING))
def test_lines_are_kept(name):
    src, _ = K.COMPILING[name]
    rw = cuda.rewrite(src, filename=f"{name}.cu")
    body = user_part(rw.source, f"{name}.cu")
    assert body.count("\n") == src.count("\n")
    # Every line that was not edited is unchanged, at the same line number.
    for before, after in zip(src.split("\n"), body.split("\n")):
        if "__sk_" not in after:
            assert before == after


def test_gather_checks_every_subscript_against_its_parameter():
    rw = cuda.rewrite(K.GATHER, filename="gather.cu")
    report = rw.report()
    assert [(e.array, e.status) for e in report] == [
        ("out", "checked"), ("src", "checked"), ("idx", "checked")]
    assert all(e.lineno == K.line(K.GATHER, "gather") for e in report)
    (kernel,) = rw.kernels
    assert kernel.name == "gather" and kernel.extern_c and not kernel.template
    assert [p.name for p in kernel.pointer_params] == ["out", "src", "idx"]
    assert "long long __sk_bytes_0, long long __sk_bytes_1, long long __sk_bytes_2, " \
           "long long* __sk_fb)" in rw.source
    assert "if (__sk_enter(__sk_fb)) return;" in rw.source


def test_hidden_parameters_of_a_kernel_without_parameters():
    rw = cuda.rewrite('extern "C" __global__ void k() { }\n'
                      'extern "C" __global__ void v(void) { }\n', filename="e.cu")
    assert 'void k(long long* __sk_fb)' in rw.source
    assert 'void v(long long* __sk_fb)' in rw.source


def test_constant_indexes_into_arrays_are_proven_safe():
    rw = cuda.rewrite(K.LOCAL_ARRAY, filename="window.cu")
    statuses = {(e.text, e.status) for e in rw.report()}
    assert ("acc[k]", "checked") in statuses
    assert ("acc[0]", "eliminated") in statuses and ("acc[3]", "eliminated") in statuses


def test_static_shared_arrays_are_checked_per_axis():
    rw = cuda.rewrite(K.SHARED_2D, filename="t.cu")
    axes = sorted((e.array, e.status) for e in rw.report() if e.array == "tile")
    assert axes == [("tile", "checked")] * 4
    assert ", 16, " in rw.source and ", 0, __sk_fb)" in rw.source and ", 1, __sk_fb)" in rw.source


def test_extern_shared_is_checked_against_dynamic_shared_memory():
    rw = cuda.rewrite(K.EXTERN_SHARED, filename="b.cu")
    assert "(__sk_dynsmem() / (long long)sizeof(buf[0]))" in rw.source


def test_device_functions_receive_base_and_size_of_the_callers_array():
    rw = cuda.rewrite(K.DEVICE_FUNCTION, filename="d.cu")
    assert ("fetch(long long* __sk_fb, unsigned long long __sk_cs, const volatile void* "
            "__sk_base_0, long long __sk_bytes_0, const float* p, int i)") in rw.source
    # (the second hidden argument: the call site, call_chains.py)
    assert re.search(r"fetch\(__sk_fb, 0x[0-9a-f]+ULL, \(const volatile void\*\)\(src\), "
                     r"\(long long\)\(__sk_bytes_0\), src", rw.source)
    functions = {e.function for e in rw.report() if e.status == "checked"}
    assert functions == {"fetch", "put"}


def test_templates_are_rewritten_once_for_every_instantiation():
    rw = cuda.rewrite(K.TEMPLATES, filename="t.cu")
    (kernel,) = rw.kernels
    assert kernel.template and [p.name for p in kernel.pointer_params] == ["x", "y"]
    assert [k.name for k in rw.find_kernels("axpy<float>")] == ["axpy"]
    assert {e.function for e in rw.report()} == {"twice", "axpy"}
    assert all(e.status == "checked" for e in rw.report())


def test_dependent_address_of_in_atomics_is_checked():
    src = """
template <typename T, int B>
__global__ void acc(T* y, T a) {
    __shared__ T tile[B];
    atomicAdd(&tile[threadIdx.x], a);
    atomicAdd(&y[threadIdx.x], a);
}
"""
    rw = cuda.rewrite(src, filename="a.cu")
    assert [(e.array, e.status) for e in rw.report()] == [("tile", "checked"),
                                                          ("y", "checked")]


def test_derived_pointers_are_checked_against_their_origin():
    rw = cuda.rewrite(K.DERIVED_POINTER, filename="r.cu")
    (entry,) = [e for e in rw.report() if e.lineno == K.line(K.DERIVED_POINTER, "derived")]
    assert entry.status == "checked" and entry.array == "row (in a)"
    assert "__sk_ptr((row) + (j), a, __sk_bytes_0" in rw.source


def test_reassigned_parameters_keep_their_original_base():
    src = """
extern "C" __global__ void k(float* p, int n) {
    p += blockIdx.x * n;
    p[threadIdx.x] = 0.0f;
}
"""
    rw = cuda.rewrite(src, filename="k.cu")
    assert "const volatile void* const __sk_orig_0 = p;" in rw.source
    assert "__sk_ptr((p) + (threadIdx.x), __sk_orig_0, __sk_bytes_0" in rw.source


def test_arrow_and_deref_are_checked():
    rw = cuda.rewrite(K.STRUCTS, filename="s.cu")
    arrows = [e for e in rw.report() if e.text.startswith("q->")]
    assert len(arrows) == 4 and all(e.status == "checked" for e in arrows)
    rw = cuda.rewrite(K.POINTER_ARITH, filename="p.cu")
    assert [(e.text, e.status) for e in rw.report()] == [("*(out + i)", "checked"),
                                                         ("*(a + i + k)", "checked")]


def test_unknown_pointers_are_reported_not_hidden():
    src = """
__device__ float* pick(float* a, float* b, int c) { return c ? a : b; }
extern "C" __global__ void k(float* a, float* b, float** table, int n) {
    float* q = pick(a, b, n);
    q[0] = 1.0f;
    table[0][1] = 2.0f;
    float* r = n ? a : b;
    r[2] = 3.0f;
}
"""
    rw = cuda.rewrite(src, filename="u.cu")
    by_text = {e.text: e for e in rw.report()}
    assert by_text["q[0]"].status == "unchecked"
    assert "function call" in by_text["q[0]"].reason
    assert by_text["table[0][1]"].status == "unchecked"
    assert by_text["table[0]"].status == "checked"
    assert by_text["r[2]"].status == "unchecked" and "more than one array" in \
        by_text["r[2]"].reason


def test_accesses_inside_macros_are_checked_where_the_source_defines_them():
    src = """
#define AT(i) a[i]
extern "C" __global__ void k(float* a, int n) {
    AT(threadIdx.x) = 1.0f;
}
"""
    rw = cuda.rewrite(src, filename="m.cu")
    (entry,) = rw.report()
    assert entry.status == "checked" and entry.lineno == 4      # expanded in place
    assert rw.original == src
    # a macro the options define is the compiler's: its accesses stay unchecked, and say why
    src = """
extern "C" __global__ void k(float* a, int n) {
    AT(threadIdx.x) = 1.0f;
}
"""
    rw = cuda.rewrite(src, filename="m.cu", options=("-DAT(i)=a[i]",))
    (entry,) = rw.report()
    assert entry.status == "unchecked" and "macro" in entry.reason


def test_index_macros_are_checked():
    src = """
#define IDX(r, c) ((r) * 4 + (c))
extern "C" __global__ void k(float* a, int n) {
    a[IDX(threadIdx.x, 1)] = 1.0f;
}
"""
    rw = cuda.rewrite(src, filename="m.cu")
    assert "a[__sk_ix(IDX(threadIdx.x, 1), __sk_n_0" in rw.source


def test_barriers_are_replaced():
    rw = cuda.rewrite(K.SYNC_FORMS, filename="v.cu")
    for new in ("__sk_sync_count(f)", "__sk_sync_and(f)", "__sk_sync_or(f)"):
        assert new in rw.source
    assert "if (__sk_enter_sync(__sk_fb)) return;" in rw.source
    rw = cuda.rewrite(K.COOPERATIVE, filename="c.cu")
    for new in ("__sk_cg_sync(block);", "__sk_cg_sync(cg::this_thread_block());"):
        assert new in rw.source
    assert rw.kernels[0].barriers and rw.barriers


def test_barriers_in_device_functions_make_the_kernel_a_barrier_kernel():
    src = """
__device__ void stage(float* s) { s[threadIdx.x] = 0.0f; __syncthreads(); }
extern "C" __global__ void k(float* a) {
    __shared__ float s[64];
    stage(s);
    a[threadIdx.x] = s[threadIdx.x];
}
"""
    rw = cuda.rewrite(src, filename="b.cu")
    assert rw.kernels[0].barriers
    assert "if (__sk_enter_sync(__sk_fb)) return;" in rw.source
    assert re.search(r"stage\(__sk_fb, 0x[0-9a-f]+ULL, \(const volatile void\*\)\(s\), "
                     r"\(long long\)\(\(long long\)sizeof\(s\)\), s\)", rw.source)


@pytest.mark.parametrize("name", sorted(K.REJECTED))
def test_unsafe_barriers_are_rejected_at_their_line(name):
    src, marker, words = K.REJECTED[name]
    with pytest.raises(safekern.UnsupportedError) as info:
        cuda.rewrite(src, filename=f"{name}.cu")
    err = info.value
    assert isinstance(err, safekern.CompilationError)
    assert err.filename == f"{name}.cu"
    assert err.lineno == K.line(src, marker)
    assert words in str(err)
    assert err.source_line.strip() == src.split("\n")[err.lineno - 1].strip()


def test_functions_used_indirectly_keep_their_signature():
    src = """
__device__ float get(const float* p, int i) { return p[i]; }
typedef float (*getter)(const float*, int);
__device__ getter g = get;
extern "C" __global__ void k(const float* a, float* out) { out[0] = get(a, 1); }
"""
    rw = cuda.rewrite(src, filename="f.cu")
    assert "__device__ float get(const float* p, int i)" in rw.source
    (entry,) = [e for e in rw.report() if e.function == "get"]
    assert entry.status == "unchecked" and "direct calls" in entry.reason


def test_checks_off_leaves_the_source_alone():
    rw = cuda.rewrite(K.GATHER, filename="g.cu", checks=False)
    assert user_part(rw.source, "g.cu") == K.GATHER
    assert "__sk_" not in rw.source
    assert [p.name for p in rw.kernels[0].pointer_params] == ["out", "src", "idx"]
    assert str(rw.report()).endswith("no access is checked")


def test_parse_errors_name_the_users_line():
    src = 'extern "C" __global__ void k(float* a) {\n  a[0] = undefined_variable;\n}\n'
    with pytest.raises(cuda.ParseError) as info:
        cuda.rewrite(src, filename="bad.cu")
    assert info.value.lineno == 2 and "undefined_variable" in str(info.value)


def test_unknown_functions_do_not_stop_the_analysis():
    src = """
extern "C" __global__ void k(float* a, int n) {
    a[my_intrinsic(n) + 1] = fancy_math(a[0], 2.0f) * 3.0f;
}
"""
    rw = cuda.rewrite(src, filename="u.cu")
    assert [e.status for e in rw.report()] == ["checked", "checked"]


def test_report_table():
    rw = cuda.rewrite(K.LOCAL_ARRAY, filename="window.cu")
    text = str(rw.report())
    assert text.startswith("window.cu: 7 accesses: 3 checked, 4 proven safe, 0 unchecked")
    assert "window.cu:7:" in text


def test_derefs_produced_by_macros_are_checked():
    src = """
#define LOAD(p) (*(p))
#define PTR q
extern "C" __global__ void k(float* a, float* q) {
    a[0] = LOAD(a + 1);
    *PTR = 2.0f;
}
"""
    rw = cuda.rewrite(src, filename="m.cu")
    by_line = {a.extra["lineno"]: a for a in rw.accesses if a.kind == "deref"}
    assert by_line[5].status == "checked"           # LOAD's use is expanded in place
    assert by_line[6].status == "checked"
    assert "*__sk_ptr(PTR, q, __sk_bytes_1" in rw.source


def test_arrays_passed_to_functions_outside_the_source_are_reported():
    src = """
extern "C" __global__ void k(float* a, const float* b, int n) {
    float s, c;
    sincosf(b[0], &s, &c);
    memcpy(a, b, n * sizeof(float));
}
"""
    rw = cuda.rewrite(src, filename="f.cu")
    unchecked = [(e.array, e.status) for e in rw.report() if e.status == "unchecked"]
    assert unchecked == [("a", "unchecked"), ("b", "unchecked")]
    assert "memcpy" in rw.unchecked[0].reason


def test_kernels_generated_by_macros_are_left_unchanged_and_reported():
    src = """
#define SCALE_KERNEL(T) extern "C" __global__ void scale_##T(T* a, int n) { a[threadIdx.x] *= 2; }
SCALE_KERNEL(float)
extern "C" __global__ void ok(float* a) { a[0] = 1.0f; }
"""
    rw = cuda.rewrite(src, filename="m.cu")
    kernels = {k.name: k for k in rw.kernels}
    assert not kernels["scale_float"].checked and kernels["ok"].checked
    (entry,) = [e for e in rw.report() if e.function == "scale_float"]
    assert entry.status == "unchecked" and "macro 'SCALE_KERNEL'" in entry.reason
    assert "void ok(float* a, long long __sk_bytes_0, long long* __sk_fb)" in rw.source


def test_class_subscript_operators_are_reported():
    src = """
struct Vec { float* d; __device__ float& operator[](int i) { return d[i]; } };
extern "C" __global__ void k(Vec v, float* out) { out[0] = v[3]; }
"""
    rw = cuda.rewrite(src, filename="c.cu")
    by_text = {e.text: e for e in rw.report()}
    assert by_text["v[3]"].status == "unchecked" and "operator[]" in by_text["v[3]"].reason
    assert by_text["out[0]"].status == "checked"
    (method,) = [e for e in rw.report() if e.function == "Vec::operator[]"]
    assert method.text == "d[i]" and method.status == "unchecked"


def test_a_rewrite_returns_its_failure_sites_and_registers_nothing():
    from safekern.failures import TABLE

    rw = cuda.rewrite(K.GATHER, filename="registers_nothing.cu")
    codes = {a.extra["code"] for a in rw.accesses if a.status == "checked"}
    assert codes and {s.code for s in rw.failure_sites} == codes
    assert all(TABLE.lookup(code) is None for code in codes)   # the backend registers them
