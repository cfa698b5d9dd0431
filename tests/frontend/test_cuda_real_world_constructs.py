"""CUDA constructs of run-time-compiled kernels from public projects that NVRTC compiles and
safekern's parse refused (a probe of 149 sources from CuPy, cusignal, cuml, cucim, pyinn,
httomolibgpu, softmax-splatting, 3d-ken-burns and chainer, 29 Nov 2026): `clock_t`, texture
and surface objects (CuPy's TextureObject/SurfaceObject and their tests), narrowing in a braced
initializer (cusignal's upfirdn; NVRTC warns, clang refused). Each is rewritten, its accesses
checked, and compiled by NVRTC."""
from __future__ import annotations

import pytest

pytest.importorskip("clang.cindex")

from safekern.frontend.c import cuda  # noqa: E402

CASES = {
    # CuPy's test_ndarray.py
    "clock_t": r"""
extern "C" __global__ void k(long long *x) { clock_t t = clock(); x[0] = t; }
""",
    # CuPy's test_texture.py
    "texture_fetch": r"""
extern "C" __global__ void k(float* out, cudaTextureObject_t tex, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}
""",
    "texture_2d": r"""
extern "C" __global__ void k(float* out, cudaTextureObject_t tex, int w, int h) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float u = x / (float)w, v = y / (float)h;
        out[y * w + x] = tex2D<float>(tex, u, v) + tex3D<float>(tex, u, v, 0.5f);
        float4 q; tex2D(&q, tex, u, v); out[y * w + x] += q.x;
    }
}
""",
    "surface": r"""
extern "C" __global__ void k(cudaSurfaceObject_t surf, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        surf1Dwrite(in[i], surf, i * 4);
        float v = surf1Dread<float>(surf, i * 4, cudaBoundaryModeClamp);
        surf2Dwrite(v, surf, i * 4, 0, cudaBoundaryModeZero);
    }
}
""",
    # cusignal's _upfirdn_cuda.py (632acfe)
    "braced_narrowing": r"""
extern "C" __global__ void k(int *out, int up, int n) {
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    int h { tid % up };
    if (tid < n) out[h] = 1;
}
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewritten_checked_and_compiled(name):
    from safekern.backends.cupy import api as backend
    from safekern.backends.cupy import nvrtc

    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable as err:  # pragma: no cover - CI installs nvidia-cuda-nvrtc
        pytest.skip(f"NVRTC not available: {err}")
    src = CASES[name]
    rw = cuda.rewrite(src, filename=f"{name}.cu")
    arrays = {e.array for e in rw.report() if e.kind == "bounds"}
    assert arrays == {"clock_t": {"x"}, "texture_fetch": {"out"}, "texture_2d": {"out"},
                      "surface": {"in"}, "braced_narrowing": {"out"}}[name], rw.report()
    out = nvrtc.compile_program(rw.source, filename=f"{name}.cu", arch="sm_90",
                                options=backend.compile_options(()))
    assert out.cubin[:4] == b"\x7fELF"


def test_the_braced_initializer_still_checks_its_index():
    """`out[h]` with h from a narrowing braced initializer: checked, not proven."""
    rw = cuda.rewrite(CASES["braced_narrowing"], filename="n.cu")
    (entry,) = [e for e in rw.report() if e.kind == "bounds"]
    assert (entry.status, entry.lineno, entry.text) == ("checked", 5, "out[h]")
