"""Drawing a policy-sharing result, and the mechanism's live panels, as parts of the panel.

:class:`SharingPlots` draws into the plots, labels and table of a
:class:`gui.sharing.views.PlotWidgets` (the four plots, the ternary scatter, the ledger table,
the summary); :class:`LivePreview` recomputes the ε/δ(k) and radius panels in its own worker
as the parameters of a :class:`gui.sharing.views.SetupFields` change. Both keep their own
state; neither sees the panel (:class:`gui.sharing.panel.SharingPanel`), which builds the
widgets and the bundles.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTableWidgetItem, QWidget

from core.sharing import CURVE_RANGE, SharingParameters, SharingStudy
from gui.sharing.texts import COLOURS, STUDENT_LABELS
from gui.sharing.views import PlotWidgets, RecordOutlet, SetupFields
from gui.shell.plots import add_band, pen
from gui.shell.workers import TaskRunner

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["SharingPlots", "LivePreview", "record_study", "study_task"]


class LivePreview:
    """The ε/δ(k) and radius panels, recomputed (debounced) as the parameters change."""

    def __init__(self, document: ProjectDocument, parent: QWidget, inputs: SetupFields,
                 plots: SharingPlots) -> None:
        self._document = document
        self._inputs = inputs
        self._plots = plots
        self.runner = TaskRunner(parent)  # the mechanism's panels, as parameters change
        self.timer = QTimer(parent)
        self.timer.setSingleShot(True)
        self.timer.setInterval(60)
        self.timer.timeout.connect(self._start_live)
        self.runner.succeeded.connect(self._on_live)
        self.shown: Any = None  # (PrivacyCurve, RadiusCurve) drawn by the live panels
        self._closed = False
        self._live_params: Any = (None, None)
        self._live_privacy: Any = None

    def schedule(self) -> None:
        """Recompute soon (the parameters changed)."""
        self.timer.start()

    def shutdown(self) -> None:
        self._closed = True
        self.timer.stop()
        self.runner.shutdown()

    def _env_m(self) -> int | None:
        """The largest action set of the chosen environment (None: none chosen)."""
        key = str(self._inputs.env_combo.currentData() or "")
        if key.startswith("mdp:") and self._document.has_mdp(key[4:]):
            return int(self._document.mdp_entry(key[4:]).mdp.mask.sum(axis=1).max())
        if key.startswith("gym:"):
            from core.sharing import gym_actions, parse_gym_id

            return len(gym_actions(parse_gym_id(key)[0]))
        return None

    def _start_live(self) -> None:
        """Recompute the ε/δ(k) curve (then the radius) for the parameters as typed."""
        if self._closed:
            return
        m = self._env_m()
        if m is None or m < 2:
            return
        try:
            setup = self._inputs.setup()
            from core.sharing import check_sharing

            check_sharing(m, setup.eta, k=setup.k0, tau=setup.tau, lb=setup.lb)
            if setup.delta is not None and not 0 < setup.delta < 1:
                return
        except Exception:  # noqa: BLE001 - a field being typed: Run reports it properly
            return
        from core.sharing import live_privacy

        self._live_params = (setup, m)
        self.runner.start(live_privacy, setup.k0, m, setup.eta, setup.lb, setup.bound,
                          setup.tau, setup.delta, self._inputs.seed())

    def _on_live(self, result: object) -> None:
        from core.sharing import PrivacyCurve, RadiusCurve

        setup, m = self._live_params
        if self._closed or setup is None:
            return
        if isinstance(result, tuple) and isinstance(result[0], PrivacyCurve):
            self._live_privacy = result[0]
            rc = self.shown[1] if self.shown is not None else None
            self._draw_live(result[0], rc)
            from core.sharing import live_radius

            self.runner.start(live_radius, setup.k0, m, setup.eta, setup.lam, setup.beta,
                              self._inputs.seed())
        elif isinstance(result, RadiusCurve):
            self._draw_live(self._live_privacy, result)

    def _draw_live(self, pc: Any, rc: Any) -> None:
        self.shown = (pc, rc)
        self._plots.draw_mechanism(pc, rc)


class SharingPlots:
    """Draws a study (fresh or recorded) into the panel's plots, labels and table."""

    def __init__(self, widgets: PlotWidgets) -> None:
        self._w = widgets
        self.curves: dict[str, Any] = {}  # name -> plotted item (tests read the data back)
        self.bands: dict[str, Any] = {}

    def draw(self, s: dict[str, Any], pc: Any, rc: Any, title: str, m: int, *,
              recorded: str | None = None, tight: Any = None,
              robust: dict[str, Any] | None = None) -> None:
        self._w.curve_plot.getPlotItem().clear()
        self.curves.clear()
        self.bands.clear()
        x = np.asarray(s["iteration"], dtype=float)
        for kind, c in s["curves"].items():
            band = add_band(self._w.curve_plot, x, c["lower"], c["upper"], COLOURS[kind],
                            CURVE_RANGE, fill_alpha=50, edge_alpha=0)
            bottom, top = band.curves
            self.bands[kind] = (top, bottom)
            self.curves[kind] = self._w.curve_plot.plot(x, np.asarray(c["median"]),
                                                     pen=pen(COLOURS[kind]),
                                                     name=STUDENT_LABELS[kind])
        self.curves["teacher"] = self._w.curve_plot.plot(
            x, np.full(x.size, float(s["teacher_value"])),
            pen=pen(COLOURS["teacher"], dashed=True), name="J(π_T), the teacher")
        self.draw_mechanism(pc, rc, tight=tight, ledger=(s["k"], s["epsilon"]))
        self.fill_ledger(s)
        total = s["ledger_total"]
        stop = (f"stopped before roll-out {s['stopped_at']} ({s.get('stop_reason', '')})"
                if s["stopped_at"] is not None else "never stopped")
        costs = ", ".join(f"{STUDENT_LABELS[k]} {v:+.3g}"
                          for k, v in s["cost_of_privacy"].items())
        mode = (f"seeded experiment (seed {s['seed']})" if s.get("seed") is not None
                else "release mode (secure noise)")
        where = f" · recorded as {recorded}" if recorded else ""
        if robust is not None:
            rb = robust.get("cost_bound")
            costs += (f" · beside it, the MDP side (privatising the transitions at k = "
                      f"{robust['k']:g}): robust cost bound "
                      + (f"{rb:.4g}" if rb is not None else
                         f"n/a ({html.escape(str(robust.get('reason', '')))})"))
        runs = total.get("runs")
        budget = s.get("budget") or [math.nan, math.nan]
        before = s.get("spent_before") or {}
        after = (f" after ({before['epsilon']:.4g}, {before['delta']:.3g}) already spent on "
                 "the teacher's data" if before.get("epsilon") or before.get("delta") else "")
        base = (" · the non-private baseline: unbounded (reads the teacher's policy)"
                if "nonprivate" in s["curves"] else "")
        who = (f"teacher's total over all {runs} noisy student runs" if runs is not None
               else "ledger total of one student run (recorded before the budget covered "
                    "every run)")
        self._w.summary_label.setText(
            f"<b>{who}: (ε, δ) = ({total['epsilon']:.4g}, {total['delta']:.3g})</b> by basic "
            f"composition, within the budget ({budget[0]:g}, {budget[1]:g}){after}{base}<br>"
            f"<b>{html.escape(title)}</b> · m = {m} · {mode}{where} · ledger: {len(s['k'])} "
            f"roll-outs × {s['queries_per_rollout']} queries to each run, "
            f"{html.escape(stop)} · cost of privacy J(π_T) − J(student): {costs}<br>"
            "<span style='color:#555'>" + "<br>".join(html.escape(n) for n in s["notes"])
            + "</span>")
        self._w.shown()

    def draw_mechanism(self, pc: Any, rc: Any, *, tight: Any = None,
                        ledger: tuple[Any, Any] | None = None) -> None:
        """The ε(k), δ(k) and radius plots (also live, as parameters change; ``rc`` None:
        the radius plot stays as it is until its curve arrives)."""
        for plot in (self._w.eps_plot, self._w.delta_plot):
            plot.getPlotItem().clear()
        self.curves["epsilon"] = self._w.eps_plot.plot(pc.k, pc.epsilon, pen=pen("#1F77B4"),
                                                    name="ε of eq. 12")
        self.curves["epsilon_linear"] = self._w.eps_plot.plot(
            pc.k, pc.epsilon_linear, pen=pen("#1F77B4", dotted=True), name="√m·L·b·k·ln(1/τ)")
        self.curves["gamma_part"] = self._w.eps_plot.plot(pc.k, pc.gamma_part,
                                                       pen=pen("#FF7F0E", dashed=True),
                                                       name="G(k, m, η)")
        if tight is not None and np.isfinite(tight).any():
            ok = np.isfinite(tight)
            self.curves["epsilon_tight"] = self._w.eps_plot.plot(
                pc.k[ok], np.asarray(tight)[ok], pen=pen("#9467BD", dashdot=True),
                name="ε_tight estimate (worst pair, MC)")
        if ledger is not None and len(ledger[0]):
            self.curves["ledger_eps"] = self._w.eps_plot.plot(
                list(ledger[0]), list(ledger[1]), pen=None, symbol="o", symbolSize=6,
                symbolBrush="#2CA02C", name="the ledger's roll-outs (τ per k)")
        self.curves["delta"] = self._w.delta_plot.plot(pc.k, pc.delta, pen=pen("#D62728"),
                                                    name=f"δ estimate at τ = {pc.tau:.3g}")
        self.curves["delta_upper"] = self._w.delta_plot.plot(
            pc.k, pc.delta_upper, pen=pen("#D62728", dashed=True), name="95 % upper bound")
        if rc is None:
            return
        self._w.radius_plot.getPlotItem().clear()
        self.curves["alpha_lambda"] = self._w.radius_plot.plot(
            rc.k, rc.alpha_lambda, pen=pen("#2CA02C"), name="α_λ (eq. 15, loss radius)")
        self.curves["lemma1"] = self._w.radius_plot.plot(
            rc.k, rc.lemma1, pen=pen("#7F7F7F", dotted=True), name="Lemma 1 radius (false)")
        self.curves["quantile"] = self._w.radius_plot.plot(
            rc.k, rc.quantile, pen=pen("#1F77B4"), name="Monte Carlo 1−β quantile")
        self.curves["chebyshev"] = self._w.radius_plot.plot(
            rc.k, rc.chebyshev, pen=pen("#9467BD", dashed=True), name="Chebyshev")
        if rc.ignore_below > 0:
            self._w.radius_plot.addItem(pg.InfiniteLine(math.log10(rc.ignore_below), angle=90,
                                                     pen=pen("#000000", dotted=True)))
        self._w.badge.setText("⚠ Lemma 1 of the paper is false as stated: its radius is not a "
                           "1 − β confidence radius (m = 2, k = 100, β = 0.05: tail 0.083). "
                           "α_λ is the student's loss radius only; k* = "
                           f"{rc.ignore_below:.3g} (below it, demonstrations are ignored).")

    def draw_ternary(self, t: dict[str, Any] | None) -> None:
        """The shared policies at one three-action state, in barycentric coordinates."""
        plot = self._w.ternary_plot
        plot.getPlotItem().clear()
        if t is None:
            plot.hide()
            return
        plot.show()
        plot.setTitle(f"Shared policies at {t['state']} (m = 3)")
        h = math.sqrt(3) / 2

        def xy(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            p = np.atleast_2d(p)
            return p[:, 1] + p[:, 2] / 2, p[:, 2] * h

        plot.plot([0, 1, 0.5, 0], [0, 0, h, 0], pen=pg.mkPen("#888888"))
        for (lx, ly), name, anchor in zip(((0, 0), (1, 0), (0.5, h)), t["actions"],
                                          ((1, 0), (0, 0), (0.5, 1))):
            label = pg.TextItem(str(name), color="#333333", anchor=anchor)
            label.setPos(lx, ly)
            plot.addItem(label)
        for pts, k, colour in zip(t["points"], t["k"], ("#2CA02C", "#D62728")):
            x, y = xy(np.asarray(pts))
            self.curves[f"ternary_{k:g}"] = plot.plot(
                x, y, pen=None, symbol="o", symbolSize=4, symbolPen=None,
                symbolBrush=pg.mkBrush(colour), name=f"Dir_k draws, k = {k:.3g}")
        x, y = xy(np.asarray(t["teacher"]))
        self.curves["ternary_teacher"] = plot.plot(x, y, pen=None, symbol="star",
                                                   symbolSize=14, symbolBrush="#000000",
                                                   name="the teacher's policy (η-mixed)")

    def fill_ledger(self, s: dict[str, Any]) -> None:
        n = len(s["k"])
        t = self._w.ledger_table
        t.clearSpans()
        stopped = s["stopped_at"] is not None
        t.setRowCount(n + (1 if stopped else 0))
        for i in range(n):
            values = (i, s["k"][i], s["epsilon"][i], s["delta"][i], s["tau"][i],
                      s["queries"][i], s["epsilon_total"][i], s["delta_total"][i],
                      s["epsilon_advanced"][i])
            for j, v in enumerate(values):
                text = (str(v) if isinstance(v, int) else "–" if v is None  # the profile: no τ
                        else f"{float(v):.4g}")
                t.setItem(i, j, QTableWidgetItem(text))
        if stopped:
            item = QTableWidgetItem(f"stop before roll-out {s['stopped_at']}: "
                                    f"{s.get('stop_reason', '')}; k = 0, no demonstration "
                                    "((0, 0)-DP)")
            t.setItem(n, 0, item)
            t.setSpan(n, 0, 1, 9)
        t.resizeColumnsToContents()


def study_task(params: SharingParameters, *, mdp: Any,
               teacher_actions: Sequence[int] | None = None,
               spent: tuple[float, float] = (0.0, 0.0), progress: Any) -> SharingStudy:
    """The worker of Run: :func:`core.sharing.sharing_release` (the command line's entry
    point), then the mechanism's panels around its result."""
    from core.common.progress import sub_progress
    from core.sharing import sharing_release, sharing_study_of

    res = sharing_release(params, sub_progress(progress, 0.0, 0.85), mdp=mdp,
                          teacher_actions=teacher_actions, spent=spent)
    return sharing_study_of(mdp, res, progress)


def record_study(document: ProjectDocument, outlet: RecordOutlet,
                 params: SharingParameters | None, res: Any,
                 study: SharingStudy | None = None, mdp: Any = None) -> str | None:
    """Record a study: the run and its ledger entries (one per live roll-out of the teacher,
    the non-private baseline as unbounded, the MDP-side comparison's privatisation on
    ``mdp``), as one undoable step, past the budget check. The run's id; None (said) if
    declined or when nothing says what was run."""
    from core.project import sharing_run_record
    from gui.shell.commands import AddRunCommand

    if params is None:
        return None
    record, entries = sharing_run_record(document.project, res, params)
    robust = study.robust if study is not None else None
    env = params.env
    if robust is not None and robust.get("cost_bound") is not None and mdp is not None:
        from core.sharing import mdp_side_entries

        entries += mdp_side_entries(mdp, env[4:] if env.startswith("mdp:") else env,
                                    float(robust["k"]), seed=res.seed, source=record.id)
    from gui.shell.ledger import OVER_BUDGET_TEXT, approve_entries

    if not approve_entries(outlet.parent, document, entries):
        outlet.refuse(OVER_BUDGET_TEXT.capitalize() + ".")
        return None
    document.push(AddRunCommand(document, record, text=f"Record policy sharing {record.id}",
                                ledger_entries=entries), "sharing")
    outlet.log("INFO", f"policy sharing recorded as {record.id} with "
                       f"{len(entries)} ledger entries")
    return record.id
