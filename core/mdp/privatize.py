"""Algorithm 1, step 1: privatise every row of an MDP with the Dirichlet mechanism.

The noise itself is :func:`core.privacy.dirichlet.dirichlet_rows` for small models (dense
rows; the seeded results of earlier versions are kept bit for bit) and
:func:`core.privacy.dirichlet_sparse.dirichlet_csr` for large ones (sparse rows: one gamma
variate per possible next state, O(non-zeros) time and memory; the same distribution, a
different random stream). Which one is used depends on the model's shape only
(:func:`core.mdp.sparse.uses_dense`).

Zero entries in a row (the mechanism needs p in the open simplex) are handled by
``zeros="support"`` (default: privatise the support only, keep structural zeros and
warn that the support is disclosed) or ``zeros="smoothing"`` (every row that has a zero
is mixed with the uniform distribution on *all* n states, ``p <- (1-λ)p + λ/n``, which
changes the model; its support becomes all n states). See spec §8.1.

The declared domain. The guarantee of
:mod:`core.mdp.accounting` needs every support entry of every row to be at least
a *public* η. :func:`mechanism_rows` applies, before any noise, one stated public rule:

* ``domain_rule="mix"`` (default): *every* row (with n >= 2 possible next states) is
  mixed with the uniform distribution on its support with the public weight λ = n·η:
  ``p' = (1−λ)p + λ/n`` on the support. Every entry is then >= η whatever the input, and
  two neighbouring rows stay neighbours at radius (1−λ)·b. The noise is centred on a
  slightly modified model (each entry moves by at most n·η). A row with n·η >= 1 is an
  error (declare a smaller η).
* ``domain_rule="refuse"``: rows are privatised as they are; a row with a support entry
  < η is an error naming the state, the action, the entry and the fix; nothing is
  privatised.

The accounting calls the same function, so the rows it describes are exactly the rows
the noise is centred on.

Randomness as in :func:`core.privacy.dirichlet.dirichlet_rows` (a seed or Generator: seeded
experiment; ``None``: release mode, OS CSPRNG). Source: Algorithm 1 of Gohari's thesis, ch. 2.

Examples
--------
>>> import numpy as np
>>> from core.mdp.model import MDP
>>> m = MDP(P=np.array([[[0.5, 0.5]], [[0.0, 1.0]]]), R=np.zeros((2, 1)), horizon=1)
>>> privatize_mdp(m, 50.0, rng=1).mdp.P.shape
(2, 1, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from core.common.errors import InputError
from core.common.validation import RandomSource, as_random_source, check_k
from core.mdp.model import MDP, with_transitions
from core.mdp.sparse import Transitions, gather_rows
from core.privacy.dirichlet import dirichlet_rows
from core.privacy.dirichlet_sparse import dirichlet_csr

__all__ = ["ZERO_MODES", "DOMAIN_RULES", "DEFAULT_ETA", "DEFAULT_DOMAIN_RULE", "PrivatizedMDP",
           "MechanismRows", "mechanism_rows", "privatize_mdp", "ETA_AUTO", "ETA_CAP",
           "row_etas", "eta_label", "parse_eta"]

ZERO_MODES = ("support", "smoothing")
DOMAIN_RULES = ("refuse", "mix")
#: The declared lower bound η of every possible next-state probability, when the user
#: declares none. Chosen without looking at any data. With the default rule ``mix`` every
#: model meets it (each row moves by at most n·η: 0.003 for four startups, 0.02 for
#: Example 2's 20 next states), and the built-in examples get a finite (ε, δ) with
#: δ <= 0.05 from k = 10 up (ε is large at small k: k·η < 1 forces a tiny γ). A smaller η
#: (e.g. 1e-6) leaves no finite ε below k ≈ 6000–9000. Under ``refuse`` η = 1e-3 rejects
#: Example 2 (smallest entry 4.5e-6): declare the largest η you can justify from public
#: knowledge, never one read off the rows.
#: The per-row rule used when the user declares no η: a row with n possible next
#: states gets η_n = min(ETA_CAP, 1/(2n)). It depends on n only, which the support-restricted
#: release discloses anyway, so it is public; with ``mix`` the weight n·η_n <= 1/2, so the
#: defaults serve every valid model (rows with 1,000+ next states included), and the
#: statement names the η each row size used.
ETA_AUTO = "auto"
ETA_CAP = 1e-3
DEFAULT_ETA: "float | str" = ETA_AUTO
#: What happens to the rows so that every possible next state has probability >= η.
DEFAULT_DOMAIN_RULE = "mix"
@dataclass(frozen=True, eq=False)
class MechanismRows:
    """The rows Dir_k is centred on, after the public pre-processing (zeros, domain rule).

    Arrays are aligned with ``mdp.P[mdp.mask]`` (row-major over (state, action)).
    """

    support: np.ndarray  # (m,): n, the number of possible next states after pre-processing
    contraction: np.ndarray  # (m,): c with |T(p) − T(q)|₁ = c·|p − q|₁ for neighbours
    smoothed: np.ndarray  # (m,) bool: the row had a zero and zeros="smoothing" filled it
    eta: "float | str"  # the declared η, or ETA_AUTO (the per-row rule)
    domain_rule: str
    zeros: str
    smoothing: float
    warnings: tuple[str, ...]
    eta_rows: np.ndarray | None = None  # (m,): the η of each row (n >= 2), from the rule
    # the centres (:attr:`rows`), or None while they are only described by ``mix``
    centres: "np.ndarray | Transitions | None" = field(default=None, repr=False)
    # (rows, scale, shift): the centres are ``rows`` with every stored value p made
    # p·scale + shift (the domain rule with one support size); made only when asked for
    mix: "tuple[Transitions, float, float] | None" = field(default=None, repr=False)
    # (S, A) available actions: the (state, action) of each row, made only when asked for
    mask: np.ndarray | None = field(default=None, repr=False)

    @property
    def rows(self) -> "np.ndarray | Transitions":
        """The centres of the noise: (m, S) for a small (dense) model; for a sparse one, CSR
        rows over all S·A choices (unavailable ones empty) with the model's row layout."""
        if self.centres is None:
            assert self.mix is not None
            t, scale, shift = self.mix
            data = t.data * scale  # the two operations of the rule, in its order
            data += shift
            object.__setattr__(self, "centres", t.with_data(data))
        assert self.centres is not None
        return self.centres

    @property
    def sparse(self) -> bool:
        """Whether the centres are CSR rows (a large model)."""
        return self.mix is not None or isinstance(self.centres, Transitions)

    @cached_property
    def index(self) -> np.ndarray:
        """(m, 2): (state, action) of each row."""
        assert self.mask is not None
        return np.argwhere(self.mask)

    def row_eta(self) -> np.ndarray:
        """η per row (the declared value, or the per-row rule's)."""
        return row_etas(self.eta, self.support) if self.eta_rows is None else self.eta_rows


