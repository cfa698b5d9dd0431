"""The C rewrite never breaks valid code (issue 30): the shapes that broke real library sources,
each as a small source of our own, compiled after the rewrite; and, where the corpora exist
($SAFEKERN_C_CORPUS, made by the tools tests/frontend/c_corpus_manifest.json names), a sample
of cupyx's sources (NVRTC, sm_90) and PyOpenCL's library programs (PoCL) under a time budget.
`python tools/c_corpus_check.py` runs every corpus source.
"""
import os
from collections import Counter
import time

import pytest

pytest.importorskip("clang.cindex")

from safekern.frontend.c import cuda
from tests.support import c_corpus

nvrtc = pytest.importorskip("safekern.backends.cupy.nvrtc")
try:
    nvrtc.version()
    HAVE_NVRTC = True
except nvrtc.NvrtcUnavailable:  # pragma: no cover - CI installs nvidia-cuda-nvrtc
    HAVE_NVRTC = False

needs_nvrtc = pytest.mark.skipif(not HAVE_NVRTC, reason="NVRTC not available")
BUDGET_S = float(os.environ.get("SAFEKERN_CORPUS_BUDGET_S", "90"))


def compiles(src, name="t.cu", exprs=()):
    rw = cuda.rewrite(src, filename=name, options=("--std=c++17",))
    nvrtc.compile_program(rw.source, filename=name, options=("--std=c++17",),
                          name_expressions=exprs, cubin=False)
    return rw


# -- the shapes that broke cupyx ----------------------------------------------------------------

DEFAULTED_KERNEL = r"""
__global__ void qr_reduce(double *a, int m, int startrow = 1)
{
    for (int i = startrow; i < m; i++) a[i] += a[i - 1];
}
"""

CAST_TEMPLATE = r"""
template <bool C, class T> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <class T> struct is_fp { static const bool value = false; };
template <> struct is_fp<double> { static const bool value = true; };

template <class B, class A>
__device__ __forceinline__
typename enable_if<!is_fp<A>::value, B>::type
cast(A a) { return (B)a; }

template <class B, class A>
__device__ __forceinline__
typename enable_if<is_fp<A>::value, B>::type
cast(A a) { return (a >= 0) ? (B)a : -(B)(-a); }

typedef unsigned char Y;
extern "C" __global__ void k(const double* in, Y* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = cast<Y>(in[i]);
}
"""

OWN_MIN = r"""
struct cplx { double re, im; };
__device__ cplx min(cplx a, cplx b) { return a.re < b.re ? a : b; }

template <typename T>
__global__ void pick(const T* x, T* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = min(x[i], x[0]);
}
"""

DEFAULTED_HELPER = r"""
__device__ double at(const double* p, int i, int stride = 1) { return p[i * stride]; }
extern "C" __global__ void k(const double* x, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = at(x, i) + at(x, i, 1);
}
"""


@needs_nvrtc
def test_kernel_with_a_default_argument_keeps_compiling():
    rw = compiles(DEFAULTED_KERNEL, exprs=("qr_reduce",))
    assert rw.kernels[0].name == "qr_reduce"
    assert "__sk_fb = nullptr" in rw.source     # hidden parameters follow a defaulted one


@needs_nvrtc
def test_helpers_without_checks_keep_their_signature():
    # cupyx's ndimage cast<Y>(x): SFINAE overloads called with explicit template arguments
    rw = compiles(CAST_TEMPLATE)
    assert "cast(A a)" in rw.source
    rw = compiles(OWN_MIN, exprs=("pick<int>", "pick<double>", "pick<cplx>"))
    assert "min(cplx a, cplx b)" in rw.source


@needs_nvrtc
def test_helper_with_checks_and_a_default_argument_gets_its_state():
    rw = compiles(DEFAULTED_HELPER)
    assert "at(long long* __sk_fb," in rw.source
    assert all(a.status.value != "unchecked" for a in rw.accesses)


# -- the corpora --------------------------------------------------------------------------------

def _cupyx_sample() -> list:
    """One source per cupyx module (the first, by name), plus every generic_filter1d one of
    a boundary mode and the QR module (the shapes that broke)."""
    seen, names = set(), []
    for name, meta in sorted(c_corpus.index(c_corpus.CUPYX).items()):
        what = meta["what"]
        if what not in seen or "_bspline2" in what:
            seen.add(what)
            names.append(name)
    return names


