"""Body versioning, front end only (frontend/python/body_versioning.py): which functions are
checked once on entry, and which must keep their checks where they are. Running both copies is
in tests/numba/test_body_versioning.py."""
from safekern.frontend.python.body_versioning import MIN_COVERED
from tests.support.rewrites import rewrite

GATHER = """
    def g(Fr, Ft, Fz, iz, ir, w):
        acc = 0.0
        acc += w * Fr[iz, ir]
        acc += w * Ft[iz, ir + 1]
        acc += w * Fz[iz - 1, ir]
        if ir == 0:
            acc += Fr[iz, 0]
        return acc
"""


def test_gather_is_versioned(tmp_path):
    rw = rewrite(tmp_path, GATHER, "g", device=True)
    assert [s.status for s in rw.sites] == ["hoisted"] * 4
    assert all("checked once on entry to the function" in s.reason for s in rw.sites)
    src = rw.source
    # one entry test of every access (`&`: no branch between them), the fast copy first
    assert "if _sk_within(Fr, (iz, ir)) & _sk_within(Ft, (iz, ir + 1)) & " \
           "_sk_within(Fz, (iz - 1, ir)) & _sk_within(Fr, (iz, 0)):" in src
    fast, slow = src.index("acc += w * Fr[iz, ir]"), src.index("acc += w * _sk_load(Fr,")
    assert fast < slow


def test_kernels_are_versioned_too(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a, b, i, j):
            a[i, j] = b[i, j] + b[j, i] + b[i + 1, j - 1]
    """)
    assert {s.status for s in rw.sites} == {"hoisted"}


def test_what_is_not_known_on_entry_keeps_its_checks(tmp_path):
    cases = {
        # the index is assigned in the body
        "assigned": """
            def g(a, i):
                k = i + 1
                return a[k] + a[k + 1] + a[k + 2]
        """,
        # a parameter rebound after the first access
        "rebound": """
            def g(a, i):
                x = a[i] + a[i + 1]
                i += 1
                return x + a[i]
        """,
        # an index that reads memory, calls, or divides (evaluated early it could fail); the
        # loads of `idx` themselves are known on entry
        "load": """
            def g(a, idx, i):
                return a[idx[i]] + a[idx[i + 1]] + a[idx[i + 2]]
        """,
        "call": """
            def g(a, i):
                return a[min(i, 3)] + a[abs(i)] + a[int(i)]
        """,
        "division": """
            def g(a, i, d):
                return a[i // d] + a[i % d] + a[d // i]
        """,
        # a loop: loops are versioned as loops (versioning.py)
        "loop": """
            def g(a, i):
                acc = 0.0
                for k in range(4):
                    acc += a[i] + a[i + 1] + a[i + 2]
                return acc
        """,
        # a warp-level function: the lanes must meet at one call, not one in each copy
        "warp": """
            def g(a, i):
                x = a[i] + a[i + 1] + a[i + 2]
                return cuda.shfl_down_sync(0xFFFFFFFF, x, 1)
        """,
        # the array rebound
        "array": """
            def g(a, b, i):
                x = a[i]
                a = b
                return x + a[i] + a[i + 1]
        """,
    }
    for name, source in cases.items():
        rw = rewrite(tmp_path, source, "g", device=True)
        kept = [s for s in rw.sites if s.array == "a"]
        assert kept and not any("on entry to the function" in s.reason for s in kept), \
            (name, [(s.array, s.status, s.reason) for s in rw.sites])
        assert ("_sk_within" in rw.source) == (name == "load"), name


def test_too_few_accesses_are_not_worth_a_second_copy(tmp_path):
    source = "def g(a, i):\n    return " + \
        " + ".join(f"a[i + {k}]" for k in range(MIN_COVERED - 1)) + "\n"
    rw = rewrite(tmp_path, source, "g", device=True)
    assert {s.status for s in rw.sites} == {"checked"}
    assert "_sk_within" not in rw.source


def test_atomics_keep_their_checks_and_the_rest_is_versioned(tmp_path):
    rw = rewrite(tmp_path, """
        def g(a, out, i):
            x = a[i] + a[i + 1] + a[i + 2]
            cuda.atomic.add(out, i, x)
    """, "g", device=True)
    status = {(s.array, s.kind): s.status for s in rw.sites}
    assert status[("a", "load")] == "hoisted"
    assert [st for (arr, _), st in status.items() if arr == "out"] == ["checked"]
