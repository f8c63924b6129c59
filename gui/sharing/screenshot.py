"""Picture the Policy sharing workspace: ``python -m gui.sharing.screenshot OUT.png``.

Opens the main window on the built-in example, opens the Policy sharing tab, runs one
seeded study (FrozenLake 8×8 when gymnasium is installed, else the four-startups MDP) in the
tab's worker, waits for it and saves a PNG of the window. Under a real X server:
``xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m gui.sharing.screenshot
docs/screenshot-sharing.png``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gui.sharing.screenshot")
    p.add_argument("out", metavar="OUT.png")
    p.add_argument("--size", default="1600x1000")
    p.add_argument("--timeout", type=float, default=300.0)
    args = p.parse_args(argv)
    import PySide6  # noqa: F401  (before pyqtgraph)

    from core.sharing import gym_available
    from gui.shell.preview import open_tool_window, save_screenshot, settle, wait_for

    app, window, panel = open_tool_window("sharing", args.size)
    env = "gym:FrozenLake-v1:8x8" if gym_available() else "mdp:four-startups"
    # the budget covers every noisy student run (5 seeds x aware/unaware here)
    panel.set_parameters(env=env, seed=1, seeds=5, iterations=300, coef=0.9, eta=0.1,
                         delta=1e-4, budget_e=1e5, budget_d=0.9)
    if panel.run():
        wait_for(panel.runner, args.timeout)
    settle(app, 400)
    return save_screenshot(app, window, str(Path(args.out)), what="policy sharing",
                           failure=None if panel.study is not None else
                           "the study did not finish")


if __name__ == "__main__":
    sys.exit(main())