def _pyopencl_sample() -> list:
    seen, names = set(), []
    for name, meta in sorted(c_corpus.index(c_corpus.PYOPENCL).items()):
        what = meta["what"].split()[0]
        if what not in seen:
            seen.add(what)
            names.append(name)
    return names


def _within_budget(check, names):
    start, out = time.time(), []
    for n in names:
        if time.time() - start > BUDGET_S:
            break
        out += check([n])
    return out


@needs_nvrtc
@pytest.mark.skipif(not c_corpus.present(c_corpus.CUPYX), reason=(
    "no cupyx corpus: make it with tools/extract_cupyx_corpus.py (see "
    "tests/frontend/c_corpus_manifest.json)"))
def test_cupyx_sample_rewrites_and_compiles():
    results = _within_budget(c_corpus.check_cupyx, _cupyx_sample())
    assert results
    broken = [r for r in results if r.outcome in ("broken", "internal", "refused")]
    assert not broken, c_corpus.summary(results)


def _capture_pyopencl_corpus():
    """CI has no corpus: capture PyOpenCL's library programs from the installed PyOpenCL (its
    own code, run plain; about 20 s), as tools/capture_pyopencl_corpus.py does by hand."""
    import subprocess
    import sys

    tool = os.path.join(c_corpus.ROOT, "tools", "capture_pyopencl_corpus.py")
    env = dict(os.environ)
    env.setdefault("OCL_ICD_VENDORS", "/etc/OpenCL/vendors")
    subprocess.run([sys.executable, tool, c_corpus.PYOPENCL], check=True, timeout=600,
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_pyopencl_sample_rewrites_and_builds(capsys):
    cl = pytest.importorskip("pyopencl")
    pytest.importorskip("mako")          # (PyOpenCL's reductions and scans need it)
    try:
        cl.get_platforms()[0].get_devices()
    except Exception as err:  # pragma: no cover
        pytest.skip(f"no OpenCL device: {err}")
    if not c_corpus.present(c_corpus.PYOPENCL):
        _capture_pyopencl_corpus()
    results = _within_budget(c_corpus.check_pyopencl, _pyopencl_sample())
    assert results
    text = c_corpus.summary(results)
    with capsys.disabled():              # the share of checked sites goes into the CI log
        print(f"\nPyOpenCL library programs (a sample of {len(results)}): {text}")
    # Every program rewrites and builds; none is refused any more (barriers under a
    # work-group-uniform if included: scans), and > 90% of the access sites are checked.
    broken = [r for r in results if r.outcome in ("broken", "internal", "refused")]
    assert not broken, text
    sites = sum((r.statuses for r in results), Counter())
    total = sum(sites.values())
    assert total and (total - sites.get("unchecked", 0)) / total > 0.9, text


# -- the shapes that broke PyOpenCL's programs (helpers and accesses through macros:
#    test_c_macros.py) ------------------------------------------------------------------------

#: (indexes `i + 0`, not a lone variable: a lone one is prechecked before its statement,
#: opencl_edits.precheck_text, and leaves no exit test after it to place)
CONDITIONAL_OPERAND = """__kernel void k(__global int *a, __global const int *b) {
    int i = get_global_id(0);
    a[i + 0] = b[i + 0]
#ifdef ADD_ONE
        + 1
#endif
    ;
    for (int j = 0; j < 2; j++)
        a[j + 0] += 0
#ifndef ADD_ONE
            + b[j + 0]
#endif
        ;
}
"""


@pytest.mark.parametrize("options", [[], ["-DADD_ONE"]])
def test_exit_test_goes_after_the_semicolon_past_a_conditional_operand(options):
    from safekern.frontend.c import opencl

    cl = pytest.importorskip("pyopencl")
    rw = opencl.rewrite(CONDITIONAL_OPERAND, filename="k.cl", options=options)
    lines = rw.source[rw.source.index('#line 1 "k.cl"'):].split("\n")[1:]
    assert lines[6].strip().startswith("; if (") and lines[12].strip().startswith("; if (")
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    cl.Program(ctx, rw.source).build(options=options)
