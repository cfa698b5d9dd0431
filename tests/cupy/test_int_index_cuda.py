"""CUDA C's `int` index checks (cuda_edits.index_helper): an `int` index goes through the
prelude's `__sk_ix32` (the test of the long it is sign-extended to), every other through the templated `__sk_ix`; a
struct's pointer field subscripted as itself (`g.nlist[k]`) is an index check against the
field's element count, not `__sk_ptr`'s pointer offset; a versioned loop's checked copy keeps
the 64-bit `__sk_ix` (loop_versions.LoopWords.wide). Here the rewrite and NVRTC (no GPU); the
GPU half is test_int_index_cuda_gpu.py."""
import re

import pytest

pytest.importorskip("clang.cindex")

from safekern.backends.cupy import nvrtc, program  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402
from tests.cupy.test_loop_versions import SPMV  # noqa: E402
from tests.cupy.test_loops_that_store import BFS_STRUCT as BFS  # noqa: E402

MIXED = r"""
extern "C" __global__ void k(float* a, int i, long long j, unsigned int u, size_t z, short s) {
    a[i] = a[j] + a[u] + a[z] + a[s];
}
"""

def _body(src):
    text = cuda.rewrite(src, filename="k.cu").source
    return text[text.rfind("#line 1"):]


def _builds(src):
    out = nvrtc.compile_program(cuda.rewrite(src, filename="k.cu").source, filename="k.cu",
                                arch="sm_90", options=program.compile_options(()), cubin=True)
    assert out.cubin[:4] == b"\x7fELF" and "warning" not in out.log, out.log


def test_an_int_index_goes_through_the_32_bit_check():
    body = _body(MIXED)
    assert "a[__sk_ix32(i," in body
    for other in ("j", "u", "z", "s"):         # 64-bit, unsigned, size_t, short: templated
        assert f"a[__sk_ix({other}," in body, other
    _builds(MIXED)


def test_a_struct_field_subscript_is_an_index_check_against_its_elements():
    body = _body(BFS)
    assert re.search(r"g\.nlist\[__sk_ix32\(k, __sk_count\(__sk_fbytes_\w+, 4LL\), ", body), body
    assert "__sk_ptr((g.nlist)" not in body
    assert "level[__sk_ix32(v," in body and "next[__sk_ix32(v," in body
    _builds(BFS)


def test_the_struct_fields_of_the_test_kernels_still_build():
    _builds(K.CSR_GRAPH)


def test_a_versioned_loops_checked_copy_keeps_the_64_bit_check():
    body = _body(SPMV)
    checked = body[body.index("} else for"):body.index("/* __sk_lo")]
    assert "__sk_dc32(" in body                          # the loop is versioned
    assert "__sk_ix(k," in checked and "__sk_ix(indices[" in checked
    assert "__sk_ix32" not in checked
    assert "y[__sk_ix32(row," in body                    # outside the loop: 32 bits
    _builds(SPMV)


#: a kernel with a local array `priv` (10..17) and a shared one `tile` (10s), then its line
_ARRAYS = r"""
extern "C" __global__ void k(int* out, unsigned int u) {
    __shared__ int tile[16];
    int priv[8];
    for (int t = 0; t < 8; t++) priv[t] = t + 10;
    tile[threadIdx.x % 16] = 10;
    __syncthreads();
"""

CONSTANT_EXTENTS = _ARRAYS + r"""    out[threadIdx.x] = priv[(long long)((int)u * 2)] + tile[threadIdx.x / 4 + (int)u * 2]
                       + priv[threadIdx.x % 8];
}
"""


def test_a_constant_extents_index_is_tested_as_an_opaque_value():
    """A local or shared array's index (a constant extent, access_check.Check.opaque)
    goes through `__sk_opq` inside its check: the compiler may not narrow the test to 32 bits
    while it widens the address from an overflowing int arithmetic (the OpenCL fuzzer's seed
    255312649 crashed a checked kernel so). A pointer parameter's index does not."""
    body = _body(CONSTANT_EXTENTS)
    assert "priv[__sk_ix(__sk_opq((long long)((int)u * 2)), 8," in body, body
    assert "tile[__sk_ix(__sk_opq(threadIdx.x / 4 + (int)u * 2), 16," in body, body
    assert "out[__sk_ix(threadIdx.x," in body and "out[__sk_ix(__sk_opq" not in body
    _builds(CONSTANT_EXTENTS)


INDEX_TYPES = r"""
enum Color { RED, GREEN, BLUE };
struct Ix { int v; __device__ operator int() const { return v; } };
extern "C" __global__ void k(int* out, unsigned int u, unsigned char c, short s, long long L,
                             unsigned long long U) {
    int priv[8];
    for (int t = 0; t < 8; t++) priv[t] = t + 10;
    Color col = GREEN;
    Ix ix; ix.v = (int)u * 2;
    unsigned char cc = c + 1;
    short ss = s * 2;
    long long LL = L + (int)u;
    unsigned long long UU = U * 3;
    bool b = u > 3;
    out[threadIdx.x] = priv[col] + priv[ix] + priv[cc] + priv[ss] + priv[LL] + priv[UU] + priv[b];
}
"""


def test_an_opaque_index_of_any_type_builds():
    """`__sk_opq` takes the index as its promoted type (`+v`): an enum, a class that converts
    to int, narrow and 64-bit integers, a bool; a member stored from an int arithmetic
    (`ix.v = (int)u * 2`) makes its variable's index opaque too; 64-bit arithmetic does not."""
    body = _body(INDEX_TYPES)
    for index in ("ix", "cc", "ss"):
        assert f"(__sk_opq({index})," in body, index
    for index in ("col", "LL", "UU", "b"):
        assert f"__sk_ix({index}," in body, index
    _builds(INDEX_TYPES)


POINTERS = _ARRAYS + r"""    int* p = priv;
    const int* q = tile + (int)u * 2;
    out[threadIdx.x] = p[(long long)((int)u * 2)] + *(p + (long long)((int)u * 4)) + *q
                       + *(p + threadIdx.x % 8);
}
"""


def test_a_pointer_into_an_array_that_an_int_arithmetic_made_is_opaque():
    """`p[i]` and `*(p + i)` into a local or shared array where an int arithmetic may have made
    the index or the pointer: the index (`__sk_opq`) or the pointer (`__sk_opqp`) goes into
    `__sk_ptr` opaque, so its test and the access read one value; `*(p + threadIdx.x % 8)`
    does not."""
    body = _body(POINTERS)
    assert "(__sk_opq((long long)((int)u * 2)))" in body, body
    assert "__sk_ptr(__sk_opqp((p + (long long)((int)u * 4)))" in body, body
    assert "__sk_ptr(__sk_opqp(q)" in body, body
    assert "__sk_ptr((p + threadIdx.x % 8)" in body, body
    _builds(POINTERS)
