"""Build the four-startups MDP by hand in the PrivPlan window, analyse it, picture it.

Every step is what a person does with the mouse and keyboard (README, "Drawing an MDP"):
File ▸ New Project, double-click the canvas for each state, rename it in the Inspector
(F2), select a state and press A for each action, drag from an action's dot to a state,
type the probabilities into the Inspector's table and the rewards into its fields. The
script then saves the project, runs the privacy sweep (F5) and "Synthesise & bound" (F6)
so that π̄ and v̲ ≤ V̄ ≤ v̄ are on the drawing, and saves a picture of the window.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python tools/build_four_startups.py

writes ``docs/four_startups_drawn.privplan.json`` and ``docs/screenshot-editor.png``.
The numbers are the illustrative placeholder of :func:`core.mdp.examples.four_startups`
(the papers publish none).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Success chance q_i and cost c_i of acquiring startup i (core.mdp.examples.four_startups).
STARTUPS = [(0.2, 0.05), (0.4, 0.2), (0.6, 0.4), (0.8, 0.7)]
EPS0 = 0.01  # chance of staying in "start" whatever the action
POSITIONS = {"start": (0.0, 0.0), "success": (320.0, -140.0), "failure": (320.0, 140.0)}


def _type(edit, text: str) -> None:
    """Type into a field of the Inspector and press Enter."""
    edit.setFocus()
    edit.selectAll()
    edit.setText(text)
    edit.setModified(True)
    edit.editingFinished.emit()


def _type_p(ws, target: str, p: float) -> None:
    """Type a probability into the Inspector's next-state table."""
    from PySide6.QtCore import Qt

    table = ws.inspector.table_model
    for row in range(table.rowCount()):
        if table.data(table.index(row, 0), Qt.ItemDataRole.EditRole) == target:
            if not table.setData(table.index(row, 1), f"{p:.12g}", Qt.ItemDataRole.EditRole):
                raise RuntimeError(f"p({target}) = {p} was refused")
            return
    raise KeyError(target)


def draw_four_startups(window):
    """Draw the MDP in ``window`` (a fresh project) and return its workspace."""
    from gui.shell.commands import RenameProjectCommand

    window.new_project()  # File ▸ New Project: one empty MDP, open for drawing
    doc = window.document
    doc.push(RenameProjectCommand(doc, "Four startups"))  # Edit ▸ Rename Project…
    ws = window.active_workspace()
    view, inspector = ws.mdp_view, ws.inspector
    _type(inspector.model_name, "four startups (drawn by hand)")
    inspector.horizon_spin.setValue(3)  # finite horizon T = 3, γ = 1 (the defaults)
    ids = {}
    for name, pos in POSITIONS.items():  # double-click the canvas, then F2 to rename
        ids[name] = view.add_state_at(pos)
        view.rename_selection()
        _type(inspector.state_name, name)
    ws.editor.select_ids([ids["success"]])
    _type(inspector.terminal_edit, "1")  # R_T(success) = 1
    for i, (q, cost) in enumerate(STARTUPS, start=1):
        ws.editor.select_ids([ids["start"]])
        (aid,) = ws.editor.add_action()  # A
        _type(inspector.action_name, f"acquire_{i}")
        _type(inspector.reward_edit, f"{-cost:g}")
        view.connect_action(aid, ids["start"])  # drag from the action's dot to "start"
        ws.editor.select_ids([aid])
        for target, p in (("start", EPS0), ("success", round(q * (1 - EPS0), 12)),
                          ("failure", round((1 - q) * (1 - EPS0), 12))):
            _type_p(ws, target, p)
    for name, row in (("success", (EPS0, 1 - 2 * EPS0, EPS0)),
                      ("failure", (EPS0, EPS0, 1 - 2 * EPS0))):
        ws.editor.select_ids([ids[name]])
        (aid,) = ws.editor.add_action()
        _type(inspector.action_name, "stay")
        view.connect_action(aid, ids[name])
        ws.editor.select_ids([aid])
        for target, p in zip(("start", "success", "failure"), row):
            _type_p(ws, target, p)
    ws.editor.select_ids([])
    return ws


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--project", default=str(ROOT / "docs" / "four_startups_drawn.privplan.json"))
    p.add_argument("--screenshot", default=str(ROOT / "docs" / "screenshot-editor.png"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--size", default="1500x950", help="window size WxH (default 1500x950)")
    args = p.parse_args(argv)
    from gui.shell.app import parse_size

    try:
        size = parse_size(args.size)
    except ValueError as exc:
        print(f"build_four_startups: --size: {exc}", file=sys.stderr)
        return 2

    import os
    import tempfile

    # autosave copies of this scripted session go to a scratch folder (removed on close)
    os.environ.setdefault("PRIVPLAN_RECOVERY_DIR", os.path.join(tempfile.gettempdir(),
                                                                "privplan-tools-recovery"))
    import pyqtgraph as pg
    import PySide6  # noqa: F401
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from core.mdp.examples import four_startups
    from core.project.model import Project
    from gui.shell.document import ProjectDocument
    from gui.shell.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("PrivPlanTools")
    app.setApplicationName("PrivPlanTools")
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    window = MainWindow(ProjectDocument(Project()), use_settings=False)
    window.resize(*size)
    window.show()
    app.processEvents()
    ws = draw_four_startups(window)
    doc = window.document
    mdp = doc.mdp_entry(ws.mdp_id).mdp
    ref = four_startups()
    same = (mdp.state_names == ref.state_names and (mdp.P == ref.P).all()
            and (mdp.R == ref.R).all() and (mdp.R_T == ref.R_T).all()
            and mdp.horizon == ref.horizon and mdp.discount == ref.discount)
    print(f"drawn with {doc.undo_stack.count()} undoable edits; {doc.summary(ws.mdp_id)}; "
          f"{'identical to' if same else 'DIFFERENT from'} core.mdp.examples.four_startups()")

    def wait(runner) -> None:
        loop = QEventLoop()
        runner.finished.connect(loop.quit)
        QTimer.singleShot(600_000, loop.quit)
        if runner.is_running:
            loop.exec()

    ws.analysis_panel.set_parameters(seed=args.seed, seeded=True, workers=args.workers)
    if window.run_analysis():  # F5: the privacy sweep (Figure 2.1)
        wait(ws.runner)
    ws.analysis_panel.bounds_k_spin.setValue(100.0)
    if window.run_bounds():  # F6: π̄ and its bounds on the drawing
        wait(ws.runner)
    if not window.save_to(args.project):
        return 1
    print(f"saved {args.project} ({len(doc.project.runs)} runs recorded)")
    ws.editor.select_ids([doc.model(ws.mdp_id).action_ids[0][1]])  # acquire_2 in the Inspector
    window.statusBar().clearMessage()
    for _ in range(3):
        app.processEvents()
    settle = QEventLoop()
    QTimer.singleShot(400, settle.quit)
    settle.exec()
    ok = window.grab().save(args.screenshot)
    print(f"{'wrote' if ok else 'could not write'} {args.screenshot}")
    window.discard_and_close()
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
