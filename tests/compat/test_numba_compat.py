"""safekern.jit as a drop-in for numba.cuda.jit: the constructs numba-cuda's own test suite
uses (tools/numba_suite.py runs that suite; docs/compatibility.md has the results) compile,
run as numba's do, and are checked. Each test fails when its feature is taken out."""
import inspect
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
from tests.compat import compat_kernels as K
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


@pytest.fixture(autouse=True)
def _clean_state(no_pending_failure):
    yield


def dev(x):
    return cuda.to_device(np.ascontiguousarray(x))


# -- functions passed as arguments -----------------------------------------------------------

def test_atomic_and_device_function_passed_as_arguments():
    out = dev(np.zeros(8, np.int32))
    K.atomic_through_parameter[1, 8](out, 8)
    safekern.sync()
    assert out.copy_to_host().tolist() == [1] * 8
    # The atomic through the parameter is checked: n past the array.
    K.atomic_through_parameter[1, 16](out, 16)
    assert_bounds_error(array="out", index=8, size=8)


def test_device_function_passed_as_argument_is_checked():
    a = np.arange(8, dtype=np.float64)
    out = dev(np.zeros(8))
    K.read_through_parameter[1, 8](out, dev(a), 0)
    safekern.sync()
    assert out.copy_to_host().tolist() == a.tolist()
    K.read_through_parameter[1, 8](out, dev(a), 1)
    err = assert_bounds_error(array="a", index=8, size=8, kernel="read_at",
                        called_from=("read_through_parameter",))
    assert err.lineno == K.line_of("return a[i]                       # line")
    assert "in device function 'read_at' called from kernel 'read_through_parameter'" in \
        str(err)
    again = pickle.loads(pickle.dumps(err))
    assert again.called_from == err.called_from and str(again) == str(err)


# -- recursion, kernels as device functions, *args, defaults ------------------------------------

def test_recursive_device_function():
    a = np.arange(6, dtype=np.float64)
    out = dev(np.zeros(1))
    K.recursive_sum[1, 1](out, dev(a), 5)
    safekern.sync()
    assert out.copy_to_host()[0] == a.sum()
    K.recursive_sum[1, 1](out, dev(a), 6)
    assert_bounds_error(array="a", index=6, size=6, kernel="sum_down", called_from=("recursive_sum",))


def test_kernel_called_from_kernel_is_a_checked_device_function():
    a = np.arange(4, dtype=np.float64)
    out = dev(np.zeros(4))
    K.kernel_calling_kernel[1, 4](out, dev(a), 0)
    safekern.sync()
    assert out.copy_to_host().tolist() == (a * 2).tolist()
    K.kernel_calling_kernel[1, 4](out, dev(a), 2)
    assert_bounds_error(array="a", index=4, size=4, kernel="inner_kernel",
                  called_from=("kernel_calling_kernel",))


def test_star_args_device_function():
    a = np.arange(4, dtype=np.float64)
    out = dev(np.zeros(1))
    K.star_args[1, 1](out, dev(a), 3)
    safekern.sync()
    assert out.copy_to_host()[0] == 0 + 1 + 3
    K.star_args[1, 1](out, dev(a), 9)
    assert_bounds_error(array="a", index=9, size=4, kernel="total")


def test_omitted_default_does_not_shift_hidden_arguments():
    a = np.arange(4, dtype=np.float64)
    out = dev(np.zeros(4))
    K.defaults_omitted[1, 4](out, dev(a))
    safekern.sync()
    assert out.copy_to_host().tolist() == (a * 3).tolist()


# -- grid synchronisation --------------------------------------------------------------------

def test_grid_sync_runs_and_a_failure_leaves_the_whole_grid():
    # (One block: the simulator runs blocks one after another, so its grid sync orders them
    # only within a block.)
    a = np.arange(8, dtype=np.float64)
    out = dev(np.zeros(8))
    K.grid_steps[1, 8](out, dev(a), 0)
    safekern.sync()
    assert out.copy_to_host().tolist() == (a + 2).tolist()
    out = dev(np.zeros(8))
    K.grid_steps[1, 8](out, dev(a), 1)      # thread 7 reads a[8]; nobody hangs
    assert_bounds_error(array="a", index=8, size=8, thread=(7, 0, 0), block=(0, 0, 0))
    # Every thread left at the first grid sync: no thread ran the steps after it.
    assert out.copy_to_host().tolist() == [1, 2, 3, 4, 5, 6, 7, 0]
    source = K.grid_steps.rewritten_source
    assert source.count("g.sync()") == 2 and "_sk_fb[14 + _sk_gp]" in source


# -- no source ------------------------------------------------------------------------------

def test_kernel_without_source_runs_unchecked_with_one_warning():
    namespace = {"cuda": cuda}
    exec("def built(a):\n    i = cuda.grid(1)\n    if i < a.shape[0]:\n        a[i] = i\n",
         namespace)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel = safekern.jit(namespace["built"])
    unchecked = [w for w in caught if issubclass(w.category, safekern.UncheckedWarning)]
    assert len(unchecked) == 1
    assert "'built'" in str(unchecked[0].message) and "source" in str(unchecked[0].message)
    assert unchecked[0].filename == __file__
    report = kernel.check_report()
    assert [r["status"] for r in report] == ["unchecked"]
    assert report[0]["reason"].startswith("no source")
    out = dev(np.zeros(4))
    kernel[1, 4](out)
    assert out.copy_to_host().tolist() == [0, 1, 2, 3]


# -- the dispatcher surface and numba's errors ---------------------------------------------------

def test_source_and_name_of_a_checked_kernel():
    assert inspect.getsource(K.two_args).lstrip().startswith("@safekern.jit")
    assert inspect.getsourcelines(K.two_args)[1] == K.line_of("def two_args") - 1
    assert K.two_args.__wrapped__ is K.two_args.py_func
    assert K.two_args.__name__ == "two_args"
    assert list(inspect.signature(K.two_args).parameters) == ["a", "b"]


def test_too_few_arguments_name_the_users_parameter():
    with pytest.raises(TypeError) as info:
        K.two_args[1, 1](dev(np.zeros(2)))
    assert "'b'" in str(info.value) and "_sk_" not in str(info.value)
    with pytest.raises(TypeError) as info:
        K.two_args[1, 1](dev(np.zeros(2)), 1, 2)
    assert "_sk_" not in str(info.value)


@pytest.mark.parametrize("config, error", [
    ((1,), ValueError), (((1, 2, 3, 4), 5), ValueError), ((1.5, 2), TypeError)])
def test_launch_configuration_errors_at_the_subscript(config, error):
    with pytest.raises(error):
        K.two_args[config]


def test_forall_refuses_negative_work_as_numba_does():
    with pytest.raises(ValueError, match="negative task count"):
        K.two_args.forall(-1)


# -- numba's real typing and lowering (PTX, no GPU) -------------------------------------------

def test_constructs_compile_to_ptx_with_numba():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run([sys.executable, "-m", "tests.compat.compat_ptx_probe"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and "NVVM" in proc.stderr:
        pytest.skip("numba-cuda cannot find NVVM here: " + proc.stderr[-300:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    # The check helpers leave no call in a kernel's LLVM (numba's test_inline looks for
    # calls): an inline="always" callee leaves none, an inline="never" one its call.
    assert results.pop("inline_always_llvm_calls") == 0, results
    assert results.pop("inline_never_llvm_calls") == 1, results
    assert results == {name: "ok" for name in results}, results
    assert len(results) == 8
