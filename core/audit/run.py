"""The audit's entry point: :func:`run_audit` of one mechanism by name, and the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.audit.runner import DEFAULT_CONFIDENCE, AuditResult, audit_module
from core.audit.target import (
    AUDIT_TARGETS,
    TargetSpec,
    load_target,
    target_available,
)
from core.common.errors import InputError

__all__ = ["MECHANISMS", "available", "run_audit"]

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
