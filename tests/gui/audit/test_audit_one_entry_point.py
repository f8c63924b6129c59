"""The Audit tab and ``audit MECHANISM …`` build the same AuditParameters for the same inputs,
and both run it through the one entry point, core.audit.audit_release, and record it with
core.project.recording.audit_run_record."""

from __future__ import annotations

import io
from typing import Any

import pytest

from core.audit import AuditParameters, AuditResult
from core.cli.audit import audit_parameters
from core.cli.main import build_parser, run_cli
from gui.audit.panel import AuditPanel

# mechanism → (its fields in the window, the same values on the command line)
CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "laplace": ({"epsilon": 0.7, "sensitivity": 2.0},
                ["--epsilon", "0.7", "--sensitivity", "2"]),
    "exponential": ({"epsilon": 1.5, "sensitivity": 3.0},
                    ["--epsilon", "1.5", "--sensitivity", "3"]),
    "dirichlet": ({"k": 20.0, "eta": 0.1, "eta_bar": 0.2, "w": 3, "b": 0.05, "delta": 0.01,
                   "analysis": "W"},
                  ["--k", "20", "--eta", "0.1", "--eta-bar", "0.2", "--w", "3", "--b", "0.05",
                   "--delta", "0.01", "--analysis", "W"]),
    "sharing": ({"k": 5.0, "m": 4, "eta": 0.05, "lb": 0.05, "delta": 0.1, "bound": "paper"},
                ["--k", "5", "--m", "4", "--eta", "0.05", "--lb", "0.05", "--delta", "0.1",
                 "--bound", "paper"]),
    "advising": ({"epsilon": 2.0, "variant": "thesis"},
                 ["--epsilon", "2", "--variant", "thesis"]),
    "logistics": ({"epsilon": 0.5, "preset": "thesis"},
                  ["--epsilon", "0.5", "--preset", "thesis"]),
}
#: what the command line gives that the window has no field for (always its default there)
CLI_ONLY = {"exponential": {"monotonic": False}, "dirichlet": {"delta_method": "auto"}}


@pytest.fixture
def panel(qtbot, example_doc):
    p = AuditPanel(example_doc)
    qtbot.addWidget(p)
    yield p
    p.shutdown()


def _cli(mech: str, argv: list[str], *run: str) -> AuditParameters:
    args = build_parser().parse_args(["audit", mech, *argv, *run])
    return audit_parameters(args)


@pytest.mark.parametrize("mech", sorted(CASES))
def test_the_window_and_the_command_line_build_equal_parameters(panel, mech: str) -> None:
    fields, argv = CASES[mech]
    panel.set_parameters(mech, samples=30_000, seed=12, confidence=0.9, **fields)
    gui = panel.audit_parameters()
    cli = _cli(mech, argv, "--samples", "30000", "--seed", "12", "--confidence", "0.9")
    extra = CLI_ONLY.get(mech, {})
    assert dict(cli.params) == {**gui.params, **extra}
    assert gui.full() == cli.full()  # what the audit reads is the same
    if not extra:
        assert gui == cli
    # release mode: no seed on either side
    panel.set_parameters(seed=None)
    assert panel.audit_parameters().seed is None and _cli(mech, argv).seed is None


def test_both_run_the_one_entry_point_and_record_alike(qtbot, panel, example_doc,
                                                        monkeypatch, tmp_path) -> None:
    import core.audit
    import gui.audit.panel as panel_module
    from core.audit.run import audit_release as real
    from core.project.files import load_project, save_project
    from core.project.model import Project

    calls: list[AuditParameters] = []

    def spy(params: AuditParameters, progress: Any = None, cancelled: Any = None
            ) -> AuditResult:
        calls.append(params)
        return real(params, progress, cancelled)

    monkeypatch.setattr(panel_module, "audit_release", spy)
    monkeypatch.setattr(core.audit, "audit_release", spy, raising=False)
    panel.set_parameters("laplace", epsilon=1.0, sensitivity=1.0, samples=2000, seed=4,
                         confidence=0.95)
    with qtbot.waitSignal(panel.runner.finished, timeout=60_000):
        assert panel.run()
    path = tmp_path / "p.privplan.json"
    save_project(Project(), path)
    code = run_cli(["audit", "laplace", "--epsilon", "1", "--sensitivity", "1", "--samples",
                    "2000", "--seed", "4", "--record", str(path)], io.StringIO(), io.StringIO())
    assert code == 0
    assert len(calls) == 2 and calls[0] == calls[1]
    window_run = example_doc.run(panel.shown_run)
    cli_run = load_project(path).runs[-1]
    assert window_run.params == cli_run.params == calls[0].to_dict()
    drop = {"elapsed_s"}
    assert ({k: v for k, v in window_run.summary.items() if k not in drop}
            == {k: v for k, v in cli_run.summary.items() if k not in drop})
