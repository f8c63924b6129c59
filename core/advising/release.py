"""One advising run as a user asks for it: :class:`AdviseParameters` and :func:`advise_release`.

``advise …`` on the command line and the DP Advising tab's single run both build an
:class:`AdviseParameters` — the set-up (with its :class:`~core.advising.model.AdvisingParams`,
validated when the set-up was made), the seed (``None``: release mode, OpenDP noise) and the
δ of the advanced-composition and RDP totals — and run it through :func:`advise_release`;
both record the result with :func:`core.project.recording.advise_run_record`. Each check is
written once: the set-up and its parameters in :mod:`core.advising.model`, the seed and δ
here, every :class:`~core.common.errors.InputError` naming its field.

Examples
--------
>>> from core.advising.presets import preset
>>> p = AdviseParameters(preset("exp2", epochs=20), seed=3)
>>> r = advise_release(p)
>>> r.mode, r.seed, r.epochs
('experiment', 3, 20)
>>> AdviseParameters.from_dict(p.to_dict()) == p
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core.advising.accounting import DEFAULT_DELTA
from core.advising.framework import AdvisingResult, run_advising
from core.advising.model import AdvisingSetup
from core.common.errors import InputError
from core.common.progress import Cancelled, Progress, no_progress
from core.common.validation import check_seed
from core.privacy.composition import check_delta

__all__ = ["AdviseParameters", "advise_release"]

#: The keys of :meth:`AdviseParameters.to_dict`, in their order.
_KEYS = ("setup", "seed", "delta")


@dataclass(frozen=True)
class AdviseParameters:
    """What one advising run means (``advise …``, the DP Advising tab's single run).

    Parameters
    ----------
    setup : AdvisingSetup
        Agents, servers, tasks, rewards and the algorithm's parameters (strategy, ε, budgets,
        epochs, …), validated when it was made.
    seed : int or None
        A seed >= 0: a reproducible seeded experiment. ``None``: release mode (OpenDP
        Laplace noise, OS-seeded sampling).
    delta : float
        δ in (0, 1) of the advanced-composition and RDP totals (the noisy releases are
        pure ε-DP; δ only enters those totals).
    """

    setup: AdvisingSetup
    seed: int | None = None
    delta: float = DEFAULT_DELTA

    def __post_init__(self) -> None:
        if not isinstance(self.setup, AdvisingSetup):
            raise InputError("must be an advising set-up", field="setup")
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "delta", check_delta(self.delta))

    @property
    def seeded(self) -> bool:
        """True for a seeded experiment, False for release mode."""
        return self.seed is not None

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: the set-up's file form, the seed (or null) and δ."""
        return {"setup": self.setup.to_dict(), "seed": self.seed, "delta": self.delta}

    @classmethod
    def from_dict(cls, data: Any) -> "AdviseParameters":
        """The parameters :meth:`to_dict` wrote (δ and the seed may be left out)."""
        if not isinstance(data, Mapping):
            raise InputError("must be an object of parameters", field="params")
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise InputError(f"unknown parameter {unknown[0]!r}", field="params")
        if "setup" not in data:
            raise InputError("required", field="setup")
        setup = data["setup"]
        if not isinstance(setup, AdvisingSetup):
            setup = AdvisingSetup.from_dict(setup)
        return cls(setup, seed=data.get("seed"), delta=data.get("delta", DEFAULT_DELTA))


def advise_release(params: AdviseParameters, progress: Progress | None = None,
                   cancelled: Callable[[], bool] | None = None, *,
                   on_epoch: Callable[[int, float, int], None] | None = None
                   ) -> AdvisingResult:
    """Run one advising experiment or release: the one entry point of ``advise``.

    The window runs it in its worker and ``advise …`` calls it; both record its result with
    :func:`core.project.recording.advise_run_record` of the same ``params``.

    Parameters
    ----------
    params : AdviseParameters
        The set-up, the seed (None: release mode) and δ.
    progress : callable, optional
        ``progress(fraction, message)`` once per epoch; may raise
        :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled once per epoch; True stops the run by raising
        :class:`core.common.progress.Cancelled`.
    on_epoch : callable, optional
        ``on_epoch(epoch, convergence_ratio, advice_count)`` after each epoch (live plots).

    Returns
    -------
    AdvisingResult
        With the per-release log (what :meth:`AdvisingResult.ledger` and the run record's
        ledger entries need).
    """
    return run_advising(params.setup, rng=params.seed, delta=params.delta, detail=True,
                        progress=_polling(progress, cancelled), on_epoch=on_epoch)


def _polling(progress: Progress | None, cancelled: Callable[[], bool] | None) -> Progress:
    """``progress`` (or nothing) that first raises Cancelled once ``cancelled()`` is True."""
    report = progress if progress is not None else no_progress
    if cancelled is None:
        return report

    def polled(fraction: float, message: str = "") -> None:
        if cancelled():
            raise Cancelled()
        report(fraction, message)

    return polled
