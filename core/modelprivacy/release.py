"""One membership-inference run as the user asks for it: :class:`MiaParameters` (validated
once) and :func:`mia_release`, the one entry point of ``mia`` and of the Model privacy tab's
Run.

``attack="shadow"`` is the single-victim shadow-model study (:func:`core.modelprivacy.study.
run_mia`, recorded with :func:`core.project.recording.mia_run_record`); ``lira``, ``loss``
and ``all`` the population study of :mod:`core.modelprivacy.attacks` (``models`` victims on
random halves of a population) and ``canary`` the one-run canary audit of
:mod:`core.modelprivacy.canary`. Those two train many models and release none of them: they
are shown, never recorded. Every path runs on the numpy victims and, through the runtime
inputs ``networks`` and ``network_kind``, on the JAX networks of the ``deep`` extra (this
package never imports JAX).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.jsonable import jsonable_dict
from core.common.progress import Progress, no_progress
from core.common.validation import check_choice, check_record_params, check_seed
from core.modelprivacy.attacks import AttackStudy
from core.modelprivacy.canary import CanaryAudit
from core.modelprivacy.data import Dataset
from core.modelprivacy.models import NETWORK_VICTIMS, NetworkFactory
from core.modelprivacy.study import MiaResult, MiaSetup, TableRow

__all__ = ["MiaParameters", "mia_release", "MIA_ATTACKS", "POPULATION_ATTACKS",
           "MiaCompareParameters", "mia_compare_release", "COMPARISONS"]

#: What ``attack`` may name: the shadow-model study, the population study's attack sets
#: and the canary audit.
MIA_ATTACKS = ("shadow", "lira", "loss", "all", "canary")
#: The attacks the population study runs for each ``attack`` choice.
POPULATION_ATTACKS = {"lira": ("lira-online", "lira-offline"), "loss": ("loss",),
                      "all": ("lira-online", "lira-offline", "loss", "shadow")}

#: MiaSetup's defaults, which :class:`MiaParameters`' study fields take.
_STUDY = MiaSetup()

#: The keys a ``mia`` run record keeps as its parameters, in their order.
RECORD_KEYS = ("data", "victim", "defense", "epsilon", "delta", "shadows", "train_size",
               "hidden", "epochs", "batch", "lr", "clip", "sensitivity_samples",
               "granularity", "preset", "seeded", "seed")


@dataclass(frozen=True)
class MiaParameters:
    """What one membership-inference run means (``mia …``, the Model privacy tab's Run).

    ``data`` names the records (``digits``, ``breast-cancer``, ``wine``, ``text``,
    ``mdp:FILE`` or a CSV path; a front end may hand :func:`mia_release` the loaded data
    instead). The study's fields are :class:`~core.modelprivacy.study.MiaSetup`'s
    (:meth:`setup`), checked by it; ``attack`` picks the study; ``models`` (population
    study) and ``canaries`` (canary audit; None: as many as the data leave, at most 500)
    size the others; ``seed`` None is release mode.

    Validated once, when built: the shadow study's fields by :meth:`MiaSetup.checked`, the
    population study's and canary audit's victims (none or DP-SGD, ffnn, rnn or a network;
    ε and δ only with DP-SGD) here. What depends on the data (the sizes, a tabular victim's
    MDP records, the training time) is checked by the run. Every :class:`InputError` names
    its field.

    Examples
    --------
    >>> p = MiaParameters("wine", defense="dpsgd", epsilon=2.0, seed=3)
    >>> MiaParameters.from_dict(p.to_dict()) == p
    True
    >>> try:
    ...     MiaParameters("wine", attack="lira", defense="gpm")
    ... except InputError as exc:
    ...     print(exc.field)
    defense
    """

    data: str
    attack: str = "shadow"
    # the study's fields, with MiaSetup's defaults (one place for each default)
    victim: str = _STUDY.victim
    defense: str = _STUDY.defense
    epsilon: float | None = _STUDY.epsilon
    delta: float | None = _STUDY.delta
    shadows: int = _STUDY.shadows
    train_size: int | None = _STUDY.train_size
    hidden: int = _STUDY.hidden
    epochs: int = _STUDY.epochs
    batch: int = _STUDY.batch
    lr: float | None = _STUDY.lr
    clip: float = _STUDY.clip
    sensitivity_samples: int = _STUDY.sensitivity_samples
    granularity: int = _STUDY.granularity
    preset: str = _STUDY.preset
    k: float = _STUDY.k
    b: float = _STUDY.b
    models: int = 16
    canaries: int | None = 500
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.data, str):
            raise InputError(f"must name a data set, got {self.data!r}", field="data")
        check_choice(self.attack, MIA_ATTACKS, "attack")
        check_seed(self.seed)
        for name in ("models", "canaries"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) \
                    and not (v is None and name == "canaries"):
                raise InputError(f"must be a whole number, got {v!r}", field=name)
        if self.attack == "shadow":
            self.setup().checked()
        else:
            self._check_population()

    def _check_population(self) -> None:
        """The victims of the population study and canary audit: trained without a defense
        or with DP-SGD (which alone takes ε and δ), a numpy ffnn or rnn or a network."""
        if self.defense not in ("none", "dpsgd"):
            raise InputError(f"--attack {self.attack} trains its victims with none or dpsgd, "
                             f"got {self.defense!r} (gpm, oneparam and dirichlet have the "
                             "shadow study, --attack shadow)", field="defense")
        if self.victim not in ("ffnn", "rnn") + NETWORK_VICTIMS:
            raise InputError(f"--attack {self.attack} trains ffnn or rnn victims (or a "
                             f"network, --model), got {self.victim!r}", field="victim")
        if self.delta is not None and self.defense != "dpsgd":
            raise InputError("--delta belongs to dpsgd", field="delta")
        if self.epsilon is not None and self.defense != "dpsgd":
            raise InputError("--epsilon needs --defense dpsgd", field="epsilon")

    def setup(self) -> MiaSetup:
        """The shadow-model study's set-up (as asked: :meth:`MiaSetup.validated` fills in
        the defaults against the data)."""
        names = {f.name for f in fields(MiaSetup)}
        return MiaSetup(**{k: getattr(self, k) for k in names if hasattr(self, k)})

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: a run record's keys (:data:`RECORD_KEYS`, the values as asked),
        then ``k``, ``b``, ``attack``, ``models`` and ``canaries``."""
        out = {k: getattr(self, k) for k in RECORD_KEYS if k != "seeded"}
        out["seeded"] = self.seed is not None
        out = {k: out[k] for k in RECORD_KEYS}
        out.update(k=self.k, b=self.b, attack=self.attack, models=self.models,
                   canaries=self.canaries)
        return jsonable_dict(out)

    @classmethod
    def from_dict(cls, data: Any) -> "MiaParameters":
        """The parameters of :meth:`to_dict` or of a ``mia`` run record's ``params`` (whose
        values are the study's, with its defaults filled in).

        Parameters
        ----------
        data : mapping
            ``data`` and optionally every other field, and ``seeded`` (which must agree
            with the seed).

        Returns
        -------
        MiaParameters
        """
        check_record_params(data, [*(f.name for f in fields(cls)), "seeded"],
                            "a membership-inference run's parameters", required=("data",))
        return cls(**{k: v for k, v in data.items() if k != "seeded"})


