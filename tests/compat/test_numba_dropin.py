"""safekern.jit answers as numba's dispatcher does where numba-cuda's own tests look: lambdas as
kernels, the function attributes numba reads, jit of a jitted function, pickling (kernels
defined in a function, configured launches, pre-launch callbacks), extensions that never see
safekern's hidden argument, numba's typing errors in the user's terms, and (outside the
simulator, tests/compat/dropin_probe.py) numba's warnings, option checks, launch configurations,
inspect_types and dumps. Each test fails when its feature is taken out."""
import json
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from numba import cuda

import safekern
from safekern.backends.numba.surface import (HiddenArgument, UserExtensions,
                                             numba_errors_in_user_terms)

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _clean_state(no_pending_failure):
    yield


# -- lambdas ------------------------------------------------------------------------------------

def test_lambda_device_function_is_checked():
    twice = safekern.jit(device=True)(lambda a, i: a[i] * 2)

    @safekern.jit
    def use(out, a, i):
        out[0] = twice(a, i)
    out = cuda.to_device(np.zeros(1))
    a = cuda.to_device(np.arange(3.0))
    use[1, 1](out, a, 2)
    safekern.sync()
    assert out.copy_to_host()[0] == 4.0
    use[1, 1](out, a, 5)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.index, info.value.size) == ("a", 5, 3)


def test_lambda_kernel_compiles_as_numba_does():
    kernel = safekern.jit(lambda: None)
    assert kernel.rewritten_source.startswith("def lambda_(")
    kernel[1, 1]()
    safekern.sync()


def test_two_lambdas_on_one_line_run_unchecked_with_the_warning():
    with pytest.warns(safekern.UncheckedWarning, match="runs unchecked"):
        pair = (safekern.jit(device=True)(lambda x: x + 1), lambda x: x + 2)
    assert pair[0].rewritten_source is None


# -- what numba reads of a dispatcher ----------------------------------------------------------

def test_function_attributes_and_jit_of_a_jitted_function():
    @safekern.jit
    def foo(res, k=3):
        res[0] = k
    assert foo.__code__ is foo.py_func.__code__
    assert foo.__defaults__ == (3,)
    again = safekern.jit(foo)
    assert again.py_func is foo.py_func and again is not foo
    res = np.zeros(1)
    again[1, 1](res)
    assert res[0] == 3


# -- pickling -----------------------------------------------------------------------------------

def make_kernel():
    @safekern.jit(device=True)
    def inner(a):
        return a + 1

    @safekern.jit
    def foo(arr, i):
        arr[i] = inner(arr[0])
    return foo


def test_kernel_defined_in_a_function_pickles_and_stays_checked():
    foo = pickle.loads(pickle.dumps(make_kernel()))
    arr = np.array([100])
    foo[1, 1](arr, 0)
    assert arr[0] == 101
    foo = pickle.loads(pickle.dumps(foo))
    foo[1, 1](cuda.to_device(arr), 1)
    with pytest.raises(safekern.BoundsError):
        safekern.sync()


def test_configured_launch_pickles_with_its_dimensions():
    launch = pickle.loads(pickle.dumps(make_kernel()[5, 8]))
    assert (launch.griddim, launch.blockdim) == ((5, 1, 1), (8, 1, 1))
    assert launch.dispatcher.__name__ == "foo"


def test_pre_launch_callbacks_run_and_refuse_pickling():
    foo = make_kernel()
    launch = foo[1, 1]
    seen = []
    launch.pre_launch_callbacks.append(lambda kernel, config: seen.append(config))
    arr = np.array([1])
    launch(arr, 0)
    assert arr[0] == 2 and seen == [launch]
    with pytest.raises(pickle.PicklingError, match="pre-launch callbacks"):
        pickle.dumps(launch)


# -- extensions and numba's messages ----------------------------------------------------------

class Tag:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def prepare_args(self, ty, val, **kwargs):
        self.log.append((self.name, val))
        return ty, val


def test_extensions_never_see_the_hidden_argument():
    log = []
    numba_list = [Tag("first", log)]
    adapter = UserExtensions.installed(numba_list)
    assert numba_list == [adapter] and UserExtensions.installed(numba_list) is adapter
    adapter.extensions.append(Tag("second", log))
    assert adapter.prepare_args("ty", 7, stream=0, retr=[]) == ("ty", 7)
    ty, val = adapter.prepare_args("int64", HiddenArgument(1234), stream=0, retr=[])
    assert (ty, val, type(val)) == ("int64", 1234, int)
    assert log == [("second", 7), ("first", 7)]       # numba's order: the last first


