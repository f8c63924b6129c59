"""Empirical privacy audit of every mechanism PrivPlan releases through (spec F3).

For a mechanism and its public parameters, :func:`run_audit` takes the mechanism's own
claim (ε_claimed, δ_claimed, adjacency), searches neighbouring input pairs for the worst
case, runs a black-box distinguishing attack on N samples per side and reports a lower
bound ε_lb on the true ε with Clopper–Pearson confidence, next to ε_tight (the exact ε
of the worst pair found, where the output densities are known) and ε_claimed. A claim
is contradicted ("violation") iff ε_lb > ε_claimed, or an exact ε_tight exceeds it.

Mechanisms: ``laplace``, ``exponential`` (core/privacy/laplace.py), ``dirichlet`` (the
row mechanism and its accountant), ``advising`` (the advice as the student observes
it), ``logistics`` (the logistics releases), and ``gaussian`` (a sanity check of the
audit itself, spec B20). See :mod:`core.audit.runner` for the procedure and the module
interface every mechanism implements.

Examples
--------
>>> r = run_audit("laplace", samples=20_000, seed=1, epsilon=1.0, sensitivity=1.0)
>>> r.verdict, r.epsilon_claimed, r.epsilon_tight, 0.5 < r.epsilon_lb <= 1.0
('consistent', 1.0, 1.0, True)
>>> sorted(r.to_dict())[:5]
['adjacency', 'attack', 'candidates', 'confidence', 'delta_claimed']
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

from core.audit.runner import DEFAULT_CONFIDENCE, AuditResult, audit_module
from core.audit.stats import f3_epsilon
from core.common.errors import InputError

__all__ = ["MECHANISMS", "AuditResult", "run_audit", "f3_epsilon", "available"]

#: mechanism name → (module path, required parameters, optional parameters with defaults)
MECHANISMS: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "laplace": ("core.audit.laplace", ("epsilon",),
                {"sensitivity": 1.0, "noise_factor": 1.0}),
    "exponential": ("core.audit.exponential", ("epsilon",),
                    {"sensitivity": 1.0, "monotonic": False, "noise_factor": 1.0}),
    "dirichlet": ("core.audit.dirichlet", ("k", "eta", "w", "b", "delta"),
                  {"eta_bar": None, "analysis": "W", "delta_method": "auto"}),
    "advising": ("core.audit.advising", ("epsilon",), {"variant": "sound"}),
    "logistics": ("core.audit.logistics", ("epsilon",), {"preset": "sound"}),
    "gaussian": ("core.audit.gaussian", (), {"mu": 1.0, "delta": 1e-4}),
    # a capability above the audit layer provides its own target (loaded by path)
    "sharing": ("core.sharing.audit_target", ("k", "m", "eta", "lb", "delta"),
                {"bound": "profile"}),
}


def available(mechanism: str) -> bool:
    """True if the audit module of ``mechanism`` can be imported.

    Parameters
    ----------
    mechanism : str
        ``"laplace"``, ``"exponential"``, ``"dirichlet"``, ``"advising"`` or ``"logistics"``.

    Returns
    -------
    bool
    """
    if mechanism not in MECHANISMS:
        return False
    path = MECHANISMS[mechanism][0]
    try:
        importlib.import_module(path)
    except ModuleNotFoundError as exc:
        if exc.name != path:  # the module exists but one of its imports is missing
            raise
        return False
    return True


def _num(params: dict[str, Any], key: str) -> float:
    x = params[key]
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {x!r}", field=key) from None
    if not math.isfinite(v):
        raise InputError(f"must be finite, got {x!r}", field=key)
    return v


def _target(mechanism: str, params: dict[str, Any]) -> tuple[str, Any, Any]:
    """(module path, epsilon argument, variant) from validated keyword parameters."""
    from core.privacy.laplace import check_epsilon

    path = MECHANISMS[mechanism][0]
    if mechanism == "laplace":
        from core.audit.laplace import LaplaceVariant

        return path, check_epsilon(params["epsilon"]), LaplaceVariant(
            sensitivity=_num(params, "sensitivity"), noise_factor=_num(params, "noise_factor"))
    if mechanism == "exponential":
        from core.audit.exponential import ExponentialVariant

        return path, check_epsilon(params["epsilon"]), ExponentialVariant(
            sensitivity=_num(params, "sensitivity"), monotonic=bool(params["monotonic"]),
            noise_factor=_num(params, "noise_factor"))
    if mechanism == "dirichlet":
        from core.audit.dirichlet import DirichletVariant

        w = params["w"]
        if isinstance(w, bool) or not isinstance(w, int):
            try:
                w = int(w) if float(w) == int(w) else w
            except (TypeError, ValueError):
                pass
        eta_bar = None if params["eta_bar"] is None else _num(params, "eta_bar")
        return path, None, DirichletVariant(
            k=_num(params, "k"), eta=_num(params, "eta"), eta_bar=eta_bar, w=w,
            b=_num(params, "b"), delta=_num(params, "delta"), analysis=str(params["analysis"]),
            delta_method=str(params["delta_method"]))
    if mechanism == "sharing":
        variant_cls = importlib.import_module(path).SharingVariant
        m = params["m"]
        try:
            m = int(m) if float(m) == int(float(m)) else m
        except (TypeError, ValueError):
            pass
        return path, None, variant_cls(
            k=_num(params, "k"), m=m, eta=_num(params, "eta"), lb=_num(params, "lb"),
            delta=_num(params, "delta"), bound=str(params["bound"]))
    if mechanism == "gaussian":
        from core.audit.gaussian import GaussianVariant

        return path, None, GaussianVariant(mu=_num(params, "mu"), delta=_num(params, "delta"))
    key = "variant" if mechanism == "advising" else "preset"
    return path, check_epsilon(params["epsilon"]), str(params[key])


def run_audit(mechanism: str, *, samples: int | None = None, seed: int | None,
              progress: Callable[..., None] | None = None,
              cancel: Callable[[], bool] | None = None,
              confidence: float = DEFAULT_CONFIDENCE, **params: Any) -> AuditResult:
    """Audit one mechanism; see the module docstring.

    Parameters
    ----------
    mechanism : str
        One of :data:`MECHANISMS`.
    samples : int, optional
        N, outputs per side for the audited pair (split 20/30/50 % into fit, threshold
        choice and evaluation); default: the mechanism's ``DEFAULT_SAMPLES``.
    seed : int or None
        Seeded, reproducible experiment mode; ``None``: release mode (OS-seeded, and the
        release code path where the mechanism has one).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancel : callable, optional
        ``cancel() -> bool``, polled between chunks; True stops the audit by raising
        :class:`core.common.progress.Cancelled`.
    confidence : float
        Joint confidence of the two Clopper–Pearson limits (default 0.95).
    **params
        The mechanism's public parameters: ``laplace``: epsilon, sensitivity;
        ``exponential``: epsilon[, sensitivity, monotonic]; ``dirichlet``: k, eta, w, b,
        delta[, eta_bar, analysis ("W" | "support"), delta_method]; ``sharing``: k, m,
        eta, lb, delta[, bound]; ``advising``:
        epsilon[, variant]; ``logistics``: epsilon[, preset]; ``gaussian``: mu, delta.
    """
    if mechanism not in MECHANISMS:
        raise InputError(f"must be one of {', '.join(MECHANISMS)}, got {mechanism!r}",
                         field="mechanism")
    path, required, optional = MECHANISMS[mechanism]
    if mechanism == "logistics" and "variant" in params and "preset" not in params:
        params["preset"] = params.pop("variant")
    unknown = sorted(set(params) - set(required) - set(optional))
    if unknown:
        raise InputError(f"unknown parameter(s) for {mechanism}: {', '.join(unknown)}",
                         field=unknown[0])
    missing = [p for p in required if params.get(p) is None]
    if missing:
        raise InputError(f"required for the {mechanism} audit", field=missing[0])
    full = {**optional, **{k: v for k, v in params.items() if v is not None or k == "eta_bar"}}
    if not available(mechanism):
        raise InputError(f"the {mechanism} audit module ({path}) is not installed",
                         field="mechanism")
    path, epsilon, variant = _target(mechanism, full)
    extra = ({"epsilon": epsilon, "variant" if mechanism == "advising" else "preset": variant}
             if isinstance(variant, str) else None)
    return audit_module(mechanism, path, epsilon, variant, samples=samples, seed=seed,
                        confidence=confidence, progress=progress, cancel=cancel,
                        parameters=extra)
