"""The race analysis against recorded accesses (tests/support/fuzz_races.py): generated kernels
with barriers, grid syncs, shifts and reflections, each launched once on the simulator as a
recording twin; safekern's verdict for the launch must never be a RaceError where no two
threads conflict, never "free" where two do, and never a mere suspicion for the kernels it must
decide exactly (shifts and reflections, straight-line barriers, modelled guards).

The run is bounded by time (BUDGET_S, measured here), with at least MIN_KERNELS kernels, from
seed 1000 on; a longer run by hand: `python -m tools.fuzz_races --minutes 10`
(tools/fuzz_races.py). What it finds becomes an example in test_races.py (the generator's seeds
change meaning when the generator changes)."""
import time
import warnings

import pytest

from tests.support import fuzz_races
from tests.support.differential import SIMULATOR

BUDGET_S = 25.0
MIN_KERNELS = 40          # at about 0.1-0.3 s each (2 cores), a floor well inside the budget

pytestmark = [pytest.mark.cudasim, pytest.mark.timeout(240),
              pytest.mark.skipif(not SIMULATOR, reason="records accesses on the simulator")]


def _run(seed, tmp_path, bad, counts):
    case = fuzz_races.generate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome, conflict, said = fuzz_races.compare(case, str(tmp_path))
    counts[(said, conflict)] = counts.get((said, conflict), 0) + 1
    if outcome in ("false positive", "unsound") or (outcome == "missed" and case.exact):
        bad[seed] = (outcome, said, conflict, case.source)


def test_race_verdicts_agree_with_recorded_accesses(tmp_path):
    bad, counts = {}, {}
    start = time.monotonic()
    seed, done = 1000, 0
    while done < MIN_KERNELS or time.monotonic() - start < BUDGET_S:
        _run(seed, tmp_path, bad, counts)
        seed += 1
        done += 1
    assert not bad, "\n\n".join(f"seed {s}: {o} (safekern: {v}, conflict: {c})\n{src}"
                                for s, (o, v, c, src) in bad.items())
    # The run saw both sides: launches refused with a proof, and conflict-free launches
    # that ran (a generator drifting to one kind would test nothing).
    assert counts.get(("error", True)) and counts.get(("free", False)), counts
