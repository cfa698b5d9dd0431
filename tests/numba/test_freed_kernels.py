"""A checked kernel that nothing refers to any more is freed with its compiled forms, as numba's
own kernels are. The rewrite's namespace bound the function's own name to numba's dispatcher of
it: numba's finalizer of the dispatcher holds its compiled kernels, whose function reads that
namespace, so the dispatcher, its LLVM IR and code were never freed -- every kernel made in a
loop or a factory stayed, and the growing heap made each of Python's full collections slower
(issue 26 item 3: over the benchmark's 40 first launches the checked ones spent 2.6x plain
numba's time in garbage collection, CPU). Now bound only where the function names
itself (recursion: tests/compat). Real numba-cuda without a GPU (tests/numba/freed_kernel_probe.py)."""
import pytest

from tests.support.numba_probes import run_probe


@pytest.fixture(scope="module")
def probe():
    return run_probe("tests.numba.freed_kernel_probe")


def test_a_dropped_kernel_and_its_variant_are_freed(probe):
    assert probe["freed"] == [True, True]
