"""Reports: a pure content model (sections, key/values, tables, figures, the ledger) and HTML.

A :class:`Report` is built from a project by :func:`build_report`; each kind of analysis
contributes through one small function registered with :func:`reporter` (the ``sweep``
reporter below is the model to copy). :func:`to_html` writes a self-contained page: the
stylesheet is inlined and figures are drawn as inline SVG by a small plotter here, so the
HTML needs no Qt and no network. The GUI turns the same model into PDF.

Reports are reproducible: apart from the ``generated`` time stamp, a report of the same
project and inputs is byte-identical.

Sections, by id: ``overview`` (what was analysed and the privacy spent, when there is
anything to say), ``models``, one ``run-<id>`` per analysis run with a reporter
(``sweep``, ``advise``, ``plan``, ``audit``), ``no-analyses`` (when there is none) and
``ledger``. An ε without a finite bound (``math.inf``, or ``null`` in a stored summary)
reads "unbounded" with its reason everywhere — never ∞, 0 or a dropped row.

Examples
--------
>>> from core.project.model import Project
>>> r = build_report(Project(name="empty"))
>>> "no analyses" in to_html(r)
True
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import math
import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import __version__
from core.common.palette import arm_colour, cycle_colour, series_colour

__all__ = ["default_css", "Paragraph", "KeyValues", "Table", "Series", "Figure", "Section",
           "Report", "reporter", "REPORTERS", "build_report", "to_html", "file_sha256", "svg_plot",
           "section_titles", "ledger_totals", "unbounded_reasons", "UNBOUNDED_TEXT",
           "oracle_keys"]

#: A policy table lists at most this many states (a million-state model: the first ones).
REPORT_MAX_STATES = 500


# --------------------------------------------------------------------------- content model
@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = "text"  # "text" | "note" | "warning"


@dataclass(frozen=True)
class KeyValues:
    items: tuple[tuple[str, str], ...]
    title: str = ""


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str = ""
    note: str = ""
    widths: tuple[int, ...] = ()  # optional column widths in percent (a layout hint)


@dataclass(frozen=True)
class Series:
    name: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    err: tuple[float, ...] | None = None
    dashed: bool = False
    colour: str | None = None  # from core.common.palette, as the app draws it
    segments: bool = False  # points pair up into separate segments (a map's routes)


@dataclass(frozen=True)
class Figure:
    """A line plot: the GUI renders it with pyqtgraph, HTML with :func:`svg_plot`."""

    id: str
    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    log_x: bool = False
    log_y: bool = False
    caption: str = ""


Block = Paragraph | KeyValues | Table | Figure


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)
    id: str = ""


@dataclass
class Report:
    title: str
    metadata: dict[str, str]
    sections: list[Section]

    def figures(self) -> list[Figure]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Figure)]


# --------------------------------------------------------------------------- registry
Reporter = Callable[[Any, Any], Section]
REPORTERS: dict[str, Reporter] = {}


def reporter(kind: str) -> Callable[[Reporter], Reporter]:
    """Register ``fn(project, run) -> Section`` for run records of ``kind``.

    Parameters
    ----------
    kind : str
        The ``RunRecord.kind`` the decorated function reports (``"sweep"``, ``"plan"``, …).

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.
    """

    def register(fn: Reporter) -> Reporter:
        REPORTERS[kind] = fn
        return fn

    return register


def _fmt(x: Any, digits: int = 4) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "–"
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        return f"{x:.{digits}g}"
    return str(x)


@reporter("sweep")
def _sweep_section(project: Any, run: Any) -> Section:
    """Figure 2.1 sweep: parameters, values and cost of privacy vs k, (ε, δ) per k."""
    s = run.summary
    p = run.params
    target = next((e for e in project.mdps if e.id == run.target), None)
    name = target.model.name if target is not None else run.target
    sec = Section(f"Privacy sweep of {name} ({run.id})", id=f"run-{run.id}")
    mode = ("seeded experiment (seed %s) — reproducible, not a release" % run.seed
            if run.mode == "experiment" else "release mode (secure noise)")
    sec.blocks.append(KeyValues((
        ("MDP", f"{name} [{run.target}]"), ("randomness", mode),
        ("k values", ", ".join(_fmt(k, 6) for k in s.get("k", []))),
        ("runs per k", _fmt(s.get("runs", p.get("runs")))),
        ("β", _fmt(s.get("beta", p.get("beta")))), ("α radius", str(s.get("alpha_mode", ""))),
        ("zero entries", str(s.get("zeros", "support"))), ("created", _time(run.created)),
    ), "Parameters"))
    ks = [float(k) for k in s.get("k", [])]
    if not ks:
        sec.blocks.append(Paragraph("This run recorded no results.", "warning"))
        return sec

    def nums(key: str) -> tuple[float, ...]:  # stored summaries keep non-finite as null
        return tuple(math.nan if v is None else float(v) for v in s.get(key, []))

    def series(key: str, label: str, dashed: bool = False) -> Series:
        sd = tuple(0.0 if math.isnan(v) else v for v in nums(f"{key}_sd"))
        return Series(label, tuple(ks), nums(f"{key}_mean"), sd, dashed, series_colour(key))

    sec.blocks.append(Figure(
        f"{run.id}-values", "Values at s₀ vs k (mean ± 1 sd)", "k (Dirichlet concentration)",
        "value at s₀", (series("v_lower", "v̲ pessimistic"), series("v_private", "V̄ private"),
                        series("v_true", "V (oracle view)", dashed=True),
                        series("v_upper", "v̄ optimistic")), log_x=True,
        caption="V evaluates π̄ on the true model (oracle view): the private algorithm never "
                "sees it; it is shown to validate the bounds."))
    sec.blocks.append(Figure(
        f"{run.id}-cost", "Cost of privacy at s₀ vs k", "k (Dirichlet concentration)",
        "cost of privacy", (series("cost_bound", "bound v̄ − v̲"),
                            series("cost_empirical", "|V̄ − V| (oracle view)", dashed=True)),
        log_x=True))
    cols = ["k", "α", "v̲", "V̄", "V (oracle)", "v̄", "bound", "|V̄ − V|"]
    rows = []
    for i, k in enumerate(ks):
        row = [_fmt(k, 6), _fmt(s["alpha"][i])] + [
            f"{_fmt(s[f'{q}_mean'][i])} ± {_fmt(s[f'{q}_sd'][i], 2)}"
            for q in ("v_lower", "v_private", "v_true", "v_upper", "cost_bound",
                      "cost_empirical")]
        rows.append(tuple(row))
    sec.blocks.append(Table(tuple(cols), tuple(rows), "Values and cost of privacy per k "
                            "(mean ± sd over the runs)", widths=(8, 8, 14, 14, 14, 14, 14, 14)))
    if "epsilon" in s:
        from core.mdp.accounting import ADJACENCY_TEXT

        n = len(ks)
        out = s.get("privacy_rows_without_guarantee")
        total = s.get("privacy_rows_total")
        pcols: tuple[str, ...] = ("k", "ε", "δ")
        if isinstance(out, list) and isinstance(total, list) and len(out) == len(total) == n:
            pcols += ("rows without a guarantee",)
        prow = tuple((_fmt(k, 6), _eps(s["epsilon"][i], _reason_at(s.get("epsilon_reason"), i)),
                      _fmt(s["delta"][i], 3))
                     + ((f"{out[i]} of {total[i]}",) if len(pcols) == 4 else ())
                     for i, k in enumerate(ks))
        adjacency = str(s.get("adjacency", ""))
        assumed = ADJACENCY_TEXT.get(adjacency, adjacency)
        tail = (" This sweep is a seeded experiment: none of its privatised models was "
                "released." if run.mode == "experiment" else "")
        accountant = str(s.get("accountant") or "Theorem 1.6 (union bound; recorded before "
                                                  "the exact profile)")
        sec.blocks.append(Table(
            pcols, prow, f"Privacy of one privatised model per k (Dirichlet mechanism; "
            f"{accountant})",
            note=f"Each privatised model is (ε, δ)-DP assuming {assumed}; b = "
                 f"{_fmt(s.get('b'))}, target δ̂ = {_fmt(s.get('delta_target'))}.{tail}"))
        c = s.get("composed")
        if isinstance(c, dict):
            sec.blocks.append(Paragraph(
                f"All {c.get('releases')} privatisations of this sweep composed at δ = "
                f"{_fmt(c.get('delta'))}: ε = {_eps(c.get('epsilon'), c.get('epsilon_reason'))}"
                f" with privacy-loss distributions (dp-accounting), ε = "
                f"{_eps(c.get('epsilon_basic'))} under basic composition — what they would "
                "cost if they had been released.", "note"))
    return sec


@reporter("design")
def _design_section(project: Any, run: Any) -> Section:
    """The privacy designer: the (k, η) frontier for a target and its recommendation."""
    s = run.summary
    entry = next((e for e in project.mdps if e.id == run.target), None)
    name = entry.model.name if entry is not None else run.target
    sec = Section(f"Privacy design for {name} ({run.id})", id=f"run-{run.id}")
    sel = str(s.get("selection", "public"))
    sec.blocks.append(KeyValues((
        ("MDP", f"{name} [{run.target}]"),
        ("target (ε, δ)", _pair(float(s.get("epsilon_target", math.nan)),
                                float(s.get("delta_target", math.nan)))),
        ("b", _fmt(s.get("b"))), ("neighbours", str(s.get("adjacency", ""))),
        ("β of the bound", _fmt(s.get("beta"))), ("cost bound computed on", str(s.get("proxy"))),
        ("selection", "public inputs only (no privacy spent)" if sel == "public" else
         f"exponential mechanism, ε = {_fmt(s.get('selection_epsilon'))} ({_mode_text(run)})"),
        ("created", _time(run.created))), "Target and inputs"))
    frontier = s.get("frontier") or []
    rec = s.get("recommended")
    if frontier:
        pts = tuple(sorted((float(p["k"]), float(p["cost_bound"])) for p in frontier))
        sec.blocks.append(Figure(
            f"{run.id}-frontier", "Cost-of-privacy bound of the largest k meeting the target, "
            "per declared η", "k (Dirichlet concentration)", "cost-of-privacy bound",
            (Series("frontier", tuple(x for x, _ in pts), tuple(y for _, y in pts)),),
            log_x=True))
        rows = tuple((str(p["eta"]) + (" ★" if p == rec else ""), _fmt(p["k"]),
                      _fmt(p["epsilon"]), _fmt(p["cost_bound"])) for p in frontier)
        sec.blocks.append(Table(("η (declared)", "k", "ε at δ", "cost bound"), rows,
                                "Frontier (★ recommended)"))
    for item in s.get("infeasible") or []:
        sec.blocks.append(Paragraph(f"η = {item.get('eta')}: {item.get('reason')}", "note"))
    if rec is None:
        sec.blocks.append(Paragraph(str(s.get("recommended_reason", "no recommendation")),
                                    "warning"))
    return sec


def _policy_text(summary: dict[str, Any]) -> str:
    """Which π̄ a bounds run bounded (greedy; the softmax synthesis; a given table)."""
    source = summary.get("policy_source", "greedy")
    if source == "softmax":
        return (f"softmax (entropy-regularised) policy of the private model, temperature "
                f"{_fmt(summary.get('temperature'))} (stochastic)")
    if source == "table":
        return "a given policy table" + (" (stochastic)" if summary.get("stochastic") else
                                         " (deterministic)")
    return "greedy optimum of the private model (deterministic)"


@reporter("bounds")
def _bounds_section(project: Any, run: Any) -> Section:
    """Policy on one privatised model and its cost-of-privacy bounds (Theorem 1 or 2).

    ``summary`` is the MDP workspace's (``PrivatePolicy.summary()`` with ``state_ids`` and
    ``policy_ids``): values per stage and state, π̄ per stage.
    """
    s = run.summary
    p = run.params
    entry = next((e for e in project.mdps if e.id == run.target), None)
    name = entry.model.name if entry is not None else run.target
    sec = Section(f"Private policy and bounds for {name} ({run.id})", id=f"run-{run.id}")

    def label(item: Any) -> str:
        if entry is None or item is None:
            return _fmt(item)
        try:
            return entry.model.label(str(item))
        except (KeyError, ValueError, IndexError):
            return str(item)

    sec.blocks.append(KeyValues((
        ("MDP", f"{name} [{run.target}]"), ("randomness", _mode_text(run)),
        ("k", _fmt(s.get("k", p.get("k")), 6)), ("β", _fmt(s.get("beta", p.get("beta")))),
        ("α radius", f"{_fmt(s.get('alpha'))} ({s.get('alpha_mode', p.get('alpha_mode', ''))})"),
        ("horizon", "∞" if s.get("horizon") is None else _fmt(s.get("horizon"))),
        ("π̄", _policy_text(s)),
        ("cost-of-privacy bound at s₀", _fmt(s.get("cost_bound"))),
        ("status", str(s.get("status", ""))), ("created", _time(run.created))), "Parameters"))
    states = list(s.get("state_ids") or [])
    pol = s.get("policy_ids") or s.get("policy") or []
    first = pol[0] if pol and isinstance(pol[0], list) else pol

    def stage0(key: str) -> list[Any]:
        v = s.get(key) or []
        return v[0] if v and isinstance(v[0], list) else v

    lo, mid, hi = stage0("v_lower"), stage0("v_private"), stage0("v_upper")
    if states and len(lo) == len(mid) == len(hi) == len(states):
        # a large model lists its first REPORT_MAX_STATES states (the file has them all)
        shown = range(min(len(states), REPORT_MAX_STATES))
        rows = tuple((label(states[i]), label(first[i]) if i < len(first) else "–",
                      _fmt(lo[i]), _fmt(mid[i]), _fmt(hi[i])) for i in shown)
        title = "Policy and values at stage 0"
        if len(states) > REPORT_MAX_STATES:
            title += (f" (the first {REPORT_MAX_STATES:,} of {len(states):,} states; the "
                      "project file has every state)")
        head = "most likely action (stage 0)" if "policy_probs" in s else "π̄ action (stage 0)"
        sec.blocks.append(Table(("state", head, "v̲ pessimistic",
                                 "V̄ private", "v̄ optimistic"), rows, title))
    for w in s.get("warnings", []) or []:
        sec.blocks.append(Paragraph(str(w), "warning"))
    return sec


def _generic_section(project: Any, run: Any) -> Section:
    """A run kind without a reporter: what was run, with which parameters (never dropped)."""
    sec = Section(f"{run.kind} on {run.target} ({run.id})", id=f"run-{run.id}")
    items = [("randomness", _mode_text(run)), ("created", _time(run.created))]
    items += [(str(k), _fmt(v)) for k, v in sorted(run.params.items())
              if isinstance(v, (str, int, float, bool)) or v is None]
    sec.blocks.append(KeyValues(tuple(items), "Parameters"))
    sec.blocks.append(Paragraph(f"PrivPlan has no report layout for “{run.kind}” runs yet: "
                                "its parameters are listed; its results are in the project "
                                "file.", "note"))
    return sec


UNBOUNDED_TEXT = "unbounded"


def _eps(x: Any, reason: Any = "") -> str:
    """An ε for display: a number, or "unbounded" with its reason (never ∞, 0 or blank).

    ``None`` is the JSON form of an unbounded ε (``formats-and-cli.md`` §5), so it reads
    as unbounded too.

    >>> _eps(1.25), _eps(math.inf, "raw Q-values released"), _eps(None)
    ('1.25', 'unbounded (raw Q-values released)', 'unbounded')
    """
    if x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)
                     and math.isinf(x) and x > 0):
        return f"{UNBOUNDED_TEXT} ({reason})" if reason else UNBOUNDED_TEXT
    return _fmt(x)


def _reason_at(reasons: Any, i: int) -> str:
    """The ``i``-th entry of a ``<key>_reason`` list (or the one string), else ""."""
    if isinstance(reasons, str):
        return reasons
    if isinstance(reasons, (list, tuple)) and i < len(reasons) and reasons[i]:
        return str(reasons[i])
    return ""


def _pair(eps: float, delta: float) -> str:
    return f"({_eps(eps)}, {_fmt(delta, 3)})"


def unbounded_reasons(led: Any, dataset: str | None = None, *,
                      modes: Sequence[str] | None = None) -> list[str]:
    """One line per ledger entry without a finite ε: ``"rel-3 (raw, agent:a): why"``.

    The ledger panel and the report list these beside every total they make unbounded.

    Parameters
    ----------
    led : PrivacyLedger
        The ledger.
    dataset : str, optional
        Only this dataset's entries (all datasets if None).
    modes : sequence of str, optional
        Only entries of these modes (all if None).

    Returns
    -------
    list of str
        One line per unbounded entry, in ledger order.
    """
    return [f"{e.id} ({e.mechanism}, {e.dataset}"
            + (f", {e.count} uses" if e.count != 1 else "") + ")"
            + (" [seeded experiment, not spent]" if not e.is_release else "")
            + f": {e.reason or 'no finite bound'}"
            for e in led.select(dataset, modes=modes) if e.unbounded]


def _time(iso: str) -> str:
    """``2026-01-02T03:04:05+00:00`` -> ``2026-01-02 03:04:05 UTC`` (wraps at spaces)."""
    return iso.replace("T", " ").replace("+00:00", " UTC")


def _mode_text(run: Any) -> str:
    return ("seeded experiment (seed %s) — reproducible, not a release" % run.seed
            if run.mode == "experiment" else "release mode (secure noise)")


@reporter("advise")
def _advise_section(project: Any, run: Any) -> Section:
    """One DP advising run.

    ``summary`` is the advising workspace's summary (``gui.advising.results.single_summary``:
    ``setup``, ``convergence``, ``curve_epochs``, ``privacy`` …) or the ``advise --json``
    object (:meth:`core.advising.framework.AdvisingResult.to_dict`: ``preset``,
    ``composition`` …); both are read.
    """
    s = run.summary
    prm = {**(s.get("params") or {}), **(run.params.get("params") or {}), **run.params}
    name = s.get("setup") or s.get("preset") or run.target
    sec = Section(f"Advising run on {name} ({run.id})", id=f"run-{run.id}")
    agents = [str(a) for a in s.get("agents", [])]
    sec.blocks.append(KeyValues((
        ("set-up", str(name)), ("randomness", _mode_text(run)),
        ("strategy", str(s.get("strategy", prm.get("strategy", "")))),
        ("variant", str(s.get("variant", prm.get("variant", "")))),
        ("ε per advice (nominal)", _fmt(s.get("epsilon", prm.get("epsilon")))),
        ("epochs", _fmt(s.get("epochs"))), ("agents", ", ".join(agents)),
        ("ask / give budgets", f"{_fmt(prm.get('ask_budget'))} / "
                               f"{_fmt(prm.get('give_budget'))}"),
        ("created", _time(run.created))), "Parameters"))
    conv = [float(c) for c in s.get("convergence", []) if c is not None]
    if conv:
        epochs = [float(e) for e in s.get("curve_epochs", range(1, len(conv) + 1))]
        xs, ys = tuple(epochs[:len(conv)]), tuple(conv[:len(epochs)])
        if s.get("initial_convergence") is not None:
            xs, ys = (0.0, *xs), (float(s["initial_convergence"]), *ys)
        sec.blocks.append(Figure(
            f"{run.id}-convergence", "Convergence ratio vs epoch", "epoch",
            "convergence ratio",
            (Series("convergence", xs, ys, colour=arm_colour(str(s.get("strategy", "dp")))),)))
        e90 = s.get("epochs_to_90")
        advice = s.get("advice_total")
        sec.blocks.append(KeyValues((
            ("AUC over the first 200 epochs", _fmt(s.get("auc200"))),
            ("final convergence ratio", _fmt(s.get("cr_final", conv[-1]))),
            ("90 % reached at epoch", "never" if e90 is None else _fmt(e90)),
            ("advice events", _fmt(advice if isinstance(advice, int) else
                                   s.get("advice_events"))),
            ("last advice at epoch", _fmt(s.get("last_advice_epoch")))), "Results"))
    priv = s.get("privacy") or s.get("composition") or {}
    if agents and priv.get("basic") is not None:
        raw = priv.get("unprotected", priv.get("unprotected_releases")) or []

        def at(values: Any, i: int) -> str:
            values = values or []
            return _fmt(values[i]) if i < len(values) else "–"

        def eps_at(key: str, i: int) -> str:  # null ε with a reason is unbounded
            values = priv.get(key) or []
            if i >= len(values):
                return "–"
            why = _reason_at(priv.get(f"{key}_reason"), i)
            v = values[i]
            return _eps(v, why) if (v is None and why) or isinstance(v, float) else _fmt(v)

        rows = tuple((a, at(priv.get("releases"), i), at(raw, i), eps_at("basic", i),
                      eps_at("advanced", i), eps_at("rdp", i))
                     for i, a in enumerate(agents))
        sec.blocks.append(Table(
            ("teacher", "noisy releases", "raw releases", "ε basic", "ε advanced", "ε RDP"),
            rows, "Privacy per teacher (true ε)", note=str(priv.get("statement", ""))))
    for n in s.get("notes", []) or []:
        sec.blocks.append(Paragraph(str(n), "note"))
    return sec


@reporter("advise-experiment")
def _advise_experiment_section(project: Any, run: Any) -> Section:
    """An advising experiment (``gui.advising.results.experiment_summary``): arms over seeds."""
    s = run.summary
    title = s.get("experiment") or run.params.get("experiment") or "experiment"
    sec = Section(f"Advising {title} ({run.id})", id=f"run-{run.id}")
    seeds = s.get("seeds") or []
    sec.blocks.append(KeyValues((
        ("randomness", str(s.get("randomness") or _mode_text(run))),
        ("seeds", f"{len(seeds)} ({_fmt(min(seeds))}–{_fmt(max(seeds))})" if seeds else "–"),
        ("epochs", _fmt(s.get("epochs"))), ("δ of advanced / RDP", _fmt(s.get("delta"))),
        ("created", _time(run.created))), "Parameters"))
    arms = [a for a in s.get("arms", []) if isinstance(a, dict)]
    epochs = [float(e) for e in s.get("curve_epochs", [])]
    series = []
    labels = [str(a.get("label", "")) for a in arms]
    for a in arms:
        m = [float(v) if v is not None else math.nan for v in a.get("cr_mean", [])]
        ci = [float(v) if v is not None else 0.0 for v in a.get("cr_ci", [])]
        n = min(len(m), len(epochs))
        if n:
            label = str(a.get("label", ""))
            series.append(Series(label, tuple(epochs[:n]), tuple(m[:n]),
                                 tuple(ci[:n]) if len(ci) >= n else None,
                                 colour=arm_colour(label, labels)))
    if series:
        sec.blocks.append(Figure(f"{run.id}-convergence", "Mean convergence ratio vs epoch "
                                 "(± 95 % CI over seeds)", "epoch", "convergence ratio",
                                 tuple(series)))
    if arms:
        sec.blocks.append(Table(
            ("arm", "strategy", "ε", "AUC₂₀₀", "final ratio", "advice", "worst teacher "
             "ε basic / advanced / RDP"),
            tuple((str(a.get("label", "")), str(a.get("strategy", "")), _fmt(a.get("epsilon")),
                   f"{_fmt(a.get('auc200'))} ± {_fmt(a.get('auc200_ci'), 2)}",
                   f"{_fmt(a.get('cr_final'))} ± {_fmt(a.get('cr_final_ci'), 2)}",
                   _fmt(a.get("advice")),
                   " / ".join(_eps((a.get("privacy") or {}).get(k),
                                   (a.get("privacy") or {}).get(f"{k}_reason", ""))
                              for k in ("worst_basic", "worst_advanced", "worst_rdp")))
                  for a in arms), "Arms (means over seeds)"))
    comps = [c for c in s.get("comparisons", []) if isinstance(c, dict)]
    if comps:
        sec.blocks.append(Table(
            ("a − b", "horizon", "mean AUC difference", "a wins"),
            tuple((f"{c.get('a')} − {c.get('b')}", _fmt(c.get("horizon")),
                   f"{_fmt(c.get('mean'))} ± {_fmt(c.get('ci'), 2)}",
                   f"{_fmt(c.get('wins'))} of {_fmt(c.get('n'))}") for c in comps),
            "Paired comparisons with the first arm"))
    return sec


@reporter("plan")
def _plan_section(project: Any, run: Any) -> Section:
    """DP multi-agent route planning (``summary`` = the ``plan --json`` object)."""
    s = run.summary
    task = s.get("task", {}) or {}
    sec = Section(f"Route planning {task.get('origin', '?')} → agent "
                  f"{task.get('goal_agent', '?')} ({run.id})", id=f"run-{run.id}")
    sec.blocks.append(KeyValues((
        ("map", run.target), ("randomness", _mode_text(run)),
        ("approach", str(s.get("approach", ""))), ("preset", _fmt(s.get("preset"))),
        ("ε per agent", _fmt(s.get("epsilon"))),
        ("message budget per agent", _fmt(s.get("comm_budget"))), ("created", _time(run.created)),
    ), "Parameters"))
    ok = bool(s.get("success"))
    sec.blocks.append(KeyValues((
        ("outcome", "delivered" if ok else f"failed: {s.get('failure') or s.get('status')}"),
        ("route", " → ".join(map(str, s.get("route", []))) or "–"),
        ("length", _fmt(s.get("length"))), ("shortest length", _fmt(s.get("shortest_length"))),
        ("stretch", _fmt(s.get("stretch"))), ("messages", _fmt(s.get("messages"))),
    ), "Result"))
    spent = s.get("epsilon_spent", {}) or {}
    if spent:
        why = s.get("epsilon_spent_reason", {}) or {}
        sent = s.get("messages_sent", s.get("messages_by_agent", {})) or {}
        sec.blocks.append(Table(
            ("agent", "ε proven", "messages sent"),
            tuple((str(a), _eps(spent[a], why.get(a, "")), _fmt(sent.get(a)))
                  for a in sorted(spent)), "Privacy per agent (basic composition)"))
    fig = _route_figure(project, run)
    if fig is not None:
        sec.blocks.append(fig)
    for key in ("caveats", "thesis_flaws"):
        for n in s.get(key, []) or []:
            sec.blocks.append(Paragraph(str(n), "note"))
    return sec


def _route_figure(project: Any, run: Any) -> Figure | None:
    """The map of a plan run with its route drawn over the routes (None without positions)."""
    entry = next((m for m in getattr(project, "maps", []) if m.id == run.target), None)
    if entry is None:
        return None
    g = entry.world.graph
    pos = {v: d.get("pos") for v, d in g.nodes(data=True)}
    if any(p is None for p in pos.values()):
        return None
    xs: list[float] = []
    ys: list[float] = []
    for u, v in g.edges():
        xs += [pos[u][0], pos[v][0]]
        ys += [-pos[u][1], -pos[v][1]]  # the map's y grows downwards, as on screen
    route = [str(n) for n in run.summary.get("route", []) or [] if str(n) in pos]
    series = [Series("routes", tuple(xs), tuple(ys), colour="#BBBBBB", segments=True)]
    if len(route) >= 2:
        series.append(Series("planned route", tuple(pos[n][0] for n in route),
                             tuple(-pos[n][1] for n in route), colour=cycle_colour(0)))
    return Figure(f"{run.id}-route", f"Route on {entry.label}", "x", "y", tuple(series),
                  caption="The map as drawn in PrivPlan; the planned route is the blue line.")


@reporter("plan-bench")
def _plan_bench_section(project: Any, run: Any) -> Section:
    """A logistics benchmark (``summary`` = :func:`core.logistics.records.bench_summary`)."""
    from core.common.palette import APPROACH_COLOURS
    from core.logistics.records import APPROACH_NAMES, BENCH_METRICS, BENCH_PARAM_LABELS

    s = run.summary
    cfg = s.get("config", {}) or {}
    param = str(cfg.get("parameter", ""))
    sec = Section(f"Benchmark {s.get('benchmark', '?')}: {s.get('title', '')} ({run.id})",
                  id=f"run-{run.id}")
    sec.blocks.append(KeyValues((
        ("randomness", _mode_text(run)), ("worlds per point", _fmt(s.get("worlds"))),
        ("swept", BENCH_PARAM_LABELS.get(param, param)),
        ("values", ", ".join(_fmt(v) for v in cfg.get("values", []))),
        ("approaches", ", ".join(str(a) for a in cfg.get("approaches", []))),
        ("thesis figure", _fmt(s.get("thesis_figure"))), ("created", _time(run.created)),
    ), "Parameters"))
    rows = [r for r in s.get("rows", []) or [] if isinstance(r, dict)]

    def num(v: Any) -> float:
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan

    for key, title, ylabel in BENCH_METRICS:
        series = []
        for a in cfg.get("approaches", []):
            pts = sorted((r for r in rows if r.get("approach") == a),
                         key=lambda r: num(r.get(param)))
            if not pts:
                continue
            lo = [num(r.get(f"{key}_ci_low")) for r in pts]
            hi = [num(r.get(f"{key}_ci_high")) for r in pts]
            err = tuple(0.0 if math.isnan(h - lo_) else (h - lo_) / 2 for lo_, h in zip(lo, hi))
            series.append(Series(APPROACH_NAMES.get(a, str(a)),
                                 tuple(num(r.get(param)) for r in pts),
                                 tuple(num(r.get(key)) for r in pts), err,
                                 dashed=(a == "dp-thesis"), colour=APPROACH_COLOURS.get(a)))
        if series:
            sec.blocks.append(Figure(f"{run.id}-{key}", f"{title} (mean ± 95 % CI)",
                                     BENCH_PARAM_LABELS.get(param, param), ylabel,
                                     tuple(series)))
    checks = [c for c in s.get("checks", []) or [] if isinstance(c, dict)]
    if checks:
        sec.blocks.append(Table(("claim", "holds", "observed"), tuple(
            (str(c.get("claim", "")), "yes" if c.get("holds") else "no",
             str(c.get("observed", ""))) for c in checks), "Trend checks"))
    return sec


def _claim_boundary(eps: float, delta: float, n: int = 101) -> tuple[tuple[float, ...],
                                                                      tuple[float, ...]]:
    """The most TPR any test reaches at each FPR if the mechanism is (ε, δ)-DP:
    min(δ + e^ε·FPR, 1 − e^{−ε}(1 − δ − FPR), 1) (Kairouz, Oh & Viswanath 2015)."""
    xs = tuple(i / (n - 1) for i in range(n))
    e = math.exp(min(eps, 700.0))
    ys = tuple(max(0.0, min(delta + e * x, 1.0 - (1.0 - delta - x) / e, 1.0)) for x in xs)
    return xs, ys


_SHARING_LABELS = {"none": "no teacher", "nonprivate": "non-private teacher",
                   "aware": "privacy-aware (λ > 0)", "unaware": "privacy-unaware (λ = 0)"}
_SHARING_COLOURS = {"none": "#7F7F7F", "nonprivate": "#1F77B4", "aware": "#2CA02C",
                    "unaware": "#D62728"}


_MIA_NAMES = {"none": "no defense", "dpsgd": "DP-SGD", "gpm": "GPM (random DP)",
              "oneparam": "one-parameter defense", "dirichlet": "Dirichlet rows"}


@reporter("mia")
def _mia_section(project: Any, run: Any) -> Section:
    """A membership-inference study: the numbers, the defense's statement, the ROC."""
    from core.modelprivacy.records import TABLE_COLUMNS, table_cells

    s, p = run.summary, run.params
    sec = Section(f"Membership inference: {p.get('victim')} on {run.target} ({run.id})",
                  id=f"run-{run.id}")
    eps = s.get("epsilon")
    sec.blocks.append(KeyValues((
        ("data", str(run.target)), ("victim", str(p.get("victim"))),
        ("defense", _MIA_NAMES.get(str(p.get("defense")), str(p.get("defense")))),
        ("randomness", _mode_text(run)),
        ("members / shadows", f"{s.get('members')} members and as many non-members; "
                              f"{s.get('shadows')} shadow models"),
        ("ε, δ", "unbounded (" + str(s.get("epsilon_reason")) + ")" if eps is None
         else f"{_fmt(eps)}, {_fmt(s.get('delta'), 3)}"),
        ("guarantee", str(s.get("guarantee"))),
        ("DP cap on MIA accuracy", _fmt(s.get("accuracy_cap")) if s.get("accuracy_cap")
         is not None else str(s.get("accuracy_cap_reason"))),
        ("created", _time(run.created))), "Study"))
    row = dict(s, label=_MIA_NAMES.get(str(s.get("defense")), str(s.get("defense"))))
    sec.blocks.append(Table(tuple(TABLE_COLUMNS), tuple(tuple(r) for r in table_cells([row])),
                            title="Result"))
    sec.blocks.append(KeyValues((
        ("attack", f"accuracy {_fmt(s.get('attack_accuracy'))}, AUC {_fmt(s.get('auc'))}, "
                   + ", ".join(f"TPR@FPR {k}: {_fmt(v)}" for k, v in
                               (s.get("tpr_at_fpr") or {}).items())),
        ("ε_lb (indicative)", _fmt(s.get("epsilon_lb"))),
        ("entropy gap", _fmt(s.get("entropy_gap")))), "Attack"))
    roc = s.get("roc") or []
    if roc:
        sec.blocks.append(Figure(
            f"{run.id}-roc", "Attack ROC on the victim's members and non-members",
            "false positive rate", "true positive rate",
            (Series("attack", tuple(float(a) for a, _ in roc), tuple(float(b) for _, b in roc)),
             Series("chance", (0.0, 1.0), (0.0, 1.0), dashed=True, colour="#999999"))))
    for n in s.get("notes") or []:
        sec.blocks.append(Paragraph(str(n)))
    return sec


