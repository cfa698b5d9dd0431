"""A checked numba kernel's out-of-bounds access, reported at the sync point of the array
library the user reads the result with: CuPy (`.get()`, `cupy.asnumpy`, stream synchronize),
PyTorch (`.cpu()`, `.item()`, `torch.cuda.synchronize()`), numba (`copy_to_host`); and a correct
kernel on the same arrays reports nothing. On a GPU."""
import numpy as np
from numba import cuda
import safekern

results = []


@safekern.jit
def shifted(src, dst):
    i = cuda.grid(1)
    if i < dst.shape[0]:
        dst[i] = src[i + 1]


@safekern.jit
def copy(src, dst):
    i = cuda.grid(1)
    if i < dst.shape[0]:
        dst[i] = src[i]


def case(name, make, read):
    for kernel, should_raise in ((copy, False), (shifted, True)):
        try:
            src, dst = make()
            kernel[1, 64](cuda.as_cuda_array(src), cuda.as_cuda_array(dst))
            read(dst)
            raised = None
        except IndexError as e:
            raised = e
        except Exception as e:          # noqa: BLE001
            results.append((name, kernel.__name__, f"EXC {type(e).__name__}: {e}"))
            continue
        ok = (raised is not None) == should_raise
        results.append((name, kernel.__name__, "ok" if ok else
                        f"WRONG (raised={raised is not None})"))
        print(results[-1], flush=True)
        try:
            safekern.sync()
        except Exception:               # noqa: BLE001 -- a failure not read above
            pass


import cupy as cp
import torch

case("cupy .get()", lambda: (cp.arange(10, dtype=cp.float32), cp.zeros(10, cp.float32)),
     lambda d: d.get())
case("cupy.asnumpy", lambda: (cp.arange(10, dtype=cp.float32), cp.zeros(10, cp.float32)),
     lambda d: cp.asnumpy(d))
case("cupy stream sync", lambda: (cp.arange(10, dtype=cp.float32), cp.zeros(10, cp.float32)),
     lambda d: cp.cuda.get_current_stream().synchronize())
case("torch .cpu()", lambda: (torch.arange(10, dtype=torch.float32, device="cuda"),
                              torch.zeros(10, device="cuda")), lambda d: d.cpu())
case("torch .item()", lambda: (torch.arange(10, dtype=torch.float32, device="cuda"),
                               torch.zeros(10, device="cuda")), lambda d: d.sum().item())
case("torch.cuda.synchronize", lambda: (torch.arange(10, dtype=torch.float32, device="cuda"),
                                        torch.zeros(10, device="cuda")),
     lambda d: torch.cuda.synchronize())
case("numba copy_to_host", lambda: (cuda.to_device(np.arange(10, dtype=np.float32)),
                                    cuda.device_array(10, np.float32)),
     lambda d: d.copy_to_host())
for r in results:
    print(r)
