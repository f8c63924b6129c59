"""The DP Advising tab's experiment and ``advise-bench --record`` leave the same run record:
both build an AdviseBenchParameters, run it through advise_bench_release and record it with
advise_bench_run_record (the same params, summary and ledger entries for the same inputs)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from core.cli.main import run_cli
from core.project.files import load_project, save_project
from core.project.model import Project
from gui.advising.panel import AdvisingPanel
from gui.shell.document import ProjectDocument


def _timeless(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _timeless(v) for k, v in x.items() if k not in ("elapsed_s", "time", "id")}
    if isinstance(x, list):
        return [_timeless(v) for v in x]
    return x


def test_the_tab_and_the_command_record_the_same_experiment(qtbot, tmp_path: Path) -> None:
    doc = ProjectDocument(Project(name="t"))
    panel = AdvisingPanel(doc)
    qtbot.addWidget(panel)
    try:
        panel.load_preset("exp2")
        f = panel.fields["epochs"]
        f.edit.setText("4")
        f.edit.editingFinished.emit()
        panel.set_run_options(kind="exp2", seeded=True, seed=4, seeds=2, workers=1)
        with qtbot.waitSignal(panel.runner.finished, timeout=60000):
            assert panel.run()
    finally:
        panel.shutdown()
    [window] = doc.project.runs
    path = tmp_path / "p.privplan.json"
    save_project(Project(name="p"), path)
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["advise-bench", "--experiment", "exp2", "--seeds", "2", "--seed", "4",
                    "--epochs", "4", "--workers", "1", "--record", str(path), "--json"], out, err)
    assert code == 0, err.getvalue()
    project = load_project(path)
    [command] = project.runs
    assert json.loads(out.getvalue())["recorded"]["run"] == command.id
    assert (command.kind, command.target, command.mode, command.seed) == (
        window.kind, window.target, window.mode, window.seed)
    assert command.params == window.params
    assert _timeless(command.summary) == _timeless(window.summary)

    def entries(p: Project, run: str) -> list[Any]:
        return [_timeless({**e.to_dict(), "source": e.source.replace(run, "RUN"),
                           "released": e.released.replace(run, "RUN")}) for e in p.ledger]

    assert entries(project, command.id) == entries(doc.project, window.id) != []
