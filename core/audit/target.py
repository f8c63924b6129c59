"""What a mechanism offers the audit: the :class:`AuditTarget` protocol, and its registry.

An audit target is a module (``core/audit/laplace.py``, or a capability's own module such as
``core/sharing/audit_target.py``) whose module-level names implement :class:`AuditTarget`;
``variant`` — the mechanism's public parameters, a preset name or a parameter dataclass — is
always the last argument. The interface is documented once, here; a target's functions say
only what is particular to its mechanism. mypy checks each module against the protocol
(:mod:`core.audit.targets`, and the capability's module itself), and
:func:`load_target` checks that every member is there when it loads a module by path.

:data:`AUDIT_TARGETS` is the registry: mechanism name → where the module is and which
parameters it takes. A capability above the audit layer registers its target by module path,
so the audit never imports it (import-linter's layers).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from core.common.errors import InputError

__all__ = ["AuditTarget", "TargetSpec", "AUDIT_TARGETS", "load_target", "target_available",
           "number", "PROTOCOL_MEMBERS"]


@runtime_checkable
class AuditTarget(Protocol):
    """A mechanism under audit: its claim, neighbouring inputs, and outputs as observed.

    Attributes
    ----------
    LABEL : str
        A short human name of the mechanism (reported).
    DEFAULT_SAMPLES : int
        Outputs per side when the caller gives none.
    RELEASE_PATH : bool
        True if :meth:`sample_outputs` accepts ``rng=None`` and then samples through the
        release code path (OpenDP, the OS CSPRNG) — what release mode audits.
    """

    __name__: str
    LABEL: str
    DEFAULT_SAMPLES: int
    RELEASE_PATH: bool

    def variant_from(self, params: Mapping[str, Any], /) -> tuple[Any, Any]:
        """``(epsilon, variant)`` from the validated keyword parameters of :func:`run_audit`.

        Parameters
        ----------
        params : mapping
            The registry's required and optional parameters (defaults filled in).

        Returns
        -------
        (epsilon, variant)
            The ε argument of the other members (``None`` where the mechanism has no ε
            parameter) and the mechanism's public parameters.
        """
        ...

    def parameters(self, epsilon: Any, variant: Any, /) -> dict[str, Any]:
        """The public parameters of the audited mechanism, as reported with the audit."""
        ...

    def claimed(self, epsilon: Any, variant: Any, /) -> tuple[Any, ...]:
        """The mechanism's own claim, from its accountant (never from the audit).

        Returns
        -------
        tuple
            ``(eps_claimed or math.inf, delta_claimed, adjacency_text)``, and optionally a
            fourth element: why an unbounded claim is unbounded.
        """
        ...

    def candidate_pairs(self, epsilon: Any, variant: Any, /) -> list[tuple[Any, Any, Any]]:
        """Neighbouring inputs under the claimed adjacency.

        Returns
        -------
        list of (description, input_a, input_b)
            ``description`` is JSON-able (it is reported).
        """
        ...

    def sample_outputs(self, inp: Any, n: int, rng: np.random.Generator | None,
                       epsilon: Any, variant: Any, /) -> np.ndarray:
        """``n`` outputs on input ``inp`` exactly as the observer sees them.

        Returns
        -------
        ndarray
            int codes of shape (n,) or float features of shape (n, d). ``rng=None`` only
            where ``RELEASE_PATH`` is true.
        """
        ...

    def exact_distribution(self, inp: Any, epsilon: Any, variant: Any, /
                           ) -> dict[Any, float] | None:
        """The exact output distribution on ``inp`` (discrete outputs), or None if unknown."""
        ...

    def tight_epsilon(self, a: Any, b: Any, delta: float, epsilon: Any, variant: Any, /
                      ) -> tuple[float, str] | None:
        """``(ε, method)``: the exact ε of the pair at ``delta`` where the densities are
        known, else None (the runner then tries the exact distributions)."""
        ...

    def exact_roc(self, a: Any, b: Any, epsilon: Any, variant: Any, /
                  ) -> tuple[np.ndarray, np.ndarray] | None:
        """``(fpr, tpr)`` of the optimal test of the pair (ranks the pairs), or None."""
        ...


class TargetSpec(NamedTuple):
    """Where a mechanism's :class:`AuditTarget` is and which parameters it takes."""

    path: str                         # the module's import path
    required: tuple[str, ...]         # parameters run_audit must be given
    optional: dict[str, Any]          # parameters with their defaults


