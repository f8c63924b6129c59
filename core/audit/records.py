"""What an audit is asked and what its run records: :class:`AuditParameters` (validated once,
for the command line and the window alike) and the run's JSON-safe summary."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from core.audit.runner import DEFAULT_CONFIDENCE, MIN_SAMPLES, AuditResult, check_audit_args
from core.audit.target import AUDIT_TARGETS, load_target, target_available
from core.common.errors import InputError
from core.common.jsonable import jsonable_dict
from core.common.validation import check_choice, check_record_params

__all__ = ["RUN_KIND", "AuditParameters", "audit_summary", "audit_params"]

#: ``RunRecord.kind`` of an audit.
RUN_KIND = "audit"

#: the keys of :meth:`AuditParameters.to_dict` (a run record's ``params``), in their order
_RECORD_KEYS = ("mechanism", "params", "samples", "confidence", "seeded", "seed")


def _mechanism_params(mechanism: str, params: Any) -> dict[str, Any]:
    """The mechanism's parameters as asked: a dict of the registry's names (the logistics
    ``variant`` read as its ``preset``), every required one given."""
    if not isinstance(params, Mapping) or not all(isinstance(k, str) for k in params):
        raise InputError(f"must map the mechanism's parameter names to values, got "
                         f"{params!r}", field="params")
    spec = AUDIT_TARGETS[mechanism]
    out = dict(params)
    if mechanism == "logistics" and "variant" in out and "preset" not in out:
        out["preset"] = out.pop("variant")
    unknown = sorted(set(out) - set(spec.required) - set(spec.optional))
    if unknown:
        raise InputError(f"unknown parameter(s) for {mechanism}: {', '.join(unknown)}",
                         field=unknown[0])
    missing = [p for p in spec.required if out.get(p) is None]
    if missing:
        raise InputError(f"required for the {mechanism} audit", field=missing[0])
    return out


@dataclass(frozen=True)
class AuditParameters:
    """What one audit means (``audit MECHANISM …``, the Audit tab's Run): the mechanism, its
    public parameters, the samples per side, the seed and the confidence of ε_lb.

    Validated once, here; every :class:`InputError` names the field (``mechanism``,
    ``params``, a parameter of the mechanism such as ``epsilon``, ``samples``, ``seed`` or
    ``confidence``). The mechanism's values are checked by its own audit target
    (:meth:`core.audit.target.AuditTarget.variant_from`). ``params`` keeps what was asked
    (read-only; the registry's defaults are filled in by :meth:`full`); ``samples`` None
    means the mechanism's default; ``seed`` None a release-mode audit (OS-seeded).
    :func:`core.audit.run.audit_release` runs it; :meth:`record_params` is what the run
    record keeps, and :meth:`from_dict` reads that back.

    Examples
    --------
    >>> p = AuditParameters("laplace", {"epsilon": 1.0, "sensitivity": 1.0}, seed=3)
    >>> p.full()["noise_factor"], AuditParameters.from_dict(p.to_dict()) == p
    (1.0, True)
    >>> AuditParameters("laplace", {"epsilon": 1.0}, confidence=1.5)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: confidence: must lie in [0.5, 1), got 1.5
    """

    mechanism: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    samples: int | None = None
    seed: int | None = None
    confidence: float = DEFAULT_CONFIDENCE

    def __post_init__(self) -> None:
        mechanism = check_choice(self.mechanism, tuple(AUDIT_TARGETS), "mechanism")
        params = _mechanism_params(mechanism, self.params)
        samples, confidence = check_audit_args(
            MIN_SAMPLES if self.samples is None else self.samples, self.seed, self.confidence)
        object.__setattr__(self, "params", MappingProxyType(params))
        object.__setattr__(self, "samples", None if self.samples is None else samples)
        object.__setattr__(self, "seed", None if self.seed is None else int(self.seed))
        object.__setattr__(self, "confidence", confidence)
        if not target_available(mechanism):
            raise InputError(f"the {mechanism} audit module ({AUDIT_TARGETS[mechanism].path}) "
                             "is not installed", field="mechanism")
        load_target(mechanism).variant_from(self.full())  # each value, by its own target

    def full(self) -> dict[str, Any]:
        """The parameters the target reads: the registry's defaults, then what was given
        (a None leaves the default, except η̄, whose None means "η")."""
        given = {k: v for k, v in self.params.items() if v is not None or k == "eta_bar"}
        return {**AUDIT_TARGETS[self.mechanism].optional, **given}

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON, in the keys and order of a run record's ``params``
        (:meth:`record_params`): ``mechanism``, ``params``, ``samples`` (None: the
        mechanism's default), ``confidence``, ``seeded`` and ``seed``."""
        return jsonable_dict({"mechanism": self.mechanism, "params": dict(self.params),
                              "samples": self.samples, "confidence": self.confidence,
                              "seeded": self.seed is not None, "seed": self.seed})

    @classmethod
    def from_dict(cls, data: Any) -> "AuditParameters":
        """The parameters of :meth:`to_dict` or of an audit run record's ``params``.

        Parameters
        ----------
        data : mapping
            ``mechanism``, ``params``, and optionally ``samples``, ``confidence``, ``seed``
            and ``seeded`` (which must agree with the seed).

        Returns
        -------
        AuditParameters
        """
        check_record_params(data, _RECORD_KEYS, "an audit's parameters")
        mechanism: Any = data.get("mechanism")  # checked by __post_init__
        seed = data.get("seed")
        return cls(mechanism=mechanism, params=data.get("params", {}),
                   samples=data.get("samples"), seed=seed,
                   confidence=data.get("confidence", DEFAULT_CONFIDENCE))

    def record_params(self, result: AuditResult) -> dict[str, Any]:
        """What an audit's run record keeps as its parameters: :meth:`to_dict` with the
        samples, confidence and seed the audit used (``seeded`` for a seeded experiment)."""
        return jsonable_dict({"mechanism": result.mechanism, "params": dict(self.params),
                              "samples": result.samples, "confidence": result.confidence,
                              "seeded": result.seed is not None and result.mode == "experiment",
                              "seed": result.seed})


def audit_summary(result: AuditResult) -> dict[str, Any]:
    """The summary a run record keeps: ``AuditResult.to_dict`` made strict JSON.

    Parameters
    ----------
    result : AuditResult
        The audit.

    Returns
    -------
    dict
        JSON-safe (ε = ∞ is null with its reason, :func:`core.common.jsonable.jsonable`).
    """
    return jsonable_dict(result.to_dict())


def audit_params(result: AuditResult, params: AuditParameters) -> dict[str, Any]:
    """The parameters a run record keeps of an audit (what was asked, strict JSON).

    Parameters
    ----------
    result : AuditResult
        The audit.
    params : AuditParameters
        What was asked (:func:`core.audit.run.audit_release`).

    Returns
    -------
    dict
        ``mechanism``, ``params``, ``samples``, ``confidence``, ``seeded`` and ``seed``
        (:meth:`AuditParameters.record_params`).
    """
    return params.record_params(result)
