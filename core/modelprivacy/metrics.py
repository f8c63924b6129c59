"""Small formulas of the RNN membership-inference paper that the lab reports or checks."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["episodic_reward", "unresolved_tpr_reason", "tpr_at_fpr_items"]


def episodic_reward(steps: int, *, horizon: int = 200, gamma: float = 0.9,
                    reached: bool = True) -> float:
    """The RL task's reward (RNN paper eq. 2): 1 − γ·t/T if the goal is reached, else 0.

    >>> episodic_reward(20), episodic_reward(35)       # spec A5
    (0.91, 0.8425)
    """
    return (1.0 - gamma * steps / horizon) if reached else 0.0


def unresolved_tpr_reason(fpr: float, nonmembers: int) -> str | None:
    """Why a TPR at FPR ≤ ``fpr`` cannot be measured on ``nonmembers`` non-members, else None.

    A threshold at FPR ≤ f lets k = ⌊f·n⌋ of the n non-members through; when f·n < 1 not
    even one false positive fits, so every threshold the data can tell apart has FPR 0 or
    above f and "the TPR at FPR f" is not measured — it is reported as null with this
    reason (the population study, the shadow-model study, the CLI, the window and the
    report all ask this one function).

    Parameters
    ----------
    fpr : float
        The target false positive rate.
    nonmembers : int
        Non-member scores the TPR would be read from.

    Returns
    -------
    str or None
        The reason, or None when the FPR is resolved.

    Examples
    --------
    >>> unresolved_tpr_reason(0.001, 224)
    'an FPR of 0.001 needs at least 1,000 non-members for one false positive; the study has 224'
    >>> unresolved_tpr_reason(0.01, 224) is None, unresolved_tpr_reason(0.001, 1000) is None
    (True, True)
    """
    if math.floor(fpr * nonmembers + 1e-9) >= 1:
        return None
    need = math.ceil(1 / fpr) if fpr > 0 else None
    what = f"at least {need:,} non-members" if need is not None else "a positive FPR"
    return (f"an FPR of {fpr:g} needs {what} for one false positive; the study has "
            f"{nonmembers:,}")


def tpr_at_fpr_items(summary: Mapping[str, Any],
                     fmt: Callable[[float], str] = lambda v: f"{v:.3f}"
                     ) -> list[tuple[str, str]]:
    """``(target FPR, text)`` of a study's ``tpr_at_fpr``: the TPR, or "not resolved (why)".

    ``summary`` is a study's JSON (``mia --json``, a run record's summary): its
    ``tpr_at_fpr`` map, its ``tpr_at_fpr_reason`` map and its non-member count
    (``nonmembers``, else ``members``: the study has as many of each). A value the
    non-members cannot resolve (:func:`unresolved_tpr_reason`) reads "not resolved" even
    in a record written before the rule, so no screen shows it as a measurement.

    Examples
    --------
    >>> tpr_at_fpr_items({"tpr_at_fpr": {"0.001": 0.0089, "0.01": 0.0134}, "members": 224})
    ... # doctest: +NORMALIZE_WHITESPACE
    [('0.001', 'not resolved (an FPR of 0.001 needs at least 1,000 non-members for one
      false positive; the study has 224)'), ('0.01', '0.013')]
    """
    reasons = summary.get("tpr_at_fpr_reason") or {}
    n = summary.get("nonmembers", summary.get("members"))
    out = []
    for key, value in (summary.get("tpr_at_fpr") or {}).items():
        why = reasons.get(key) if isinstance(reasons, Mapping) else None
        if why is None and isinstance(n, int) and not isinstance(n, bool):
            try:
                why = unresolved_tpr_reason(float(key), n)
            except ValueError:
                why = None
        if why is not None or value is None:
            out.append((str(key), f"not resolved ({why})" if why else "not resolved"))
        else:
            out.append((str(key), fmt(float(value))))
    return out
