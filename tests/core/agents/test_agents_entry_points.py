"""The command line and the Agents tab run DP-DRL and co-MARL through the one entry point of
each action (drl_release, comarl_release), never the learners directly."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CALLERS = ("core/cli/agents.py", "core/cli/deep.py", "gui/agents/tasks.py",
           "gui/agents/network_runner.py")


@pytest.mark.parametrize("entry, learners", [
    ("drl_release(", ("train_agent(", "train_dqn(", "recover_map(")),
    ("comarl_release(", ("train_vdn(", "train_vdn_net(", "team_grid(")),
])
def test_cli_and_window_call_the_entry_point(entry: str, learners: tuple[str, ...]) -> None:
    texts = {p: (ROOT / p).read_text(encoding="utf-8") for p in CALLERS}
    cli = texts["core/cli/agents.py"] + texts["core/cli/deep.py"]
    gui = texts["gui/agents/tasks.py"] + texts["gui/agents/network_runner.py"]
    assert cli.count(entry) >= 2 and gui.count(entry) >= 2
    for path, text in texts.items():
        for name in learners:
            assert name not in text, f"{path} calls {name} itself"
