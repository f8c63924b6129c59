"""DP-SGD accounting on Google's ``dp-accounting`` (RDP and PLD), with the replay-buffer window.

The mechanism accounted for is the Poisson-subsampled Gaussian mechanism of DP-SGD: each
step samples every record with probability ``q``, clips each per-record gradient to norm C
and adds N(0, σ²C²) to their sum (σ = the *noise multiplier*). ε never depends on the data,
only on (σ, q, T, δ) and the neighbouring relation.

**Neighbouring relation.** On a fixed training set (no ``window``) neighbours differ by
adding or removing one record: **add/remove-one**, the relation ``dp-accounting``'s Poisson
analysis is proven for.

* ``method="rdp"`` (default there, as the sources use it):
  :class:`dp_accounting.rdp.RdpAccountant` on its default order grid, converted with its tight
  RDP→(ε, δ) conversion. For fractional orders its log-A series is an upper bound, so its ε is
  at most slightly *above* a quadrature of the same RDP curve (e.g. 9.215 vs 9.167 at
  q = 1/32, σ = 0.8, T = 1024, δ = 1024^-1.1): conservative, the side a privacy statement may
  err on.
* ``method="pld"``: :class:`dp_accounting.pld.PLDAccountant` with pessimistic discretisation
  (interval :data:`PLD_INTERVAL`), usually tighter than RDP.

**Replay-buffer window** (Theorem 4.2 of the dissertation's chapter 4): once a FIFO buffer
of ``window`` entries is full and one DP step is taken per new entry, each entry is used in at
most ``window`` steps; maximum-overlap parallel composition bounds the whole run by
``window`` composed steps, so ``steps_counted = min(steps, window · updates_per_entry)``. The
privacy unit is one buffer entry. Two neighbouring runs differ in one entry: the buffer has a
fixed size, so the entry is not missing from the other run's buffer but **replaced** by a
different one. The relation is therefore **replace-one**, and each of the counted steps is a
Poisson-subsampled Gaussian step under replace-one: conditioned on the rest of the sample,
the two outputs are (1 − q)·N(0, σ²C²) + q·N(g, σ²C²) and the same with g′, ‖g‖, ‖g′‖ <= C.
``dp-accounting`` composes the pair with g = −C·e, g′ = +C·e (its ``REPLACE_ONE`` relation,
a shift of 2C between the sampled components); that this antipodal pair dominates every
other replacement is checked by quadrature in ``tests/core/privacy/test_replay_window.py``.
Its RDP accountant has no replace-one analysis of Poisson sampling, so with a window the
accountant is the PLD (interval :data:`REPLACE_PLD_INTERVAL`; pessimistic, an upper bound at
any interval) and ``method="rdp"`` is refused. The dissertation's figure — the same window
composed under add/remove-one with RDP, (2.90, 4.9e-4) at σ = 1.4539, q = 1/32, B = 1024 —
is kept as ``thesis_reading``, labelled: it is not a guarantee for the buffer (5.03 is).
``docs/privacy-statements.md`` has the argument in full.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from core.common.errors import InputError

__all__ = ["DpsgdAccounting", "dpsgd_epsilon", "noise_for_epsilon", "PLD_INTERVAL",
           "REPLACE_PLD_INTERVAL", "ADJACENCY", "REPLACE_ADJACENCY", "THESIS_LABEL",
           "GroupPrivacy", "group_privacy", "replay_pld", "replay_interval", "add_remove_interval",
           "PLD_SIGMA_MIN"]

#: Pessimistic PLD discretisation interval (ε error ≤ about this much per composition).
PLD_INTERVAL = 1e-4
#: The interval of the replace-one window's PLD (pessimistic at any interval; at the
#: reference point σ = 1.4539, q = 1/32, B = 1024 it states 5.0315 against 5.0314 at 1e-4,
#: ten times faster).
REPLACE_PLD_INTERVAL = 1e-3
#: Smallest noise multiplier the PLD accountant takes: one step's privacy loss reaches about
#: 2/σ², and below this the loss grid's size overflows (σ = 1e-300 crashed dp-accounting
#: with an OverflowError). The RDP accountant takes any σ > 0.
PLD_SIGMA_MIN = 1e-3
#: Most grid points of one add/remove-one step's PLD before its interval is coarsened (a
#: fixed 1e-4 grid needs 2e8 points at σ = 0.01, and memory runs out).
PLD_MAX_POINTS = 1_000_000

ADJACENCY = "add/remove one record (Poisson subsampling)"
REPLACE_ADJACENCY = ("replace-one: neighbouring runs differ in one replay-buffer entry (one "
                     "transition replaced by another); the fixed-size FIFO buffer holds it "
                     "for at most window x updates-per-entry steps (Theorem 4.2), each step "
                     "Poisson-samples the buffer")
THESIS_LABEL = ("Theorem 4.2's window composed under add/remove-one with RDP, as the "
                "dissertation states it (the thesis reading); not a guarantee for a "
                "fixed-size buffer, whose neighbouring runs differ by a replacement")


@dataclass(frozen=True)
class DpsgdAccounting:
    """(ε, δ) of ``steps`` Poisson-subsampled Gaussian steps.

    Attributes
    ----------
    epsilon : float or None
        The proven ε at ``delta``; None when unbounded (σ = 0), with ``reason``.
    order : float or None
        The RDP order that attains ε (None for PLD).
    method : str
        ``"rdp"`` or ``"pld"``.
    steps_counted : int
        The number of composed steps (``min(steps, window·updates_per_entry)``).
    relation : str
        ``"add/remove-one"`` (a fixed training set) or ``"replace-one"`` (a replay window).
    thesis_reading : dict or None
        With a window: the dissertation's add/remove-one RDP figure, labelled (module
        docstring); never the guarantee.
    """

    sigma: float
    sample_rate: float
    steps: int
    delta: float
    method: str
    epsilon: float | None
    order: float | None
    steps_counted: int
    window: int | None = None
    updates_per_entry: int = 1
    reason: str | None = None
    adjacency: str = ADJACENCY
    notes: tuple[str, ...] = field(default_factory=tuple)
    relation: str = "add/remove-one"
    thesis_reading: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``accountant dpsgd --json`` object (``docs/formats-and-cli.md`` §5)."""
        out: dict[str, Any] = {"epsilon": self.epsilon, "delta": self.delta, "order": self.order,
               "method": self.method, "sigma": self.sigma, "sample_rate": self.sample_rate,
               "steps": self.steps, "steps_counted": self.steps_counted,
               "window": self.window, "updates_per_entry": self.updates_per_entry,
               "adjacency": self.adjacency, "neighboring_relation": self.relation,
               "thesis_reading": (None if self.thesis_reading is None
                                  else dict(self.thesis_reading)),
               "notes": list(self.notes)}
        if self.epsilon is None:
            out["epsilon_reason"] = self.reason
        return out


