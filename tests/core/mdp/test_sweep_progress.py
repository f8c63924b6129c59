"""A sweep on a pool reports progress often (issue: it sat at 0 % for seconds)."""

from __future__ import annotations

from core.mdp.examples import four_startups
from core.mdp.sweep import privacy_sweep


def test_a_pooled_sweep_reports_at_least_eight_steps_per_worker_and_k(monkeypatch):
    from core.mdp import sweep

    monkeypatch.setattr(sweep, "SMALL_WORK", 0.0)  # a real pool, however small the model
    calls: list[tuple[float, str]] = []
    privacy_sweep(four_startups(), [10.0, 100.0], runs=32, seed=1, workers=2,
                  progress=lambda f, m="": calls.append((f, m)))
    assert calls[0] == (0.0, "starting 2 worker processes")
    fractions = [f for f, _ in calls[1:]]
    assert len(fractions) >= 2 * 8 * 2 and fractions == sorted(fractions)
    assert fractions[-1] == 1.0


def test_small_work_runs_in_process_whatever_the_workers():
    """Issue 16: a pool's start-up made Example 2's sweep 2.9x slower than in-process."""
    calls: list[str] = []
    privacy_sweep(four_startups(), [10.0, 100.0], runs=4, seed=1, workers=2,
                  progress=lambda f, m="": calls.append(m))
    assert calls[0] == "starting" and len(calls) == 1 + 2 * 4  # every run reported
