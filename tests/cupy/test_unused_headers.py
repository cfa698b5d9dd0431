"""CCCL headers the user's code does not use (CuPy's test_jitify1; issue 23), no GPU: a header
whose errors leave a namespace open must not hide the user's kernels (frontend/c/
unused_headers.py); a source that uses the header's names is not parsed without it.
"""
import pytest

from safekern.errors import CompilationError
from safekern.frontend.c import cuda as frontend

pytestmark = pytest.mark.nvrtc

# As CuPy 14.2's CCCL parses under libclang's CUDA mode with the stand-ins: errors, and
# `namespace cuda { namespace std {` left open for the rest of the file.
BROKEN = "namespace cuda {\nnamespace std {\nint cub_value = 1;\nstruct fine { int x; };\n" \
         "typedef not_a_type broken_t;\n"
KERNEL = ('extern "C" __global__ void k(float* a, int n) {\n'
          "    int i = threadIdx.x;\n    if (i < n) a[i] = VALUE;\n}\n")


@pytest.fixture
def cccl(tmp_path):
    (tmp_path / "cub").mkdir()
    (tmp_path / "cub" / "broken.cuh").write_text(BROKEN)
    return str(tmp_path)


def test_an_unused_broken_cccl_header_does_not_hide_the_kernel(cccl):
    code = "#include <cub/broken.cuh>\n" + KERNEL.replace("VALUE", "1.0f")
    rw = frontend.rewrite(code, filename="j.cu", include_dirs=[cccl])
    (kernel,) = rw.kernels
    assert (kernel.name, kernel.qualified) == ("k", "k")     # at file scope, not cuda::std::
    # the include stays where it was: the compiler sees the real header
    assert '#line 1 "j.cu"\n#include <cub/broken.cuh>\n' in rw.source
    assert "__sk_bytes_0" in rw.source


def test_a_used_cccl_header_is_not_dropped(cccl):
    code = "#include <cub/broken.cuh>\n" + KERNEL.replace("VALUE", "cuda::std::cub_value")
    try:
        rw = frontend.rewrite(code, filename="j.cu", include_dirs=[cccl])
    except CompilationError:
        return                                   # refused: never analysed without it
    assert [k.qualified for k in rw.kernels] != ["k"]
