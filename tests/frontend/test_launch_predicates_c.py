"""Launch predicates of C kernels (frontend/c/launch.py): which checks get one, what it says, and
what it must not claim; the launch-time mask (backends/c_launch.py) on holding and breaking
launches, and its host cost. No device: the OpenCL and CUDA rewrites only."""
import timeit

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from safekern.backends.c_launch import (CLaunchVariants, compile_mask, cuda_geometry,  # noqa: E402
                                        opencl_geometry)
from safekern.frontend.c import cuda, opencl  # noqa: E402
from safekern.report import Status  # noqa: E402

VADD_CL = """__kernel void add(__global const float *a, __global float *out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i];
}
"""

VADD_CU = r"""extern "C" __global__ void add(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = a[i];
}
"""


def cl_report(src):
    rw = opencl.rewrite(src, filename="k.cl", launch_predicates=True)
    return rw, {e.text: e for e in rw.report()}


def statuses(src, dialect="opencl"):
    if dialect == "opencl":
        rw = opencl.rewrite(src, filename="k.cl", launch_predicates=True)
        return {e.text: (e.status, e.predicate) for e in rw.report()}
    rw = cuda.rewrite(src, filename="k.cu", launch_predicates=True)
    return {e.text: (e.status, e.predicate) for e in rw.report()}


def test_opencl_vector_add_is_proven_at_launch():
    rw, by = cl_report(VADD_CL)
    assert by["out[i]"].status is Status.PROVEN_AT_LAUNCH
    assert by["out[i]"].predicate == "min(get_global_size(0) - 1, n - 1) < elements(out)"
    assert "launch" in by["a[i]"].reason
    launch = rw.kernel("add").launch
    assert {f.kind for f in launch.facts} == {"scalar", "extent", "global"}
    # without launch_predicates (the rewrite's default): the checks as before
    plain = opencl.rewrite(VADD_CL, filename="k.cl")
    assert {e.status for e in plain.report()} == {Status.CHECKED}
    assert not plain.kernel("add").launch


def test_cuda_vector_add_with_an_early_return():
    s = statuses(VADD_CU, "cuda")
    assert s["out[i]"][0] is Status.PROVEN_AT_LAUNCH
    assert "n - 1" in s["out[i]"][1] and "elements(out)" in s["out[i]"][1]
    rw = cuda.rewrite(VADD_CU, filename="k.cu", launch_predicates=True)
    assert rw.kernels[0].launch and len(rw.kernels[0].launch.preds) == 2


def test_shared_tile_needs_the_block_to_fit():
    s = statuses(r"""extern "C" __global__ void t(float* out) {
    __shared__ float tile[16][17];
    tile[threadIdx.y][threadIdx.x] = 1.0f;
}
""", "cuda")
    assert s["tile[threadIdx.y]"] == (Status.PROVEN_AT_LAUNCH, "blockDim.y - 1 < 16")
    assert s["tile[threadIdx.y][threadIdx.x]"] == (Status.PROVEN_AT_LAUNCH,
                                                    "blockDim.x - 1 < 17")


@pytest.mark.parametrize("body, why", [
    ("int i = get_global_id(0); i += n; out[i] = 1.0f;", "no interval past a write"),
    ("int i = get_global_id(0); i = a[i] > 0 ? (int)a[0] : i; out[i] = 1.0f;", "a load"),
    ("int i = get_global_id(0); for (int k = 0; k < 4; k++) { out[i] = 1.0f; i += n; }",
     "written in the loop around the use"),
    ("n = n * 2; out[get_global_id(0) % 8 + n] = 1.0f;", "a scalar the kernel assigns"),
    ("int i = get_global_id(0) - 1; out[i] = 1.0f;", "may be -1"),
    ("int i = (int)a[0]; if (i < n) out[i] = 1.0f;", "a loaded value, no lower bound"),
    ("int i = get_global_id(0); int *p = &i; *p = 5; out[i] = 1.0f;", "address taken"),
    ("for (int k = 0; k < n; k++) { out[k] = 1.0f; k += 2; }", "loop variable written"),
    ("int i = get_global_id(0); switch (n) { case 1: i = 7; } out[i] = 1.0f;", "switch"),
    ("int i = get_global_id(0); if (n) goto L; i = n; L: out[i] = 1.0f;", "goto"),
    ("int i; if (n > 3) i = 2; else i = n; out[i] = 1.0f;", "defined on two paths"),
])
def test_what_a_predicate_must_not_claim(body, why):
    src = ("__kernel void k(__global float *out, __global const float *a, int n) {\n    "
           + body + "\n}\n")
    s = statuses(src)
    out = [v for t, v in s.items() if t.startswith("out[") or t.startswith("*p")]
    assert out and all(st is not Status.PROVEN_AT_LAUNCH for st, _ in out), (why, s)


