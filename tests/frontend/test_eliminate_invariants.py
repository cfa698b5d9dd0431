"""Bounds a variable keeps through every assignment (invariants.py): the scans' `d *= 2` and the
tree reductions' `s //= 2` -- front end only. Every KEPT kernel can index out of bounds (or wrap
around) for some input, so its check must stay."""

import pytest

from tests.support.rewrites import rewrite


def status_of(rw, array):
    return [s.status for s in rw.sites if s.array == array]


PROVEN = {
    "hillis_steele_scan": """
        def k(x):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            d = 1
            while d < cuda.blockDim.x:
                v = 0.0
                if tid >= d:
                    v = sm[tid - d]
                cuda.syncthreads()
                d *= 2
            x[0] = v
    """,
    "tree_reduction": """
        def k(x):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            s = cuda.blockDim.x // 2
            while s > 0:
                if tid < s:
                    sm[tid] += sm[tid + s]
                cuda.syncthreads()
                s //= 2
            x[0] = sm[0] if tid < 1024 else 0.0
    """,
    "accumulated_offset": """
        def k(x, n):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            off = 0
            while off < 512:
                if tid >= off:
                    x[0] = sm[tid - off]
                off += 3
    """,
}


@pytest.mark.parametrize("case", sorted(PROVEN))
def test_kept_bounds_prove_the_loop_accesses(tmp_path, case):
    rw = rewrite(tmp_path, PROVEN[case])
    assert status_of(rw, "sm") and all(s == "eliminated" for s in status_of(rw, "sm")), \
        (case, [(s.array, s.status) for s in rw.sites], rw.source)


KEPT = {
    # doubling without a bound may wrap to a negative d on the GPU (int64)
    "unbounded_doubling": """
        def k(x, n):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            d = 1
            while d < n:
                if tid >= d:
                    x[0] = sm[tid - d]
                d *= 2
    """,
    # s *= 2 grows: the first value is no upper bound
    "growing_half": """
        def k(x):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            s = cuda.blockDim.x // 2
            while s > 0 and s < 4096:
                if tid < s:
                    x[0] = sm[tid + s]
                s *= 2
    """,
    # d //= 2 from 1 reaches 0: 1024 - d is out of bounds then
    "halving_from_one": """
        def k(x, n):
            sm = cuda.shared.array(1024, float32)
            d = 1
            for j in range(n):
                x[0] = sm[1024 - d]
                d //= 2
    """,
    # d is also a loop target: the loop's values are not the assignments'
    "also_a_loop_target": """
        def k(x, n):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            d = 1
            for d in range(-5, n):
                pass
            if tid >= d:
                x[0] = sm[tid - d]
            d *= 2
    """,
    # off += 3 with no bound on off where it is updated: it might wrap (an unknown count)
    "unbounded_where_updated": """
        def k(x, n):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            off = 0
            for j in range(n):
                if tid >= off and off < 512:
                    x[0] = sm[tid - off]
                off += 3
    """,
    # a step that may be negative
    "unknown_step": """
        def k(x, n):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            d = 1
            while d < 512:
                if tid >= d:
                    x[0] = sm[tid - d]
                d += n
    """,
    # a plain reassignment below the first value
    "reassigned_lower": """
        def k(x, n):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            d = 1
            while d < 512:
                if tid >= d:
                    x[0] = sm[tid - d]
                d *= 2
                if n > 3:
                    d = -1
    """,
    # the upper bound's value reads a rebound name
    "upper_of_a_rebound_name": """
        def k(x, m):
            sm = cuda.shared.array(1024, float32)
            tid = cuda.threadIdx.x
            w = cuda.blockDim.x
            s = w // 2
            w = m
            while s > 0:
                if tid < s:
                    x[0] = sm[tid + s]
                s //= 2
    """,
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_near_misses_keep_their_check(tmp_path, case):
    rw = rewrite(tmp_path, KEPT[case])
    assert status_of(rw, "sm") and all(s == "checked" for s in status_of(rw, "sm")), \
        (case, [(s.array, s.status) for s in rw.sites], rw.source)


def test_a_reduction_into_a_smaller_tile_is_proven_at_launch(tmp_path):
    rw = rewrite(tmp_path, """
        def k(x):
            sm = cuda.shared.array(256, float32)
            tid = cuda.threadIdx.x
            s = cuda.blockDim.x // 2
            while s > 0:
                if tid < s:
                    x[0] = sm[tid + s]
                cuda.syncthreads()
                s //= 2
    """, launch_predicates=True)
    [entry] = [s for s in rw.sites if s.array == "sm"]
    assert entry.status == "proven at launch" and "blockDim.x <= 256" in entry.reason


# -- range loops with a negative constant step: hi < v <= lo ---------------------------------

def test_a_falling_range_bounds_its_variable(tmp_path):
    rw = rewrite(tmp_path, """
        def k(x):
            sm = cuda.shared.array(16, float32)
            tx = cuda.threadIdx.x
            for m in range(14, -1, -1):
                if tx <= m:
                    x[0] = sm[m - tx] + sm[m + 1]
    """)
    assert status_of(rw, "sm") == ["eliminated", "eliminated"], rw.source


@pytest.mark.parametrize("header", ["range(16, -1, -1)", "range(15, -2, -1)",
                                    "range(15, -1, s)", "range(15, m, -1)"])
def test_falling_range_near_misses_keep_their_check(tmp_path, header):
    rw = rewrite(tmp_path, f"""
        def k(x, s, m):
            sm = cuda.shared.array(16, float32)
            for v in {header}:
                x[0] = sm[v]
    """)
    assert status_of(rw, "sm") == ["checked"], rw.source


def test_a_falling_range_variable_reassigned_in_the_body_gives_nothing(tmp_path):
    rw = rewrite(tmp_path, """
        def k(x, s):
            sm = cuda.shared.array(16, float32)
            for v in range(15, -1, -1):
                v = v + s
                x[0] = sm[v]
    """)
    assert status_of(rw, "sm") == ["checked"], rw.source
