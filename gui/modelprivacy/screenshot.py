"""Picture the Model privacy workspace:
``python -m gui.modelprivacy.screenshot docs/screenshot-modelprivacy.png [--table]``.

Opens the main window on the built-in example project, opens the Model privacy tab, runs one
study (or, with ``--table``, the defense comparison) as a seeded experiment in the tab's
worker, waits for it and saves a PNG of the whole window.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gui.modelprivacy.screenshot")
    p.add_argument("out", metavar="OUT.png")
    p.add_argument("--table", action="store_true", help="run the defense comparison")
    p.add_argument("--victim", default="ffnn", choices=("ffnn", "rnn"))
    p.add_argument("--defense", default="dpsgd", choices=("none", "dpsgd", "gpm", "oneparam"))
    p.add_argument("--epsilon", type=float, default=4.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--size", default="1500x950")
    p.add_argument("--timeout", type=float, default=600.0)
    args = p.parse_args(argv)
    import PySide6  # noqa: F401  (before pyqtgraph)

    from gui.shell.preview import open_tool_window, save_screenshot, settle, wait_for

    app, window, panel = open_tool_window("modelprivacy", args.size)
    panel.set_parameters(data="digits", victim=args.victim, defense=args.defense,
                         epsilon=args.epsilon, seed=args.seed)
    started = panel.run_table() if args.table else panel.run()
    if started:
        wait_for(panel.runner, args.timeout)
    status = "ok" if started and panel.shown_run is not None else (
        panel.run_problem or "timeout")
    settle(app, 400)
    return save_screenshot(app, window, str(Path(args.out)), what="model privacy",
                           failure=None if status == "ok" else
                           f"the run did not finish ({status})")


if __name__ == "__main__":
    sys.exit(main())
