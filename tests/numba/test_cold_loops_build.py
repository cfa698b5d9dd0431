"""A build compiles a kernel's versioned loops' checked copies rolled (`_sk_cold()` first in
them: frontend/python/cold_loops.py), never a device function's: LLVM inlines no function
holding a statement it may not duplicate into two callers. (What the kernels compute with the
marker: the simulator's runs of the benchmark and test kernels, the elimination fuzzer.)"""
import ast

import pytest

from tests.support.checks import load_kernel_module

pytestmark = [pytest.mark.cudasim]

SOURCE = """
import safekern
from numba import cuda, float32


@safekern.jit(device=True)
def total(a, n):
    acc = float32(0.0)
    for k in range(n):
        acc += a[k]
    return acc


@safekern.jit
def kernel(out, a, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = float32(0.0)
        for k in range(n):
            acc += a[k]
        out[i] = acc + total(a, n)
"""


def _compiled_names(fn) -> tuple:
    """The names the compiled Python function of a build reads (numba's jit of it; on the
    simulator, a kernel whose checks may end the thread runs inside sim.thread_entry's)."""
    py_func = fn.build.dispatcher().py_func
    return getattr(py_func, "__wrapped__", py_func).__code__.co_names


def test_a_kernels_checked_copy_compiles_with_the_marker(tmp_path):
    mod = load_kernel_module(tmp_path, SOURCE, "cold_loops_kernels")
    # (versioned; the checked copy's checks end the thread: exit_mode.py)
    assert "_sk_load_exit(a," in ast.unparse(mod.kernel.build.final_rewrite().tree)
    assert "_sk_cold" in _compiled_names(mod.kernel)


def test_a_device_functions_copy_compiles_without_it(tmp_path):
    mod = load_kernel_module(tmp_path, SOURCE, "cold_loops_device")
    assert "_sk_load(a," in ast.unparse(mod.total.build.final_rewrite().tree)    # versioned
    assert "_sk_cold" not in _compiled_names(mod.total)


def test_the_kernel_cache_key_covers_the_marking():
    # The marker goes in at the compile, not into the rewrite's source (the key's source): a
    # change of which loops are marked must change the key's code-generation digest.
    import os

    from safekern.backends.numba import keys

    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(keys.__file__))))
    assert "frontend/python/cold_loops.py" in keys.CODEGEN_FILES
    assert all(os.path.isfile(os.path.join(package, name)) for name in keys.CODEGEN_FILES)
