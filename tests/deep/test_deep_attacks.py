"""Today's attacks on the JAX networks: LiRA online/offline, the loss attack,
the population shadow attack and the canary audit train network victims through
:class:`core.deep.victims.NetworkVictimKind`, unchanged, from the Python API and the CLI."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from core.cli.main import run_cli
from core.deep.victims import NetworkModel, NetworkVictimKind
from core.modelprivacy.attacks import attack_json_keys, attack_study
from core.modelprivacy.data import load_dataset
from core.modelprivacy.victim import NumpyVictimKind, Victim, VictimKind, confidences


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def digits():
    return load_dataset("digits")


def test_network_kind_is_a_victim_kind_with_the_numpy_kinds_dpsgd_calibration(digits):
    net = NetworkVictimKind("gru", digits, defense="dpsgd", epsilon=2.0, delta=1e-5,
                            n_train=300)
    ref = NumpyVictimKind("rnn", digits, defense="dpsgd", epsilon=2.0, delta=1e-5,
                          n_train=300)
    assert isinstance(net, VictimKind)
    # the same public parameters give the same sigma, (epsilon, delta) and steps
    assert net.sigma == ref.sigma and net.privacy == ref.privacy
    assert (net.sample_rate, net.steps) == (ref.sample_rate, ref.steps) == (64 / 300, 100)
    assert net.privacy[0] <= 2.0 and net.guarantee == ref.guarantee
    assert set(ref.describe()) <= set(net.describe())
    assert net.describe()["backend"] == "jax" and net.describe()["victim"] == "gru"
    m = NetworkVictimKind("mlp", digits, epochs=2).train(digits.X[:50], digits.y[:50], seed=1)
    assert isinstance(m, Victim) and isinstance(m, NetworkModel)
    p = confidences(m, digits.X[:7])
    z = m.logits(digits.X[:7])
    e = np.exp(z - z.max(axis=1, keepdims=True))
    assert np.allclose(p, e / e.sum(axis=1, keepdims=True), atol=1e-5)


def test_dpsgd_schedule_follows_the_public_size_not_the_records(digits, monkeypatch):
    """The canary audit inserts a random number of canaries: q, the steps and the normaliser
    must come from the public size n_train (DpSgd.public_n), as for the numpy victims."""
    import core.deep.dpsgd as dpsgd

    calls = []
    real = dpsgd.poisson_batch

    def counting(rng, n, q):
        calls.append((n, q))
        return real(rng, n, q)

    monkeypatch.setattr(dpsgd, "poisson_batch", counting)
    kind = NetworkVictimKind("mlp", digits, defense="dpsgd", epsilon=4.0, n_train=200,
                             dp_epochs=2, dp_batch=32)
    kind.train(digits.X[:137], digits.y[:137], seed=3)
    assert len(calls) == kind.steps == 2 * math.ceil(200 / 32)
    assert all(n == 137 and q == pytest.approx(32 / 200) for n, q in calls)


def test_attack_auc_overfit_network_above_chance_dpsgd_lower(digits):
    """LiRA online and the loss attack via the Python API on 8 MLP victims, 100 members and
    100 non-members each. The pooled AUC's standard error under "no leak" is
    sqrt((n1 + n2 + 1) / (12 n1 n2)) = 0.0144 for n1 = n2 = 800 (Mann-Whitney): the
    undefended network is 4.5 of them above 0.5 and DP-SGD at epsilon = 1 is 4.5·√2 of them
    below it; fixed seed."""
    M, n = 8, 100
    se = math.sqrt((2 * M * n + 1) / (12.0 * (M * n) ** 2))
    plain = attack_study(NetworkVictimKind("mlp", digits, n_train=n), digits, train_size=n,
                         models=M, attacks=("lira-online", "loss"), seed=5)
    dp = attack_study(NetworkVictimKind("mlp", digits, defense="dpsgd", epsilon=1.0,
                                        n_train=n), digits, train_size=n, models=M,
                      attacks=("lira-online", "loss"), seed=5)
    lo_plain = plain.attacks["lira-online"].auc_pooled
    lo_dp = dp.attacks["lira-online"].auc_pooled
    assert lo_plain > 0.5 + 4.5 * se, lo_plain                  # measured 0.678
    assert plain.attacks["loss"].auc_pooled > 0.5 + 4.5 * se    # measured 0.670
    assert lo_dp < lo_plain - 4.5 * math.sqrt(2) * se, (lo_dp, lo_plain)   # measured 0.491
    assert abs(lo_dp - 0.5) < 4.5 * se
    assert dp.privacy is not None and dp.privacy[0] <= 1.0
    js = dp.to_json()
    assert js["victim"] == "mlp" and js["epsilon"] <= 1.0 and js["accuracy_cap"] is not None


def test_cli_lira_and_loss_on_networks_keep_the_numpy_keys():
    common = ("--data", "digits", "--train-size", "40", "--epochs", "8", "--seed", "1",
              "--json")
    code, out, err = _cli("mia", "--attack", "lira", "--model", "gru", "--models", "4",
                          "--hidden", "16", *common)
    assert code == 0, err
    gru = json.loads(out)
    code, out, err = _cli("mia", "--attack", "lira", "--victim", "rnn", "--models", "4",
                          "--hidden", "16", *common)
    assert code == 0, err
    rnn = json.loads(out)
    assert set(attack_json_keys()) <= set(gru) and set(gru) == set(rnn)
    assert set(gru["attacks"]) == {"lira-online", "lira-offline"}
    assert set(gru["attacks"]["lira-online"]) == set(rnn["attacks"]["lira-online"])
    assert gru["victim"] == "gru" and gru["kind"]["backend"] == "jax"
    assert gru["mode"] == "experiment" and gru["epsilon"] is None
    code, out, err = _cli("mia", "--attack", "loss", "--model", "mlp", "--models", "3",
                          "--defense", "dpsgd", "--epsilon", "2", *common)
    assert code == 0, err
    js = json.loads(out)
    assert list(js["attacks"]) == ["loss"] and js["victim"] == "mlp"
    k = js["kind"]
    steps = k["epochs"] * math.ceil(40 / k["batch"])
    code, out2, _ = _cli("accountant", "dpsgd", "--sigma", repr(k["sigma"]), "--sample-rate",
                         repr(min(1.0, k["batch"] / 40)), "--steps", str(steps), "--delta",
                         repr(js["delta"]), "--json")
    assert code == 0   # the numbers of `accountant dpsgd` for the public (q, T)
    assert json.loads(out2)["epsilon"] == pytest.approx(js["epsilon"], rel=1e-12)
    assert js["epsilon"] <= 2.0 + 1e-9


def test_cli_canary_audit_on_a_dpsgd_gru_stays_below_the_accountant():
    code, out, err = _cli("mia", "--attack", "canary", "--model", "gru", "--hidden", "16",
                          "--defense", "dpsgd", "--epsilon", "2", "--data", "digits",
                          "--train-size", "60", "--canaries", "40", "--seed", "2", "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["protocol"] == "canary audit (one run)" and js["kind"]["victim"] == "gru"
    assert js["epsilon"] <= 2.0 + 1e-9 and js["epsilon_lb"] <= js["epsilon"]


@pytest.mark.parametrize("argv, flag", [
    (("--attack", "lira", "--model", "gru", "--victim", "rnn"), "--model"),
    (("--attack", "loss", "--model", "mlp", "--defense", "gpm"), "--defense"),
    (("--attack", "loss", "--model", "lstm", "--hidden", "0"), "--hidden"),
    (("--attack", "lira", "--model", "mlp", "--models", "3"), "--models"),
])
def test_cli_network_attack_refusals(argv, flag):
    code, out, err = _cli("mia", "--data", "wine", "--train-size", "20", *argv)
    assert code == 2 and err.startswith(f"privplan mia: {flag}") and err.count("\n") == 1
    assert out == ""


def test_network_study_arms_report_the_numpy_arms_metrics():
    from core.deep.claims import deep_attack_claims, deep_attack_study, network_population_arm
    from core.modelprivacy.claims import population_arm

    kw = dict(data="wine", train_size=20, models=3, epochs=3, attacks=("loss",))
    net = network_population_arm(1, victim="mlp", **kw)
    ref = population_arm(1, victim="ffnn", **kw)
    assert set(net) == set(ref)
    assert 0.0 <= net["auc_loss"] <= 1.0
    # every claim names arms of the study; a subset of arms keeps only its claims
    study = deep_attack_study(n=2)
    names = {a.name for a in study.arms}
    assert all({c.a, c.b} <= names for c in deep_attack_claims())
    assert [c.a for c in deep_attack_claims(["gru", "mlp-h8"])] == ["gru", "mlp-h8", "gru"]
