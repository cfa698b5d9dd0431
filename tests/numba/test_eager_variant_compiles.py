"""A kernel decorated with signatures compiles once at decoration on a GPU -- its launch
variant, which its first launch then runs -- where it compiled the checked kernel there and the
variant at the launch (stumpy's kernel: 4x plain numba's first launch on the H100, issue 26
item 3). Counted on real numba-cuda without a GPU (tests/numba/eager_variant_probe.py gives the
GPU's eager decoration); the simulator's side: test_eager_variants.py."""
import pytest

from tests.support.numba_probes import run_probe


@pytest.fixture(scope="module")
def probe():
    return run_probe("tests.numba.eager_variant_probe")


def test_one_compile_at_decoration_none_at_the_launch(probe):
    assert probe["gather"] == {"decoration": 1, "launch": 0, "checked_compiled": False}


def test_a_typing_error_is_still_raised_at_decoration_in_numbas_words(probe):
    error = probe["mistyped"]
    assert error is not None and error["type"] == "TypingError"
    # A first compile's wording (a second compile of the same error indents it apart).
    assert "\n - Of which" in error["text"] and "add(float64, Literal[str](one))" in error["text"]
