"""Module state (`__constant__` / `__device__` variables) and launch variants, without a GPU.

A launch variant is a module of its own: had it run, a kernel reading `__constant__` memory
filled through `get_global` would read the variant's copy, never written. A source with module
state therefore gets no launch predicates (frontend/c/module_state.py): every launch runs the
checked kernel of the one module `get_global` hands out. The stand-in `cupy`
(test_cuda_c_launch.py) shows which function a launch runs; NVRTC compiles the sources.
test_const_state_gpu.py checks the results on a GPU.
"""
import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from safekern.backends.cupy import nvrtc  # noqa: E402
from safekern.frontend.c import cuda  # noqa: E402
from tests.cupy.test_cuda_c_launch import FakeCupy, fake_cupy  # noqa: E402,F401

try:
    nvrtc.version()
except nvrtc.NvrtcUnavailable as err:  # pragma: no cover
    pytest.skip(f"NVRTC not available: {err}", allow_module_level=True)

pytestmark = pytest.mark.nvrtc

# The construct of CuPy's test_const_memory (test_raw.py): an extern "C" __constant__ array
# the host fills through get_global, read by a kernel whose launches prove `v[k]` in bounds.
CONST_MEM = r'''
extern "C" {
__constant__ float scale[100];

__global__ void apply_scale(float* v, int count) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) {
        v[k] = v[k] * scale[k];
    }
}
}
'''

# the same kernel without the __constant__ array: its launches do run a variant
NO_STATE = CONST_MEM.replace("__constant__ float scale[100];", "").replace(
    "scale[k]", "2.0f")

COUNTER = r'''
__device__ unsigned long long counter;

extern "C" __global__ void count(const float* x, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n && x[i] > 0) atomicAdd(&counter, 1ULL);
}

extern "C" __global__ void read_counter(unsigned long long* out, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = counter;
}
'''

ALL_KINDS = r'''
#include <cuda_fp16.h>
__constant__ float coeffs[16];
__device__ int plain;
static __device__ int file_static;
__device__ __managed__ int managed;
__device__ const int table[2] = {1, 2};
__constant__ const float pi = 3.14159f;
__shared__ float tile[32];
namespace ns { __device__ unsigned long long hits; }
template <class T> __device__ T per_type;
__device__ int next_id() { static int n; return n++; }
extern "C" __global__ void k(float* x, int n) {
    int i = threadIdx.x;
    if (i < n) x[i] = coeffs[i % 16] + table[0] + pi + plain + file_static + managed;
}
'''


def test_module_state_lists_what_each_module_owns():
    rw = cuda.rewrite(ALL_KINDS, filename="kinds.cu", launch_predicates=True)
    found = {(v.name, v.lineno, v.why) for v in rw.state}
    assert found == {
        ("coeffs", 3, "__constant__ variable"), ("plain", 4, "__device__ variable"),
        ("file_static", 5, "__device__ variable"), ("managed", 6, "__device__ variable"),
        ("hits", 10, "__device__ variable"), ("per_type", 11, "variable template"),
        ("n", 12, "static local variable of next_id")}
    # const data (table, pi) and __shared__ memory are not state; CUDA's headers add none
    assert rw.kernels[0].launch is None


def test_a_source_without_state_keeps_its_launch_predicates():
    rw = cuda.rewrite(NO_STATE, filename="plain.cu", launch_predicates=True)
    assert rw.state == () and rw.kernels[0].launch is not None
    with_state = cuda.rewrite(CONST_MEM, filename="const.cu", launch_predicates=True)
    assert with_state.kernels[0].launch is None
    assert [e.status for e in with_state.report() if e.text == "v[k]"] == ["checked"] * 2


def test_const_memory_launch_runs_the_checked_kernel_of_the_get_global_module(fake_cupy):
    """The launch CuPy's test_const_memory makes: every predicate would hold (a variant
    would run) -- the checked kernel of the module get_global() reads runs instead."""
    import safekern.cupy as skcp

    cp = fake_cupy
    mod = skcp.RawModule(code=CONST_MEM)
    ker = mod.get_function("apply_scale")
    ker((1,), (100,), (cp.zeros(100, np.float32), np.int32(100)))
    (name, _), = FakeCupy.launches
    assert name == "apply_scale"
    assert ker._bound()[4] is None                                 # no variant table
    assert ker._bound()[5] is None                         # no plain launch (another module)
    assert len(ker.kernel.launches) == 1                           # the module's own function
    assert ker.kernel.module is mod.module

    # the same launch of the same kernel without module state does run a variant
    plain = skcp.RawModule(code=NO_STATE).get_function("apply_scale")
    plain((1,), (100,), (cp.zeros(100, np.float32), np.int32(100)))
    variant, = plain._bound()[4].kernels()
    assert len(variant.launches) == 1 and not plain.kernel.launches


def test_device_counter_kernels_and_raw_kernel_share_one_module(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    mod = skcp.RawModule(code=COUNTER)
    count, read = mod.get_function("count"), mod.get_function("read_counter")
    count((1,), (64,), (cp.zeros(64, np.float32), np.int32(64)))
    read((1,), (64,), (cp.zeros(64, np.uint64), np.int32(64)))
    assert count.kernel.module is read.kernel.module is mod.module
    assert count._bound()[4] is None and read._bound()[4] is None
    # a RawKernel of a source with a __device__ global: no variants either
    raw = skcp.RawKernel(COUNTER, "count")
    raw((1,), (64,), (cp.zeros(64, np.float32), np.int32(64)))
    assert raw._bound()[4] is None and len(raw.kernel.launches) == 1


def test_a_variant_of_a_stateful_program_is_refused(fake_cupy):
    """The second guard: the one build path (Program.loaded) refuses a launch variant of a
    source with module state, whatever asks."""
    import safekern
    import safekern.cupy as skcp

    mod = skcp.RawModule(code=CONST_MEM)
    codes = {e.code for e in mod.check_report() if e.code is not None}
    with pytest.raises(safekern.UnsupportedError, match="scale.*line 3"):
        mod._program.variant_function("apply_scale", frozenset(codes))


def test_compile_keeps_the_loaded_module(fake_cupy):
    """CuPy's compile() keeps its memoized module; a reload would drop the __constant__
    memory get_global() handed out."""
    import safekern.cupy as skcp

    mod = skcp.RawModule(code=CONST_MEM)
    before = mod.module
    mod.compile()
    ker = mod.get_function("apply_scale")
    ker.compile()
    assert mod.module is before and ker.kernel.module is before


@pytest.mark.parametrize("src", [CONST_MEM, COUNTER, ALL_KINDS])
def test_stateful_sources_compile_checked(src):
    """The checked source of a stateful module keeps its variables (get_global finds them)."""
    from safekern.backends.cupy import api as backend

    rw = cuda.rewrite(src, filename="state.cu", launch_predicates=True)
    out = nvrtc.compile_program(rw.source, filename="state.cu", arch="sm_90",
                                options=backend.compile_options(()), cubin=False)
    ptx = out.ptx.decode()
    for var in rw.state:
        if var.why.endswith("variable") and var.name != "hits":     # (hits is mangled)
            assert f" {var.name}" in ptx or f"{var.name}[" in ptx, var.name
