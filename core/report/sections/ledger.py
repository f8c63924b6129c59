"""The report's privacy ledger: totals per protected dataset, entries, unbounded reasons."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core.report.model import (
    UNBOUNDED_TEXT,
    KeyValues,
    Paragraph,
    Section,
    Table,
    _eps,
    _fmt,
    _pair,
    _short_time,
    footnote_unbounded,
)

__all__ = ["unbounded_reasons", "ledger_totals", "release_groups", "dataset_totals"]


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


def _read_ledger(project: Any, sec: Section) -> Any:
    """The project's ledger, or None with the reason (or "nothing recorded") in ``sec``."""
    from core.privacy.ledger import PrivacyLedger

    try:
        led = PrivacyLedger.from_project(project)
    except (TypeError, ValueError) as exc:
        sec.blocks.append(Paragraph(f"The ledger could not be read: {exc}", "warning"))
        return None
    if not led.entries and not led.budgets:
        sec.blocks.append(Paragraph(
            "No releases are recorded. Each release of private data (privatised MDP rows, "
            "obfuscated maps, advice) appears here with its (ε, δ).", "note"))
        return None
    return led


def _family(dataset: str) -> str:
    """``advising:exp1:u3`` -> ``advising:exp1``; ``agent:b`` -> ``agent``."""
    return dataset.rsplit(":", 1)[0] if ":" in dataset else dataset


def _tight(entries: Sequence[Any], *, pld: bool = True) -> tuple[float, float, str]:
    """The tightest finite total of ``entries`` that is not looser than basic composition:
    ``(ε, δ, accountant)`` (PLD when it applies and is tighter, else basic; basic only
    without ``pld``)."""
    from core.privacy.ledger import compose

    if not pld:
        eps = math.fsum(e.count * e.epsilon for e in entries)
        return eps, min(1.0, math.fsum(e.count * e.delta for e in entries)), "basic"
    comps = {c.method: c for c in compose(list(entries))}
    basic = comps["basic"]
    tight = comps.get("PLD")  # a valid (ε, δ) statement at its own δ; kept when smaller
    if tight is not None and tight.applicable and tight.epsilon < basic.epsilon:
        return tight.epsilon, tight.delta, "PLD"
    return basic.epsilon, basic.delta, "basic"


def _dataset_label(datasets: Sequence[str]) -> str:
    if len(datasets) == 1:
        return datasets[0]
    fam = _family(datasets[0])
    tails = [d[len(fam) + 1:] if d.startswith(fam + ":") else d for d in datasets]
    shown = ", ".join(tails) if len(tails) <= 4 else f"{tails[0]} … {tails[-1]}"
    return f"{fam}:{{{shown}}} ({len(datasets)})"


def release_groups(led: Any) -> tuple[Table, list[str]]:
    """The ledger as one row per release group (what produced it, mechanism, mode, datasets).

    A group is the entries of one run (their ``source``) with one mechanism and mode on one
    family of datasets (``agent:b`` … ``agent:f`` is one family). ε and δ are the group's
    total for one dataset (datasets are protected separately, so the largest one is shown
    when the group spans several), by the accountant named in the row. An unbounded total
    shows "unbounded [n]"; footnote n gives the reason once.

    Parameters
    ----------
    led : PrivacyLedger
        The ledger.

    Returns
    -------
    (Table, list of str)
        The table and the footnotes (also in the table's note).
    """
    groups: dict[tuple[str, str, str, str], list[Any]] = {}
    for e in led.entries:
        key = (e.source.split(":")[0] or "–", e.mechanism, e.mode, _family(e.dataset))
        groups.setdefault(key, []).append(e)
    reasons: dict[str, int] = {}
    rows = []
    for (source, mech, mode, _fam), es in groups.items():
        datasets = list(dict.fromkeys(e.dataset for e in es))
        worst: tuple[float, float, str] | None = None
        for ds in datasets:
            mine = [e for e in es if e.dataset == ds]
            t = _tight(mine, pld=mode != "experiment")  # not spent: basic is enough
            if worst is None or (t[0], t[1]) > (worst[0], worst[1]):
                worst = t
        assert worst is not None
        eps, delta, how = worst
        if math.isinf(eps):
            why = sorted({e.reason or "no finite bound" for e in es if e.unbounded})
            refs = [reasons.setdefault(w, len(reasons) + 1) for w in why]
            eps_text = UNBOUNDED_TEXT + " " + "".join(f"[{n}]" for n in refs)
            how = "–"
        else:
            eps_text = _fmt(eps)
        seeds = sorted({e.seed for e in es if e.seed is not None})
        mode_text = mode + (f" (seed {', '.join(map(str, seeds))})" if seeds else "")
        per = " per dataset, largest" if len(datasets) > 1 else ""
        rows.append((source, _dataset_label(datasets), mech, mode_text,
                     f"{len(es)} / {sum(e.count for e in es)}", eps_text, _fmt(delta, 3),
                     how + per))
    notes = [f"[{n}] {why.rstrip('.')}." for why, n in reasons.items()]
    note = ("One row per run, mechanism, mode and family of datasets. ε and δ: the group's "
            "total for one protected dataset (seeded experiments: basic composition). "
            + " ".join(notes))
    return Table(("by", "protects", "mechanism", "mode", "entries / uses", "ε", "δ",
                  "accountant"), tuple(rows), "Releases by group", note=note.strip(),
                 widths=(6, 22, 14, 13, 9, 12, 7, 17)), notes


