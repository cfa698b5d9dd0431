"""CUDA C through NVRTC without a GPU: every rewritten test kernel compiles to PTX and a cubin
for sm_90, name expressions come back lowered, compile errors point at the user's lines, the
failure table names each site, and the cache makes a second compile free."""
import pickle
import re

import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern import failures
from safekern.backends.cupy import api as backend
from safekern.backends.cupy import nvrtc
from safekern.cache.kernels import get_kernel_cache
from safekern.frontend.c import cuda
from tests.cupy import cuda_c_kernels as K
from tests.support.settings import set_safekern

try:
    nvrtc.version()
except nvrtc.NvrtcUnavailable as err:  # pragma: no cover - CI installs nvidia-cuda-nvrtc
    pytest.skip(f"NVRTC not available: {err}", allow_module_level=True)

pytestmark = pytest.mark.nvrtc
ARCH = "sm_90"


def compile_checked(name, src, exprs=(), options=()):
    rw = cuda.rewrite(src, filename=f"{name}.cu", arch=ARCH)
    out = nvrtc.compile_program(rw.source, filename=f"{name}.cu", arch=ARCH,
                                options=backend.compile_options(options),
                                name_expressions=exprs)
    return rw, out


@pytest.mark.parametrize("name", sorted(K.COMPILING))
def test_every_rewritten_kernel_compiles_to_ptx_and_cubin(name):
    src, exprs = K.COMPILING[name]
    rw, out = compile_checked(name, src, exprs)
    assert out.cubin[:4] == b"\x7fELF"
    ptx = out.ptx.decode()
    assert ".target sm_90" in ptx
    for kernel in rw.kernels:
        if kernel.extern_c:
            assert re.search(rf"\.entry {kernel.name}\(", ptx), kernel.name
    # The failure path stays out of line: one call site per check, one recording function.
    assert ptx.count(".func") >= 1
    if rw.barriers:
        assert "exit;" in ptx


@pytest.mark.parametrize("name", ["vote", "axpy", "copy_via", "row_sums"])
def test_generated_code_builds_as_cxx11(name):
    # Older CuPy adds --std=c++11 when the user gives no standard: safekern's code must build.
    src, exprs = K.COMPILING[name]
    rw = cuda.rewrite(src, filename=f"{name}.cu", arch=ARCH)
    opts = tuple(o for o in backend.compile_options(()) if "-std" not in o) + ("--std=c++11",)
    nvrtc.compile_program(rw.source, filename=f"{name}.cu", arch=ARCH, options=opts,
                          name_expressions=exprs)


def test_template_instantiations_get_lowered_names_with_hidden_parameters():
    rw, out = compile_checked("axpy", K.TEMPLATES, tuple(K.TEMPLATE_NAMES))
    assert set(out.lowered_names) == set(K.TEMPLATE_NAMES)
    for expr, symbol in out.lowered_names.items():
        assert symbol.startswith("_Z4axpyI")
        # two hidden sizes (x, y) and the failure buffer: ...xxPx
        assert symbol.endswith("xxPx"), symbol
        assert f".entry {symbol}(" in out.ptx.decode()


def test_the_exact_architecture_is_honoured():
    _, out = compile_checked("gather", K.GATHER)
    assert out.arch == "sm_90"
    rw80 = cuda.rewrite(K.GATHER, filename="g.cu", arch="sm_80")
    out80 = nvrtc.compile_program(rw80.source, filename="g.cu", arch="sm_80",
                                  options=backend.compile_options(()))
    assert ".target sm_80" in out80.ptx.decode() and out80.cubin[:4] == b"\x7fELF"
    ptx_only = nvrtc.compile_program(rw80.source, filename="g.cu", arch="sm_80", cubin=False,
                                     options=backend.compile_options(()))
    assert ptx_only.cubin is None and b".target sm_80" in ptx_only.ptx
    assert nvrtc.normalize_arch(90) == nvrtc.normalize_arch("compute_90") == "sm_90"
    assert nvrtc.normalize_arch((8, 6)) == "sm_86"
    assert nvrtc.strip_arch_options(["-arch=sm_70", "-std=c++17", "-arch", "sm_75"]) == \
        ("-std=c++17",)


