"""Run without the simulator (no GPU needed): numba's dispatcher behaviours that safekern.jit
mirrors outside the simulator (numba-cuda's own test_warning, test_dispatcher, test_inspect,
test_debug expect them); prints {check: "ok" or what went wrong} as JSON for
tests/compat/test_numba_dropin.py."""
import io
import json
import traceback
import warnings

import numpy as np
from numba.cuda import types
from numba.cuda.core import config as numba_config
from numba.cuda.core.errors import NumbaInvalidConfigWarning, NumbaPerformanceWarning

import safekern
from safekern.backends.numba.keys import launch_obstacle

CHECKS = {}


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


def warned(category, action) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [str(w.message) for w in caught if issubclass(w.category, category)]


@check
def config_warnings_at_decoration():
    # numba warns when its jit is called, before any function is given.
    got = warned(NumbaInvalidConfigWarning, lambda: safekern.jit(debug=True, opt=True))
    assert len(got) == 1 and "not supported by CUDA" in got[0], got
    got = warned(NumbaInvalidConfigWarning,
                 lambda: safekern.jit(debug=True, lineinfo=True, opt=False))
    assert len(got) == 1 and "mutually exclusive" in got[0], got
    assert warned(NumbaInvalidConfigWarning, lambda: safekern.jit(debug=True, opt=False)) == []


@check
def config_warning_once_per_decoration():
    def decorate_and_build():
        @safekern.jit(debug=True, opt=True)
        def k(a):
            a[0] = 1
        k.numba_dispatcher()      # safekern's own cuda.jit of the rewrite stays quiet
    got = warned(NumbaInvalidConfigWarning, decorate_and_build)
    assert len(got) == 1, got


@check
def carveout_validated_at_decoration():
    for value, words in ((150, "must be between -1 and 100"),
                         ("InvalidOption", "Invalid carveout value")):
        for sig in (None, "void(int32[:])"):
            try:
                deco = safekern.jit(sig, shared_memory_carveout=value) if sig else \
                    safekern.jit(shared_memory_carveout=value)
                deco(lambda a: None)
            except ValueError as err:
                assert words in str(err), err
            else:
                raise AssertionError(f"no ValueError for {value!r}")


@check
def low_occupancy_warning_at_configuration():
    @safekern.jit
    def k(a):
        a[0] = 1
    saved = numba_config.CUDA_LOW_OCCUPANCY_WARNINGS
    numba_config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    try:
        got = warned(NumbaPerformanceWarning, lambda: k[1, 1])
        assert len(got) == 1 and "Grid size 1 " in got[0], got
        assert warned(NumbaPerformanceWarning, lambda: k[256, 256]) == []
    finally:
        numba_config.CUDA_LOW_OCCUPANCY_WARNINGS = saved


@check
def dumps_take_numbas_compile():
    saved = numba_config.DUMP_IR
    numba_config.DUMP_IR = True
    try:
        assert "DUMP_IR" in (launch_obstacle({}) or ""), launch_obstacle({})
    finally:
        numba_config.DUMP_IR = saved
    assert launch_obstacle({}) is None


@check
def user_name_in_numbas_output():
    @safekern.jit
    def named(a):
        a[0] = 1

    @safekern.jit(cache=True)
    def cached(a):
        a[0] = 1
    # (numba's rewrites match it; cache=True files are named by the user's function and the
    # checked builds' entries keyed apart: backends/numba/disk_cache.py)
    for kernel in (named, cached):
        fn = kernel.numba_dispatcher().py_func
        assert fn.__qualname__ == kernel.__qualname__, fn.__qualname__


@check
def inspect_types_in_user_types():
    @safekern.jit
    def foo(x, y):
        pass

    class Kernel:
        entry_name = "_Z3foo"
        _type_annotation = "annotated"
    full = (types.float32, types.int32, types.int64)
    foo.surface.dispatcher = lambda: type("D", (), {"overloads": {full: Kernel()}})()
    out = io.StringIO()
    foo.inspect_types(file=out)
    assert "_Z3foo (float32, int32)\n" in out.getvalue(), out.getvalue()


@check
def ambiguous_overloading_in_user_terms():
    from numba.cuda.target import CUDATypingContext

    def add_kernel(r, x, y):
        r[0] = x + y
    kernel = safekern.jit(add_kernel)
    hidden = (types.int64,)
    arr = types.float64[::1]
    sigs = [types.void(arr, types.float32, types.float64, *hidden),
            types.void(arr, types.float64, types.float32, *hidden)]
    ctx = CUDATypingContext()
    ctx.refresh()
    from numba.cuda.typing.typeof import Purpose, typeof

    kernel.surface.dispatcher = lambda: type("D", (), {
        "nopython_signatures": sigs, "typingctx": ctx,
        "typeof_pyval": staticmethod(lambda v: typeof(v, Purpose.argument))})()
    try:
        kernel._explain_ambiguous((np.zeros(1), 1.0, 2.0))
    except TypeError as err:
        msg = str(err)
        assert msg.startswith("Ambiguous overloading for <function "), msg
        assert "add_kernel at" in msg and "__safekern" not in msg, msg
        assert "int64" not in msg, msg
        assert "(Array(float64, 1, 'C', False, aligned=True), float64, float64):" in msg, msg
    else:
        raise AssertionError("no TypeError")


