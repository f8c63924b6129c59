"""Without the optional ``deep`` extra (this venv has no JAX), every network command fails
with exit 2 and one line naming the extra, and nothing else changes."""

from __future__ import annotations

import importlib.util
import io

import pytest

from core.cli.main import run_cli

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is not None,
                                reason="JAX is installed here (the deep suite covers it)")


@pytest.mark.parametrize("argv", [
    ["mia", "--data", "digits", "--model", "gru", "--seed", "1"],
    ["mia", "--data", "digits", "--model", "mlp", "--attack", "lira", "--seed", "1"],
    ["mia", "--data", "digits", "--model", "gru", "--attack", "loss", "--defense", "dpsgd"],
    ["mia", "--data", "digits", "--model", "lstm", "--attack", "canary", "--seed", "1"],
    ["share", "gym:CartPole-v1", "--agent", "ppo", "--seed", "1"],
    ["drl", "--random", "7", "--agent", "dqn", "--seed", "1"],
    ["comarl", "--agent", "net", "--seed", "1"],
])
def test_network_commands_name_the_extra(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(argv, out=out, err=err)
    assert code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "install privplan[deep]" in lines[0], lines
    assert "Traceback" not in err.getvalue() and out.getvalue() == ""


def test_core_deep_imports_and_reports_what_is_missing():
    import core.deep as deep

    assert not deep.available() and "jax" in deep.missing()
    with pytest.raises(deep.DeepUnavailable, match=r"install privplan\[deep\]"):
        deep.require("--model")
