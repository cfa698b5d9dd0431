"""One parse error for both C dialects: the same libclang failure is the same
`safekern.CompilationError` (not an UnsupportedError) from CUDA C and from OpenCL C, located
at the user's line, and it pickles (a worker process can send it back)."""
import pickle

import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern.frontend.c import cuda, opencl
from safekern.frontend.c.parse_error import ParseError

CUDA_SRC = 'extern "C" __global__ void k(float* a) {\n  a[0] = undefined_variable;\n}\n'
OPENCL_SRC = "__kernel void k(__global float *a) {\n  a[0] = undefined_variable;\n}\n"


@pytest.mark.parametrize("front, src", [(cuda, CUDA_SRC), (opencl, OPENCL_SRC)],
                         ids=["cuda", "opencl"])
def test_a_libclang_failure_is_one_compilation_error(front, src):
    with pytest.raises(ParseError) as info:
        front.rewrite(src, filename="bad.c")
    err = info.value
    assert front.ParseError is ParseError
    assert isinstance(err, safekern.CompilationError)
    assert not isinstance(err, safekern.UnsupportedError)
    assert (err.filename, err.lineno) == ("bad.c", 2)
    assert "undefined_variable" in err.message and err.diagnostics
    assert err.problem == f"safekern cannot analyse this source (libclang: {err.message})"
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is ParseError and str(again) == str(err)