def _constant(x: np.ndarray) -> bool:
    """Every value of ``x`` the same (bit for bit)."""
    return bool((x == x[0]).all()) if x.size else True


def _weight_rule(eta: object) -> float | None:
    """λ of a per-row rule written ``"λ/n"`` (η = λ/n: every row mixed with weight λ)."""
    if isinstance(eta, str) and eta.strip().endswith("/n"):
        try:
            lam = float(eta.strip()[:-2])
        except ValueError:
            return None
        return lam if math.isfinite(lam) and 0.0 < lam < 1.0 else None
    return None


def row_etas(eta: "float | str", n: "np.ndarray | int") -> np.ndarray:
    """η per row of support size ``n``: the declared η, min(ETA_CAP, 1/(2n)) for ETA_AUTO,
    or λ/n for the rule ``"λ/n"`` (every row mixed with the uniform distribution on its
    support with weight λ).

    Parameters
    ----------
    eta : float or "auto"
        The declared η or the per-row rule.
    n : int or numpy.ndarray
        Support sizes.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> row_etas("auto", np.array([2, 3, 1000, 4000])).tolist()
    [0.001, 0.001, 0.0005, 0.000125]
    >>> row_etas("0.2/n", np.array([2, 4])).tolist()
    [0.1, 0.05]
    """
    nn = np.maximum(np.asarray(n, dtype=np.float64), 1.0)
    if eta == ETA_AUTO:
        return np.minimum(ETA_CAP, 0.5 / nn)
    lam = _weight_rule(eta)
    if lam is not None:
        return lam / nn
    return np.full(nn.shape, float(eta))


