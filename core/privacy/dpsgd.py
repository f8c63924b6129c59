"""DP-SGD accounting on Google's ``dp-accounting`` (RDP and PLD), with the replay-buffer window.

The mechanism accounted for is the Poisson-subsampled Gaussian mechanism of DP-SGD: each
step samples every record with probability ``q``, clips each per-record gradient to norm C
and adds N(0, σ²C²) to their sum (σ = the *noise multiplier*). Adjacency is add/remove one
record (the unit ``dp-accounting``'s Poisson analysis is proven for); ε never depends on the
data, only on (σ, q, T, δ).

* ``method="rdp"`` (default, as the sources use it): :class:`dp_accounting.rdp.RdpAccountant`
  on its default order grid, converted with its tight RDP→(ε, δ) conversion. For fractional
  orders its log-A series is an upper bound, so its ε is at most slightly *above* a
  quadrature of the same RDP curve (e.g. 9.215 vs 9.167 at q = 1/32, σ = 0.8, T = 1024,
  δ = 1024^-1.1): conservative, which is the side a privacy statement may err on.
* ``method="pld"``: :class:`dp_accounting.pld.PLDAccountant` with pessimistic discretisation
  (interval :data:`PLD_INTERVAL`), usually tighter than RDP.

**Replay-buffer window** (Theorem 4.2 of the dissertation's chapter 4): once a FIFO buffer
of ``window`` entries is full and one DP step is taken per new entry, each entry is used in at
most ``window`` steps; maximum-overlap parallel composition bounds the whole run by
``window`` composed steps. So ``steps_counted = min(steps, window · updates_per_entry)``.
The privacy unit is then one buffer entry, not one training record of a fixed data set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from core.common.errors import InputError

__all__ = ["DpsgdAccounting", "dpsgd_epsilon", "noise_for_epsilon", "PLD_INTERVAL",
           "ADJACENCY"]

#: Pessimistic PLD discretisation interval (ε error ≤ about this much per composition).
PLD_INTERVAL = 1e-4

ADJACENCY = "add/remove one record (Poisson subsampling)"


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

    def to_json(self) -> dict:
        """The ``accountant dpsgd --json`` object (``formats-and-cli.md`` §5)."""
        out = {"epsilon": self.epsilon, "delta": self.delta, "order": self.order,
               "method": self.method, "sigma": self.sigma, "sample_rate": self.sample_rate,
               "steps": self.steps, "steps_counted": self.steps_counted,
               "window": self.window, "updates_per_entry": self.updates_per_entry,
               "adjacency": self.adjacency, "notes": list(self.notes)}
        if self.epsilon is None:
            out["epsilon_reason"] = self.reason
        return out


def _check(sigma: float, sample_rate: float, steps: int, delta: float,
           window: int | None, updates_per_entry: int, method: str) -> None:
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
    if method not in ("rdp", "pld"):
        raise InputError(f"must be 'rdp' or 'pld', got {method!r}", field="method")


def dpsgd_epsilon(sigma: float, sample_rate: float, steps: int, delta: float, *,
                  window: int | None = None, updates_per_entry: int = 1,
                  method: str = "rdp") -> DpsgdAccounting:
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
        Replay-buffer size B: count only ``min(T, B·updates_per_entry)`` steps (Thm 4.2).
    updates_per_entry : int
        DP steps taken per new buffer entry.
    method : {"rdp", "pld"}
        The accountant.

    Returns
    -------
    DpsgdAccounting

    Examples
    --------
    The reconstruction of the dissertation's (2.90, 4.9e-4): B = 1024, q = 1/32, σ = 1.4539.

    >>> r = dpsgd_epsilon(1.4539, 1 / 32, 10_000, 1024 ** -1.1, window=1024)
    >>> f"{r.epsilon:.5f}", r.steps_counted
    ('2.89995', 1024)
    """
    _check(sigma, sample_rate, steps, delta, window, updates_per_entry, method)
    steps, upe = int(steps), int(updates_per_entry)
    counted = steps if window is None else min(steps, int(window) * upe)
    notes: list[str] = []
    if window is not None:
        notes.append(f"Theorem 4.2 window: {counted} of {steps} steps composed (buffer "
                     f"{int(window)} x {upe} update(s) per entry); the unit is one buffer "
                     "entry (one episode in one agent's buffer)")
    if sigma == 0:
        return DpsgdAccounting(sigma, sample_rate, steps, delta, method, None, None, counted,
                               window, upe, reason="noise multiplier 0: the Gaussian "
                               "mechanism without noise is not differentially private",
                               notes=tuple(notes))
    import logging

    import dp_accounting

    # dp-accounting logs (through absl) each fractional order whose series does not converge
    # and leaves it out of the minimum: the remaining orders still give a valid bound
    logging.getLogger("absl").setLevel(logging.ERROR)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(sample_rate, dp_accounting.GaussianDpEvent(sigma)),
        counted)
    if method == "rdp":
        from dp_accounting import rdp
        acc = rdp.RdpAccountant()
        acc.compose(event)
        eps, order = acc.get_epsilon_and_optimal_order(delta)
        eps_f, order_f = float(eps), float(order)
    else:
        from dp_accounting import pld
        acc_p = pld.PLDAccountant(value_discretization_interval=PLD_INTERVAL)
        acc_p.compose(event)
        eps_f = float(acc_p.get_epsilon(delta))
    if not math.isfinite(eps_f):
        return DpsgdAccounting(sigma, sample_rate, steps, delta, method, None,
                               None, counted, window, upe,
                               reason="the accountant found no finite epsilon at this delta",
                               notes=tuple(notes))
    return DpsgdAccounting(sigma, sample_rate, steps, delta, method, max(eps_f, 0.0),
                           order_f if method == "rdp" else None, counted, window, upe,
                           notes=tuple(notes))


def noise_for_epsilon(epsilon: float, sample_rate: float, steps: int, delta: float, *,
                      window: int | None = None, method: str = "rdp",
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
