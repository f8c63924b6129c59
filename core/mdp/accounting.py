"""Privacy accounting of a whole privatised MDP, and the accuracy of the mechanism.

Size: the accounting of one release, a whole privatised MDP: the per-row guarantees, row
classes, composition and accuracy read the same row structures, and this is the one place that
states what Algorithm 1 releases.

What is released
----------------
Algorithm 1 step 1 (:func:`core.mdp.privatize.privatize_mdp`) takes every available
row P(s, a), applies a *public* pre-processing T (:func:`core.mdp.privatize.mechanism_rows`:
``zeros="smoothing"`` fills the zeros of rows that have some; the domain rule ``refuse``
checks, ``mix`` mixes) and releases Dir_k(T(P(s, a))) on the support of T(P(s, a)) (zeros
stay zero), with independent noise per row.

Adjacency (what the guarantee protects)
---------------------------------------
* ``"one-row"``: neighbouring MDPs differ in one transition row P(s, a), by moving at most
  b/2 probability between two next states of its support (L1 <= b). The supports — which
  next states are possible — are the same and are *not* protected: support-restricted
  privatisation discloses them. With the domain rule ``refuse`` both models must lie in
  the declared domain (every possible next state has probability >= η); with ``mix`` no
  assumption on the input is needed.
* ``"all-rows"``: every row may so differ at once.

The argument
----------------------------------
1. *Pre-processing contracts neighbours and lands in the domain.* T acts on a row as an
   affine map that depends only on public facts (η, λ, and the row's support, which the
   adjacency keeps fixed — so two neighbours are smoothed or not alike). Smoothing gives
   T(p) − T(q) = (1−λ)(p − q); mixing with weight n·η gives (1 − n·η)(p − q). So if p, q
   differ by moving t (|t| <= b/2) between support entries i and j, T(p) and T(q) differ
   by moving c·t between the same two entries (which stay in the support), with the
   public contraction c (:attr:`RowPrivacy.contraction`): they are neighbours at radius
   b' = c·b. Every support entry of T(p) is >= η: checked (``refuse``; smoothing's new
   entries are λ/n and are checked too) or forced (``mix``: >= n·η/n = η).
2. *One row.* For a support of n >= 2 entries all >= η, and neighbours that move <= b'/2
   between ANY two of the n entries, the default accountant is the exact privacy profile
   (:mod:`core.privacy.dirichlet_profile`: the hockey-stick curve of the worst neighbouring
   pair, certified), ε_n at the target δ̂. The named options ``union``, ``exact`` and
   ``mc`` are the threshold analysis of
   :func:`core.privacy.dirichlet_accounting.support_privacy`, which
   proves (ε_n, δ_n)-probabilistic DP, hence (ε_n, δ_n)-DP: Ω₁ constrains all n
   coordinates, so moving mass into or out of the last entry is covered (the old analysis
   took W = support minus its last entry and did not cover it: item 2). (ε_n, δ_n)
   depends on (k, η, b', δ̂, n) only — public parameters and the public support size — so
   it is computed once per distinct (n, b') and never reads a probability (item 3): two
   neighbouring MDPs get the identical statement. A one-outcome row (n = 1) is
   deterministic within its support: its output is the unit vector whatever the input,
   (0, 0).
3. *The MDP.* Rows are privatised with independent noise, and under ``one-row`` a
   neighbouring pair differs in one row r only, so the output distributions of the other
   rows are identical and the pair's privacy loss is row r's: the release is
   (max_r ε_r, δ̂)-DP (parallel composition). Under ``all-rows`` the privacy loss is the
   sum of the rows' independent losses: with the default exact profile the rows' privacy
   loss distributions are composed (dp-accounting, pessimistic discretisation:
   :mod:`core.privacy.pld`) and ε is read at the target δ̂ for the whole release; basic
   composition, (Σ_r ε_r(δ̂/R), δ̂) over the R rows, is reported beside it
   (``epsilon_basic``). With the threshold analyses (union, exact, mc) only basic
   composition applies.
4. *Rows without a guarantee* (support_privacy refuses: the domain is empty for n·η > 1,
   b'/2 exceeds the free mass, no γ reaches δ̂ because k·η is too small, …): a neighbour
   pair that differs in such a row has no bound, so the headline ε is ``math.inf`` with a
   reason naming the rows and why (item 4) — under either adjacency.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> r = mdp_privacy(four_startups(), 50, eta=0.01, b=0.1, delta_target=0.05)
>>> r.adjacency, len(r.rows), r.n_applicable, [g.n for g in r.supports]
('one-row', 6, 6, [3])
>>> len({row.epsilon for row in r.rows})  # the same statement for every row of size 3
1
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress, sub_progress
from core.common.validation import check_beta, check_k
from core.mdp.model import MDP
from core.mdp.privatize import (
    DEFAULT_DOMAIN_RULE,
    DEFAULT_ETA,
    DOMAIN_RULES,
    ETA_AUTO,
    ZERO_MODES,
    MechanismRows,
    eta_label,
    mechanism_rows,
    parse_eta,
    row_etas,
)
from core.privacy.dirichlet_accounting import (
    DELTA_METHODS,
    DirichletPrivacy,
    resolve_delta_method,
    support_epsilon_at_most,
    support_privacy,
)

if TYPE_CHECKING:  # imported where used: a privatisation, bounds or design without --record
    # composes no PLD and records nothing, so neither module loads (nor their dataclasses)
    from core.privacy.ledger import LedgerEntry, PrivacyLedger

__all__ = ["ADJACENCIES", "ADJACENCY_TEXT", "DOMAIN_RULES", "DEFAULT_ETA", "DEFAULT_DOMAIN_RULE",
           "DEFAULT_B", "RowClasses", "profile_epsilon", "profile_epsilon_at_most",
           "DEFAULT_DELTA", "PARAMETER_HELP", "RowPrivacy", "SupportGuarantee", "MdpPrivacy",
           "mdp_privacy", "supports_privacy", "release_privacy", "adjacency_text",
           "DirichletAccuracy", "dirichlet_accuracy", "mdp_dataset", "record_privatization",
           "ComposedPrivacy", "compose_privatisations"]

ADJACENCIES = ("one-row", "all-rows")
DEFAULT_B = 0.1
DEFAULT_DELTA = 0.05
_MOVE = ("by moving at most b/2 probability between two next states of its support "
         "(L1 <= b); the supports (which next states are possible) are the same and are NOT "
         "protected (support-restricted privatisation discloses them)")
ADJACENCY_TEXT = {
    "one-row": "neighbouring MDPs differ in one transition row P(s,a), " + _MOVE
               + " (parallel composition: the worst row)",
    "all-rows": "every transition row may differ, each " + _MOVE
                + " (the rows' privacy losses composed: privacy-loss distributions with the "
                  "exact profile, basic composition with the threshold analyses)",
}
_DOMAIN_TEXT = {
    "refuse": "; both models have every possible next-state probability >= eta (rows "
              "outside that domain are refused)",
    "mix": "; any input (domain rule 'mix': every row is first mixed with the uniform "
           "distribution on its support, weight n·eta, which shrinks b to (1 - n·eta)·b)",
}

#: One sentence per public parameter: the CLI's --help and the GUI's tooltips.
PARAMETER_HELP = {
    "eta": ("eta: declared public lower bound on every possible next-state probability, or "
            f"'{ETA_AUTO}' (the default): eta = min(0.001, 1/(2n)) for a row with n possible "
            "next states, or 'L/n' (eta = L/n: every row mixed with weight L), chosen "
            "without looking at any data. With the "
            "default domain rule 'mix' every row is first mixed with the uniform distribution "
            "on its support (weight n·eta), so every input meets it; a larger eta gives a "
            "smaller epsilon but blurs the model more. Never read eta off the private rows."),
    "domain_rule": ("What happens to rows so that every possible next state has probability "
                    ">= eta: 'mix' (default) mixes EVERY row with the uniform distribution on "
                    "its support (weight n·eta): every input is covered, the model is "
                    "slightly modified; 'refuse' privatises the rows as they are and stops "
                    "with an error naming any row below eta."),
    "b": ("b in (0, 1]: a neighbouring model may move up to b/2 probability between two "
          f"next states of one row (L1 <= b). Default {DEFAULT_B:g}, as in the paper's "
          "Figure 1.1; a larger b hides bigger changes (more private) for a larger epsilon."),
    "delta": ("Target delta in (0, 1) of the statement: the additive slack in "
              "P[M(D) in S] <= e^eps P[M(D') in S] + delta (default "
              f"{DEFAULT_DELTA:g}; under all-rows adjacency it is the whole release's); "
              "smaller is more private but makes epsilon larger."),
}


def adjacency_text(adjacency: str, domain_rule: str = DEFAULT_DOMAIN_RULE) -> str:
    """The adjacency a statement assumes, with the domain rule's part.

    Parameters
    ----------
    adjacency : str
        ``"one-row"`` or ``"all-rows"``.
    domain_rule : str
        The domain rule.

    Returns
    -------
    str
    """
    return ADJACENCY_TEXT[adjacency] + _DOMAIN_TEXT.get(domain_rule, "")


@dataclass(frozen=True)
class SupportGuarantee:
    """The (ε, δ) of one row on a support of ``n`` next states at radius ``b`` (= c·b)."""

    n: int
    b: float
    epsilon: float
    delta: float
    result: DirichletPrivacy | None
    reason: str = ""

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.epsilon)

    def to_dict(self) -> dict[str, object]:
        r = self.result
        d: dict[str, object] = {
            "n": self.n, "b": self.b, "eta": None if r is None else r.eta,
            "epsilon": self.epsilon if self.bounded else None, "delta": self.delta,
            "gamma": None if r is None else r.gamma,
            "delta_method": None if r is None else r.delta_method,
            "warnings": [] if r is None else list(r.warnings)}
        if not self.bounded:
            d["epsilon_reason"] = self.reason
        return d


@dataclass(frozen=True)
class RowPrivacy:
    """The guarantee of one row: a function of its support size n (public) only."""

    state: str
    action: str
    support: int  # n: possible next states after the pre-processing
    contraction: float  # c: the row's neighbours are at radius c·b after pre-processing
    guarantee: SupportGuarantee
    smoothed: bool = False

    @property
    def epsilon(self) -> float:
        return self.guarantee.epsilon

    @property
    def delta(self) -> float:
        return self.guarantee.delta

    @property
    def result(self) -> DirichletPrivacy | None:
        return self.guarantee.result

    @property
    def reason(self) -> str:
        return self.guarantee.reason

    @property
    def applicable(self) -> bool:
        """True if the row has a finite guarantee."""
        return self.guarantee.bounded


NameOf = Callable[[np.ndarray], Sequence[tuple[str, str]]]


class _ListNames:
    """Rows -> (state, action) from a list (a class, not a closure: results pickle)."""

    def __init__(self, names: Sequence[tuple[str, str]]) -> None:
        self.names = names

    def __call__(self, rows: np.ndarray) -> list[tuple[str, str]]:
        return [self.names[int(i)] for i in rows]


class _MdpNames:
    """Rows -> (state name, action name) of the available (state, action) pairs of ``mask``
    in row-major order (the rows of :func:`core.mdp.privatize.mechanism_rows`); the pairs
    are found only for the rows asked for."""

    def __init__(self, mdp: MDP, mask: np.ndarray) -> None:
        self.state_names, self.action_names, self.mask = (mdp.state_names, mdp.action_names,
                                                          mask)

    def __call__(self, rows: np.ndarray) -> list[tuple[str, str]]:
        sn, an = self.state_names, self.action_names
        flat = np.asarray(rows, np.int64)
        if not self.mask.all():
            flat = np.flatnonzero(self.mask.reshape(-1))[flat]
        s, a = np.divmod(flat, self.mask.shape[1])
        return [(sn[i], an[i][j]) for i, j in zip(s.tolist(), a.tolist())]


def _names_from(names: Sequence[tuple[str, str]]) -> NameOf:
    return _ListNames(names)


@dataclass(frozen=True, eq=False)
class RowClasses:
    """The rows of a release grouped by their public parameters (support size n, η, radius
    c·b): every row of a class has the same guarantee, so the accounting is done once per
    class and composed by multiplicity. Per-row facts are numpy arrays; a row's
    :class:`RowPrivacy` is made only when asked for (:meth:`row`, :attr:`MdpPrivacy.rows`).
    """

    guarantees: tuple[SupportGuarantee, ...]  # one per class
    counts: np.ndarray  # (C,) rows per class
    of_row: np.ndarray  # (m,) the class of each row
    support: np.ndarray  # (m,) n per row
    contraction: np.ndarray  # (m,) c per row
    smoothed: np.ndarray  # (m,) bool per row
    names_of: NameOf = field(repr=False, default=_ListNames(()))  # rows -> (state, action)

    def __len__(self) -> int:
        return int(self.of_row.size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RowClasses):
            return NotImplemented
        return (self.guarantees == other.guarantees
                and all(np.array_equal(getattr(self, a), getattr(other, a))
                        for a in ("counts", "of_row", "support", "contraction", "smoothed"))
                and list(self.names_of(np.arange(len(self))))
                == list(other.names_of(np.arange(len(other)))))

    __hash__ = None  # type: ignore[assignment]

    @cached_property
    def bounded(self) -> np.ndarray:
        """(C,) bool: the class has a finite guarantee."""
        return np.array([g.bounded for g in self.guarantees], dtype=bool)

    @property
    def n_applicable(self) -> int:
        return int(self.counts[self.bounded].sum()) if self.counts.size else 0

    def row(self, i: int) -> RowPrivacy:
        """Row ``i`` as a :class:`RowPrivacy`."""
        state, action = self.names_of(np.array([i]))[0]
        return RowPrivacy(state, action, int(self.support[i]), float(self.contraction[i]),
                          self.guarantees[int(self.of_row[i])], bool(self.smoothed[i]))

    def rows(self, which: "np.ndarray | None" = None) -> tuple[RowPrivacy, ...]:
        """The rows ``which`` (default all), in row order, as :class:`RowPrivacy`."""
        idx = np.arange(len(self)) if which is None else np.asarray(which, dtype=np.int64)
        names = self.names_of(idx)
        g = self.guarantees
        return tuple(RowPrivacy(st, ac, n, c, g[k], sm) for (st, ac), n, c, k, sm in zip(
            names, self.support[idx].tolist(), self.contraction[idx].tolist(),
            self.of_row[idx].tolist(), self.smoothed[idx].tolist()))

    def groups(self) -> list[list[float]]:
        """[n, η, radius, count] per class with a profile (n >= 2), sorted: the PLD terms'
        input and the ledger's ``profile`` spec."""
        return _class_groups(self.guarantees, self.counts.tolist())


