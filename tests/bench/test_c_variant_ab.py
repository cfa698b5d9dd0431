"""tools/c_variant_ab.py without a GPU: every variant text of spmv_csr and bfs_step (CI sizes)
is an edit of what safekern launches, builds with NVRTC for sm_90, and does what its name says
in the one place the CPU can see it (the cold path's calls); an edit that no longer applies
(the rewrite changed) stops the tool instead of timing `current` twice."""
import sys

import pytest

pytest.importorskip("clang.cindex")
sys.path.insert(0, ".")

from tools import c_variant_ab as ab  # noqa: E402


def _nvrtc():
    from safekern.backends.cupy import nvrtc

    try:
        nvrtc.library()
    except Exception as err:      # noqa: BLE001 -- no NVRTC here
        pytest.skip(f"NVRTC not available: {err}")


def test_every_variant_builds_and_is_an_edit_of_the_launched_text():
    _nvrtc()
    rows = {(c, v): r for c, v, *r in ab.compile_rows(ab.CASES, quick=True)}
    for case in ab.CASES:
        names = [v for c, v in rows if c == case]
        assert names[:2] == ["plain", "current"] and len(names) >= 5, names
        current = rows[case, "current"][1]
        assert "__sk_fb" in current and "__sk_fb" not in rows[case, "plain"][1]
        for v in names[2:]:
            note, text, regs, _spill, _calls, _loops = rows[case, v]
            assert text != current and regs, (case, v)
            assert ("UNSOUND" in note) == (v in ("scan+unclamped", "clamp-only", "clamp-flag",
                                                 "clamp-flag+nlist")), (case, v, note)
        # the cold path: a call today; none when __sk_fail is inlined or only flags
        assert rows[case, "current"][4] > 0
        assert rows[case, "fail-inline"][4] == 0
    assert rows["spmv_csr", "fail-flag"][4] == 0


def test_an_edit_that_does_not_apply_stops_the_tool():
    launch = ab.Launch("spmv_csr", True)
    unversioned = launch.current.replace("long long __sk_lo", "long long __sk_xx")
    with pytest.raises(SystemExit, match="not versioned"):
        ab.spmv_variants(unversioned)
    bfs = ab.Launch("bfs_step", True).current
    with pytest.raises(SystemExit, match="rewrite changed"):
        ab.bfs_variants(bfs.replace("g.nlist", "g.other"))