#: mechanism name → its target (loaded by module path on first use)
AUDIT_TARGETS: dict[str, TargetSpec] = {
    "laplace": TargetSpec("core.audit.laplace", ("epsilon",),
                          {"sensitivity": 1.0, "noise_factor": 1.0}),
    "exponential": TargetSpec("core.audit.exponential", ("epsilon",),
                              {"sensitivity": 1.0, "monotonic": False, "noise_factor": 1.0}),
    "dirichlet": TargetSpec("core.audit.dirichlet", ("k", "eta", "w", "b", "delta"),
                            {"eta_bar": None, "analysis": "W", "delta_method": "auto"}),
    "advising": TargetSpec("core.audit.advising", ("epsilon",), {"variant": "sound"}),
    "logistics": TargetSpec("core.audit.logistics", ("epsilon",), {"preset": "sound"}),
    "gaussian": TargetSpec("core.audit.gaussian", (), {"mu": 1.0, "delta": 1e-4}),
    # a capability above the audit layer provides its own target
    "sharing": TargetSpec("core.sharing.audit_target", ("k", "m", "eta", "lb", "delta"),
                          {"bound": "profile"}),
}

PROTOCOL_MEMBERS = ("LABEL", "DEFAULT_SAMPLES", "RELEASE_PATH", "variant_from", "parameters",
            "claimed", "candidate_pairs", "sample_outputs", "exact_distribution",
            "tight_epsilon", "exact_roc")


def target_available(mechanism: str) -> bool:
    """True if the target module of ``mechanism`` is registered and can be imported.

    Parameters
    ----------
    mechanism : str
        A key of :data:`AUDIT_TARGETS`.

    Returns
    -------
    bool
        False for an unknown mechanism or a module that is not installed; an installed
        module that fails to import raises.
    """
    spec = AUDIT_TARGETS.get(mechanism)
    if spec is None:
        return False
    try:
        importlib.import_module(spec.path)
    except ModuleNotFoundError as exc:
        if exc.name != spec.path:  # the module exists but one of its imports is missing
            raise
        return False
    return True


def load_target(mechanism: str) -> AuditTarget:
    """The :class:`AuditTarget` module of a registered mechanism.

    Parameters
    ----------
    mechanism : str
        A key of :data:`AUDIT_TARGETS`.

    Returns
    -------
    AuditTarget
        The imported module.

    Raises
    ------
    InputError
        For an unknown mechanism (field ``mechanism``).
    TypeError
        If the module lacks a member of the protocol (a programming error).
    """
    spec = AUDIT_TARGETS.get(mechanism)
    if spec is None:
        raise InputError(f"must be one of {', '.join(AUDIT_TARGETS)}, got {mechanism!r}",
                         field="mechanism")
    module = importlib.import_module(spec.path)
    missing = [m for m in PROTOCOL_MEMBERS if not hasattr(module, m)]
    if missing or not isinstance(module, AuditTarget):
        raise TypeError(f"{spec.path} is not an AuditTarget: missing {', '.join(missing)}")
    return module


def number(params: Mapping[str, Any], key: str) -> float:
    """``params[key]`` as a finite float, or :class:`InputError` naming ``key``.

    Parameters
    ----------
    params : mapping
        Keyword parameters.
    key : str
        The one to read.

    Returns
    -------
    float

    Examples
    --------
    >>> number({"k": "2.5"}, "k")
    2.5
    """
    x = params[key]
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {x!r}", field=key) from None
    if not math.isfinite(v):
        raise InputError(f"must be finite, got {x!r}", field=key)
    return v



if TYPE_CHECKING:  # mypy checks every target module of this package against the protocol
    from core.audit import advising, dirichlet, exponential, gaussian, laplace, logistics

    _checked: tuple[AuditTarget, ...] = (laplace, exponential, dirichlet, advising, logistics,
                                         gaussian)
