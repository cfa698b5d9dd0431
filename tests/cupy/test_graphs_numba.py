"""A checked numba kernel captured into a CUDA graph on a CuPy stream (`cuda.external_stream`):
replays that fail raise at the next sync point, replays after it run normally. numba's launch
path does not say whether its stream was capturing: the graph keeps every failure buffer launched
into while the capture was open (backends/capture.py). The kernel's first launch, which makes the
failure buffer with a synchronous copy, must come before the capture; the arrays are numba views
made before it too (numba synchronises an array's stream when it imports one).

    python -m pytest tests/cupy/test_graphs_numba.py -m gpu -v
"""
from __future__ import annotations

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

import safekern  # noqa: E402
from safekern import runtime  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300, method="thread")]

N = 64
BAD = 37


def _kernel():
    from numba import cuda

    @safekern.jit
    def gather(out, src, idx):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = src[idx[i]]
    return gather


def test_a_numba_kernel_captured_on_a_cupy_stream():
    from numba import cuda

    gather = _kernel()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        src = cp.arange(N, dtype=cp.float32)
        idx = cp.arange(N, dtype=cp.int32)
        out = cp.zeros(N, dtype=cp.float32)
    s.synchronize()
    views = [cuda.as_cuda_array(a) for a in (out, src, idx)]
    ns = cuda.external_stream(s.ptr)
    gather[2, 32, ns](*views)                   # compiles, makes the failure buffer
    s.synchronize()
    with s:
        out.fill(0)
        s.begin_capture()
        gather[2, 32, ns](*views)
        graph = s.end_capture()
    s.synchronize()
    assert float(out.sum()) == 0.0 and not runtime.capturing      # captured, not run
    graph.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(out.get(), np.arange(N))
    with s:
        idx[BAD] = 1000
    graph.launch(s)
    with pytest.raises(safekern.BoundsError) as info:
        s.synchronize()
    err = info.value
    assert (err.kernel, err.array, err.index, err.size) == ("gather", "src", 1000, N), str(err)
    with s:
        idx[BAD] = BAD
        out.fill(-1)
    graph.launch(s)
    graph.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(out.get(), np.arange(N))
