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
    """a pool's start-up made Example 2's sweep 2.9x slower than in-process."""
    calls: list[str] = []
    privacy_sweep(four_startups(), [10.0, 100.0], runs=4, seed=1, workers=2,
                  progress=lambda f, m="": calls.append(m))
    runs = [m for m in calls if m.startswith("k = ")]
    assert calls[0] == "starting" and len(runs) == 2 * 4  # every run reported
    # and between them the cancel points inside each run
    assert sum(m.endswith(": privatising") for m in calls) == 2 * 4


def test_a_large_models_accounting_moves_the_bar_and_a_run_stops_at_its_cancel_points():
    """The accounting of S·A >= 10⁴ rows reports every 8192 rows within the first 20 % of
    the bar; a cancel inside a run (here at its first bounds stage) stops the sweep there."""
    import pytest

    from core.common.progress import Cancelled
    from core.mdp.examples import sparse_random_mdp

    mdp = sparse_random_mdp(12_000, 2, 3, 3, seed=2)
    calls: list[tuple[float, str]] = []

    def progress(fraction: float, message: str = "") -> None:
        calls.append((fraction, message))
        if message.startswith("stage"):  # the robust bounds of the first run
            raise Cancelled()

    with pytest.raises(Cancelled):
        privacy_sweep(mdp, [10.0, 100.0], runs=3, seed=1, workers=1, progress=progress)
    accounting = [f for f, m in calls if m.startswith("accounting")]
    assert len(accounting) >= 2 * 3 and accounting == sorted(accounting)
    assert 0.0 < max(accounting) < 0.2
    assert not any(m.startswith("k = ") for _, m in calls)  # stopped inside run 1
    assert ("run 1: privatising" in [m for _, m in calls])