@check
def compile_for_args_and_launch_config():
    from numba.cuda import launchconfig

    @safekern.jit
    def f(x):
        x[0] = 1
    # What numba's hooks wrap (launchconfig.capture_compile_config): a bound method.
    assert f._compile_for_args.__self__ is f
    try:
        f.mark_launch_config_sensitive()
    except RuntimeError as err:
        assert "No launch config" in str(err), err
    else:
        raise AssertionError("marked outside a launch")
    launch = f[(2, 1), 32]
    assert launch.dispatcher is f and launch.griddim == (2, 1, 1)
    assert launch.blockdim == (32, 1, 1) and launch.sharedmem == 0
    assert launch.args is None and launchconfig.current_launch_config() is None
    assert not launch._is_kernel_launch_config_sensitive()


@check
def plain_numba_code_calls_checked_device_function():
    # numba's vectorize and cuda.compile compile the user's plain function with numba's jit:
    # a checked device function it calls is numba's own build there (said once, if it has a
    # check to lose: one without a check loses nothing, and says nothing).
    from numba import cuda

    @safekern.jit(device=True)
    def cu_device_fn(x, y, z):
        return x ** y / z[0]

    @safekern.jit(device=True)
    def cu_check_free(x, y, z):
        return x ** y / z

    def cu_ufunc(x, y, z):
        return cu_device_fn(x, y, z)

    def cu_free_ufunc(x, y, z):
        return cu_check_free(x, y, z)
    from safekern.backends.numba import build as nc

    vector = types.float32[::1]
    with nc.assume_device((9, 0)):      # no GPU here: numba asks for the current device
        got = warned(safekern.UncheckedWarning, lambda: cuda.compile_ptx(
            cu_ufunc, (types.float32, types.float32, vector), device=True, cc=(9, 0)))
        assert len(got) == 1 and "cu_device_fn" in got[0], got
        assert warned(safekern.UncheckedWarning, lambda: cuda.compile_ptx(
            cu_ufunc, (types.float64, types.float64, vector), device=True, cc=(9, 0))) == []
        assert warned(safekern.UncheckedWarning, lambda: cuda.compile_ptx(
            cu_free_ufunc, (types.float32,) * 3, device=True, cc=(9, 0))) == []


@check
def users_local_array_keeps_numbas_name():
    # numba names a cuda.local array "_cudapy_lmem" in its LLVM (numba's test_array_alignment
    # finds it, and its alignment, by that name): safekern's own flag array has another name.
    import re

    from numba import cuda
    from numba.cuda import compiler

    from safekern.backends.numba import build as nc

    @safekern.jit
    def f(loc):
        local_array = cuda.local.array(shape=(2, 3), dtype=np.uint8, alignment=16)
        loc[0] = local_array.ctypes.data
    fn = nc.compile_rewritten(f.build.final_rewrite(), {})
    with nc.assume_device((9, 0)):
        cres = compiler.compile_cuda(fn, types.void, (types.uint64[::1], types.int64),
                                     cc=(9, 0))
    llvm = cres.library.get_llvm_str()
    found = re.findall(r'^\s*%"_cudapy_lmem".*?align (\d+)', llvm, re.MULTILINE)
    assert found == ["16"], [ln for ln in llvm.splitlines() if "alloca" in ln]


@check
def slice_of_c_array_stays_c():
    # numba types a[i:] of a C array as C (ffi.from_buffer and C-signature callees need it).
    from numba import cuda
    from numba.cuda import compiler

    from safekern.backends.numba import build as nc

    @safekern.jit
    def view(x, out):
        i = cuda.grid(1)
        y = x[i:]
        out[0] = y[0]
    fn = nc.compile_rewritten(view.build.final_rewrite(), {})
    with nc.assume_device((9, 0)):
        cres = compiler.compile_cuda(fn, types.void, (types.int32[::1], types.int32[::1],
                                                       types.int64), cc=(9, 0))
    layouts = {str(k): v.layout for k, v in cres.type_annotation.typemap.items()
               if str(k).startswith("y") and isinstance(v, types.Array)}
    assert layouts and set(layouts.values()) == {"C"}, layouts


@check
def kernel_called_as_device_function_shows_in_overloads():
    # numba compiles a kernel that another kernel calls as a device function, in the same
    # dispatcher: its overloads (and signatures) show that compilation.
    from safekern.backends.numba import build as nc

    @safekern.jit
    def times2(x):
        return x * 2

    @safekern.jit
    def caller(r, x):
        r[0] = times2(x[0])
    with nc.assume_device((9, 0)):
        caller.compile_ptx((types.int32[::1], types.int32[::1]))
        assert times2.signatures == [(types.int32,)], times2.signatures
        llvm = times2.overloads[times2.signatures[0]].library.get_llvm_str()
    assert "ret i32 0" in llvm


def main():
    out = {}
    for name, fn in CHECKS.items():
        try:
            fn()
            out[name] = "ok"
        except Exception:          # noqa: BLE001 - reported to the test
            out[name] = traceback.format_exc()[-1500:]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
