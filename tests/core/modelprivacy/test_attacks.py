"""LiRA, the loss attack, the population study, the canary audit and the Victim interface."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from core.cli.main import run_cli
from core.common.errors import InputError
from core.modelprivacy.attacks import (
    attack_json_keys,
    attack_study,
    evaluate_attack,
    lira_scores,
    loss_scores,
    tpr_at_fpr,
)
from core.modelprivacy.canary import canary_audit, snj_epsilon_lb, snj_p_value
from core.modelprivacy.data import load_dataset
from core.modelprivacy.models import DpSgd, Network, TrainConfig, train
from core.modelprivacy.victim import (
    NumpyVictimKind,
    Victim,
    VictimKind,
    confidences,
    logit_confidence,
    losses,
)

WINE = load_dataset("wine")


def _auc_sd(n1: int, n0: int) -> float:
    """Standard deviation of the AUC of an uninformative score (Mann–Whitney under H0)."""
    return math.sqrt((n1 + n0 + 1) / (12.0 * n1 * n0))


# ---------------------------------------------------------------------------- LiRA
def _synthetic(shift: float, M: int = 8, N: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    member = np.zeros((M, N), dtype=bool)
    for j in range(M):
        member[j, rng.permutation(N)[:N // 2]] = True
    difficulty = rng.normal(0.0, 2.0, N)            # per-record offset LiRA calibrates away
    phi = difficulty[None, :] + shift * member + rng.normal(0.0, 0.5, (M, N))
    return phi, member


@pytest.mark.parametrize("online", [True, False])
def test_lira_finds_a_shift_that_a_global_threshold_misses(online):
    phi, member = _synthetic(1.0)
    auc_lira = roc_auc_score(member.ravel(), lira_scores(phi, member, online=online).ravel())
    # the raw statistic is swamped by the per-record difficulty (sd 2 against a shift of 1)
    auc_raw = roc_auc_score(member.ravel(), phi.ravel())
    assert auc_lira > 0.85 and auc_raw < 0.7


@pytest.mark.parametrize("online", [True, False])
def test_lira_without_signal_is_chance(online):
    phi, member = _synthetic(0.0, seed=3)
    s = lira_scores(phi, member, online=online)
    n1 = int(member.sum())
    auc = roc_auc_score(member.ravel(), s.ravel())
    # leave-one-out scores of different victims are dependent: 5 sd of the independent case
    assert abs(auc - 0.5) < 5 * _auc_sd(n1, member.size - n1)


def test_lira_needs_references_and_fills_missing_in_or_out():
    phi, member = _synthetic(1.0, M=2)
    with pytest.raises(InputError) as ei:
        lira_scores(phi, member)
    assert ei.value.field == "models"
    phi, member = _synthetic(1.0, M=4, N=50)
    member[:, 0] = True                    # record 0: in every model (no OUT reference)
    member[:, 1] = False                   # record 1: in none (no IN reference)
    s = lira_scores(phi, member, online=True)
    assert np.all(np.isfinite(s))


def test_loss_scores_order():
    assert list(loss_scores(np.array([0.1, 2.0]))) == [-0.1, -2.0]


# ---------------------------------------------------------------------------- TPR at low FPR
def test_tpr_at_fpr_only_where_the_nonmembers_resolve_it():
    rng = np.random.default_rng(1)
    s_in, s_out = rng.normal(1, 1, 400), rng.normal(0, 1, 999)
    r = tpr_at_fpr(s_in, s_out, 0.001)
    assert r["resolved"] is False and r["tpr"] is None and "1,000 non-members" in r["tpr_reason"]
    r = tpr_at_fpr(s_in, s_out, 0.01, privacy=(1.0, 1e-5))
    assert r["resolved"] and r["false_positives"] <= 9           # floor(0.01 · 999)
    assert r["tpr_lo"] <= r["tpr"] <= r["tpr_hi"] and r["fpr_lo"] <= r["fpr"] <= r["fpr_hi"]
    assert r["dp_bound"] == pytest.approx(math.e * r["fpr_hi"] + 1e-5)
    perfect = tpr_at_fpr(np.full(50, 5.0), np.zeros(200), 0.01)
    assert perfect["tpr"] == 1.0 and perfect["false_positives"] == 0


def test_tpr_threshold_never_lets_more_than_alpha_through():
    rng = np.random.default_rng(7)
    for _ in range(50):
        n_out = int(rng.integers(100, 2000))
        alpha = float(rng.choice([0.001, 0.01, 0.05, 0.1]))
        s_out = rng.integers(0, 20, n_out).astype(float)      # many ties
        r = tpr_at_fpr(rng.normal(size=30), s_out, alpha)
        if r["resolved"]:
            assert r["false_positives"] <= math.floor(alpha * n_out + 1e-9)
        else:
            assert alpha * n_out < 1


def test_evaluate_attack_per_victim_and_pooled():
    phi, member = _synthetic(1.5, M=6, N=200)
    m = evaluate_attack("lira-online", lira_scores(phi, member), member)
    assert len(m.auc_per_victim) == 6 and m.auc.median_lo <= m.auc.median <= m.auc.median_hi
    assert m.members == int(member.sum()) and m.nonmembers == member.size - m.members
    assert 0.5 < m.accuracy.median <= 1.0
    js = m.to_json()
    assert js["victims"] == 6 and [t["fpr_target"] for t in js["tpr_at_fpr"]] == [0.001, 0.01,
                                                                                 0.1]


# ---------------------------------------------------------------------------- Victim interface
class _TreeVictim:
    """An outside model family (scikit-learn trees) through the interface, probabilities only."""

    def __init__(self, clf, classes):
        self.clf, self.classes = clf, classes

    def predict_proba(self, X):
        p = np.full((X.shape[0], self.classes), 1e-3)
        p[:, self.clf.classes_] += self.clf.predict_proba(X)
        return p / p.sum(axis=1, keepdims=True)


class _TreeKind:
    name = "decision tree"

    def train(self, X, y, seed):
        from sklearn.tree import DecisionTreeClassifier

        return _TreeVictim(DecisionTreeClassifier(random_state=seed).fit(X, y), 3)


def test_any_model_family_plugs_in_through_the_protocol():
    kind = _TreeKind()
    assert isinstance(kind, VictimKind) and isinstance(kind.train(WINE.X, WINE.y, 0), Victim)
    st = attack_study(kind, WINE, train_size=40, models=6, attacks=("loss", "lira-offline"),
                      seed=5)
    # a fully grown tree memorises its members (loss ~ 0); it leaks through the non-members
    # it gets wrong: the loss attack beats chance on every victim
    assert min(st.attacks["loss"].auc_per_victim) > 0.5
    assert np.all(np.isfinite(st.attacks["lira-offline"].auc_per_victim))
    assert st.train_accuracy.median == 1.0 and st.privacy is None
    assert st.to_json()["epsilon_reason"] == "no DP defense"


def test_logit_and_probability_paths_agree():
    kind = NumpyVictimKind("ffnn", WINE, epochs=10)
    v = kind.train(WINE.X[:60], WINE.y[:60], seed=2)

    class ProbOnly:
        def predict_proba(self, X):
            return v.predict_proba(X)

    X, y = WINE.X[60:90], WINE.y[60:90]
    assert np.allclose(losses(v, X, y), losses(ProbOnly(), X, y), atol=1e-9)
    assert np.allclose(logit_confidence(v, X, y), logit_confidence(ProbOnly(), X, y), atol=1e-6)

    class Broken:
        def predict_proba(self, X):
            return np.ones((X.shape[0], 3))

    with pytest.raises(ValueError, match="summing to 1"):
        confidences(Broken(), X)


# ---------------------------------------------------------------------------- population study
def test_attack_study_on_numpy_victims_is_reproducible_and_documented():
    kind = NumpyVictimKind("ffnn", WINE, epochs=30)
    a = attack_study(kind, WINE, train_size=40, models=6, seed=11)
    b = attack_study(kind, WINE, train_size=40, models=6, seed=11,
                     attacks=("lira-online", "loss"))
    assert a.attacks["loss"].auc_per_victim == b.attacks["loss"].auc_per_victim
    js = a.to_json()
    assert tuple(js) == attack_json_keys() or set(attack_json_keys()) <= set(js)
    assert set(js["attacks"]) == {"lira-online", "lira-offline", "loss", "shadow"}
    # 6 victims × 40 non-members = 240: FPR 0.001 is not resolvable, 0.01 is
    tprs = {t["fpr_target"]: t for t in js["attacks"]["lira-online"]["tpr_at_fpr"]}
    assert tprs[0.001]["resolved"] is False and tprs[0.01]["resolved"] is True
    assert js["mode"] == "experiment" and js["seed"] == 11


def test_attack_study_refusals_name_the_field():
    kind = NumpyVictimKind("ffnn", WINE, epochs=2)
    for kw, field in [(dict(models=3), "models"), (dict(models=1, attacks=("loss",)), "models"),
                      (dict(train_size=5), "train_size"), (dict(train_size=100), "train_size"),
                      (dict(attacks=("nosuch",)), "attack")]:
        args = {**dict(train_size=40, models=6, seed=1), **kw}
        with pytest.raises(InputError) as ei:
            attack_study(kind, WINE, **args)
        assert ei.value.field == field
    with pytest.raises(InputError) as ei:
        NumpyVictimKind("tabular", WINE)
    assert ei.value.field == "victim"
    with pytest.raises(InputError) as ei:
        NumpyVictimKind("ffnn", WINE, defense="gpm")
    assert ei.value.field == "defense"


def test_dpsgd_victims_state_their_guarantee_and_stay_under_the_bound():
    kind = NumpyVictimKind("ffnn", WINE, defense="dpsgd", epsilon=1.0, delta=1e-5, n_train=40)
    assert kind.privacy is not None and kind.privacy[0] <= 1.0 + 1e-6
    st = attack_study(kind, WINE, train_size=40, models=6, attacks=("loss",), seed=2)
    assert st.accuracy_cap is not None and st.attacks["loss"].accuracy.median <= st.accuracy_cap
    for t in st.attacks["loss"].tpr:
        if t["resolved"]:
            assert t["exceeds_dp_bound"] is False


# ---------------------------------------------------------------------------- canary audit
def test_snj_p_value_reduces_to_the_binomial_tail():
    from scipy import stats as sps

    assert snj_p_value(100, 40, 30, 0.0, 0.0) == pytest.approx(sps.binom.sf(29, 40, 0.5))
    ps = [snj_p_value(100, 40, 30, e, 1e-5) for e in (0.0, 0.5, 1.0, 2.0)]
    assert ps == sorted(ps)                     # a larger ε explains more: p grows
    assert snj_p_value(100, 40, 30, 1.0, 1e-5) > snj_p_value(100, 40, 30, 1.0, 0.0)
    with pytest.raises(ValueError):
        snj_p_value(10, 20, 5, 1.0, 0.0)


def test_snj_epsilon_lb_is_valid_for_an_eps_dp_guesser():
    """Randomised response at ε = 1: each of r guesses is right with probability e/(1+e).
    P[ε_lb > 1] ≤ 0.05 by the theorem; over 300 audits more than 30 exceedances would have
    probability < 1e-4 under Binomial(300, 0.05)."""
    rng = np.random.default_rng(4)
    q = math.e / (1 + math.e)
    over = sum(snj_epsilon_lb(400, 200, int(rng.binomial(200, q)), 0.0) > 1.0
               for _ in range(300))
    assert over <= 30
    # and it finds most of the leak when there is one: ε = 3
    q3 = 1 / (1 + math.exp(-3))
    lbs = [snj_epsilon_lb(1000, 500, int(rng.binomial(500, q3)), 0.0) for _ in range(20)]
    assert np.median(lbs) > 2.0


def test_dpsgd_public_schedule_fixes_the_noise_whatever_the_size():
    """With public_n the per-coordinate noise of one epoch is σC/(q·public_n)·sqrt(steps)
    whatever the actual number of records (zero data: the update is the noise alone)."""
    net = Network("ffnn", (4,), 2, 3)
    cfg = TrainConfig(epochs=1, batch=50, lr=1.0, momentum=0.0)
    sds = []
    for n in (60, 140):
        X, y = np.zeros((n, 4)), np.zeros(n, dtype=int)
        outs = [train(net, X, y, cfg, rng=np.random.default_rng(s),
                      dp=DpSgd(2.0, 0.5, public_n=100), theta0=np.zeros(net.size))
                [net.slices["W1"]] for s in range(300)]
        sds.append(np.std(np.concatenate(outs)))
    want = 2.0 * 0.5 / 50 * math.sqrt(2)           # q·public_n = 50, ceil(100/50) = 2 steps
    for sd in sds:
        assert sd == pytest.approx(want, rel=4 / math.sqrt(2 * 300 * 12))


def test_canary_audit_sees_memorisation_and_respects_dpsgd():
    digits = load_dataset("digits")
    plain = NumpyVictimKind("ffnn", digits, hidden=64, epochs=60)
    a = canary_audit(plain, digits, train_size=200, canaries=200, seed=3)
    assert a.epsilon is None and a.epsilon_lb > 0.5 and a.auc > 0.8
    js = a.to_json()
    assert js["epsilon_reason"] and js["guesses"] == 2 * js["best_k"]
    dp = NumpyVictimKind("ffnn", digits, defense="dpsgd", epsilon=1.0, delta=1e-5,
                         n_train=300)
    b = canary_audit(dp, digits, train_size=200, canaries=200, seed=3)
    assert b.epsilon is not None and b.epsilon_lb <= b.epsilon
    with pytest.raises(InputError) as ei:
        canary_audit(plain, digits, train_size=1700, canaries=200, seed=1)
    assert ei.value.field == "canaries"


# ---------------------------------------------------------------------------- CLI
def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(list(argv), out, err), out.getvalue(), err.getvalue()


def test_cli_mia_attacks_json():
    rc, out, _ = _cli("mia", "--data", "wine", "--attack", "lira", "--models", "4",
                      "--train-size", "40", "--epochs", "10", "--seed", "1", "--json")
    assert rc == 0
    js = json.loads(out)
    assert set(attack_json_keys()) <= js.keys()
    assert set(js["attacks"]) == {"lira-online", "lira-offline"}
    rc, out, _ = _cli("mia", "--data", "wine", "--attack", "canary", "--canaries", "40",
                      "--train-size", "60", "--epochs", "5", "--seed", "1", "--json")
    assert rc == 0 and json.loads(out)["protocol"] == "canary audit (one run)"


@pytest.mark.parametrize("argv, flag", [
    (("--attack", "lira", "--models", "3"), "--models"),
    (("--attack", "loss", "--defense", "gpm"), "--defense"),
    (("--attack", "loss", "--victim", "tabular"), "--victim"),
    (("--attack", "canary", "--canaries", "5"), "--canaries"),
    (("--attack", "loss", "--epsilon", "1"), "--epsilon"),
    (("--attack", "lira", "--record", "x.privplan.json"), "--record"),
])
def test_cli_mia_attack_refusals(argv, flag):
    rc, _, err = _cli("mia", "--data", "wine", "--train-size", "40", *argv)
    assert rc == 2 and err.startswith(f"privplan mia: {flag}") and err.count("\n") == 1


def test_gpm_rows_of_a_defense_table_share_one_sensitivity_estimate(monkeypatch):
    """The SensitivitySampler's estimate does not depend on ε: the table's GPM rows (same
    split and seed) sample it once (500 pairs by default are 1,000 trainings)."""
    from core.modelprivacy import study

    calls = []
    real = study.sensitivity_sampler

    def counting(*a, **k):
        calls.append(a[3])
        return real(*a, **k)

    monkeypatch.setattr(study, "sensitivity_sampler", counting)
    monkeypatch.setattr(study, "_SENS_CACHE", {})
    setup = study.MiaSetup(victim="ffnn", shadows=2, epochs=5, sensitivity_samples=4)
    rows = study.defense_table(WINE, setup, seed=1, defenses=("gpm",),
                               epsilons={"gpm": (1.0, 8.0)})
    assert calls == [4] and len(rows) == 2
    assert rows[0].result.extra["sensitivity"] == rows[1].result.extra["sensitivity"]
    assert study.MiaSetup().sensitivity_samples == 500
