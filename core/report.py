"""Reports: a pure content model (sections, key/values, tables, figures, the ledger) and HTML.

A :class:`Report` is built from a project by :func:`build_report`; each kind of analysis
contributes through one small function registered with :func:`reporter` (the ``sweep``
reporter below is the model to copy). :func:`to_html` writes a self-contained page: the
stylesheet is inlined and figures are drawn as inline SVG by a small plotter here, so the
HTML needs no Qt and no network. The GUI turns the same model into PDF.

Reports are reproducible: apart from the ``generated`` time stamp, a report of the same
project and inputs is byte-identical.

Examples
--------
>>> from core.project import Project
>>> r = build_report(Project(name="empty"))
>>> "no analyses" in to_html(r)
True
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import math
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import __version__

__all__ = ["Paragraph", "KeyValues", "Table", "Series", "Figure", "Section", "Report",
           "reporter", "REPORTERS", "build_report", "to_html", "file_sha256", "svg_plot"]


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


@dataclass(frozen=True)
class Series:
    name: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    err: tuple[float, ...] | None = None
    dashed: bool = False


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
    """Register ``fn(project, run) -> Section`` for run records of ``kind``."""

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
        ("k values", ", ".join(_fmt(k) for k in s.get("k", []))),
        ("runs per k", _fmt(s.get("runs", p.get("runs")))),
        ("β", _fmt(s.get("beta", p.get("beta")))), ("α radius", str(s.get("alpha_mode", ""))),
        ("zero entries", str(s.get("zeros", "support"))), ("created", run.created),
    ), "Parameters"))
    ks = [float(k) for k in s.get("k", [])]
    if not ks:
        sec.blocks.append(Paragraph("This run recorded no results.", "warning"))
        return sec

    def series(key: str, label: str, dashed: bool = False) -> Series:
        return Series(label, tuple(ks), tuple(s[f"{key}_mean"]), tuple(s[f"{key}_sd"]), dashed)

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
        row = [_fmt(k), _fmt(s["alpha"][i])] + [
            f"{_fmt(s[f'{q}_mean'][i])} ± {_fmt(s[f'{q}_sd'][i], 2)}"
            for q in ("v_lower", "v_private", "v_true", "v_upper", "cost_bound",
                      "cost_empirical")]
        rows.append(tuple(row))
    sec.blocks.append(Table(tuple(cols), tuple(rows), "Values and cost of privacy per k"))
    if "epsilon" in s:
        prow = tuple((_fmt(k), _fmt(s["epsilon"][i]), _fmt(s["delta"][i], 3),
                      s.get("privacy_statement", [""] * len(ks))[i]) for i, k in enumerate(ks))
        sec.blocks.append(Table(("k", "ε", "δ", "statement"), prow,
                                "Privacy of each release (Dirichlet mechanism, Theorem 1.6)",
                                note=f"b = {_fmt(s.get('b'))}, target δ̂ = "
                                     f"{_fmt(s.get('delta_target'))}, adjacency: "
                                     f"{s.get('adjacency', '')}."))
    return sec


def _ledger_section(project: Any) -> Section:
    from core.privacy.ledger import PrivacyLedger

    sec = Section("Privacy ledger", id="ledger")
    try:
        led = PrivacyLedger.from_list(list(project.ledger))
    except (TypeError, ValueError) as exc:
        sec.blocks.append(Paragraph(f"The ledger could not be read: {exc}", "warning"))
        return sec
    if not led.entries:
        sec.blocks.append(Paragraph(
            "No releases are recorded. Each release of private data (privatised MDP rows, "
            "obfuscated maps, advice) appears here with its (ε, δ).", "note"))
        return sec
    rows = tuple((e.id, e.dataset, e.mechanism, _fmt(e.epsilon), _fmt(e.delta, 3), e.mode,
                  e.released, e.time) for e in led.entries)
    sec.blocks.append(Table(("id", "protects", "mechanism", "ε", "δ", "mode", "released",
                             "time"), rows, "Releases"))
    trows = []
    for ds in led.datasets():
        for c in led.compositions(ds):
            if c.applicable:
                trows.append((ds, c.method, _fmt(c.epsilon), _fmt(c.delta, 3), c.assumption))
    sec.blocks.append(Table(("protects", "accountant", "ε", "δ", "assumption"), tuple(trows),
                            "Totals per protected dataset"))
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
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_report(project: Any, *, project_path: str | Path | None = None,
                 include: Sequence[str] | None = None,
                 now: _dt.datetime | None = None) -> Report:
    """The report of ``project``: models, every run with a reporter, and the ledger.

    ``include`` limits the sections by id (``"models"``, ``"run-<id>"``, ``"ledger"``).
    """
    now = now or _dt.datetime.now(_dt.timezone.utc)
    meta = {"PrivPlan": __version__, "generated": now.replace(microsecond=0).isoformat(),
            "platform": f"{platform.system()} {platform.machine()}, Python "
                        f"{platform.python_version()}",
            "project": project.name}
    if project_path is not None and Path(project_path).is_file():
        meta["project file"] = Path(project_path).name
        meta["project SHA-256"] = file_sha256(project_path)
    seeds = sorted({str(r.seed) for r in project.runs if r.seed is not None})
    if seeds:
        meta["seeds"] = ", ".join(seeds)
    sections = [_mdp_section(project)] if project.mdps else []
    for run in project.runs:
        fn = REPORTERS.get(run.kind)
        if fn is not None:
            sections.append(fn(project, run))
    if not any(s.id.startswith("run-") for s in sections):
        sections.append(Section("Analyses", [Paragraph(
            "This project has no analyses yet: run one (for example F5 in an MDP workspace) "
            "and export the report again.", "note")], id="no-analyses"))
    sections.append(_ledger_section(project))
    if include is not None:
        keep = set(include)
        sections = [s for s in sections if s.id in keep]
    return Report(f"PrivPlan report — {project.name}", meta, sections)


# --------------------------------------------------------------------------- SVG plots
_PALETTE = ("#0072B2", "#E69F00", "#000000", "#009E73", "#D55E00", "#CC79A7", "#56B4E9")


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
    """A small, dependency-free SVG line plot with error bars, log axes and a legend."""
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
        col = _PALETTE[i % len(_PALETTE)]
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        p = [(tx(x), ty(y)) for x, y in zip(s.x, s.y)
             if math.isfinite(x) and math.isfinite(y) and (not fig.log_x or x > 0)]
        if p:
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
def _default_css() -> str:
    path = Path(__file__).resolve().parents[1] / "assets" / "report.css"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def to_html(report: Report, *, css: str | None = None) -> str:
    """A self-contained HTML page (inline CSS and SVG figures)."""
    e = html.escape
    css = _default_css() if css is None else css
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
        parts.append(f'<section id="{e(s.id)}"><h2>{e(s.title)}</h2>')
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
                parts.append('<table class="data"><thead><tr>' + "".join(
                    f"<th>{e(c)}</th>" for c in b.columns) + "</tr></thead><tbody>" + "".join(
                    "<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in b.rows)
                    + "</tbody></table>")
                if b.note:
                    parts.append(f'<p class="note">{e(b.note)}</p>')
            elif isinstance(b, Figure):
                parts.append(f'<figure id="{e(b.id)}">{svg_plot(b)}')
                if b.caption:
                    parts.append(f"<figcaption>{e(b.caption)}</figcaption>")
                parts.append("</figure>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
