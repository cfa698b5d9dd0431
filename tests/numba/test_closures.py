"""Nested functions and lambdas in checked kernels (frontend/python/nested.py): closures numba
inlines are checked -- an out-of-bounds access in one is a safekern.BoundsError naming its line,
and the failing thread leaves or skips to the next barrier as after a checked device function's
call -- and closures used as values are left to numba, each access reported unchecked."""
import numpy as np
import pytest
from numba import cuda

import safekern
from safekern.report import Status
from tests.numba import closure_kernels as C
from tests.support.checks import assert_bounds_error

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]
FILE = C.__file__


def dev(x):
    return cuda.to_device(np.ascontiguousarray(x))


def expect(name, **more):
    return assert_bounds_error(filename=FILE, lineno=C.expected_line(name), **more)


A = np.arange(8, dtype=np.float64) + 1.0


def test_closure_load_in_bounds_gives_numbas_result():
    out = dev(np.zeros(4))
    C.closure_load[1, 4](out, dev(A), 2)
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), A[2:6] * 2.0)


def test_closure_load_out_of_bounds():
    out = dev(np.zeros(4))
    C.closure_load[1, 4](out, dev(A), 5)          # threads 3 reads a[8]
    err = expect("closure_load", kernel="closure_load", array="a", axis=0, index=8, size=8,
                 thread=(3, 0, 0))
    assert "return a[j]" in str(err)
    host = out.copy_to_host()
    np.testing.assert_array_equal(host[:3], A[5:8] * 2.0)
    assert host[3] == 0.0                         # the failing thread stored nothing


def test_closure_store_out_of_bounds_and_the_thread_leaves():
    out, a = dev(np.zeros(4)), dev(A[:4].copy())
    C.closure_store[1, 4](out, a, 1)               # thread 3 writes out[4]
    expect("closure_store", array="out", index=4, size=4, thread=(3, 0, 0))
    np.testing.assert_array_equal(out.copy_to_host(), [0.0, 1.0, 2.0, 3.0])
    # Threads 0-2 went on; thread 3 left right after the statement calling the closure.
    np.testing.assert_array_equal(a.copy_to_host(), [-1.0, -1.0, -1.0, 4.0])


def test_lambdas_assigned_and_called_at_once():
    out = dev(np.zeros(4))
    C.lambdas[1, 4](out, dev(A), 1)
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), A[:4] * 2.0 + A[1:5])
    C.lambdas[1, 4](out, dev(A), 6)                # (lambda j: a[j])(i + 6): a[8], a[9]
    err = expect("lambdas_inline", array="a", size=8, index=None)
    assert err.thread in ((2, 0, 0), (3, 0, 0))
    C.lambdas[1, 9](dev(np.zeros(9)), dev(A), -8)  # twice(8): a[8] (thread 8)
    expect("lambdas", array="a", index=8, size=8, thread=(8, 0, 0))


def test_closure_in_closure():
    out = dev(np.zeros(4))
    C.nested_closures[1, 4](out, dev(A), 1)
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), A[:4] + A[1:5])
    C.nested_closures[1, 4](out, dev(A), 7)
    expect("nested_closures", array="a", size=8, index=None)


def test_a_failing_load_leaves_a_while_loop_in_a_closure():
    out = dev(np.zeros(1))
    C.closure_while[1, 1](out, dev(A), 0)          # no zero in a: walks off its end
    expect("closure_while", array="a", index=8, size=8)


def test_closure_before_a_barrier_skips_to_it_and_the_block_leaves():
    a = np.arange(32, dtype=np.float32)
    out = dev(np.zeros(32, np.float32))
    C.closure_then_barrier[1, 32](out, dev(a), 0)
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), a[::-1])
    out = dev(np.zeros(32, np.float32))
    C.closure_then_barrier[1, 32](out, dev(a), 1)  # thread 31 reads a[32]
    expect("closure_then_barrier", array="a", index=32, size=32, thread=(31, 0, 0))
    host = out.copy_to_host()
    assert host[31] == 0.0                          # skipped to the barrier
    np.testing.assert_array_equal(host[:31], np.ones(31))   # the block left at the barrier


def test_closure_in_a_device_function():
    out = dev(np.zeros(4))
    C.calls_closure_device[1, 4](out, dev(A), 2)
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), A[2:6] + 1.0)
    C.calls_closure_device[1, 4](out, dev(A), 6)
    expect("closure_in_device", array="a", size=8, index=None, kernel="closure_in_device")


def test_closure_calling_a_checked_device_function():
    out = dev(np.zeros(4))
    C.closure_calls_device[1, 4](out, dev(A), 1)
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), A[1:5] + 1.0)
    out = dev(np.zeros(4))
    C.closure_calls_device[1, 4](out, dev(A), 5)
    expect("dev_get", array="a", index=8, size=8, thread=(3, 0, 0), kernel="dev_get")
    np.testing.assert_array_equal(out.copy_to_host(), [7.0, 8.0, 9.0, 0.0])


