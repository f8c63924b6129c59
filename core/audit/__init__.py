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
audit itself, spec B20). See :mod:`core.audit.runner` for the procedure and
:mod:`core.audit.target` for the interface every mechanism implements (the
:class:`~core.audit.target.AuditTarget` protocol) and the registry of targets.

Examples
--------
>>> r = run_audit("laplace", samples=20_000, seed=1, epsilon=1.0, sensitivity=1.0)
>>> r.verdict, r.epsilon_claimed, r.epsilon_tight, 0.5 < r.epsilon_lb <= 1.0
('consistent', 1.0, 1.0, True)
>>> sorted(r.to_dict())[:5]
['adjacency', 'attack', 'candidates', 'confidence', 'delta_claimed']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.audit.runner import DEFAULT_CONFIDENCE, AuditResult, audit_module
from core.audit.stats import f3_epsilon
from core.audit.target import (
    AUDIT_TARGETS,
    AuditTarget,
    TargetSpec,
    load_target,
    target_available,
)
from core.common.errors import InputError

__all__ = ["MECHANISMS", "AUDIT_TARGETS", "AuditTarget", "TargetSpec", "AuditResult",
           "run_audit", "f3_epsilon", "available", "load_target"]

#: mechanism name → (module path, required parameters, optional parameters with defaults);
#: the registry of :mod:`core.audit.target` (each entry is a :class:`TargetSpec`)
MECHANISMS: dict[str, TargetSpec] = AUDIT_TARGETS


def available(mechanism: str) -> bool:
    """True if the audit module of ``mechanism`` can be imported.

    Parameters
    ----------
    mechanism : str
        A key of :data:`MECHANISMS`.

    Returns
    -------
    bool
    """
    return target_available(mechanism)


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

    Returns
    -------
    AuditResult
        The claim, the audited pair, ε_lb with its confidence, ε_tight where known, the verdict.
    """
    if mechanism not in MECHANISMS:
        raise InputError(f"must be one of {', '.join(MECHANISMS)}, got {mechanism!r}",
                         field="mechanism")
    spec = MECHANISMS[mechanism]
    if mechanism == "logistics" and "variant" in params and "preset" not in params:
        params["preset"] = params.pop("variant")
    unknown = sorted(set(params) - set(spec.required) - set(spec.optional))
    if unknown:
        raise InputError(f"unknown parameter(s) for {mechanism}: {', '.join(unknown)}",
                         field=unknown[0])
    missing = [p for p in spec.required if params.get(p) is None]
    if missing:
        raise InputError(f"required for the {mechanism} audit", field=missing[0])
    full = {**spec.optional,
            **{k: v for k, v in params.items() if v is not None or k == "eta_bar"}}
    if not available(mechanism):
        raise InputError(f"the {mechanism} audit module ({spec.path}) is not installed",
                         field="mechanism")
    target = load_target(mechanism)
    epsilon, variant = target.variant_from(full)
    extra = None
    if isinstance(variant, str):  # a preset name: reported under its parameter's own name
        (key,) = spec.optional
        extra = {"epsilon": epsilon, key: variant}
    return audit_module(mechanism, target, epsilon, variant, samples=samples, seed=seed,
                        confidence=confidence, progress=progress, cancel=cancel,
                        parameters=extra)