@reporter("mia-table")
def _mia_table_section(project: Any, run: Any) -> Section:
    """A defense comparison in the shape of the thesis's Table 6.2, with MIA accuracy vs ε."""
    from core.modelprivacy.records import TABLE_COLUMNS, table_cells

    s = run.summary
    rows = s.get("rows") or []
    sec = Section(f"Defense comparison: {s.get('victim')} on {run.target} ({run.id})",
                  id=f"run-{run.id}")
    sec.blocks.append(KeyValues((("randomness", _mode_text(run)),
                                 ("created", _time(run.created))), "Comparison"))
    sec.blocks.append(Table(tuple(TABLE_COLUMNS), tuple(tuple(r) for r in table_cells(rows)),
                            title="Table 6.2's shape (MIA accuracy: the attacker knows the "
                                  "defense; hidden: the thesis's threat model)"))
    series = []
    for d, colour in (("dpsgd", "#1F77B4"), ("gpm", "#2CA02C"), ("oneparam", "#D62728")):
        pts = sorted((r["epsilon_setting"], r["attack_accuracy"]) for r in rows
                     if r["defense"] == d and r.get("epsilon_setting") is not None)
        if pts:
            series.append(Series(f"{_MIA_NAMES[d]}: MIA accuracy",
                                 tuple(float(x) for x, _ in pts),
                                 tuple(float(y) for _, y in pts), colour=colour))
    if series:
        sec.blocks.append(Figure(
            f"{run.id}-eps", "MIA accuracy against the ε setting", "ε (setting)",
            "attack accuracy", tuple(series),
            caption="The one-parameter defense's ε is per choice (a vector costs k·ε) and "
                    "protects confidence vectors, not membership."))
    return sec


