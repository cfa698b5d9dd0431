"""The check-kind registry (safekern/check_kinds.py): one table says what each kind raises,
what reports call it and which helpers check it, for numba and C alike."""
from safekern import check_kinds, failures
from safekern.errors import (BoundsError, KernelAssertionError, KernelError,
                             KernelZeroDivisionError)
from safekern.frontend.python import names
from safekern.report import CheckReport, ReportEntry, Status


def _site(kind, **extra):
    fields = dict(code=failures.site_code("test_check_kinds", kind, sorted(extra.items())),
                  kind=kind, kernel="k",
                  filename="k.py", lineno=3, source_line="    a[i] = 1", col=4, end_col=8,
                  array="a", axis=0)
    fields.update(extra)
    site = failures.FailureSite(**fields)
    failures.TABLE.register(site)
    return site


def _raised(site, values=(7, 5, 0)):
    buf = [0] * failures.BUFFER_LEN
    buf[failures.CODE] = site.code
    buf[1:4] = values
    return failures.exception_from_buffer(buf)


def test_each_kind_raises_the_registered_class():
    for name in ("bounds", "load", "store", "atomic"):
        exc = _raised(_site(name))
        assert type(exc) is BoundsError and (exc.index, exc.size) == (7, 5)
    exc = _raised(_site("assert", message="x was {0}"))
    assert type(exc) is KernelAssertionError and exc.message == "x was 7"
    assert _raised(_site("assert", message=None, lineno=4)).message == "assertion failed"
    exc = _raised(_site("zero_division", message="{0} // {1}"))
    assert type(exc) is KernelZeroDivisionError and exc.message == "7 // 5"
    exc = _raised(_site("raise", message="bad {0}", exception="builtins:ValueError"))
    assert isinstance(exc, ValueError) and isinstance(exc, KernelError)
    assert exc.message == "bad 7"


def test_an_unknown_kind_fails_as_a_kernel_error_that_names_it():
    exc = _raised(_site("from_a_newer_version"))
    assert type(exc) is KernelError and exc.message == "from_a_newer_version check failed"
    assert check_kinds.label("from_a_newer_version") == "from_a_newer_version"


def test_reports_label_accesses_alike_for_numba_and_c():
    numba_row = ReportEntry("k", 3, 4, "a[i]", "a", Status.CHECKED, "", kind="load")
    c_row = ReportEntry("k", 3, 4, "a[i]", "a", Status.CHECKED, "", kind="bounds")
    assert numba_row.label == c_row.label == numba_row["label"] == "bounds"
    numba_table = str(CheckReport([numba_row], filename="k.py"))
    c_table = str(CheckReport([c_row], filename="k.py"))
    assert numba_table == c_table and "[load]" not in numba_table
    div = ReportEntry("k", 5, 4, "a // b", "", Status.CHECKED, "", kind="zero_division")
    assert "[zero_division]" in str(CheckReport([div], filename="k.py"))
    assert CheckReport([numba_row, c_row, div]).accesses == [numba_row, c_row]


def test_python_helpers_are_the_rewrite_names():
    # The numba rewrite's checking helpers (frontend/python/names.py) are the registry's.
    recording = set(names.CHECK_HELPERS) - {names.DEVICE}
    registered = set(check_kinds.helpers("python"))
    assert {h for h in registered if not any(h.startswith(r) for r in recording)} == set()
    assert {r for r in recording if not any(h.startswith(r) for h in registered)} == set()
    assert all(k in check_kinds.KINDS for k in failures.MESSAGE_KINDS)