def test_nvrtc_errors_point_at_the_users_line():
    src = ('extern "C" __global__ void broken(float* a, int n) {\n'
           '    int i = threadIdx.x;\n'
           '    a[i] = undefined_name + 1.0f;\n'
           '}\n')
    program = backend.Program(src, filename="broken.cu")
    with pytest.raises(safekern.CompilationError) as info:
        program.rewrite(ARCH)      # libclang cannot parse it; NVRTC's verdict is shown
    err = info.value
    assert err.filename == "broken.cu" and err.lineno == 3
    assert "undefined_name" in str(err)
    assert err.source_line == "    a[i] = undefined_name + 1.0f;"
    assert "NVRTC" in str(err)


def _late_error(src):
    """The CompilationError of NVRTC's compile of `src`'s rewrite as late.cu (k<float>)."""
    rw = cuda.rewrite(src, filename="late.cu", arch=ARCH)
    with pytest.raises(nvrtc.NvrtcError) as info:
        nvrtc.compile_program(rw.source, filename="late.cu", arch=ARCH,
                              options=backend.compile_options(()), name_expressions=["k<float>"])
    return nvrtc.to_compilation_error(info.value, {"late.cu": src})


def test_errors_nvrtc_finds_in_the_rewritten_source_keep_user_lines():
    # libclang accepts this (templates are checked late); NVRTC rejects the instantiation.
    src = ('template <typename T>\n'
           '__global__ void k(T* a) {\n'
           '    a[threadIdx.x] = T::missing;\n'
           '}\n')
    err = _late_error(src)
    assert err.filename == "late.cu" and err.lineno == 3
    assert "a[threadIdx.x] = T::missing;" in str(err)
    assert any("NVRTC log" in note for note in err.__notes__)


def test_parse_log():
    log = ('k.cu(4): warning #546-D: transfer of control bypasses initialization of:\n'
           '            variable "K" (declared at line 5)\n'
           '      if (v > 3) { goto L1; }\n'
           '                   ^\n\n'
           'k.cu(9): error: expected a ";"\n'
           '  }\n'
           '  ^\n')
    warn, error = nvrtc.parse_log(log)
    assert (warn.lineno, warn.severity) == (4, "warning")
    assert 'variable "K"' in warn.message and warn.col == 17
    assert (error.filename, error.lineno, error.severity, error.col) == ("k.cu", 9, "error", 0)


def test_unsupported_options_are_rejected():
    with pytest.raises(safekern.UnsupportedError):
        backend.compile_options(("-rdc=true",))
    # CuPy's options are taken (tests/cupy/test_cupy_api_dropin.py); an unknown backend is not.
    with pytest.raises(ValueError, match="Invalid backend"):
        backend.RawKernel(K.GATHER, "gather", backend="hipcc")
    with pytest.raises(TypeError, match="Exactly one"):
        backend.RawModule()


# -- the failure table ----------------------------------------------------------------------

def _buffer(code, index, size, axis=0, thread=(0, 0, 0), block=(0, 0, 0), skipped=0):
    values = [0] * failures.BUFFER_LEN
    values[failures.CODE] = code
    values[failures.INDEX], values[failures.SIZE], values[failures.AXIS] = index, size, axis
    values[failures.THREAD:failures.THREAD + 3] = thread
    values[failures.BLOCK:failures.BLOCK + 3] = block
    values[failures.SKIPPED] = skipped
    return values


