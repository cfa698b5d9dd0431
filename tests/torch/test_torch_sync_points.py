"""A failure of a checked kernel launched on PyTorch CUDA tensors reaches a PyTorch user at
PyTorch's own sync points (issue 27, part 3): `Tensor.cpu()`, `.item()`, `.tolist()`,
`.numpy(force=True)`, `.to("cpu")`, `bool()`/`float()`/`int()` of a CUDA tensor,
`torch.cuda.synchronize()`, `Stream.synchronize()`, `Event.synchronize()` -- for numba kernels
(`gather[2, 32](out, src, idx)` with torch tensors) and for CuPy kernels (skcp.RawKernel) alike.
Needs PyTorch and a GPU; the hooking logic is tested without either in
tests/core/test_torch_sync.py.

    python -m pytest tests/torch -m gpu -v
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import safekern  # noqa: E402
from safekern import runtime, sync_points  # noqa: E402
from tests.cupy.cuda_c_kernels import GATHER, line  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(300, method="thread")]

N = 64
BAD = 37            # idx[BAD] = 1000: thread 37 reads src[1000] of 64


def _numba_gather():
    from numba import cuda

    @safekern.jit
    def gather(out, src, idx):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = src[idx[i]]   # @numba-gather
    return gather


_NUMBA_LINE = next(n for n, text in enumerate(open(__file__).read().split("\n"), start=1)
                   if text.rstrip().endswith("# @numba-gather"))


class Launches:
    """gather on torch tensors, by numba or by CuPy; `bad=True` reads src[1000]."""

    def __init__(self, backend):
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device for PyTorch")
        self.backend = backend
        self.src = torch.arange(N, dtype=torch.float32, device="cuda")
        self.idx = torch.arange(N, dtype=torch.int32, device="cuda")
        self.out = torch.zeros(N, dtype=torch.float32, device="cuda")
        if backend == "numba":
            self.kernel = _numba_gather()
        else:
            skcp = pytest.importorskip("safekern.cupy")
            self.kernel = skcp.RawKernel(GATHER, "gather", filename="gather.cu")

    def launch(self, bad=True):
        self.idx[BAD] = 1000 if bad else BAD
        if self.backend == "numba":
            self.kernel[2, 32](self.out, self.src, self.idx)
        else:
            self.kernel((2,), (32,), (self.out, self.src, self.idx, np.int32(N)))

    def assert_failure(self, err):
        assert isinstance(err, safekern.BoundsError), err
        assert (err.array, err.index, err.size) == ("src", 1000, N), str(err)
        if self.backend == "numba":
            assert err.kernel == "gather" and err.filename.endswith(__name__.split(".")[-1] +
                                                                    ".py"), str(err)
            assert err.lineno == _NUMBA_LINE, str(err)
        else:
            assert (err.kernel, err.filename, err.lineno) == (
                "gather", "gather.cu", line(GATHER, "gather")), str(err)


@pytest.fixture(params=["numba", "cupy"])
def run(request):
    return Launches(request.param)


def _event(out):
    event = torch.cuda.Event()
    event.record()
    event.synchronize()


SYNC_POINTS = {
    "Tensor.cpu": lambda out: out.cpu(),
    "Tensor.item": lambda out: out[0].item(),
    "Tensor.tolist": lambda out: out.tolist(),
    "Tensor.numpy(force=True)": lambda out: out.numpy(force=True),
    "Tensor.cpu().numpy()": lambda out: out.cpu().numpy(),
    "Tensor.to('cpu')": lambda out: out.to("cpu"),
    "Tensor.to(device='cpu')": lambda out: out.to(device="cpu"),
    "Tensor.to(torch.device('cpu'))": lambda out: out.to(torch.device("cpu")),
    "float(tensor)": lambda out: float(out[0]),
    "bool(tensor)": lambda out: bool(out[0]),
    "int(tensor)": lambda out: int(out[0]),
    "torch.cuda.synchronize()": lambda out: torch.cuda.synchronize(),
    "torch.cuda.synchronize(0)": lambda out: torch.cuda.synchronize(0),
    "current_stream().synchronize()": lambda out: torch.cuda.current_stream().synchronize(),
    "Stream.synchronize()": lambda out: torch.cuda.Stream().synchronize(),
    "Event.synchronize()": _event,
}


@pytest.mark.parametrize("where", list(SYNC_POINTS))
def test_each_torch_sync_point_raises_the_failure(run, where):
    run.launch()
    with pytest.raises(safekern.BoundsError) as info:
        SYNC_POINTS[where](run.out)
    run.assert_failure(info.value)
    assert not runtime.pending_sources()
    run.launch(bad=False)                   # raised once and reset: the next launch is right
    assert run.out.tolist() == list(range(N))


def test_correct_kernels_raise_nowhere_and_results_are_torchs(run):
    run.launch(bad=False)
    for where, call in SYNC_POINTS.items():
        call(run.out)
    assert run.out.cpu().tolist() == list(range(N)) and run.out[5].item() == 5.0
    assert "Tensor.cpu" in sync_points.installed()["torch"]


def test_a_non_blocking_copy_raises_at_the_synchronize_that_completes_it(run):
    run.launch()
    host = torch.empty(N, dtype=torch.float32).pin_memory()
    host.copy_(run.out, non_blocking=True)
    run.out.to("cpu", non_blocking=True)
    assert runtime.pending_sources()           # nothing waited yet
    with pytest.raises(safekern.BoundsError) as info:
        torch.cuda.current_stream().synchronize()
    run.assert_failure(info.value)
