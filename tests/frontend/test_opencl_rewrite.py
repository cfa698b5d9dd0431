"""Golden tests of the OpenCL rewrite (libclang only: no OpenCL platform needed)."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("clang.cindex")

from safekern import CompilationError, UnsupportedError  # noqa: E402
from safekern.failures import TABLE, code32  # noqa: E402
from safekern.frontend.c import opencl as O  # noqa: E402
from safekern.frontend.c.edits import prelude_lines  # noqa: E402
from tests.support.unchecked_functions import unchecked_reason  # noqa: E402


def rewrite(src, **kw):
    return O.rewrite(src, filename="g.cl", **kw)


def user_part(src, **kw):
    """The rewritten user source, with failure codes replaced by CODE."""
    text = rewrite(src, **kw).source
    marker = '#line 1 "g.cl"\n'
    assert text.count(marker) == 1
    return re.sub(r"0x[0-9a-f]+L", "CODE", text[text.index(marker) + len(marker):])


SAXPY = """__kernel void saxpy(__global const float *x, __global float *y, float a) {
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""

SAXPY_CHECKED = (
    "__kernel void saxpy(__global const float *x, __global float *y, float a, "
    "__global long *__sk_fb, long __sk_nb_x, long __sk_nb_y) { "
    "if (__sk_pending(__sk_fb)) return; "
    "const long __sk_n_x = __sk_nb_x / (long)sizeof(*x); "
    "const long __sk_n_y = __sk_nb_y / (long)sizeof(*y);\n"
    "    int i = get_global_id(0);\n"
    # i is a private int the statement does not assign: each array's test before the
    # statement (prechecks.py; y's second access needs none), nothing in it sets the flag
    "    if (__SK_UNLIKELY((ulong)(long)((int)(i)) >= (ulong)(__sk_n_y))) { "
    "__sk_fail_bits(__sk_fb, CODE, (int)(i), __sk_n_y, 0, 0); return; } "
    "if (__SK_UNLIKELY((ulong)(long)((int)(i)) >= (ulong)(__sk_n_x))) { "
    "__sk_fail_bits(__sk_fb, CODE, (int)(i), __sk_n_x, 0, 0); return; } "
    "y[i] = a * x[i] + y[i];\n"
    "}\n")


def test_golden_saxpy():
    assert user_part(SAXPY) == SAXPY_CHECKED


REDUCE = """__kernel void reduce(__global float *x, __local float *s) {
    int lid = get_local_id(0);
    s[lid] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = get_local_size(0) / 2; k > 0; k >>= 1) {
        if (lid < k) s[lid] += s[lid + k];
        barrier(CLK_LOCAL_MEM_FENCE);
        x[lid] = s[0];
    }
}
"""

GOTO_B1 = "if (__SK_UNLIKELY(*__sk_fp)) { __sk_lf = __sk_nb + 1; goto __sk_b1; }"
GOTO_B2 = "if (__SK_UNLIKELY(*__sk_fp)) { __sk_lf = __sk_nb + 1; goto __sk_b2; }"
AFTER_BARRIER = "__sk_nb++; if (__sk_lf != 0 && __sk_lf <= __sk_nb) return;"
REDUCE_CHECKED = "\n".join([
    "__kernel void reduce(__global float *x, __local float *s, __global long *__sk_fb, "
    "long __sk_nb_x, long __sk_nb_s) { __local int __sk_lf; int __sk_nb = 0; "
    "if (__sk_first_item()) __sk_lf = __sk_pending(__sk_fb) ? -1 : 0; "
    "barrier(CLK_LOCAL_MEM_FENCE); if (__sk_lf < 0) return; int __sk_f = 0; "
    "__private int *__sk_fp = &__sk_f; const long __sk_n_x = __sk_nb_x / (long)sizeof(*x); "
    "const long __sk_n_s = __sk_nb_s / (long)sizeof(*s);",
    "    int lid = get_local_id(0);",
    "    s[__sk_ix32((int)(lid), __sk_n_s, CODE, 0, __sk_fb, __sk_fp)] = "
    # get_global_id() is a size_t: __sk_ixu records an unsigned index (failures.UNSIGNED)
    "x[__sk_ixu((long)(get_global_id(0)), __sk_n_x, CODE, 0, __sk_fb, __sk_fp)]; " + GOTO_B1,
    "    __sk_b1: barrier((CLK_LOCAL_MEM_FENCE) | CLK_LOCAL_MEM_FENCE); " + AFTER_BARRIER,
    "    for (int k = get_local_size(0) / 2; k > 0; k >>= 1) { " + GOTO_B2 + " ",
    "        if (lid < k) { s[__sk_ix32((int)(lid), __sk_n_s, CODE, 0, __sk_fb, __sk_fp)] += "
    "s[__sk_ix32((int)(lid + k), __sk_n_s, CODE, 0, __sk_fb, __sk_fp)]; " + GOTO_B2 + " }",
    "        __sk_b2: barrier((CLK_LOCAL_MEM_FENCE) | CLK_LOCAL_MEM_FENCE); " + AFTER_BARRIER,
    "        x[__sk_ix32((int)(lid), __sk_n_x, CODE, 0, __sk_fb, __sk_fp)] = "
    "s[__sk_ix32((int)(0), __sk_n_s, CODE, 0, __sk_fb, __sk_fp)]; "
    "if (__SK_UNLIKELY(*__sk_fp)) { __sk_lf = __sk_nb + 1; goto __sk_c3; }",
    "     __sk_c3: ;} if (__SK_UNLIKELY(*__sk_fp)) return;",
    "}",
    ""])


def test_golden_barrier_loop():
    # After the loop body's last barrier a failing work-item goes round (continue label).
    assert user_part(REDUCE) == REDUCE_CHECKED


HELPERS = """float dot(__global const float *p, __global const float *q, int n) {
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += p[k] * *(q + k);
    return s;
}
__kernel void rows(__global const float *a, __global const float *v, __global float *out,
                   int ncols) {
    int r = get_global_id(0);
    __global const float *row = &a[r * ncols];
    if (r % 2) out[r] = dot(row, v, ncols);
    else out[r] = row[0];
    do { r--; } while (a[r] > 0);
}
"""


def test_helpers_get_hidden_arguments_and_derived_offsets():
    out = user_part(HELPERS)
    lines = out.split("\n")
    assert lines[0] == ("float dot(__global const float *p, __global const float *q, int n, "
                        "__global long *__sk_fb, __private int *__sk_fp, ulong __sk_cs, "
                        "long __sk_o_p, long __sk_nb_p, long __sk_o_q, long __sk_nb_q) {")
    # A helper's failure codes carry the call chain (call_chains.py).
    assert lines[3] == (
        "        { s += p[__sk_ixb((long)(k), __sk_o_p, (long)sizeof(*(p)), __sk_nb_p, "
        "(CODE ^ (long)__sk_cs), __sk_fb, __sk_fp)] * *(q + __sk_ixb((long)(k), __sk_o_q, "
        "(long)sizeof(*(q)), __sk_nb_q, (CODE ^ (long)__sk_cs), __sk_fb, __sk_fp)); "
        "if (__SK_UNLIKELY(*__sk_fp)) return (float)0; }")
    # The call passes its site's id in the chain, row's offset within a, and a's size.
    assert re.search(r"dot\(row, v, ncols, __sk_fb, __sk_fp, 0x[0-9a-f]+UL, \(long\)\(\(const "
                     r"__global char \*\)\(row\) - \(const __global char \*\)\(a\)\), "
                     r"__sk_nb_a, 0L, __sk_nb_v\); if \(__SK_UNLIKELY\(\*__sk_fp\)\) return; \}",
                     lines[10])
    assert ("(const __global char *)(a)), __sk_nb_a, 0L, __sk_nb_v); "
            "if (__SK_UNLIKELY(*__sk_fp)) return; }") in lines[10]
    # (out[r]: tested before its statement, prechecks.py; braces around each branch)
    assert lines[10].startswith("    if (r % 2) { if (__SK_UNLIKELY((ulong)(long)((int)(r)) >= ")
    assert lines[11].startswith("    else { if (__SK_UNLIKELY((ulong)(long)((int)(r)) >= ") and \
        "return; } out[r] = row[__sk_ixb(" in lines[11] and lines[11].endswith("return; }")
    # do-while: the condition's check is tested at the top of the body and after the loop.
    assert lines[12].startswith("    do { if (__SK_UNLIKELY(*__sk_fp)) return;  r--; } while")


BRANCHES = """__kernel void scan(__global const uchar *text, __global int *out) {
    int j = get_global_id(0), n = 0;
    while (1) {
        if (text[j + 0] != '\\n') { j++; continue; } else n++;
        switch (text[j + 1]) {
        case 'a': case 'b': j++; continue;
        default: ;
            int k = j; n += k;
        }
        break;
    }
    out[get_global_id(0)] = j + n;
}
"""
TEST = "if (__SK_UNLIKELY(*__sk_fp)) return;"


def test_failing_if_or_switch_condition_is_tested_in_every_branch():
    # A branch may go round the loop (continue) before the test after the statement: the
    # stand-in value would send the work-item round for ever.
    lines = user_part(BRANCHES).split("\n")
    # (j + 0: checked in the condition; a plain `j` is tested before the if, prechecks.py)
    assert lines[3] == ("        if (text[__sk_ix32((int)(j + 0), __sk_n_text, CODE, 0, __sk_fb, "
                        f"__sk_fp)] != '\\n') {{ {TEST}  j++; continue; }} else {{ {TEST} n++; }} "
                        f"{TEST}")
    # Every case label's statement (not each label of a run), and the switch's end; a
    # statement after a label is not braced (that would end the scope of its declaration).
    assert lines[5] == f"        case 'a': case 'b': {TEST} j++; continue;"
    assert lines[6] == f"        default: {TEST} ;"
    assert lines[7] == "            int k = j; n += k;"
    assert lines[8] == f"        }} {TEST}"


def test_failing_if_condition_between_barriers_goes_to_the_next_barrier():
    src = """__kernel void scan(__global const uchar *text, __global int *out) {
    __local int s[16];
    int j = get_local_id(0);
    s[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    while (1)
        if (text[j] != '\\n') j++; else break;
    s[get_local_id(0)] = j;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = s[0];
}
"""
    line = user_part(src).split("\n")[6]
    leave = "if (__SK_UNLIKELY(*__sk_fp)) { __sk_lf = __sk_nb + 1; goto __sk_b2; }"
    assert line == (f"        {{ if (text[__sk_ix32((int)(j), __sk_n_text, CODE, 0, __sk_fb, "
                    f"__sk_fp)] != '\\n') {{ {leave} j++; }} else {{ {leave} break; }} {leave} }}")


def test_line_numbers_are_kept():
    for src in (SAXPY, REDUCE, HELPERS):
        r = rewrite(src)
        n_prelude = prelude_lines(r.source)
        body = r.source.split("\n")[n_prelude:]
        assert len(body) == len(src.split("\n"))
        # Every user token stays on its line.
        for user, checked in zip(src.split("\n"), body):
            for word in re.findall(r"[A-Za-z_]\w*", user):
                assert word in checked


def test_report_and_sites():
    r = rewrite(HELPERS)
    statuses = {(e.function, e.text): e.status for e in r.report()}
    assert statuses[("dot", "p[k]")] == "checked"
    assert statuses[("dot", "*(q + k)")] == "checked"
    assert statuses[("rows", "row[0]")] == "checked"
    site = r.failure_sites[0]
    assert site.filename == "g.cl" and site.kernel in ("dot", "rows")
    assert [e.lineno for e in r.report()] == sorted(e.lineno for e in r.report())
    assert r.kernel("rows").n_user_args == 4
    assert [p.name for p in r.kernel("rows").pointer_params] == ["a", "v", "out"]


def test_a_rewrite_registers_nothing():
    """The rewrite returns its failure sites; the backend registers them (build_program)."""
    r = O.rewrite(SAXPY, filename="registers_nothing.cl")
    assert r.failure_sites and all(TABLE.lookup(s.code) is None for s in r.failure_sites)


def test_32bit_codes():
    text = rewrite(SAXPY, int64_atomics=False).source
    assert "atom_cmpxchg" not in text and "atomic_cmpxchg((volatile __global int *)fb" in text
    codes = [int(c[:-1], 16) for c in re.findall(r"0x[0-9a-f]+L", text)]
    assert codes and all(c < 2 ** 31 for c in codes)
    sites = rewrite(SAXPY).failure_sites
    # (every code written is a site's; y[i]'s second site has no test of its own: prechecks)
    assert set(codes) <= {code32(s.code) for s in sites} and len(set(codes)) == 2


def test_safe_and_unchecked_accesses():
    src = """#define TILE 4
__kernel void k(__global float *a, __global float *b, __global int *idx, int sel) {
    float t[TILE][2 * TILE];
    __global float *p = sel ? a : b;
    for (int i = 0; i < TILE; i++)
        for (int j = 0; j <= 2 * TILE - 1; j++)
            t[i][j] = 0.0f;
    p[0] = t[3][7] + t[idx[0]][0];
    a[idx[1]++] = sizeof(b[100]);
    float *q = (float *)0;
}"""
    by = {(e.text, e.status): e for e in rewrite(src).report()}
    assert by[("t[i]", "eliminated")].reason == "loop index in [0, 3]"
    assert by[("t[i][j]", "eliminated")].reason == "loop index in [0, 7]"
    assert by[("t[3]", "eliminated")].reason == "constant index"
    assert ("t[idx[0]]", "checked") in by and ("idx[0]", "checked") in by
    assert "more than one array (a, b)" in by[("p[0]", "unchecked")].reason
    assert ("a[idx[1]++]", "checked") in by          # the index is evaluated once
    assert not any("b[100]" in e.text for e in rewrite(src).report())   # sizeof: no access


def test_atomics_vload_and_builtins():
    src = """__kernel void k(__global int *c, __global float *f, __global int *d) {
    int i = get_global_id(0);
    atomic_inc(c + i);
    atomic_add(&c[i], 1);
    float4 v = vload4(i, f + 1);
    vstore2(v.xy, i, f);
    float ip;
    f[i] = fract(f[i], &ip);
    prefetch(f, 4);
}"""
    r = rewrite(src)
    checked = [e.text for e in r.report() if e.status == "checked"]
    assert "atomic_inc(c + i)" in checked or "c + i" in " ".join(checked)
    assert "c[i]" in checked
    assert "vload4(i, f + 1)" in checked and "vstore2(v.xy, i, f)" in checked
    text = user_part(src)
    assert "vload4(__sk_ixb((long)(i), (long)((const __global char *)(f + 1) - " \
           "(const __global char *)(f)), 4L * (long)sizeof(*(f + 1)), __sk_nb_f" in text
    assert "vstore2(v.xy, __sk_ixb((long)(i), 0L, 2L * (long)sizeof(*(f)), __sk_nb_f" in text


def test_moved_parameter_is_saved():
    src = """__kernel void k(__global float *a, int off) {
    a += off;
    a[get_global_id(0)] = 1.0f;
}"""
    text = user_part(src)
    assert "__global float *__sk_orig_a = a;" in text
    assert "(const __global char *)(a) - (const __global char *)(__sk_orig_a)" in text


# -- rejected at build time ------------------------------------------------------------------

def test_a_kernel_with_a_barrier_in_a_non_uniform_if_is_built_unchecked():
    src = """__kernel void k(__global float *x, int n) {
    x[get_global_id(0)] = 0.0f;
    if (get_local_id(0) < n)
        barrier(CLK_LOCAL_MEM_FENCE);
}"""
    # (under an if whose condition is uniform across the work-group a barrier is accepted:
    # tests/opencl/test_opencl_uniform_barriers.py). Valid code is not refused: the kernel is
    # built as written, unchecked, with the reason.
    rw = rewrite(src)
    why = unchecked_reason(rw, "k")
    assert why.startswith("not checked: barrier() at line 4 is inside an if")
    assert "'get_local_id(0)' differs between work-items" in why
    assert "x[get_global_id(0)] = 0.0f;" in rw.source and "__sk_ix" not in user_part(src)


def test_checked_access_in_header_of_barrier_loop_is_built_unchecked():
    src = """__kernel void k(__global int *x) {
    for (int i = 0; x[i] > 0; i++) {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}"""
    why = unchecked_reason(rewrite(src), "k")
    assert why.startswith("not checked: checked access in the header of a loop that holds a "
                          "barrier (line 3)")


def test_barrier_in_helper_with_checks_takes_the_groups_counts():
    # The helper follows the kernel's barrier protocol on its caller's counts (exits.py): the
    # failing work-item jumps to the helper's barrier, the group leaves the helper together
    # after it, the caller publishes the flag at its own barrier after the call.
    src = """void h(__local float *s, int i) { s[i] = 1.0f; barrier(CLK_LOCAL_MEM_FENCE); }
void g(__local float *s, int i) { h(s, i); }
__kernel void k(__local float *s, int i) { g(s, i); }"""
    text = rewrite(src).source
    h = text[text.index("void h("):text.index("void g(")]
    g = text[text.index("void g("):text.index("__kernel void k(")]
    k = text[text.index("__kernel void k("):]
    assert "__local int *__sk_lfp, __private int *__sk_nbp)" in h
    assert "{ (*__sk_lfp) = (*__sk_nbp) + 1; goto __sk_b1; }" in h
    assert "(*__sk_nbp)++; if ((*__sk_lfp) != 0 && (*__sk_lfp) <= (*__sk_nbp)) return;" in h
    assert "__local int *__sk_lfp, __private int *__sk_nbp)" in g    # g calls h: it passes them
    assert "__sk_lfp, __sk_nbp);" in g
    assert "&__sk_lf, &__sk_nb);" in k and "__local int __sk_lf;" in k
    assert "if (__SK_UNLIKELY(*__sk_fp)) __sk_lf = __sk_nb + 1; barrier(" in k


def test_a_helper_with_a_barrier_in_a_non_uniform_if_is_built_unchecked():
    src = """void h(__local float *s, int i) {
    s[i] = 1.0f;
    if (get_local_id(0) < 4) { barrier(CLK_LOCAL_MEM_FENCE); }
}
__kernel void k(__local float *s, int i, __global float *out) { h(s, i); out[i] = s[0]; }"""
    rw = rewrite(src)
    assert unchecked_reason(rw, "h").startswith("not checked: barrier() at line 3 is inside an "
                                                "if whose condition may differ")
    # the kernel stays checked; its call passes the helper's own arguments only, and is a
    # barrier point still: the group is published and leaves together after it, and nothing
    # is tested before a statement (a work-item returning there would leave its group waiting
    # in the helper)
    kernel = rw.source[rw.source.index("__kernel void k("):]
    assert "h(s, i); barrier(CLK_LOCAL_MEM_FENCE); __sk_nb++;" in kernel
    assert "__sk_ix32((int)(0), __sk_n_s" in kernel and "__sk_fail_bits" not in kernel


def test_kernel_called_as_function_is_rejected():
    src = """__kernel void a(__global float *x) { x[0] = 1.0f; }
__kernel void b(__global float *x) { a(x); }"""
    with pytest.raises(UnsupportedError, match="kernel 'a' is called as a function") as info:
        rewrite(src)
    assert info.value.lineno == 2


def test_parse_errors_name_the_users_line():
    src = "__kernel void k(__global float *x) {\n    x[0] = y;\n}\n"
    with pytest.raises(O.ParseError) as info:
        rewrite(src)
    assert isinstance(info.value, CompilationError)
    assert info.value.lineno == 2 and "y" in info.value.problem


def test_options_reach_the_parser():
    src = "__kernel void k(__global float *x) { x[0] = VALUE; }"
    with pytest.raises(O.ParseError):
        rewrite(src)
    assert "x[__sk_ix" in rewrite(src, options=["-D", "VALUE=1.0f"]).source
    assert "x[__sk_ix" in rewrite(src, options=["-DVALUE=1.0f", "-cl-std=CL2.0"]).source


def test_opencl_c_2_and_3_features_parse():
    src = """__kernel void k(__global float *f, __global atomic_int *ai) {
    size_t i = get_global_id(0);
    atomic_fetch_add_explicit(ai, 1, memory_order_relaxed, memory_scope_device);
    f[i] = work_group_reduce_add(f[i]);
    work_group_barrier(CLK_GLOBAL_MEM_FENCE);
}"""
    for std in ("CL2.0", "CL3.0"):
        text = rewrite(src, options=[f"-cl-std={std}"]).source
        # The collective is a barrier point: a failing work-item still takes part, and
        # publishes its failure before the group's next barrier.
        assert ("f[__sk_ixu((long)(i), __sk_n_f, " in text and     # i is a size_t
                "if (__SK_UNLIKELY(*__sk_fp)) __sk_lf = __sk_nb + 1; barrier(CLK_LOCAL_MEM_FENCE);"
                " __sk_nb++; if (__sk_lf != 0 && __sk_lf <= __sk_nb) return;" in text)
        assert "work_group_barrier((CLK_GLOBAL_MEM_FENCE) | CLK_LOCAL_MEM_FENCE)" in text
