"""safekern.cupy as a drop-in for cupy.RawKernel / cupy.RawModule (issue 23), without a GPU:
CuPy's options, CuPy's exceptions, CuPy's jitify warning, pickling as CuPy's. The stand-in
`cupy` of test_cuda_c_launch.py plays CuPy; CuPy's exception classes are stood in for with the
same constructors. The GPU side (CuPy's compiler, nvcc, CuPy's cache) is in
test_cupy_api_dropin_gpu.py; CuPy's own tests run through tools/cupy_suite.py.
"""
import pickle
import sys
import types
import warnings

import numpy as np
import pytest

import safekern
from safekern.backends.cupy import options as cupy_options
from tests.cupy import cuda_c_kernels as K
from tests.cupy.test_cuda_c_launch import FakeCupy, fake_cupy  # noqa: F401 -- the fixture

pytestmark = pytest.mark.nvrtc


class CompileException(Exception):
    """CuPy's (cupy/cuda/compiler.py): the same constructor and __str__."""

    def __init__(self, msg, source, name, options, backend="nvrtc"):
        self._msg = msg
        self.source, self.name, self.options, self.backend = source, name, options, backend
        super().__init__()

    def __str__(self):
        return self._msg


class CupyRawModule:
    """cupy._core.raw.RawModule, for RawModule(path=...)."""

    def __init__(self, *, path, **kw):
        self.file_path = path


@pytest.fixture
def cupy_like(fake_cupy, monkeypatch):  # noqa: F811
    compiler = types.ModuleType("cupy.cuda.compiler")
    compiler.CompileException = CompileException
    raw = types.ModuleType("cupy._core.raw")
    raw.RawModule = CupyRawModule
    for name, mod in (("cupy.cuda", fake_cupy.cuda), ("cupy.cuda.compiler", compiler),
                      ("cupy._core", types.ModuleType("cupy._core")), ("cupy._core.raw", raw)):
        monkeypatch.setitem(sys.modules, name, mod)
    return fake_cupy


BROKEN = 'extern "C" __global__ void k(float* a) {\n    a[0] = undefined_name;\n}\n'


def test_a_compile_error_is_cupys_compile_exception_and_safekerns(cupy_like):
    import safekern.cupy as skcp

    with pytest.raises(CompileException) as info:
        skcp.RawKernel(BROKEN, "k").kernel       # noqa: B018 -- compiles
    err = info.value
    assert isinstance(err, safekern.CompilationError)
    assert (err.filename, err.lineno) == ("k.cu", 2) and "undefined_name" in str(err)
    assert err.source == BROKEN and err.backend == "nvrtc"      # CuPy's attributes
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err) and str(again) == str(err)


def test_a_missing_kernel_raises_what_the_module_raises(cupy_like):
    import safekern.cupy as skcp

    mod = skcp.RawModule(code=K.GATHER)
    with pytest.raises(RuntimeError, match="CUDA_ERROR_NOT_FOUND") as info:
        mod.get_function("no_such_kernel")
    assert any("no kernel 'no_such_kernel'" in n for n in info.value.__notes__)


