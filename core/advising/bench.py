"""An advising experiment over many seeds as a user asks for it: :class:`AdviseBenchParameters`
and :func:`advise_bench_release`.

``advise-bench …`` on the command line (one per experiment and variant it names) and the DP
Advising tab's experiments (Strategies, ε sweep, Experiments 1–3) both build an
:class:`AdviseBenchParameters` — which run, the set-up it starts from, the seed (``None``:
drawn from the OS and recorded), the seeds per arm, the processes, the ε values of a sweep and
δ — and run it through :func:`advise_bench_release`; both record the result with
:func:`core.project.recording.advise_bench_run_record`. The set-up, the seed and δ are checked
as for one run (:class:`~core.advising.release.AdviseParameters`), the arms by
:func:`~core.advising.presets.experiment_arms` when the parameters are made, every
:class:`~core.common.errors.InputError` naming its field.

What each run compares:

* ``strategies``: no advice, traditional advising and DP advising on the set-up itself;
* ``sweep``: no advice, then DP advising at each ε of ``epsilons``, on the set-up itself;
* ``exp1``, ``exp2``, ``exp3``: the thesis's experiments on their presets' layouts and
  rewards, with the set-up's algorithm parameters (ε, d, budgets, epochs, α, ξ, the variant's
  knobs, …); ``exp3`` sweeps ``epsilons``; ``layout`` changes the layout as
  ``advise-bench --layout`` does;
* ``exp1-one-different``: Experiment 1 with its DP arm on the thesis's own layout.

Examples
--------
>>> from core.advising.presets import preset
>>> p = AdviseBenchParameters("exp2", preset("exp2", epochs=5), seed=3, seeds=2, workers=1)
>>> [a.label for a in p.arms()]
['no advice', 'traditional', 'dp']
>>> r = advise_bench_release(p)
>>> r.seeds.tolist(), r.epochs
([3, 4], 5)
>>> AdviseBenchParameters.from_dict(p.to_dict()) == p
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from core.advising.accounting import DEFAULT_DELTA
from core.advising.experiments import ExperimentResult, _layout_name, run_experiment
from core.advising.model import VARIANTS, AdvisingSetup
from core.advising.presets import PRESETS, ExperimentArm, experiment_arms, preset
from core.advising.release import AdviseParameters, _polling
from core.common.errors import InputError
from core.common.progress import Progress
from core.common.validation import check_choice, check_int, check_record_params
from core.privacy.laplace import check_epsilon

__all__ = ["BENCH_RUNS", "AdviseBenchParameters", "advise_bench_release"]

#: The runs of many seeds, and their titles (a run record's ``experiment``).
BENCH_RUNS: dict[str, str] = {
    "strategies": "Strategies on this set-up (no advice / traditional / DP)",
    "sweep": "ε sweep on this set-up",
    "exp1": "Experiment 1 (thesis arms)",
    "exp1-one-different": "Experiment 1 on its own layout (one different action)",
    "exp2": "Experiment 2 (thesis arms)",
    "exp3": "Experiment 3 (thesis arms, ε sweep)",
}
#: Runs whose arms are the set-up's own (its layout and rewards), not a preset's.
_ON_THE_SETUP = ("strategies", "sweep")
#: Runs that sweep ``epsilons``.
_SWEEPS = ("sweep", "exp3")
#: The keys of :meth:`AdviseBenchParameters.to_dict` (a run record's ``params``), in their
#: order; ``layout`` is written only when one is set.
_KEYS = ("run", "experiment", "setup", "variant", "epsilon", "epsilons", "epochs",
         "distance_threshold", "ask_budget", "give_budget", "seeded", "seed", "seeds",
         "seed_drawn", "workers", "delta", "arms")
_KNOBS = ("epsilon", "epochs", "distance_threshold", "ask_budget", "give_budget")


@dataclass(frozen=True)
class AdviseBenchParameters:
    """What one advising experiment over many seeds means (see the module docstring).

    Parameters
    ----------
    run : str
        One of :data:`BENCH_RUNS`.
    setup : AdvisingSetup
        The set-up: its agents, servers and rewards for ``strategies`` and ``sweep``, its
        algorithm parameters for every run; its name is recorded.
    seed : int or None
        The first seed (run r uses ``seed + r``); ``None``: drawn from the OS when it runs and
        recorded (still a seeded experiment, never a release).
    seeds : int
        Seeds per arm, >= 1.
    workers : int or None
        Processes, >= 1; ``None``: the machine's CPUs.
    epsilons : tuple of float
        The ε values (each > 0) of ``sweep`` and ``exp3`` (at least one there).
    delta : float
        δ in (0, 1) of the advanced-composition and RDP totals.
    layout : str or None
        ``exp1``: the DP arm's layout; ``exp2``/``exp3``: every arm's (``advise-bench
        --layout``); None: the experiment's own. Refused for the other runs.
    """

    run: str
    setup: AdvisingSetup
    seed: int | None = None
    seeds: int = 20
    workers: int | None = None
    epsilons: tuple[float, ...] = ()
    delta: float = DEFAULT_DELTA
    layout: str | None = None
    _arms: tuple[ExperimentArm, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "run", check_choice(self.run, tuple(BENCH_RUNS), "run"))
        one = AdviseParameters(self.setup, seed=self.seed, delta=self.delta)  # checked once
        object.__setattr__(self, "seed", one.seed)
        object.__setattr__(self, "delta", one.delta)
        object.__setattr__(self, "seeds", check_int(self.seeds, "seeds"))
        if self.workers is not None:
            object.__setattr__(self, "workers", check_int(self.workers, "workers"))
        object.__setattr__(self, "epsilons", _epsilons(self.epsilons))
        if self.run in _SWEEPS and not self.epsilons:
            raise InputError(f"needs at least one value for {self.run}", field="epsilons")
        if self.layout is not None and self.run not in ("exp1", "exp2", "exp3"):
            raise InputError(f"applies to exp1, exp2 and exp3, not {self.run}", field="layout")
        object.__setattr__(self, "_arms", tuple(self._build_arms()))

    @property
    def seeded(self) -> bool:
        """True when the first seed was given, False when it is drawn from the OS."""
        return self.seed is not None

    def arms(self) -> list[ExperimentArm]:
        """The labelled set-ups the experiment compares (built when the parameters were)."""
        return list(self._arms)

    def _build_arms(self) -> list[ExperimentArm]:
        s, run = self.setup, self.run
        if run == "strategies":
            return [ExperimentArm("no advice", s.with_params(strategy="none")),
                    ExperimentArm("traditional", s.with_params(strategy="traditional")),
                    ExperimentArm("dp", s.with_params(strategy="dp"))]
        if run == "sweep":
            return [ExperimentArm("no advice", s.with_params(strategy="none"))] + [
                ExperimentArm(f"dp eps={e:g}", s.with_params(strategy="dp", epsilon=e))
                for e in self.epsilons]
        overrides = {k: v for k, v in s.params.to_dict().items() if k != "strategy"}
        extra: dict[str, Any] = {"epsilons": self.epsilons} if run == "exp3" else {}
        layout = "one-different" if run == "exp1-one-different" else self.layout
        return experiment_arms(run.split("-")[0], variant="sound", layout=layout, **extra,
                               **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON with the keys of the run record's ``params``: what was asked, the
        arms it makes (label, strategy, ε, layout, variant) and their common parameters.
        Before the run, ``seed`` is null when it will be drawn and ``seeds`` is the count;
        the record keeps the seed and the list of seeds that ran."""
        arms = self.arms()
        first = arms[0].setup.params
        out: dict[str, Any] = {
            "run": self.run, "experiment": BENCH_RUNS[self.run], "setup": self.setup.name,
            "variant": first.variant, "epsilon": self.setup.params.epsilon,
            "epsilons": list(self.epsilons), "epochs": first.epochs,
            "distance_threshold": first.distance_threshold, "ask_budget": first.ask_budget,
            "give_budget": first.give_budget, "seeded": self.seeded, "seed": self.seed,
            "seeds": self.seeds, "seed_drawn": not self.seeded, "workers": self.workers,
            "delta": self.delta,
            "arms": [{"label": a.label, "strategy": a.setup.params.strategy,
                      "epsilon": a.setup.params.epsilon, "layout": _layout_name(a.setup),
                      "variant": a.setup.params.variant} for a in arms]}
        if self.layout is not None:
            out["layout"] = self.layout
        return out

    @classmethod
    def from_dict(cls, data: Any, *, setup: AdvisingSetup | None = None
                  ) -> "AdviseBenchParameters":
        """The parameters :meth:`to_dict` wrote, or a run record's ``params``.

        A record keeps the set-up's name only: pass the set-up it names (the project's), or
        leave it out when it names a preset, which is rebuilt with the recorded variant, ε,
        epochs, d and budgets. A seed the run drew (``seed_drawn``) is not a seed asked for.
        The arms and their common parameters are what the run made, not read back.
        """
        drawn = data.get("seed_drawn") if isinstance(data, Mapping) else None
        if drawn is not None and "seeded" in data and drawn is data["seeded"]:
            raise InputError(f"says {drawn!r} with seeded {data['seeded']!r}",
                             field="seed_drawn")
        if drawn is True:  # the seed the run drew is not one asked for
            data = {**data, "seed": None}
        data = check_record_params(data, _KEYS + ("layout",), "an advising experiment's "
                                   "parameters", required=("run", "setup", "seeds"))
        seed = data.get("seed")
        seeds = data["seeds"]
        if isinstance(seeds, list):  # a record: the seeds that ran
            if not seeds:
                raise InputError("lists no seed", field="seeds")
            seeds = len(seeds)
        epsilons = data.get("epsilons", ())
        return cls(data["run"], _named_setup(data, setup), seed=seed, seeds=seeds,
                   workers=data.get("workers"),
                   epsilons=epsilons,
                   delta=data.get("delta", DEFAULT_DELTA), layout=data.get("layout"))