def _class_groups(guarantees: Sequence[SupportGuarantee], counts: Sequence[int]
                  ) -> list[list[float]]:
    out = [(g.n, float(g.result.eta), float(g.b), int(c)) for g, c in zip(guarantees, counts)
           if g.n >= 2 and g.result is not None and c > 0]
    return [[n, eta, radius, c] for n, eta, radius, c in sorted(out)]


@dataclass(frozen=True)
class MdpPrivacy:
    """The (ε, δ) of one privatisation of an MDP at concentration ``k`` (module docstring).

    ``epsilon`` is ``math.inf`` (and ``delta`` 1) when some row has no guarantee;
    ``epsilon_reason`` then names those rows and why.
    """

    k: float
    b: float
    delta_target: float
    adjacency: str
    classes: RowClasses
    epsilon: float
    delta: float
    eta: "float | str" = DEFAULT_ETA
    domain_rule: str = DEFAULT_DOMAIN_RULE
    zeros: str = "support"
    smoothing: float = 0.0
    delta_method: str = "auto"
    epsilon_reason: str = ""
    supports: tuple[SupportGuarantee, ...] = ()
    # how the rows were combined: "worst row" (one-row), "pld" or "basic" (all-rows)
    composition: str = "worst row"
    # basic composition beside the PLD (all-rows with the exact profile): Σ ε_r(δ̂/R), δ̂
    epsilon_basic: float | None = None

    @cached_property
    def rows(self) -> tuple[RowPrivacy, ...]:
        """The per-row view (which row got which guarantee), built from the classes when
        first asked for."""
        return self.classes.rows()

    @property
    def n_rows(self) -> int:
        return len(self.classes)

    @property
    def accountant(self) -> str:
        """The accountant that produced ``epsilon``, in words."""
        method = resolve_delta_method(self.delta_method, fixed_gamma=False)
        what = {"profile": "exact privacy profile", "union": "union bound (Theorem 1.6)",
                "exact": "vertex reduction (Lemma 1.2)",
                "mc": "Monte Carlo at the vertices"}.get(method, method)
        if self.adjacency == "all-rows":
            what += ("; rows composed with privacy-loss distributions (dp-accounting)"
                     if self.composition == "pld" else "; rows under basic composition")
        return what

    def profile_spec(self) -> dict[str, object] | None:
        """What the ledger needs to rebuild this release's privacy-loss distribution."""
        if resolve_delta_method(self.delta_method, fixed_gamma=False) != "profile":
            return None
        return {"kind": "dirichlet", "k": self.k, "adjacency": self.adjacency,
                "delta": self.delta_target, "groups": self.classes.groups()}

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.epsilon)

    @property
    def n_applicable(self) -> int:
        return self.classes.n_applicable

    @property
    def n_not_applicable(self) -> int:
        return self.n_rows - self.n_applicable

    @property
    def not_applicable(self) -> tuple[RowPrivacy, ...]:
        c = self.classes
        return c.rows(np.flatnonzero(~c.bounded[c.of_row])) if not c.bounded.all() else ()

    @property
    def adjacency_text(self) -> str:
        return adjacency_text(self.adjacency, self.domain_rule)

    @property
    def parameters(self) -> dict[str, object]:
        """The public parameters the guarantee depends on (besides the supports)."""
        d: dict[str, object] = {"k": self.k, "eta": self.eta, "b": self.b,
                                "delta_target": self.delta_target,
                                "domain_rule": self.domain_rule, "zeros": self.zeros,
                                "delta_method": self.delta_method}
        if self.zeros == "smoothing":
            d["smoothing"] = self.smoothing
        return d

    @property
    def parameters_text(self) -> str:
        text = (f"eta = {eta_label(self.eta, self.classes.support)}, b = {self.b:g}, "
                f"target delta = {self.delta_target:g}, domain rule '{self.domain_rule}'; "
                f"accountant: {self.accountant}")
        if self.zeros == "smoothing":
            text += f", zeros smoothed (λ = {self.smoothing:g})"
        return text

    @property
    def headline(self) -> str:
        """"k = 50: (40.34, 0.05)-DP", or why there is no finite guarantee."""
        if self.bounded:
            text = f"k = {self.k:g}: ({self.epsilon:.4g}, {self.delta:.3g})-DP"
            if self.epsilon_basic is not None:
                text += f" (basic composition: epsilon = {self.epsilon_basic:.4g})"
            return text
        return (f"k = {self.k:g}: no finite (ε, δ) guarantee (ε unbounded) - "
                f"{self.epsilon_reason}")

    @property
    def statement(self) -> str:
        """The guarantee whole: headline, adjacency and public parameters."""
        return (f"{self.headline}; adjacency: {self.adjacency_text}; public parameters: "
                f"{self.parameters_text}")

    def guarantee(self) -> dict[str, object]:
        """The guarantee stated whole (ε, δ, adjacency, public parameters): what a release's
        metadata, a ``--json`` output and the ledger carry. ε is None when unbounded, with
        ``epsilon_reason``."""
        d: dict[str, object] = {
            "mechanism": "dirichlet",
            "epsilon": self.epsilon if self.bounded else None,
            "delta": self.delta,
            "adjacency": self.adjacency, "adjacency_text": self.adjacency_text,
            **self.parameters,
            "accountant": self.accountant, "composition": self.composition,
            "statement": self.statement,
            "supports": [g.to_dict() for g in self.supports],
        }
        if self.adjacency == "all-rows":
            d["epsilon_basic"] = (self.epsilon_basic if self.epsilon_basic is not None
                                  else d["epsilon"])
        if not self.bounded:
            d["epsilon_reason"] = self.epsilon_reason
        return d

    def to_dict(self) -> dict[str, object]:
        d = self.guarantee()
        rows = []
        for r in self.rows:
            row: dict[str, object] = {
                "state": r.state, "action": r.action, "support": r.support, "b": r.guarantee.b,
                "applicable": r.applicable, "epsilon": r.epsilon if r.applicable else None,
                "delta": r.delta,
                "delta_method": None if r.result is None else r.result.delta_method,
                "gamma": None if r.result is None else r.result.gamma, "reason": r.reason}
            if not r.applicable:
                row["epsilon_reason"] = r.reason
            rows.append(row)
        d["rows"] = rows
        return d