def mia_release(params: MiaParameters, progress: Progress | None = None,
                cancelled: Callable[[], bool] | None = None, *, data: Dataset | None = None,
                networks: NetworkFactory | None = None,
                network_kind: Callable[..., Any] | None = None
                ) -> MiaResult | AttackStudy | CanaryAudit:
    """Run the membership-inference study of ``params``: the one entry point of ``mia`` and
    of the Model privacy tab's Run.

    Parameters
    ----------
    params : MiaParameters
        What to run (validated when it was made).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled between stages; True raises ``Cancelled``.
    data : Dataset, optional
        The records (a project's MDP as next-state records, say); default
        ``load_dataset(params.data, seed=params.seed or 0)``.
    networks : callable, optional
        ``networks(kind, data, hidden)``: a network victim of the shadow study
        (:func:`core.deep.victims.network_victim`, the ``deep`` extra).
    network_kind : callable, optional
        ``network_kind(victim, data, **params)``: a network's victim kind for the population
        study and the canary audit (:class:`core.deep.victims.NetworkVictimKind`).

    Returns
    -------
    MiaResult, AttackStudy or CanaryAudit
        The shadow study's result (``attack="shadow"``), the population study's or the
        canary audit's.
    """
    from core.modelprivacy.data import load_dataset
    from core.modelprivacy.study import run_mia

    progress = progress or no_progress
    if data is None:
        data = load_dataset(params.data, seed=params.seed if params.seed is not None else 0)
    if params.attack != "shadow":
        return _population_release(params, data, progress, cancelled, network_kind)
    # a diverging learning rate overflows inside training; run_mia refuses its non-finite
    # outputs naming lr, so numpy's warnings would only add noise
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return run_mia(data, params.setup(), seed=params.seed, progress=progress,
                       cancelled=cancelled, networks=networks)


