"""What the rewrite need not emit: versioned loops whose two copies are the same (a launch
variant leaves out the checks of the checked copy), a division check on a divisor numba freezes
to a non-zero constant, a temporary for a pure index of an augmented assignment."""
from tests.support.rewrites import rewrite


def test_a_variant_keeps_one_copy_of_a_versioned_loop(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a, out, n):
            i = cuda.grid(1)
            if i < out.shape[0]:
                s = 0.0
                for j in range(n):
                    s += a[i, j]
                out[i] = s
    """, launch_predicates=True)
    assert rw.source.count("for j in range(n)") == 2          # the checked kernel: versioned
    variant = rw.launch_variant.source
    assert variant.count("for j in range(n)") == 1 and "_sk_extent" not in variant
    assert "_sk_load" not in variant


def test_copies_that_differ_stay_versioned(tmp_path):
    rw = rewrite(tmp_path, """
        def k(a, idx, out, n):
            i = cuda.grid(1)
            if i < out.shape[0]:
                s = 0.0
                for j in range(n):
                    s += a[idx[j]]
                out[i] = s
    """, launch_predicates=True)
    variant = rw.launch_variant.source if rw.launch_variant else rw.source
    assert "_sk_load" in variant                               # a[idx[j]] stays checked


def test_a_division_by_a_frozen_global_constant_is_not_checked(tmp_path):
    """numba freezes a global the kernel never binds into its code (and the kernel cache keys
    on its value): `// TILE` with TILE = 16 cannot divide by zero; a local TILE can."""
    rw = rewrite(tmp_path, """
        ZERO = 0

        def k(a, n):
            a[0] = (n + TILE - 1) // TILE
            a[1] = n // ZERO
    """)
    kinds = {(s.text, str(s.status)) for s in rw.sites if s.kind == "zero_division"}
    assert ("(n + TILE - 1) // TILE", "eliminated") in kinds
    assert ("n // ZERO", "checked") in kinds
    rw = rewrite(tmp_path, """
        def k(a, n):
            TILE = n
            a[0] = n // TILE
    """)
    assert {str(s.status) for s in rw.sites if s.kind == "zero_division"} == {"checked"}


def test_an_augmented_assignment_with_a_pure_index_is_proven_like_an_assignment(tmp_path):
    rw = rewrite(tmp_path, """
        def k(w, out):
            i = cuda.grid(1)
            if i >= 1 and i <= w.shape[0]:
                w[i - 1] += 1.0
    """)
    assert {str(s.status) for s in rw.sites if s.array == "w"} == {"eliminated"}
    assert "_sk_t0 =" not in rw.source


def test_an_augmented_assignment_with_a_call_in_its_index_evaluates_it_once(tmp_path):
    rw = rewrite(tmp_path, """
        def k(w, f):
            w[f(1)] += 1.0
    """)
    assert rw.source.count("f(1)") == 1


def test_a_variant_leaves_out_proven_loads_in_loops(tmp_path):
    """Loads in loops become `_sk_loadv` at the end of the elimination; the launch variant
    leaves out those its predicates prove as it does other loads."""
    rw = rewrite(tmp_path, """
        def k(out):
            tile = cuda.shared.array((TILE, TILE), float32)
            tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
            s = 0.0
            for i in range(4):
                s += tile[ty, tx] * i          # a barrier in the loop: not versioned
                cuda.syncthreads()
            out[0] = s
    """, launch_predicates=True)
    assert "_sk_loadv(tile" in rw.source
    assert "_sk_loadv" not in rw.launch_variant.source and "tile[ty, tx]" in rw.launch_variant.source
