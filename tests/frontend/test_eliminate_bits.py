"""Shifts, masks and divisions by non-constant divisors (bits.py, divisions.py), front end only.

Each proven case fails with its rule removed; each kept case is a kernel whose check can fail.
"""

import pytest

from tests.support.rewrites import rewrite


def kinds(rw, kind):
    return [s.status for s in rw.sites if s.kind == kind]


PROVEN = {
    # backprop's reduction: the stride 1 << i is >= 2, so `ty % stride` cannot divide by 0
    "power_of_two_divisor": ("zero_division", """
        def k(out):
            ty = cuda.threadIdx.y
            for i in range(1, 5):
                stride = 1 << i
                if ty % stride == 0:
                    out[0] = 1.0
    """),
    "shape_divisor_under_a_guard": ("zero_division", """
        def k(a, out):
            n = a.shape[0]
            i = cuda.grid(1)
            if n > 0:
                out[0] = i // n
    """),
    "negative_divisor": ("zero_division", """
        def k(a, out):
            d = -a.shape[0]
            i = cuda.grid(1)
            if d < 0:
                out[0] = i % d
    """),
    # a permutation table: `h & 255` is in [0, 255] whatever h is, negative or loaded
    "masked_index": ("load", """
        def k(perm, h, out):
            tile = cuda.shared.array(256, int32)
            out[0] = tile[h & 255] + tile[255 & (h + 7)]
    """),
    "shifted_index": ("load", """
        def k(out):
            tile = cuda.shared.array(64, int32)
            t = cuda.threadIdx.x & 255
            out[0] = tile[t >> 2] + tile[1 << (t & 5)]
    """),
}


@pytest.mark.parametrize("case", sorted(PROVEN))
def test_proven(tmp_path, case):
    kind, body = PROVEN[case]
    rw = rewrite(tmp_path, body)
    statuses = kinds(rw, kind)
    assert statuses and all(s == "eliminated" for s in statuses), (case, statuses, rw.source)


KEPT = {
    "divisor_may_be_zero": ("zero_division", """
        def k(a, out):
            n = a.shape[0]
            i = cuda.grid(1)
            if n >= 0:
                out[0] = i // n
    """),
    "stride_from_zero": ("zero_division", """
        def k(out):
            ty = cuda.threadIdx.y
            for i in range(1, 5):
                if ty % (i - 1) == 0:
                    out[0] = 1.0
    """),
    # 1 << 64 is 0 in int64 (and poison in LLVM): a shift count past 62 proves nothing
    "shift_past_the_width": ("zero_division", """
        def k(out):
            ty = cuda.threadIdx.y
            for i in range(0, 70):
                if ty % (1 << i) == 0:
                    out[0] = 1.0
    """),
    "mask_past_the_table": ("load", """
        def k(h, out):
            tile = cuda.shared.array(256, int32)
            out[0] = tile[h & 256]
    """),
    "negative_mask": ("load", """
        def k(h, out):
            tile = cuda.shared.array(256, int32)
            out[0] = tile[h & -1]
    """),
    "shift_past_the_table": ("load", """
        def k(out):
            tile = cuda.shared.array(64, int32)
            t = cuda.threadIdx.x
            if t < 512:
                out[0] = tile[t >> 3]
    """),
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_kept(tmp_path, case):
    kind, body = KEPT[case]
    rw = rewrite(tmp_path, body)
    statuses = kinds(rw, kind)
    assert statuses and all(s == "checked" for s in statuses), (case, statuses, rw.source)
