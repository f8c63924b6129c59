"""The Model privacy workspace's worker functions (run in its TaskRunner, Qt-free; a network
victim on JAX through :mod:`gui.modelprivacy.network_runner`)."""

from __future__ import annotations

from typing import Any

from gui.modelprivacy.network_runner import networks_for, victim_kind

__all__ = ["release", "compare", "ATTACK_MODES", "ATTACK_PARAMETERS",
           "POPULATION_MODELS"]

#: The workspace's attack choices: the single-victim shadow study (recorded, as before),
#: the population study (LiRA online/offline, loss, shadow on the same victims) and the
#: canary audit.
ATTACK_MODES = {"shadow": "shadow model (one victim, recorded)",
                "population": "LiRA + loss + shadow (8 victims)",
                "canary": "canary audit of the training (ε_lb)"}
POPULATION_MODELS = 8
#: What each attack choice sets of :class:`core.modelprivacy.release.MiaParameters`: the
#: population study runs every attack on 8 victims; the canary audit uses as many canaries
#: as the data leave (at most 500).
ATTACK_PARAMETERS: dict[str, dict[str, Any]] = {
    "shadow": {"attack": "shadow"},
    "population": {"attack": "all", "models": POPULATION_MODELS},
    "canary": {"attack": "canary", "canaries": None}}


def _data(data_spec: str, mdp: Any, seed: int | None) -> Any:
    from core.modelprivacy.data import load_dataset, mdp_dataset

    return mdp_dataset(mdp, seed=seed or 0) if mdp is not None else load_dataset(data_spec)


def release(params: Any, mdp: Any, *, progress: Any) -> Any:
    """:func:`core.modelprivacy.release.mia_release` of ``params`` (on the project's MDP
    ``mdp`` as next-state records, when given). A network victim of the population study
    or the canary audit polls the cancel once per epoch (the progress callback raises
    Cancelled; the study itself reports once per model)."""
    from core.modelprivacy import mia_release

    data = _data(params.data, mdp, params.seed) if mdp is not None else None
    if params.attack == "shadow":
        return mia_release(params, progress, data=data, networks=networks_for(params.victim))
    last = [0.0]

    def tracked(fraction: float, message: str = "") -> None:
        last[0] = fraction
        progress(fraction, message)

    def poll() -> bool:
        progress(last[0])        # raises Cancelled once cancel was asked (shows nothing new)
        return False

    def network_kind(victim: str, data: Any, **kw: Any) -> Any:
        return victim_kind(victim, data, cancelled=poll, **kw)

    return mia_release(params, tracked, data=data, network_kind=network_kind)


def compare(params: Any, mdp: Any, *, progress: Any) -> Any:
    """:func:`core.modelprivacy.release.mia_compare_release` of ``params`` (Compare defenses
    or Compare victims; on the project's MDP ``mdp`` as next-state records, when given),
    with the study's network victim when it is one."""
    from core.modelprivacy import mia_compare_release

    s = params.study
    data = _data(s.data, mdp, s.seed) if mdp is not None else None
    return mia_compare_release(params, progress, data=data, networks=networks_for(s.victim))
