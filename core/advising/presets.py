"""Ready-made advising set-ups: Table 3.5, the §5.6 layouts, Experiments 1–3, Tables 3.1–3.4.

The thesis gives the parameters (Table 3.5: 10 users, 12 servers, 10 tasks, rewards 2/0,
d = 0.7, b_give = b_ask = 30, 700 epochs, ε = 1, S = 1) but not the action sets, the
optimal server of each task, α, ξ or the number of seeds. The spec's reproduction
protocol (§5.6 [R]) fixes them:

* servers A..L; the optimal server of task s is ``core[s mod 3]`` with core = {A, B, C}
  (tasks 1, 4, 7, 10 → A; 2, 5, 8 → B; 3, 6, 9 → C), reward 2, every other server 0;
* layouts (four servers per agent, so every agent has every task's optimum):

  ``same``       every agent [A, B, C, D]                          (Exp. 1: none, traditional)
  ``sunflower``  agent j gets [A, B, C, petal(j mod 9)], petals D..L (Exp. 1: dp)
  ``mixed``      agents 1–4 [A, B, C, D]; agents 5–10 [A, B, C, E] … [A, B, C, J] (Exp. 2, 3)
  ``fig32``      Fig. 3.2's users a = {A,B,C,D}, b = {A,B,C,E}, c = {B,C,D,E}, d = {A,B,C,D}
  ``one-different``  Experiment 1's own layout, "each agent has one different action
                 (A(a₁) = {A,B,C,D}, A(a₂) = {A,B,C,E}, A(a₃) = {A,B,D,E}, …)": {A, B} plus
                 the 2-subsets of {C, D, E, F, G} in colex order — CD, CE, DE, CF, DF, EF,
                 CG, DG, EG, FG — so the thesis's three sets come first, no two agents share
                 a set (traditional advising has no pair) and two sets sharing an extra
                 server are case-4 neighbours (6 per agent). The optimum of every task is
                 A or B (``core`` = {A, B}), in every agent's set, so the "total knowledge
                 is the same" for every agent and as in ``same`` with the same rewards
                 (:func:`layout_rewards`).
  ``nested``     cases 2 and 3 of the mismatch: agents 1–3 [A, B, C], 4–7 [A, B, C, D],
                 8–10 [A, B, C, D, E]; a 4-server teacher of a 3-server student is case 2
                 (one more action), the reverse case 3, and so between 4 and 5 servers

* α = 0.5, ξ = 0.1, γ = 0, Q₀ = 0, uniform π₀; 20 seeds.

Every preset comes in two variants (see :mod:`core.advising.model`): ``"sound"``
(default: strict sensitivity S = 2, case-1 releases noised) and ``"thesis"`` (S = 1,
case-1 releases raw — the faithful reproduction).

Examples
--------
>>> s = preset("table35")
>>> (s.n_agents, s.n_servers, s.n_tasks, s.params.epochs, s.params.distance_threshold)
(10, 12, 10, 700, 0.7)
>>> [s.servers[k] for k in preset("exp1", strategy="dp").action_sets[1]]
['A', 'B', 'C', 'E']
>>> [a.label for a in experiment_arms("exp3")]
['no advice', 'dp eps=0.1', 'dp eps=0.4', 'dp eps=0.7', 'dp eps=1', 'dp eps=2']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core.advising.framework import q_update, squared_distance, teacher_view
from core.advising.model import (
    CASE_NAMES,
    AdvisingParams,
    AdvisingSetup,
    dataset_diff,
    neighbour_case,
)
from core.common.errors import InputError

__all__ = [
    "SERVER_LABELS",
    "LAYOUTS",
    "PRESETS",
    "EXPERIMENTS",
    "EXP1_LAYOUTS",
    "EXP3_EPSILONS",
    "layout_rewards",
    "TABLE_3_5",
    "core_rewards",
    "layout_action_sets",
    "table35_params",
    "preset",
    "ExperimentArm",
    "experiment_arms",
    "WorkedExample",
    "worked_example",
]

SERVER_LABELS = tuple("ABCDEFGHIJKL")
LAYOUTS = ("same", "sunflower", "mixed", "fig32", "one-different", "nested")
#: Layouts Experiment 1's DP arm can use (``experiment_arms("exp1", layout=…)``).
EXP1_LAYOUTS = ("sunflower", "one-different")
EXPERIMENTS = ("exp1", "exp2", "exp3")
PRESETS = ("table35", "exp1", "exp2", "exp3") + LAYOUTS
EXP3_EPSILONS = (0.1, 0.4, 0.7, 1.0, 2.0)

#: Table 3.5 verbatim (blank cells = "same as Experiment 1"; Exp. 3 sweeps ε in (0, 2]).
TABLE_3_5: dict[str, Any] = {
    "n_users": 10, "n_servers": 12, "n_tasks": 10, "epsilon": {"exp1": 1.0, "exp2": 1.0,
                                                                "exp3": "(0, 2)"},
    "sensitivity": 1.0, "reward": (2.0, 0.0), "distance_threshold": 0.7, "b_give": 30,
    "b_ask": 30, "epochs": 700,
}

_PRESET_TEXT = {
    "table35": "Table 3.5 parameters on the 'mixed' layout (DP advising, epsilon = 1)",
    "exp1": "Experiment 1: 'same' layout for no advice and traditional advising, "
            "'sunflower' for DP advising (each agent one different server)",
    "exp2": "Experiment 2: 'mixed' layout (4 agents share a set, 6 differ by one server)",
    "exp3": "Experiment 3: 'mixed' layout, DP advising with epsilon swept",
    "same": "every agent has servers A, B, C, D",
    "sunflower": "agent j has A, B, C and petal D..L (j mod 9)",
    "mixed": "agents 1-4 have A, B, C, D; agents 5-10 have A, B, C and one of E..J",
    "fig32": "Fig. 3.2: users a, b, c, d with a = {A,B,C,D} and c = {B,C,D,E}",
    "one-different": "Experiment 1's layout: every agent {A, B} + two of C..G, each set "
                     "different ({A,B,C,D}, {A,B,C,E}, {A,B,D,E}, ...); optima on A and B",
    "nested": "cases 2 and 3: agents 1-3 have A, B, C; 4-7 add D; 8-10 add D and E",
}


def core_rewards(n_tasks: int = 10, n_servers: int = 12, *, core: tuple[int, ...] = (0, 1, 2),
                 high: float = 2.0, low: float = 0.0) -> np.ndarray:
    """R[task, server]: ``high`` for the optimal server core[task mod len(core)], else ``low``.

    Parameters
    ----------
    n_tasks, n_servers : int
        The table's size.
    core : tuple of int
        The optimal servers, in turn.
    high, low : float
        The rewards.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> core_rewards(4, 5).tolist()[:2]
    [[2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0]]
    """
    r = np.full((n_tasks, n_servers), float(low))
    for s in range(n_tasks):
        r[s, core[s % len(core)]] = float(high)
    return r


def layout_action_sets(name: str, n_agents: int = 10) -> list[list[int]]:
    """Server indices per agent for a §5.6 layout (``fig32`` has exactly 4 agents).

    Parameters
    ----------
    name : str
        ``"same"``, ``"sunflower"``, ``"mixed"`` or ``"fig32"``.
    n_agents : int
        Agents.

    Returns
    -------
    list of list of int

    Raises
    ------
    InputError
        For an unknown layout.

    Examples
    --------
    >>> layout_action_sets("mixed")[3:6]
    [[0, 1, 2, 3], [0, 1, 2, 4], [0, 1, 2, 5]]
    >>> layout_action_sets("sunflower")[9]
    [0, 1, 2, 3]
    >>> [''.join(SERVER_LABELS[k] for k in a) for a in layout_action_sets("one-different")[:4]]
    ['ABCD', 'ABCE', 'ABDE', 'ABCF']
    >>> [len(a) for a in layout_action_sets("nested")]
    [3, 3, 3, 4, 4, 4, 4, 5, 5, 5]
    """
    if name == "same":
        return [[0, 1, 2, 3] for _ in range(n_agents)]
    if name == "sunflower":
        return [[0, 1, 2, 3 + (j % 9)] for j in range(n_agents)]
    if name == "mixed":
        return [[0, 1, 2, 3] if j < 4 else [0, 1, 2, 4 + (j - 4) % 8] for j in range(n_agents)]
    if name == "fig32":
        return [[0, 1, 2, 3], [0, 1, 2, 4], [1, 2, 3, 4], [0, 1, 2, 3]]
    if name == "one-different":
        # colex order of the 2-subsets of servers 2..11 (C..L): CD, CE, DE, CF, DF, EF, …
        pairs = [(c, d) for d in range(3, 12) for c in range(2, d)]
        return [[0, 1, *pairs[j % len(pairs)]] for j in range(n_agents)]
    if name == "nested":
        cut1, cut2 = round(0.3 * n_agents), round(0.7 * n_agents)
        return [[0, 1, 2] if j < cut1 else [0, 1, 2, 3] if j < cut2 else [0, 1, 2, 3, 4]
                for j in range(n_agents)]
    raise InputError(f"must be one of {', '.join(LAYOUTS)}, got {name!r}", field="layout")


def layout_rewards(name: str, n_tasks: int = 10, n_servers: int = 12) -> np.ndarray:
    """The reward table of a layout: each task's optimal server is one that *every* agent
    of the layout has — A, B or C in turn, A or B for ``one-different`` (whose sets share
    only A and B).

    Parameters
    ----------
    name : str
        A layout of :data:`LAYOUTS` (not ``fig32``, which has its own).
    n_tasks, n_servers : int
        The table's size.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> layout_rewards("one-different", 3, 5).tolist()
    [[2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0]]
    """
    return core_rewards(n_tasks, n_servers, core=(0, 1) if name == "one-different" else
                        (0, 1, 2))


def table35_params(variant: str = "sound", **overrides: Any) -> AdvisingParams:
    """Table 3.5 (ε = 1, d = 0.7, budgets 30, 700 epochs) + spec §5.6 constants.

    Parameters
    ----------
    variant : str
        ``"sound"`` or ``"thesis"``.
    **overrides
        Other :class:`AdvisingParams` fields.

    Returns
    -------
    AdvisingParams

    Examples
    --------
    >>> p = table35_params("thesis")
    >>> p.epsilon, p.sensitivity, p.ask_budget, p.alpha, p.xi
    (1.0, 1.0, 30, 0.5, 0.1)
    """
    base: dict[str, Any] = {"epsilon": 1.0, "distance_threshold": 0.7, "ask_budget": 30,
                            "give_budget": 30, "epochs": 700, "alpha": 0.5, "xi": 0.1,
                            "gamma": 0.0, "q0": 0.0}
    base.update(overrides)
    return AdvisingParams.for_variant(variant, **base)


def _layout_for(name: str, strategy: str) -> str:
    if name in LAYOUTS:
        return name
    if name == "exp1":
        return "sunflower" if strategy == "dp" else "same"
    return "mixed"  # table35, exp2, exp3


def preset(name: str = "table35", *, variant: str = "sound", strategy: str | None = None,
           layout: str | None = None, rewards_of: str | None = None,
           **overrides: Any) -> AdvisingSetup:
    """A named set-up; ``overrides`` are :class:`AdvisingParams` fields (``epsilon=0.1``…).

    ``exp1`` picks its layout from the strategy (DP → sunflower, else same), as the
    thesis's Experiment 1 does. Without ``strategy`` every preset advises with ``dp``.

    Parameters
    ----------
    name : str
        A preset (``table35``, ``exp1``, ``exp2``, ``exp3``, ``mixed``, ``fig32``, …).
    variant : str
        ``"sound"`` or ``"thesis"``.
    strategy : str, optional
        ``"none"``, ``"traditional"`` or ``"dp"``.
    layout : str, optional
        Use this layout instead of the preset's own (not ``fig32``).
    rewards_of : str, optional
        Use the reward table of this layout (:func:`layout_rewards`; default: the layout's
        own) — Experiment 1 gives its ``same`` arms the rewards of the DP arm's layout.
    **overrides
        :class:`AdvisingParams` fields.

    Returns
    -------
    AdvisingSetup

    Raises
    ------
    InputError
        For an unknown preset or parameter.

    Examples
    --------
    >>> preset("exp1", strategy="none").name, preset("exp1", strategy="dp").description[:12]
    ('exp1', 'Experiment 1')
    >>> preset("fig32").agents
    ('a', 'b', 'c', 'd')
    """
    if name not in PRESETS:
        raise InputError(f"must be one of {', '.join(PRESETS)}, got {name!r}", field="preset")
    strategy = strategy or overrides.pop("strategy", None) or "dp"
    params = table35_params(variant, strategy=strategy, **overrides)
    own = _layout_for(name, strategy)
    if layout is None:
        layout = own
    elif layout not in LAYOUTS or layout == "fig32" or own == "fig32":
        raise InputError(f"must be one of {', '.join(x for x in LAYOUTS if x != 'fig32')}"
                         f" (and the preset not fig32), got {layout!r}", field="layout")
    if layout == "fig32":
        servers = SERVER_LABELS[:5]
        tasks: tuple[str, ...] = ("1", "2", "3", "4")
        agents: tuple[str, ...] = ("a", "b", "c", "d")
        # Every user has B and C: task 1, 3 -> B, task 2, 4 -> C.
        rewards = core_rewards(4, 5, core=(1, 2))
    else:
        servers = SERVER_LABELS
        tasks = tuple(str(t + 1) for t in range(10))
        agents = tuple(f"u{j + 1}" for j in range(10))
        rewards = layout_rewards(rewards_of or layout, 10, 12)
    sets = layout_action_sets(layout, len(agents))
    text = _PRESET_TEXT[name]
    if rewards_of is not None and rewards_of != layout:
        text += f" (rewards of {rewards_of})"
    text += "" if layout == name else f" [layout: {layout}]"
    return AdvisingSetup(servers=servers, tasks=tasks, agents=agents,
                         action_sets=tuple(tuple(a) for a in sets), rewards=rewards,
                         params=params, name=name, description=text)


@dataclass(frozen=True)
class ExperimentArm:
    """One curve of an experiment: a label and the set-up (strategy, ε, layout) it runs."""

    label: str
    setup: AdvisingSetup


def experiment_arms(name: str, *, variant: str = "sound",
                    epsilons: tuple[float, ...] = EXP3_EPSILONS, layout: str | None = None,
                    **overrides: Any) -> list[ExperimentArm]:
    """The arms of Experiment 1, 2 or 3 (one-click set-ups).

    ``exp1`` and ``exp2``: no advice, traditional advising, DP advising (ε = 1).
    ``exp3``: no advice (the base of Fig. 3.9), then DP advising at each ε.

    Parameters
    ----------
    name : str
        ``"exp1"``, ``"exp2"`` or ``"exp3"``.
    variant : str
        ``"sound"`` or ``"thesis"``.
    epsilons : tuple of float
        The ε of ``exp3``'s DP arms.
    layout : str, optional
        ``exp1``: the DP arm's layout (``sunflower``, the default, or ``one-different``, the
        thesis's own); the no-advice and traditional arms keep ``same`` with the DP arm's
        rewards, so every arm has the same knowledge. ``exp2``/``exp3``: every arm's layout
        (default ``mixed``; e.g. ``nested`` for cases 2 and 3).
    **overrides
        :class:`AdvisingParams` fields for every arm.

    Returns
    -------
    list of ExperimentArm

    Examples
    --------
    >>> [(a.label, a.setup.description.split('[layout: ')[-1]) for a in experiment_arms("exp1")]
    [('no advice', 'same]'), ('traditional', 'same]'), ('dp', 'sunflower]')]
    >>> [a.setup.description.split('[layout: ')[-1]
    ...  for a in experiment_arms("exp1", layout="one-different")]
    ['same]', 'same]', 'one-different]']
    >>> experiment_arms("exp1", layout="one-different")[0].setup.description[-41:]
    '(rewards of one-different) [layout: same]'

    """
    if name not in EXPERIMENTS:
        raise InputError(f"must be one of {', '.join(EXPERIMENTS)}, got {name!r}",
                         field="experiment")
    if name == "exp1":
        dp_layout = layout or "sunflower"
        if dp_layout not in EXP1_LAYOUTS:
            raise InputError(f"Experiment 1's DP arm takes one of {', '.join(EXP1_LAYOUTS)}, "
                             f"got {dp_layout!r}", field="layout")
        kept = {} if dp_layout == "sunflower" else {"layout": "same", "rewards_of": dp_layout}
        return [ExperimentArm("no advice", preset(name, variant=variant, strategy="none",
                                                  **kept, **overrides)),
                ExperimentArm("traditional", preset(name, variant=variant,
                                                    strategy="traditional", **kept,
                                                    **overrides)),
                ExperimentArm("dp", preset(name, variant=variant, strategy="dp",
                                           layout=dp_layout, **overrides))]
    if name == "exp2":
        return [ExperimentArm(label, preset(name, variant=variant, strategy=strategy,
                                            layout=layout, **overrides))
                for label, strategy in (("no advice", "none"), ("traditional", "traditional"),
                                        ("dp", "dp"))]
    if not epsilons:
        raise InputError("needs at least one value", field="epsilons")
    arms = [ExperimentArm("no advice", preset(name, variant=variant, strategy="none",
                                              layout=layout, **overrides))]
    for eps in epsilons:
        arms.append(ExperimentArm(f"dp eps={float(eps):g}",
                                  preset(name, variant=variant, strategy="dp", layout=layout,
                                         **{**overrides, "epsilon": eps})))
    return arms


# ---------------------------------------------------------------------------- Tables 3.1–3.4
@dataclass(frozen=True)
class WorkedExample:
    """Tables 3.1–3.4 instantiated (spec §4 [R]): two converged Q-datasets that are neighbours.

    ``tables`` maps "3.1" … "3.4" to rows (action, symbolic entry, value).
    """

    teacher_actions: tuple[str, ...]
    student_actions: tuple[str, ...]
    rewards: dict[str, float]
    repeats: int
    alpha: float
    q_teacher: tuple[float, ...]
    q_student: tuple[float, ...]
    teacher_only: tuple[str, ...]
    student_only: tuple[str, ...]
    case: int
    case_name: str
    q_view: tuple[float, ...]
    distance: float
    threshold: float
    advice: bool
    tables: dict[str, tuple[tuple[str, str, float], ...]]

    def partial(self, t: int, reward: float = 2.0) -> float:
        """Q after ``t`` forced selections from Q₀ = 0 (Lemma 3.1): r(1 − (1−α)^t)."""
        return reward * (1.0 - (1.0 - self.alpha) ** t)


def worked_example(*, alpha: float = 0.5, repeats: int = 60,
                   threshold: float = 0.7) -> WorkedExample:
    """Force-select every action ``repeats`` times (no policy), as spec §4 prescribes.

    Agent i has A_i = [A, B, C, D], agent j has A_j = [A, B, C, E]; R(s, A) = 2, else 0.

    Parameters
    ----------
    alpha : float
        The learning rate.
    repeats : int
        Selections of each action.
    threshold : float
        The distance threshold d.

    Returns
    -------
    WorkedExample

    Examples
    --------
    >>> w = worked_example()
    >>> w.q_teacher, w.q_student, w.teacher_only, w.student_only, w.case
    ((2.0, 0.0, 0.0, 0.0), (2.0, 0.0, 0.0, 0.0), ('D',), ('E',), 4)
    >>> w.q_view, w.distance, w.advice
    ((2.0, 0.0, 0.0, 0.0), 0.0, False)
    """
    a_i, a_j = ("A", "B", "C", "D"), ("A", "B", "C", "E")
    rewards = {"A": 2.0, "B": 0.0, "C": 0.0, "D": 0.0, "E": 0.0}

    def converge(actions: tuple[str, ...]) -> tuple[float, ...]:
        q = [0.0] * len(actions)
        for _ in range(repeats):
            for k, a in enumerate(actions):
                q[k] = q_update(q[k], rewards[a], alpha=alpha)
        return tuple(q)

    qi, qj = converge(a_i), converge(a_j)
    index = {a: k for k, a in enumerate("ABCDE")}
    ti, tj = [index[a] for a in a_i], [index[a] for a in a_j]
    case = neighbour_case(ti, tj)
    view, _ = teacher_view(qi, [0.25] * 4, ti, tj)
    dist = squared_distance(view, qj)
    only_i, only_j = dataset_diff(a_i, a_j)

    def table(actions: tuple[str, ...], q: tuple[float, ...], sym: str) -> tuple[
            tuple[str, str, float], ...]:
        return tuple((a, f"{sym}(s, {a})", float(v)) for a, v in zip(actions, q))

    tables = {"3.1": table(a_i, qi, "Q"), "3.2": table(a_j, qj, "Q"),
              "3.3": table(a_i, qi, "r"), "3.4": table(a_j, qj, "r")}
    return WorkedExample(teacher_actions=a_i, student_actions=a_j, rewards=rewards,
                         repeats=repeats, alpha=alpha, q_teacher=qi, q_student=qj,
                         teacher_only=tuple(only_i), student_only=tuple(only_j), case=case,
                         case_name=CASE_NAMES[case], q_view=tuple(float(x) for x in view),
                         distance=dist, threshold=threshold, advice=dist > threshold,
                         tables=tables)