def _check(sigma: float, sample_rate: float, steps: int, delta: float,
           window: int | None, updates_per_entry: int, method: str | None) -> None:
    for name, v in (("sigma", sigma), ("sample_rate", sample_rate), ("delta", delta)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InputError(f"must be a finite number, got {v!r}", field=name)
    if sigma < 0:
        raise InputError(f"the noise multiplier must be >= 0, got {sigma}", field="sigma")
    if not 0 < sample_rate <= 1:
        raise InputError(f"the sampling rate must lie in (0, 1], got {sample_rate}",
                         field="sample_rate")
    if not 0 < delta < 1:
        raise InputError(f"delta must lie in (0, 1), got {delta}", field="delta")
    if isinstance(steps, bool) or int(steps) != steps or steps < 1:
        raise InputError(f"must be a whole number >= 1, got {steps!r}", field="steps")
    if window is not None and (isinstance(window, bool) or int(window) != window
                               or window < 1):
        raise InputError(f"the replay-buffer window must be a whole number >= 1, got "
                         f"{window!r}", field="window")
    if int(updates_per_entry) != updates_per_entry or updates_per_entry < 1:
        raise InputError(f"must be a whole number >= 1, got {updates_per_entry!r}",
                         field="updates_per_entry")
    if method not in (None, "rdp", "pld"):
        raise InputError(f"must be 'rdp' or 'pld', got {method!r}", field="method")
    if (method == "pld" or window is not None) and 0 < sigma < PLD_SIGMA_MIN:
        raise InputError(f"the PLD accountant takes a noise multiplier of 0 or >= "
                         f"{PLD_SIGMA_MIN:g} (its loss grid overflows below), got {sigma:g}; "
                         "the RDP accountant (method rdp, without a window) takes any",
                         field="sigma")
    if window is not None and method == "rdp":
        raise InputError("a replay window is accounted under replace-one, and dp-accounting's "
                         "RDP accountant has no replace-one analysis of Poisson sampling: use "
                         "pld (the default with a window)", field="method")


def _event(sigma: float, sample_rate: float, count: int) -> Any:
    import logging

    import dp_accounting

    # dp-accounting logs (through absl) each fractional order whose series does not converge
    # and leaves it out of the minimum: the remaining orders still give a valid bound
    logging.getLogger("absl").setLevel(logging.ERROR)
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(sample_rate, dp_accounting.GaussianDpEvent(sigma)),
        count)


