"""safekern.cupy as a drop-in for cupy.RawKernel / cupy.RawModule on a real GPU (issue 23):
CuPy's compiler compiles the checked source -- nvcc, CuPy's kernel cache, log_stream --,
CuPy's exceptions, translate_cucomplex; out-of-bounds accesses are still reported.

    python -m pytest tests/cupy/test_cupy_api_dropin_gpu.py -m gpu -v
"""
import io
import os

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

import safekern  # noqa: E402
import safekern.cupy as skcp  # noqa: E402
from tests.cupy import cuda_c_kernels as K  # noqa: E402
from tests.support.checks import assert_bounds_error  # noqa: E402

try:
    _devices = cp.cuda.runtime.getDeviceCount()
except Exception:
    _devices = 0
if _devices == 0:
    pytest.skip("no CUDA device", allow_module_level=True)

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300, method="thread")]


def _gather(kernel, bad: bool):
    n = 64
    out, src = cp.zeros(n, cp.float32), cp.arange(n, dtype=cp.float32)
    idx = cp.arange(n, dtype=cp.int32)
    if bad:
        idx[7] = n + 3
    kernel((1,), (n,), (out, src, idx, np.int32(n)))
    return out, src


@pytest.mark.parametrize("backend", ["nvrtc", "nvcc"])
def test_both_backends_check_and_compute(backend):
    k = skcp.RawKernel(K.GATHER, "gather", backend=backend)
    out, src = _gather(k, bad=False)
    safekern.sync()
    cp.testing.assert_array_equal(out, src)
    _gather(k, bad=True)
    assert_bounds_error(kernel="gather", index=67, size=64, lineno=5)


def test_cupys_kernel_cache_holds_the_checked_module(tmp_path, monkeypatch):
    from cupy.cuda import _compiler_cache, compiler

    monkeypatch.setattr(compiler, "_kernel_cache_backend",
                        _compiler_cache.DiskKernelCacheBackend(str(tmp_path)))
    monkeypatch.setattr(compiler, "_empty_file_preprocess_cache", {})
    from safekern.backends.cupy import api

    api._MODULES.clear()
    code = K.GATHER.replace("gather", "gather_cached")
    out, src = _gather(skcp.RawKernel(code, "gather_cached"), bad=False)
    safekern.sync()
    cp.testing.assert_array_equal(out, src)
    cached = [f for f in os.listdir(tmp_path) if f.endswith(".cubin")]
    # the checked module and the launch variant the launch ran (out[i], idx[i] proven): one
    # build path, CuPy's compiler for both
    assert len(cached) == 2
    api._MODULES.clear()          # as in a new process: CuPy's cache serves the checked module
    cp._util.clear_memo()
    _gather(skcp.RawKernel(code, "gather_cached"), bad=True)
    assert [f for f in os.listdir(tmp_path) if f.endswith(".cubin")] == cached
    assert_bounds_error(kernel="gather_cached", index=67, size=64)


def test_compile_errors_and_missing_kernels_are_cupys():
    from cupy.cuda.compiler import CompileException

    bad = 'extern "C" __global__ void k(float* a) {\n    a[0] = nope;\n}\n'
    for backend in ("nvrtc", "nvcc"):
        with pytest.raises(CompileException) as info:
            skcp.RawModule(code=bad, backend=backend).get_function("k")
        assert isinstance(info.value, safekern.CompilationError)
        assert info.value.lineno == 2 and "nope" in str(info.value)
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND"):
        skcp.RawModule(code=K.GATHER).get_function("no_such_kernel")


def test_log_stream_gets_the_compilers_log():
    code = K.GATHER.replace("int i =", "int unused_j; int i =").replace("gather", "gather_log")
    log = io.StringIO()
    skcp.RawKernel(code, "gather_log").compile(log_stream=log)
    assert "unused_j" in log.getvalue()


def test_translate_cucomplex_is_checked():
    code = ("#include <cuComplex.h>\n"
            'extern "C" __global__ void cadd(cuComplex* a, cuComplex* out, int n) {\n'
            "    int i = threadIdx.x;\n"
            "    if (i < n) out[i + 1] = cuCaddf(a[i], a[i]);\n"
            "}\n")
    k = skcp.RawKernel(code, "cadd", translate_cucomplex=True)
    a = (cp.arange(8) + 1j).astype(cp.complex64)
    out = cp.zeros(8, cp.complex64)
    k((1,), (7,), (a, out, np.int32(7)))
    safekern.sync()
    cp.testing.assert_array_equal(out[1:], (a + a)[:7])
    k((1,), (8,), (a, out, np.int32(8)))
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.lineno, info.value.index, info.value.size) == (4, 8, 8)
