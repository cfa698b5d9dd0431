"""Check elimination and loop versioning, front end only: which sites are proven, which stay.

A site may be eliminated only on a proof; every negative case here is a kernel whose access
can fail, so its check must stay. Running kernels (both copies of a versioned loop) is in
test_numba_kernels.py.
"""

import re

import pytest

from tests.support.rewrites import rewrite


def statuses(rw):
    return [(s.array, s.kind, s.status) for s in rw.sites]


# -- proven: the check goes ---------------------------------------------------------------------

PROVEN = {
    "guard": """
        def k(a, out):
            i = cuda.grid(1)
            if i < a.shape[0] and i < out.shape[0]:
                out[i] = a[i]
    """,
    "early_return": """
        def k(a):
            i = cuda.grid(1)
            n = a.shape[0]
            if i >= n:
                return
            a[i] = 0
    """,
    "chained_compare": """
        def k(a, i):
            if 0 <= i < a.shape[0]:
                a[i] = 1
    """,
    "unpacked_shape_and_grid": """
        def k(u, out):
            j, i = cuda.grid(2)
            n, m = u.shape
            if i >= 1 and i < n - 1 and j >= 1 and j < m - 1:
                out_v = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
    """,
    "range_of_shape": """
        def k(a, out):
            acc = 0
            for r in range(a.shape[0]):
                for c in range(1, a.shape[1]):
                    acc += a[r, c]
    """,
    "grid_stride": """
        def k(x):
            acc = 0
            for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
                acc += x[i]
    """,
    "shared_constant_shape": """
        def k(out):
            sm = cuda.shared.array((TILE, 4), float32)
            for r in range(TILE):
                for c in range(4):
                    sm[r, c] = 0
            sm[TILE - 1, 3] = 1
    """,
    "and_short_circuit": """
        def k(f):
            u = cuda.grid(1)
            if u < f.shape[0] and f[u] != 0:
                pass
    """,
    "continue_guard": """
        def k(a, idx):
            for t in range(idx.shape[0]):
                j = idx[t]
                if j < 0 or j >= a.shape[0]:
                    continue
                a[j] = 1
    """,
    "ifexp": """
        def k(a, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = a[i] if i < a.shape[0] else 0
    """,
}


@pytest.mark.parametrize("case", sorted(PROVEN))
def test_proven_sites_are_eliminated(tmp_path, case):
    rw = rewrite(tmp_path, PROVEN[case])
    assert rw.sites, case
    kept = [s for s in rw.sites if s.status != "eliminated" and s.array not in ("idx",)]
    assert not kept, (case, statuses(rw), rw.source)
    for s in rw.sites:
        if s.status == "eliminated":
            assert s.reason


def test_continue_guard_keeps_the_data_dependent_load(tmp_path):
    rw = rewrite(tmp_path, PROVEN["continue_guard"])
    assert ("idx", "load", "eliminated") in statuses(rw)     # t in range(idx.shape[0])
    assert ("a", "store", "eliminated") in statuses(rw)      # j checked against a.shape[0]


def test_reason_names_the_guard_line(tmp_path):
    rw = rewrite(tmp_path, PROVEN["guard"])
    reasons = {s.array: s.reason for s in rw.sites}
    assert reasons["a"].startswith("proved by the guard at line ")


# -- not proven: the check stays ------------------------------------------------------------------

