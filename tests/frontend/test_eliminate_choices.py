"""Elimination through `min`, `max`, `x if c else y` (choice atoms), boolean single definitions
and range variables bounded by the assumed iteration count -- front end only. Every KEPT kernel
can index out of bounds for some input, so its check must stay."""

import pytest

from tests.support.rewrites import rewrite


def statuses(rw):
    return [(s.array, s.kind, s.status) for s in rw.sites]


def status_of(rw, array):
    return [s.status for s in rw.sites if s.array == array]


PROVEN = {
    # hotspot's neighbours: n = max(ty - 1, ymin), s = min(ty + 1, ymax) inside the guard
    "hotspot_neighbours": """
        def k(out, it, ymin, ymax):
            t = cuda.shared.array(16, float32)
            ty = cuda.threadIdx.y
            n = max(ty - 1, ymin)
            s = min(ty + 1, ymax)
            for i in range(it):
                if ty >= i + 1 and ty <= 14 - i and ty >= ymin and ty <= ymax:
                    out[0] = t[n] + t[s]
    """,
    # pathfinder: the guard's facts through a boolean single definition
    "boolean_definition": """
        def k(out, xmin, xmax):
            t = cuda.shared.array(256, float32)
            tx = cuda.threadIdx.x
            w = max(tx - 1, xmin)
            e = min(tx + 1, xmax)
            ok = tx >= xmin and tx <= xmax
            if tx >= 1 and tx <= 254 and ok:
                out[0] = t[w] + t[e]
    """,
    "clamp_with_known_extent": """
        def k(a, i):
            n = a.shape[0]
            if n >= 1:
                a[min(max(i, 0), n - 1)] = 1
    """,
    "clamp_through_names": """
        def k(a):
            i = cuda.grid(1)
            n = a.shape[0]
            lo = max(i - 1, 0)
            hi = min(i + 1, n - 1)
            if i < n:
                a[lo] = a[hi]
    """,
    "three_arguments": """
        def k(a, x, y):
            n = a.shape[0]
            j = min(x, y, n - 1)
            if x >= 0 and y >= 0 and n >= 1:
                a[j] = 1
    """,
    "conditional_index": """
        def k(a):
            i = cuda.grid(1)
            n = a.shape[0]
            if i < n:
                a[i + 1 if i + 1 < n else i] = 1
    """,
    "conditional_definition": """
        def k(a):
            i = cuda.grid(1)
            n = a.shape[0]
            j = i - 1 if i >= 1 else 0
            if i < n:
                a[j] = 1
    """,
    "shared_bounds_of_branches": """
        def k(out, c):
            t = cuda.shared.array(32, float32)
            tx = cuda.threadIdx.x % 16
            j = tx if c > 0 else tx + 16
            out[0] = t[j]
    """,
    "assigned_not_single": """
        def k(a, m):
            i = cuda.grid(1)
            n = a.shape[0]
            j = 0
            if i < n:
                j = max(i - 1, 0)
                a[j] = 1
            j = m
    """,
    "range_variable_plus_one": """
        def k(out, it):
            t = cuda.shared.array(16, float32)
            tx = cuda.threadIdx.x
            for i in range(it):
                if tx >= i + 1 and tx <= 14 - i:
                    out[0] = t[tx + 1] + t[tx - 1]
    """,
}


@pytest.mark.parametrize("case", sorted(PROVEN))
def test_proven_choice_sites_are_eliminated(tmp_path, case):
    rw = rewrite(tmp_path, PROVEN[case])
    target = [s for s in rw.sites if s.array in ("a", "t")]
    assert target, case
    assert all(s.status == "eliminated" and s.reason for s in target), \
        (case, statuses(rw), rw.source)


