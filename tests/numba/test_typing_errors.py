"""A typing mistake in a checked kernel (`a[i, 0]` of a 1-D array, a float index) is numba's own
error for the user's code -- the one plain numba gives -- not an error about safekern's helpers
(`No implementation of function Function(<intrinsic _sk_load>)` with safekern's hidden
arguments in the signature, a newcomer's report of 29 Nov 2026). Compiled to PTX on real
numba-cuda in a child process (no GPU needed); a launch on a GPU takes the same way
(launching.py)."""
import pytest

from tests.support.numba_probes import run_probe

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def errors():
    return run_probe("tests.numba.typing_error_probe")


@pytest.mark.parametrize("kernel", ["two_indices_on_a_vector", "float_index"])
def test_a_typing_mistake_is_reported_as_plain_numba_reports_it(errors, kernel):
    mine, plain = errors[kernel], errors[kernel + ":plain"]
    assert mine is not None and plain is not None
    assert mine[0] == plain[0] == "TypingError"
    assert "_sk_" not in mine[1] and "__sk" not in mine[1]
    # (numba indents its candidate list by how deep the failing call was: words compared)
    assert mine[1].split() == plain[1].split()
    if kernel == "two_indices_on_a_vector":
        assert "cannot index array(float32, 1d, A) with 2 indices" in mine[1]