KEPT = {
    "guard_on_other_array": """
        def k(a, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = a[i]
    """,
    "off_by_one": """
        def k(a):
            i = cuda.grid(1)
            if i <= a.shape[0]:
                a[i] = 0
    """,
    "range_one_too_far": """
        def k(a):
            for r in range(a.shape[0] + 1):
                a[r] = 0
    """,
    "reassigned_after_guard": """
        def k(a, j):
            i = cuda.grid(1)
            if i < a.shape[0]:
                i = i + j
                a[i] = 0
    """,
    "modified_in_loop": """
        def k(a):
            i = cuda.grid(1)
            if i < a.shape[0]:
                for t in range(3):
                    a[i] = 0
                    i += 1
    """,
    "unknown_sign": """
        def k(a, j):
            if j < a.shape[0]:
                a[j] = 0
    """,
    "minus_one_without_lower_bound": """
        def k(a):
            i = cuda.grid(1)
            if i < a.shape[0]:
                a[i - 1] = 0
    """,
    "disjunction": """
        def k(a, b):
            i = cuda.grid(1)
            if i < a.shape[0] or i < b.shape[0]:
                a[i] = b[i]
    """,
    "shared_with_thread_index": """
        def k(out):
            sm = cuda.shared.array(TILE, float32)
            sm[cuda.threadIdx.x] = 0
    """,
    "loop_bound_changes_in_loop": """
        def k(a, n):
            m = n
            for r in range(m):
                a[r] = 0
    """,
    "data_dependent": """
        def k(a, idx):
            i = cuda.grid(1)
            if i < idx.shape[0]:
                a[idx[i]] = 0
    """,
    "shadowed_range": """
        def k(a):
            range = 5
            for r in (1, 2):
                a[r] = 0
    """,
    "negated_guard_fallthrough": """
        def k(a):
            i = cuda.grid(1)
            if i >= a.shape[0]:
                pass
            a[i] = 0
    """,
    # -- issue 17's audit: each case was eliminated or hoisted before its rule was fixed ----------
    "range_bound_is_the_old_loop_variable": """
        def k(a, n):
            j = n
            for j in range(j):              # j < j: a contradiction, enough for the off by one
                if j <= a.shape[0]:
                    a[j] = 0
    """,
    "walrus_rebinds_after_the_guard": """
        def k(a):
            i = cuda.grid(1)
            if 0 <= i < a.shape[0] and (i := i + 5) > 0:
                a[i] = 0
    """,
    "walrus_in_a_later_operand": """
        def k(a, out):
            i = cuda.grid(1)
            if 0 <= i < a.shape[0] and ((i := i + 9) + a[i]) > 0:
                out[0] = 1
    """,
    "walrus_in_a_conditional_expression": """
        def k(a, out):
            i = cuda.grid(1)
            out[0] = ((i := i + 9) + a[i]) if 0 <= i < a.shape[0] else 0
    """,
    "walrus_in_a_while_condition": """
        def k(a):
            i = cuda.grid(1)
            while 0 <= i < a.shape[0] and (i := i + 1) > 0:
                a[i] = 0
    """,
    "starred_unpacking": """
        def k(a):
            *rest, m = a.shape              # 3-D a: m is a.shape[2], not a.shape[1]
            for r in range(a.shape[0]):
                for k in range(m):
                    a[r, k] = 0
    """,
    "inner_loop_reuses_the_name": """
        def k(a):
            for k in range(a.shape[0] - 1):
                for k in range(a.shape[0] + 5):
                    pass
                a[k + 1] = 0
    """,
    "tuple_swap_of_the_loop_variable": """
        def k(a, j):
            for k in range(a.shape[0]):
                k, j = j, k
                a[k] = 0
    """,
    "array_rebound_in_the_loop": """
        def k(a, b):
            for k in range(a.shape[0]):
                a[k] = 0
                a = b
    """,
    "negative_step": """
        def k(a):
            for k in range(a.shape[0], -1, -1):
                a[k] = 0
    """,
    "early_exit_that_does_not_dominate": """
        def k(a, c):
            i = cuda.grid(1)
            if i >= a.shape[0]:
                if c > 0:
                    return              # not every path through the branch leaves
            a[i] = 0
    """,
    "parameter_arithmetic_may_wrap": """
        def k(a, n):
            i = cuda.grid(1)
            if i + n < a.shape[0] and n >= 0:     # i + n wraps for n near 2**63
                a[i] = 0
    """,
    "loaded_value_arithmetic_may_wrap": """
        def k(a, idx):
            v = idx[0]
            if v + 1 < a.shape[0] and v >= 0:     # int32 v + 1 wraps on the simulator
                a[v] = 0
    """,
    "float_bound": """
        def k(a, x):
            i = cuda.grid(1)
            if i < x and x - 1 < a.shape[0]:      # x = 10.5, shape 10: i = 10 passes both
                a[i] = 0
    """,
    "a_second_load_of_the_guarded_index": """
        def k(a, idx):
            t = cuda.grid(1)
            if 0 <= idx[t] < a.shape[0]:
                a[idx[t]] = 0       # loaded again: a device function or thread may have written it
    """,
    "negative_index_in_range": """
        def k(a, i):
            if -a.shape[0] <= i < 0:
                a[i] = 0            # valid (it wraps), but only non-negative indices are proven
    """,
    "versioning_with_the_array_rebound": """
        def k(a, b):
            s = 0
            for k in range(a.shape[0] - 1):
                s += a[k + 1]
                a = b
    """,
    "rebound_by_a_nested_function": """
        def k(a):
            i = cuda.grid(1)
            def bump():
                nonlocal i
                i += 10
            if 0 <= i < a.shape[0]:
                bump()              # i is i + 10 now
                a[i] = 0
    """,
    "non_strict_between_unknown_values": """
        def k(a, j, n):
            if 0 <= j and j <= n and n < a.shape[0]:   # j, n uint64 and int64: compared in float64
                a[j] = 0
    """,
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_unproven_sites_keep_their_check(tmp_path, case):
    rw = rewrite(tmp_path, KEPT[case])
    target = [s for s in rw.sites if s.array in ("a", "sm")]
    assert target and all(s.status in ("checked", "hoisted") for s in target), \
        (case, statuses(rw), rw.source)
    assert all(f"{s.code}," in rw.source for s in target)     # the check call is there


def test_guard_on_other_array_keeps_only_the_unproven_one(tmp_path):
    rw = rewrite(tmp_path, KEPT["guard_on_other_array"])
    assert dict((s.array, s.status) for s in rw.sites) == {"a": "checked", "out": "eliminated"}


# -- loop versioning ------------------------------------------------------------------------------

def test_loop_is_versioned_with_checked_copy(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a, b, c):
            col, row = cuda.grid(2)
            if row < c.shape[0] and col < c.shape[1]:
                acc = float32(0.0)
                for k in range(a.shape[1]):
                    acc += a[row, k] * b[k, col]
                c[row, col] = acc
    """)
    src = rw.source
    assert {s.array: s.status for s in rw.sites} == {"a": "hoisted", "b": "hoisted",
                                                      "c": "eliminated"}
    # the fast copy first, the checked copy in the else branch
    # (the checked copy's checks end the thread: exit_mode.py)
    fast, slow = src.index("acc += a[row, k] * b[k, col]"), src.index("acc += _sk_load_exit(a,")
    assert fast < slow
    assert "if 0 >= a.shape[1] or (" in src
    assert "_sk_extent(b, 0)" in src and "_sk_extent(b, 1)" in src


def test_versioning_hoists_impure_range_bounds_once(tmp_path):
    rw = rewrite(tmp_path, """
        def k(indptr, data, y):
            row = cuda.grid(1)
            if row < y.shape[0]:
                acc = 0
                for k in range(indptr[row], indptr[row + 1]):
                    acc += data[k]
                y[row] = acc
    """)
    src = rw.source
    assert len(re.findall(r"_sk_loadv?\(indptr,", src)) == 2   # evaluated once, into temporaries
    assert "for k in range(_sk_t0, _sk_t1):" in src
    assert {s.array: s.status for s in rw.sites}["data"] == "hoisted"


def test_no_versioning_across_barriers_or_with_nonunit_unknown_steps(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a, s):
            for r in range(a.shape[0] + 2):
                a[r] = 0
                cuda.syncthreads()
            for r in range(0, 10, s):
                a[r] = 0
    """)
    assert {s.status for s in rw.sites} == {"checked"}, rw.source