def dataset_totals(led: Any) -> Table:
    """What each protected dataset has spent, for the report's first page.

    One row per dataset: the releases' uses, their total under basic composition and under
    the tight accountant (PLD, where it is tighter), the budget, and the uses by seeded
    experiments (listed, not spent). Unbounded totals read "unbounded [n]" with the reason
    once in the note.

    Parameters
    ----------
    led : PrivacyLedger
        The ledger with its budgets.

    Returns
    -------
    Table
        ``protects, released uses, basic (ε, δ), tight (ε, δ), budget, seeded uses``.
    """
    from core.privacy.ledger import release_modes

    spent_modes = release_modes(led.entries)
    reasons: dict[str, int] = {}
    rows = []
    for ds in led.datasets():
        es = led.select(ds, modes=spent_modes)
        seeded = sum(e.count for e in led.select(ds, modes=("experiment",)))
        comps = {c.method: c for c in led.compositions(ds, modes=spent_modes)} if es else {}
        basic = comps.get("basic")
        if basic is None or math.isinf(basic.epsilon):
            if es:
                why = sorted({e.reason or "no finite bound" for e in es if e.unbounded})
                refs = "".join(f"[{reasons.setdefault(w, len(reasons) + 1)}]" for w in why)
                basic_text = tight_text = f"{UNBOUNDED_TEXT} {refs}"
            else:
                basic_text = tight_text = "nothing released"
        else:
            basic_text = _pair(basic.epsilon, basic.delta)
            pld = comps.get("PLD")
            tight_text = (f"{_pair(pld.epsilon, pld.delta)} PLD"
                          if pld is not None and pld.applicable
                          and pld.epsilon < basic.epsilon else basic_text + " basic")
        budget = "–"
        if ds in led.budgets:
            be, bd = led.budgets[ds]
            over = led.would_exceed(ds, 0.0, 0.0)
            budget = f"{_pair(be, bd)} {'EXCEEDED' if over else 'within'}"
        rows.append((ds, str(sum(e.count for e in es)), basic_text, tight_text, budget,
                     str(seeded) if seeded else "–"))
    notes = " ".join(f"[{n}] {w.rstrip('.')}." for w, n in reasons.items())
    return Table(("protects", "uses", "spent, basic (ε, δ)", "spent, tight (ε, δ)",
                  "budget (ε, δ)", "seeded uses"), tuple(rows),
                 "Privacy spent per protected dataset",
                 note=("Uses: releases, counted as spent; seeded uses: seeded experiments, "
                       "listed and not spent. Basic: sequential composition (Σε, Σδ). "
                       "Tight: privacy-loss "
                       "distributions composed with dp-accounting (PLD), shown where tighter. "
                       + notes).strip(),
                 widths=(24, 7, 20, 24, 17, 8))


def _ledger_section(project: Any) -> Section:
    """The ledger on a page or two: the release groups, unbounded reasons once, the
    accountants and the adjacency (every entry: :func:`_ledger_entries_section`)."""
    sec = Section("Privacy ledger", id="ledger")
    led = _read_ledger(project, sec)
    if led is None:
        return sec
    if led.entries:
        table, _ = release_groups(led)
        sec.blocks.append(table)
    if any(not e.is_release for e in led.entries):
        sec.blocks.append(Paragraph(_NOT_SPENT, "note"))
    sec.blocks.append(KeyValues((
        ("basic", "sequential composition: Σε, Σδ — valid for any releases"),
        ("PLD", "privacy-loss distributions composed with dp-accounting, ε read at the "
                "group's δ (the tight accountant; used only where it is tighter)")),
        "Accountants"))
    adj: dict[tuple[str, str], list[str]] = {}  # one row per assumption, not per mechanism
    for e in led.entries:
        if e.adjacency:
            mechs = adj.setdefault((_family(e.dataset), e.adjacency), [])
            if e.mechanism not in mechs:
                mechs.append(e.mechanism)
    if adj:
        sec.blocks.append(Table(("protects", "mechanisms", "neighbouring datasets"),
                                tuple((fam, ", ".join(m), text)
                                      for (fam, text), m in sorted(adj.items())),
                                "Adjacency assumed", widths=(16, 22, 62)))
    sec.blocks.append(Paragraph(
        f"{len(led.entries)} entries in all; every entry, with the totals under each "
        "accountant, is in the appendix “Every ledger entry” (report section "
        "ledger-entries) and in the Ledger tab's CSV export.", "note"))
    return sec


def _ledger_entries_section(project: Any) -> Section:
    """Appendix: totals under every accountant and every ledger entry, one row each."""
    sec = Section("Appendix: every ledger entry", id="ledger-entries")
    led = _read_ledger(project, sec)
    if led is None:
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
        sec.blocks.append(footnote_unbounded(Table(
            ("id", "protects", "mechanism", "ε", "δ", "n", "mode", "by", "ref", "time (UTC)"),
            rows, "Entries", note="ε and δ are per use; an entry with n uses counts n times. "
                                  "“ref” points into the table below.",
            widths=(7, 11, 15, 9, 5, 4, 15, 7, 6, 21))))
        if refs:
            sec.blocks.append(Table(("ref", "what was released"),
                                    tuple((r, text) for text, r in refs.items()),
                                    "What was released", widths=(7, 93)))
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
