"""assert, raise and division by zero inside numba kernels reach the host, located, at the next
sync point, as exceptions that are also the built-in (or the user's) class they mean. Runs on
the simulator, and on the GPU under `pytest -m gpu`."""
import pickle

import numpy as np
import pytest
from numba import cuda

import safekern
from tests.numba import safety_kernels as K
from tests.support.settings import set_safekern

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]


def weights():
    return cuda.to_device(np.array([1, 2, -3, 4, -5], dtype=np.int64))


def assert_located(err, name, kernel=None, thread=(2, 0, 0)):
    assert isinstance(err, safekern.KernelError)
    assert err.filename == K.__file__ and err.lineno == K.expected_line(name), str(err)
    assert err.kernel == (kernel or name)
    if thread is not None:
        assert err.thread == thread and err.block == (0, 0, 0), str(err)
    assert f"{K.__file__}:{err.lineno}" in str(err) and "^" in str(err)


def test_raise_value_error_reaches_copy_to_host():
    out = cuda.device_array(5, np.int64)
    K.scale_weights[1, 5](weights(), out)
    with pytest.raises(ValueError, match="negative weight") as info:
        out.copy_to_host()
    err = info.value
    assert isinstance(err, safekern.KernelError) and type(err).__name__ == "KernelValueError"
    assert str(err).splitlines()[0] == "negative weight"
    assert_located(err, "scale_weights")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err) and again.lineno == err.lineno
    # raised once: the next correct launch computes
    K.scale_weights[1, 2](weights(), out)
    np.testing.assert_array_equal(out.copy_to_host()[:2], [2, 4])


def test_user_exception_with_integer_values():
    K.weights_with_values[1, 5](weights(), cuda.device_array(5, np.int64))
    with pytest.raises(K.WeightError) as info:
        cuda.synchronize()
    assert str(info.value).splitlines()[0] == "weight 2 is -3"
    assert_located(info.value, "weights_with_values")


def test_several_arguments_read_as_python_would_show_them():
    K.two_arguments[1, 5](weights(), cuda.device_array(5, np.int64))
    with pytest.raises(KeyError) as info:
        safekern.sync()
    assert str(info.value).splitlines()[0] == str(KeyError("row", 2))
    assert_located(info.value, "two_arguments")


def test_assert_with_message():
    K.asserts_message[1, 5](weights(), cuda.device_array(5, np.int64))
    with pytest.raises(safekern.KernelAssertionError) as info:
        cuda.synchronize()
    err = info.value
    assert isinstance(err, AssertionError) and isinstance(err, safekern.KernelError)
    assert str(err).splitlines()[0] == "a[2] = -3 is negative"
    assert_located(err, "asserts_message")


def test_assert_without_message_names_the_condition():
    K.asserts_bare[1, 5](weights(), cuda.device_array(5, np.int64))
    with pytest.raises(AssertionError) as info:
        safekern.sync()
    assert str(info.value).splitlines()[0] == "assertion failed: a[i] >= 0"
    assert_located(info.value, "asserts_bare")