def eta_label(eta: "float | str", n: "np.ndarray | None" = None) -> str:
    """How a statement names η: ``"0.001"`` or ``"auto: min(0.001, 1/(2n)) per row (…)"``.

    Parameters
    ----------
    eta : float or "auto"
        The declared η or the rule.
    n : numpy.ndarray, optional
        Support sizes, to say which values the rule gave.

    Returns
    -------
    str
    """
    lam = _weight_rule(eta)
    if lam is not None:
        return f"{lam:g}/n (every row mixed with weight {lam:g})"
    if eta != ETA_AUTO:
        return f"{float(eta):g}"
    text = f"auto (min({ETA_CAP:g}, 1/(2n)) per row of n possible next states"
    if n is not None:
        a = np.asarray(n).ravel()  # the distinct sizes, not one per row (one size: no sort)
        if a.size and _constant(a):
            u = a[:1]
        else:  # distinct by sorting: np.unique imports numpy.ma (16 ms of a command's start)
            u = np.sort(a)
            u = u[np.concatenate(([True], u[1:] != u[:-1]))]
        sizes = sorted({int(v) for v in u.tolist() if v >= 2})
        vals = sorted({float(v) for v in row_etas(ETA_AUTO, np.array(sizes or [2]))},
                      reverse=True)
        text += ": " + ", ".join(f"{v:g}" for v in vals)
    return text + ")"


def parse_eta(value: object) -> "float | str":
    """A declared η from a flag, field or file: ``"auto"``, ``"λ/n"`` or a number in (0, 1).

    Parameters
    ----------
    value : object
        The text or number.

    Returns
    -------
    float or "auto"

    Raises
    ------
    InputError
        Naming ``eta``.
    """
    if isinstance(value, str) and value.strip().lower() == ETA_AUTO:
        return ETA_AUTO
    if isinstance(value, str) and value.strip().endswith("/n"):
        lam = _weight_rule(value)
        if lam is None:
            raise InputError(f"a per-row rule 'λ/n' needs λ in (0, 1), got {value!r}",
                             field="eta")
        return f"{lam:g}/n"
    return _check_eta(value)


def _check_eta(eta: object) -> float:
    try:
        v = float(eta)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {eta!r}", field="eta") from None
    if not (math.isfinite(v) and 0.0 < v < 1.0):
        raise InputError(f"must lie in (0, 1), got {eta!r}", field="eta")
    return v