CASES = [  # kernel source, marker, array as reported, axis
    (K.GATHER, "gather", "src", 0), (K.POINTER_ARITH, "deref", "(a + i + k) (in a)", 0),
    (K.HISTOGRAM, "atomic", "hist", 0), (K.SHARED_2D, "shared_axis1", "tile", 1),
    (K.EXTERN_SHARED, "extern_shared", "buf", 0), (K.LOCAL_ARRAY, "local", "acc", 0),
    (K.DEVICE_FUNCTION, "device_fn", "p", 0), (K.TEMPLATES, "template_kernel", "y", 0),
    (K.DERIVED_POINTER, "derived", "row (in a)", 0), (K.STRUCTS, "arrow", "q (in p)", 0),
]


@pytest.mark.parametrize("src,marker,array,axis", CASES, ids=[c[1] for c in CASES])
def test_failure_table_names_each_site(src, marker, array, axis):
    rw = cuda.rewrite(src, filename=f"{marker}.cu", arch=ARCH)
    failures.TABLE.register_all(rw.failure_sites)      # what the backend does at load
    lineno = K.line(src, marker)
    sites = [a for a in rw.accesses if a.status == "checked" and a.extra["lineno"] == lineno
             and a.array == array and a.axis == axis]
    assert sites, [(a.array, a.axis, a.extra["lineno"]) for a in rw.accesses]
    access = sites[0]
    code = access.extra["code"]
    assert 0 < code < 2 ** 62
    assert f"{code:#x}ULL" in rw.source       # the code is in the compiled source
    site = failures.TABLE.lookup(code)
    assert (site.filename, site.lineno, site.array, site.axis) == (f"{marker}.cu", lineno,
                                                                   array, axis)
    exc = failures.exception_from_buffer(_buffer(code, 300, 256, axis, (5, 0, 0), (2, 1, 0), 3))
    assert isinstance(exc, safekern.BoundsError)
    assert (exc.index, exc.size, exc.axis, exc.array) == (300, 256, axis, array)
    assert (exc.thread, exc.block, exc.skipped_launches) == ((5, 0, 0), (2, 1, 0), 3)
    assert exc.kernel == access.function and exc.lineno == lineno
    assert exc.source_line == src.split("\n")[lineno - 1]
    text = str(exc)
    assert f"index 300 out of bounds for axis {axis} with size 256" in text
    assert f"{marker}.cu:{lineno}" in text and "thread (5, 0, 0) block (2, 1, 0)" in text
    assert "^" in text                         # caret under the index
    assert pickle.loads(pickle.dumps(exc)).index == 300


def test_site_codes_are_stable_across_rewrites():
    first = {a.extra["lineno"]: a.extra["code"] for a in
             cuda.rewrite(K.GATHER, filename="g.cu").accesses}
    again = {a.extra["lineno"]: a.extra["code"] for a in
             cuda.rewrite(K.GATHER, filename="g.cu").accesses}
    assert first == again
    other = {a.extra["code"] for a in cuda.rewrite(K.GATHER, filename="other.cu").accesses}
    assert not other & set(first.values())


def test_one_code_per_site():
    rw = cuda.rewrite(K.MATMUL, filename="mm.cu")
    codes = [a.extra["code"] for a in rw.accesses if a.status == "checked"]
    assert len(codes) == len(set(codes)) == 11


# -- the cache: a second compile of the same module runs no NVRTC --------------------------

def test_compiled_modules_come_from_the_cache():
    rw = cuda.rewrite(K.TEMPLATES, filename="t.cu", arch=ARCH)
    args = dict(options=backend.compile_options(()), arch=ARCH, cubin=True,
                name_expressions=tuple(K.TEMPLATE_NAMES),
                device_fields={"device_name": "test", "compute_capability": "90", "driver": 1})
    before = nvrtc.compile_calls()
    first = backend.compile_rewrite(rw, **args).binary
    assert get_kernel_cache() is not None and nvrtc.compile_calls() == before + 1
    second = backend.compile_rewrite(rw, **args).binary
    assert nvrtc.compile_calls() == before + 1
    assert second.cubin == first.cubin and second.lowered == first.lowered
    assert first.cubin[:4] == b"\x7fELF" and b".target sm_90" in first.ptx
    # A different architecture is a different key.
    rw80 = cuda.rewrite(K.TEMPLATES, filename="t.cu", arch="sm_80")
    backend.compile_rewrite(rw80, **{**args, "arch": "sm_80"})
    assert nvrtc.compile_calls() == before + 2