def _check_common(k: float, b: float, delta_target: float, adjacency: str, delta_method: str
                  ) -> tuple[float, float, float]:
    k = check_k(k)
    if adjacency not in ADJACENCIES:
        raise InputError(f"must be one of {ADJACENCIES}, got {adjacency!r}", field="adjacency")
    if isinstance(b, bool) or not (isinstance(b, (int, float, np.floating))
                                   and math.isfinite(b) and 0 < b <= 1):
        raise InputError(f"must lie in (0, 1], got {b!r}", field="b")
    delta_target = check_beta(delta_target, "delta")
    if delta_method not in DELTA_METHODS:
        raise InputError(f"must be one of {', '.join(DELTA_METHODS)}, got {delta_method!r}",
                         field="delta_method")
    return k, float(b), delta_target


def _guarantee(k: float, eta: float, n: int, b: float, delta_target: float,
               delta_method: str) -> SupportGuarantee:
    if n <= 1:
        return SupportGuarantee(n=n, b=b, epsilon=0.0, delta=0.0, result=None,
                                reason="one possible next state: the output is that state "
                                       "with probability 1 whatever the input")
    try:
        res = support_privacy(k, eta, n, b, delta_target=delta_target,
                              delta_method=delta_method)
    except InputError as exc:
        return SupportGuarantee(n=n, b=b, epsilon=math.inf, delta=1.0, result=None,
                                reason=exc.problem)
    if not (math.isfinite(res.epsilon) and 0.0 <= res.delta <= 1.0):
        why = getattr(res, "reason", "") or "the accountant found no finite bound"
        return SupportGuarantee(n=n, b=b, epsilon=math.inf, delta=1.0, result=res, reason=why)
    return SupportGuarantee(n=n, b=b, epsilon=float(res.epsilon), delta=float(res.delta),
                            result=res)


