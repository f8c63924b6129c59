"""Network victims in the model privacy lab: the study, its JSON, DP-SGD's accounting."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from core.cli.main import run_cli
from core.deep.victims import network_victim
from core.modelprivacy.data import load_dataset, text_dataset
from core.modelprivacy.study import MiaSetup, mia_json_keys, run_mia


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_mia_on_a_gru_victim_runs_the_lab_unchanged():
    d = load_dataset("digits")
    setup = MiaSetup(victim="gru", shadows=2, train_size=60, epochs=8, hidden=16)
    res = run_mia(d, setup, seed=3, networks=network_victim)
    js = res.to_json()
    assert set(mia_json_keys()) <= set(js)
    assert js["victim"] == "gru" and js["epsilon"] is None
    assert 0.0 <= js["attack_accuracy"] <= 1.0 and js["train_accuracy"] >= js["test_accuracy"]
    again = run_mia(d, setup, seed=3, networks=network_victim).to_json()
    assert again["attack_accuracy"] == js["attack_accuracy"]  # seeded: reproducible


def test_a_network_victim_without_the_factory_is_refused():
    from core.common.errors import InputError

    with pytest.raises(InputError, match="deep"):
        run_mia(load_dataset("wine"), MiaSetup(victim="mlp", train_size=10, shadows=1),
                seed=1)


def test_mia_model_dpsgd_states_the_accountant_dpsgd_numbers():
    code, out, err = _cli("mia", "--data", "digits", "--model", "mlp", "--defense", "dpsgd",
                          "--epsilon", "4", "--train-size", "80", "--shadows", "1",
                          "--seed", "2", "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["victim"] == "mlp" and js["defense"] == "dpsgd"
    code, out2, _ = _cli("accountant", "dpsgd", "--sigma", repr(js["sigma"]),
                         "--sample-rate", repr(js["sample_rate"]), "--steps",
                         str(js["steps"]), "--delta", repr(js["delta"]), "--json")
    assert code == 0
    acc = json.loads(out2)
    assert acc["epsilon"] == pytest.approx(js["epsilon"], rel=1e-12)
    assert js["epsilon"] <= 4.0 + 1e-9 and js["accuracy_cap"] is not None
    assert js["attack_accuracy"] <= js["accuracy_cap"] + 0.15  # the cap, with 80 trials' slack


def test_victim_and_model_together_are_refused():
    code, _, err = _cli("mia", "--data", "digits", "--model", "mlp", "--victim", "rnn")
    assert code == 2 and "--model" in err and len(err.strip().splitlines()) == 1


def test_the_text_task_is_learnable_by_an_lstm():
    from core.deep.dpsgd import DpTrainer
    from core.deep.nets import build_network
    from core.modelprivacy.models import TrainConfig

    d = text_dataset()
    net = build_network("lstm", d, hidden=24)
    th = DpTrainer(net, TrainConfig(epochs=6, batch=32, lr=0.1)).fit(
        d.X[:1200], d.y[:1200], rng=np.random.default_rng(0))
    acc = (net.predict_proba(th, d.X[1500:]).argmax(1) == d.y[1500:]).mean()
    assert acc > 0.6   # chance 0.25
