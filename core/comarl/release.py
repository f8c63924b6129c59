"""What a co-MARL run is asked (``comarl``, the Private agents tab's Train team), and the one
entry point that runs it: :class:`ComarlParameters`, validated once, and
:func:`comarl_release`.

The command line builds the parameters from its flags, the window from its widgets; both
call :func:`comarl_release`; the window records the run with
:func:`core.project.recording.comarl_run_record`. The learner is a runtime input: the
Q-tables (:func:`core.comarl.vdn.train_vdn`) by default, or the per-agent networks of the
optional deep extra (``core.deep.vdn.train_vdn_net``, passed by the callers allowed to import
it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from core.comarl.vdn import TeamGrid, VdnResult, VdnSetup, check_agents, team_grid, train_vdn
from core.common.jsonable import jsonable_dict
from core.common.progress import Progress, no_progress, sub_progress
from core.common.validation import (
    check_choice,
    check_flag,
    check_record_params,
    check_seed,
    check_whole,
)
from core.gridworld.maps import check_random_size

__all__ = ["ComarlParameters", "ComarlRun", "comarl_release", "COMARL_AGENTS"]

#: the learners: Q-tables, or one network per agent (the optional deep extra)
COMARL_AGENTS = ("tabular", "net")

#: the keys of :meth:`ComarlParameters.to_dict`, in their order
_KEYS = ("agents", "size", "episodes", "algorithm", "lr", "dp", "sigma", "window",
         "sample_rate", "delta", "seeded", "seed", "agent")


@dataclass(frozen=True)
class ComarlParameters:
    """One co-MARL run: the team (``agents`` on a random ``size`` x ``size`` map), the
    learning rule, DP-SGD, the learner and the seed.

    Validated once, here, in the order the command line has always reported: ``agents``,
    ``size``, ``agent``, ``dp``, then the learning (:meth:`VdnSetup.validated`:
    ``algorithm``, ``lr``, ``episodes``, ``window``, and with ``dp`` ``sigma`` and
    ``sample_rate``) and ``seed``. Every :class:`InputError` names its field. ``delta`` None is
    B^-1.1 (checked by the accountant when it is used); ``seed`` None is release mode (the
    map then comes from seed 0). The networks (``agent="net"``) learn with their own rate
    and the VDN rule: ``algorithm`` and ``lr`` are the tables' (not read, nor checked, for
    the networks, as ``comarl --agent net`` has always ignored them).

    Examples
    --------
    >>> p = ComarlParameters(agents=2, episodes=20, dp=True, seed=1)
    >>> ComarlParameters.from_dict(p.to_dict()) == p
    True
    >>> ComarlParameters(agents=1)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: agents: PE-Co-MARL needs at least 2 agents, got 1
    """

    agents: int = 3
    size: int = 7
    episodes: int = 400
    algorithm: str = "vdn"
    lr: float = 0.2
    dp: bool = False
    sigma: float = 1.0
    window: int = 1024
    sample_rate: float = 1 / 32
    delta: float | None = None
    agent: str = "tabular"
    seed: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "agents", check_agents(self.agents))
        if isinstance(self.size, (int, float)) and not isinstance(self.size, bool):
            check_random_size(self.size, self.size)
        object.__setattr__(self, "size", check_whole(self.size, "size", minimum=5))
        check_choice(self.agent, COMARL_AGENTS, "agent")
        check_flag(self.dp, "dp")
        self.setup().validated(self.agents)
        for name in ("episodes", "window"):
            object.__setattr__(self, name, int(getattr(self, name)))
        object.__setattr__(self, "seed", check_seed(self.seed))

    def setup(self) -> VdnSetup:
        """The learners' :class:`VdnSetup` (the networks: the VDN rule and the default rate,
        which they do not use)."""
        setup = VdnSetup(episodes=self.episodes, dp=self.dp, sigma=self.sigma,
                         window=self.window, sample_rate=self.sample_rate, delta=self.delta)
        if self.agent == "tabular":
            setup = replace(setup, algorithm=self.algorithm, lr=self.lr)
        return setup

    def team(self) -> TeamGrid:
        """The team's random map (seed ``seed``, 0 in release mode), starts and goals."""
        return team_grid(self.agents, rows=self.size, cols=self.size,
                         seed=0 if self.seed is None else self.seed)

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: every field, and ``seeded`` (a seeded experiment). A run record's
        ``params`` keeps ``agents``, ``episodes``, ``dp``, ``sigma``, ``window``,
        ``sample_rate`` (the last three None without DP), ``seeded``, ``seed`` and ``agent``
        (:func:`core.project.recording.comarl_run_record`)."""
        return jsonable_dict({"agents": self.agents, "size": self.size,
                              "episodes": self.episodes, "algorithm": self.algorithm,
                              "lr": self.lr, "dp": self.dp, "sigma": self.sigma,
                              "window": self.window, "sample_rate": self.sample_rate,
                              "delta": self.delta, "seeded": self.seed is not None,
                              "seed": self.seed, "agent": self.agent})

    @classmethod
    def from_dict(cls, data: Any) -> "ComarlParameters":
        """The parameters of :meth:`to_dict`, or of a ``comarl`` run record's ``params`` (a
        missing key, or a None that DP's absence left there, takes its default).

        Parameters
        ----------
        data : mapping
            The keys of :meth:`to_dict`; ``seeded``, when given, must agree with ``seed``.

        Returns
        -------
        ComarlParameters
        """
        check_record_params(data, _KEYS, "a co-MARL run's parameters")
        values = {k: data[k] for k in _KEYS if k in data and k != "seeded"
                  and (data[k] is not None or k in ("delta", "seed"))}
        return cls(**values)


@dataclass
class ComarlRun:
    """A finished co-MARL run: the team, PE-VDN's result and, when asked, plain VDN's (the
    reference for the overhead and the PE-vs-central gap)."""

    team: TeamGrid
    pe: VdnResult
    central: VdnResult | None

    def to_json(self) -> dict[str, Any]:
        """The ``comarl --json`` payload: PE-VDN's keys and, with the reference,
        ``central_team_return``."""
        payload = self.pe.to_json()
        if self.central is not None:
            payload["central_team_return"] = self.central.team_return
        return payload


def comarl_release(params: ComarlParameters, progress: Progress | None = None,
                   cancelled: Callable[[], bool] | None = None, *,
                   trainer: Callable[..., VdnResult] | None = None,
                   reference: bool = True) -> ComarlRun:
    """Train the team of ``params`` with PE-VDN (secure summation) and, with ``reference``,
    plain VDN on the same team and seed.

    Parameters
    ----------
    params : ComarlParameters
        What to run.
    progress, cancelled : callable, optional
        Progress (PE-VDN 0-70 %, the reference the rest) and cancellation.
    trainer : callable, optional
        ``trainer(team, setup, *, seed, central, progress, cancelled) -> VdnResult``: the
        tables' :func:`core.comarl.vdn.train_vdn` by default; ``params.agent == "net"`` needs
        the deep extra's ``core.deep.vdn.train_vdn_net``.
    reference : bool
        Also train plain VDN (``central=True``): its time gives the overhead.

    Returns
    -------
    ComarlRun
    """
    if trainer is None:
        if params.agent != "tabular":
            raise ValueError(f"the {params.agent} learner is passed as trainer= by its caller")
        trainer = train_vdn
    prog = no_progress if progress is None else progress
    team = params.team()
    setup = params.setup()
    pe = trainer(team, setup, seed=params.seed,
                 progress=sub_progress(prog, 0, 0.7 if reference else 1.0), cancelled=cancelled)
    central = None
    if reference:
        central = trainer(team, setup, seed=params.seed, central=True,
                          progress=sub_progress(prog, 0.7, 1.0), cancelled=cancelled)
        pe.central_seconds = central.seconds
    return ComarlRun(team, pe, central)
