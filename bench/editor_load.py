"""How long a large model takes to open in the MDP editor, and whether the UI freezes.

Writes ``random_mdp(2000, 4, 10, seed=1)`` (dense: 2,000 × 4 × 2,000 probabilities,
128 MB) as an ``*.mdp.npz`` file, opens it in a PrivPlan main window the way File ▸ Open
does, and reports

* **shown**: from the Open call until the workspace shows the model in the matrix view,
  validated (status bar "model valid ✓");
* **longest UI stall**: the largest gap between ticks of a 10 ms timer on the UI thread
  while that happens (what a person would feel as a freeze);
* the same two numbers for "Synthesise & bound" (k = 100) on the model.

Usage: ``python bench/editor_load.py [--states 2000] [--actions 4] [--horizon 10]``
(offscreen when there is no display). Target: shown in under 10 s, no stall near that.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--states", type=int, default=2000)
    p.add_argument("--actions", type=int, default=4)
    p.add_argument("--horizon", type=int, default=10)
    p.add_argument("--no-bounds", action="store_true", help="only measure opening")
    args = p.parse_args(argv)
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PRIVPLAN_RECOVERY_DIR", os.path.join(tempfile.gettempdir(),
                                                                "privplan-bench-recovery"))

    import PySide6  # noqa: F401
    from PySide6.QtCore import QEventLoop, QTimer, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from core.mdp.examples import random_mdp
    from core.mdp.files import save_mdp
    from core.project.model import Project
    from gui.shell.document import ProjectDocument
    from gui.shell.main_window import MainWindow

    def quiet(mode, context, message):  # the offscreen platform's size-hint notice is noise
        if "propagateSizeHints" not in message:
            sys.stderr.write(message + "\n")

    qInstallMessageHandler(quiet)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("PrivPlanBench")
    app.setApplicationName("PrivPlanBench")

    folder = tempfile.mkdtemp(prefix="privplan-bench-")
    path = os.path.join(folder, f"random{args.states}x{args.actions}.mdp.npz")
    t = time.perf_counter()
    mdp = random_mdp(args.states, args.actions, args.horizon, seed=1)
    save_mdp(mdp, path)
    del mdp
    size_mb = os.path.getsize(path) / 1e6
    print(f"fixture: {args.states} states × {args.actions} actions × horizon {args.horizon}, "
          f"dense, {size_mb:.0f} MB NPZ (written in {time.perf_counter() - t:.1f} s)")

    window = MainWindow(ProjectDocument(Project(name="empty")), use_settings=False)
    window.resize(1500, 950)
    window.show()
    app.processEvents()

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))

    def wait_until(predicate, timeout_s: float) -> bool:
        loop = QEventLoop()
        deadline = time.perf_counter() + timeout_s
        poll = QTimer()
        poll.setInterval(5)
        poll.timeout.connect(lambda: (predicate() or time.perf_counter() > deadline)
                             and loop.quit())
        poll.start()
        loop.exec()
        poll.stop()
        return predicate()

    def stall(start: float) -> float:
        stamps = [start] + [x for x in ticks if x >= start]
        return max((b - a for a, b in zip(stamps, stamps[1:])), default=0.0)

    def shown() -> bool:
        ws = window.active_workspace()
        return (ws is not None and ws.editor.view == "matrix"
                and ws.editor.matrix is not None and ws.editor.matrix.isVisible()
                and window.validity_label.text().startswith("model valid"))

    ticks.clear()
    timer.start()
    t0 = time.perf_counter()
    window.open_path(path)
    ok = wait_until(shown, 120)
    app.processEvents()
    t_shown = time.perf_counter() - t0
    load_stall = stall(t0)
    print(f"open:   shown in {t_shown:.2f} s ({'ok' if ok else 'NOT shown'}); longest UI "
          f"stall {1000 * load_stall:.0f} ms; status: {window.validity_label.text()}")

    if not args.no_bounds and ok:
        ws = window.active_workspace()
        ws.analysis_panel.bounds_k_spin.setValue(100.0)
        runs = len(window.document.project.runs)
        ticks.clear()
        t1 = time.perf_counter()
        window.run_bounds()
        done = wait_until(lambda: len(window.document.project.runs) > runs
                          and not ws.runner.is_running, 600)
        t_bounds = time.perf_counter() - t1
        print(f"bounds: π̄ and v̲/V̄/v̄ for every state in {t_bounds:.2f} s "
              f"({'ok' if done else 'NOT done'}); longest UI stall "
              f"{1000 * stall(t1):.0f} ms")
    timer.stop()
    window.discard_and_close()
    import shutil

    shutil.rmtree(folder, ignore_errors=True)  # the 128 MB fixture
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