def _epsilons(values: Any) -> tuple[float, ...]:
    """The ε values, each checked (a list or tuple of numbers > 0)."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise InputError(f"must be a list of numbers > 0, got {values!r}", field="epsilons")
    return tuple(check_epsilon(e, "epsilons") for e in values)


def _named_setup(data: Mapping[str, Any], setup: AdvisingSetup | None) -> AdvisingSetup:
    """The set-up a parameters object names: ``setup`` itself (its name checked), or the
    preset of that name rebuilt with the recorded variant and knobs."""
    name = data["setup"]
    if setup is not None:
        if not isinstance(setup, AdvisingSetup) or setup.name != name:
            raise InputError(f"names {name!r}, not the set-up given", field="setup")
        return setup
    if name not in PRESETS:
        raise InputError(f"{name!r} is not a preset: give the set-up it names", field="setup")
    variant = data.get("variant", "sound")
    if variant not in VARIANTS:
        raise InputError(f"{variant!r} is not a variant a preset can be rebuilt with "
                         f"({', '.join(VARIANTS)}): give the set-up", field="variant")
    return preset(name, variant=variant, **{k: data[k] for k in _KNOBS if k in data})


def advise_bench_release(params: AdviseBenchParameters, progress: Progress | None = None,
                         cancelled: Callable[[], bool] | None = None, *,
                         executor: Executor | None = None, workers: int | None = None
                         ) -> ExperimentResult:
    """Run an advising experiment over many seeds: the one entry point of ``advise-bench``
    and of the DP Advising tab's experiments.

    Both record its result with :func:`core.project.recording.advise_bench_run_record` of
    the same ``params``.

    Parameters
    ----------
    params : AdviseBenchParameters
        The run, its set-up, seeds, processes, ε values and δ.
    progress : callable, optional
        ``progress(fraction, message)`` after each run; may raise
        :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled with each progress report; True stops the
        experiment by raising :class:`core.common.progress.Cancelled`.
    executor : Executor, optional
        Runs the seeds there (a cluster's; not shut down here) instead of a local pool.
    workers : int, optional
        The executor's workers, in place of ``params.workers`` (a cluster decides them).

    Returns
    -------
    ExperimentResult
        Per arm and seed, the curves, the advice and the ε spent.
    """
    return run_experiment(params.arms(), seeds=params.seeds, seed=params.seed,
                          workers=params.workers if workers is None else workers,
                          executor=executor, delta=params.delta, name=params.run,
                          progress=_polling(progress, cancelled))