def mechanism_rows(mdp: MDP, *, eta: "float | str" = DEFAULT_ETA,
                   domain_rule: str = DEFAULT_DOMAIN_RULE, zeros: str = "support",
                   smoothing: float = 0.01) -> MechanismRows:
    """Apply the public pre-processing of every available row (module docstring).

    Order: ``zeros="smoothing"`` first (rows with a zero get full support), then the
    domain rule on the resulting support. Both are affine maps that act the same way on
    two neighbouring rows (same support, so the same rows are smoothed), so the difference
    of two neighbours is multiplied by the returned ``contraction``.

    Parameters
    ----------
    mdp : MDP
        The true model.
    eta : float or "auto"
        η, the declared lower bound of support entries, or ``"auto"`` (the per-row rule
        :data:`ETA_AUTO`).
    domain_rule : str
        ``"refuse"`` or ``"mix"``.
    zeros : str
        ``"support"`` or ``"smoothing"``.
    smoothing : float
        The smoothing weight.

    Returns
    -------
    MechanismRows
        The rows the noise is centred on, their (s, a), support sizes and contractions.

    Raises
    ------
    InputError
        On ``eta``, naming a row outside the domain under ``refuse``.

    Examples
    --------
    >>> m = MDP(P=np.array([[[0.5, 0.5, 0.0]], [[0.0, 0.0, 1.0]], [[0.9, 0.1, 0.0]]]),
    ...         R=np.zeros((3, 1)), horizon=1)
    >>> r = mechanism_rows(m, eta=0.05, domain_rule="mix")
    >>> r.support.tolist(), r.rows[2].round(3).tolist(), r.contraction.round(3).tolist()
    ([2, 1, 2], [0.86, 0.14, 0.0], [0.9, 1.0, 0.9])
    >>> mechanism_rows(m, eta=0.2, domain_rule="refuse")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: eta: P(s2, a0) gives next state 's1' probability 0.1, ...
    """
    if zeros not in ZERO_MODES:
        raise InputError(f"must be one of {ZERO_MODES}, got {zeros!r}", field="zeros")
    if domain_rule not in DOMAIN_RULES:
        raise InputError(f"must be one of {', '.join(DOMAIN_RULES)}, got {domain_rule!r}",
                         field="domain_rule")
    eta = parse_eta(eta)
    if not mdp.is_dense:
        return _sparse_mechanism_rows(mdp, eta=eta, domain_rule=domain_rule, zeros=zeros,
                                      smoothing=smoothing)
    index = np.argwhere(mdp.mask)
    rows = np.array(mdp.P[mdp.mask], dtype=np.float64)
    n_all = mdp.n_states
    contraction = np.ones(rows.shape[0])
    smoothed = np.zeros(rows.shape[0], dtype=bool)
    warnings: list[str] = []
    if zeros == "smoothing":
        if not (isinstance(smoothing, (int, float)) and 0.0 < smoothing < 1.0):
            raise InputError(f"must lie in (0, 1), got {smoothing!r}", field="smoothing")
        smoothed = (rows == 0).any(axis=1)
        if smoothed.any():
            rows[smoothed] = (1.0 - smoothing) * rows[smoothed] + smoothing / n_all
            contraction[smoothed] *= 1.0 - smoothing
            warnings.append(f"{int(smoothed.sum())} row(s) with zeros were smoothed with "
                            f"λ = {smoothing:g}: the privatised model is centred on a modified "
                            "MDP")
    support = rows > 0
    n = support.sum(axis=1)
    multi = n >= 2
    etas = row_etas(eta, n)
    if domain_rule == "refuse":
        bad = support & (rows < etas[:, None]) & multi[:, None]
        if bad.any():
            i, t = (int(v) for v in np.argwhere(bad)[0])
            s, a = (int(v) for v in index[i])
            more = int(bad.sum()) - 1
            raise InputError(
                f"P({mdp.state_names[s]}, {mdp.action_names[s][a]}) gives next state "
                f"{mdp.state_names[t]!r} probability {rows[i, t]:.6g}, below the declared "
                f"eta = {etas[i]:g}" + (f" (and {more} more such entries)" if more else "")
                + ". The guarantee needs every possible next state to have probability >= "
                "eta. Fix: declare a smaller eta (a public bound, not read off the data), use "
                "the domain rule 'mix' (every row is mixed with the uniform distribution on "
                "its support, weight n·eta), or make the transition impossible (0).",
                field="eta")
    else:
        lam = n * etas
        too_big = multi & (lam >= 1.0)
        if too_big.any():
            i = int(np.flatnonzero(too_big)[0])
            s, a = (int(v) for v in index[i])
            raise InputError(
                f"the mix weight n·eta must be < 1, but P({mdp.state_names[s]}, "
                f"{mdp.action_names[s][a]}) has n = {int(n[i])} possible next states: "
                f"n·eta = {lam[i]:g}; declare eta < {1.0 / int(n.max()):.6g}", field="eta")
        lam = np.where(multi, lam, 0.0)
        # (1 - λ)p + λ/n with λ/n = η exactly: every support entry is >= η in floating point
        # (in place: a large model makes no temporary of its size; rows with one next state
        # are multiplied by 1 and get nothing added)
        rows *= (1.0 - lam)[:, None]
        np.add(rows, etas[:, None], out=rows, where=support & multi[:, None])
        contraction *= 1.0 - lam
        if multi.any():
            warnings.append(f"domain rule 'mix': every row was mixed with the uniform "
                            f"distribution on its support (weight n·eta, eta = "
                            f"{eta_label(eta, n)}): the privatised model is centred on a "
                            "slightly modified MDP")
    return MechanismRows(centres=rows, mask=mdp.mask, support=n.astype(int),
                         contraction=contraction, smoothed=smoothed, eta=eta,
                         domain_rule=domain_rule, zeros=zeros,
                         smoothing=float(smoothing) if zeros == "smoothing" else 0.0,
                         warnings=tuple(warnings), eta_rows=etas)