def add_remove_interval(sigma: float) -> float:
    """The PLD grid of an add/remove-one step: :data:`PLD_INTERVAL`, coarser for a small σ.

    As in :func:`replay_interval`, the loss reaches about 20/σ + 2/σ²; the interval grows to
    keep the grid within :data:`PLD_MAX_POINTS` (from σ ≈ 0.14 down). Pessimistic
    discretisation keeps ε an upper bound at any interval.

    Parameters
    ----------
    sigma : float
        Noise multiplier (>= :data:`PLD_SIGMA_MIN`).

    Returns
    -------
    float

    Examples
    --------
    >>> add_remove_interval(1.0)
    0.0001
    >>> round(add_remove_interval(0.01), 6)
    0.022
    """
    return max(PLD_INTERVAL, (20.0 / sigma + 2.0 / sigma ** 2) / PLD_MAX_POINTS)


def replay_interval(sigma: float) -> float:
    """The PLD grid of a replace-one step: :data:`REPLACE_PLD_INTERVAL`, coarser for a small σ.

    One step's privacy loss reaches about 20/σ + 2/σ² before dp-accounting truncates its tail
    (the Gaussian beyond ~10σ), so a fixed grid would need millions of points at σ = 0.01;
    the interval grows to keep it near 50,000. The discretisation is pessimistic at any
    interval, so ε stays an upper bound (only looser, where it is large anyway).

    Parameters
    ----------
    sigma : float
        Noise multiplier (> 0).

    Returns
    -------
    float
    """
    return max(REPLACE_PLD_INTERVAL, (20.0 / sigma + 2.0 / sigma ** 2) / 50_000)


def replay_pld(sigma: float, sample_rate: float, steps: int) -> Any:
    """The pessimistic replace-one PLD of ``steps`` Poisson-subsampled Gaussian steps.

    Parameters
    ----------
    sigma : float
        Noise multiplier (> 0).
    sample_rate : float
        Poisson sampling probability q.
    steps : int
        Composed steps (the window's count).

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        Its ``get_epsilon_for_delta`` is an upper bound on the true ε at every δ.
    """
    from dp_accounting import privacy_accountant
    from dp_accounting.pld import privacy_loss_distribution as pldm

    _event(sigma, sample_rate, 1)  # quiets absl
    one = pldm.from_gaussian_mechanism(
        float(sigma), sampling_prob=float(sample_rate),
        value_discretization_interval=replay_interval(sigma),
        neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE)
    return one.self_compose(int(steps)) if steps > 1 else one


