"""The CuPy wrappers' host side without a GPU: a stand-in `cupy` module records what a launch
passes (the user's arguments, one byte size per pointer parameter, the failure buffer) and plays
the device's part by writing the failure buffer; NVRTC and the kernel cache are the real ones.
"""
import sys
import types

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import safekern
from safekern import failures
from safekern.backends.cupy import nvrtc
from tests.cupy import cuda_c_kernels as K
from tests.support.settings import set_safekern

try:
    nvrtc.version()
except nvrtc.NvrtcUnavailable as err:  # pragma: no cover
    pytest.skip(f"NVRTC not available: {err}", allow_module_level=True)

pytestmark = pytest.mark.nvrtc


class FakeArray:
    def __init__(self, data):
        self.a = np.asarray(data)

    size = property(lambda self: self.a.size)
    nbytes = property(lambda self: self.a.nbytes)
    flags = property(lambda self: self.a.flags)
    _c_contiguous = property(lambda self: self.a.flags.c_contiguous)   # (CuPy's readonly
    _f_contiguous = property(lambda self: self.a.flags.f_contiguous)   # attributes)
    strides = property(lambda self: self.a.strides)
    shape = property(lambda self: self.a.shape)
    itemsize = property(lambda self: self.a.itemsize)
    dtype = property(lambda self: self.a.dtype)
    # CuPy's MemoryPointer of the first element: host addresses stand in for device ones
    data = property(lambda self: types.SimpleNamespace(
        ptr=self.a.__array_interface__["data"][0]))

    def __getitem__(self, key):
        return FakeArray(self.a[key])

    def __len__(self):
        return len(self.a)      # a 0-d array: numpy's TypeError, as CuPy's

    def reshape(self, *shape):
        return FakeArray(self.a.reshape(*shape))

    def get(self):
        return self.a.copy()

    def fill(self, value):
        self.a.fill(value)


class FakeFunction:
    def __init__(self, module, name):
        self.module, self.name, self.ptr = module, name, id(self)
        self.launches = []

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        self.launches.append((grid, block, args, shared_mem, stream))
        FakeCupy.launches.append((self.name, args))


class FakeModule:
    def __init__(self):
        self.image = None
        self.functions = {}

    def load(self, image):
        assert isinstance(image, bytes)
        if FakeCupy.refuse_next_load:
            FakeCupy.refuse_next_load -= 1
            raise RuntimeError("CUDA_ERROR_INVALID_IMAGE")
        self.image = image

    def get_function(self, name):
        text = self.image.decode("latin-1")
        if name not in text:
            raise RuntimeError(f"CUDA_ERROR_NOT_FOUND: {name}")
        return self.functions.setdefault(name, FakeFunction(self, name))


class FakeCupy(types.ModuleType):
    launches: list = []
    refuse_next_load = 0


def make_fake_cupy():
    cp = FakeCupy("cupy")
    cp.__version__ = "0.0-fake"
    cp.ndarray = FakeArray
    cp.zeros = lambda n, dtype=np.float32: FakeArray(np.zeros(n, dtype))
    cp.asarray = lambda obj: FakeArray(np.asarray(obj))

    class Device:
        def __init__(self, device_id=None):
            self.id = device_id or 0
            self.compute_capability = "90"

        def synchronize(self):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    class Stream:
        device_id = 0

        def __init__(self, null=False, non_blocking=False, ptds=False):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def synchronize(self):
            pass

    class MemoryPointer:
        def __init__(self, ptr, size):
            self.ptr = ptr
            self.mem = types.SimpleNamespace(ptr=ptr - 16, size=size + 16)

    cuda = types.SimpleNamespace(
        Device=Device, Stream=Stream, MemoryPointer=MemoryPointer,
        runtime=types.SimpleNamespace(getDeviceProperties=lambda i: {"name": b"Fake H200"},
                                      getDeviceCount=lambda: 1, getDevice=lambda: 0,
                                      driverGetVersion=lambda: 13000),
        function=types.SimpleNamespace(Module=FakeModule),
        driver=types.SimpleNamespace(CU_FUNC_ATTRIBUTE_NUM_REGS=4,
                                     funcGetAttribute=lambda attr, ptr: 32,
                                     funcSetAttribute=lambda ptr, attr, value: None))
    cp.cuda = cuda
    return cp