def test_checked_closure_sites_are_in_the_report():
    report = C.lambdas.check_report()
    lines = {e.lineno: e for e in report if e.array == "a"}
    assert set(lines) == {C.expected_line("lambdas"), C.expected_line("lambdas_inline")}
    assert all(e.status is Status.CHECKED for e in report if e.array == "a")


def test_a_closure_used_as_a_value_is_reported_unchecked():
    (entry,) = [e for e in C.escaping.check_report() if e.array == "arr"]
    assert entry.status is Status.UNCHECKED and entry.lineno == C.expected_line("escaping")
    assert "used as a value" in entry.reason and entry.text == "arr[j]"
    out = dev(np.zeros(4))
    C.escaping[1, 4](out, dev(A))
    assert safekern.sync() is None
    np.testing.assert_array_equal(out.copy_to_host(), A[:4])


def test_checked_closures_are_renamed_and_their_calls_test_the_flag():
    src = C.closure_store.rewritten_source
    assert "def _sk_devc0_put(j, v):" in src and "_sk_devc0_put(i + shift, " in src
    after = src.split("_sk_devc0_put(i + shift, ")[1].splitlines()[1]
    assert after.strip() == "if _sk_flag[0]:"
    assert "_sk_store(out, j, v, " in src


BAD = {
    "barrier": ("""
        def k(a):
            def f():
                cuda.syncthreads()
                a[0] = 1
            f()
    """, "barrier inside a nested function"),
    "device_in_escaping": ("""
        @safekern.jit(device=True)
        def d(a):
            return a[0]

        def apply(f):
            return f()

        def k(a):
            def f():
                return d(a)
            a[1] = apply(f)
    """, "checked device function cannot be called inside a nested function"),
    "comprehension": ("""
        def k(a):
            x = sum([a[j] for j in range(3)])
    """, "comprehension"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_what_cannot_be_checked_is_refused(kernel_module, case):
    body, problem = BAD[case]
    lines = body.strip("\n").splitlines()
    at = next(n for n, line in enumerate(lines) if line.strip().startswith("def k("))
    lines.insert(at, "        @safekern.jit")
    source = "from numba import cuda\nimport safekern\n" + "\n".join(
        line[8:] for line in lines) + "\n"
    with pytest.raises(safekern.CompilationError, match=problem):
        kernel_module(source, f"bad_closure_{case}")


@pytest.mark.parametrize("source, reason", [
    ("""
        def k(out, a):
            def get(j):
                return a[j]
            g = get
            out[0] = g(0)
    """, "used as a value"),
    ("""
        def k(out, a, n):
            if n > 0:
                def get(j):
                    return a[j]
            else:
                def get(j):
                    return a[j + 1]
            out[0] = get(0)
    """, "bound more than once"),
])
def test_closures_left_to_numba_are_reported_with_the_reason(kernel_module, source, reason):
    module = kernel_module("from numba import cuda\nimport safekern\n\n@safekern.jit\n"
                           + "\n".join(line[8:] for line in source.strip("\n").splitlines())
                           + "\n", "unchecked_closures")
    entries = [e for e in module.k.check_report() if e.array == "a"]
    assert entries and all(e.status is Status.UNCHECKED and reason in e.reason
                           for e in entries)


PTX_PROBE = """
import json
from numba import types
from tests.numba import closure_kernels as C
f64, f32 = types.float64[::1], types.float32[::1]
sigs = {"closure_load": (f64, f64, types.int64), "closure_store": (f64, f64, types.int64),
        "lambdas": (f64, f64, types.int64), "nested_closures": (f64, f64, types.int64),
        "closure_while": (f64, f64, types.int64), "closure_then_barrier": (f32, f32, types.int64),
        "calls_closure_device": (f64, f64, types.int64), "escaping": (f64, f64),
        "closure_calls_device": (f64, f64, types.int64)}
print(json.dumps({name: len(getattr(C, name).compile_ptx(sig, cc=(9, 0)))
                  for name, sig in sigs.items()}))
"""


def test_closures_compile_with_numbas_typing():
    # numba inlines the checked closures (their free variables _sk_fb and _sk_flag are the
    # enclosing function's); the one used as a value is compiled on its own, unchanged.
    import json
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", PTX_PROBE], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 and "NVVM" in proc.stderr and "not found" in proc.stderr.lower():
        pytest.skip("numba-cuda cannot find NVVM here")
    assert proc.returncode == 0, proc.stderr[-3000:]
    sizes = json.loads(proc.stdout.splitlines()[-1])
    assert all(size > 0 for size in sizes.values()) and len(sizes) == 9
