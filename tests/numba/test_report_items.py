"""check_report() says what happens (issue 29): a kernel's report holds the accesses of the
checked device functions it calls; entries read as dicts by their fields' names (the quickstart's
`lineno`, `col`, `text`, ...) and by the old `line`; subscripts of tuples (`cuda.grid(2)[k]`)
are neither checked nor reported nor routed through the load helper; an integer cast of a
constant (`types.uint32(0)`) does not hide the guard that proves an access."""
import numpy as np
import pytest
from numba import cuda

from safekern.report import Status
from tests.support.checks import load_kernel_module

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(120)]

SOURCE = """
    import numpy as np
    from numba import cuda, types
    import safekern

    @safekern.jit(device=True)
    def inner(a, i):
        return a[i]

    @safekern.jit(device=True)
    def outer(a, i):
        return inner(a, i) + a[i + 1]

    @safekern.jit
    def smooth(out, a):
        i = cuda.grid(1)
        if i + 1 < a.shape[0] and i < out.shape[0]:
            out[i] = outer(a, i) + inner(a, i)

    @safekern.jit
    def tiles(out):
        x = cuda.grid(2)[types.uint32(0)]
        y = cuda.grid(2)[1]
        g = cuda.grid(2)
        n = out.shape[0]
        if x >= n:
            return
        out[x] = y + g[0] + out.shape[np.int64(0)]
"""


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernel_module(tmp_path_factory.mktemp("report_items"), SOURCE, "report_items")


def test_a_kernels_report_holds_its_device_functions_accesses(kernels):
    report = kernels.smooth.check_report()
    by_function = {}
    for e in report.accesses:
        by_function.setdefault(e.function, []).append(e.text)
    assert by_function == {"smooth": ["out[i]"], "outer": ["a[i + 1]"], "inner": ["a[i]"]}
    assert all(e.filename == kernels.__file__ for e in report.accesses)
    out = cuda.device_array(7, np.float32)
    kernels.smooth[1, 8](out, cuda.to_device(np.arange(8, dtype=np.float32)))
    np.testing.assert_array_equal(out.copy_to_host(), 3 * np.arange(7) + 1)


def test_entries_read_as_dicts_by_their_fields_names(kernels):
    entry = next(e for e in kernels.smooth.check_report() if e.text == "out[i]")
    assert entry["lineno"] == entry["line"] == entry.lineno
    assert (entry["col"], entry["text"], entry["function"]) == (entry.col, "out[i]", "smooth")
    assert entry["status"] is entry.status and entry["kind"] == "store"
    assert {"lineno", "col", "text", "array", "status", "reason", "kind", "line"} <= \
        set(dict(entry))


def test_tuples_are_neither_checked_nor_reported(kernels):
    report = kernels.tiles.check_report()
    assert [e.text for e in report.accesses] == ["out[x]"]
    source = kernels.tiles.rewritten_source
    assert "x = cuda.grid(2)[types.uint32(0)]" in source and "g[0]" in source
    assert "_sk_load(cuda.grid" not in source and "_sk_load(g" not in source


def test_a_cast_constant_does_not_hide_the_guard(kernels):
    (entry,) = kernels.tiles.check_report().accesses
    assert entry.status is Status.ELIMINATED, entry
    out = cuda.to_device(np.zeros(4, np.float32))
    kernels.tiles[(2, 1), (4, 2)](out)          # x reaches 7: the guard keeps it in bounds
    got = out.copy_to_host()                    # y + x + 4, from the thread with y 0 or 1
    assert all(got[x] in (x + 4.0, x + 5.0) for x in range(4)), got
