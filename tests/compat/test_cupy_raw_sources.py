"""CI guard of issue 23 (no GPU): every CUDA source of CuPy's own test_raw.py is rewritten by
safekern and the checked source compiled by NVRTC, with the options CuPy's tests give it, so
that a refusal shows here before the GPU run of tools/cupy_suite.py.

CuPy's test file is not in this repository: `python tools/cupy_suite.py --fetch CUPY_REPO`
puts it (and CuPy's headers, for `#include <cupy/complex.cuh>`) into .cupy-src/; CI does
that first. Without it the tests skip and say so.
"""
import ast
import os

import pytest

from safekern.backends.cupy import nvrtc, options as cupy_options
from safekern.backends.cupy.source import Program
from safekern.errors import CompilationError, UnsupportedError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, ".cupy-src")
TEST_RAW = os.path.join(SRC, "test_raw.py")

try:
    nvrtc.library()
except nvrtc.NvrtcUnavailable as err:
    pytest.skip(str(err), allow_module_level=True)

#: name in test_raw.py -> (options, translate_cucomplex), as CuPy's tests build them.
USES = {
    "_test_source3": (("-DPRECISION=2",), False),
    "_test_compile_src": (("-DOP=+",), False),
    "_test_source4": (("-dc",), False),
    "_test_cuComplex": ((), True),
    "_test_name_expr_cache": (("-std=c++17",), False),
    "_test_bare_cubin_cache": (("-std=c++17",), False),
}
#: name -> the name expressions CuPy's tests instantiate its templates with.
NAME_EXPRESSIONS = {
    "test_cxx_template": ("my_sqrt<int>", "my_sqrt<float>", "my_sqrt<complex<double>>",
                          "my_func"),
    "_test_name_expr_cache": ("multi_param<float, double>", "ptr_param<float *>",
                              "non_type_param<float, 3>", "enum_param<mylib::Tag::B>",
                              "ptr_param<size_t>"),
    "_test_bare_cubin_cache": ("bare_cubin_probe<float, double>",),
    "std_code": ("shift<int>",),
}
#: Sources that do not compile plainly either, and what CuPy's tests expect of them.
FAILS_PLAINLY = {
    "std_code": "cannot open source file",          # test_jitify2: NVRTC has no <type_traits>
}
#: Refused by design (docs/cupy.md): the grid waits for a thread that fails a check.
REFUSED = {"_test_grid_sync": "grid- or cluster-wide synchronisation"}
#: Still open (issue 23), with where.
OPEN: dict = {}


def _sources():
    if not os.path.exists(TEST_RAW):
        return
    tree = ast.parse(open(TEST_RAW).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str) and "__global__" in node.value.value:
            yield node.targets[0].id, node.value.value


SOURCES = dict(_sources())


NO_CORPUS = ("CuPy's test_raw.py is not in .cupy-src/: run `python tools/cupy_suite.py "
             "--fetch <a CuPy checkout>` first")


def test_the_sources_were_found():
    if not SOURCES:
        pytest.skip(NO_CORPUS)
    assert len(SOURCES) >= 12 and "_test_source1" in SOURCES


def _options(opts):
    # What CuPy's compile_with_cache adds for NVRTC (assemble_cupy_compiler_options,
    # _compile_using_nvrtc): C++17, its headers and the CUDA headers, -ftz=true and
    # --device-as-default-execution-space.
    inc = tuple(f"-I{d}" for d in [os.path.join(SRC, "include")] + nvrtc.include_dirs())
    std = () if any("-std=" in o for o in opts) else ("--std=c++17",)
    return tuple(opts) + std + inc + ("-ftz=true", "--device-as-default-execution-space")


@pytest.mark.parametrize("name", sorted(SOURCES) or [pytest.param(None, marks=pytest.mark.skip(
    reason=NO_CORPUS))])
def test_rewritten_source_compiles(name):
    if name in OPEN:
        pytest.xfail(OPEN[name])
    opts, translate = USES.get(name, ((), False))
    code, opts = cupy_options.prepare(SOURCES[name], opts, backend="nvrtc", jitify=None,
                                      translate_cucomplex=translate)
    exprs = NAME_EXPRESSIONS.get(name, ())
    program = Program(code, opts + (f"-I{os.path.join(SRC, 'include')}",), exprs,
                      f"{name}.cu")
    if name in REFUSED:
        with pytest.raises(UnsupportedError, match=REFUSED[name]):
            program.rewrite("sm_90", True)
        return
    if name in FAILS_PLAINLY:
        with pytest.raises(CompilationError, match=FAILS_PLAINLY[name]):
            rw = program.rewrite("sm_90", True)
            nvrtc.compile_program(rw.source, filename=rw.filename, arch="sm_90",
                                  options=_options(opts), cubin=False)
        return
    rw = program.rewrite("sm_90", True)
    assert rw.kernels, name
    out = nvrtc.compile_program(rw.source, filename=rw.filename, arch="sm_90",
                                options=_options(opts), cubin=False,
                                name_expressions=program.expressions(rw))
    assert b".entry" in out.ptx
    if any(p.is_pointer for k in rw.kernels for p in k.params):
        assert "__sk_bytes_" in rw.source      # checked: the hidden size parameters are there