@pytest.fixture
def fake_cupy(monkeypatch):
    cp = make_fake_cupy()
    FakeCupy.launches = []
    FakeCupy.refuse_next_load = 0
    monkeypatch.setitem(sys.modules, "cupy", cp)
    from safekern import runtime, sync_points
    from safekern.backends.cupy import api as backend
    from safekern.backends.cupy import graphs as cupy_graphs
    from safekern.backends.cupy import sync as cupy_sync

    # Failure buffers the stand-in made are the stand-in's: the other backends' stay.
    monkeypatch.setattr(runtime, "_sources",
                        {key: s for key, s in runtime._sources.items() if key[0] != "cupy"})
    # The stand-in has none of CuPy's sync points; the real CuPy's hooks are put in again by
    # its next checked load (tests/cupy/test_sync_points_cupy.py tests them).
    sync_points.uninstall("cupy")
    monkeypatch.setattr(cupy_sync, "install", lambda: None)
    # ... nor CuPy's graphs (tests/cupy/test_graphs_cupy.py tests capture on the GPU).
    monkeypatch.setattr(cupy_graphs, "install", lambda: None)
    backend._MODULES.clear()      # modules "loaded" by an earlier test's stand-in
    yield cp
    backend._MODULES.clear()
    try:
        safekern.sync()
    except safekern.KernelError:
        pass