@reporter("drl")
def _drl_section(project: Any, run: Any) -> Section:
    """A DP-DRL training (and its map-recovery attack)."""
    s, p = run.summary, run.params
    sec = Section(f"DP-DRL: {run.target} ({run.id})", id=f"run-{run.id}")
    dp = p.get("defense") == "dpdrl"
    sec.blocks.append(KeyValues((
        ("map", f"{s.get('map')} {'x'.join(str(v) for v in s.get('size', []))}"),
        ("defense", ("DP-DRL, " + str(p.get("preset")) + " preset") if dp else "none"),
        ("randomness", _mode_text(run)),
        ("ε per step (bit choice)", _fmt(s.get("epsilon_per_step")) if dp else "—"),
        ("ε for the map", "unbounded: " + str(s.get("epsilon_total_reason"))),
        ("final stage", f"reward {_fmt(s.get('reward_final'))}, steps "
                        f"{_fmt(s.get('steps_final'))}, success {_fmt(s.get('success_final'))}"),
        ("map recovery", "not run" if s.get("grr") is None else
         f"GRR {_fmt(s.get('grr'))}, NRR {_fmt(s.get('nrr'))} (a random valid map: NRR "
         f"{_fmt(s.get('baseline_nrr'))})"),
        ("created", _time(run.created))), "Training"))
    rewards = s.get("rewards") or []
    if rewards:
        k = max(1, len(rewards) // 100)
        xs = tuple(float(i) for i in range(0, len(rewards), k))
        ys = tuple(float(sum(rewards[i:i + k]) / len(rewards[i:i + k]))
                   for i in range(0, len(rewards), k))
        sec.blocks.append(Figure(f"{run.id}-reward", "Episode reward", "episode", "reward",
                                 (Series("reward", xs, ys),)))
    if s.get("recovered"):
        sec.blocks.append(Table(("truth", "recovered"), tuple(
            (a, b) for a, b in zip(s.get("truth", []), s["recovered"])),
            title="Maps (# wall, . free, S start, G goal)"))
    for n in s.get("notes") or []:
        sec.blocks.append(Paragraph(str(n)))
    return sec


@reporter("drl-table")
def _drl_table_section(project: Any, run: Any) -> Section:
    """A DP-DRL comparison in the shape of Tables 5.1 and 5.3."""
    s = run.summary
    sec = Section(f"DP-DRL comparison: {run.target} ({run.id})", id=f"run-{run.id}")
    sec.blocks.append(KeyValues((("randomness", _mode_text(run)),
                                 ("ε for the map", "unbounded for every DP-DRL row (the released "
                                                   "observation keeps seven true bits)"),
                                 ("created", _time(run.created))), "Comparison"))
    rows = s.get("rows") or []
    sec.blocks.append(Table(
        ("defense", "GRR", "NRR", "NRR of a random map", "final reward", "final steps",
         "final success"),
        tuple((str(r["label"]), _fmt(r["grr"]), _fmt(r["nrr"]), _fmt(r["baseline_nrr"]),
               _fmt(r["reward_final"]), _fmt(r["steps_final"]), _fmt(r["success_final"]))
              for r in rows), title="Tables 5.1 / 5.3 shape"))
    return sec


def _comarl_extra(s: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The episode-level figure and the thesis reading of a DP PE-VDN run (if recorded)."""
    out: list[tuple[str, str]] = []
    ep = s.get("episode")
    if isinstance(ep, dict):
        out.append((f"episode (≤ {ep.get('group')} transitions)",
                    "unbounded: " + str(ep.get("epsilon_reason")) if ep.get("epsilon") is None
                    else f"({_fmt(ep.get('epsilon'))}, {_fmt(ep.get('delta'), 3)}) by group "
                         "privacy"))
    th = s.get("thesis_reading")
    if isinstance(th, dict) and th.get("epsilon") is not None:
        out.append(("thesis reading", f"ε = {_fmt(th.get('epsilon'))} under add/remove-one "
                                      "with RDP, as the dissertation states it — not a "
                                      "guarantee for the buffer"))
    return tuple(out)


@reporter("comarl")
def _comarl_section(project: Any, run: Any) -> Section:
    """A PE-VDN training: learning, PE-vs-central agreement, (ε, δ), the leakage inspector."""
    s, p = run.summary, run.params
    sec = Section(f"PE-Co-MARL: {p.get('agents')} agents ({run.id})", id=f"run-{run.id}")
    eps = s.get("epsilon")
    sec.blocks.append(KeyValues((
        ("randomness", _mode_text(run)),
        ("team return (last 10 %)", f"{_fmt(s.get('team_return'))} (plain VDN "
                                    f"{_fmt(s.get('central_team_return'))})"),
        ("max |A_PE − A_central|", f"{_fmt(s.get('pe_vs_central_max_diff'), 3)} (bound "
                                   f"{_fmt(s.get('pe_vs_central_bound'), 3)})"),
        ("overhead of secure summation", f"×{_fmt(s.get('overhead'))}"),
        ("(ε, δ)", "unbounded: " + str(s.get("epsilon_reason")) if eps is None
         else f"({_fmt(eps)}, {_fmt(s.get('delta'), 3)}) per transition, replace-one "
              "(one entry of the fixed-size replay buffer replaced; Theorem 4.2 window)"),
        *_comarl_extra(s),
        ("created", _time(run.created))), "Training"))
    sec.blocks.append(Table(("agent", "can compute", "DP"), tuple(
        (str(r["agent"]), str(r["learns"]), str(r["dp"])) for r in s.get("leakage") or []),
        title="Leakage inspector"))
    return sec


@reporter("sharing")
def _sharing_section(project: Any, run: Any) -> Section:
    """Private policy sharing ([KS]): parameters, learning curves, the teacher's ledger."""
    s, p = run.summary, run.params
    sec = Section(f"Policy sharing: {p.get('env', run.target)} ({run.id})", id=f"run-{run.id}")
    tau = ("τ solved per roll-out for δ ≤ " + _fmt(p.get("delta"), 3) if p.get("tau") is None
           else f"fixed τ = {_fmt(p.get('tau'), 3)}")
    sec.blocks.append(KeyValues((
        ("environment", str(p.get("env", run.target))),
        ("teacher", str(p.get("teacher", "optimal"))), ("randomness", _mode_text(run)),
        ("mechanism", f"Dirichlet on policies, k_j = {_fmt(p.get('k0'))}·{_fmt(p.get('coef'))}^j,"
                      f" η = {_fmt(p.get('eta'))}, L·b = {_fmt(p.get('lb'))}, {tau}, ε bound "
                      f"{p.get('bound', 'paper')}"),
        ("students", f"{', '.join(p.get('students', []))}; λ = {_fmt(p.get('lambda'))}, β = "
                     f"{_fmt(p.get('beta'))}, κ = {_fmt(p.get('kappa'))}, "
                     f"{_fmt(p.get('seeds'))} seeds × {_fmt(p.get('iterations'))} iterations"),
        ("budget", f"(E, D) = ({_fmt((p.get('budget') or [None, None])[0])}, "
                   f"{_fmt((p.get('budget') or [None, None])[1])})"),
        ("adjacency", str(s.get("adjacency", ""))), ("created", _time(run.created))),
        "Parameters"))
    xs = tuple(float(v) for v in s.get("iteration", []))
    series = [Series(_SHARING_LABELS.get(k, k), xs, tuple(float(v) for v in c["median"]),
                     colour=_SHARING_COLOURS.get(k)) for k, c in s.get("curves", {}).items()]
    if xs:
        series.append(Series("J(π_T), the teacher", (xs[0], xs[-1]),
                             (float(s["teacher_value"]),) * 2, dashed=True, colour="#000000"))
        sec.blocks.append(Figure(
            f"{run.id}-curves", "Learning curves (median over seeds)", "iteration (roll-out)",
            "J(π) at s₀", tuple(series),
            caption="Exact tabular policy gradient; the teacher's demonstrations are Dirichlet "
                    "draws of its policy, until its budget stops it."))
    total = s.get("ledger_total") or {}
    rows = [(str(i), _fmt(k), _fmt(e), _fmt(d, 3), _fmt(t, 3), str(q), _fmt(et), _fmt(dt, 3))
            for i, (k, e, d, t, q, et, dt) in enumerate(zip(
                s.get("k", []), s.get("epsilon", []), s.get("delta", []), s.get("tau", []),
                s.get("queries", []), s.get("epsilon_total", []), s.get("delta_total", [])))]
    if len(rows) > 12:
        rows = rows[:6] + [("…",) * 8] + rows[-5:]
    stop = (f"stopped before roll-out {s['stopped_at']}: {s.get('stop_reason', '')}"
            if s.get("stopped_at") is not None else "never stopped")
    sec.blocks.append(Table(
        ("roll-out", "k", "ε / query", "δ / query", "τ", "queries", "ε total", "δ total"),
        tuple(rows), "The teacher's ledger (basic composition)",
        note=(f"Total over all {total['runs']} noisy student runs" if "runs" in total
              else "Total of one student run (recorded before the budget covered every run)")
             + f" ({_fmt(total.get('epsilon'))}, {_fmt(total.get('delta'), 3)}); {stop}. ε "
             "per query is eq. 12 (exact); δ per query a 95 % Monte Carlo upper bound."))
    finals = s.get("final", {})
    sec.blocks.append(Table(
        ("student", "final J (median)", "85 % band", "cost J(π_T) − J"),
        tuple((_SHARING_LABELS.get(k, k), _fmt(v["median"]),
               f"[{_fmt(v['lower'])}, {_fmt(v['upper'])}]",
               _fmt((s.get("cost_of_privacy") or {}).get(k))) for k, v in finals.items()),
        "Students"))
    for n in s.get("notes", []) or []:
        sec.blocks.append(Paragraph(str(n), "note"))
    return sec


@reporter("audit")
def _audit_section(project: Any, run: Any) -> Section:
    """An empirical privacy audit (``summary`` = ``AuditResult.to_dict()``, JSON-safe).

    ε_lb ≤ ε_tight ≤ ε_claimed side by side, the verdict (a violation is a warning
    paragraph), the worst pair, the attack's ROC against the boundary the claim allows.
    """
    s = run.summary
    label = s.get("label") or s.get("mechanism") or run.target
    sec = Section(f"Privacy audit: {label} ({run.id})", id=f"run-{run.id}")
    params = s.get("parameters") or (run.params.get("params") or {})
    conf = s.get("confidence")
    conf_text = "–" if conf is None else f"{100 * float(conf):g} %"
    sec.blocks.append(KeyValues((
        ("mechanism", str(label)), ("randomness", _mode_text(run)),
        ("public parameters", ", ".join(f"{k} = {_fmt(v)}" for k, v in params.items()
                                        if not isinstance(v, (list, dict))) or "–"),
        ("samples per side", _fmt(s.get("samples"))), ("confidence of ε_lb", conf_text),
        ("created", _time(run.created))), "Parameters"))
    claimed = s.get("epsilon_claimed")
    claimed_text = _eps(claimed, s.get("epsilon_claimed_reason") or "")
    tight = s.get("epsilon_tight")
    tight_text = (f"unknown ({s.get('epsilon_tight_reason') or 'output densities unknown'})"
                  if tight is None else _fmt(tight)
                  + (f" ({s.get('epsilon_tight_method')})"
                     if s.get("epsilon_tight_method") else ""))
    sec.blocks.append(Table(
        ("ε_lb (attack)", "ε_tight (exact)", "ε_claimed", "δ_claimed", "verdict"),
        ((f"{_fmt(s.get('epsilon_lb'))} at {conf_text}", tight_text, claimed_text,
          _fmt(s.get("delta_claimed"), 3), str(s.get("verdict", "–"))),),
        "ε_lb ≤ ε_tight ≤ ε_claimed",
        note="ε_lb is proven by the attack with the stated confidence (Clopper–Pearson on "
             "both error rates); ε_tight is the exact ε of the worst pair where the output "
             "densities are known; ε_claimed is PrivPlan's own guarantee. A violation "
             "means ε_lb > ε_claimed.", widths=(22, 26, 26, 10, 16)))
    if s.get("verdict") == "violation":
        sec.blocks.append(Paragraph(
            f"VIOLATION: the attack proves ε ≥ {_fmt(s.get('epsilon_lb'))} with {conf_text} "
            f"confidence, above the claimed ε = {claimed_text}. The stated guarantee of this "
            "mechanism does not hold.", "warning"))
    elif claimed is None or math.isinf(float(claimed)):
        sec.blocks.append(Paragraph(
            f"No finite ε is claimed ({s.get('epsilon_claimed_reason') or 'unbounded'}), so "
            f"the audit cannot find a violation; its ε_lb = {_fmt(s.get('epsilon_lb'))} shows "
            "how much an observer learns.", "note"))
    pair = s.get("pair")
    att = s.get("attack") or {}
    items = [("adjacency", str(s.get("adjacency", "–")))]
    if isinstance(pair, dict):
        items.append(("worst pair", str(pair.get("description") or "")))
        items += [(f"  {k}", _fmt(v) if not isinstance(v, list) else
                   "[" + ", ".join(_fmt(x) for x in v) + "]")
                  for k, v in pair.items() if k != "description"]
    elif pair is not None:
        items.append(("worst pair", str(pair)))
    if att.get("fpr") is not None:
        items.append(("attack", f"{att.get('kind', '')} ({att.get('features', '')}): FPR "
                                f"{_fmt(att.get('fpr'))} ≤ {_fmt(att.get('fpr_upper'))}, FNR "
                                f"{_fmt(att.get('fnr'))} ≤ {_fmt(att.get('fnr_upper'))} on "
                                f"{_fmt(att.get('samples_evaluated'))} per side"))
    sec.blocks.append(KeyValues(tuple(items), "Worst pair and attack"))
    roc = [(float(p[0]), float(p[1])) for p in s.get("roc") or [] if len(p) == 2]
    if roc:
        series = [Series("attack ROC", tuple(p[0] for p in roc), tuple(p[1] for p in roc))]
        if claimed is not None and math.isfinite(float(claimed)):
            bx, by = _claim_boundary(float(claimed), float(s.get("delta_claimed") or 0.0))
            series.append(Series(f"limit if ({_fmt(claimed)}, "
                                 f"{_fmt(s.get('delta_claimed'), 3)})-DP holds", bx, by,
                                 dashed=True))
        series.append(Series("chance (ε = 0)", (0.0, 1.0), (0.0, 1.0), dashed=True))
        sec.blocks.append(Figure(
            f"{run.id}-roc", "Attack ROC (evaluation split)", "false-positive rate",
            "true-positive rate", tuple(series),
            caption="A test against an (ε, δ)-DP mechanism cannot rise above the dashed "
                    "limit; the attack's curve above it is a violation."))
    for n in s.get("notes", []) or []:
        sec.blocks.append(Paragraph(str(n), "note"))
    return sec


_NOT_SPENT = ("Seeded experiments are listed so every use of the data is visible, but "
              "nothing was released: their noise is reproducible from the recorded seed. "
              "They are not counted as spent; their row shows what releasing every "
              "privatised output would cost.")


def _ledger_section(project: Any) -> Section:
    from core.privacy.ledger import PrivacyLedger

    sec = Section("Privacy ledger", id="ledger")
    try:
        led = PrivacyLedger.from_project(project)
    except (TypeError, ValueError) as exc:
        sec.blocks.append(Paragraph(f"The ledger could not be read: {exc}", "warning"))
        return sec
    if not led.entries and not led.budgets:
        sec.blocks.append(Paragraph(
            "No releases are recorded. Each release of private data (privatised MDP rows, "
            "obfuscated maps, advice) appears here with its (ε, δ).", "note"))
        return sec
    totals, assumptions = ledger_totals(led)
    sec.blocks.append(totals)
    if assumptions:
        sec.blocks.append(KeyValues(tuple(assumptions), "Accountants"))
    if any(not e.is_release for e in led.entries):
        sec.blocks.append(Paragraph(_NOT_SPENT, "note"))
    if led.entries:
        # what was released is long and repeats across entries: each text once, in its own
        # table, and a short reference per entry (the ledger stays a few columns wide)
        refs: dict[str, str] = {}
        for e in led.entries:
            if e.released and e.released not in refs:
                refs[e.released] = f"R{len(refs) + 1}"
        rows = tuple((e.id, e.dataset, e.mechanism, _eps(e.epsilon, e.reason),
                      _fmt(e.delta, 3),
                      str(e.count), e.mode + ("" if e.seed is None else f" (seed {e.seed})"),
                      e.source.split(":")[0], refs.get(e.released, "–"), _short_time(e.time))
                     for e in led.entries)
        sec.blocks.append(Table(("id", "protects", "mechanism", "ε", "δ", "n", "mode",
                                 "by", "ref", "time (UTC)"), rows, "Entries",
                                note="ε and δ are per use; an entry with n uses counts "
                                     "n times. “ref” points into the table below.",
                                widths=(7, 11, 15, 9, 5, 4, 15, 7, 6, 21)))
        if refs:
            sec.blocks.append(Table(("ref", "what was released"),
                                    tuple((r, text) for text, r in refs.items()),
                                    "What was released", widths=(7, 93)))
        adj = sorted({(e.dataset, e.mechanism, e.adjacency) for e in led.entries
                      if e.adjacency})
        if adj:
            sec.blocks.append(Table(("protects", "mechanism", "neighbouring datasets"),
                                    tuple(adj), "Adjacency assumed"))
    return sec


def _short_time(iso: str) -> str:
    """``2026-11-25 02:46`` from an ISO time (as it is, if it is not one)."""
    text = _time(iso)
    return text[:16] if len(text) >= 16 and text[4] == "-" else text


def ledger_totals(led: Any) -> tuple[Table, list[tuple[str, str]]]:
    """Totals per dataset, side by side: basic, advanced, zCDP and the budget.

    Returns the table (one row for the releases of each dataset, and one for its seeded
    experiments if any) and ``(accountant, assumption)`` pairs. The ledger panel shows
    the same rows.

    Parameters
    ----------
    led : PrivacyLedger
        The project's ledger with its budgets.

    Returns
    -------
    (Table, list of (str, str))
        The totals table and the assumption of each accountant used in it.
    """
    from core.privacy.ledger import release_modes

    spent_modes = release_modes(led.entries)
    rows = []
    assumptions: dict[str, str] = {}
    for ds in led.datasets():
        groups = [("releases (spent)", spent_modes)]
        if any(e.dataset == ds and not e.is_release for e in led.entries):
            groups.append(("seeded experiments (not spent)", ("experiment",)))
        for label, modes in groups:
            es = led.select(ds, modes=modes)
            if not es and len(groups) > 1 and ds not in led.budgets:
                continue  # nothing released and no budget: no all-zero row
            comps = {c.method: c for c in led.compositions(ds, modes=modes)}
            cells = []
            for m in ("basic", "PLD", "advanced", "zCDP"):
                c = comps.get(m)
                if c is None:
                    cells.append("–")
                    continue
                assumptions.setdefault(m, c.assumption)
                if not c.applicable:
                    cells.append("not applicable")
                elif m != "basic" and c.epsilon > comps["basic"].epsilon:
                    cells.append(f"{_pair(c.epsilon, c.delta)}, looser than basic")
                else:
                    cells.append(_pair(c.epsilon, c.delta))
            budget = "–"
            if ds in led.budgets and modes is spent_modes:
                be, bd = led.budgets[ds]
                over = led.would_exceed(ds, 0.0, 0.0)
                budget = f"{_pair(be, bd)} — {'EXCEEDED' if over else 'within'}"
            rows.append((ds, label, str(sum(e.count for e in es)), *cells, budget))
    why = unbounded_reasons(led)
    note = ("Unbounded totals: these entries have no finite ε, so every total that counts "
            "them is unbounded (and any budget of their dataset is exceeded) — "
            + "; ".join(why) + "." if why else "")
    table = Table(("protects", "counted", "uses", "basic (ε, δ)", "tight, PLD (ε, δ)",
                   "advanced (ε, δ)", "zCDP (ε, δ)", "budget (ε, δ)"), tuple(rows),
                  "Totals per protected dataset", note=note,
                  widths=(13, 12, 5, 14, 14, 15, 12, 15))
    return table, [(k, assumptions[k]) for k in ("basic", "PLD", "advanced", "zCDP")
                   if k in assumptions]


def _overview_section(project: Any) -> Section:
    from core.privacy.ledger import PrivacyLedger

    sec = Section("Overview", id="overview")
    if project.notes:
        sec.blocks.append(Paragraph(project.notes, "note"))
    if project.runs:
        sec.blocks.append(Table(
            ("run", "analysis", "on", "randomness", "seed", "created"),
            tuple((r.id, r.kind, r.target, r.mode, _fmt(r.seed), _time(r.created))
                  for r in project.runs), "Analyses"))
        oracle = [r.id for r in project.runs if oracle_keys(r)]
        if oracle:
            sec.blocks.append(Paragraph(
                "Oracle views: " + ", ".join(oracle) + " hold results computed from the true "
                "(private) data by the experimenter (each section names them); they are not "
                "releases.", "note"))
    try:
        led = PrivacyLedger.from_project(project)
    except (TypeError, ValueError):
        return sec  # the ledger section says why
    rows = []
    experiments_only = []
    for ds in led.datasets():
        e, d = led.spent(ds)
        n = sum(x.count for x in led.select(ds) if x.is_release)
        b = led.budgets.get(ds)
        if n == 0 and b is None:  # nothing released, no budget: an all-zero row says nothing
            experiments_only.append(ds)
            continue
        budget = "–" if b is None else _pair(*b) + (
            " — EXCEEDED" if led.would_exceed(ds, 0.0, 0.0) else "")
        rows.append((ds, str(n), _pair(e, d), budget))
    if experiments_only:
        sec.blocks.append(Paragraph(
            "Used only by seeded experiments (listed in the ledger, nothing spent): "
            + ", ".join(experiments_only) + ".", "note"))
    if rows:
        from core.privacy.ledger import release_modes

        why = unbounded_reasons(led, modes=release_modes(led.entries))
        note = "Tighter totals, assumptions and every entry are in the privacy ledger section."
        if why:
            note = ("Unbounded: releases without a finite ε — " + "; ".join(why) + ". "
                    + note)
        sec.blocks.append(Table(("protects", "releases", "spent (basic composition)",
                                 "budget"), tuple(rows), "Privacy spent", note=note))
    return sec


def _mdp_section(project: Any) -> Section:
    sec = Section("Models", id="models")
    rows = []
    for e in project.mdps:
        m = e.model
        rows.append((e.id, m.name, str(m.n_states), str(sum(len(a) for a in m.action_ids)),
                     "∞" if m.horizon is None else str(m.horizon), _fmt(m.discount),
                     m.summary()))
    if rows:
        sec.blocks.append(Table(("id", "name", "states", "state–action pairs", "horizon",
                                 "discount", "validity"), tuple(rows)))
    for e in project.mdps:
        if e.note:
            sec.blocks.append(Paragraph(f"{e.model.name}: {e.note}", "note"))
    return sec


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, as hex (the report names the project it was made from).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    str
        64 hex digits.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def oracle_keys(run: Any) -> list[str]:
    """The summary keys a run marks as oracle views (computed on the true, private data).

    Parameters
    ----------
    run : RunRecord
        The run.

    Returns
    -------
    list of str
        Empty when the run stores no oracle value.
    """
    keys = (run.summary or {}).get("oracle_keys") if isinstance(run.summary, dict) else None
    return [str(k) for k in keys] if isinstance(keys, list) else []


def _oracle_note(run: Any) -> Paragraph | None:
    keys = oracle_keys(run)
    if not keys:
        return None
    what = str(run.summary.get("oracle_view") or "computed on the true data")
    return Paragraph(f"Oracle view — {', '.join(keys)}: {what}. These results are computed "
                     "from the true (private) data by the experimenter; they are not a "
                     "release, and no user of the private output could compute them.",
                     "note")


def _ledger_note(project: Any, run_id: str) -> Paragraph | None:
    ids = [(e.id, e.mode) for e in project.ledger if e.source == run_id]
    if not ids:
        return None
    modes = sorted({m for _, m in ids})
    return Paragraph(f"Privacy ledger entries of this run: {', '.join(i for i, _ in ids)} "
                     f"({', '.join(modes)}).", "note")


def _source_date() -> _dt.datetime | None:
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return None
    try:
        return _dt.datetime.fromtimestamp(int(raw), _dt.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None


def build_report(project: Any, *, project_path: str | Path | None = None,
                 include: Sequence[str] | None = None,
                 now: _dt.datetime | None = None) -> Report:
    """The report of ``project``: overview, models, every run with a reporter, the ledger.

    ``include`` limits the sections by id (``"overview"``, ``"models"``, ``"run-<id>"``,
    ``"ledger"``; see :func:`section_titles`). ``now`` is the ``generated`` time: by
    default ``SOURCE_DATE_EPOCH`` (reproducible builds) if set, else the clock.

    Parameters
    ----------
    project : Project
        What to report.
    project_path : str or Path, optional
        The project's file (its name and SHA-256 go into the overview).
    include : sequence of str, optional
        Section ids to keep (all if None).
    now : datetime, optional
        The ``generated`` time.

    Returns
    -------
    Report
        Sections of paragraphs, tables and figures, rendered by :func:`to_html` (and the GUI's
        PDF export).
    """
    now = now or _source_date() or _dt.datetime.now(_dt.timezone.utc)
    meta = {"PrivPlan": __version__, "generated": now.replace(microsecond=0).isoformat(),
            "platform": f"{platform.system()} {platform.machine()}, Python "
                        f"{platform.python_version()}",
            "project": project.name}
    if project_path is not None and Path(project_path).is_file():
        path = Path(project_path)
        meta["project file"] = path.name
        meta["project SHA-256"] = file_sha256(path)
        for e in project.mdps:  # large models keep P in a sidecar next to the project
            from core.project.files import sidecar_name

            side = path.parent / sidecar_name(path, e.id, e.model.P)
            if not side.is_file():  # written by a PrivPlan before generation names
                side = path.parent / sidecar_name(path, e.id)
            if side.is_file():
                meta[f"{side.name} SHA-256"] = file_sha256(side)
        meta["rebuild with"] = f"privplan report {path.name} -o REPORT.pdf"
    seeds = sorted({str(r.seed) for r in project.runs if r.seed is not None})
    if seeds:
        meta["seeds"] = ", ".join(seeds)
    sections = []
    if project.runs or project.ledger or getattr(project, "budgets", None):
        sections.append(_overview_section(project))
    if project.mdps:
        sections.append(_mdp_section(project))
    for run in project.runs:
        sec = REPORTERS.get(run.kind, _generic_section)(project, run)
        oracle = _oracle_note(run)
        if oracle is not None:  # right after the parameters
            sec.blocks.insert(min(1, len(sec.blocks)), oracle)
        note = _ledger_note(project, run.id)
        if note is not None:
            sec.blocks.append(note)
        sections.append(sec)
    if not any(s.id.startswith("run-") for s in sections):
        sections.append(Section("Analyses", [Paragraph(
            "This project has no analyses yet: run one (for example F5 in an MDP workspace) "
            "and export the report again.", "note")], id="no-analyses"))
    sections.append(_ledger_section(project))
    if include is not None:
        keep = set(include)
        sections = [s for s in sections if s.id in keep]
    return Report(f"PrivPlan report — {project.name}", meta, sections)


def section_titles(project: Any) -> list[tuple[str, str]]:
    """``(id, title)`` of every section the report of ``project`` has, in order.

    Parameters
    ----------
    project : Project
        The project.

    Returns
    -------
    list of (str, str)
        Section id and title, in report order.
    """
    rep = build_report(project, now=_dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc))
    return [(s.id, s.title) for s in rep.sections]


# --------------------------------------------------------------------------- SVG plots


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0 ** e for e in range(a, b + 1)]
    span = hi - lo or 1.0
    step = 10 ** math.floor(math.log10(span / 4))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def svg_plot(fig: Figure, *, width: int = 640, height: int = 320) -> str:
    """A small, dependency-free SVG line plot with error bars, log axes and a legend.

    Parameters
    ----------
    fig : Figure
        Series (x, y, optional error bars), axis labels and scales.
    width, height : int
        Size in pixels.

    Returns
    -------
    str
        An ``<svg>`` element; non-finite points are left out, and a figure without finite
        points says "no data".
    """
    pts = [(x, y, e) for s in fig.series for x, y, e in
           zip(s.x, s.y, s.err or (0.0,) * len(s.x)) if math.isfinite(x) and math.isfinite(y)]
    left, right, top, bottom = 64, 170, 30, 46  # the legend sits in the right margin
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(fig.title)}">',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="13" '
           f'font-weight="bold">{html.escape(fig.title)}</text>']
    if not pts:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no data'
                   '</text></svg>')
        return "".join(out)
    xs = [p[0] for p in pts if not fig.log_x or p[0] > 0]
    ylo = [p[1] - p[2] for p in pts]
    yhi = [p[1] + p[2] for p in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ylo), max(yhi)
    if fig.log_y:
        y0 = min(v for v in ylo + [p[1] for p in pts] if v > 0) if any(
            v > 0 for v in ylo + [p[1] for p in pts]) else 1e-12
    if y1 == y0:
        y0, y1 = y0 - 0.5, y1 + 0.5
    pad = 0.05 * (y1 - y0) if not fig.log_y else 0.0
    y0, y1 = y0 - pad, y1 + pad
    pw, ph = width - left - right, height - top - bottom

    def tx(x: float) -> float:
        if fig.log_x:
            return left + pw * (math.log10(x) - math.log10(x0)) / (
                (math.log10(x1) - math.log10(x0)) or 1.0)
        return left + pw * (x - x0) / ((x1 - x0) or 1.0)

    def ty(y: float) -> float:
        if fig.log_y:
            y = max(y, y0)
            return top + ph * (1 - (math.log10(y) - math.log10(y0)) / (
                (math.log10(y1) - math.log10(y0)) or 1.0))
        return top + ph * (1 - (y - y0) / ((y1 - y0) or 1.0))

    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="white" '
               'stroke="#888"/>')
    for t in _ticks(x0, x1, fig.log_x):
        if x0 <= t <= x1 * (1 + 1e-9):
            X = tx(t)
            lab = (f'10<tspan dy="-5" font-size="8">{round(math.log10(t))}</tspan>'
                   if fig.log_x else _fmt(t, 3))
            out.append(f'<line x1="{X:.1f}" y1="{top}" x2="{X:.1f}" y2="{top + ph}" '
                       f'stroke="#eee"/><text x="{X:.1f}" y="{top + ph + 15}" '
                       f'text-anchor="middle" font-size="10">{lab}</text>')
    for t in _ticks(y0, y1, fig.log_y):
        if y0 <= t <= y1:
            Y = ty(t)
            out.append(f'<line x1="{left}" y1="{Y:.1f}" x2="{left + pw}" y2="{Y:.1f}" '
                       f'stroke="#eee"/><text x="{left - 5}" y="{Y + 3:.1f}" '
                       f'text-anchor="end" font-size="10">{_fmt(t, 3)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle" '
               f'font-size="11">{html.escape(fig.x_label)}</text>')
    out.append(f'<text transform="translate(14,{top + ph / 2}) rotate(-90)" '
               f'text-anchor="middle" font-size="11">{html.escape(fig.y_label)}</text>')
    for i, s in enumerate(fig.series):
        col = s.colour or cycle_colour(i)
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        p = [(tx(x), ty(y)) for x, y in zip(s.x, s.y)
             if math.isfinite(x) and math.isfinite(y) and (not fig.log_x or x > 0)]
        if p and s.segments:
            for (a1, b1), (a2, b2) in zip(p[0::2], p[1::2]):
                out.append(f'<line x1="{a1:.1f}" y1="{b1:.1f}" x2="{a2:.1f}" y2="{b2:.1f}" '
                           f'stroke="{col}" stroke-width="1.2"{dash}/>')
        elif p:
            out.append(f'<polyline fill="none" stroke="{col}" stroke-width="1.8"{dash} '
                       f'points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in p)}"/>')
        for j, (x, y) in enumerate(zip(s.x, s.y)):
            if not (math.isfinite(x) and math.isfinite(y)) or (fig.log_x and x <= 0):
                continue
            X, Y = tx(x), ty(y)
            if s.err is not None and s.err[j] > 0:
                out.append(f'<line x1="{X:.1f}" y1="{ty(y - s.err[j]):.1f}" x2="{X:.1f}" '
                           f'y2="{ty(y + s.err[j]):.1f}" stroke="{col}"/>')
            out.append(f'<circle cx="{X:.1f}" cy="{Y:.1f}" r="2.6" fill="{col}"/>')
        ly, lx = top + 10 + 16 * i, left + pw + 10
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 18}" y2="{ly}" '
                   f'stroke="{col}" stroke-width="2"{dash}/><text x="{lx + 22}" '
                   f'y="{ly + 4}" font-size="10">{html.escape(s.name)}</text>')
    out.append("</svg>")
    return "".join(out)