# -- the same constructs in sources of our own (run without CuPy's file) ------------------------

#: name -> (source, options, name expressions): what test_raw.py's kernels do.
SNIPPETS = {
    # extern "C" { ... } holding two kernels, the element type picked by a macro (-D)
    "macro_block": (r"""
#ifndef PREC
    #define PREC 2
#endif
#if PREC == 2
    #define TYPE double
#else
    #error precision not supported
#endif
extern "C" {
__global__ void add(const TYPE* a, TYPE* y, unsigned int n) {
    unsigned int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) { y[i] = a[i] + 1; }
}
__global__ void mul(const TYPE* a, TYPE* y, \
                    unsigned int n) {
    unsigned int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) { y[i] = a[i] * 2; }
}
}
""", ("-DPREC=2",), ()),
    # a void* parameter cast to the element type
    "void_cast": (r"""
extern "C" __global__ void f(void* input, int n) {
    double* arr = (double*)(input);
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < n) { arr[x] = 3.0 * arr[x] - 8.0; }
}
""", (), ()),
    # a __constant__ array read by a kernel
    "constant": (r"""
extern "C" {
__constant__ float scale[100];
__global__ void by_const(float* x, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) { x[i] *= scale[i]; }
}
}
""", (), ()),
    # templates instantiated by name expressions: two types, a pointer type, a non-type and an
    # enum parameter, next to a plain C++ kernel
    "templates": (r"""
namespace lib { enum class Tag { A, B }; }
template<typename T> __global__ void sq(T* v, int n) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < n) { v[x] *= v[x]; }
}
template<typename Tv, typename Tp> __global__ void two() { }
template<typename T, int N> __global__ void nontype(T* p) { p[0] = N; }
template<lib::Tag t> __global__ void tagged() { }
__global__ void plain(double* v, int n) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < n) { v[x] *= v[x]; }
}
""", ("-std=c++17",), ("sq<int>", "sq<float>", "two<float, double>", "nontype<float, 3>",
                       "tagged<lib::Tag::B>", "plain")),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_own_snippet_compiles(name):
    code, opts, exprs = SNIPPETS[name]
    program = Program(code, opts, exprs, f"{name}.cu")
    rw = program.rewrite("sm_90", True)
    assert rw.kernels
    out = nvrtc.compile_program(rw.source, filename=rw.filename, arch="sm_90",
                                options=_options(opts), cubin=False,
                                name_expressions=program.expressions(rw))
    assert b".entry" in out.ptx and "__sk_bytes_" in rw.source


@pytest.mark.filterwarnings("ignore::safekern.UncheckedWarning")
def test_a_device_side_launch_passes_the_childs_sizes_and_compiles():
    # A __global__ launching a __global__ (dynamic parallelism, CuPy's `-dc`): the child is
    # checked, given by the parent the bytes its argument reaches in the parent's array and
    # the parent's failure buffer (frontend/c/device_launch.py).
    code = ('extern "C" {\n__global__ void inner(float* a, int n) { a[threadIdx.x] = 1; }\n'
            "__global__ void outer(float* a, int n, float* b) {\n"
            "    inner<<<1, n>>>(a + 4 * blockIdx.x, n);\n"
            "    inner<<<1, n, 0>>>((float*)(size_t)n, n);\n}\n}\n")
    rw = Program(code, ("-dc",), (), "dp.cu").rewrite("sm_90", True)
    launch, unknown = [ln for ln in rw.source.splitlines() if "inner<<<" in ln]
    assert launch.startswith("    inner<<<1, n>>>(a + 4 * blockIdx.x, n, [](")
    assert launch.endswith("((const volatile char*)(a + 4 * blockIdx.x), (const volatile "
                           "char*)(a), (long long)(__sk_bytes_0)), __sk_fb);")
    assert unknown.endswith("(float*)(size_t)n, n, -1LL, __sk_fb);")   # unchecked, reported
    assert [e.array for e in rw.report().unchecked] == \
        ["(float*)(size_t)n"]
    inner = next(k for k in rw.kernels if k.name == "inner")
    assert [p.name for p in inner.params] == ["a", "n"]   # launched from the host as well
    out = nvrtc.compile_program(rw.source, filename=rw.filename, arch="sm_90",
                                options=_options(("-dc",)), cubin=False)
    assert out.ptx.count(b".entry") == 2


def test_a_device_side_launch_with_side_effects_is_refused_with_the_line():
    code = ('extern "C" {\n__global__ void inner(float* a) { a[0] = 1; }\n'
            "__global__ void outer(float* a) {\n    inner<<<1, 1>>>(a++);\n}\n}\n")
    with pytest.raises(UnsupportedError, match="side effects") as info:
        Program(code, ("-dc",), (), "dp.cu").rewrite("sm_90", True)
    assert (info.value.filename, info.value.lineno) == ("dp.cu", 4)