# -- what the benchmark kernels rely on ---------------------------------------------------------

def test_tile_loop_with_a_module_constant_divisor_keeps_its_proofs(tmp_path):
    # range((n + TILE - 1) // TILE) is a checked division (TILE is not a literal): its value is
    # still known, so k = t * TILE + tx is exact and a[row, k] proven by the guard.
    rw = rewrite(tmp_path, """
        def k(a, c):
            tx = cuda.threadIdx.x
            row = cuda.blockIdx.y * TILE + cuda.threadIdx.y
            n = a.shape[1]
            acc = float32(0.0)
            for t in range((n + TILE - 1) // TILE):
                k = t * TILE + tx
                if row < a.shape[0] and k < n:
                    acc += a[row, k]
            c[0, 0] = acc
    """)
    assert [s.status for s in rw.sites if s.array == "a"] == ["eliminated"], rw.source


def test_atomic_merge_loop_in_a_kernel_with_barriers_is_hoisted(tmp_path):
    rw = rewrite(tmp_path, """
        def k(bins):
            local = cuda.shared.array(256, float32)
            tid = cuda.threadIdx.x
            for b in range(tid, 256, cuda.blockDim.x):
                local[b] = 0
            cuda.syncthreads()
            for b in range(tid, 256, cuda.blockDim.x):
                cuda.atomic.add(bins, b, local[b])
    """)
    atomic = [s for s in rw.sites if s.kind == "atomic"]
    assert [s.status for s in atomic] == ["hoisted"], rw.source
    # the copy without checks still runs the atomic only while the thread's flag is clear
    assert "if _sk_flag[0] == 0:" in rw.source and "_sk_cuda.atomic.add(bins, b" in rw.source


def test_rewriting_again_leaves_the_visitors_method_table_as_it_was(tmp_path):
    """A pass class made per call (versioning's substitution once was) stayed in
    visitor._METHODS for good: a long-running process rewriting kernels grew without end."""
    from safekern.frontend.python import visitor

    source = """
        def k(a, b, n):
            i = cuda.grid(1)
            if i < a.shape[0]:
                acc = 0.0
                for j in range(i, i + n):
                    acc += b[j]
                a[i] = acc
    """
    first = rewrite(tmp_path, source)
    assert any(s.status == "hoisted" for s in first.sites)       # (a versioned loop)
    size = len(visitor._METHODS)
    for _ in range(3):
        rewrite(tmp_path, source)
    assert len(visitor._METHODS) == size
