"""Picture the DP-advising workspace: ``python -m gui.advising.screenshot OUT.png``.

Opens the main window on the built-in example project, opens the DP Advising tab, loads
an experiment preset (Experiment 1 by default), runs it as a seeded experiment over a few
seeds in the tab's worker, waits for the result, shows the chosen results tab and saves a
PNG of the whole window. Run it under a real X server for true fonts, e.g.
``xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python -m gui.advising.screenshot
docs/screenshot-advising.png --size 1366x768`` (a laptop's screen, as the guide shows it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]

TABS = ("curves", "sweep", "timeline", "budgets", "ledger", "claims", "tables")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gui.advising.screenshot",
                                description="Save a PNG of the DP-advising workspace after "
                                            "running an experiment.")
    p.add_argument("out", metavar="OUT.png")
    p.add_argument("--experiment", choices=("exp1", "exp2", "exp3"), default="exp1")
    p.add_argument("--also", choices=("exp1", "exp2", "exp3"), action="append", default=[],
                   help="run these experiments first (their claims fill the claims table)")
    p.add_argument("--seeds", type=int, default=8, help="seeds per arm (default 8)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--workers", type=int, default=None, help="processes (default min(2, CPUs))")
    p.add_argument("--tab", choices=TABS, default="curves", help="results tab to show")
    p.add_argument("--size", default="1500x950", help="window size WxH (default 1500x950)")
    p.add_argument("--timeout", type=float, default=300.0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import PySide6  # noqa: F401  (before pyqtgraph)

    from gui.shell.preview import open_tool_window, save_screenshot, settle, wait_for

    app, window, panel = open_tool_window("advising", args.size)
    status = "ok"

    recorded: list[str] = []
    panel.run_recorded.connect(recorded.append)

    def run(kind: str) -> str:
        panel.load_preset(kind)
        panel.set_run_options(kind=kind, seeded=True, seed=args.seed, seeds=args.seeds,
                              workers=args.workers)
        before = len(recorded)
        if not panel.run():
            return "not started"
        wait_for(panel.runner, args.timeout)
        return "ok" if len(recorded) > before else panel.progress_label.text() or "timeout"

    for kind in [*args.also, args.experiment]:
        status = run(kind)
        if status != "ok":
            break
    panel.results.tabs.setCurrentIndex(TABS.index(args.tab))
    settle(app, 400)
    return save_screenshot(app, window, str(Path(args.out)), what="advising",
                           failure=None if status == "ok" else
                           f"the run did not finish ({status})")

if __name__ == "__main__":
    sys.exit(main())
