"""The non-private baseline imitates the teacher's own policy (conventional kickstarting, the
paper's non-private experiment and the PPO students'), or — ``nonprivate_target="mixed"`` —
the η-mixed policy the private draws centre on; and the exact profile at vanishing k."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from core.cli.main import run_cli
from core.common.errors import InputError
from core.mdp.examples import corridor, four_startups, random_mdp
from core.sharing.learning import SharingSetup, run_sharing, run_student, teacher_policy
from core.sharing.profile import l2_profile

MDPS = {"corridor": lambda: corridor(8), "four startups": four_startups,
        "random 12x4": lambda: random_mdp(12, 4, 3, seed=3)}


@pytest.mark.parametrize("name", list(MDPS))
def test_the_non_private_student_learns_the_teachers_policy(name):
    """Exact gradients (deterministic): imitating π_T, the non-private student is ahead of
    the no-teacher student at every checkpoint and ends within 1 % of J(π_T); imitating the
    η-mixed π̃_T (η = 0.1) it ends lower (π̃_T is a poor policy and it is held near it)."""
    mdp = MDPS[name]()
    curves = {}
    for target in ("teacher", "mixed"):
        setup = SharingSetup(eta=0.1, iterations=100, budget=(1e4, 0.9), delta=1e-3,
                             nonprivate_target=target)
        res = run_sharing(mdp, setup, students=["none", "nonprivate"], seeds=1, seed=1)
        curves[target] = res.curves["nonprivate"][0]
        none, jt = res.curves["none"][0], res.teacher_value
    ahead = curves["teacher"][[5, 20, 100]] - none[[5, 20, 100]]
    assert (ahead > 0).all(), ahead
    assert curves["teacher"][-1] >= jt - 0.01 * abs(jt)
    assert curves["mixed"][-1] < curves["teacher"][-1] - 1e-3


def test_run_student_needs_the_teachers_own_policy_and_mixed_is_the_old_target():
    mdp = corridor(6)
    pi_T = teacher_policy(mdp)
    mixed = (1 - 2 * 0.1) * pi_T + 0.1
    setup = SharingSetup(eta=0.1, iterations=10)
    with pytest.raises(ValueError, match="plain"):
        run_student(mdp, "nonprivate", mixed, setup, None, None)
    a = run_student(mdp, "nonprivate", mixed, setup, None, None, plain=pi_T)
    b = run_student(mdp, "nonprivate", pi_T, SharingSetup(eta=0.1, iterations=10,
                                                          nonprivate_target="mixed"),
                    None, None)
    np.testing.assert_array_equal(a, b)  # "teacher" is "mixed" handed π_T
    c = run_student(mdp, "nonprivate", mixed, SharingSetup(eta=0.1, iterations=10,
                                                           nonprivate_target="mixed"),
                    None, None, plain=pi_T)
    assert not np.array_equal(a, c)


def test_the_target_is_checked_a_cli_flag_and_a_json_key():
    with pytest.raises(InputError) as info:
        SharingSetup(nonprivate_target="pi").check()
    assert info.value.field == "nonprivate_target"
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["share", "assets/examples/four_startups.mdp.json", "--seed", "1",
                    "--nonprivate-target", "pi"], out, err)
    assert code == 2 and "--nonprivate-target" in err.getvalue()
    for target in ("teacher", "mixed"):
        out, err = io.StringIO(), io.StringIO()
        code = run_cli(["share", "assets/examples/four_startups.mdp.json", "--seed", "1",
                        "--seeds", "1", "--iterations", "3", "--draws", "2000",
                        "--nonprivate-target", target, "--json"], out, err)
        assert code == 0, err.getvalue()
        d = json.loads(out.getvalue())
        assert d["nonprivate_target"] == target
        assert any("non-private student imitates" in n for n in d["notes"])


def test_the_profile_at_vanishing_k_is_unbounded_not_a_crash():
    """At k = 6e-21 (k0 = 5, c = 0.3, roll-out 40) both quantiles of a coordinate underflow;
    the accountant said 'math domain error'. It is +∞ now (no finite ε at δ̂ = 1e-3; the
    lower bound stays a lower bound), and a long sharing run stops its teacher instead of
    failing."""
    r = l2_profile(5 * 0.3 ** 40, 2, 0.1, 0.05, delta=1e-3, budget=150)
    assert math.isinf(r.epsilon) and r.epsilon_lower >= 0
    assert l2_profile(5.0, 2, 0.1, 0.05, delta=1e-3).epsilon == pytest.approx(1.92, abs=0.01)
    setup = SharingSetup(k0=5.0, coef=0.3, eta=0.1, iterations=60, budget=(1e4, 0.9),
                         delta=1e-3)
    res = run_sharing(corridor(8), setup, students=["aware"], seeds=1, seed=1)
    assert res.ledger.stopped_at is not None and res.ledger.stopped_at < 60


def test_without_noisy_students_the_ledger_spends_nothing_even_where_epsilon_is_infinite():
    """No aware/unaware student: no roll-out releases anything. Past the k where the
    per-query ε is +∞ the totals were 0·∞ = NaN (and JSON 'NaN'); they are 0."""
    setup = SharingSetup(eta=0.1, iterations=100, budget=(1e4, 0.9), delta=1e-3)
    res = run_sharing(corridor(8), setup, students=["none", "nonprivate"], seeds=1, seed=1)
    led = res.ledger
    assert any(math.isinf(r.epsilon) for r in led.rows)
    assert led.totals == (0.0, 0.0) and led.stopped_at is None
    assert all(r.epsilon_total == 0.0 and r.epsilon_advanced == 0.0 for r in led.rows)
    from core.common.jsonable import jsonable  # what --json prints: ∞ → null + reason

    d = jsonable(res.to_dict())
    json.dumps(d, allow_nan=False)
    assert d["ledger_total"]["epsilon"] == 0.0
