"""``--record`` on the command line respects the project's budgets.

A release that would take a dataset of the project past its budget is refused (exit 2, one
line naming the dataset, what it has spent and its budget), nothing is written, unless
``--over-budget`` is given. Seeded experiments are listed, not spent, so they never are.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from cli_run import cli

from core.cli.main import run_cli
from core.project.files import load_project, save_project

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"


def _with_budgets(path: Path, budgets: dict[str, tuple[float, float]]) -> bytes:
    p = load_project(path)
    p.budgets = {ds: {"epsilon": e, "delta": d} for ds, (e, d) in budgets.items()}
    save_project(p, path)
    return path.read_bytes()


def _refused(code: int, out: str, err: str, dataset: str) -> None:
    assert code == 2 and out == "" and err.count("\n") == 1, (code, err)
    assert dataset in err and "spent" in err and "budget" in err and "--over-budget" in err


@pytest.fixture
def map_project(tmp_path: Path) -> Path:
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.project.model import Project

    p = Project(name="routes")
    p.maps.append(MapEntry("map-1", fig41()))
    path = tmp_path / "routes.privplan.json"
    save_project(p, path)
    return path


def test_plan_release_past_a_budget_is_refused_unless_over_budget(map_project: Path) -> None:
    agents = load_project(map_project).maps[0].world.agents
    before = _with_budgets(map_project, {f"agent:{a}": (0.5, 0.0) for a in agents})
    argv = ["plan", map_project, "--origin", "a1", "--goal-agent", "f", "--epsilon", "1",
            "--record"]
    code, out, err = cli(*argv)  # release mode: OpenDP noise
    _refused(code, out, err, "agent:")
    assert map_project.read_bytes() == before          # nothing written
    # a seeded experiment is listed, not spent: it is recorded whatever the budget
    code, out, err = cli(*argv, "--seed", "3", "--json")
    assert code == 0, err
    assert len(load_project(map_project).runs) == 1
    code, out, err = cli(*argv, "--over-budget", "--json")
    assert code == 0, err
    after = load_project(map_project)
    assert len(after.runs) == 2 and json.loads(out)["recorded"]["run"] == after.runs[-1].id
    assert "over the budget" in err


def test_share_release_past_the_model_budget_is_refused(tmp_path: Path) -> None:
    from core.mdp.model import MDP
    from core.project.model import Project

    P = np.zeros((4, 2, 4))
    for s in range(4):
        P[s, 0, max(s - 1, 0)] = 1.0
        P[s, 1, min(s + 1, 3)] = 1.0
    R = np.zeros((4, 2))
    R[2, 1] = 1.0
    p = Project()
    p.add_mdp(MDP(P=P, R=R, horizon=None, discount=0.9), "chain")
    path = tmp_path / "c.privplan.json"
    save_project(p, path)
    before = _with_budgets(path, {"mdp:chain": (5.0, 0.5)})
    argv = ["share", path, "--mdp", "chain", "--k0", "20", "--coef", "0.9", "--eta", "0.1",
            "--delta", "0.01", "--budget", "1e6,0.9", "--seeds", "1", "--students", "aware",
            "--iterations", "3", "--draws", "2000", "--record"]
    _refused(*cli(*argv), "mdp:chain")
    assert path.read_bytes() == before
    code, _, err = cli(*argv, "--over-budget")
    assert code == 0, err
    assert load_project(path).runs[-1].kind == "sharing"


def test_advise_release_past_a_budget_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    before = _with_budgets(path, {"advising:exp2:u1": (0.5, 0.0)})
    argv = ["advise", "--preset", "exp2", "--epochs", "30", "--record", path, "--summary"]
    _refused(*cli(*argv), "advising:exp2:u1")
    assert path.read_bytes() == before
    code, _, err = cli(*argv, "--seed", "2")
    assert code == 0, err


def test_over_budget_flag_exists_wherever_record_does(capsys) -> None:
    for argv in (["sweep", "x", "--help"], ["plan", "x", "--help"], ["share", "x", "--help"],
                 ["advise", "--help"], ["mia", "--help"], ["audit", "laplace", "--help"]):
        assert run_cli(argv, err=io.StringIO()) == 0
        assert "--over-budget" in capsys.readouterr().out, argv
