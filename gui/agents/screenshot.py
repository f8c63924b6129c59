"""Picture the Private agents workspace:
``python -m gui.agents.screenshot docs/screenshot-agents.png [--team]``.

Opens the main window on the built-in example, adds a random 9x9 map, trains the agent with
DP-DRL and attacks it (or, with ``--team``, trains PE-VDN), waits and saves a PNG.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gui.agents.screenshot")
    p.add_argument("out", metavar="OUT.png")
    p.add_argument("--team", action="store_true")
    p.add_argument("--episodes", type=int, default=1500)
    p.add_argument("--size", default="1500x950")
    p.add_argument("--timeout", type=float, default=600.0)
    args = p.parse_args(argv)
    import PySide6  # noqa: F401  (before pyqtgraph)

    from gui.shell.preview import open_tool_window, save_screenshot, settle, wait_for

    app, window, panel = open_tool_window("agents", args.size)
    if args.team:
        panel.tabs.setCurrentIndex(1)
        panel.dp_check.setChecked(True)
    else:
        panel.add_random_grid()
        panel.episodes_spin.setValue(args.episodes)
    started = panel.run()
    if started:
        wait_for(panel.runner, args.timeout)
    status = "ok" if started and panel.shown_run is not None else (
        panel.run_problem or "timeout")
    settle(app, 400)
    return save_screenshot(app, window, str(Path(args.out)), what="private agents",
                           failure=None if status == "ok" else
                           f"the run did not finish ({status})")


if __name__ == "__main__":
    sys.exit(main())
