"""The report's privacy ledger: totals per protected dataset, entries, unbounded reasons."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.report.model import KeyValues, Paragraph, Section, Table, _eps, _fmt, _pair, _short_time

__all__ = ["unbounded_reasons", "ledger_totals"]


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
