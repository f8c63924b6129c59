"""The privacy ledger: every release the project makes, with what it cost.

An entry records the mechanism, its parameters, (ε, δ), the adjacency assumed, the data
it protects (the *dataset*: e.g. ``"mdp:four-startups"`` or ``"agent:b"``), what was
released, the randomness mode and the time. Calculator what-ifs are never recorded.

Modes. ``"release"`` is a real release (secure noise; what left PrivPlan). A
``"experiment"`` entry records privatisations made by a seeded experiment (e.g. the
Figure 2.1 sweep): they are listed so a reader sees every use of the data, but nothing
was released — their noise is reproducible from the recorded seed — so they are **not**
spent: :meth:`PrivacyLedger.spent` and the budgets count every entry whose mode is not
``"experiment"``. An entry without a mode counts as a release (the safe reading).
:meth:`PrivacyLedger.total` and :meth:`PrivacyLedger.compositions` take ``modes`` to
choose; by default they count everything.

An entry may stand for ``count`` independent uses of the same mechanism with the same
(ε, δ) (a sweep privatises the model ``runs`` times at each k); totals weigh it by
``count``, exactly as ``count`` separate entries would.

Unbounded releases. A release with no finite ε (raw data left PrivPlan, or the guarantee
does not apply) is still recorded, with ``epsilon = math.inf`` and a ``reason``; it is
written to files as ``"epsilon": null`` with ``"epsilon_reason"``, and every total that
includes it is unbounded (∞). Nothing that left is ever free.

Totals per dataset use basic composition (Σε, Σδ); tighter accountants are added where
their assumptions hold, and say which they are (:func:`compose`): the tight total composes
the releases' privacy-loss distributions with dp-accounting (:mod:`core.privacy.pld`; an
entry whose parameters carry a ``profile`` — a Dirichlet privatisation — enters with its
exact profile, any other with the canonical pair of its (ε, δ)). Budgets are per
dataset; :meth:`PrivacyLedger.would_exceed` says, before a release, whether it fits.

Examples
--------
>>> led = PrivacyLedger()
>>> _ = led.record(dataset="agent:a", mechanism="laplace", epsilon=0.5, released="x")
>>> _ = led.record(dataset="agent:a", mechanism="laplace", epsilon=0.25, released="y")
>>> led.total("agent:a")
(0.75, 0.0)
>>> _ = led.record(dataset="agent:a", mechanism="laplace", epsilon=0.5, mode="experiment",
...                count=10)
>>> led.total("agent:a"), led.spent("agent:a")
((5.75, 0.0), (0.75, 0.0))
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core.common.errors import InputError
from core.common.timestamps import now_iso
from core.privacy.composition import advanced_epsilon, zcdp_epsilon
from core.privacy.pld import PLD_LABEL, profile_spec_terms
from core.privacy.pld import compose as pld_compose

__all__ = ["release_modes", "LedgerEntry", "PrivacyLedger", "BudgetExceeded", "Composition",
           "compose",
           "PURE_MECHANISMS", "MODES",
           "budgets_from_dict", "budgets_to_dict"]

# Mechanisms whose entries are pure ε-DP (δ = 0) in the usual sense, so zCDP applies.
PURE_MECHANISMS = ("laplace", "exponential")
MODES = ("release", "experiment")
_ID = re.compile(r"^rel-(\d+)$")


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
    mode: str = "release"
    seed: int | None = None
    source: str = ""
    time: str = field(default_factory=now_iso)
    count: int = 1
    reason: str = ""

    @property
    def unbounded(self) -> bool:
        """True when this release has no finite ε (see the module docstring)."""
        return math.isinf(self.epsilon)

    @property
    def is_release(self) -> bool:
        """True unless the entry is a seeded experiment (see the module docstring)."""
        return self.mode != "experiment"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["count"] == 1:
            del d["count"]  # the common case stays as short as before
        if not d["reason"]:
            del d["reason"]
        if self.unbounded:  # JSON has no infinity: null with the reason beside it
            d["epsilon"] = None
            d["epsilon_reason"] = self.reason
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LedgerEntry":
        if not isinstance(d, dict):
            raise InputError(f"malformed ledger entry (an object is needed, got "
                             f"{type(d).__name__})", field="ledger")
        d = dict(d)
        missing = [k for k in ("id", "dataset", "mechanism", "epsilon") if k not in d]
        if missing:
            raise InputError(f"malformed ledger entry (missing {', '.join(missing)})",
                             field="ledger")
        if not isinstance(d["id"], str) or not isinstance(d["dataset"], str) \
                or not isinstance(d["mechanism"], str):
            raise InputError("malformed ledger entry (id, dataset and mechanism must be "
                             "strings)", field="ledger")
        if "epsilon" in d and d["epsilon"] is None:  # an unbounded release
            d["epsilon"] = math.inf
            d.setdefault("reason", d.get("epsilon_reason") or "no finite bound")
        try:
            e = cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})
        except TypeError as exc:
            raise InputError(f"malformed ledger entry ({exc})", field="ledger") from None
        _check_entry(e)
        return e


_TEXT_FIELDS = ("adjacency", "released", "mode", "source", "time", "reason")


def _check_entry(e: LedgerEntry) -> None:
    if not e.id.strip():
        raise InputError(f"a ledger entry's id must be a non-empty string, got {e.id!r}",
                         field="ledger.id")
    where = f"ledger[{e.id}]"
    for name in _TEXT_FIELDS:
        v = getattr(e, name)
        if not isinstance(v, str):
            raise InputError(f"{name} must be a string, got {v!r}", field=where)
    if not isinstance(e.parameters, dict):
        raise InputError(f"parameters must be an object, got {e.parameters!r}", field=where)
    if e.seed is not None and (isinstance(e.seed, bool) or not isinstance(e.seed, int)):
        raise InputError(f"seed must be an integer or null, got {e.seed!r}", field=where)
    for name in ("epsilon", "delta"):
        v = getattr(e, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError(f"{name} must be a number, got {v!r}", field=where)
    if math.isnan(e.epsilon) or e.epsilon < 0 or not 0 <= e.delta <= 1:
        raise InputError(f"invalid (epsilon, delta) = ({e.epsilon}, {e.delta})", field=where)
    if math.isinf(e.epsilon) and not e.reason:
        raise InputError("an unbounded release (epsilon = null) needs a reason", field=where)
    if isinstance(e.count, bool) or not isinstance(e.count, int) or e.count < 1:
        raise InputError(f"count must be an integer >= 1, got {e.count!r}", field=where)


def _filter(entries: Iterable[LedgerEntry], dataset: str | None,
            modes: Sequence[str] | None) -> list[LedgerEntry]:
    return [e for e in entries if (dataset is None or e.dataset == dataset)
            and (modes is None or e.mode in modes)]


def release_modes(entries: Iterable[LedgerEntry]) -> tuple[str, ...]:
    return tuple(sorted({e.mode for e in entries if e.is_release} | {"release"}))


@dataclass
class PrivacyLedger:
    entries: list[LedgerEntry] = field(default_factory=list)
    budgets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def next_id(self) -> str:
        """A fresh ``rel-N`` id (one more than the largest in use)."""
        n = max((int(m.group(1)) for e in self.entries if (m := _ID.match(e.id))), default=0)
        return f"rel-{max(n, len(self.entries)) + 1}"

    def record(self, *, dataset: str, mechanism: str, epsilon: float, delta: float = 0.0,
               enforce_budget: bool = False, **details: Any) -> LedgerEntry:
        """Append one release. With ``enforce_budget`` a release past the budget is refused.

        ``epsilon = math.inf`` records a release without a finite guarantee; it needs
        ``reason=...`` (why it is unbounded).
        """
        if math.isnan(epsilon) or epsilon < 0 or not 0 <= delta <= 1:
            raise InputError(f"invalid (epsilon, delta) = ({epsilon}, {delta})", field="epsilon")
        entry = LedgerEntry(id=self.next_id(), dataset=dataset, mechanism=mechanism,
                            epsilon=float(epsilon), delta=float(delta), **details)
        _check_entry(entry)
        if enforce_budget and entry.is_release:
            problem = self.would_exceed(dataset, entry.count * epsilon,
                                        min(1.0, entry.count * delta))
            if problem:
                raise BudgetExceeded(problem, field="budget")
        self.entries.append(entry)
        return entry

    def extend(self, entries: Iterable[LedgerEntry]) -> list[LedgerEntry]:
        """Append entries made elsewhere (e.g. a run's own ledger), with fresh ids."""
        added = []
        for e in entries:
            e = replace(e, id=self.next_id())
            _check_entry(e)
            self.entries.append(e)
            added.append(e)
        return added

    def datasets(self) -> list[str]:
        return sorted({e.dataset for e in self.entries} | set(self.budgets))

    def mechanisms(self) -> list[str]:
        return sorted({e.mechanism for e in self.entries})

    def select(self, dataset: str | None = None, *,
               modes: Sequence[str] | None = None) -> list[LedgerEntry]:
        """The entries of ``dataset`` (all datasets if None) whose mode is in ``modes``."""
        return _filter(self.entries, dataset, modes)

    def total(self, dataset: str, *, modes: Sequence[str] | None = None
              ) -> tuple[float, float]:
        """Basic sequential composition over the entries of ``dataset`` (all modes by default)."""
        es = _filter(self.entries, dataset, modes)
        return (math.fsum(e.count * e.epsilon for e in es),
                min(1.0, math.fsum(e.count * e.delta for e in es)))

    def spent(self, dataset: str) -> tuple[float, float]:
        """What the releases of ``dataset`` cost (basic composition; experiments excluded)."""
        return self.total(dataset, modes=release_modes(self.entries))

    def set_budget(self, dataset: str, epsilon: float, delta: float = 0.0) -> None:
        if not (math.isfinite(epsilon) and epsilon > 0) or not 0 <= delta < 1:
            raise InputError(f"budget must have epsilon > 0 and 0 <= delta < 1, got "
                             f"({epsilon}, {delta})", field="budget")
        self.budgets[dataset] = (float(epsilon), float(delta))

    def clear_budget(self, dataset: str) -> None:
        self.budgets.pop(dataset, None)

    def would_exceed(self, dataset: str, epsilon: float, delta: float = 0.0) -> str:
        """Empty if a release of (ε, δ) fits the dataset's budget, else a one-line reason.

        Only releases are counted (see the module docstring), with basic composition.
        """
        if dataset not in self.budgets:
            return ""
        be, bd = self.budgets[dataset]
        te, td = self.spent(dataset)
        if te + epsilon > be + 1e-12 or td + delta > bd + 1e-15:
            return (f"{dataset}: spent ({_fmt_eps(te)}, {td:.3g}) + this release "
                    f"({_fmt_eps(epsilon)}, {delta:.3g}) exceeds the budget ({be:.4g}, "
                    f"{bd:.3g})")
        return ""

    def release_problems(self, entries: Iterable[LedgerEntry]) -> list[str]:
        """One line per dataset whose budget the releases among ``entries`` would exceed.

        ``entries`` are about to be recorded (e.g. a run's); seeded experiments among them
        are not spent, so they never exceed anything. Per dataset their releases are summed
        by basic composition and checked with :meth:`would_exceed`.

        Parameters
        ----------
        entries : iterable of LedgerEntry
            What a run would add.

        Returns
        -------
        list of str
            Empty when everything fits.

        Examples
        --------
        >>> led = PrivacyLedger(budgets={"agent:a": (1.0, 0.0)})
        >>> new = [LedgerEntry(id="", dataset="agent:a", mechanism="laplace", epsilon=0.6,
        ...                    count=2)]
        >>> led.release_problems(new)
        ['agent:a: spent (0, 0) + this release (1.2, 0) exceeds the budget (1, 0)']
        >>> led.release_problems([LedgerEntry(id="", dataset="agent:a", mechanism="laplace",
        ...                                   epsilon=5.0, mode="experiment")])
        []
        """
        cost: dict[str, list[float]] = {}
        for e in entries:
            if e.is_release:
                c = cost.setdefault(e.dataset, [0.0, 0.0])
                c[0] += e.count * e.epsilon
                c[1] += e.count * e.delta
        return [p for ds, (eps, dl) in sorted(cost.items())
                if (p := self.would_exceed(ds, eps, min(1.0, dl)))]

    def compositions(self, dataset: str, *, modes: Sequence[str] | None = None,
                     delta_slack: float = 1e-6, delta: float | None = None
                     ) -> list["Composition"]:
        """Every composition of ``dataset``'s entries (``modes``: all by default), basic first;
        the PLD total at ``delta`` (default: the dataset's budget δ when it has one)."""
        if delta is None and dataset in self.budgets and 0 < self.budgets[dataset][1] < 1:
            delta = self.budgets[dataset][1]
        return compose(_filter(self.entries, dataset, modes), delta_slack=delta_slack,
                       delta=delta)

    def to_list(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.entries]

    @classmethod
    def from_list(cls, items: list[dict[str, Any]],
                  budgets: dict[str, Any] | None = None) -> "PrivacyLedger":
        if not isinstance(items, list):
            raise InputError(f"must be a list, got {type(items).__name__}", field="ledger")
        return cls(entries=[LedgerEntry.from_dict(d) for d in items],
                   budgets=budgets_from_dict(budgets or {}))

    @classmethod
    def from_project(cls, project: Any) -> "PrivacyLedger":
        """The ledger of a :class:`core.project.model.Project` (its entries and budgets)."""
        return cls(entries=list(project.ledger),
                   budgets=budgets_from_dict(getattr(project, "budgets", None) or {}))


def _fmt_eps(e: float) -> str:
    return "unbounded" if math.isinf(e) else f"{e:.4g}"


def budgets_to_dict(budgets: dict[str, tuple[float, float]]) -> dict[str, dict[str, float]]:
    """Budgets as stored in the project file: ``{dataset: {"epsilon": e, "delta": d}}``.

    Parameters
    ----------
    budgets : dict
        ``{dataset: (ε, δ)}``.

    Returns
    -------
    dict
        The file form, sorted by dataset.
    """
    return {ds: {"epsilon": float(e), "delta": float(d)} for ds, (e, d) in sorted(budgets.items())}


def budgets_from_dict(d: Any) -> dict[str, tuple[float, float]]:
    """Inverse of :func:`budgets_to_dict`, validated.

    Parameters
    ----------
    d : Any
        The ``budgets`` object of a project file.

    Returns
    -------
    dict
        ``{dataset: (ε, δ)}`` with ε > 0 finite and 0 <= δ < 1.

    Raises
    ------
    InputError
        Naming the dataset whose budget is malformed.
    """
    if not isinstance(d, dict):
        raise InputError(f"must be an object, got {type(d).__name__}", field="budgets")
    out: dict[str, tuple[float, float]] = {}
    for ds, b in d.items():
        where = f"budgets[{ds}]"
        if not isinstance(b, dict) or "epsilon" not in b:
            raise InputError('must be {"epsilon": E, "delta": D}', field=where)
        e, dl = b.get("epsilon"), b.get("delta", 0.0)
        if (isinstance(e, bool) or isinstance(dl, bool) or not isinstance(e, (int, float))
                or not isinstance(dl, (int, float))):
            raise InputError(f"epsilon and delta must be numbers, got ({e!r}, {dl!r})",
                             field=where)
        if not (math.isfinite(e) and e > 0) or not 0 <= dl < 1:
            raise InputError(f"needs epsilon > 0 and 0 <= delta < 1, got ({e}, {dl})",
                             field=where)
        out[str(ds)] = (float(e), float(dl))
    return out


def _pld_key(e: LedgerEntry) -> tuple[Any, ...]:
    profile = e.parameters.get("profile") if isinstance(e.parameters, dict) else None
    return (e.epsilon, e.delta, e.count,
            json.dumps(profile, sort_keys=True, default=str) if profile is not None else "")


_PLD_CACHE: dict[tuple[Any, ...], "Composition"] = {}


def _pld_composition(entries: list[LedgerEntry], delta: float) -> "Composition":
    """The PLD total, memoised on what it depends on (each entry's (ε, δ), count and
    profile; δ): a report and the ledger tab ask for the same totals several times, and
    one self-composition of hundreds of uses takes a second."""
    key = (float(delta), tuple(sorted(_pld_key(e) for e in entries)))
    hit = _PLD_CACHE.get(key)
    if hit is None:
        if len(_PLD_CACHE) > 512:
            _PLD_CACHE.clear()
        hit = _PLD_CACHE[key] = _pld_composition_uncached(entries, delta)
    return hit


def _pld_composition_uncached(entries: list[LedgerEntry], delta: float) -> "Composition":
    terms = []
    for e in entries:
        terms += profile_spec_terms(e.parameters.get("profile"), e.count, e.epsilon, e.delta)
    try:
        res = pld_compose(terms, delta)
    except InputError as exc:
        return Composition("PLD", math.inf, delta, f"{PLD_LABEL}: {exc.problem}",
                           applicable=False)
    if not res.applicable:
        return Composition("PLD", math.inf, delta, f"{PLD_LABEL}: {res.reason}",
                           applicable=False)
    return Composition("PLD", res.epsilon, delta,
                       f"{PLD_LABEL}; read at delta = {delta:.3g} (FFT slack {res.slack:.0e})")


@dataclass(frozen=True)
class Composition:
    """A total (ε, δ) of several releases, with the theorem that gives it."""

    method: str
    epsilon: float
    delta: float
    assumption: str
    applicable: bool = True


def _pld_delta(entries: list[LedgerEntry], delta_slack: float) -> float:
    """The δ at which the PLD total is read when none is asked for: basic's Σδ when it is a
    meaningful δ (in (0, 1)), δ' for pure-DP releases, else the largest single δ."""
    total = math.fsum(e.count * e.delta for e in entries)
    if 0 < total < 1:
        return total
    if total == 0:
        return delta_slack
    return max(e.delta for e in entries if e.delta > 0)


def _capped_by_basic(pld: Composition, basic: Composition) -> Composition:
    """The PLD total, or basic composition's Σε where that is smaller (the PLD's grid
    rounds up: one pure release can read a little above its own ε, and an (ε, δ) release
    read at exactly its δ reads unbounded).

    Sound: both totals are upper bounds for the same releases under the same adjacency
    (each entry's own guarantee); basic gives (Σε, Σδ)-DP, and (ε, δ)-DP implies
    (ε, δ′)-DP for every δ′ ≥ δ, so at the PLD's δ ≥ Σδ the releases are
    (min(ε_PLD, Σε), δ)-DP. Read at a smaller δ (a budget's δ below Σδ) basic says nothing
    there and the PLD total is kept as it is."""
    if not pld.applicable or basic.delta > pld.delta or not basic.epsilon < pld.epsilon:
        return pld
    return replace(pld, epsilon=basic.epsilon,
                   assumption=f"{pld.assumption}; capped at basic composition's sum of "
                              f"epsilon (valid at this delta, at least its {basic.delta:.3g})")


def compose(entries: list[LedgerEntry], *, delta_slack: float = 1e-6,
            delta: float | None = None) -> list[Composition]:
    """Totals of ``entries`` under four accountants (each says when it applies).

    An entry with ``count`` c counts as c releases of its (ε, δ).

    Parameters
    ----------
    entries : list of LedgerEntry
        The releases to total (non-adaptive counts: the totals assume the sequence of
        releases was fixed in advance).
    delta_slack : float
        δ' in (0, 1) of the advanced and zCDP accountants.

    delta : float, optional
        δ at which the PLD total is read (default :func:`_pld_delta`).

    Returns
    -------
    list of Composition
        basic, PLD, advanced and zCDP totals (zCDP marked not applicable unless every entry
        is pure DP); ∞ where an entry has no finite ε.

    * basic composition: (Σεᵢ, Σδᵢ) — always valid;
    * PLD (dp-accounting): the releases' privacy-loss distributions composed, ε read at
      ``delta`` — a Dirichlet privatisation with its exact profile, any other entry with
      the canonical pair of its (ε, δ) (valid for any (ε, δ)-DP release), capped by the
      basic Σεᵢ when read at a δ ≥ Σδᵢ (both bound the same releases);
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
    [('basic', 10.0), ('PLD', 4.775), ('advanced', 6.308), ('zCDP', 5.757)]
    >>> one = [LedgerEntry(id="x", dataset="d", mechanism="laplace", epsilon=0.1, count=100)]
    >>> [round(c.epsilon, 3) for c in compose(one)]
    [10.0, 4.775, 6.308, 5.757]
    """
    if not 0 < delta_slack < 1:
        raise InputError(f"must lie in (0, 1), got {delta_slack!r}", field="delta_slack")
    eps = [(e.count, e.epsilon) for e in entries]
    dsum = math.fsum(e.count * e.delta for e in entries)
    out = [Composition("basic", math.fsum(c * x for c, x in eps), min(1.0, dsum),
                       "sequential composition: valid for any releases")]
    if not entries:
        return out
    counts, epsilons = [c for c, _ in eps], [x for _, x in eps]
    out.append(_capped_by_basic(_pld_composition(
        entries, delta if delta is not None else _pld_delta(entries, delta_slack)), out[0]))
    adv = advanced_epsilon(epsilons, counts, delta_slack=delta_slack)
    out.append(Composition("advanced", adv, min(1.0, dsum + delta_slack),
                           f"advanced composition (Dwork-Rothblum-Vadhan) with slack "
                           f"delta' = {delta_slack:g}"))
    pure = all(e.delta == 0 and e.mechanism in PURE_MECHANISMS for e in entries)
    out.append(Composition("zCDP", zcdp_epsilon(epsilons, counts, delta=delta_slack),
                           delta_slack,
                           f"zero-concentrated DP (Bun-Steinke): pure eps-DP releases only, "
                           f"converted at delta = {delta_slack:g}", applicable=pure))
    return out
