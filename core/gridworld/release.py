"""What a DP-DRL run is asked (``drl``, the Private agents tab's Train), and the one entry point
that runs it: :class:`DrlParameters`, validated once, and :func:`drl_release`.

The command line builds the parameters from its flags, the window from its widgets; both
call :func:`drl_release` with the map and record the run with
:func:`core.project.recording.drl_run_record`. The learner is a runtime input: the tables
(:func:`core.gridworld.dpdrl.train_agent`) by default, or the DQN of the optional deep extra
(``core.deep.dqn.train_dqn``, passed by the callers allowed to import it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from core.common.jsonable import jsonable_dict
from core.common.progress import Progress, no_progress, sub_progress
from core.common.validation import check_choice, check_flag, check_record_params, check_seed
from core.gridworld.attack import AttackResult, AttackSetup, recover_map
from core.gridworld.dpdrl import DrlResult, DrlSetup, train_agent
from core.gridworld.maps import GridMap, check_map

if TYPE_CHECKING:
    from core.gridworld.experiments import SweepRow

__all__ = ["DrlParameters", "DrlRun", "drl_release", "DRL_AGENTS", "DrlTableParameters",
           "drl_table_release"]

#: the learners: Q-tables, or a DQN (the optional deep extra)
DRL_AGENTS = ("tabular", "dqn")

#: the keys of :meth:`DrlParameters.to_dict`, in their order
_KEYS = ("defense", "preset", "epsilon", "episodes", "max_steps", "attack", "population",
         "generations", "seeded", "seed", "agent")


@dataclass(frozen=True)
class DrlParameters:
    """One DP-DRL run: the defense, the training, the learner, the map-recovery attack and
    the seed (the map is a runtime input of :func:`drl_release`).

    Validated once, here, in the order the command line has always reported: the training
    and defense (:meth:`DrlSetup.validated`: ``episodes``, ``max_steps``, ``defense``,
    ``preset``, ``epsilon``), ``agent``, ``attack``, then, when the attack is asked, its
    ``population`` and ``generations`` (:meth:`AttackSetup.validated`), then ``seed``.
    Every :class:`InputError` names its field. The strict preset's ε is filled in (1 when
    not given); ``seed`` None is release mode.

    Examples
    --------
    >>> p = DrlParameters(defense="dpdrl", episodes=50, seed=1)
    >>> p.epsilon, DrlParameters.from_dict(p.to_dict()) == p
    (1.0, True)
    >>> DrlParameters(episodes=0)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: episodes: must be a whole number >= 1, got 0
    """

    defense: str = "none"
    preset: str = "strict"
    epsilon: float | None = None
    episodes: int = 1500
    max_steps: int = 200
    agent: str = "tabular"
    attack: bool = False
    population: int = 100
    generations: int = 200
    seed: int | None = None

    def __post_init__(self) -> None:
        setup = DrlSetup(defense=self.defense, preset=self.preset, epsilon=self.epsilon,
                         episodes=self.episodes, max_steps=self.max_steps).validated()
        object.__setattr__(self, "epsilon", setup.epsilon)
        object.__setattr__(self, "episodes", int(self.episodes))
        object.__setattr__(self, "max_steps", int(self.max_steps))
        check_choice(self.agent, DRL_AGENTS, "agent")
        check_flag(self.attack, "attack")
        if self.attack:
            self.attack_setup().validated()
            object.__setattr__(self, "population", int(self.population))
            object.__setattr__(self, "generations", int(self.generations))
        object.__setattr__(self, "seed", check_seed(self.seed))

    def setup(self) -> DrlSetup:
        """The learner's :class:`DrlSetup` (its other fields at their defaults)."""
        return DrlSetup(defense=self.defense, preset=self.preset, epsilon=self.epsilon,
                        episodes=self.episodes, max_steps=self.max_steps)

    def attack_setup(self) -> AttackSetup:
        """The GA's :class:`AttackSetup` (population and generations; the rest default)."""
        return AttackSetup(population=self.population, generations=self.generations)

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: every field, and ``seeded`` (a seeded experiment). A run record's
        ``params`` keeps these keys but ``population`` and ``generations``, with the map's
        ``grid`` (:func:`core.project.recording.drl_run_record`)."""
        return jsonable_dict({"defense": self.defense, "preset": self.preset,
                              "epsilon": self.epsilon, "episodes": self.episodes,
                              "max_steps": self.max_steps, "attack": self.attack,
                              "population": self.population, "generations": self.generations,
                              "seeded": self.seed is not None, "seed": self.seed,
                              "agent": self.agent})

    @classmethod
    def from_dict(cls, data: Any) -> "DrlParameters":
        """The parameters of :meth:`to_dict`, or of a ``drl`` run record's ``params`` (its
        ``grid`` is ignored: the map is not a parameter; a missing key takes its default).

        Parameters
        ----------
        data : mapping
            The keys of :meth:`to_dict`; ``seeded``, when given, must agree with ``seed``.

        Returns
        -------
        DrlParameters
        """
        check_record_params(data, (*_KEYS, "grid"), "a DP-DRL run's parameters")
        values = {k: data[k] for k in _KEYS if k in data and k != "seeded"}
        return cls(**values)


@dataclass
class DrlRun:
    """A finished DP-DRL run: the map, the trained agent and, if asked, the attack on it."""

    grid: GridMap
    train: DrlResult
    attack: AttackResult | None

    def to_json(self) -> dict[str, Any]:
        """The ``drl --json`` payload: the training's keys, the attack's (``grr``, ``nrr``,
        ``attack_fitness``, ``truth_fitness``, ``baseline_nrr``, ``recovered``,
        ``attack_s``) and the true map (``truth``)."""
        payload = self.train.to_json()
        att = self.attack
        if att is not None:
            payload.update(grr=att.grr, nrr=att.nrr, attack_fitness=att.fitness,
                           truth_fitness=att.truth_fitness, baseline_nrr=att.baseline_nrr,
                           recovered=att.recovered.to_rows(), attack_s=att.elapsed_s)
        payload["truth"] = self.grid.to_rows()
        return payload


def drl_release(params: DrlParameters, progress: Progress | None = None,
                cancelled: Callable[[], bool] | None = None, *, grid: GridMap,
                trainer: Callable[..., DrlResult] | None = None) -> DrlRun:
    """Train the navigation agent of ``params`` on ``grid`` and, if asked, run the
    map-recovery attack on it (seed ``seed + 1``, 0 in release mode).

    Parameters
    ----------
    params : DrlParameters
        What to run.
    progress, cancelled : callable, optional
        Progress (training 0-60 %, the attack the rest; all of it without the attack) and
        cancellation.
    grid : GridMap
        The map (checked against the constraints: field ``map``).
    trainer : callable, optional
        ``trainer(grid, setup, *, seed, progress, cancelled) -> DrlResult``: the tables'
        :func:`core.gridworld.dpdrl.train_agent` by default; ``params.agent == "dqn"`` needs
        the deep extra's ``core.deep.dqn.train_dqn``.

    Returns
    -------
    DrlRun
    """
    check_map(grid)
    if trainer is None:
        if params.agent != "tabular":
            raise ValueError(f"the {params.agent} learner is passed as trainer= by its caller")
        trainer = train_agent
    prog = no_progress if progress is None else progress
    seed = params.seed
    res = trainer(grid, params.setup(), seed=seed,
                  progress=sub_progress(prog, 0, 0.6 if params.attack else 1.0),
                  cancelled=cancelled)
    att = None
    if params.attack:
        att = recover_map(grid, res.policy(), params.attack_setup(),
                          seed=0 if seed is None else seed + 1,
                          progress=sub_progress(prog, 0.6, 1.0), cancelled=cancelled)
    return DrlRun(grid, res, att)


#: the keys a ``drl-table`` run record's ``params`` keeps, in their order: the first of
#: :meth:`DrlTableParameters.to_dict`'s
_TABLE_RECORD_KEYS = ("grid", "episodes", "rows", "seeded", "seed")


@dataclass(frozen=True)
class DrlTableParameters:
    """The DP-DRL comparison (the Private agents tab's Compare ε, Tables 5.1/5.3's shape):
    the same training without the defense, with each fixed ε of
    :data:`core.gridworld.experiments.DEFAULT_EPSILONS` (strict preset) and with the
    thesis's dynamic ε, each attacked by the map-recovery GA.

    ``training`` is the run the tab would train (:class:`DrlParameters`, checked by it):
    the rows take its episodes, step limit and learning set-up (the defense's row keeps its
    preset), the GA its ``generations`` (a population of the GA's default) and every row its
    seed. The comparison trains Q-tables (``agent`` is not used) and always attacks. It has
    no release mode: a seed of None is replaced by 0 (the comparison has always run seed 0
    then, and its record says so). ``grid`` names the map in the record (``example``,
    ``random``, a project grid's id); the map itself is a runtime input of
    :func:`drl_table_release`.

    Checked once, when built: the training by :class:`DrlParameters`, ``grid``, then the
    GA's ``generations`` (:meth:`AttackSetup.validated`). Every :class:`InputError` names
    its field.

    Examples
    --------
    >>> p = DrlTableParameters(DrlParameters(episodes=30, generations=5), grid="example")
    >>> p.training.seed, p.rows()[:2]
    (0, ['No defense', 'ε = 1'])
    >>> DrlTableParameters.from_dict(p.to_dict()) == p
    True
    """

    training: DrlParameters = field(default_factory=DrlParameters)
    grid: str = "example"

    def __post_init__(self) -> None:
        from core.common.errors import InputError

        if not isinstance(self.training, DrlParameters):
            raise InputError(f"must be DrlParameters, got {type(self.training).__name__}",
                             field="training")
        if not isinstance(self.grid, str) or not self.grid:
            raise InputError(f"must name the map, got {self.grid!r}", field="grid")
        self.attack_setup().validated()
        if self.training.seed is None:
            object.__setattr__(self, "training", replace(self.training, seed=0))

    def attack_setup(self) -> AttackSetup:
        """The GA of every row: the training's ``generations``, the rest the GA's defaults."""
        return AttackSetup(generations=self.training.generations)

    def rows(self) -> list[str]:
        """The rows' labels, in the order they are trained."""
        from core.gridworld.experiments import sweep_plan

        return [label for label, _ in sweep_plan(self.training.setup())]

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: a ``drl-table`` run record's keys (``grid``, ``episodes``, ``rows``,
        ``seeded``, ``seed``), then the rest of the training's
        (:meth:`DrlParameters.to_dict`), which the record does not keep."""
        asked = self.training.to_dict()
        out: dict[str, Any] = {"grid": self.grid, "episodes": asked["episodes"],
                               "rows": self.rows(), "seeded": asked["seeded"],
                               "seed": asked["seed"]}
        out.update({k: v for k, v in asked.items() if k not in out})
        return jsonable_dict(out)

    @classmethod
    def from_dict(cls, data: Any) -> "DrlTableParameters":
        """The parameters of :meth:`to_dict`, or of a ``drl-table`` run record's ``params``
        (a missing key takes its default; ``rows``, when given, must be the rows these
        parameters train).

        Parameters
        ----------
        data : mapping
            The keys of :meth:`to_dict`.

        Returns
        -------
        DrlTableParameters
        """
        from core.common.errors import InputError

        check_record_params(data, (*_TABLE_RECORD_KEYS, *_KEYS), "a DP-DRL comparison's "
                            "parameters")
        training = DrlParameters.from_dict({k: v for k, v in data.items()
                                            if k not in ("grid", "rows")})
        out = cls(training, **({"grid": data["grid"]} if "grid" in data else {}))
        if "rows" in data and list(data["rows"]) != out.rows():
            raise InputError(f"must be the comparison's rows {out.rows()}, got "
                             f"{data['rows']!r}", field="rows")
        return out


def drl_table_release(params: DrlTableParameters, progress: Progress | None = None,
                      cancelled: Callable[[], bool] | None = None, *, grid: GridMap
                      ) -> list[SweepRow]:
    """Train and attack every row of the comparison ``params`` on ``grid``: the one entry
    point of the Private agents tab's Compare ε and of ``drl --table``.

    Parameters
    ----------
    params : DrlTableParameters
        What to compare.
    progress, cancelled : callable, optional
        Progress (each row's training and attack in turn) and cancellation.
    grid : GridMap
        The map (checked against the constraints: field ``map``).

    Returns
    -------
    list of SweepRow
        One per row of :meth:`DrlTableParameters.rows`, in that order.
    """
    from core.gridworld.experiments import defense_sweep

    check_map(grid)
    return defense_sweep(grid, params.training.setup(), attack=params.attack_setup(),
                         seed=int(params.training.seed or 0),
                         progress=no_progress if progress is None else progress,
                         cancelled=cancelled)
