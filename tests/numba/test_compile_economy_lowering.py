"""The check helpers' lowering reads an array's fields straight from its value (one extractvalue
each), not through numba's array struct proxy, whose construction (an alloca, a store, loads,
and a failing search for an `__array__` conversion that refreshes every registry) cost about
half a millisecond of Python per proxy, several per check (issue 26 item 3, compile time);
a checked element load or store likewise lowers numba's basic indexing itself. The launched PTX is the
same (benchmarks/results/2026-11-27-compile-6-cpu.md): here, that safekern
makes one proxy per kernel (the failure buffer's, at entry) whatever its number of checks, and
that the checks are still recorded."""
import pytest

from tests.support.numba_probes import run_probe


@pytest.fixture(scope="module")
def counts():
    return run_probe("tests.numba.compile_economy_probe")


def test_one_array_proxy_per_kernel_whatever_its_checks(counts):
    assert set(counts) == {"gather", "add2d", "tiled_matmul", "window_sum", "histogram"}
    for name, row in counts.items():
        assert row["proxies"] == 1, (name, row)


def test_checked_element_loads_build_no_proxy(counts):
    """A checked load of one element lowers numba's basic indexing itself (element_load),
    numba's getitem (a proxy per load) only for views and other indices."""
    assert counts["gather"]["loads"] >= 2 and counts["tiled_matmul"]["loads"] >= 4
    for name, row in counts.items():
        assert row["load_proxies"] == 0, (name, row)


def test_checked_element_stores_build_no_proxy(counts):
    """A checked or flag-guarded store of one element lowers numba's setitem of a scalar itself
    (element_store): numba's setitem made a proxy in gather, add2d and tiled_matmul."""
    for name, row in counts.items():
        assert row["store_proxies"] == 0, (name, row)


def test_checks_still_recorded(counts):
    assert counts["tiled_matmul"]["records"] >= 9
    assert all(row["records"] >= 1 for row in counts.values()), counts
