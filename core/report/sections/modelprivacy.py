"""Report sections of the model privacy lab: a membership-inference study and its table."""

from __future__ import annotations

from typing import Any

from core.report.model import (
    Figure,
    KeyValues,
    Paragraph,
    Section,
    Series,
    Table,
    _fmt,
    _mode_text,
    _time,
    reporter,
)

__all__: list[str] = []


_MIA_NAMES = {"none": "no defense", "dpsgd": "DP-SGD", "gpm": "GPM (random DP)",
              "oneparam": "one-parameter defense", "dirichlet": "Dirichlet rows"}


@reporter("mia")
def _mia_section(project: Any, run: Any) -> Section:
    """A membership-inference study: the numbers, the defense's statement, the ROC."""
    from core.modelprivacy.metrics import tpr_at_fpr_items
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
                   + ", ".join(f"TPR@FPR {k}: {v}" for k, v in
                               tpr_at_fpr_items(s, _fmt))),
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
