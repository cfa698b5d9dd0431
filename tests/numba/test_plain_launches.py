"""Plain launches (backends/numba/plain.py): a launch that can record no failure while nothing
is pending runs numba's own kernel of the user's function; anything that could fail, or a
failure pending on the device, keeps safekern's checked kernel (with its pending-failure test).
On the simulator, and on a GPU with `pytest -m gpu`."""
import re
import warnings

import numpy as np
import pytest
from numba import cuda

import safekern
from safekern import config
from safekern.backends.numba.device import current_source
from tests.numba import plain_kernels as K
from tests.support.checks import assert_bounds_error
from tests.support.settings import safekern_setting

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def ran_plain(kernel) -> bool:
    plain = kernel.dispatch.plain_made
    return plain is not None and plain.build.numba is not None


def test_a_kernel_without_checks_runs_numbas_own_kernel():
    K.axpy_scalar[1, 1](2.0, 3.0, 4.0)
    assert ran_plain(K.axpy_scalar)
    assert not current_source().dirty          # nothing it ran can fail: nothing to read


def test_a_launch_whose_predicates_hold_runs_numbas_own_kernel():
    out = cuda.to_device(np.zeros(64))
    with warnings.catch_warnings():
        warnings.simplefilter("error", safekern.UncheckedWarning)   # a check-free callee: none
        K.copy_twice[2, 32](K.arange(64), out)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(64.0))
    assert ran_plain(K.copy_twice)
    # The report still says how each access is proven.
    statuses = {(e.array, e.status) for e in K.copy_twice.check_report() if e.array}
    assert {("a", "proven at launch"), ("out", "proven at launch")} <= statuses


def test_a_launch_that_breaks_a_predicate_is_checked():
    out = cuda.to_device(np.zeros(48))
    K.copy_twice[2, 32](K.arange(64), out)       # 64 threads, out has 48 elements
    assert_bounds_error(array="out", index=48, size=48, kernel="copy_twice")


def test_a_pending_failure_keeps_the_checked_kernel_and_its_skip():
    """After a failure no launch may act on what it left: a launch that could run numba's
    own kernel runs the checked one while the failure is pending, whose first test skips it."""
    target = cuda.to_device(np.zeros(4))
    K.poke[1, 1](target, 10)                     # fails; nothing synchronises yet
    assert current_source().dirty
    out = cuda.to_device(np.zeros(64))
    K.sine[2, 32](out)                           # proven statically, but a failure is pending
    err = assert_bounds_error(array="a", index=10, size=4, kernel="poke")
    assert err.skipped_launches >= 1
    np.testing.assert_array_equal(out.copy_to_host(), np.zeros(64))     # skipped
    K.sine[2, 32](out)                           # checked clean since: numba's own runs
    np.testing.assert_allclose(out.copy_to_host(), np.sin(np.arange(64)), rtol=1e-12)
    assert ran_plain(K.sine)


def test_a_callee_with_a_check_is_never_plain():
    out = cuda.to_device(np.zeros(32))
    K.copy_through_load[1, 32](K.arange(32), out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(32.0))
    assert not ran_plain(K.copy_through_load)
    K.copy_through_load[1, 32](K.arange(16), out)
    assert_bounds_error(array="a", index=16, size=16, called_from=("copy_through_load",))


def test_asserts_compiled_away_are_not_numbas(monkeypatch):
    """SAFEKERN_KERNEL_ASSERTS=0 drops `assert` from the rewrite: numba's own kernel of the
    function would keep it, so such a kernel always runs safekern's rewrite."""
    with safekern_setting(monkeypatch, "SAFEKERN_KERNEL_ASSERTS", "0"):
        @safekern.jit
        def asserted(out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                assert i < 0
                out[i] = 1.0

        out = cuda.to_device(np.zeros(8))
        asserted[1, 8](out)
        np.testing.assert_array_equal(out.copy_to_host(), np.ones(8))
        assert not ran_plain(asserted)


def test_the_switch_turns_plain_launches_off(monkeypatch):
    with safekern_setting(monkeypatch, "SAFEKERN_PLAIN_LAUNCHES", "0"):
        @safekern.jit
        def fill(out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = 3.0

        out = cuda.to_device(np.zeros(8))
        fill[1, 8](out)
        np.testing.assert_array_equal(out.copy_to_host(), np.full(8, 3.0))
        assert not ran_plain(fill)


def test_eager_signatures_compile_numbas_own_kernel():
    out = cuda.to_device(np.zeros(8))
    K.eager_fill[1, 8](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.full(8, 7.0))
    assert ran_plain(K.eager_fill)


@pytest.mark.gpu
def test_inspect_shows_numbas_own_code_for_launches_that_ran_it():
    """What numba's inspect_* describe is the code launches ran: numba's own for a kernel with
    no check (no hidden parameter, no pending-failure branch), the checked kernel otherwise."""
    if config.get().checks is False:
        pytest.skip("checks off")
    from numba.cuda import types

    llvm = K.axpy_scalar.inspect_llvm((types.float64, types.float64, types.float64))
    assert "_sk_" not in llvm and re.search(r"define void @.*axpy_scalar", llvm)
    out = cuda.to_device(np.zeros(64))
    K.copy_twice[2, 32](K.arange(64), out)
    sig = K.copy_twice.signatures[0]
    assert "_sk_" not in K.copy_twice.inspect_asm(sig)
    assert "_sk_" not in K.copy_twice.inspect_llvm()[sig]
    checked = K.copy_through_load.inspect_llvm()
    assert all("_sk_" in text for text in checked.values())


@pytest.mark.gpu
def test_callees_of_a_plain_launch_list_what_numba_compiled_for_it():
    """numba-cuda's test_declare_device_cabi_propagate reads `device_func.overloads[
    device_func.signatures[0]]` after a launch: a callee of a launch that ran numba's own
    kernel was compiled by numba's own build of it, and its signatures say so (a kernel called
    as a device function, and a device function)."""
    x = np.arange(10, dtype=np.int32)
    for callee in (K.times2_kernel, K.twice_int):
        r = cuda.to_device(np.zeros_like(x))
        kernel = K.calls_times2_kernel if callee is K.times2_kernel else K.calls_twice_int
        kernel[1, 32](r, cuda.to_device(x))
        np.testing.assert_array_equal(r.copy_to_host(), 2 * x)
        assert ran_plain(kernel)
        assert callee.signatures, callee
        compiled = callee.overloads[callee.signatures[0]]
        assert "ret i32 0" in compiled.library.get_llvm_str()


def test_a_debug_kernel_raises_its_failure_at_the_launch():
    """numba's launch of a debug=True kernel waits for it (it reads numba's exception flag): a
    sync point, so what safekern's checks recorded raises there too, as numba's own do."""
    @safekern.jit(debug=True, opt=False)
    def poke_debug(a, k):
        a[k] = 1.0

    a = cuda.to_device(np.zeros(4))
    with pytest.raises(safekern.BoundsError) as info:
        poke_debug[1, 1](a, 9)
    assert info.value.index == 9 and info.value.kernel == "poke_debug"
    poke_debug[1, 1](a, 3)                       # nothing pending after it
    assert not current_source().dirty or safekern.sync() is None