def test_launch_appends_sizes_and_the_failure_buffer(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    n = 100
    out, src, idx = cp.zeros(n, np.float32), cp.zeros(n, np.float64), cp.zeros(n, np.int32)
    k = skcp.RawKernel(K.GATHER, "gather")
    k((2,), (64,), (out, src, idx, np.int32(n)), shared_mem=16)
    (name, args), = FakeCupy.launches
    assert name == "gather"
    assert args[:4] == (out, src, idx, np.int32(n))
    sizes = args[4:7]
    assert all(isinstance(s, np.int64) for s in sizes)
    assert [int(s) for s in sizes] == [400, 800, 400]       # bytes: the kernel divides
    from safekern.backends.cupy.api import failure_source

    assert args[7] is failure_source(0).buffer
    # Every launch predicate holds: the launch ran the full launch variant, with the same
    # arguments (c_launch.py).
    variants = k._bound()[4]
    func, = variants.kernels()
    assert func is not k.kernel and not k.kernel.launches
    assert func.launches[0][3] == 16


def test_a_failure_written_by_the_device_is_raised_at_sync(fake_cupy):
    import safekern.cupy as skcp
    from safekern.backends.cupy.api import failure_source

    cp = fake_cupy
    k = skcp.RawKernel(K.GATHER, "gather", filename="g.cu")
    n = 64
    k((1,), (64,), (cp.zeros(n), cp.zeros(n), cp.zeros(n, np.int32), np.int32(n)))
    rw = k._program.rewrite("sm_90")
    access = next(a for a in rw.accesses if a.array == "src")
    buf = failure_source(0).buffer.a
    buf[failures.CODE] = access.extra["code"]
    buf[failures.INDEX], buf[failures.SIZE] = 70, 64
    buf[failures.THREAD:failures.THREAD + 3] = (6, 0, 0)
    buf[failures.BLOCK:failures.BLOCK + 3] = (1, 0, 0)
    buf[failures.SKIPPED] = 1
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    err = info.value
    assert (err.kernel, err.filename, err.lineno, err.array) == (
        "gather", "g.cu", K.line(K.GATHER, "gather"), "src")
    assert (err.index, err.size, err.thread, err.block, err.skipped_launches) == (
        70, 64, (6, 0, 0), (1, 0, 0), 1)
    assert int(buf.max()) == 0          # reset after reporting
    safekern.sync()


def test_pointer_arguments_without_a_size(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    n = 8
    k = skcp.RawKernel(K.UNCHECKED_PARAM, "scale")
    with pytest.warns(safekern.UncheckedWarning, match=r"argument 1 \('table'\) .*raw "
                                                        r"address"):   # as CuPy passes it
        k((1,), (8,), (cp.zeros(n), 0xdead0000, np.int32(n)))
    assert FakeCupy.launches.pop()[1][1] == 0xdead0000
    with pytest.raises(TypeError, match="NumPy"):
        k((1,), (8,), (cp.zeros(n), np.zeros(n), np.int32(n)))
    k((1,), (8,), (cp.zeros(n), skcp.unchecked(0xdead0000), np.int32(n)))
    (name, args), = FakeCupy.launches
    assert args[1] == 0xdead0000 and int(args[4]) == -1
    report = k.check_report()
    assert [e.array for e in report.unchecked] == ["table"]
    # None is a null pointer: zero bytes, every access through it fails.
    k((1,), (8,), (cp.zeros(n), None, np.int32(n)))
    assert FakeCupy.launches[-1][1][1] is None and int(FakeCupy.launches[-1][1][4]) == 0
    mp = cp.cuda.MemoryPointer(0x1000, 256)
    k((1,), (8,), (cp.zeros(n), mp, np.int32(n)))
    assert int(FakeCupy.launches[-1][1][4]) == 256
    with pytest.raises(TypeError, match="takes 3 arguments"):
        k((1,), (8,), (cp.zeros(n),))


def test_a_misspelt_kernel_name_is_an_error_of_check_report_too(fake_cupy):
    # (a newcomer's report: check_report() of RawKernel(code, "axpi") listed axpy's accesses)
    import safekern.cupy as skcp

    with pytest.raises(ValueError, match=r"no kernel 'axpi' in axpi.cu \(kernels: scale\)"):
        skcp.RawKernel(K.UNCHECKED_PARAM, "axpi").check_report()
    assert skcp.RawKernel(K.UNCHECKED_PARAM, "scale").check_report() is not None


def test_strided_views_are_sized_by_their_span(fake_cupy):
    from safekern.backends.cupy.api import pointer_bytes

    a = FakeArray(np.zeros((10, 10), np.float32))
    assert pointer_bytes(a) == 400
    assert pointer_bytes(a[:, 2]) == (9 * 40 + 4)
    assert pointer_bytes(a[2:]) == 320
    assert pointer_bytes(FakeArray(np.zeros(0))) == 0
    with pytest.raises(ValueError, match="negative strides"):
        pointer_bytes(a[::-1, ::2])


def test_module_names_templates_and_mangled_names(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    src = K.TEMPLATES + "namespace ops {\n__global__ void inc(float* a, int n) { a[n] += 1; }\n}\n"
    mod = skcp.RawModule(code=src, name_expressions=K.TEMPLATE_NAMES)
    f = mod.get_function("axpy<float>")
    f((1,), (32,), (np.float32(2), cp.zeros(4), cp.zeros(4), np.int32(4), np.int32(0)))
    (name, args), = FakeCupy.launches
    assert name.startswith("_Z4axpyIfE") and len(args) == 5 + 3
    for alias in ("ops::inc", "inc", "_ZN3ops3incEPfi"):
        mod.get_function(alias)((1,), (1,), (cp.zeros(4), np.int32(0)))
    assert {n for n, _ in FakeCupy.launches[1:]} == {"_ZN3ops3incEPfixPx"}
    with pytest.raises(ValueError, match=r"no kernel 'axpy' .*name_expressions"):
        mod.get_function("axpy")
    assert mod.get_function("axpy<double>").num_regs == 32


def test_a_refused_cached_binary_is_rebuilt(fake_cupy):
    import safekern.cupy as skcp

    cp = fake_cupy
    skcp.RawKernel(K.SKIP_TARGET, "fill")((1,), (1,), (cp.zeros(1), np.float32(1), np.int32(1)))
    before = nvrtc.compile_calls()
    from safekern.backends.cupy import api as backend

    backend._MODULES.clear()               # as in a new process: load from the cache file
    FakeCupy.refuse_next_load = 2          # the cached cubin and its PTX are both refused
    k = skcp.RawKernel(K.SKIP_TARGET, "fill")
    k((1,), (1,), (cp.zeros(1), np.float32(1), np.int32(1)))
    assert nvrtc.compile_calls() == before + 1
    # ... and the rebuilt entry serves the next process-equivalent without NVRTC.
    backend._MODULES.clear()
    skcp.RawKernel(K.SKIP_TARGET, "fill")((1,), (1,), (cp.zeros(1), np.float32(1),
                                                        np.int32(1)))
    assert nvrtc.compile_calls() == before + 1


def test_checks_off_launches_the_users_kernel(fake_cupy, monkeypatch):
    import safekern.cupy as skcp

    set_safekern(monkeypatch, CHECKS="0")
    cp = fake_cupy
    k = skcp.RawKernel(K.GATHER, "gather")
    args = (cp.zeros(4), cp.zeros(4), cp.zeros(4, np.int32), np.int32(4))
    k((1,), (4,), args)
    (name, passed), = FakeCupy.launches
    assert passed == args
    assert b"__sk_" not in k.kernel.module.image


def test_a_kernel_left_unchanged_gets_no_hidden_arguments(fake_cupy):
    import safekern.cupy as skcp

    src = ('#define K(T) extern "C" __global__ void twice_##T(T* a) { a[threadIdx.x] *= 2; }\n'
           'K(float)\n')
    cp = fake_cupy
    k = skcp.RawKernel(src, "twice_float")
    a = cp.zeros(4)
    with pytest.warns(UserWarning, match="not checked"):
        k((1,), (4,), (a,))
    (name, args), = FakeCupy.launches
    assert name == "twice_float" and args == (a,)


COPY = r"""
extern "C" __global__ void copy(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] + 1.0f;
}
"""


def _race_warnings(fn):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, safekern.RaceWarning)]


def test_overlapping_arguments_are_checked_before_the_launch(fake_cupy, monkeypatch):
    import safekern.cupy as skcp

    cp = fake_cupy
    k = skcp.RawKernel(COPY, "copy", filename="copy.cu")
    x, y = cp.zeros(64, np.float32), cp.zeros(64, np.float32)
    assert _race_warnings(lambda: k((1,), (64,), (x, y, np.int32(64)))) == []
    assert _race_warnings(lambda: [k((1,), (64,), (x, x, np.int32(64))) for _ in range(2)]) \
        == ["safekern: kernel 'copy' (copy.cu:2): arguments 'a' and 'b' share memory and "
            "kernel 'copy' writes 'b'; safekern cannot tell whether two threads touch one "
            "element; the kernel runs"]
    assert _race_warnings(lambda: k((1,), (64,), (x[:32], x[32:], np.int32(32)))) == []
    assert _race_warnings(lambda: k((1,), (64,), (skcp.unchecked(1234), x,
                                                   np.int32(64)))) == []
    assert len(FakeCupy.launches) == 5
    set_safekern(monkeypatch, RACES="error")
    k2 = skcp.RawKernel(COPY, "copy", filename="copy2.cu")
    with pytest.raises(safekern.RaceError) as info:
        k2((1,), (64,), (x[:40], x[30:], np.int32(30)))
    assert (info.value.array, info.value.other) == ("b", "a")
    assert len(FakeCupy.launches) == 5               # refused before the launch
    set_safekern(monkeypatch, RACES="off")
    assert _race_warnings(lambda: k2((1,), (64,), (x, x, np.int32(64)))) == []


def test_accesses_left_unchecked_warn_with_safekerns_warning(fake_cupy):
    # safekern.UncheckedWarning, so warnings.simplefilter("error", safekern.UncheckedWarning)
    # catches it (issue 29: it was a plain UserWarning): a pointer loaded from memory is not
    # checked.
    import safekern.cupy as skcp

    code = r"""
extern "C" __global__ void lookup(float* out, const float* const* tables, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = tables[0][i];
}
"""
    k = skcp.RawKernel(code, "lookup")
    with pytest.warns(safekern.UncheckedWarning, match="are not checked"):
        k.compile()