def _add_remove(sigma: float, sample_rate: float, count: int, delta: float, method: str
                ) -> tuple[float, float | None]:
    """(ε, RDP order or None) under add/remove-one."""
    event = _event(sigma, sample_rate, count)
    if method == "rdp":
        from dp_accounting import rdp
        acc = rdp.RdpAccountant()
        acc.compose(event)
        eps, order = acc.get_epsilon_and_optimal_order(delta)
        return float(eps), float(order)
    from dp_accounting import pld
    acc_p = pld.PLDAccountant(value_discretization_interval=add_remove_interval(sigma))
    acc_p.compose(event)
    return float(acc_p.get_epsilon(delta)), None


def dpsgd_epsilon(sigma: float, sample_rate: float, steps: int, delta: float, *,
                  window: int | None = None, updates_per_entry: int = 1,
                  method: str | None = None) -> DpsgdAccounting:
    """ε of DP-SGD at ``delta`` from ``dp-accounting``.

    Parameters
    ----------
    sigma : float
        Noise multiplier (noise standard deviation / clip norm); 0 is unbounded.
    sample_rate : float
        Poisson sampling probability q ∈ (0, 1].
    steps : int
        Training steps T.
    delta : float
        Target δ ∈ (0, 1).
    window : int, optional
        Replay-buffer size B: count only ``min(T, B·updates_per_entry)`` steps (Thm 4.2),
        under the replace-one relation (module docstring).
    updates_per_entry : int
        DP steps taken per new buffer entry.
    method : {"rdp", "pld"}, optional
        The accountant (default: ``"rdp"`` on a fixed data set, ``"pld"`` with a window;
        ``"rdp"`` with a window is refused).

    Returns
    -------
    DpsgdAccounting

    Examples
    --------
    A fixed data set: the dissertation's (2.90, 4.9e-4) at q = 1/32, σ = 1.4539, 1024 steps.

    >>> r = dpsgd_epsilon(1.4539, 1 / 32, 1024, 1024 ** -1.1)
    >>> f"{r.epsilon:.5f}", r.relation
    ('2.89995', 'add/remove-one')

    A replay window of 1024 entries: replace-one, and 2.90 is only the thesis reading.

    >>> r = dpsgd_epsilon(1.4539, 1 / 32, 10_000, 1024 ** -1.1, window=1024)
    >>> f"{r.epsilon:.2f}", r.relation, r.steps_counted, f"{r.thesis_reading['epsilon']:.2f}"
    ('5.03', 'replace-one', 1024, '2.90')
    """
    _check(sigma, sample_rate, steps, delta, window, updates_per_entry, method)
    steps, upe = int(steps), int(updates_per_entry)
    counted = steps if window is None else min(steps, int(window) * upe)
    replay = window is not None
    method = method or ("pld" if replay else "rdp")
    relation = "replace-one" if replay else "add/remove-one"
    adjacency = REPLACE_ADJACENCY if replay else ADJACENCY
    notes: list[str] = []
    if window is not None:
        notes.append(f"Theorem 4.2 window: {counted} of {steps} steps composed (buffer "
                     f"{int(window)} x {upe} update(s) per entry); the unit is one buffer "
                     "entry (one transition), and neighbouring runs differ by replacing it "
                     "(replace-one)")
    common: dict[str, Any] = dict(window=window, updates_per_entry=upe, adjacency=adjacency,
                                  relation=relation)
    if sigma == 0:
        return DpsgdAccounting(sigma, sample_rate, steps, delta, method, None, None, counted,
                               reason="noise multiplier 0: the Gaussian mechanism without "
                                      "noise is not differentially private",
                               notes=tuple(notes), **common)
    thesis = None
    if replay:
        eps_f = float(replay_pld(sigma, sample_rate, counted).get_epsilon_for_delta(delta))
        order_f: float | None = None
        t_eps, t_order = _add_remove(sigma, sample_rate, counted, delta, "rdp")
        thesis = {"epsilon": t_eps if math.isfinite(t_eps) else None, "delta": float(delta),
                  "order": t_order, "method": "rdp", "relation": "add/remove-one",
                  "label": THESIS_LABEL}
    else:
        eps_f, order_f = _add_remove(sigma, sample_rate, counted, delta, method)
    if not math.isfinite(eps_f):
        return DpsgdAccounting(sigma, sample_rate, steps, delta, method, None,
                               None, counted,
                               reason="the accountant found no finite epsilon at this delta",
                               notes=tuple(notes), thesis_reading=thesis, **common)
    return DpsgdAccounting(sigma, sample_rate, steps, delta, method, max(eps_f, 0.0),
                           order_f, counted, notes=tuple(notes), thesis_reading=thesis,
                           **common)