def _unbounded_reason(classes: RowClasses) -> str:
    """Which rows have no guarantee and why: one part per (support size, reason), in the
    order of their first row, naming up to four rows each."""
    out_class = ~classes.bounded
    gid: dict[tuple[int, str], int] = {}
    class_group = np.full(len(classes.guarantees), -1, dtype=np.int64)
    for c in np.flatnonzero(out_class).tolist():
        g = classes.guarantees[c]
        class_group[c] = gid.setdefault((g.n, g.reason), len(gid))
    rows_out = np.flatnonzero(out_class[classes.of_row])
    row_group = class_group[classes.of_row[rows_out]]
    groups, first, sizes = np.unique(row_group, return_index=True, return_counts=True)
    keys = {v: k for k, v in gid.items()}
    parts = []
    for at in np.argsort(first, kind="stable").tolist():
        n, reason = keys[int(groups[at])]
        count = int(sizes[at])
        names = [f"{st}/{ac}" for st, ac in classes.names_of(
            rows_out[row_group == groups[at]][:4])]
        shown = ", ".join(names) + (f" and {count - 4} more" if count > 4 else "")
        parts.append(f"{count} row{'s' if count != 1 else ''} with {n} possible "
                     f"next states ({shown}): {reason}")
    return (f"{rows_out.size} of {len(classes)} rows have no finite guarantee; "
            + "; ".join(parts))


def _row_classes(k: float, b: float, sizes: np.ndarray, etas: np.ndarray, cs: np.ndarray,
                 sm: np.ndarray, names_of: NameOf, row_delta: float,
                 delta_method: str) -> RowClasses:
    """Group the rows by (n, η, radius) — radius c·b for n >= 2, b otherwise — and compute
    each class's guarantee once (the same call, with the same numbers, a row would get)."""
    m = sizes.size
    if m == 0:
        return RowClasses((), np.zeros(0, np.int64), np.zeros(0, np.int64), sizes, cs, sm,
                          names_of)
    if all((x == x[0]).all() for x in (sizes, etas, cs)):  # one class: no per-row keys
        n0 = int(sizes[0])
        r0 = float(np.where(n0 >= 2, b * cs[:1], b)[0])
        g0 = _guarantee(k, float(etas[0]), n0, r0, row_delta, delta_method)
        return RowClasses((g0,), np.array([m]), np.zeros(m, np.int64), sizes, cs, sm,
                          names_of)
    radius = np.where(sizes >= 2, b * cs, b)
    keys = np.empty((m, 3), dtype=np.float64)
    keys[:, 0], keys[:, 1], keys[:, 2] = sizes, etas, radius
    uniq, of_row, counts = _unique_rows(keys)
    guarantees = tuple(_guarantee(k, float(e), int(n), float(r), row_delta, delta_method)
                       for n, e, r in uniq.tolist())
    return RowClasses(guarantees, counts, of_row, sizes, cs, sm, names_of)