def test_asserts_switched_off_are_compiled_away(monkeypatch):
    set_safekern(monkeypatch, KERNEL_ASSERTS="0")

    @safekern.jit
    def unasserted(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            assert a[i] >= 0
            out[i] = a[i]

    out = cuda.device_array(5, np.int64)
    unasserted[1, 5](weights(), out)
    np.testing.assert_array_equal(out.copy_to_host(), [1, 2, -3, 4, -5])
    assert "assert" not in [site["kind"] for site in unasserted.check_report()]
    assert "_sk_fail" not in unasserted.rewritten_source


def test_raise_in_a_device_function_names_it():
    totals = cuda.to_device(np.array([4.0, 6.0, 1.0]))
    counts = cuda.to_device(np.array([2, 3, 0], dtype=np.int64))
    out = cuda.device_array(3)
    K.group_means[1, 3](totals, counts, out)
    with pytest.raises(ValueError) as info:
        out.copy_to_host()
    assert str(info.value).splitlines()[0] == str(ValueError("empty group", 0))
    assert_located(info.value, "checked_mean", thread=(2, 0, 0))


def test_integer_division_by_zero():
    a = cuda.to_device(np.array([7, 8, 9, 10], dtype=np.int64))
    d = cuda.to_device(np.array([2, 4, 0, 5], dtype=np.int64))
    out = cuda.device_array(4, np.int64)
    K.int_divide[1, 4](a, d, out)
    with pytest.raises(ZeroDivisionError) as info:
        out.copy_to_host()
    err = info.value
    assert isinstance(err, safekern.KernelZeroDivisionError)
    assert str(err).splitlines()[0] == \
        "division by zero in `a[i] // d[i]`: `d[i]` is 0 (dividend 9)"
    assert_located(err, "int_divide")
    K.int_divide[1, 2](a, d, out)
    np.testing.assert_array_equal(out.copy_to_host()[:2], [7 // 2 + 7 % 4, 8 // 4 + 8 % 4])


def test_augmented_modulo_by_zero():
    a = cuda.to_device(np.array([7, 8, 9], dtype=np.int32))
    K.int_modulo_aug[1, 3](a, cuda.to_device(np.array([2, 3, 0], dtype=np.int32)))
    with pytest.raises(safekern.KernelZeroDivisionError) as info:
        a.copy_to_host()
    assert "`a[i] % d[i]`" in str(info.value)
    assert_located(info.value, "int_modulo_aug")


def test_float_division_keeps_numpy_semantics():
    out = cuda.device_array(2)
    K.float_divide[1, 2](cuda.to_device(np.array([1.0, -1.0])), cuda.to_device(np.zeros(2)),
                         out)
    np.testing.assert_array_equal(out.copy_to_host(), [np.inf, -np.inf])


def test_float_division_raises_when_asked(monkeypatch):
    set_safekern(monkeypatch, FLOAT_DIVISION="raise")

    @safekern.jit
    def ratio(a, d, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = a[i] / d[i]

    ratio[1, 2](cuda.to_device(np.array([1.0, 2.0])), cuda.to_device(np.array([1.0, 0.0])),
                cuda.device_array(2))
    with pytest.raises(safekern.KernelZeroDivisionError, match=r"`a\[i\] / d\[i\]`"):
        safekern.sync()


def test_proven_checks_are_reported_eliminated():
    @safekern.jit
    def halves(a, out):
        i = cuda.grid(1)
        assert True
        if i < a.shape[0]:
            out[i] = a[i] // 2 + a[i] % 3

    kinds = [(s["kind"], s["status"], s["reason"]) for s in halves.check_report()]
    assert kinds.count(("zero_division", "eliminated", "non-zero constant divisor")) == 2
    assert ("assert", "eliminated", "constant true condition") in kinds
    assert "_sk_div_" not in halves.rewritten_source


def test_failing_assert_with_barriers_leaves_the_block_together():
    a = np.ones(32)
    a[5] = -1.0
    out = cuda.device_array(1)
    K.block_mean_asserted[1, 32](cuda.to_device(a), out)
    with pytest.raises(safekern.KernelAssertionError, match="negative input") as info:
        out.copy_to_host()
    assert_located(info.value, "block_mean_asserted", thread=(5, 0, 0))
    K.block_mean_asserted[1, 32](cuda.to_device(np.ones(32)), out)
    assert out.copy_to_host()[0] == 1.0


@pytest.mark.parametrize("body,problem", [
    ("raise", "a bare `raise` has nothing to re-raise"),
    ("raise 3", "needs an exception class"),
    ("raise ValueError('x', i, i, i, i)", "at most 3 values"),
])
def test_unsupported_raises_are_located_errors(body, problem, tmp_path, monkeypatch):
    path = tmp_path / "user_kernel.py"
    path.write_text("from numba import cuda\nimport safekern\n\n\n@safekern.jit\n"
                    "def k(a):\n    i = cuda.grid(1)\n    if i < a.shape[0]:\n"
                    f"        {body}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(safekern.CompilationError) as info:
        __import__("user_kernel")
    assert problem in str(info.value)
    assert f"{path}:9" in str(info.value)
