"""Victims, DP-SGD, the study protocol, its refusals and its records."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from core.cli.main import run_cli
from core.common.errors import InputError
from core.modelprivacy.data import as_sequences, csv_dataset, load_dataset, mdp_dataset
from core.modelprivacy.models import DpSgd, Network, TrainConfig, train
from core.modelprivacy.records import mia_entries
from core.modelprivacy.study import MiaSetup, mia_json_keys, run_mia

DIGITS = load_dataset("digits")
FAST = dict(train_size=60, shadows=2, epochs=15)


@pytest.mark.parametrize("kind", ["ffnn", "rnn"])
def test_gradient_check_and_clipping(kind):
    X = DIGITS.X[:6] if kind == "ffnn" else as_sequences(DIGITS.X[:6], DIGITS.seq_shape)
    y = DIGITS.y[:6]
    net = Network(kind, X.shape[1:], 10, 8)
    th = net.init(np.random.default_rng(1))
    g = net.grad_sum(th, X, y)
    idx = np.random.default_rng(2).choice(th.size, 25, replace=False)
    h = 1e-6
    for i in idx:
        e = np.zeros_like(th)
        e[i] = h
        num = (net.loss(th + e, X, y) - net.loss(th - e, X, y)) / (2 * h) * len(y)
        assert g[i] == pytest.approx(num, abs=1e-6)
    # the clipped sum equals clipping each example's own gradient, then summing
    C = 0.3
    want = np.zeros_like(th)
    for j in range(len(y)):
        gj = net.grad_sum(th, X[j:j + 1], y[j:j + 1])
        want += gj * min(1.0, C / np.linalg.norm(gj))
    assert net.grad_sum(th, X, y, clip=C) == pytest.approx(want, abs=1e-12)


def test_dpsgd_noise_is_calibrated():
    """With all-zero data gradients (lr on a zero batch) the update is the noise alone: its
    standard deviation per coordinate is σC/(q n)."""
    net = Network("ffnn", (4,), 2, 3)
    X, y = np.zeros((100, 4)), np.zeros(100, dtype=int)
    cfg = TrainConfig(epochs=1, batch=100, lr=1.0, momentum=0.0)
    th0 = np.zeros(net.size)
    outs = []
    for s in range(400):
        rng = np.random.default_rng(s)
        th = train(net, X, y, cfg, rng=rng, dp=DpSgd(2.0, 0.5), theta0=th0)
        outs.append(th[net.slices["W1"]])   # zero weights: no gradient reaches W1
    sd = np.std(np.concatenate(outs))
    n_draws = 400 * 12
    assert sd == pytest.approx(2.0 * 0.5 / 100, rel=4 / math.sqrt(2 * n_draws))


def test_study_keys_balance_and_reproducibility():
    st = MiaSetup(victim="ffnn", **FAST)
    a = run_mia(DIGITS, st, seed=5)
    b = run_mia(DIGITS, st, seed=5)
    js = a.to_json()
    assert set(mia_json_keys()) <= js.keys()
    assert js["epsilon"] is None and js["epsilon_reason"] and js["accuracy_cap"] is None
    assert js["delta"] is None and js["mode"] == "experiment"
    assert a.attack_accuracy == b.attack_accuracy and a.auc == b.auc
    assert a.members == 60 and 0 <= a.attack_accuracy <= 1 and set(js["tpr_at_fpr"]) == {
        "0.001", "0.01"}
    # an overfitted victim leaks: above chance by more than 2 standard errors of a coin
    assert a.train_accuracy >= 0.95
    assert a.auc > 0.5 + 2 * math.sqrt(1 / 12 / 60)


def test_dpsgd_study_respects_the_cap():
    """Under (ε, δ)-DP no attack's balanced accuracy can pass the cap; the measured one must
    not exceed it by more than 3 standard errors."""
    r = run_mia(DIGITS, MiaSetup(victim="ffnn", defense="dpsgd", epsilon=0.5, **FAST), seed=2)
    assert r.epsilon <= 0.5 + 1e-9 and r.delta == 1e-5
    se = math.sqrt(0.25 / (2 * r.members))
    assert r.attack_accuracy <= r.accuracy_cap + 3 * se
    assert r.accuracy_cap == pytest.approx((math.exp(r.epsilon) + 1e-5) / (1 + math.exp(
        r.epsilon)))
    e = mia_entries(r, source="run-1")
    assert [x.mechanism for x in e] == ["dpsgd"] and e[0].epsilon == r.epsilon


def test_gpm_and_oneparam_statements():
    g = run_mia(DIGITS, MiaSetup(victim="ffnn", defense="gpm", epsilon=2.0,
                                 sensitivity_samples=3, **FAST), seed=1)
    assert "random-DP" in g.guarantee and g.extra["gamma"] > 0.3   # n = 3: weak confidence
    assert g.extra["sigma"] == pytest.approx(g.extra["sensitivity"] / __import__(
        "core.modelprivacy.defenses", fromlist=["gaussian_mu"]).gaussian_mu(2.0, 1e-5))
    o = run_mia(DIGITS, MiaSetup(victim="rnn", defense="oneparam", epsilon=0.7, **FAST),
                seed=1)
    assert o.epsilon == pytest.approx(7.0) and o.delta == 0.0 and o.accuracy_cap is None
    assert "not a guarantee about training-set membership" in o.guarantee
    assert o.distortion > 0.5 and "attack_accuracy_hidden" in o.extra
    assert o.extra["epsilon_star_median"] > 0 and o.extra["query_bound_eps5"] > 0
    (ent,) = mia_entries(o)
    assert ent.count == 2 * o.members + o.extra["pool_queries"] and ent.epsilon == 7.0
    (none,) = mia_entries(run_mia(DIGITS, MiaSetup(**FAST), seed=1))
    assert none.unbounded and none.reason


def test_release_mode_is_labelled():
    r = run_mia(DIGITS, MiaSetup(victim="ffnn", defense="oneparam", **FAST), seed=None)
    assert r.mode == "release" and r.seed is None
    assert mia_entries(r)[0].mode == "release"


def test_tabular_victim_on_mdp_records():
    from core.mdp.examples import four_startups

    d = mdp_dataset(four_startups(), seed=0, trajectories=100)
    assert d.mdp_dims is not None and d.seq_shape[0] == 2
    r = run_mia(d, MiaSetup(victim="tabular", shadows=2), seed=0)
    assert 0 <= r.attack_accuracy <= 1
    with pytest.raises(InputError) as ei:
        MiaSetup(victim="tabular", defense="dpsgd").validated(d)
    assert ei.value.field == "defense"
    with pytest.raises(InputError) as ei:
        MiaSetup(victim="tabular").validated(DIGITS)
    assert ei.value.field == "victim"


@pytest.mark.parametrize("setup, field", [
    (dict(defense="dpsgd", epsilon=0.0), "epsilon"),
    (dict(defense="gpm", epsilon=-1.0), "epsilon"),
    (dict(defense="gpm", delta=1.5), "delta"),
    (dict(shadows=40), "shadows"),
    (dict(shadows=0), "shadows"),
    (dict(epsilon=1.0), "epsilon"),
    (dict(victim="transformer"), "victim"),  # cnn is a network victim (deep extra)
])
def test_bad_setups_name_the_field(setup, field):
    with pytest.raises(InputError) as ei:
        MiaSetup(**setup).validated(DIGITS)
    assert ei.value.field == field


@pytest.mark.parametrize("text, problem", [
    ("", "is empty"), ("a,b,label\n", "no records"),
    ("1,2,x\n3,abc,y\n", "'abc' is not a number"),
    ("".join(f"{i},{i * 2},same\n" for i in range(50)), "one class"),
    ("1,2,a\n3,b\n", "columns"),
])
def test_bad_csv_is_refused(tmp_path, text, problem):
    p = tmp_path / "d.csv"
    p.write_text(text)
    with pytest.raises(InputError) as ei:
        csv_dataset(str(p))
    assert problem in str(ei.value) and ei.value.file == str(p)


def test_csv_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    p = tmp_path / "ok.csv"
    p.write_text("f1,f2,f3,label\n" + "".join(
        f"{a},{b},{c},{'yes' if t else 'no'}\n" for (a, b, c), t in zip(X, y)))
    d = csv_dataset(str(p))
    assert d.n == 80 and d.classes == 2 and d.X.shape == (80, 3)


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(list(argv), out, err), out.getvalue(), err.getvalue()


def test_cli_mia_json_and_record(tmp_path):
    from core.project.files import load_project, save_project
    from core.project.model import Project

    proj = tmp_path / "p.privplan.json"
    save_project(Project(), str(proj))
    rc, out, _ = _cli("mia", "--data", "wine", "--defense", "dpsgd", "--epsilon", "2",
                      "--shadows", "2", "--seed", "1", "--json", "--record", str(proj))
    assert rc == 0
    js = json.loads(out)
    assert set(mia_json_keys()) <= js.keys() and js["epsilon"] <= 2.0
    assert js["recorded"]["ledger_entries"] == ["rel-1"]
    p = load_project(str(proj))
    assert p.runs[-1].kind == "mia" and p.ledger[0].mechanism == "dpsgd"
    rc, out, err = _cli("mia", "--data", "digits", "--shadows", "9")
    assert rc == 2 and err.startswith("privplan mia: --shadows:") and err.count("\n") == 1
    rc, _, err = _cli("mia", "--data", "nosuch")
    assert rc == 2 and "--data" in err


def test_tabular_pipeline_with_dirichlet_rows_and_value_iteration():
    """MLE model → every row smoothed → Dirichlet privatisation (the MDP pipeline's mechanism)
    → value iteration. The record-level statement (replace one record's next state) needs
    every visited (s, a) to hold >= 2 records; here one holds a single record, so ε is
    unbounded with the reason, and the ledger entry says so
    (test_tabular_record_level.py has the statement itself)."""
    from core.mdp.examples import four_startups

    d = mdp_dataset(four_startups(), seed=0, trajectories=400)
    r = run_mia(d, MiaSetup(victim="tabular", defense="dirichlet", k=100.0, shadows=2), seed=1)
    assert r.extra["policy_value"] <= r.extra["optimal_value"] + 1e-9
    assert math.isfinite(r.extra["epsilon_row"])
    assert r.extra["fewest_samples_per_row"] == 1
    assert r.epsilon is None and "record" in r.epsilon_reason and r.accuracy_cap is None
    (e,) = mia_entries(r)
    assert e.unbounded and e.mechanism == "dirichlet-rows"
    with pytest.raises(InputError) as ei:
        MiaSetup(victim="ffnn", defense="dirichlet").validated(DIGITS)
    assert ei.value.field == "defense"
    with pytest.raises(InputError) as ei:
        MiaSetup(victim="tabular", defense="dirichlet", b=1.5).validated(d)
    assert ei.value.field == "b"


def test_record_level_statement_when_every_row_is_full():
    """A two-state chain where every (s, a) is visited often: the record-level (ε, δ) is one
    row's at the radius 2(1 − λ)/min n_sa (one record moves one row), and no accuracy cap is
    claimed (the membership game swaps whole records, outside the relation)."""
    from core.mdp.accounting import mdp_privacy
    from core.mdp.model import MDP, with_transitions
    from core.modelprivacy.study import TABULAR_SMOOTHING

    P = np.array([[[0.5, 0.5], [0.2, 0.8]], [[0.6, 0.4], [0.3, 0.7]]])
    m = MDP(P=P, R=np.array([[0.0, 1.0], [1.0, 0.0]]), horizon=None, discount=0.9)
    d = mdp_dataset(m, seed=0, trajectories=400)
    r = run_mia(d, MiaSetup(victim="tabular", defense="dirichlet", k=50.0, b=0.5,
                            shadows=2), seed=2)
    n = r.extra["fewest_samples_per_row"]
    assert n >= 5
    radius = 2 * (1 - TABULAR_SMOOTHING) / n
    want = mdp_privacy(with_transitions(m, np.full(P.shape, 0.5), name="public"), 50.0,
                       b=radius, delta_target=0.05, zeros="support", eta=r.extra["eta"],
                       domain_rule="refuse")
    assert r.epsilon == pytest.approx(want.epsilon) and r.delta == pytest.approx(want.delta)
    assert r.epsilon < r.extra["epsilon_row"]     # radius 2(1 − λ)/n < (1 − λ)·b here
    assert r.accuracy_cap is None and "whole records" in r.to_json()["accuracy_cap_reason"]


def test_victim_table_side_by_side():
    from core.modelprivacy.study import victim_table

    rows = victim_table(DIGITS, MiaSetup(defense="oneparam", epsilon=0.7, **FAST), seed=1)
    assert [r.result.victim for r in rows] == ["ffnn", "rnn"]
    assert [r.label for r in rows] == ["ffnn: One-parameter (ε = 0.7)",
                                       "rnn: One-parameter (ε = 0.7)"]
    assert rows[0].result.members == rows[1].result.members


# ------------------------------------------------------------------- TPR at an unresolved FPR
def test_a_tpr_the_nonmembers_cannot_resolve_is_null_with_the_reason():
    """150 non-members hold no false positive at FPR 0.1 % (0.15 < 1) but one at 1 %: the
    first TPR is null with the population study's reason, the second a number."""
    from core.modelprivacy.metrics import unresolved_tpr_reason

    res = run_mia(DIGITS, MiaSetup(victim="ffnn", train_size=150, shadows=2, epochs=10),
                  seed=2)
    js = json.loads(json.dumps(res.to_json()))  # what --json prints
    assert js["tpr_at_fpr"]["0.001"] is None and res.tpr_at_fpr[0.001] is None
    assert js["tpr_at_fpr_reason"] == {"0.001": unresolved_tpr_reason(0.001, 150)}
    assert "1,000 non-members" in js["tpr_at_fpr_reason"]["0.001"]
    assert isinstance(js["tpr_at_fpr"]["0.01"], float) and 0 <= js["tpr_at_fpr"]["0.01"] <= 1


def test_the_resolution_rule_is_the_population_studys():
    from core.modelprivacy.attacks import tpr_at_fpr
    from core.modelprivacy.metrics import tpr_at_fpr_items, unresolved_tpr_reason

    rng = np.random.default_rng(0)
    for n_out in (99, 100, 224, 999, 1000):
        for f in (0.001, 0.01, 0.1):
            pop = tpr_at_fpr(rng.normal(1, 1, 50), rng.normal(0, 1, n_out), f)
            reason = unresolved_tpr_reason(f, n_out)
            assert (reason is None) == pop["resolved"] == (f * n_out >= 1)
            assert pop.get("tpr_reason") == reason
    # a record written before the rule (digits, seed 1: 224 non-members) reads unresolved
    old = {"tpr_at_fpr": {"0.001": 0.008928571428571428, "0.01": 0.0134}, "members": 224}
    items = dict(tpr_at_fpr_items(old))
    assert items["0.001"].startswith("not resolved (an FPR of 0.001 needs at least 1,000")
    assert items["0.01"] == "0.013"


def test_cli_mia_says_not_resolved_in_json_and_text():
    argv = ["mia", "--data", "digits", "--train-size", "60", "--shadows", "2", "--epochs",
            "5", "--seed", "1"]
    out, err = io.StringIO(), io.StringIO()
    assert run_cli(argv + ["--json"], out, err) == 0, err.getvalue()
    js = json.loads(out.getvalue())
    assert js["tpr_at_fpr"] == {"0.001": None, "0.01": None}  # 60 non-members: 0.06, 0.6
    assert set(js["tpr_at_fpr_reason"]) == {"0.001", "0.01"}
    assert "the study has 60" in js["tpr_at_fpr_reason"]["0.01"]
    out = io.StringIO()
    assert run_cli(argv, out, io.StringIO()) == 0
    text = out.getvalue()
    assert "TPR@FPR 0.001: not resolved (an FPR of 0.001 needs at least 1,000" in text
    assert "TPR@FPR 0.01: not resolved (an FPR of 0.01 needs at least 100" in text
