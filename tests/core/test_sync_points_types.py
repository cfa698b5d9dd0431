"""sync_points.install on the two kinds of owner CuPy needs: a Python class that inherits the
method from an extension base (cupy.ndarray.get comes from the Cython `_ndarray_base`), and an
extension type that refuses setattr (the Cython cdef class cupy.cuda.Device). Stand-ins here:
a plain subclass of a class, and `decimal.Decimal` (a C type nothing else in the test uses).
"""
from __future__ import annotations

import decimal

import pytest

from safekern import runtime, sync_points
from safekern.sync_points import NOT_A_SYNC_POINT, Hook


class Base:
    def value(self, x):
        return ("base", x)


class Derived(Base):
    pass


@pytest.fixture
def pending_calls(monkeypatch):
    """Pretend a checked kernel ran (one pending source) and record what the hooks check."""
    calls = []
    monkeypatch.setattr(runtime, "sync_point", calls.append)
    marker = object()
    runtime._pending.append(marker)
    yield calls
    runtime._pending.remove(marker)
    sync_points.uninstall("test-types")


def test_inherited_method_is_wrapped_on_the_subclass_and_inheritance_resumes(pending_calls):
    assert sync_points.install("test-types", [Hook(Derived, "value",
                                                   lambda args, kwargs: ("target", args[1]))])
    assert "value" in Derived.__dict__ and Base.__dict__["value"] is Base.value
    assert Derived().value(7) == ("base", 7)             # the result is the original's
    assert pending_calls == [("target", 7)]
    assert Base().value(1) == ("base", 1) and pending_calls == [("target", 7)]   # base untouched
    assert sync_points.installed()["test-types"] == ["Derived.value"]
    sync_points.uninstall("test-types")
    assert "value" not in Derived.__dict__ and Derived.value is Base.value


def test_extension_type_that_refuses_setattr(pending_calls):
    original = decimal.Decimal.__dict__["adjusted"]
    assert decimal.Decimal("1.5").adjusted() == 0          # CPython caches the lookup
    with pytest.raises(TypeError):
        decimal.Decimal.adjusted = original             # what plain setattr says
    assert sync_points.install("test-types", [Hook(decimal.Decimal, "adjusted",
                                                   lambda args, kwargs: "decimal")])
    assert decimal.Decimal.__dict__["adjusted"] is not original
    assert decimal.Decimal("123.5").adjusted() == 2
    assert pending_calls == ["decimal"]
    sync_points.install("test-types", [])                  # idempotent: still wrapped once
    assert decimal.Decimal("1").adjusted() == 0 and pending_calls == ["decimal", "decimal"]
    sync_points.uninstall("test-types")
    assert decimal.Decimal.__dict__["adjusted"] is original
    assert decimal.Decimal("123.5").adjusted() == 2 and len(pending_calls) == 2


def test_not_a_sync_point_checks_nothing(pending_calls):
    sync_points.install("test-types", [Hook(Derived, "value",
                                            lambda args, kwargs: NOT_A_SYNC_POINT)])
    assert Derived().value(3) == ("base", 3) and pending_calls == []


def test_special_methods_of_extension_types_are_refused(pending_calls):
    with pytest.raises(TypeError, match="cannot wrap"):
        sync_points.install("test-types", [Hook(decimal.Decimal, "__abs__")])
    assert decimal.Decimal.__dict__["__abs__"] is not None and abs(decimal.Decimal(-1)) == 1