def noise_for_epsilon(epsilon: float, sample_rate: float, steps: int, delta: float, *,
                      window: int | None = None, method: str | None = None,
                      rtol: float = 1e-3) -> float:
    """The smallest noise multiplier σ (to ``rtol``, rounded up) whose ε is ≤ ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    sample_rate, steps, delta, window, method
        As in :func:`dpsgd_epsilon`.
    rtol : float
        Relative width of the final bracket; the returned σ is its upper (safe) end.

    Returns
    -------
    float
        σ with ``dpsgd_epsilon(σ, …).epsilon <= epsilon``.

    Examples
    --------
    >>> s = noise_for_epsilon(2.9, 1 / 32, 1024, 1024 ** -1.1)
    >>> 1.45 < s < 1.46
    True
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) \
            or not math.isfinite(epsilon) or epsilon <= 0:
        raise InputError(f"the target epsilon must be a finite number > 0, got {epsilon!r}",
                         field="epsilon")

    def eps(s: float) -> float:
        r = dpsgd_epsilon(s, sample_rate, steps, delta, window=window, method=method)
        return math.inf if r.epsilon is None else r.epsilon

    lo, hi = 0.0, 1.0
    while eps(hi) > epsilon:
        lo, hi = hi, hi * 2
        if hi > 1e6:
            raise InputError(f"no noise multiplier up to 1e6 reaches epsilon {epsilon}",
                             field="epsilon")
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if eps(mid) > epsilon:
            lo = mid
        else:
            hi = mid
    return hi


#: Per-entry δ₀ tried by :func:`group_privacy` (below ~1e-12 the PLD's truncated tail rules).
_GROUP_DELTAS = tuple(10.0 ** (-e / 4) for e in range(8, 49))


@dataclass(frozen=True)
class GroupPrivacy:
    """(ε, δ) for neighbours that differ in up to ``group`` buffer entries (group privacy).

    ``epsilon`` is None (with ``reason``) when no per-entry δ₀ gives a δ at most the target.
    ``entry_epsilon``/``entry_delta`` are the per-entry (ε₀, δ₀) the figure is built from.
    """

    group: int
    epsilon: float | None
    delta: float
    entry_epsilon: float | None
    entry_delta: float | None
    method: str
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"group": self.group, "epsilon": self.epsilon,
                               "delta": self.delta, "entry_epsilon": self.entry_epsilon,
                               "entry_delta": self.entry_delta, "method": self.method}
        if self.epsilon is None:
            out["epsilon_reason"] = self.reason
        return out


GROUP_METHOD = ("group privacy of (eps0, delta0)-DP along a chain of single-entry "
                "replacements: (g*eps0, delta0*(e^(g*eps0) - 1)/(e^eps0 - 1)), the best delta0 "
                "on a grid; composing the one-entry PLD g times would be wrong here (every step "
                "samples the whole group)")


def _log_group_delta(eps0: float, delta0: float, g: int) -> float:
    """ln(δ₀·Σ_{i<g} e^{iε₀}) = ln δ₀ + ln((e^{gε₀} − 1)/(e^{ε₀} − 1)), without overflow."""
    if eps0 <= 0:
        return math.log(delta0) + math.log(g)
    top = g * eps0 + math.log(-math.expm1(-g * eps0))
    bottom = eps0 + math.log(-math.expm1(-eps0))
    return math.log(delta0) + top - bottom


def group_privacy(sigma: float, sample_rate: float, steps: int, delta: float, *,
                  window: int, group: int, updates_per_entry: int = 1) -> GroupPrivacy:
    """The replay window's guarantee for neighbours that differ in ``group`` entries.

    Two runs whose buffers differ in g entries (e.g. one episode of g transitions) are joined
    by a chain of g runs, each differing from the next in one entry, so (ε₀, δ₀)-DP per entry
    gives, along the chain, P(S) <= e^{ε₀}(e^{ε₀}(…) + δ₀) + δ₀, i.e.
    (g·ε₀, δ₀·(e^{gε₀} − 1)/(e^{ε₀} − 1)) — at most (g·ε₀, g·e^{(g−1)ε₀}·δ₀). δ₀ is chosen
    on a public grid (:data:`_GROUP_DELTAS`) to make g·ε₀ smallest with the group δ at most
    ``delta``; ε₀(δ₀) is read off the one-entry replace-one PLD (:func:`replay_pld`).

    Composing the one-entry PLD g times is *not* valid here: the g entries are in the buffer
    together, so one step may sample several of them (with q = 1, g entries shift the sum by
    2gC, not √g·2C).

    Parameters
    ----------
    sigma, sample_rate, steps, delta, window, updates_per_entry
        As in :func:`dpsgd_epsilon` (``window`` is required).
    group : int
        g >= 1, the number of entries that may differ.

    Returns
    -------
    GroupPrivacy

    Examples
    --------
    >>> r = group_privacy(20.0, 1 / 32, 1000, 1e-3, window=64, group=4)
    >>> r.epsilon is not None and r.epsilon == 4 * r.entry_epsilon
    True
    >>> group_privacy(1.4539, 1 / 32, 1000, 1e-3, window=1024, group=60).epsilon is None
    True
    """
    _check(sigma, sample_rate, steps, delta, window, updates_per_entry, "pld")
    if isinstance(group, bool) or int(group) != group or group < 1:
        raise InputError(f"must be a whole number >= 1, got {group!r}", field="group")
    g = int(group)
    counted = min(int(steps), int(window) * int(updates_per_entry))
    if sigma == 0:
        return GroupPrivacy(g, None, float(delta), None, None, GROUP_METHOD,
                            reason="noise multiplier 0: not differentially private")
    pld = replay_pld(sigma, sample_rate, counted)
    best: tuple[float, float, float] | None = None
    log_target = math.log(delta)
    for d0 in (float(delta),) + tuple(d for d in _GROUP_DELTAS if d < delta):
        e0 = float(pld.get_epsilon_for_delta(d0))
        if not math.isfinite(e0):
            continue
        e0 = max(e0, 0.0)
        if _log_group_delta(e0, d0, g) <= log_target and (best is None or g * e0 < best[0]):
            best = (g * e0, e0, d0)
    if best is None:
        return GroupPrivacy(g, None, float(delta), None, None, GROUP_METHOD,
                            reason=f"group privacy over {g} entries gives a delta above "
                                   f"{delta:g} at every per-entry delta down to "
                                   f"{_GROUP_DELTAS[-1]:.0e} (the per-entry epsilon is too "
                                   "large for a group of this size)")
    return GroupPrivacy(g, best[0], float(delta), best[1], best[2], GROUP_METHOD)
