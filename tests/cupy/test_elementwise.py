"""The checked ElementwiseKernel / ReductionKernel without a GPU: the raw subscripts found in a
code string (raw_sites.find_sites), the checking views put there, and NVRTC compiles of the
kernel sources CuPy makes from them (the form of CuPy 14.2's templates), against a stand-in of
CuPy's CArray (tests/support/carray_stand_in.py) and against CuPy's own carray.cuh where one is
found (an installed CuPy, or `python -m tests.support.cupy_peer fetch`). What the classes hand
CuPy's own classes is checked with a stand-in CuPy. test_elementwise_gpu.py runs them on a GPU.
"""
import pytest

from safekern.backends.cupy import nvrtc
from safekern.backends.cupy.raw_sites import RAW_PRELUDE, find_sites, insert_checks
from safekern.backends.cupy.user_kernel import raw_names, with_fb
from safekern.frontend.c.cuda_dialect import device_prelude
from tests.support.carray_stand_in import CARRAY_STAND_IN, cupy_include_dir
from tests.cupy.test_cuda_c_launch import fake_cupy  # noqa: F401  (the fixture)

try:
    nvrtc.version()
except nvrtc.NvrtcUnavailable as err:  # pragma: no cover
    pytest.skip(f"NVRTC not available: {err}", allow_module_level=True)


@pytest.fixture(params=["stand-in", "cupy"])
def carray(request):
    """The CArray header text and include options: the stand-in, or CuPy's own header."""
    if request.param == "stand-in":
        return CARRAY_STAND_IN, ()
    found = cupy_include_dir()
    if found is None:
        pytest.skip("no cupy/carray.cuh here (no CuPy installed, no .cupy_peer/: "
                    "python -m tests.support.cupy_peer fetch)")
    return "#include <cupy/carray.cuh>\n", (f"-I{found}",)


def test_raw_names_and_the_hidden_input():
    assert raw_names("raw T x, T y, raw float32 m,int32 n") == ["x", "m"]
    assert raw_names("") == []
    assert with_fb("T x") == "T x, raw int64 _sk_fb" and with_fb(" ") == "raw int64 _sk_fb"


def test_sites_are_subscripts_of_raw_names_only():
    code = ('y = x[i + 1] + s.x[0] + p->x[1] + ns::x[2] + xs[3] /* x[4] */ + m[{1, 2}];\n'
            '// x[5]\n'
            'z = "x[6]" + x [ idx[j] ] + x\n[7]')
    sites = find_sites(code, ["x", "m"])
    first = code.split("\n")[0]
    assert [(s.name, s.lineno, s.col, s.end_col) for s in sites] == [
        ("x", 1, 6, 11), ("m", 1, first.index("m[{") + 2, first.index("}]") + 1),
        ("x", 3, 16, 24), ("x", 4, 1, 2)]
    assert first[6:11] == "i + 1"
    out = insert_checks(code, sites, [1, 2, 3, 4])
    assert out.count("__sk_at(") == 4 and out.count("\n") == code.count("\n")
    assert "__sk_at(x, 0x1ULL, __sk_fb)[i + 1]" in out and "s.x[0]" in out


def _compile(source, carray):
    header, options = carray
    return nvrtc.compile_program(header + source, filename="ew.cu", arch="sm_90",
                                 options=("--std=c++17", "-ftz=true") + options, cubin=False)


def _elementwise(params, operation, loop_prep=""):
    """The source CuPy 14.2's ElementwiseKernel makes (_get_simple_elementwise_kernel_code),
    with the pieces safekern hands it."""
    return ("typedef float T;\n" + device_prelude(False) +
            RAW_PRELUDE + f'''
extern "C" __global__ void k({params}, const CArray<long long, 1, 1, 1> _sk_fb,
                             CIndexer<1, 1> _ind) {{
  long long* __sk_fb = (long long*)&_sk_fb[0]; if (__sk_enter(__sk_fb)) return; {loop_prep};
  #pragma unroll 1
  CUPY_FOR(i, _ind.size()) {{
    _ind.set(i);
    {operation};
  }}
}}''')


@pytest.mark.nvrtc
@pytest.mark.parametrize("params,operation", [
    ("const CArray<float, 1, 1, 1> x, CArray<float, 1, 1, 1> _raw_y",
     "float &y = _raw_y[_ind.get()]; y = x[i + 1]"),                       # const input
    ("CArray<float, 1, 0, 0> x", "x[i] = 2 * x[(int)i - 1]"),             # raw output
    ("const CArray<double, 2, 0, 0> m, CArray<double, 1, 1, 1> _raw_y",
     "double &y = _raw_y[_ind.get()]; ptrdiff_t ix[2] = {0, (ptrdiff_t)i}; "
     "y = m[{0, (int)i}] + m[ix]"),                                        # per-axis forms
    ("const CArray<float, 0, 1, 1> s, CArray<float, 1, 1, 1> _raw_y",
     "float &y = _raw_y[_ind.get()]; y = s[0]"),                           # 0-dim: CuPy's
    ("const CArray<float, 1, 1, 1> x, CArray<float, 1, 1, 1> _raw_y",
     "float &y = _raw_y[_ind.get()]; { float x[2] = {1, 2}; y = x[1]; }"),  # a shadowing local
])
def test_checked_elementwise_sources_compile(params, operation, carray):
    raw = [p.split()[-1] for p in params.split(", ") if "_raw_" not in p]
    sites = find_sites(operation, raw)
    assert sites
    ptx = _compile(_elementwise(params, insert_checks(operation, sites,
                                                      range(1, len(sites) + 1))), carray).ptx
    assert b".entry k" in ptx


