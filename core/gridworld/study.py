"""DP-DRL as a many-seed study: NRR with its interval, per-run convergence, and
an ε range where the mechanism's choice actually varies.

:func:`drl_arm` is one run, exactly the command ``drl --random SIZE --seed SEED --attack``
(``--defense dpdrl --epsilon E`` for a defended arm; ``--population``/``--generations`` as
the study's GA): the seed draws the random map (the 12×11 stand-in is fixed), drives the
exploration, the mechanism's roulette wheel and the evaluation, and ``seed + 1`` drives the
attack. Arms that share a seed share the map and every stream (paired).

Every run reports whether it converged (:data:`core.gridworld.dpdrl.CONVERGENCE_CRITERION`):
``nrr`` is over every run, ``nrr_converged`` only over runs that converged (NaN otherwise, so
a paired comparison keeps only the seeds where both arms converged) and ``nrr_failed`` only
over those that did not — the privacy effect apart from training failure.

Examples
--------
>>> r = drl_arm(1, size="7x7", epsilon=4.0, episodes=60, max_steps=60, population=6,
...             generations=2)
>>> sorted(r)[1:5]
['choice_p_max', 'converged', 'eval_success', 'grr']
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core.gridworld.attack import AttackSetup, recover_map
from core.gridworld.dpdrl import DrlSetup, choice_bounds, train_agent
from core.gridworld.maps import GridMap, example_12x11, random_map
from core.study.claims import Claim
from core.study.runner import Arm, Study

__all__ = ["drl_arm", "study_map", "drl_claims_study", "drl_claims", "STUDY_EPSILONS",
           "THESIS_RANGE", "EQUIVALENCE_MARGIN", "arm_name", "choice_table"]

#: the study's ε: the thesis's range ends (0.1, 1) and two where the choice is far from
#: uniform (p_max 0.51 and 0.998, see :func:`core.gridworld.dpdrl.choice_bounds`)
STUDY_EPSILONS = (0.1, 1.0, 4.0, 16.0)
#: the thesis's ε range (Table 5.1): at S = N − 1 the choice there is near-uniform
THESIS_RANGE = (0.1, 1.0)
#: the equivalence margin of NRR (TOST): half the thesis's ε effect (NRR fell by 8–16 pp from
#: ε = 1 to 0.1), about one cell of a 7×7 map's 23 inferred cells
EQUIVALENCE_MARGIN = 0.05


def study_map(size: str, seed: int) -> GridMap:
    """``"12x11"``: the fixed stand-in (A19); ``"RxC"`` or ``"R"``: the random map that
    ``drl --random SIZE --seed SEED`` draws."""
    if size == "12x11":
        return example_12x11()
    parts = [int(v) for v in size.lower().split("x")]
    rows, cols = (parts * 2)[:2] if len(parts) == 1 else parts
    return random_map(rows, cols, np.random.default_rng(seed))


def drl_arm(seed: int, *, size: str = "7x7", defense: str = "dpdrl",
            epsilon: float | None = None, preset: str = "strict", episodes: int = 1500,
            max_steps: int = 200, population: int = 50, generations: int = 100
            ) -> dict[str, float]:
    """One training run and its attack.

    Returns ``nrr``, ``grr``, ``baseline_nrr`` (a random valid map's), ``converged`` (0/1),
    ``eval_success``, ``nrr_converged`` / ``nrr_failed`` (NRR or NaN), ``success_final``
    (training's last 10 %) and, defended, ``choice_p_max`` (the mean over obfuscated steps
    of the choice's largest probability; 1/8 is uniform).
    """
    grid = study_map(size, seed)
    dp = defense == "dpdrl"
    setup = DrlSetup(defense=defense, preset=preset if dp else "strict",
                     epsilon=epsilon if dp else None, episodes=episodes, max_steps=max_steps)
    res = train_agent(grid, setup, seed=seed)
    att = recover_map(grid, res.policy(), AttackSetup(population=population,
                                                      generations=generations),
                      seed=seed + 1)
    conv = res.convergence.converged
    out = {"nrr": att.nrr, "grr": att.grr, "baseline_nrr": att.baseline_nrr,
           "converged": float(conv), "eval_success": res.convergence.eval_success,
           "nrr_converged": att.nrr if conv else math.nan,
           "nrr_failed": math.nan if conv else att.nrr,
           "success_final": float(res.reached[res.final_slice].mean())}
    if dp:
        out["choice_p_max"] = (math.nan if res.choice_p_max_mean is None
                               else res.choice_p_max_mean)
    return out


def arm_name(epsilon: float | None) -> str:
    """``"none"`` or ``"eps=0.1"``."""
    return "none" if epsilon is None else f"eps={epsilon:g}"


def drl_claims_study(sizes: Sequence[str] = ("7x7", "9x9"), *,
                     epsilons: Sequence[float] = STUDY_EPSILONS, n: int = 20,
                     master_seed: int | None = 2029, **params: float) -> Study:
    """No defense and DP-DRL (strict) at each ε, on each map size, paired by seed."""
    arms = [Arm("none", drl_arm, {"defense": "none", **params})]
    arms += [Arm(arm_name(e), drl_arm, {"defense": "dpdrl", "epsilon": float(e), **params})
             for e in epsilons]
    return Study("DP-DRL map recovery (one map, exploration and mechanism stream per seed)",
                 arms, n=n, master_seed=master_seed, points=[{"size": s} for s in sizes])


def drl_claims(sizes: Sequence[str] = ("7x7", "9x9"),
               epsilons: Sequence[float] = STUDY_EPSILONS) -> list[Claim]:
    """Per map: the defense lowers NRR (all runs, and converged runs only); the thesis's
    "NRR falls as ε falls" across the range where the choice varies (smallest against the
    largest ε, all runs and converged runs); DP-DRL costs convergence; and, as TOST
    equivalences within ±:data:`EQUIVALENCE_MARGIN`, "ε makes no difference" between the
    smallest and the largest ε and (when ε = 1 is an arm) within the thesis's range."""
    lo, hi = arm_name(min(epsilons)), arm_name(max(epsilons))
    out = []
    for i, s in enumerate(sizes):
        out += [
            Claim(f"{s}: DP-DRL at ε = {min(epsilons):g} lowers NRR (all runs)", "nrr", lo,
                  "none", "<", point=i),
            Claim(f"{s}: DP-DRL at ε = {min(epsilons):g} lowers NRR (converged runs)",
                  "nrr_converged", lo, "none", "<", point=i),
            Claim(f"{s}: NRR at ε = {min(epsilons):g} below ε = {max(epsilons):g} (all runs)",
                  "nrr", lo, hi, "<", point=i),
            Claim(f"{s}: NRR at ε = {min(epsilons):g} below ε = {max(epsilons):g} "
                  "(converged runs)", "nrr_converged", lo, hi, "<", point=i),
            Claim(f"{s}: DP-DRL at ε = {min(epsilons):g} converges less often than no "
                  "defense", "converged", lo, "none", "<", point=i),
            Claim(f"{s}: NRR at ε = {min(epsilons):g} equals ε = {max(epsilons):g} within "
                  f"±{EQUIVALENCE_MARGIN:g} (all runs)", "nrr", lo, hi, "=", point=i,
                  margin=EQUIVALENCE_MARGIN),
        ]
        if 1.0 in epsilons and min(epsilons) < 1.0:
            out.append(Claim(f"{s}: NRR at ε = {min(epsilons):g} equals ε = 1 within "
                             f"±{EQUIVALENCE_MARGIN:g} (the thesis's range, all runs)", "nrr",
                             lo, arm_name(1.0), "=", point=i, margin=EQUIVALENCE_MARGIN))
    return out


def choice_table(epsilons: Sequence[float] = (0.1, 0.4, 0.7, 1.0, 2.0, 4.0, 8.0, 16.0, 100.0)
                 ) -> str:
    """Markdown: per ε, the strict choice's largest probability ratio and the extreme
    probabilities of one bit (every N: S = N − 1)."""
    lines = ["| ε | max ratio e^(ε/2) | smallest p of a bit | largest p of a bit |",
             "|---|---|---|---|"]
    for e in epsilons:
        r, lo, hi = choice_bounds(float(e))
        rt = "∞" if math.isinf(r) else f"{r:.4g}"
        lines.append(f"| {e:g} | {rt} | {lo:.4f} | {hi:.4f} |")
    lines.append("")
    lines.append("Uniform is 1/8 = 0.125 for every bit.")
    return "\n".join(lines)