def _refuse_message(mdp: MDP, s: int, a: int, t: int, p: float, eta: float, more: int
                    ) -> str:
    return (f"P({mdp.state_names[s]}, {mdp.action_names[s][a]}) gives next state "
            f"{mdp.state_names[t]!r} probability {p:.6g}, below the declared "
            f"eta = {eta:g}" + (f" (and {more} more such entries)" if more else "")
            + ". The guarantee needs every possible next state to have probability >= "
            "eta. Fix: declare a smaller eta (a public bound, not read off the data), use "
            "the domain rule 'mix' (every row is mixed with the uniform distribution on "
            "its support, weight n·eta), or make the transition impossible (0).")


def _sparse_mechanism_rows(mdp: MDP, *, eta: "float | str", domain_rule: str, zeros: str,
                           smoothing: float) -> MechanismRows:
    """:func:`mechanism_rows` on the CSR rows of a large model (no dense array is made)."""
    t = mdp.transitions
    S, A = t.n_states, t.n_actions
    avail = mdp.mask.reshape(-1)
    counts = np.diff(t.indptr)
    m = int(avail.sum())
    contraction = np.ones(m)
    smoothed = np.zeros(m, dtype=bool)
    warnings: list[str] = []
    rows = t
    if zeros == "smoothing":
        if not (isinstance(smoothing, (int, float)) and 0.0 < smoothing < 1.0):
            raise InputError(f"must lie in (0, 1), got {smoothing!r}", field="smoothing")
        fill = avail & (counts < S)
        if fill.any():
            from core.common.memory import check_memory

            n_fill = int(fill.sum())
            check_memory(12.0 * n_fill * S + t.nbytes, "zeros",
                         detail=f"smoothing gives {n_fill:,} rows all {S:,} next states")
            rows = _smooth(t, fill, float(smoothing))
            smoothed = fill[avail]
            contraction[smoothed] *= 1.0 - smoothing
            warnings.append(f"{n_fill} row(s) with zeros were smoothed with "
                            f"λ = {smoothing:g}: the privatised model is centred on a modified "
                            "MDP")
    counts = np.diff(rows.indptr)
    n_all = counts  # support size per row (S·A), 0 for unavailable rows
    centres: Transitions | None = None
    mix: tuple[Transitions, float, float] | None = None
    every = bool(avail.all())  # every action available: the per-row arrays are used as they are

    def take(x: np.ndarray) -> np.ndarray:
        return x if every else x[avail]
    n = take(n_all)
    multi_all = n_all >= 2
    etas_all = row_etas(eta, n_all)  # the declared η, or the per-row rule's
    data = rows.data
    if domain_rule == "refuse":
        multi_e = np.repeat(multi_all, n_all)
        bad = multi_e & (data < np.repeat(etas_all, n_all))
        if bad.any():
            e = int(np.flatnonzero(bad)[0])
            r = int(np.searchsorted(rows.indptr, e, side="right")) - 1
            s, a = divmod(r, A)
            raise InputError(_refuse_message(mdp, s, a, int(rows.indices[e]), float(data[e]),
                                             float(etas_all[r]), int(bad.sum()) - 1),
                             field="eta")
        centres = rows.with_data(np.array(data, dtype=np.float64))  # a copy, as dense
    else:
        lam_all = n_all * etas_all
        too_big = multi_all & (lam_all >= 1.0)
        if too_big.any():
            r = int(np.flatnonzero(too_big)[0])
            s, a = divmod(r, A)
            raise InputError(
                f"the mix weight n·eta must be < 1, but P({mdp.state_names[s]}, "
                f"{mdp.action_names[s][a]}) has n = {int(n_all[r])} possible next states: "
                f"n·eta = {lam_all[r]:g}; declare eta < {1.0 / int(n_all.max()):.6g}",
                field="eta")
        lam_all = np.where(multi_all, lam_all, 0.0)
        # (1 - λ)p + η on rows with n >= 2 (λ/n = η exactly, as in the dense path)
        stored = n_all > 0
        if stored.any() and multi_all[stored].all() and _constant(lam_all[stored]) \
                and _constant(etas_all[stored]):
            # one support size (the common case): the same two operations with scalars,
            # p·(1 − λ) + η, made when the centres are asked for (the noise makes them a
            # block at a time, so privatising makes no array of the model's size for them)
            r0 = int(np.flatnonzero(stored)[0])
            mix = (rows, float(1.0 - lam_all[r0]), float(etas_all[r0]))
        else:
            data = data * np.repeat(1.0 - lam_all, n_all)
            np.add(data, np.repeat(etas_all, n_all), out=data,
                   where=np.repeat(multi_all, n_all))
            centres = rows.with_data(data)
        contraction *= take(1.0 - lam_all)
        if take(multi_all).any():
            warnings.append(f"domain rule 'mix': every row was mixed with the uniform "
                            f"distribution on its support (weight n·eta, eta = "
                            f"{eta_label(eta, n)}): the privatised model is centred on a "
                            "slightly modified MDP")
    return MechanismRows(centres=centres, mix=mix, mask=mdp.mask,
                         support=n.astype(int, copy=False),
                         contraction=contraction, smoothed=smoothed, eta=eta,
                         domain_rule=domain_rule, zeros=zeros,
                         smoothing=float(smoothing) if zeros == "smoothing" else 0.0,
                         warnings=tuple(warnings), eta_rows=take(etas_all))