def test_jitify_warns_as_cupy_does(cupy_like):
    import safekern.cupy as skcp

    with pytest.warns(DeprecationWarning, match="Avoid passing.*jitify=False") as record:
        skcp.RawKernel(K.GATHER, "gather", jitify=False)
    assert record[0].filename == __file__            # at the user's line
    with pytest.warns(DeprecationWarning, match="Avoid passing.*jitify=False"):
        skcp.RawModule(code=K.GATHER, jitify=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skcp.RawKernel(K.GATHER, "gather")


def test_cupys_option_errors():
    import safekern.cupy as skcp

    with pytest.raises(ValueError, match="nvrtc"):
        skcp.RawModule(code=K.GATHER, backend="nvcc", name_expressions=["gather"])
    with pytest.raises(ValueError, match="Jitify only supports NVRTC"):
        skcp.RawModule(code=K.GATHER, backend="nvcc", jitify=True)
    with pytest.raises(ValueError, match="Invalid backend"):
        skcp.RawKernel(K.GATHER, "gather", backend="clang")


def test_translate_cucomplex_keeps_the_lines_and_includes_cupys_headers():
    code = "#include <cuComplex.h>\n__global__ void k(cuComplex* a) {}\n"
    out, opts = cupy_options.prepare(code, ("-DX",), backend="nvrtc", jitify=None,
                                     translate_cucomplex=True)
    assert out.splitlines()[1:] == code.splitlines()[1:]
    assert out.splitlines()[0].startswith("#include <safekern_cucomplex.h>")
    assert opts[0] == "-DX" and opts[1] == f"-I{cupy_options.INCLUDE_DIR}"
    with open(f"{cupy_options.INCLUDE_DIR}/safekern_cucomplex.h") as f:
        assert "#include <cupy/cuComplex_bridge.h>" in f.read()


def test_path_modules_are_cupys_own_with_a_warning(cupy_like):
    import safekern.cupy as skcp

    with pytest.warns(safekern.UncheckedWarning, match="cannot be checked"):
        mod = skcp.RawModule(path="k.cubin")
    assert isinstance(mod, CupyRawModule) and mod.file_path == "k.cubin"


def test_kernels_and_modules_pickle_as_cupys(cupy_like):
    import safekern.cupy as skcp

    k = skcp.RawKernel(K.GATHER, "gather", options=("-DX=1",), enable_cooperative_groups=True)
    again = pickle.loads(pickle.dumps(k))
    assert (again.code, again.name, again.options, again.enable_cooperative_groups) == \
        (K.GATHER, "gather", ("-DX=1",), True)
    mod = skcp.RawModule(code=K.TEMPLATES, name_expressions=K.TEMPLATE_NAMES)
    back = pickle.loads(pickle.dumps(mod))
    assert back.name_expressions == tuple(K.TEMPLATE_NAMES)
    name = K.TEMPLATE_NAMES[0]
    fn = pickle.loads(pickle.dumps(mod.get_function(name)))
    assert fn.name == name and fn._program.name_expressions == tuple(K.TEMPLATE_NAMES)


def test_cooperative_kernels_launch_cooperatively(cupy_like, monkeypatch):
    import safekern.cupy as skcp
    from tests.cupy.test_cuda_c_launch import FakeFunction

    seen = []
    monkeypatch.setattr(FakeFunction, "__call__", lambda self, grid, block, args, **kw:
                        seen.append(kw.get("enable_cooperative_groups")))
    cp = cupy_like
    args = (cp.zeros(4), cp.zeros(4), cp.zeros(4, np.int32), np.int32(4))
    skcp.RawKernel(K.GATHER, "gather", enable_cooperative_groups=True)((1,), (4,), args)
    skcp.RawKernel(K.GATHER, "gather")((1,), (4,), args)
    assert seen == [True, None]


def test_a_stand_in_cupy_is_not_taken_for_cupys_compiler(fake_cupy, monkeypatch):  # noqa: F811
    from safekern.backends.cupy import cupy_compile

    core = types.ModuleType("cupy._core.core")       # the real CuPy's, imported earlier
    core.compile_with_cache = lambda *a, **k: pytest.fail("CuPy's compiler with a stand-in")
    monkeypatch.setitem(sys.modules, "cupy._core", types.ModuleType("cupy._core"))
    monkeypatch.setitem(sys.modules, "cupy._core.core", core)
    compiler = types.ModuleType("cupy.cuda.compiler")
    compiler.CompileException = CompileException
    cuda = types.ModuleType("cupy.cuda")
    cuda.compiler = compiler
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)
    monkeypatch.setitem(sys.modules, "cupy.cuda.compiler", compiler)
    assert not cupy_compile.available()


def test_a_kernel_hidden_from_the_parse_is_refused(tmp_path):
    from safekern.backends.cupy.source import Program

    # A header that un-defines __global__ hides the kernel from the parse (as CCCL's headers
    # can, with their errors under the parser's stand-ins): refused, not compiled unchecked.
    (tmp_path / "hide.h").write_text("#undef __global__\n#define __global__\n")
    code = '#include "hide.h"\n/* __global__ */\nextern "C" __global__ void k(float* a) {}\n'
    with pytest.raises(safekern.UnsupportedError, match="found no kernel") as info:
        Program(code, (f"-I{tmp_path}",), (), "hide.cu").rewrite("sm_90", True)
    assert (info.value.filename, info.value.lineno) == ("hide.cu", 3)
    Program("__device__ int f(int x) { return x; }\n", (), (), "d.cu").rewrite("sm_90", True)
