"""The command line's sweep builds its SweepParameters from the flags (the window's object and
checks): every field the object can refuse is renamed to the flag that sets it, and a refused
value is one line naming the flag, exit 2."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
from cli_run import cli

from core.cli.common import flag_error
from core.cli.mdp import _SWEEP_FLAGS, _sweep_parameters
from core.common.errors import InputError

FOUR = str(Path(__file__).resolve().parents[3] / "assets" / "examples" /
           "four_startups.mdp.json")


def _args(**over: object) -> argparse.Namespace:
    base = dict(runs=3, beta=0.05, alpha="paper", seed=None, b=0.1, delta=0.05,
                adjacency="one-row", eta="auto", domain_rule="mix", delta_method="auto",
                policy=None, softmax=None)
    return argparse.Namespace(**{**base, **over})


def test_the_flags_become_the_windows_parameters() -> None:
    p = _sweep_parameters(_args(seed=4, softmax=0.5), [10.0, 100.0], 2)
    assert p.ks == (10.0, 100.0) and p.seeded and p.seed == 4 and p.workers == 2
    assert p.policy_source == "softmax" and p.temperature == 0.5 and p.policy_file is None
    drawn = _sweep_parameters(_args(), [10.0], None)
    assert not drawn.seeded and drawn.seed is None and drawn.workers == (os.cpu_count() or 1)
    table = _sweep_parameters(_args(policy="/some/where/pi.csv"), [10.0], 1)
    assert table.policy_source == "table" and table.policy_file == "pi.csv"


@pytest.mark.parametrize("over,flag", [
    ({"runs": 0}, "--runs"), ({"beta": 1.0}, "--beta"), ({"alpha": "loose"}, "--alpha"),
    ({"seed": -1}, "--seed"), ({"b": 0.0}, "--b"), ({"delta": 0.0}, "--delta"),
    ({"adjacency": "all"}, "--adjacency"), ({"eta": "2/n"}, "--eta"),
    ({"domain_rule": "drop"}, "--domain-rule"), ({"delta_method": "guess"}, "--delta-method"),
    ({"softmax": 0.0}, "--softmax")])
def test_each_refused_field_is_named_by_its_flag(over: dict, flag: str) -> None:
    with pytest.raises(InputError) as info:
        _sweep_parameters(_args(**over), [10.0], 1)
    assert flag_error(info.value, _SWEEP_FLAGS).field == flag


def test_workers_and_k_are_named_by_their_flags() -> None:
    for ks, workers, flag in (([10.0], 0, "--workers"), ([], 1, "--k"), ([0.0], 1, "--k")):
        with pytest.raises(InputError) as info:
            _sweep_parameters(_args(), ks, workers)
        assert flag_error(info.value, _SWEEP_FLAGS).field == flag


@pytest.mark.parametrize("argv,needle", [
    (("--delta", "1"), "--delta: must lie strictly between 0 and 1"),
    (("--softmax", "0"), "--softmax: must be a finite number > 0"),
    (("--b", "0"), "--b: must lie in [1e-12, 1]")])
def test_a_refused_flag_is_one_line_and_exit_2(argv: tuple[str, ...], needle: str) -> None:
    code, out, err = cli("sweep", FOUR, "--k", "10", "--runs", "2", "--seed", "1",
                         "--workers", "1", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err