@pytest.mark.nvrtc
def test_checked_reduction_source_compiles(carray):
    """CuPy 14.2's ReductionKernel template (its REDUCE / POST_MAP macros hold the user's
    expressions) with a raw input checked in map_expr and post_map_expr."""
    raw = ["w"]
    map_expr = insert_checks("x * w[_j % 4]", find_sites("x * w[_j % 4]", raw), [0x61])
    post = insert_checks("y = a + w[0]", find_sites("y = a + w[0]", raw), [0x62])
    source = ("typedef float T;\n" + device_prelude(False) +
              RAW_PRELUDE + "#define __sk_fb ((long long*)&_sk_fb[0])\n" + f'''
#define REDUCE(a, b) (a + b)
#define POST_MAP(a) ({post})
typedef float _type_reduce;
extern "C" __global__ void r(const CArray<float, 1, 1, 1> _raw_x,
    const CArray<float, 1, 1, 1> w, const CArray<long long, 1, 1, 1> _sk_fb,
    CArray<float, 0, 1, 1> _raw_y, CIndexer<1, 1> _in_ind, CIndexer<0, 1> _out_ind) {{
  _type_reduce _s = _type_reduce(0);
  for (ptrdiff_t _j = threadIdx.x; _j < _in_ind.size(); _j += blockDim.x) {{
    _in_ind.set(_j);
    const T x = _raw_x[_in_ind.get()];
    _type_reduce _a = static_cast<_type_reduce>({map_expr});
    _s = REDUCE(_s, _a);
  }}
  T &y = _raw_y[_out_ind.get()];
  POST_MAP(_s);
}}''')
    assert b".entry r" in _compile(source, carray).ptx


# -- the classes with a stand-in CuPy: what they hand CuPy's own classes ---------------------

class _Recorder:
    """Stands in for CuPy's ElementwiseKernel / ReductionKernel: keeps what it was made with
    and what it was called with."""

    def __init__(self, in_params, out_params, *rest, **kwargs):
        self.in_params, self.out_params, self.rest, self.kwargs = in_params, out_params, \
            rest, kwargs
        self.nin = len([p for p in in_params.split(",") if p.strip()])
        self.nargs = self.nin + len([p for p in out_params.split(",") if p.strip()])
        self.name = rest[1] if len(rest) > 1 and isinstance(rest[1], str) else rest[-1]
        self.calls = []
        self._cached_codes = {}

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return "result"


@pytest.fixture
def stand_in(fake_cupy, monkeypatch):
    import sys
    import types

    core = types.ModuleType("cupy._core")
    kernel, reduction = types.ModuleType("cupy._core._kernel"), \
        types.ModuleType("cupy._core._reduction")

    class EK(_Recorder):
        pass

    class RK(_Recorder):
        def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr,
                     identity, name="reduce_kernel", *rest):
            super().__init__(in_params, out_params, map_expr, reduce_expr, post_map_expr,
                             identity, name, *rest)
            self.name = name

    kernel.ElementwiseKernel, reduction.ReductionKernel = EK, RK
    for name, mod in (("cupy._core", core), ("cupy._core._kernel", kernel),
                      ("cupy._core._reduction", reduction)):
        monkeypatch.setitem(sys.modules, name, mod)
    return fake_cupy


def test_elementwise_hands_cupy_the_checked_strings_and_the_buffer(stand_in):
    import numpy as np
    import safekern.cupy as skcp

    k = skcp.ElementwiseKernel("raw T x, T w", "T y", "y = x[i + 1] * w", "shift",
                               preamble="#define TWO 2", loop_prep="T z = x[0]",
                               options=("-DK=1",))
    plain, checked = k._plain, k._checked
    assert (plain.in_params, plain.rest[0]) == ("raw T x, T w", "y = x[i + 1] * w")
    assert checked.in_params == "raw T x, T w, raw int64 _sk_fb"
    op, name, reduce_dims, preamble = checked.rest[:4]
    code = {s.lineno: s for s in k.checked_sites}
    assert op == f"y = __sk_at(x, {k.checked_sites[0].code:#x}ULL, __sk_fb)[i + 1] * w"
    assert preamble.endswith("#define TWO 2") and "struct __sk_view" in preamble
    assert checked.kwargs["options"] == ("-DK=1",)
    assert checked.kwargs["loop_prep"].startswith("long long* __sk_fb = (long long*)&_sk_fb[0]")
    assert checked.kwargs["loop_prep"].endswith("T z = __sk_at(x, "
                                                f"{k.checked_sites[1].code:#x}ULL, __sk_fb)[0]")
    assert [e.text for e in k.check_report()] == ["x[i + 1]", "x[0]"] and code
    x, w, y = stand_in.zeros(4), np.float32(2), stand_in.zeros(3)
    assert k(x, w, y, size=3) == "result"
    (args, kwargs), = checked.calls
    assert args[:2] == (x, w) and args[3] is y and kwargs == {"size": 3}
    assert args[2].a.dtype == np.int64 and args[2].a.size == 16     # the failure buffer
    assert not plain.calls


def test_reduction_without_raw_is_cupys_kernel(stand_in):
    import safekern.cupy as skcp

    k = skcp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sumsq")
    assert k._checked is None and k(stand_in.zeros(4), axis=0) == "result"
    assert k._plain.calls[0][1] == {"axis": 0} and list(k.check_report()) == []
    r = skcp.ReductionKernel("T x, raw T w", "T y", "x * w[_j % 4]", "a + b",
                             "y = a / w[0]", "0", "wsum")
    map_expr, reduce_expr, post = r._checked.rest[:3]
    assert "__sk_at(w, " in map_expr and reduce_expr == "a + b" and "__sk_at(w, " in post
    assert "#define __sk_fb ((long long*)&_sk_fb[0])" in r._checked.rest[7]
    assert [e.text for e in r.check_report()] == ["w[_j % 4]", "w[0]"]
