"""The audit's entry point, :func:`audit_release` of an :class:`AuditParameters` (the window
and the command line both call it), :func:`run_audit` (the same by keywords) and the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.audit.records import AuditParameters
from core.audit.runner import DEFAULT_CONFIDENCE, AuditResult, audit_module
from core.audit.target import (
    AUDIT_TARGETS,
    TargetSpec,
    load_target,
    target_available,
)

__all__ = ["MECHANISMS", "available", "audit_release", "run_audit"]

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
    """Audit one mechanism by keywords: :func:`audit_release` of
    ``AuditParameters(mechanism, params, samples=…, seed=…, confidence=…)``.

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
    return audit_release(AuditParameters(mechanism, params, samples=samples, seed=seed,
                                         confidence=confidence),
                         progress=progress, cancelled=cancel)


def audit_release(params: AuditParameters, progress: Callable[..., None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> AuditResult:
    """Audit the mechanism of ``params``: the one entry point of an audit.

    The window runs it in its worker and ``audit MECHANISM …`` calls it; both record its
    result with :func:`core.project.recording.audit_run_record`. (Named like the other
    actions' entry points, ``bounds_release``; an audit itself releases nothing about the
    project's data.)

    Parameters
    ----------
    params : AuditParameters
        What to audit (validated when it was made).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled between chunks; True stops the audit by raising
        :class:`core.common.progress.Cancelled`.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> p = AuditParameters("gaussian", {"mu": 1.0}, samples=2000, seed=1)
    >>> r = audit_release(p)
    >>> r.mechanism, r.samples, r.seed, r.mode
    ('gaussian', 2000, 1, 'experiment')
    """
    spec = MECHANISMS[params.mechanism]
    target = load_target(params.mechanism)
    epsilon, variant = target.variant_from(params.full())
    extra = None
    if isinstance(variant, str):  # a preset name: reported under its parameter's own name
        (key,) = spec.optional
        extra = {"epsilon": epsilon, key: variant}
    return audit_module(params.mechanism, target, epsilon, variant, samples=params.samples,
                        seed=params.seed, confidence=params.confidence, progress=progress,
                        cancel=cancelled, parameters=extra)
