"""The privacy ledger: every release the project makes, with what it cost.

An entry records the mechanism, its parameters, (ε, δ), the adjacency assumed, the data
it protects (the *dataset*: e.g. ``"mdp:four-startups"`` or ``"agent:b"``), what was
released, the randomness mode (release or seeded experiment) and the time. Totals per
dataset use basic composition (Σε, Σδ); tighter accountants are added where their
assumptions hold, and say which they are. Calculator what-ifs are never recorded.

Examples
--------
>>> led = PrivacyLedger()
>>> _ = led.record(dataset="agent:a", mechanism="laplace", epsilon=0.5, released="x")
>>> _ = led.record(dataset="agent:a", mechanism="laplace", epsilon=0.25, released="y")
>>> led.total("agent:a")
(0.75, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from core._validation import InputError
from core.project import now_iso

__all__ = ["LedgerEntry", "PrivacyLedger", "BudgetExceeded", "Composition", "compose",
           "PURE_MECHANISMS"]

# Mechanisms whose entries are pure ε-DP (δ = 0) in the usual sense, so zCDP applies.
PURE_MECHANISMS = ("laplace", "exponential")


class BudgetExceeded(InputError):
    """A release would take a dataset past its budget."""


@dataclass(frozen=True)
class LedgerEntry:
    id: str
    dataset: str
    mechanism: str
    epsilon: float
    delta: float = 0.0
    parameters: dict[str, Any] = field(default_factory=dict)
    adjacency: str = ""
    released: str = ""
    mode: str = "experiment"
    seed: int | None = None
    source: str = ""
    time: str = field(default_factory=now_iso)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LedgerEntry":
        try:
            return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})
        except TypeError as exc:
            raise InputError(f"malformed ledger entry ({exc})", field="ledger") from None


@dataclass
class PrivacyLedger:
    entries: list[LedgerEntry] = field(default_factory=list)
    budgets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def record(self, *, dataset: str, mechanism: str, epsilon: float, delta: float = 0.0,
               enforce_budget: bool = False, **details: Any) -> LedgerEntry:
        """Append one release. With ``enforce_budget`` a release past the budget is refused."""
        if not (math.isfinite(epsilon) and epsilon >= 0) or not 0 <= delta <= 1:
            raise InputError(f"invalid (epsilon, delta) = ({epsilon}, {delta})", field="epsilon")
        if enforce_budget:
            problem = self.would_exceed(dataset, epsilon, delta)
            if problem:
                raise BudgetExceeded(problem, field="budget")
        entry = LedgerEntry(id=f"rel-{len(self.entries) + 1}", dataset=dataset,
                            mechanism=mechanism, epsilon=float(epsilon), delta=float(delta),
                            **details)
        self.entries.append(entry)
        return entry

    def datasets(self) -> list[str]:
        return sorted({e.dataset for e in self.entries} | set(self.budgets))

    def total(self, dataset: str) -> tuple[float, float]:
        """Basic sequential composition over every release touching ``dataset``."""
        es = [e for e in self.entries if e.dataset == dataset]
        return (math.fsum(e.epsilon for e in es), min(1.0, math.fsum(e.delta for e in es)))

    def set_budget(self, dataset: str, epsilon: float, delta: float = 0.0) -> None:
        if not (math.isfinite(epsilon) and epsilon > 0) or not 0 <= delta < 1:
            raise InputError(f"budget must have epsilon > 0 and 0 <= delta < 1, got "
                             f"({epsilon}, {delta})", field="budget")
        self.budgets[dataset] = (float(epsilon), float(delta))

    def would_exceed(self, dataset: str, epsilon: float, delta: float = 0.0) -> str:
        """Empty if the release fits the dataset's budget, else a one-line reason."""
        if dataset not in self.budgets:
            return ""
        be, bd = self.budgets[dataset]
        te, td = self.total(dataset)
        if te + epsilon > be + 1e-12 or td + delta > bd + 1e-15:
            return (f"{dataset}: spent ({te:.4g}, {td:.3g}) + this release ({epsilon:.4g}, "
                    f"{delta:.3g}) exceeds the budget ({be:.4g}, {bd:.3g})")
        return ""

    def compositions(self, dataset: str, *, delta_slack: float = 1e-6) -> list["Composition"]:
        """Every applicable composition of ``dataset``'s releases, basic first."""
        return compose([e for e in self.entries if e.dataset == dataset],
                       delta_slack=delta_slack)

    def to_list(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.entries]

    @classmethod
    def from_list(cls, items: list[dict[str, Any]]) -> "PrivacyLedger":
        return cls(entries=[LedgerEntry.from_dict(d) for d in items])


@dataclass(frozen=True)
class Composition:
    """A total (ε, δ) of several releases, with the theorem that gives it."""

    method: str
    epsilon: float
    delta: float
    assumption: str
    applicable: bool = True


def compose(entries: list[LedgerEntry], *, delta_slack: float = 1e-6) -> list[Composition]:
    """Totals of ``entries`` under three accountants (each says when it applies).

    * basic composition: (Σεᵢ, Σδᵢ) — always valid;
    * advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3, heterogeneous form):
      ε' = √(2 ln(1/δ') Σεᵢ²) + Σ εᵢ(e^{εᵢ} − 1), δ = Σδᵢ + δ' — for any (εᵢ, δᵢ)-DP releases;
    * zCDP (Bun & Steinke 2016, Prop. 1.4 and Lemma 3.5): a pure εᵢ-DP release is
      (εᵢ²/2)-zCDP; ρ adds up; ρ-zCDP gives (ρ + 2√(ρ ln(1/δ')), δ')-DP — only when every
      release is pure DP (Laplace, exponential mechanism).

    Examples
    --------
    >>> es = [LedgerEntry(id=str(i), dataset="d", mechanism="laplace", epsilon=0.1)
    ...       for i in range(100)]
    >>> [(c.method, round(c.epsilon, 3)) for c in compose(es)]
    [('basic', 10.0), ('advanced', 6.308), ('zCDP', 5.757)]
    """
    if not 0 < delta_slack < 1:
        raise InputError(f"must lie in (0, 1), got {delta_slack!r}", field="delta_slack")
    eps = [e.epsilon for e in entries]
    dels = [e.delta for e in entries]
    out = [Composition("basic", math.fsum(eps), min(1.0, math.fsum(dels)),
                       "sequential composition: valid for any releases")]
    if not entries:
        return out
    log_inv = math.log(1.0 / delta_slack)
    try:
        adv = math.sqrt(2 * log_inv * math.fsum(x * x for x in eps)) + math.fsum(
            x * math.expm1(x) for x in eps)
    except OverflowError:
        adv = math.inf
    out.append(Composition("advanced", adv, min(1.0, math.fsum(dels) + delta_slack),
                           f"advanced composition (Dwork-Rothblum-Vadhan) with slack "
                           f"delta' = {delta_slack:g}"))
    pure = all(e.delta == 0 and e.mechanism in PURE_MECHANISMS for e in entries)
    rho = math.fsum(x * x / 2 for x in eps)
    out.append(Composition("zCDP", rho + 2 * math.sqrt(rho * log_inv), delta_slack,
                           f"zero-concentrated DP (Bun-Steinke): pure eps-DP releases only, "
                           f"converted at delta = {delta_slack:g}", applicable=pure))
    return out