def _smooth(t: Transitions, fill: np.ndarray, lam: float) -> Transitions:
    """``t`` with the rows ``fill`` replaced by (1 − λ)p + λ/S on all S next states."""
    S, A = t.n_states, t.n_actions
    counts = np.diff(t.indptr)
    new_counts = np.where(fill, S, counts)
    indptr = np.zeros_like(t.indptr)
    np.cumsum(new_counts, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=t.indices.dtype)
    data = np.empty(int(indptr[-1]))
    keep = ~fill
    # rows kept as they are
    src_pos, _ = gather_rows(t.indptr, np.flatnonzero(keep))
    dst_pos, _ = gather_rows(indptr, np.flatnonzero(keep))
    indices[dst_pos] = t.indices[src_pos]
    data[dst_pos] = t.data[src_pos]
    # smoothed rows: every next state, λ/S plus (1 − λ)p on the old support
    rows = np.flatnonzero(fill)
    dst_pos, _ = gather_rows(indptr, rows)
    indices[dst_pos] = np.tile(np.arange(S, dtype=t.indices.dtype), rows.size)
    data[dst_pos] = lam / S
    src_pos, _ = gather_rows(t.indptr, rows)
    starts = np.repeat(indptr[rows], counts[rows])
    data[starts + t.indices[src_pos]] += (1.0 - lam) * t.data[src_pos]
    return Transitions(S, A, indptr, indices, data)


@dataclass(frozen=True, eq=False)
class PrivatizedMDP:
    """The output of Algorithm 1 step 1, with how it was produced."""

    mdp: MDP
    k: float
    mode: str  # "release" or "experiment"
    seed: int | None
    zeros: str
    smoothing: float
    rows: int
    warnings: tuple[str, ...]
    eta: "float | str" = DEFAULT_ETA
    domain_rule: str = DEFAULT_DOMAIN_RULE

    @property
    def mode_label(self) -> str:
        return RandomSource(None, self.mode, self.seed).label


