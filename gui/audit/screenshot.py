"""Picture the Audit workspace: ``python -m gui.audit.screenshot docs/screenshot-audit.png``.

Opens the main window on the built-in example project, opens the Audit tab, runs one
audit as a seeded experiment in the tab's worker (Laplace at ε = 1 by default), waits for
the result and saves a PNG of the whole window. Under a real X server the fonts are the
true ones, e.g. ``xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m
gui.audit.screenshot docs/screenshot-audit.png``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["main"]

PRESETS: dict[str, dict[str, Any]] = {
    "laplace": {"epsilon": 1.0, "sensitivity": 1.0},
    "exponential": {"epsilon": 1.0, "sensitivity": 1.0},
    "dirichlet": {"k": 10.0, "eta": 0.15, "w": 2, "b": 0.1, "delta": 0.05},
    "advising": {"epsilon": 1.0, "variant": "sound"},
    "logistics": {"epsilon": 1.0, "preset": "sound"},
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gui.audit.screenshot",
                                description="Save a PNG of the Audit workspace after one "
                                            "audit.")
    p.add_argument("out", metavar="OUT.png")
    p.add_argument("--mechanism", choices=tuple(PRESETS), default="laplace")
    p.add_argument("--samples", type=int, default=100_000, help="per side (default 100000)")
    p.add_argument("--seed", type=int, default=7, help="seed (default 7)")
    p.add_argument("--size", default="1500x950", help="window size WxH (default 1500x950)")
    p.add_argument("--timeout", type=float, default=300.0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import PySide6  # noqa: F401  (before pyqtgraph)

    from gui.shell.preview import open_tool_window, save_screenshot, settle, wait_for

    app, window, panel = open_tool_window("audit", args.size)
    panel.set_parameters(args.mechanism, samples=args.samples, seed=args.seed,
                         **PRESETS[args.mechanism])
    started = panel.run()
    if started:
        wait_for(panel.runner, args.timeout)
    status = "ok" if started and panel.shown_run is not None else (
        panel.run_problem or "timeout")
    settle(app, 400)
    return save_screenshot(app, window, str(Path(args.out)), what="audit",
                           failure=None if status == "ok" else
                           f"the audit did not finish ({status})")

if __name__ == "__main__":
    sys.exit(main())