def test_operators_inside_macro_expansions():
    # The token after `i` is the invocation's `+`: the operator is libclang's `*`
    s = statuses("""__kernel void k(__global float *out, int n) {
    int i = get_global_id(0);
#define TWICE (i * 2)
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
    out[TWICE + 1] = 1.0f;
    int j = i - 5;
    if (IN_RANGE(j, 0, n - 1)) out[j] = 2.0f;
}
""")
    assert s["out[TWICE + 1]"] == (Status.PROVEN_AT_LAUNCH,
                                   "(get_global_size(0) - 1) * 2 + 1 < elements(out)")
    assert s["out[j]"][0] is Status.PROVEN_AT_LAUNCH and "n - 1" in s["out[j]"][1]


def test_guards_and_loops_give_intervals():
    s = statuses("""__kernel void k(__global float *out, int n, int m) {
    int i = get_global_id(0);
    if (i >= n) return;
    for (int k = 0; k < m; k++) out[i * m + k] = 1.0f;
    for (int k = get_local_id(0); k < 64; k += get_local_size(0)) out[k] = 2.0f;
    int j = i > 3 ? i - 3 : 0;
    out[j] = 3.0f;
}
""")
    st, pred = s["out[i * m + k]"]
    assert st is Status.PROVEN_AT_LAUNCH and "m" in pred and "elements(out)" in pred
    assert s["out[k]"] == (Status.PROVEN_AT_LAUNCH, "63 < elements(out)")
    assert s["out[j]"][0] is Status.PROVEN_AT_LAUNCH


def test_narrowing_and_unsigned_arithmetic_are_side_conditions():
    rw = opencl.rewrite("""__kernel void k(__global float *out, uint u) {
    uchar c = (uchar)(get_global_id(0) + u);
    out[c] = 1.0f;
    out[u - 1] = 2.0f;
}
""", filename="k.cl", launch_predicates=True)
    launch = rw.kernel("k").launch
    mask, codes = compile_mask(launch, python_int=False)
    g, l = (8, 1, 1), (8, 1, 1)
    nb = [1024]                                       # 256 floats
    by = {e.text: e for e in rw.report()}
    bit = {next(i for i, c in enumerate(codes) if by[t].code in c): t
           for t in ("out[c]", "out[u - 1]")}
    held = mask([None, np.uint32(3)], nb, g, l)
    assert {bit[i] for i in bit if held >> i & 1} == {"out[c]", "out[u - 1]"}
    # u + 7 > 255 would wrap: the cast's condition fails, the check stays
    held = mask([None, np.uint32(250)], nb, g, l)
    assert {bit[i] for i in bit if held >> i & 1} == {"out[u - 1]"}
    # u = 0: u - 1 wraps to 4294967295 -- not proven
    held = mask([None, np.uint32(0)], nb, g, l)
    assert {bit[i] for i in bit if held >> i & 1} == {"out[c]"}