def _unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of a (m, 3) float array, the class of each row and the counts (a
    fast path when every column is constant, the common case of one support size)."""
    if (keys == keys[0]).all():
        return keys[:1], np.zeros(keys.shape[0], np.int64), np.array([keys.shape[0]])
    uniq, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    return uniq, inverse.reshape(-1).astype(np.int64), counts


def _exact_sum(values: Sequence[float], counts: Sequence[int]) -> float:
    """Σ count·value correctly rounded: the same float as ``math.fsum`` of every row's value
    (both are the exact sum rounded once)."""
    from fractions import Fraction  # (imported here: with decimal, 5 % of numpy's import)

    return float(sum((Fraction(v) * int(c) for v, c in zip(values, counts)), Fraction(0)))


def supports_privacy(support: "Sequence[int] | np.ndarray",
                     names: "Sequence[tuple[str, str]] | NameOf", k: float, *,
                     contraction: "Sequence[float] | np.ndarray | None" = None,
                     smoothed: "Sequence[bool] | np.ndarray | None" = None, b: float = DEFAULT_B,
                     delta_target: float = DEFAULT_DELTA, adjacency: str = "one-row",
                     eta: "float | str" = DEFAULT_ETA, domain_rule: str = DEFAULT_DOMAIN_RULE,
                     delta_method: str = "auto", zeros: str = "support",
                     smoothing: float = 0.0, progress: Progress = no_progress) -> MdpPrivacy:
    """The accounting from public inputs only: each row's support size n, its name and its
    contraction c (1 when not given — a valid, conservative choice since radius c·b <= b).

    :func:`mdp_privacy` calls it after the pre-processing; ``bounds`` calls it on the
    supports of a released model (which are those of the rows the noise was centred on).

    Parameters
    ----------
    support : sequence of int
        Support size per row.
    names : sequence of (str, str), or callable
        (state, action) per row, or a function from an array of row indices to their
        (state, action) pairs (names are made only for the rows a caller looks at).
    k : float
        The concentration.
    contraction : sequence of float, optional
        c per row.
    smoothed : sequence of bool, optional
        Which rows were smoothed.
    b : float
        The L1 distance of neighbouring rows.
    delta_target : float
        The δ to reach.
    adjacency : str
        ``"one-row"`` or ``"all-rows"``.
    eta : float or "auto"
        η, or the per-row rule.
    domain_rule : str
        How rows outside the domain are handled: ``"refuse"`` or ``"mix"``.
    delta_method : str
        ``"auto"`` (the exact profile), ``"profile"``, ``"union"``, ``"exact"`` or ``"mc"``.
    zeros : str
        ``"support"`` or ``"smoothing"``.
    smoothing : float
        The smoothing weight.
    progress : callable
        ``progress(fraction, message)`` between the steps (it may raise
        :class:`core.common.progress.Cancelled`); the steps are whole-array passes and one
        computation per row class, so a cancel is seen within a fraction of a second.

    Returns
    -------
    MdpPrivacy
        Per-row and composed (ε, δ); ε = ∞ with the reason where a row has no guarantee.
    """
    k, b, delta_target = _check_common(k, b, delta_target, adjacency, delta_method)
    if domain_rule not in DOMAIN_RULES:
        raise InputError(f"must be one of {', '.join(DOMAIN_RULES)}, got {domain_rule!r}",
                         field="domain_rule")
    if zeros not in ZERO_MODES:
        raise InputError(f"must be one of {ZERO_MODES}, got {zeros!r}", field="zeros")
    eta = parse_eta(eta)
    sizes = np.asarray(support, dtype=np.int64).reshape(-1)
    m = sizes.size
    names_of = names if callable(names) else _names_from(names)
    etas = row_etas(eta, sizes) if m else np.zeros(0)
    cs = (np.ones(m) if contraction is None
          else np.asarray(contraction, dtype=np.float64).reshape(-1))
    sm = (np.zeros(m, dtype=bool) if smoothed is None
          else np.asarray(smoothed, dtype=bool).reshape(-1))
    profile = resolve_delta_method(delta_method, fixed_gamma=False) == "profile"
    multi = int((sizes >= 2).sum())
    # all-rows: δ̂ is the whole release's; each row's own statement is at δ̂/R (basic)
    row_delta = delta_target / max(1, multi) if adjacency == "all-rows" else delta_target
    progress(0.0, f"accounting: grouping {m:,} rows by their public parameters")
    classes = _row_classes(k, b, sizes, etas, cs, sm, names_of, row_delta, delta_method)
    progress(0.5, f"accounting: composing {len(classes.guarantees):,} row classes")
    reason, composition, e_basic = "", "worst row", None
    if not m:
        e_tot, d_tot = 0.0, 0.0
    elif not classes.bounded.all():
        e_tot, d_tot, reason = math.inf, 1.0, _unbounded_reason(classes)
    else:
        e_tot, d_tot, composition, e_basic = _composed(
            k, classes.guarantees, classes.counts.tolist(), adjacency, delta_target,
            profile, multi)
    return MdpPrivacy(k=k, b=b, delta_target=delta_target, adjacency=adjacency,
                      classes=classes, epsilon=e_tot, delta=d_tot, eta=eta,
                      domain_rule=domain_rule, zeros=zeros,
                      smoothing=float(smoothing) if zeros == "smoothing" else 0.0,
                      delta_method=delta_method, epsilon_reason=reason,
                      supports=tuple(sorted(classes.guarantees, key=lambda g: (g.n, g.b))),
                      composition=composition,
                      epsilon_basic=e_basic if composition == "pld" else None)


def _composed(k: float, guarantees: Sequence[SupportGuarantee], counts: Sequence[int],
              adjacency: str, delta_target: float, profile: bool, multi: int
              ) -> tuple[float, float, str, float | None]:
    """(ε, δ, composition, ε_basic) of rows with finite guarantees, ``counts[i]`` rows of
    class i: the worst class (one-row), or basic composition and the PLD self-composition
    of each class by its multiplicity, whichever is smaller (all-rows)."""
    eps = [g.epsilon for g, c in zip(guarantees, counts) if c > 0]
    d_tot = delta_target if multi else 0.0
    if adjacency == "one-row":
        return max(eps), d_tot, "worst row", None
    e_basic = _exact_sum([g.epsilon for g in guarantees], counts)
    if profile and multi:
        from core.privacy.pld import compose, dirichlet_rows_terms

        pld = compose(dirichlet_rows_terms(k, _class_groups(guarantees, counts), "all-rows",
                                           delta_target), delta_target)
        if pld.bounded and pld.epsilon <= e_basic:
            return pld.epsilon, d_tot, "pld", e_basic
    return e_basic, d_tot, "basic", None


def profile_epsilon(support: "Sequence[int] | np.ndarray", counts: "Sequence[int] | np.ndarray",
                    k: float, *, contraction: "Sequence[float] | np.ndarray", b: float,
                    delta_target: float, adjacency: str, eta: "float | str",
                    delta_method: str = "auto") -> float:
    """ε of a release whose rows form the distinct classes (support n, contraction c) with
    ``counts`` rows each: the ε :func:`supports_privacy` gives the rows themselves (the
    same calls, the same composition), without a per-row array. What the designer's search
    over k evaluates: the class profile is made once and reused for every k.

    Parameters
    ----------
    support, counts, contraction : sequences
        One entry per distinct class (no two entries with the same n and c).
    k, b, delta_target, adjacency, eta, delta_method
        As :func:`supports_privacy`.

    Returns
    -------
    float
        ε (``math.inf`` when a class with rows has no guarantee).
    """
    k, b, delta_target = _check_common(k, b, delta_target, adjacency, delta_method)
    sizes = np.asarray(support, dtype=np.int64).reshape(-1)
    cnt = np.asarray(counts, dtype=np.int64).reshape(-1)
    cs = np.asarray(contraction, dtype=np.float64).reshape(-1)
    if not cnt.sum():
        return 0.0
    etas = row_etas(parse_eta(eta), sizes)
    multi = int(cnt[sizes >= 2].sum())
    row_delta = delta_target / max(1, multi) if adjacency == "all-rows" else delta_target
    radius = np.where(sizes >= 2, b * cs, b)
    guarantees = [_guarantee(k, float(e), int(n), float(r), row_delta, delta_method)
                  for n, e, r in zip(sizes.tolist(), etas.tolist(), radius.tolist())]
    if not all(g.bounded for g, c in zip(guarantees, cnt.tolist()) if c > 0):
        return math.inf
    profile = resolve_delta_method(delta_method, fixed_gamma=False) == "profile"
    return _composed(k, guarantees, cnt.tolist(), adjacency, delta_target, profile, multi)[0]


def profile_epsilon_at_most(support: "Sequence[int] | np.ndarray",
                            counts: "Sequence[int] | np.ndarray", k: float, *,
                            contraction: "Sequence[float] | np.ndarray", b: float,
                            delta_target: float, adjacency: str, eta: "float | str",
                            bound: float, delta_method: str = "auto") -> bool:
    """``profile_epsilon(…) <= bound`` with fewer accountant evaluations: what the
    designer's search over k asks of every probe but the chosen one.

    Under one-row adjacency and the exact profile, ε is the worst class's, so the answer is
    "every class with rows is at most ``bound``", each asked of
    :func:`~core.privacy.dirichlet_accounting.support_epsilon_at_most` (no lower value, the
    ε bisection stopped once its side of ``bound`` is known; a class refused by the
    accountant has ε = ∞, as in :func:`_guarantee`). Otherwise (all-rows composes the
    classes) ε is computed in full. The answer is always :func:`profile_epsilon`'s.

    Parameters
    ----------
    support, counts, contraction, k, b, delta_target, adjacency, eta, delta_method
        As :func:`profile_epsilon`.
    bound : float
        The ε to compare with.

    Returns
    -------
    bool

    Examples
    --------
    >>> e = profile_epsilon([3], [6], 50.0, contraction=[0.5], b=0.1, delta_target=1e-3,
    ...                     adjacency="one-row", eta="0.5/n")
    >>> [profile_epsilon_at_most([3], [6], 50.0, contraction=[0.5], b=0.1, delta_target=1e-3,
    ...                          adjacency="one-row", eta="0.5/n", bound=x) for x in (e, e / 2)]
    [True, False]
    """
    if adjacency != "one-row" or resolve_delta_method(delta_method,
                                                      fixed_gamma=False) != "profile":
        return profile_epsilon(support, counts, k, contraction=contraction, b=b,
                               delta_target=delta_target, adjacency=adjacency, eta=eta,
                               delta_method=delta_method) <= bound
    k, b, delta_target = _check_common(k, b, delta_target, adjacency, delta_method)
    sizes = np.asarray(support, dtype=np.int64).reshape(-1)
    cnt = np.asarray(counts, dtype=np.int64).reshape(-1)
    cs = np.asarray(contraction, dtype=np.float64).reshape(-1)
    if not cnt.sum():
        return 0.0 <= bound
    etas = row_etas(parse_eta(eta), sizes)
    radius = np.where(sizes >= 2, b * cs, b)
    for n, e, r, c in zip(sizes.tolist(), etas.tolist(), radius.tolist(), cnt.tolist()):
        if c <= 0 or n <= 1:
            continue  # no rows, or a one-outcome row: ε = 0
        try:
            within = support_epsilon_at_most(k, float(e), int(n), float(r),
                                             delta_target=delta_target, bound=bound)
        except InputError:
            within = math.inf <= bound  # _guarantee: a refused class has ε = ∞
        if not within:
            return False
    return 0.0 <= bound


@dataclass(frozen=True)
class ComposedPrivacy:
    """Several privatisations of one model composed: PLD beside basic, at one δ̂."""

    epsilon: float          # privacy-loss distributions (math.inf when unbounded)
    epsilon_basic: float    # Σ count·ε_i(δ̂/N): basic composition at the same total δ̂
    delta: float
    releases: int
    accountant: str
    reason: str = ""

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {
            "epsilon": self.epsilon if math.isfinite(self.epsilon) else None,
            "epsilon_basic": (self.epsilon_basic if math.isfinite(self.epsilon_basic)
                              else None),
            "delta": self.delta, "releases": self.releases, "accountant": self.accountant}
        if not math.isfinite(self.epsilon):
            d["epsilon_reason"] = self.reason or "a release has no finite epsilon"
        return d


def compose_privatisations(items: Sequence[tuple[MdpPrivacy, int]], delta: float
                           ) -> ComposedPrivacy:
    """ε at ``delta`` of ``count`` privatisations of each (MdpPrivacy, count), composed.

    With the exact profile the releases' privacy-loss distributions are composed
    (:mod:`core.privacy.pld`); basic composition splits δ̂ evenly (each release at δ̂/N)
    and adds the ε's. Under the threshold analyses only basic composition applies (each
    release's own (ε, δ), Σε and Σδ).

    Parameters
    ----------
    items : sequence of (MdpPrivacy, int)
        Each privatisation's accounting and how many times it ran.
    delta : float
        The total δ̂.

    Returns
    -------
    ComposedPrivacy
    """
    from core.privacy.pld import PLD_LABEL, compose, dirichlet_rows_terms

    n = sum(c for _, c in items)
    if n == 0:
        return ComposedPrivacy(0.0, 0.0, float(delta), 0, PLD_LABEL)
    if not all(p.bounded for p, _ in items):
        return ComposedPrivacy(math.inf, math.inf, float(delta), n, PLD_LABEL,
                               "a privatisation has no finite epsilon")
    profile = all(p.profile_spec() is not None for p, _ in items)
    if not profile:
        e = math.fsum(c * p.epsilon for p, c in items)
        return ComposedPrivacy(e, e, min(1.0, math.fsum(c * p.delta for p, c in items)), n,
                               "basic composition (threshold analyses)")
    terms = []
    basic = 0.0
    for p, c in items:
        spec = p.profile_spec()
        assert spec is not None
        groups = spec["groups"]
        terms += dirichlet_rows_terms(p.k, groups, p.adjacency, p.delta_target,  # type: ignore[arg-type]
                                      count=c)
        one = supports_privacy(p.classes.support, p.classes.names_of,
                               p.k, contraction=p.classes.contraction, b=p.b,
                               delta_target=delta / n, adjacency=p.adjacency, eta=p.eta,
                               domain_rule=p.domain_rule, zeros=p.zeros,
                               smoothing=p.smoothing)
        basic += c * (one.epsilon_basic if one.epsilon_basic is not None else one.epsilon)
    pld = compose(terms, delta)
    return ComposedPrivacy(min(pld.epsilon, basic), basic, float(delta), n, PLD_LABEL,
                           pld.reason)


def mdp_privacy(mdp: MDP, k: float, *, b: float = DEFAULT_B,
                delta_target: float = DEFAULT_DELTA, adjacency: str = "one-row",
                eta: "float | str | None" = None, domain_rule: str = DEFAULT_DOMAIN_RULE,
                delta_method: str = "auto", zeros: str = "support", smoothing: float = 0.01,
                prepared: MechanismRows | None = None,
                progress: Progress = no_progress) -> MdpPrivacy:
    """Per-row and composed (ε, δ) of privatising ``mdp`` with Dir_k (module docstring).

    ``eta``, ``domain_rule``, ``zeros`` and ``smoothing`` must be those of the
    privatisation (:func:`core.mdp.privatize.privatize_mdp`): the same pre-processing
    (:func:`core.mdp.privatize.mechanism_rows`) runs here, and with ``refuse`` a row
    outside the declared domain raises :class:`InputError` (field ``eta``) naming it.
    ``eta=None`` means :data:`DEFAULT_ETA`. No probability of ``mdp`` enters the numbers:
    only the rows' support sizes, which the adjacency leaves public.

    Parameters
    ----------
    mdp : MDP
        The true model.
    k : float
        The concentration.
    b : float
        The L1 distance of neighbouring rows.
    delta_target : float
        The δ to reach.
    adjacency : str
        ``"one-row"`` or ``"all-rows"``.
    eta : float
        η.
    domain_rule : str
        How rows outside the domain are handled: ``"refuse"`` or ``"mix"``.
    delta_method : str
        ``"auto"``, ``"union"``, ``"exact"`` or ``"mc"``.
    zeros : str
        ``"support"`` or ``"smoothing"``.
    smoothing : float
        The smoothing weight.
    prepared : MechanismRows, optional
        The pre-processed rows, when the caller has them.
    progress : callable
        ``progress(fraction, message)`` between the steps (it may raise
        :class:`core.common.progress.Cancelled`); the steps are whole-array passes and one
        computation per row class, so a cancel is seen within a fraction of a second.

    Returns
    -------
    MdpPrivacy

    Raises
    ------
    InputError
        On ``eta`` for a row outside the domain under ``refuse``, or a bad parameter.
    """
    _check_common(k, b, delta_target, adjacency, delta_method)
    eta = DEFAULT_ETA if eta is None else parse_eta(eta)
    progress(0.0, "accounting: the mechanism's rows")
    prep = prepared if prepared is not None else mechanism_rows(
        mdp, eta=eta, domain_rule=domain_rule, zeros=zeros, smoothing=smoothing)
    return supports_privacy(prep.support, _mdp_names(mdp, mdp.mask), k,
                            contraction=prep.contraction,
                            smoothed=prep.smoothed, b=b, delta_target=delta_target,
                            adjacency=adjacency, eta=prep.eta, domain_rule=prep.domain_rule,
                            delta_method=delta_method, zeros=prep.zeros,
                            smoothing=prep.smoothing, progress=sub_progress(progress, 0.5, 1.0))


def _mdp_names(mdp: MDP, mask: np.ndarray) -> NameOf:
    """Rows -> (state name, action name), for the rows of the available pairs of ``mask``."""
    return _MdpNames(mdp, mask)


def release_privacy(private: MDP, k: float, *, b: float = DEFAULT_B,
                    delta_target: float = DEFAULT_DELTA, adjacency: str = "one-row",
                    eta: "float | str" = DEFAULT_ETA, domain_rule: str = DEFAULT_DOMAIN_RULE,
                    delta_method: str = "auto", zeros: str = "support",
                    smoothing: float = 0.0) -> MdpPrivacy:
    """The guarantee of a *released* model P̄, had it been privatised at ``k`` with these
    public parameters: computed from P̄'s supports (the noise keeps every support entry
    positive and every zero zero, so they are the supports of the rows it was centred on).
    With ``mix`` each row's contraction 1 − n·η is known from n; smoothing is not visible
    in P̄, so its contraction is taken as 1 (conservative).

    Parameters
    ----------
    private : MDP
        The released model P̄.
    k : float
        The concentration it was privatised at.
    b : float
        The L1 distance of neighbouring rows.
    delta_target : float
        The δ to reach.
    adjacency : str
        ``"one-row"`` or ``"all-rows"``.
    eta : float
        η.
    domain_rule : str
        How rows outside the domain are handled: ``"refuse"`` or ``"mix"``.
    delta_method : str
        ``"auto"``, ``"union"``, ``"exact"`` or ``"mc"``.
    zeros : str
        ``"support"`` or ``"smoothing"``.
    smoothing : float
        The smoothing weight.

    Returns
    -------
    MdpPrivacy
    """
    eta_v = parse_eta(eta)
    n = private.transitions.support_sizes()[private.mask]
    c = np.where((n >= 2) & (domain_rule == "mix"), 1.0 - n * row_etas(eta_v, n), 1.0)
    if domain_rule == "mix" and (c <= 0).any():
        raise InputError(f"the mix weight n·eta must be < 1 for every row; declare eta < "
                         f"{1.0 / int(n.max()):.6g} or eta = {ETA_AUTO}", field="eta")
    return supports_privacy(n, _mdp_names(private, private.mask), k,
                            contraction=c, b=b,
                            delta_target=delta_target, adjacency=adjacency, eta=eta_v,
                            domain_rule=domain_rule, delta_method=delta_method, zeros=zeros,
                            smoothing=smoothing)


# --------------------------------------------------------------------------- accuracy
@dataclass(frozen=True)
class DirichletAccuracy:
    """Accuracy of Dir_k (spec §3): variance, expected squared error and radius α."""

    k: float
    beta: float
    n: int
    variance_bound: float  # 1 / (4 (k + 1)), the worst case p_i = 1/2 (Lemma 1.8)
    variance: tuple[float, ...] | None  # p_i (1 - p_i) / (k + 1) when p is given
    expected_sq_error: float | None  # E ||x - p||² = (1 - ||p||²) / (k + 1)
    alpha_paper: float
    alpha_rigorous: float
    note: str


def dirichlet_accuracy(k: float, *, n: int, p: "np.ndarray | None" = None, beta: float = 0.05
                       ) -> DirichletAccuracy:
    """Accuracy figures of Dir_k for vectors of length ``n`` (optionally at a given p).

    Parameters
    ----------
    k : float
        The concentration.
    n : int
        Vector length.
    p : numpy.ndarray, optional
        A vector for the per-entry variances.
    beta : float
        β of α.

    Returns
    -------
    DirichletAccuracy

    Examples
    --------
    >>> a = dirichlet_accuracy(10, n=3, p=np.array([0.2, 0.3, 0.5]))
    >>> [round(v, 6) for v in a.variance]
    [0.014545, 0.019091, 0.022727]
    """
    from core.mdp.robust import alpha_radius

    k = check_k(k)
    beta = check_beta(beta)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"must be an integer >= 2, got {n!r}", field="n")
    var = esq = None
    if p is not None:
        p = np.asarray(p, dtype=np.float64)
        var = tuple(float(x) for x in p * (1 - p) / (k + 1))
        esq = float((1 - (p ** 2).sum()) / (k + 1))
    note = ("alpha 'paper' is Lemma 2.2 as published; the lemma can fail (e.g. n = 20, k = 5, "
            "beta = 0.05 gives P(||x-p||_inf >= alpha) = 0.054 > beta). alpha 'rigorous' "
            "uses sub-Gaussian tails and a union bound over the n entries.")
    return DirichletAccuracy(k=k, beta=beta, n=int(n), variance_bound=1 / (4 * (k + 1)),
                             variance=var, expected_sq_error=esq,
                             alpha_paper=alpha_radius(k, beta, mode="paper"),
                             alpha_rigorous=alpha_radius(k, beta, mode="rigorous", n=int(n)),
                             note=note)


# --------------------------------------------------------------------------- MDP releases
def mdp_dataset(mdp_id: str) -> str:
    """The dataset name of an MDP's transition data: ``"mdp:<id>"``.

    Parameters
    ----------
    mdp_id : str
        The MDP's id.

    Returns
    -------
    str
    """
    return f"mdp:{mdp_id}"


def record_privatization(ledger: PrivacyLedger, *, mdp_id: str, privacy: MdpPrivacy,
                         k: float, mode: str, seed: int | None, source: str,
                         count: int = 1, zeros: str = "support", released: str = "",
                         time: str | None = None) -> LedgerEntry:
    """Record one privatisation of MDP ``mdp_id`` (Algorithm 1 step 1, Dirichlet rows).

    The entry protects ``"mdp:<mdp_id>"`` with the composed (ε, δ) of ``privacy`` (from
    :func:`core.mdp.accounting.mdp_privacy` at this ``k``) and states its
    adjacency. ``mode`` is ``"release"`` (secure noise; the privatised model left PrivPlan)
    or ``"experiment"`` (seeded: listed, not spent). ``count`` privatisations of the same
    model at the same k make one entry (a sweep's ``runs``). ``source`` names what made it
    (e.g. a run id).

    A privatisation without a finite guarantee (ε = ∞: some row has none under one-row
    adjacency) is recorded all the same, as an unbounded entry with the reason.

    Parameters
    ----------
    ledger : PrivacyLedger
        Where to record.
    mdp_id : str
        The model's id.
    privacy : MdpPrivacy
        Its accounting at ``k``.
    k : float
        The concentration.
    mode : str
        ``"release"`` or ``"experiment"``.
    seed : int or None
        The experiment's seed.
    source : str
        What made it.
    count : int
        Privatisations this entry stands for.
    zeros : str
        The zero handling (recorded).
    released : str
        What left PrivPlan (default: a description of the privatised model).
    time : str, optional
        The time stamp (default now).

    Returns
    -------
    LedgerEntry

    Examples
    --------
    >>> from core.mdp.examples import four_startups
    >>> from core.privacy.ledger import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> priv = mdp_privacy(four_startups(), 50, eta=0.01, domain_rule="refuse")
    >>> e = record_privatization(led, mdp_id="m", privacy=priv, k=50, mode="experiment",
    ...                          seed=7, source="run-1", count=20)
    >>> e.dataset, e.mechanism, e.count, e.epsilon == priv.epsilon, e.is_release
    ('mdp:m', 'dirichlet', 20, True, False)
    >>> e.parameters["eta"], e.parameters["domain_rule"]
    (0.01, 'refuse')
    """
    from core.privacy.ledger import MODES

    if mode not in MODES:
        raise InputError(f"must be one of {MODES}, got {mode!r}", field="mode")
    n_out = privacy.n_not_applicable
    what = released or (
        (f"privatised transition rows (Dir(k·p), k = {k:g})" if mode == "release"
         else f"nothing ({count} seeded privatisation{'s' if count != 1 else ''}, "
              f"k = {k:g})"))
    if n_out:
        what += f"; {n_out} of {privacy.n_rows} rows have no DP guarantee"
    params: dict[str, Any] = {"k": float(k), "b": privacy.b,
                              "delta_target": privacy.delta_target,
                              "adjacency": privacy.adjacency, "zeros": zeros,
                              "eta": getattr(privacy, "eta", None),
                              "domain_rule": getattr(privacy, "domain_rule", None),
                              "rows": privacy.n_rows, "rows_without_guarantee": n_out}
    accountant = getattr(privacy, "accountant", None)
    if accountant:
        params["accountant"] = accountant
    spec = privacy.profile_spec() if hasattr(privacy, "profile_spec") else None
    if spec is not None and math.isfinite(privacy.epsilon):
        params["profile"] = spec  # the ledger's PLD totals rebuild the release from it
    extra: dict[str, Any] = {} if time is None else {"time": time}
    if not math.isfinite(privacy.epsilon):
        extra["reason"] = getattr(privacy, "epsilon_reason", "") or (
            f"{n_out} of {privacy.n_rows} rows have no DP guarantee")
    return ledger.record(dataset=mdp_dataset(mdp_id), mechanism="dirichlet",
                         epsilon=privacy.epsilon, delta=privacy.delta, parameters=params,
                         adjacency=getattr(privacy, "adjacency_text", "")
                         or ADJACENCY_TEXT[privacy.adjacency], released=what,
                         mode=mode, seed=seed, source=source, count=int(count), **extra)
