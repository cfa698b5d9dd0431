"""The time budget of the long randomized tests (tests/support/budget.py; issue 29: a fixed 500
seeds under a fixed 240 s timeout failed on a busy 2-core machine)."""
import pytest

from tests.support.budget import SCALE_VARIABLE, Budget


class FakeClock:
    """Each case takes `per_case` seconds."""

    def __init__(self, per_case):
        self.now, self.per_case = 0.0, per_case

    def __call__(self):
        return self.now

    def tick(self):
        self.now += self.per_case


def _run(budget, clock, start=0):
    seen = []
    for seed in budget.seeds(start):
        seen.append(seed)
        clock.tick()
    return seen


def test_a_slow_machine_still_runs_the_minimum(monkeypatch):
    monkeypatch.delenv(SCALE_VARIABLE, raising=False)
    clock = FakeClock(per_case=5.0)                  # 60 cases would take 300 s here
    budget = Budget(45, at_least=12, clock=clock)
    assert _run(budget, clock) == list(range(12))
    assert budget.ran == 12 and budget.elapsed == 60.0


def test_a_fast_machine_runs_as_many_as_fit(monkeypatch):
    monkeypatch.delenv(SCALE_VARIABLE, raising=False)
    clock = FakeClock(per_case=0.1)
    budget = Budget(45, at_least=12, clock=clock)
    seen = _run(budget, clock, start=100)
    assert seen == list(range(100, 100 + len(seen)))
    assert 440 <= len(seen) <= 450 and budget.elapsed <= 45 + 1e-9
    assert budget.rate == pytest.approx(10.0)


def test_at_most_caps_and_the_scale_multiplies(monkeypatch):
    monkeypatch.setenv(SCALE_VARIABLE, "2")
    clock = FakeClock(per_case=1.0)
    assert len(_run(Budget(10, at_least=1, clock=clock), clock)) == 20
    clock = FakeClock(per_case=1.0)
    assert len(_run(Budget(10, at_least=1, at_most=5, clock=clock), clock)) == 5
    monkeypatch.setenv(SCALE_VARIABLE, "0")          # the minimum only
    clock = FakeClock(per_case=1.0)
    assert len(_run(Budget(10, at_least=3, clock=clock), clock)) == 3
    monkeypatch.setenv(SCALE_VARIABLE, "lots")
    with pytest.raises(ValueError, match=SCALE_VARIABLE):
        Budget(10, at_least=3)


def test_no_long_randomized_test_runs_a_fixed_count():
    """The fuzz and kill loops take their counts from a Budget (the fixed counts are gone)."""
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    for name in ("frontend/test_fuzz_elimination.py", "cache/test_cache_crash.py"):
        text = (tests / name).read_text()
        assert "Budget(" in text, name
        for fixed in ("NUMBA_KERNELS", "OPENCL_KERNELS", "LAUNCH_KERNELS", "ROUNDS_UNBOUNDED"):
            assert fixed not in text, (name, fixed)