def test_typing_errors_name_the_users_function_and_types():
    from numba.cuda.core.errors import TypingError

    text = ("Invalid use of type(CUDADispatcher(<function add__safekern at 0x1>)) with "
            "parameters (complex128, complex128, array(int64, 1d, C), array(int32, 1d, C))\n"
            " * (int64, int64, Array(int64, 1, 'C', False, aligned=True), "
            "Array(int32, 1, 'C', False, aligned=True)) -> int64")
    with pytest.raises(TypingError) as info:
        with numba_errors_in_user_terms():
            raise TypingError(text)
    msg = str(info.value)
    assert "<function add at 0x1>" in msg
    assert "with parameters (complex128, complex128)\n" in msg
    assert " * (int64, int64) -> int64" in msg


# -- outside the simulator (no GPU needed) ------------------------------------------------------

@pytest.fixture(scope="module")
def probe():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run([sys.executable, "-m", "tests.compat.dropin_probe"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and "NVVM" in proc.stderr:
        pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", [
    "config_warnings_at_decoration", "config_warning_once_per_decoration",
    "carveout_validated_at_decoration", "low_occupancy_warning_at_configuration",
    "dumps_take_numbas_compile", "user_name_in_numbas_output", "inspect_types_in_user_types",
    "ambiguous_overloading_in_user_terms", "compile_for_args_and_launch_config",
    "plain_numba_code_calls_checked_device_function", "users_local_array_keeps_numbas_name",
    "slice_of_c_array_stays_c", "kernel_called_as_device_function_shows_in_overloads"])
def test_outside_the_simulator(probe, name):
    assert probe.get(name) == "ok", probe.get(name)


def test_numba_compile_warnings_are_stored_and_replayed():
    # A launch that loads a stored binary shows the warnings numba's compile gave (numba's
    # test_ssa: "Detected uninitialized variable c"), as numba compiling there would.
    from numba.cuda.core.errors import NumbaWarning

    from safekern.backends.numba.options import compile_warnings, replay_warnings

    said = []
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with compile_warnings(said):
            warnings.warn_explicit(NumbaWarning("Detected uninitialized variable c"),
                                   NumbaWarning, "k.py", 7)
            warnings.warn("not numba's", UserWarning)
    assert [w.category for w in shown] == [NumbaWarning, UserWarning]
    # Stored as numba's plain text; numba highlights it (ANSI colours where its colour scheme
    # is on, as on the GPU machine) when the warning is made, once, on replay too.
    assert said == [["NumbaWarning", "Detected uninitialized variable c", "k.py", 7]]
    shown_text = str(NumbaWarning("Detected uninitialized variable c"))
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        replay_warnings(json.loads(json.dumps(said)))
        replay_warnings([["UserWarning", "not replayed", "f.py", 1], ["malformed"]])
    assert [(w.category, str(w.message), w.filename, w.lineno) for w in shown] == \
        [(NumbaWarning, shown_text, "k.py", 7)]


def test_a_functions_overloads_are_part_of_its_key():
    # Two kernels of the same source calling a function overloaded differently (numba's
    # test_extending: strict and not) must not share a stored binary.
    from numba.cuda.extending import overload

    from safekern.backends.numba import keys as nk

    def make(strict):
        def myoverload(a, kw=None):
            pass

        def ol(a, **kws):
            def impl(a, kw=10):
                return a
            return impl
        before = nk.describe_value(myoverload)
        overload(myoverload, strict=strict)(ol)
        return before, nk.describe_value(myoverload)
    bare, strict = make(True)
    _, loose = make(False)
    assert bare != strict and strict != loose


def test_closure_function_defined_after_the_kernel():
    # numba's doc example (test_montecarlo): the kernel calls `func`, defined below it in the
    # same function; the closure cell is empty at decoration and filled by the launch.
    def make():
        @safekern.jit
        def kernel(out, a, i):
            out[0] = later(a, i)

        @safekern.jit(device=True)
        def later(a, i):
            return a[i]
        return kernel
    kernel = make()
    out = cuda.to_device(np.zeros(1))
    a = cuda.to_device(np.arange(3.0))
    kernel[1, 1](out, a, 2)
    safekern.sync()
    assert out.copy_to_host()[0] == 2.0
    kernel[1, 1](out, a, 5)
    with pytest.raises(safekern.BoundsError) as info:
        safekern.sync()
    assert (info.value.array, info.value.kernel) == ("a", "later")