# --------------------------------------------------------------------------- HTML
def default_css() -> str:
    """The report's style sheet (``assets/report.css``; "" if missing): HTML and PDF use it."""
    path = Path(__file__).resolve().parents[2] / "assets" / "report.css"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def to_html(report: Report, *, css: str | None = None,
            figure_html: Callable[[Figure], str] | None = None,
            break_before: Sequence[str] = ()) -> str:
    """A self-contained HTML page (inline CSS and SVG figures).

    ``figure_html(fig)`` replaces the inline SVG of each figure (the GUI puts an
    ``<img>`` of a pyqtgraph rendering there for PDF). Sections whose id is in
    ``break_before`` start a new page when printed (their heading has class
    ``page-break``).

    Parameters
    ----------
    report : Report
        The report (:func:`build_report`).
    css : str, optional
        The style sheet (:func:`default_css` if None).
    figure_html : callable, optional
        Renders one figure as HTML (:func:`svg_plot` if None).
    break_before : sequence of str
        Section ids that start a printed page.

    Returns
    -------
    str
        The page.
    """
    e = html.escape
    draw = figure_html or svg_plot
    css = default_css() if css is None else css
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{e(report.title)}</title><style>{css}</style></head><body>",
             f"<h1>{e(report.title)}</h1>", '<table class="meta">']
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in report.metadata.items()]
    parts.append("</table>")
    if len(report.sections) > 1:
        parts.append('<nav><ol>' + "".join(
            f'<li><a href="#{e(s.id)}">{e(s.title)}</a></li>' for s in report.sections)
            + "</ol></nav>")
    for s in report.sections:
        cls = ' class="page-break"' if s.id in break_before else ""
        parts.append(f'<section id="{e(s.id)}"><h2{cls}>{e(s.title)}</h2>')
        for b in s.blocks:
            if isinstance(b, Paragraph):
                parts.append(f'<p class="{e(b.kind)}">{e(b.text)}</p>')
            elif isinstance(b, KeyValues):
                if b.title:
                    parts.append(f"<h3>{e(b.title)}</h3>")
                parts.append('<table class="kv">' + "".join(
                    f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in b.items) + "</table>")
            elif isinstance(b, Table):
                if b.title:
                    parts.append(f"<h3>{e(b.title)}</h3>")
                wid = (tuple(f' width="{w}%"' for w in b.widths)
                       if len(b.widths) == len(b.columns) else ("",) * len(b.columns))
                parts.append('<table class="data"><thead><tr>' + "".join(
                    f"<th{w}>{e(c)}</th>" for c, w in zip(b.columns, wid))
                    + "</tr></thead><tbody>" + "".join(
                    "<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in b.rows)
                    + "</tbody></table>")
                if b.note:
                    parts.append(f'<p class="note">{e(b.note)}</p>')
            elif isinstance(b, Figure):
                parts.append(f'<figure id="{e(b.id)}">{draw(b)}')
                if b.caption:
                    parts.append(f"<figcaption>{e(b.caption)}</figcaption>")
                parts.append("</figure>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
