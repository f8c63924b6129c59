"""Picture the Logistics map workspace: ``python -m gui.logistics.screenshot OUT.png``.

Opens the main window on the built-in example project, opens the Logistics map tab, adds
the fig41 reconstruction (or the built-in generated 30-center world), plans a task as a
seeded experiment in the tab's worker, shows one results tab and saves a PNG of the whole
window. With ``--experiments`` it runs a benchmark (B2 by default) on the Experiments tab
instead and pictures its plots; with ``--packet fig411`` (or fig49, fig410) it runs that
packet-routing study on the Packet routing tab. Run it under a real X server for true fonts, e.g.::

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m gui.logistics.screenshot \\
        docs/screenshot-logistics.png
    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m gui.logistics.screenshot \\
        --experiments docs/screenshot-logistics-experiments.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]

TABS = ("route", "agents", "obfuscation", "centers", "ledger", "learning")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gui.logistics.screenshot",
                                description="Save a PNG of the Logistics map workspace.")
    p.add_argument("out", metavar="OUT.png")
    p.add_argument("--map", choices=("fig41", "generated30", "air", "rover"), default="fig41",
                   help="air/rover: the domain examples (thesis 4.7.2-4.7.3), opened from the "
                        "project tree's Examples")
    p.add_argument("--origin", default="a2", help="origin base (default a2, fig41's task)")
    p.add_argument("--goal-agent", default="f")
    p.add_argument("--epsilon", default="0.5")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tab", choices=TABS, default="agents", help="results tab to show")
    p.add_argument("--solver", choices=("dijkstra", "rl"), default="dijkstra",
                   help="Step 3's high-level solver (rl: thesis 4.5.3, see --tab learning)")
    p.add_argument("--agent", default="", help="agent shown in the Fig 4.4 tab")
    p.add_argument("--experiments", action="store_true",
                   help="run a benchmark and picture the Experiments tab instead")
    p.add_argument("--benchmark", default="B2")
    p.add_argument("--packet", choices=("fig49", "fig410", "fig411"), default=None,
                   help="run this packet-routing study and picture its tab instead")
    p.add_argument("--sizes", type=int, default=None,
                   help="--packet fig410/fig411: access points (default the thesis's 10)")
    p.add_argument("--worlds", type=int, default=20, help="worlds per point (default 20)")
    p.add_argument("--workers", type=int, default=None, help="processes (default min(2, CPUs))")
    p.add_argument("--size", default="1600x1000", help="window size WxH (default 1600x1000)")
    p.add_argument("--timeout", type=float, default=900.0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import PySide6  # noqa: F401  (before pyqtgraph)

    from gui.shell.main_window import MainWindow
    from gui.shell.preview import (
        ensure_app,
        example_document,
        save_screenshot,
        settle,
        wait_for,
    )

    app = ensure_app()
    doc = example_document()
    window = MainWindow(doc, use_settings=False)
    w, h = (int(v) for v in args.size.lower().split("x"))
    window.resize(w, h)
    window.show()
    app.processEvents()
    panel = window.open_tool("logistics")
    from gui.logistics.panel import LogisticsPanel  # after the window: the tools' order

    assert isinstance(panel, LogisticsPanel)
    status = "ok"
    if args.packet:
        panel.pages.setCurrentIndex(2)
        pk = panel.packet
        pk.set_options(experiment=args.packet, worlds=args.worlds, seed=args.seed,
                       workers=args.workers, sizes=args.sizes)
        if pk.run():
            wait_for(pk.runner, args.timeout)
            status = "ok" if pk.summary is not None else "not finished"
        else:
            status = "not started"
    elif args.experiments:
        panel.pages.setCurrentIndex(1)
        ex = panel.experiments
        ex.set_options(benchmark=args.benchmark, worlds=args.worlds, seed=args.seed,
                       workers=args.workers)
        if ex.run():
            wait_for(ex.runner, args.timeout)
            status = "ok" if ex.summary is not None else "not finished"
        else:
            status = "not started"
    else:
        if args.map in ("air", "rover"):
            window.open_example(f"logistics:{args.map}")
        else:
            (panel.load_generated30 if args.map == "generated30" else panel.load_fig41)()
        if args.map == "fig41" or args.origin != "a2":
            panel.planner.set_task(args.origin, args.goal_agent)
        panel.planner.set_plan_options(epsilon=args.epsilon, seed=args.seed,
                                       solver=args.solver)
        if panel.run():
            wait_for(panel.runner, args.timeout)
            status = "ok" if panel.shown_run else "not finished"
        else:
            status = f"not started: {panel.run_problem}"
        panel.results.show_tab(args.tab)
        if args.agent:
            panel.results.obfuscation.select_agent(args.agent)
        panel.splitter.setSizes([int(h * 0.48), int(h * 0.52)])
    settle(app, 500)
    if not (args.experiments or args.packet):
        panel.canvas.fit_to_view()
        for v in (panel.results.agent_map, panel.results.center_graph.view,
                  panel.results.obfuscation.true_view, panel.results.obfuscation.obf_view,
                  panel.results.route_tab.canvas):
            v.fit_to_view()
    app.processEvents()
    return save_screenshot(app, window, str(Path(args.out)), what="logistics",
                           failure=None if status == "ok" else status)


if __name__ == "__main__":
    sys.exit(main())
