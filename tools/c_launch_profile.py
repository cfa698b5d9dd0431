"""Where the host time of checked CuPy and PyOpenCL launches goes (cProfile), on a GPU machine.

    python tools/c_launch_profile.py [launches]
"""
import cProfile
import pstats
import sys
import time

import numpy as np

SRC = r"""
extern "C" __global__ void vector_add(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
"""
CL = """
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* out, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a[i] + b[i];
}
"""


def timed(label, launch, sync, n):
    for _ in range(100):
        launch()
    sync()
    start = time.perf_counter()
    for _ in range(n):
        launch()
    per = (time.perf_counter() - start) / n * 1e6
    sync()
    print(f"{label}: {per:.2f} us per launch")


def main(n=3000):
    import cupy as cp

    import safekern
    import safekern.cupy as skcp

    size = 1 << 20
    a, b, out = (cp.ones(size, cp.float32) for _ in range(3))
    plain = cp.RawKernel(SRC, "vector_add")
    checked = skcp.RawKernel(SRC, "vector_add")
    args = (a, b, out, np.int32(size))
    timed("cupy plain", lambda: plain((size // 256,), (256,), args),
          cp.cuda.Device().synchronize, n)
    timed("cupy checked", lambda: checked((size // 256,), (256,), args), safekern.sync, n)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        checked((size // 256,), (256,), args)
    prof.disable()
    safekern.sync()
    pstats.Stats(prof).sort_stats("tottime").print_stats(18)
    try:
        import pyopencl as cl
        import pyopencl.array as cla

        import safekern.opencl as skcl
        from benchmarks.backends import opencl_device

        device, why = opencl_device()
        if device is None:
            raise RuntimeError(why)
        ctx = cl.Context([device])
        q = cl.CommandQueue(ctx)
        xa, xb, xo = (cla.to_device(q, np.ones(size, np.float32)) for _ in range(3))
        pprg = cl.Program(ctx, CL).build()
        cprg = skcl.Program(ctx, CL).build()
        pk, ck = pprg.vector_add, cprg.vector_add
        timed("opencl plain", lambda: pk(q, (size,), (256,), xa.data, xb.data, xo.data,
                                         np.int32(size)), q.finish, n)
        timed("opencl checked", lambda: ck(q, (size,), (256,), xa, xb, xo, np.int32(size)),
              lambda: safekern.sync(q), n)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(n):
            ck(q, (size,), (256,), xa, xb, xo, np.int32(size))
        prof.disable()
        safekern.sync(q)
        pstats.Stats(prof).sort_stats("tottime").print_stats(14)
    except Exception as err:  # noqa: BLE001
        print("opencl:", type(err).__name__, err)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
