"""A checked kernel's failure reaches its user at the sync points of the array library they
read results with, when that is not the kernel's own (backends.watch_libraries): a numba kernel
on CuPy arrays raises at `.get()`, `cupy.asnumpy()` and a stream's `synchronize()` -- CuPy
imported before the kernel or after it -- and a CuPy RawKernel on numba device arrays raises at
`copy_to_host()` (its arguments CuPy views of them), in processes that launch nothing through
the other library's safekern backend. Each case
runs in a child process of its own (a clean set of hooks). Needs CuPy and a GPU; the hooking
logic without either: tests/core/test_library_watch.py.

    python -m pytest tests/numba/test_numba_on_cupy_arrays.py -m gpu -v
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("cupy")

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300, method="thread")]

_NUMBA_KERNEL = """
from numba import cuda
import safekern

@safekern.jit
def shifted(src, dst):
    i = cuda.grid(1)
    if i < dst.shape[0]:
        dst[i] = src[i + 1]
"""

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_READS = {"get": "dst.get()",
          "asnumpy": "cupy.asnumpy(dst)",
          "stream": "cupy.cuda.get_current_stream().synchronize()"}


def _run(script: str, tmp_path) -> str:
    """`script` run by a child Python from a file (safekern reads a kernel's source from it)."""
    path = tmp_path / "user_script.py"
    path.write_text(textwrap.dedent(script))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=os.pathsep.join([_ROOT, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True,
                          timeout=240, cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _numba_on_cupy(read: str, cupy_first: bool) -> str:
    imports = "import cupy\n" + _NUMBA_KERNEL if cupy_first else _NUMBA_KERNEL + "import cupy\n"
    return imports + textwrap.dedent(f"""
        src = cupy.arange(10, dtype=cupy.float32)
        dst = cupy.zeros(10, cupy.float32)
        shifted[1, 32](cuda.as_cuda_array(src), cuda.as_cuda_array(dst))
        try:
            {_READS[read]}
        except IndexError as err:
            print("raised:", str(err).splitlines()[0])
        else:
            print("not raised")
        import safekern.backends.cupy
        print("cupy backend used:", "safekern.backends.cupy.program" in sys.modules)
    """)


@pytest.mark.parametrize("cupy_first", [True, False], ids=["cupy-first", "cupy-after"])
@pytest.mark.parametrize("read", sorted(_READS))
def test_a_numba_kernels_failure_is_raised_where_cupy_waits(read, cupy_first, tmp_path):
    out = _run("import sys\n" + _numba_on_cupy(read, cupy_first), tmp_path)
    assert "raised: index 10 out of bounds for axis 0 with size 10 (array 'src')" in out, out
    assert "cupy backend used: False" in out, out


def test_a_cupy_kernels_failure_is_raised_where_numba_waits(tmp_path):
    out = _run("""
        import cupy
        import numpy as np
        from numba import cuda
        import safekern.cupy as skcp
        k = skcp.RawKernel(r'''extern "C" __global__ void shifted(const float* a, float* b,
                                                                  int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) b[i] = a[i + 1];
        }''', "shifted")
        src = cuda.to_device(np.arange(10, dtype=np.float32))
        dst = cuda.device_array(10, np.float32)
        k((1,), (32,), (cupy.asarray(src), cupy.asarray(dst), np.int32(10)))   # (views)
        try:
            dst.copy_to_host()
        except IndexError as err:
            print("raised:", str(err).splitlines()[0])
        else:
            print("not raised")
    """, tmp_path)
    assert "raised: index 10 out of bounds" in out, out