def privatize_mdp(mdp: MDP, k: float, *, rng: "np.random.Generator | int | RandomSource | None"
                  = None, zeros: str = "support", smoothing: float = 0.01,
                  eta: "float | str" = DEFAULT_ETA, domain_rule: str = DEFAULT_DOMAIN_RULE,
                  prepared: MechanismRows | None = None) -> PrivatizedMDP:
    """Privatise every available row P(s, a) of ``mdp`` independently with Dir_k.

    Parameters
    ----------
    mdp : MDP
        The true model.
    k : float
        Concentration (> 0). Larger k: more accurate, *less* private (ε grows with k).
    rng : int, Generator or None
        Seed or generator for a reproducible experiment; ``None`` for a release.
    zeros : {"support", "smoothing"}
        How zero probabilities are handled (module docstring).
    smoothing : float
        λ in (0, 1) for ``zeros="smoothing"``.
    eta, domain_rule :
        The declared domain and what to do with a row outside it (module docstring); the
        accounting (:func:`core.privacy.mdp_accounting.mdp_privacy`) must be given the
        same values.
    prepared : MechanismRows, optional
        :func:`mechanism_rows` of this ``mdp`` with these settings, computed once (a sweep
        privatises the same model many times).

    Examples
    --------
    >>> import numpy as np
    >>> m = MDP(P=np.array([[[0.5, 0.5]], [[0.0, 1.0]]]), R=np.zeros((2, 1)), horizon=1)
    >>> r = privatize_mdp(m, 50.0, rng=3)
    >>> r.mode, r.mdp.P[1, 0].tolist()
    ('experiment', [0.0, 1.0])
    """
    k = check_k(k)
    src = as_random_source(rng)
    prep = prepared if prepared is not None else mechanism_rows(
        mdp, eta=eta, domain_rule=domain_rule, zeros=zeros, smoothing=smoothing)
    warnings = list(prep.warnings)
    has_zero = bool((prep.support < mdp.n_states).any()) if prep.sparse \
        else bool(np.any(prep.rows == 0))
    if prep.zeros == "support" and has_zero:
        warnings.append("support-restricted privatisation: zero probabilities stay zero, so the "
                        "support (which transitions are possible) is disclosed")
    single = int((prep.support == 1).sum())
    if single:
        warnings.append(f"{single} deterministic row(s) have a single possible next state "
                        "and are released unchanged (nothing about them is hidden but their "
                        "support, which is public anyway)")
    if prep.sparse:  # a large model: noise on the stored entries only
        if prep.mix is not None and prep.centres is None:  # the centres made per block
            csr, scale, shift = prep.mix
            data = dirichlet_csr(csr.indptr, csr.data, k, src, affine=(scale, shift))
        else:
            made = prep.rows
            assert isinstance(made, Transitions)
            csr = made
            data = dirichlet_csr(csr.indptr, csr.data, k, src)
        return PrivatizedMDP(
            mdp=with_transitions(mdp, csr.with_data(data),  # rows of Dir draws: checked
                                 name=(mdp.name + " (private)").strip(), rows_checked=True),
            k=k, mode=src.mode, seed=src.seed, zeros=prep.zeros, smoothing=prep.smoothing,
            rows=int(mdp.mask.sum()), warnings=tuple(warnings), eta=prep.eta,
            domain_rule=prep.domain_rule)
    rows = prep.rows
    assert isinstance(rows, np.ndarray)
    S, A = mdp.n_states, mdp.n_actions
    private = np.zeros((S, A, S))
    if mdp.mask.all():  # the rows are P's own order: draw straight into the new model
        dirichlet_rows(rows, k, src, out=private.reshape(S * A, S))
    else:
        private[mdp.mask] = dirichlet_rows(rows, k, src)
    return PrivatizedMDP(
        mdp=with_transitions(mdp, private, name=(mdp.name + " (private)").strip()), k=k,
        mode=src.mode,
        seed=src.seed, zeros=prep.zeros, smoothing=prep.smoothing, rows=int(mdp.mask.sum()),
        warnings=tuple(warnings), eta=prep.eta, domain_rule=prep.domain_rule)
