"""the teacher's budget covers everything one command (and one project)
releases, not one student run.

One ``share`` command runs seeds × noisy student types; each noisy run receives its own
Dirichlet draws of the same teacher's policy, so all of them spend the teacher's budget.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from core.cli.main import run_cli
from core.mdp.model import MDP
from core.sharing.learning import SharingSetup, run_sharing
from core.sharing.records import MECHANISM, sharing_entries


def _chain(n: int = 6) -> MDP:
    P = np.zeros((n, 2, n))
    for s in range(n):
        P[s, 0, max(s - 1, 0)] = 1.0
        P[s, 1, min(s + 1, n - 1)] = 0.9
        P[s, 1, s] += 0.1
    R = np.zeros((n, 2))
    R[n - 2, 1] = 1.0
    return MDP(P=P, R=R, horizon=None, discount=0.9)


def _released(entries) -> tuple[float, float]:
    """What the noisy demonstrations of a run release, from its ledger entries."""
    noisy = [e for e in entries if e.mechanism == MECHANISM]
    return (math.fsum(e.count * e.epsilon for e in noisy),
            math.fsum(e.count * e.delta for e in noisy))


# 6 reachable states, ε ≈ 9.5 per query at k = 20: a roll-out for 6 noisy runs costs ≈ 340
SETUP = SharingSetup(k0=20, coef=0.9, eta=0.1, lb=0.01, delta=1e-3, budget=(1500.0, 0.9),
                     iterations=30, draws=5000)


def test_the_budget_holds_over_every_noisy_run():
    res = run_sharing(_chain(), SETUP, seeds=3, seed=1)
    E, D = SETUP.budget
    e, d = _released(sharing_entries("mdp:chain", res, source="run-1"))
    assert e > 0 and e <= E + 1e-9 and d <= D + 1e-12
    total = res.to_dict()["ledger_total"]
    assert total["epsilon"] == pytest.approx(e) and total["delta"] == pytest.approx(d)
    assert total["runs"] == 6                     # aware and unaware, 3 seeds each
    # the teacher stopped because one more roll-out for all 6 runs would pass the budget
    led = res.ledger
    assert led.stopped_at is not None
    # the same command with one noisy run sends more roll-outs: the budget is shared
    one = run_sharing(_chain(), SETUP, seeds=1, seed=1, students=["aware"])
    assert len([r for r in one.ledger.rows if not r.stopped]) > len(
        [r for r in led.rows if not r.stopped])


def test_project_spend_counts_against_the_teacher_budget():
    spent = (400.0, 0.1)
    res = run_sharing(_chain(), SETUP, seeds=3, seed=1, spent=spent)
    e, d = _released(sharing_entries("mdp:chain", res, source="run-1"))
    assert spent[0] + e <= SETUP.budget[0] + 1e-9 and spent[1] + d <= SETUP.budget[1] + 1e-12
    out = res.to_dict()
    assert out["spent_before"] == {"epsilon": 400.0, "delta": 0.1}
    fresh = run_sharing(_chain(), SETUP, seeds=3, seed=1)
    assert e < _released(sharing_entries("mdp:chain", fresh, source="run-1"))[0]


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return run_cli(list(argv), out, err), out.getvalue(), err.getvalue()


def test_issue_example_frozenlake_prints_the_all_runs_total_first():
    """``share gym:FrozenLake-v1 --coef 0.9 --budget 1000,0.5 --seed 1 --seeds 3
    --iterations 20`` printed (738.8, 0.032) per run while all runs spent (4432.5, 0.191)."""
    pytest.importorskip("gymnasium")
    argv = ["share", "gym:FrozenLake-v1", "--coef", "0.9", "--budget", "1000,0.5",
            "--seed", "1", "--seeds", "3", "--iterations", "20"]
    rc, out, err = _cli(*argv, "--json")
    assert rc == 0, err
    js = json.loads(out)
    tot = js["ledger_total"]
    assert tot["runs"] == 6 and "all" in tot["per"]
    assert tot["epsilon"] <= 1000 and tot["delta"] <= 0.5
    spent = math.fsum(6 * q * e for q, e in zip(js["queries"], js["epsilon"]))
    assert tot["epsilon"] == pytest.approx(spent)
    rc, out, err = _cli(*argv)
    assert rc == 0, err
    first = next(line for line in out.splitlines() if "total" in line)
    assert "all 6 noisy student runs" in first and "within the budget (1000, 0.5)" in first
    assert "non-private baseline" in first


def test_record_starts_from_the_project_spend(tmp_path):
    from core.privacy.ledger import PrivacyLedger
    from core.project.files import load_project, save_project
    from core.project.model import Project

    p = Project()
    p.add_mdp(_chain(), "chain")
    led = PrivacyLedger()
    led.record(dataset="mdp:chain", mechanism="laplace", epsilon=500.0, released="earlier")
    p.ledger.extend(led.entries)
    path = tmp_path / "p.privplan.json"
    save_project(p, path)
    argv = ["share", str(path), "--mdp", "chain", "--k0", "20", "--coef", "0.9", "--eta",
            "0.1", "--lb", "0.01", "--delta", "0.001", "--budget", "1500,0.9", "--seeds", "3",
            "--students", "aware,unaware", "--iterations", "30", "--draws", "5000",
            "--record", "--json"]
    rc, out, err = _cli(*argv)
    assert rc == 0, err
    js = json.loads(out)
    assert js["spent_before"]["epsilon"] == pytest.approx(500.0)
    q = load_project(path)
    run = q.runs[-1]
    e, _ = _released([x for x in q.ledger if x.source == run.id])
    assert e > 0 and 500.0 + e <= 1500.0 + 1e-9