def test_assume_leaves_out_exactly_those_checks():
    rw = opencl.rewrite(VADD_CL, filename="k.cl", launch_predicates=True)
    by = {e.text: e for e in rw.report()}
    variant = opencl.rewrite(VADD_CL, filename="k.cl", assume={by["out[i]"].code})
    assert f"{by['out[i]'].code:#x}" not in variant.source
    assert f"{by['a[i]'].code:#x}" in variant.source
    assert variant.source.count("\n") == rw.source.count("\n")          # lines kept
    cu = cuda.rewrite(VADD_CU, filename="k.cu", launch_predicates=True)
    codes = {e.text: e.code for e in cu.report()}
    cu_variant = cuda.rewrite(VADD_CU, filename="k.cu", assume={codes["a[i]"]})
    assert f"{codes['a[i]']:#x}" not in cu_variant.source
    assert f"{codes['out[i]']:#x}" in cu_variant.source
    assert cu_variant.assumed == (codes["a[i]"],)


def test_scalars_count_only_as_the_kernel_reads_them():
    rw = opencl.rewrite(VADD_CL, filename="k.cl", launch_predicates=True)
    for python_int, value, holds in [
            (False, np.int32(10), True), (False, np.int64(10), True),
            (False, np.int16(10), False),        # fewer bytes than the parameter's
            (False, 10, False),                  # PyOpenCL needs NumPy scalars
            (True, 10, True), (True, 2 ** 40, False), (False, np.float32(10), False),
            (False, True, False)]:
        mask, _ = compile_mask(rw.kernel("add").launch, python_int=python_int)
        m = mask([None, None, value], [40, 40], (64, 1, 1), None)
        assert bool(m) == holds, (python_int, value)
    # The mask is memoized per launch: by the scalars' types too (10 == np.int16(10))
    mask, _ = compile_mask(rw.kernel("add").launch, python_int=False)
    assert [bool(mask([None, None, v], [40, 40], (64, 1, 1), None)) for v in
            (np.int32(10), np.int16(10), 10, np.int32(10), np.int32(11))] == \
        [True, False, False, True, False]
    assert bin(mask([None, None, np.int32(10)], [40, 8], (64, 1, 1), None)).count("1") == 1


def test_geometry():
    assert cuda_geometry(4, (32, 2)) == ((4, 1, 1), (32, 2, 1))
    assert opencl_geometry((64,), None) == ((64, 1, 1), None)
    for bad in [lambda: cuda_geometry(0, 32), lambda: cuda_geometry((1.5,), 32),
                lambda: opencl_geometry((64,), (16,), (8,)),
                lambda: opencl_geometry((64,), (16,), None, True)]:
        with pytest.raises((TypeError, ValueError)):
            bad()
    assert opencl_geometry((64,), (16,), (0,)) == ((64, 1, 1), (16, 1, 1))


def test_variants_full_partial_and_none():
    rw = opencl.rewrite(VADD_CL, filename="k.cl", launch_predicates=True)
    made = []
    variants = CLaunchVariants(rw.kernel("add").launch,
                               lambda codes: made.append(codes) or f"v{len(made)}",
                               python_int=False)
    args = [None, None, np.int32(64)]
    assert variants.for_launch(args, [256, 256], opencl_geometry, (64,), (16,)) == "v1"
    assert len(made[0]) == 2                                      # the full variant
    assert variants.for_launch(args, [256, 8], opencl_geometry, (64,), (16,)) == "v2"
    assert len(made[1]) == 1                                      # a partial one
    assert variants.for_launch(args, [8, 8], opencl_geometry, (64,), (16,)) is None
    assert variants.for_launch(args, [256, 256], opencl_geometry, (64,), (16,), (4,),
                               False) is None                     # an offset: checked
    assert variants.for_launch(args, [256, 256], opencl_geometry, (64,), (16,)) == "v1"
    assert len(made) == 2                                          # made once each


def test_host_cost_of_the_mask():
    """The launch-time cost (reported in the docs): a few integer operations per predicate."""
    rw = opencl.rewrite(VADD_CL, filename="k.cl", launch_predicates=True)
    variants = CLaunchVariants(rw.kernel("add").launch, lambda codes: "v",
                               python_int=False)
    args, nb = [None, None, np.int32(64)], [256, 256]
    variants.for_launch(args, nb, opencl_geometry, (64,), (16,))
    n = 20000
    per_call = timeit.timeit(lambda: variants.for_launch(args, nb, opencl_geometry, (64,),
                                                         (16,)), number=n) / n
    assert per_call < 100e-6, per_call