def test_compile_without_cache(monkeypatch):
    set_safekern(monkeypatch, CACHE="off")
    rw = cuda.rewrite(K.GATHER, filename="g.cu", arch=ARCH)
    binary, module = backend.compile_rewrite(
        rw, options=backend.compile_options(()), arch=ARCH, cubin=True, name_expressions=(),
        device_fields={})
    assert module is None                   # no `load`: nothing loaded
    assert get_kernel_cache() is None and binary.cubin[:4] == b"\x7fELF"


def test_check_report_without_a_gpu():
    k = backend.RawKernel(K.GATHER, "gather")
    report = k.check_report()
    # out[i] and idx[i] under `i < n`: proven at launch where n fits them (launch.py)
    assert len(report) == 3 and len(report.checked) == 1
    assert [e.text for e in report.proven_at_launch] == ["out[i]", "idx[i]"]
    assert all("elements(" in e.predicate for e in report.proven_at_launch)
    assert report[0].lineno == K.line(K.GATHER, "gather")
    assert "__sk_ix(" in k.rewritten_source
    mod = backend.RawModule(code=K.TEMPLATES, name_expressions=K.TEMPLATE_NAMES,
                            filename="templates.cu")
    assert {e.function for e in mod.check_report()} == {"twice", "axpy"}
    assert mod.filename == "templates.cu"


def test_unchecked_marker():
    import safekern.cupy as skcp

    marked = skcp.unchecked(1234)
    assert isinstance(marked, skcp.Unchecked) and marked.value == 1234
    assert skcp.unchecked(marked) is marked
    assert repr(marked) == "skcp.unchecked(1234)"


def test_ptx_shape_of_the_checks():
    _, out = compile_checked("block_sum", K.EXTERN_SHARED)
    ptx = out.ptx.decode()
    # One out-of-line recording function, reached by calls on the unlikely path.
    assert ptx.count(".func") == 1 and "call.uni" in ptx
    assert "atom.global.cas.b64" in ptx        # first failure wins the CODE slot
    assert "%dynamic_smem_size" in ptx         # extern __shared__ against the launch's bytes
    assert "exit;" in ptx                      # the failing thread leaves
    assert "atom.global.add.u64" in ptx        # the skipped-launch count
    assert "bar.red.or.pred" in ptx            # the block-wide prelude of a barrier kernel


def test_a_sources_own_line_directives_are_followed():
    """`#line 40 "gen.cu"` in the user's source: NVRTC's error in the rewritten source, the
    check report and a parse error name gen.cu's lines, showing the line as written."""
    src = ('#line 40 "gen.cu"\n'
           'template <typename T>\n'
           '__global__ void k(T* a) {\n'
           '    a[threadIdx.x] = T::missing;\n'
           '}\n')
    err = _late_error(src)
    assert (err.filename, err.lineno) == ("gen.cu", 42)
    assert err.source_line == "    a[threadIdx.x] = T::missing;"
    assert "safekern generated" not in str(err)
    k = backend.RawKernel('# 7 "x.cu" 1\nextern "C" __global__ void g(float* a, int n) {\n'
                          '  a[n] = 1;\n}\n', "g")
    (entry,) = k.check_report()
    assert (entry.filename, entry.lineno, entry.text) == ("x.cu", 8, "a[n]")
    program = backend.Program('#line 70 "y.cu"\nextern "C" __global__ void b(float* a) {\n'
                              '  a[0] = nope;\n}\n', filename="broken.cu")
    with pytest.raises(safekern.CompilationError) as info:
        program.rewrite(ARCH)       # libclang cannot parse it; NVRTC's verdict is shown
    assert (info.value.filename, info.value.lineno) == ("y.cu", 71)
    assert info.value.source_line == "  a[0] = nope;"