KEPT = {
    # min(i + 1, n) against an axis of n: i + 1 == n when i == n - 1
    "min_reaches_the_extent": """
        def k(a):
            i = cuda.grid(1)
            n = a.shape[0]
            if i < n:
                a[min(i + 1, n)] = 1
    """,
    # the clamp is -1 for an empty array (a[-1] of nothing)
    "clamp_of_an_empty_axis": """
        def k(a, i):
            n = a.shape[0]
            a[min(max(i, 0), n - 1)] = 1
    """,
    # max(i - 1, -1) is -1 at i = 0: numba wraps it to the last element, but for n == 0 ...
    "max_with_a_negative_floor": """
        def k(a):
            i = cuda.grid(1)
            if i < a.shape[0]:
                a[max(i - 1, -1)] = 1
    """,
    # an upper bound of max() needs every argument bounded
    "max_upper_needs_both": """
        def k(a, x):
            i = cuda.grid(1)
            if i < a.shape[0]:
                a[max(i, x)] = 1
    """,
    # a lower bound of min() needs every argument bounded
    "min_lower_needs_both": """
        def k(a, x):
            i = cuda.grid(1)
            if i < a.shape[0]:
                a[min(i, x)] = 1
    """,
    # j is reassigned after the clamp: the clamp says nothing about the new value
    "reassigned_after_clamp": """
        def k(a, m):
            i = cuda.grid(1)
            n = a.shape[0]
            if i < n:
                j = max(i - 1, 0)
                j = j + m
                a[j] = 1
    """,
    # min(x, y, n - 1) is -1 for an empty axis
    "min_of_three_on_an_empty_axis": """
        def k(a, x, y):
            n = a.shape[0]
            j = min(x, y, n - 1)
            if x >= 0 and y >= 0:
                a[j] = 1
    """,
    # a name bound twice is no single definition
    "bound_twice": """
        def k(a, m):
            i = cuda.grid(1)
            n = a.shape[0]
            j = min(i, n - 1)
            if m > 0:
                j = m
            if i < n:
                a[j] = 1
    """,
    # a `min` that is not the builtin
    "shadowed_min": """
        def k(a):
            i = cuda.grid(1)
            min = 7
            n = a.shape[0]
            if i < n:
                a[i + 0 * min] = 1
                a[n - 1 - min] = 1
    """,
    # the wrong branch of a conditional is out of bounds
    "conditional_wrong_branch": """
        def k(a):
            i = cuda.grid(1)
            n = a.shape[0]
            if i < n:
                a[i + 1 if i < n else i] = 1
    """,
    # the condition's variable is reassigned between the definition and the access
    "conditional_condition_reassigned": """
        def k(a, m):
            i = cuda.grid(1)
            n = a.shape[0]
            c = 0
            j = i + 1 if i + 1 < n - c else 0
            c = m
            a[j] = 1
    """,
    # a boolean bound twice gives no facts
    "boolean_bound_twice": """
        def k(a, x):
            i = cuda.grid(1)
            ok = i < a.shape[0]
            if x > 0:
                ok = True
            if ok:
                a[i] = 1
    """,
    # a range variable plus a large constant may be past any array
    "range_variable_wraps_nothing": """
        def k(a, it):
            for i in range(it):
                a[i + 1] = 1
    """,
    # int64 wrap: the clamp's argument 2**62 * x is not exact arithmetic
    "clamp_of_wrapping_product": """
        def k(a, x):
            n = a.shape[0]
            if n >= 1:
                a[min(max(4611686018427387904 * x + 5, 0), n - 1) + 0 * x] = 1
                a[max(4611686018427387904 * x, 0)] = 1
    """,
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_near_misses_keep_their_check(tmp_path, case):
    rw = rewrite(tmp_path, KEPT[case])
    target = [s for s in rw.sites if s.array == "a"]
    assert target and any(s.status in ("checked", "hoisted") for s in target), \
        (case, statuses(rw), rw.source)
    if case not in ("shadowed_min", "clamp_of_wrapping_product"):
        assert all(s.status in ("checked", "hoisted") for s in target), \
            (case, statuses(rw), rw.source)


def test_shadowed_min_is_not_a_choice(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a):
            i = cuda.grid(1)
            n = a.shape[0]
            j = min(i, n - 1)
            if i < n:
                a[j] = 1
    """.replace("def k(a):", "def k(a, min):"))
    assert status_of(rw, "a") == ["checked"]


def test_typed_only_choice_gives_no_comparison_facts(tmp_path):
    # x may be a uint64: max(i, x) is then a float64 (rounded above 2**53), and `m < n` says
    # nothing exact about i
    rw = rewrite(tmp_path, """
        def k(a, x):
            i = cuda.grid(1)
            m = max(i, x)
            if m < a.shape[0]:
                a[i] = 1
    """)
    assert status_of(rw, "a") == ["checked"]


def test_integer_choice_in_a_guard_bounds_its_arguments(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a):
            i = cuda.grid(1)
            j = cuda.threadIdx.x
            m = max(i, j)
            if m < a.shape[0]:
                a[i] = a[j]
    """)
    assert status_of(rw, "a") == ["eliminated", "eliminated"], statuses(rw)


def test_reason_names_the_min_and_the_condition(tmp_path):
    rw = rewrite(tmp_path, PROVEN["clamp_through_names"])
    reasons = " ".join(s.reason for s in rw.sites if s.array == "a")
    assert "the guard at line" in reasons


def test_clamp_of_an_empty_axis_is_proven_at_launch(tmp_path):
    rw = rewrite(tmp_path, KEPT["clamp_of_an_empty_axis"], launch_predicates=True)
    [entry] = [s for s in rw.sites if s.array == "a"]
    assert entry.status == "proven at launch" and "a.shape[0] >= 1" in entry.reason, entry
    assert [p.text() for p in rw.launch_predicates] == ["a.shape[0] >= 1"]