def _population_release(params: MiaParameters, data: Dataset, progress: Progress,
                        cancelled: Callable[[], bool] | None,
                        network_kind: Callable[..., Any] | None) -> AttackStudy | CanaryAudit:
    """The population study or the canary audit of ``params`` on ``data``: members =
    ``train_size`` (default min(500, records/8)); canaries (default min(500, the rest))."""
    from core.modelprivacy.attacks import attack_study
    from core.modelprivacy.canary import canary_audit
    from core.modelprivacy.victim import NumpyVictimKind

    n_in = params.train_size if params.train_size is not None else min(500, data.n // 8)
    canaries = params.canaries if params.canaries is not None else min(500, data.n - n_in)
    public_n = n_in + (canaries // 2 if params.attack == "canary" else 0)
    kw: dict[str, Any] = dict(hidden=params.hidden, epochs=params.epochs,
                              batch=params.batch, lr=params.lr, defense=params.defense,
                              epsilon=params.epsilon, delta=params.delta, n_train=public_n,
                              clip=params.clip)
    if params.victim in NETWORK_VICTIMS:
        if network_kind is None:
            raise InputError(f"the {params.victim} victim is a network on JAX: run it through "
                             "a front end that has the 'deep' extra (mia --model)",
                             field="victim")
        kind = network_kind(params.victim, data, **kw)
    else:
        kind = NumpyVictimKind(params.victim, data, **kw)
    if params.attack == "canary":
        return canary_audit(kind, data, train_size=n_in, canaries=canaries, seed=params.seed,
                            progress=progress, cancelled=cancelled)
    return attack_study(kind, data, train_size=n_in, models=params.models,
                        attacks=POPULATION_ATTACKS[params.attack], seed=params.seed,
                        progress=progress, cancelled=cancelled)


#: What a comparison puts side by side: every defense at several ε (Table 6.2's shape), or
#: the same study for each victim.
COMPARISONS = ("defenses", "victims")


@dataclass(frozen=True)
class MiaCompareParameters:
    """A comparison of shadow-model studies on one split and seed (the Model privacy tab's
    Compare defenses and Compare victims, ``mia --compare``).

    ``study`` is the shadow-model study the rows vary (:class:`MiaParameters`, checked by
    it). ``compare="defenses"`` runs it without a defense and with each defense at each ε of
    :data:`~core.modelprivacy.study.DEFAULT_TABLE_EPSILONS` (the tabular victim: the
    Dirichlet rows at each k instead of DP-SGD), so the study asks for no defense;
    ``"victims"`` runs the study's defense for the feed-forward and the recurrent victim
    (and the study's victim, when it is a network), on records (not an MDP's) and with a
    defense those victims have (not dirichlet).

    Checked once, when built: ``compare``, the study (by :class:`MiaParameters`), that it
    is a shadow-model study (``attack``), then what the comparison needs of it
    (``defense``; for victims, ``victim``). Every :class:`InputError` names its field.

    Examples
    --------
    >>> p = MiaCompareParameters(MiaParameters("wine", seed=1), "defenses")
    >>> p.plan()[:2]
    [('ffnn', 'none', None, None), ('ffnn', 'dpsgd', 1.0, None)]
    >>> MiaCompareParameters.from_dict(p.to_dict()) == p
    True
    """

    study: MiaParameters
    compare: str = "defenses"

    def __post_init__(self) -> None:
        check_choice(self.compare, COMPARISONS, "compare")
        if not isinstance(self.study, MiaParameters):
            raise InputError(f"must be MiaParameters, got {type(self.study).__name__}",
                             field="study")
        s = self.study
        if s.attack != "shadow":
            raise InputError(f"a comparison is of shadow-model studies, got {s.attack!r}",
                             field="attack")
        if self.compare == "defenses" and s.defense != "none":
            raise InputError("Compare defenses runs every defense: the study asks for none, "
                             f"got {s.defense!r}", field="defense")
        if self.compare == "victims" and (s.data.startswith("mdp:")
                                          or s.defense == "dirichlet"):
            raise InputError("the feed-forward and recurrent victims need a data set of "
                             "records (not MDP data) and a defense they support",
                             field="victim")

    def victims(self) -> tuple[str, ...]:
        """The victims of a comparison of victims: ffnn, rnn and the study's network."""
        v = self.study.victim
        return ("ffnn", "rnn") + ((v,) if v in NETWORK_VICTIMS else ())

    def plan(self) -> list[tuple[str, str, float | None, float | None]]:
        """The rows, (victim, defense, ε, k) each, in the order they run."""
        from core.modelprivacy.study import defense_plan

        s = self.study
        if self.compare == "defenses":
            return [(s.victim, d, e, k) for d, e, k in defense_plan(s.victim)]
        return [(v, s.defense, s.epsilon, None) for v in self.victims()]

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: a ``mia-table`` run record's keys (the study's :data:`RECORD_KEYS`,
        ``defense`` ``"table"`` when comparing defenses, then ``compare`` and ``rows``, each
        ``[victim, defense, ε, k]``), the values as asked, then the rest of the study's
        (:meth:`MiaParameters.to_dict`), which the record does not keep."""
        asked = self.study.to_dict()
        out = {k: asked[k] for k in RECORD_KEYS}
        if self.compare == "defenses":
            out["defense"] = "table"
        out.update(compare=self.compare, rows=[list(r) for r in self.plan()])
        out.update({k: v for k, v in asked.items() if k not in out})
        return jsonable_dict(out)

    @classmethod
    def from_dict(cls, data: Any) -> "MiaCompareParameters":
        """The parameters of :meth:`to_dict` or of a ``mia-table`` run record's ``params``
        (its values the first row's study's, with the defaults filled in).

        Parameters
        ----------
        data : mapping
            ``data`` and ``compare``, optionally every other key of :meth:`to_dict`;
            ``rows``, when given, must be the rows these parameters run.

        Returns
        -------
        MiaCompareParameters
        """
        check_record_params(data, [*(f.name for f in fields(MiaParameters)), "seeded",
                                   "compare", "rows"],
                            "a membership-inference comparison's parameters",
                            required=("data", "compare"))
        check_choice(data["compare"], COMPARISONS, "compare")
        values = {k: v for k, v in data.items() if k not in ("compare", "rows")}
        rows = data.get("rows")
        if data["compare"] == "defenses" and values.get("defense") == "table":
            values["defense"] = "none"
        if data["compare"] == "victims" and isinstance(rows, list):
            # the record keeps the first row's victim (ffnn); a network is the last row's
            nets = [r[0] for r in rows if isinstance(r, list) and r and r[0] in NETWORK_VICTIMS]
            if nets:
                values["victim"] = nets[0]
        out = cls(MiaParameters.from_dict(values), data["compare"])
        if rows is not None and [list(r) for r in out.plan()] != rows:
            raise InputError(f"must be the comparison's rows {[list(r) for r in out.plan()]}"
                             f", got {rows!r}", field="rows")
        return out


def mia_compare_release(params: MiaCompareParameters, progress: Progress | None = None,
                        cancelled: Callable[[], bool] | None = None, *,
                        data: Dataset | None = None, networks: NetworkFactory | None = None
                        ) -> list[TableRow]:
    """Run every study of the comparison ``params`` on one split and seed: the one entry
    point of the Model privacy tab's Compare defenses and Compare victims and of
    ``mia --compare``.

    Parameters
    ----------
    params : MiaCompareParameters
        What to compare (validated when it was made).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled between stages; True raises ``Cancelled``.
    data : Dataset, optional
        The records (a project's MDP as next-state records, say); default
        ``load_dataset(study.data, seed=study.seed or 0)``.
    networks : callable, optional
        ``networks(kind, data, hidden)``: the network victim of the study, if it is one
        (:func:`core.deep.victims.network_victim`, the ``deep`` extra).

    Returns
    -------
    list of TableRow
        One per row of :meth:`MiaCompareParameters.plan`, in that order.
    """
    from core.modelprivacy.data import load_dataset
    from core.modelprivacy.study import defense_table, victim_table

    s = params.study
    if s.victim in NETWORK_VICTIMS and networks is None:
        raise InputError(f"the {s.victim} victim is a network on JAX: run it through a front "
                         "end that has the 'deep' extra (mia --model)", field="victim")
    progress = progress or no_progress
    if data is None:
        data = load_dataset(s.data, seed=s.seed if s.seed is not None else 0)
    base = s.setup()
    if params.compare == "defenses":
        return defense_table(data, base, seed=s.seed, progress=progress, cancelled=cancelled,
                             networks=networks)
    return victim_table(data, base, seed=s.seed, victims=params.victims(), progress=progress,
                        cancelled=cancelled, networks=networks)
