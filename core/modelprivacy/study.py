"""A complete membership-inference study: victim, shadow models, attack, defenses, inversion.

Size: one protocol run as one pipeline (split, shadow models, attack, defenses, inversion); its
steps share the split and the seeds.

Protocol (Shokri et al. as the RNN paper uses it, spec §2.2 / §2.8):

1. The data set is shuffled (the experiment seed) and split: the victim's members (its training
   set, ``train_size`` records), the victim's non-members (as many, never trained on), and the
   attacker's pool (the rest, the same distribution, disjoint from the victim's data).
2. The attacker trains K shadow models with the victim's algorithm, hyperparameters *and
   defense* (it knows them: Kerckhoffs), each on its own disjoint slice of its pool; the next
   slice supplies the shadows' non-members. K·n + n ≤ pool, or the study is refused.
3. Attack records: (released confidence vector, label) → features (scores sorted, the true
   label's score, cross-entropy, entropy) and the member bit; an MLP with one hidden layer of 64
   units (ML-Leaks) learns them, then classifies the victim's members and non-members
   (balanced, chance 50 %).
4. Metrics: accuracy, AUC, TPR at FPR 0.1 % and 1 %, ε_lb (the audit's F3 formula with
   Clopper–Pearson limits on the attack's error rates — indicative: the trials share one
   trained model), the entropy gap H_APE(members) − H_APE(non-members), the generalisation
   gap, and under DP the cap (e^ε + δ)/(1 + e^ε) on any attack's balanced accuracy.
5. Model inversion: the attacker queries the victim with its pool and trains an MLP regressor
   confidence → record; the error is its mean squared error on the victim's members.

Randomness: a seed makes the whole study reproducible (experiment mode). Without one the
split, initialisation and batch order use a fresh seed and every DP noise draw (DP-SGD, the
GPM's θ̃, the one-parameter defense's choices) comes from the OS CSPRNG (release mode).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Cancelled, Progress, no_progress, sub_progress
from core.modelprivacy.data import Dataset, as_sequences
from core.modelprivacy.defenses import (
    gpm_sigma,
    oneparam_epsilon_star,
    oneparam_release,
    query_bound,
    sensitivity_sampler,
)
from core.modelprivacy.metrics import unresolved_tpr_reason
from core.modelprivacy.models import (
    NETWORK_VICTIMS,
    DpSgd,
    Network,
    NetworkFactory,
    TrainConfig,
    train_steps,
)

if TYPE_CHECKING:
    from core.common.secure import SecureRandom
    from core.mdp.model import MDP

__all__ = ["MiaSetup", "MiaResult", "run_mia", "DEFENSES", "VICTIM_KINDS", "FPRS",
           "defense_table", "defense_plan", "victim_table", "TableRow", "DEFAULT_TABLE_EPSILONS",
           "entropy", "mia_json_keys", "TABULAR_SMOOTHING", "tabular_rows", "RECORD_RELATION"]

DEFENSES = ("none", "dpsgd", "gpm", "oneparam", "dirichlet")
VICTIM_KINDS = ("ffnn", "rnn", "tabular") + NETWORK_VICTIMS
FPRS = (0.001, 0.01)
DEFAULT_TABLE_EPSILONS = {"dpsgd": (1.0, 4.0, 8.0), "gpm": (1.0, 4.0, 8.0),
                          "oneparam": (0.1, 0.7, 1.4, 2.0)}
#: the tabular victim's Dirichlet concentrations in the comparison
DEFAULT_TABLE_KS = (10.0, 100.0, 1000.0)
#: λ: with the Dirichlet defense the tabular victim smooths *every* row, (1 − λ)·p + λ/S, so
#: the map applied to a row never depends on the data (smoothing only rows with a zero would:
#: a neighbour can create or fill a zero)
TABULAR_SMOOTHING = 0.01
#: The neighbouring relation the tabular victim's record-level statement is proven for.
RECORD_RELATION = ("replace one record's next state s' (the record keeps its (s, a), so the "
                   "visit counts n_sa are public)")
_LR = {"ffnn": 0.1, "rnn": 0.05, "mlp": 0.1, "cnn": 0.05, "gru": 0.1, "lstm": 0.1}


def tabular_rows(counts: np.ndarray, smoothing: float = TABULAR_SMOOTHING) -> np.ndarray:
    """The tabular victim's rows from next-state counts: the empirical distribution of each
    row (uniform where no record has its (s, a)), then (1 − λ)·p + λ/S on every row.

    Under :data:`RECORD_RELATION` two neighbouring count tables differ in one row by moving
    one count between two entries, so their rows differ by (1 − λ)/n_sa in two entries: a
    two-entry move of L1 2(1 − λ)/n_sa, which the MDP pipeline's row analysis covers (the
    proof is in ``docs/privacy-statements.md``). Removing or adding a record instead changes
    n_sa and moves every entry of its row (renormalisation), which it does not.

    Parameters
    ----------
    counts : numpy.ndarray
        (rows, S) next-state counts.
    smoothing : float
        λ in [0, 1) (0: the plain MLE rows of the undefended victim).

    Returns
    -------
    numpy.ndarray
        (rows, S) probability rows.

    Examples
    --------
    >>> tabular_rows(np.array([[3.0, 1.0], [0.0, 0.0]]), smoothing=0.0).tolist()
    [[0.75, 0.25], [0.5, 0.5]]
    """
    counts = np.asarray(counts, dtype=np.float64)
    tot = counts.sum(axis=1, keepdims=True)
    rows: np.ndarray = np.where(tot > 0, counts / np.maximum(tot, 1), 1.0 / counts.shape[1])
    if smoothing:
        rows = (1.0 - smoothing) * rows + smoothing / counts.shape[1]
    return rows


def entropy(p: np.ndarray) -> np.ndarray:
    """Row entropies −Σ p ln p (nats)."""
    q = np.clip(p, 1e-300, 1.0)
    result: np.ndarray = -(p * np.log(q)).sum(axis=1)
    return result


@dataclass(frozen=True)
class MiaSetup:
    """What to study.

    ``epsilon``/``delta`` are the DP target of ``dpsgd`` and ``gpm`` (δ default 1e-5) and the
    one parameter of ``oneparam``. ``train_size`` default: an eighth of the data (≤ 500).
    """

    victim: str = "ffnn"
    defense: str = "none"
    epsilon: float | None = None
    delta: float | None = None
    shadows: int = 4
    train_size: int | None = None
    hidden: int = 32
    epochs: int = 60
    batch: int = 32
    lr: float | None = None
    clip: float = 1.0
    #: the SensitivitySampler's pairs: the paper's n = 500 (γ(500) = 0.077, Thm 5.3)
    sensitivity_samples: int = 500
    granularity: int = 5
    preset: str = "sound"
    #: the tabular victim's Dirichlet privatisation of its rows: concentration k and the
    #: L1 radius b of neighbouring rows (the MDP pipeline's mechanism and accounting)
    k: float = 50.0
    b: float = 0.1
    #: DP-SGD's own training schedule (tuned on digits at ε = 4: noisy steps want fewer,
    #: larger batches and no momentum); ``lr`` overrides the rate for both
    dp_epochs: int = 20
    dp_batch: int = 64
    dp_lr: float = 0.5

    def checked(self) -> "MiaSetup":
        """Check every field that does not depend on the data (the kinds and their pairing,
        ε, k, b, δ, the counts, the preset, the learning rate and clip norm), in that order;
        returns the setup with ε, δ, the learning rates and the shadow count filled in.
        :meth:`validated` adds the checks against the data."""
        for refused, message, name in _kind_checks(self):
            if refused:
                raise InputError(message, field=name)
        eps = self._checked_epsilon()
        for name in ("k", "b"):
            v = getattr(self, name)
            if not _finite(v) or v <= 0 or (name == "b" and v > 1):
                raise InputError(f"must be a finite number in {'(0, 1]' if name == 'b' else '> 0'}"
                                 f", got {v!r}", field=name)
        delta = self._checked_delta()
        self._checked_counts()
        if self.preset not in ("sound", "thesis"):
            raise InputError(f"must be sound or thesis, got {self.preset!r}", field="preset")
        lr = self.lr if self.lr is not None else _LR.get(self.victim, 0.1)
        if not (_finite(lr) and lr > 0) or not (_finite(self.clip) and self.clip > 0):
            raise InputError("learning rate and clip norm must be finite and > 0",
                             field="lr" if not (_finite(lr) and lr > 0) else "clip")
        dp_lr = float(self.lr) if self.lr is not None else float(self.dp_lr)
        return replace(self, epsilon=eps, delta=delta, lr=float(lr),
                       shadows=int(self.shadows), dp_lr=dp_lr)

    def validated(self, data: Dataset) -> "MiaSetup":
        """Check every field (:meth:`checked`), then against the data (a tabular victim's MDP
        records, the victim's and the shadows' records, the training time); returns the setup
        with defaults filled in."""
        setup = self.checked()
        if setup.victim == "tabular" and data.mdp_dims is None:
            raise InputError("the tabular victim (MLE model of an MDP) needs --data mdp:FILE",
                             field="victim")
        n_in = setup._checked_sizes(data)
        setup._check_work(data, int(n_in))
        return replace(setup, train_size=int(n_in))

    def _checked_counts(self) -> None:
        """The whole numbers: shadows >= 1, an explicit train_size >= 10, and the training's
        sizes >= 1."""
        if not _whole(self.shadows, 1):
            raise InputError(f"must be a whole number >= 1, got {self.shadows!r}",
                             field="shadows")
        n_in = self.train_size
        if n_in is not None and not _whole(n_in, 10):
            raise InputError(f"must be a whole number >= 10, got {n_in!r}",
                             field="train_size")
        for name in ("hidden", "epochs", "batch", "sensitivity_samples", "granularity"):
            v = getattr(self, name)
            if not _whole(v, 1):
                raise InputError(f"must be a whole number >= 1, got {v!r}", field=name)

    def _checked_epsilon(self) -> float | None:
        """ε: absent without a DP defense (none, dirichlet), else finite > 0 (default 1)."""
        eps = self.epsilon
        if self.defense in ("none", "dirichlet"):
            if eps is not None:
                raise InputError("--epsilon needs a defense (dpsgd, gpm or oneparam); the "
                                 "Dirichlet privatisation takes --k", field="epsilon")
            return eps
        if eps is None:
            eps = 1.0
        if not _finite(eps) or eps <= 0:
            raise InputError(f"must be a finite number > 0, got {eps!r}", field="epsilon")
        return eps

    def _checked_delta(self) -> float | None:
        """δ in (0, 1) for dirichlet (default 0.05), dpsgd and gpm (default 1e-5); absent
        for the other defenses."""
        delta = self.delta
        default = {"dirichlet": 0.05, "dpsgd": 1e-5, "gpm": 1e-5}.get(self.defense)
        if default is None:
            if delta is not None:
                raise InputError("--delta belongs to dpsgd and gpm", field="delta")
            return delta
        delta = default if delta is None else delta
        if not (_finite(delta) and 0 < delta < 1):
            raise InputError(f"must lie in (0, 1), got {delta!r}", field="delta")
        return delta

    def _checked_sizes(self, data: Dataset) -> int | float:
        """The victim's training size (default an eighth of the data, at most 500), after
        checking that the data hold the victim's records and every shadow's."""
        n_in = self.train_size if self.train_size is not None else min(500, data.n // 8)
        if int(n_in) != n_in or n_in < 10:
            raise InputError(f"must be a whole number >= 10, got {n_in!r}",
                             field="train_size")
        pool = data.n - 2 * n_in
        need = (int(self.shadows) + 1) * n_in
        if pool < need:
            most = pool // n_in - 1
            raise InputError(f"{self.shadows} shadows with {n_in} training records each need "
                             f"{need} records besides the victim's {2 * n_in}; the data set "
                             f"has {data.n} records, enough for at most {max(most, 0)} "
                             "shadow(s)", field="shadows")
        return n_in

    def _check_work(self, data: Dataset, n_in: int) -> None:
        """Refuse a study whose training (victim and shadows, every epoch; the sensitivity
        sampler's models too) would pass the time limit, before any model is trained."""
        from core.common.resources import check_time

        d = data.X.shape[1] if data.X.ndim > 1 else 1
        steps = data.seq_shape[0] if self.victim == "rnn" else 1
        macs = n_in * (d * int(self.hidden) + int(self.hidden) * max(data.classes, 2)) * steps
        # measured ~1e-8 s per multiply-add and ~1e-4 s per batch step: x3 for a margin
        epoch = 3e-8 * macs + 3e-4 * math.ceil(n_in / max(int(self.batch), 1))
        models = int(self.shadows) + 1
        if self.defense == "gpm":
            models += int(self.sensitivity_samples)
        epochs = max(int(self.epochs), int(self.dp_epochs) if self.defense == "dpsgd" else 0)
        check_time(models * epochs * epoch, "epochs",
                   detail=f"training {models} models for {epochs:,} epochs on {n_in:,} records")


@dataclass
class MiaResult:
    """One study's numbers (JSON: :meth:`to_json`)."""

    data: str
    victim: str
    defense: str
    setup: MiaSetup
    train_accuracy: float
    test_accuracy: float
    attack_accuracy: float
    auc: float
    tpr_at_fpr: dict[float, float | None]  # None: not resolved (see tpr_at_fpr_reason)
    epsilon_lb: float
    entropy_gap: float
    generalisation_gap: float
    epsilon: float | None
    delta: float | None
    accuracy_cap: float | None
    guarantee: str
    distortion: float | None
    inversion_error: float
    roc: list[tuple[float, float]]
    mode: str
    seed: int | None
    train_s: float
    test_s_per_vector: float
    elapsed_s: float
    members: int
    shadows: int
    extra: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    epsilon_reason: str | None = None
    cap_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``mia --json`` object (docs/formats-and-cli.md §5)."""
        out: dict[str, Any] = {
            "data": self.data, "victim": self.victim, "defense": self.defense,
            "train_accuracy": self.train_accuracy, "test_accuracy": self.test_accuracy,
            "attack_accuracy": self.attack_accuracy, "auc": self.auc,
            "tpr_at_fpr": {f"{k:g}": v for k, v in self.tpr_at_fpr.items()},
            "epsilon_lb": self.epsilon_lb, "entropy_gap": self.entropy_gap,
            "generalisation_gap": self.generalisation_gap,
            "epsilon": self.epsilon, "delta": self.delta,
            "accuracy_cap": self.accuracy_cap, "guarantee": self.guarantee,
            "distortion": self.distortion, "inversion_error": self.inversion_error,
            "members": self.members, "shadows": self.shadows,
            "mode": self.mode, "seed": self.seed, "train_s": self.train_s,
            "test_s_per_vector": self.test_s_per_vector, "elapsed_s": self.elapsed_s,
            "roc": [list(p) for p in self.roc], "notes": list(self.notes),
        }
        out.update(self.extra)
        reasons = {f"{k:g}": unresolved_tpr_reason(k, self.members)
                   for k, v in self.tpr_at_fpr.items() if v is None}
        if reasons:  # as the population study: a null TPR says why
            out["tpr_at_fpr_reason"] = reasons
        if self.epsilon is None:
            out["epsilon_reason"] = self.epsilon_reason
        if self.accuracy_cap is None:
            out["accuracy_cap_reason"] = self.cap_reason
        return out


def _finite(v: Any) -> bool:
    """A finite real number (not a bool)."""
    return (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            and math.isfinite(v))


def _whole(v: Any, least: int) -> bool:
    """A whole number (an int or an integral float, not a bool) >= ``least``."""
    return _finite(v) and int(v) == v and v >= least


def _kind_checks(setup: MiaSetup) -> tuple[tuple[bool, str, str], ...]:
    """(refused, message, field) of the victim and defense kinds and their pairing, in the
    order they are checked (the first refused one is raised; the tabular victim's need of
    MDP data is checked with the data, :meth:`MiaSetup.validated`)."""
    victim, defense = setup.victim, setup.defense
    return (
        (victim not in VICTIM_KINDS,
         f"must be one of {', '.join(VICTIM_KINDS)}, got {victim!r}", "victim"),
        (defense not in DEFENSES,
         f"must be one of {', '.join(DEFENSES)}, got {defense!r}", "defense"),
        (victim == "tabular" and defense == "dpsgd",
         "DP-SGD needs a gradient-trained victim (ffnn, rnn or a network); the "
         "tabular victim counts transitions", "defense"),
        (defense == "dirichlet" and victim != "tabular",
         "the Dirichlet privatisation is the tabular victim's defense "
         "(rows of an MLE model)", "defense"),
    )


def mia_json_keys() -> tuple[str, ...]:
    """The keys the issue's contract names (tests check them)."""
    return ("victim", "defense", "train_accuracy", "test_accuracy", "attack_accuracy", "auc",
            "tpr_at_fpr", "epsilon_lb", "epsilon", "delta", "accuracy_cap", "distortion",
            "inversion_error")


# ---------------------------------------------------------------------------------------------
class _Pipeline:
    """The victim's training algorithm and released outputs (shadows reuse it)."""

    def __init__(self, data: Dataset, setup: MiaSetup, noise: np.random.Generator | SecureRandom,
                 networks: NetworkFactory | None = None):
        self.data, self.setup, self.noise = data, setup, noise
        self.kind = setup.victim
        if self.kind == "rnn":
            self.X = as_sequences(data.X, data.seq_shape)
        else:
            self.X = data.X
        self.y = data.y
        if setup.defense == "dpsgd":
            self.cfg = TrainConfig(epochs=setup.dp_epochs, batch=setup.dp_batch,
                                   lr=float(setup.dp_lr), momentum=0.0)
        else:
            self.cfg = TrainConfig(epochs=setup.epochs, batch=setup.batch,
                                   lr=float(setup.lr or 0.1))
        self.net: Any = None
        if self.kind in NETWORK_VICTIMS:
            if networks is None:
                raise InputError(f"the {self.kind} victim is a network on JAX: run it through "
                                 "a front end that has the 'deep' extra (mia --model)",
                                 field="victim")
            self.net = networks(self.kind, data, int(setup.hidden))
        elif self.kind != "tabular":
            self.net = Network(self.kind, self.X.shape[1:], data.classes, setup.hidden)
        self.sigma: float | None = None
        self.last_counts = np.zeros(0)

    # tabular victim: MLE model → optional Dirichlet privatisation (→ value iteration)
    def _model(self, rows: np.ndarray) -> MDP:
        from core.mdp.model import with_transitions

        S, A = self.data.mdp_dims  # type: ignore[misc]
        P = rows.reshape(S, A, S).copy()
        P[~self.data.mdp.mask] = 0.0  # unavailable actions have no row
        return with_transitions(self.data.mdp, P, name="MLE model")

    def _privatise(self, rows: np.ndarray) -> np.ndarray:
        from core.common.validation import RandomSource
        from core.mdp.privatize import privatize_mdp

        src = (self.noise if isinstance(self.noise, np.random.Generator)
               else RandomSource(self.noise, "release", None))
        # every row is already smoothed (tabular_rows): full support and every entry at
        # least λ/S, the declared η, so no further mixing (nothing data-dependent)
        private = privatize_mdp(self._model(rows), float(self.setup.k), rng=src,
                                zeros="support", **self.domain())
        return private.mdp.P.reshape(-1, self.data.classes)

    def domain(self) -> dict[str, Any]:
        """The declared domain of the smoothed rows: every entry >= λ/S (a hair below it, so
        no rounding can put an entry outside), rows used as they are."""
        return {"eta": TABULAR_SMOOTHING / self.data.classes * (1 - 1e-9),
                "domain_rule": "refuse"}

    def public_model(self) -> Any:
        """A model with the victim's public structure only (uniform rows on the available
        actions): every smoothed row has full support, so the accounting needs nothing else."""
        return self._model(np.full(self.data.mdp.P.size, 1.0 / self.data.classes))

    def policy_values(self, theta: np.ndarray) -> tuple[float, float]:
        """V^π̂(s₀) on the true MDP of the policy value iteration finds on the released
        model, and V*(s₀)."""
        from core.mdp.synthesis import evaluate_policy, synthesize

        mdp = self.data.mdp
        pol = synthesize(self._model(theta)).policy
        v = evaluate_policy(mdp, pol)
        v_opt = synthesize(mdp).values
        s0 = mdp.initial_state

        def pick(a: np.ndarray) -> float:  # a finite horizon's values are per stage
            return float(a[0, s0]) if mdp.horizon is not None else float(a[s0])

        return pick(v), pick(v_opt)

    # tabular victim: P̂(next | s, a) from counts; unseen rows uniform
    def _sa(self, idx: np.ndarray) -> np.ndarray:
        S, A = self.data.mdp_dims  # type: ignore[misc]
        x = self.X[idx]
        s = x[:, S + A:2 * S + A].argmax(axis=1)
        a = x[:, 2 * S + A:].argmax(axis=1)
        result: np.ndarray = s * A + a
        return result

    def fit(self, idx: np.ndarray, rng: np.random.Generator,
            cancelled: Callable[[], bool] | None, *, dp: bool = True) -> np.ndarray:
        if self.kind == "tabular":
            S, A = self.data.mdp_dims  # type: ignore[misc]
            counts = np.zeros((S * A, self.data.classes))
            np.add.at(counts, (self._sa(idx), self.y[idx]), 1.0)
            self.last_counts = counts.sum(axis=1)
            if dp and self.setup.defense == "dirichlet":
                return self._privatise(tabular_rows(counts)).ravel()
            return tabular_rows(counts, smoothing=0.0).ravel()
        assert self.net is not None
        dps = (DpSgd(self.sigma, self.setup.clip) if dp and self.setup.defense == "dpsgd"
               and self.sigma is not None else None)
        theta: np.ndarray = self.net.fit(self.X[idx], self.y[idx], self.cfg, rng=rng, dp=dps,
                                         noise=self.noise, cancelled=cancelled)
        return theta

    def raw(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        if self.kind == "tabular":
            table = theta.reshape(-1, self.data.classes)
            result: np.ndarray = table[self._sa(idx)]
            return result
        assert self.net is not None
        result = self.net.predict_proba(theta, self.X[idx])
        return result

    def release_params(self, theta: np.ndarray) -> np.ndarray:
        """GPM: θ̃ = θ + N(0, σ²I) once (tabular: then clipped and renormalised per row)."""
        if self.setup.defense != "gpm":
            return theta
        assert self.sigma is not None
        t: np.ndarray = theta + self.sigma * self.noise.standard_normal(theta.size)
        if self.kind == "tabular":
            rows = np.maximum(t.reshape(-1, self.data.classes), 1e-6)
            t = (rows / rows.sum(axis=1, keepdims=True)).ravel()
        return t

    def outputs(self, theta: np.ndarray, idx: np.ndarray, *, defended: bool = True
                ) -> np.ndarray:
        conf = self.raw(theta, idx)
        if defended and self.setup.defense == "oneparam":
            conf = oneparam_release(conf, float(self.setup.epsilon or 1.0), self.noise,
                                    m=self.setup.granularity, preset=self.setup.preset)
        return conf


def _features(conf: np.ndarray, y: np.ndarray) -> np.ndarray:
    py = conf[np.arange(y.size), y]
    return np.column_stack([-np.sort(-conf, axis=1), py, -np.log(np.clip(py, 1e-300, 1.0)),
                            entropy(conf)])


class _AttackModel:
    """ML-Leaks' attack: standardised features into an MLP with one hidden layer of 64."""

    def __init__(self, seed: int) -> None:
        from sklearn.neural_network import MLPClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        self.model = make_pipeline(StandardScaler(), MLPClassifier(
            hidden_layer_sizes=(64,), max_iter=300, random_state=seed))

    def fit(self, X: np.ndarray, y: np.ndarray) -> "_AttackModel":
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        with warnings.catch_warnings():  # 300 iterations are the budget, not an error
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.model.fit(X, y)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        result: np.ndarray = self.model.predict_proba(X)
        return result


def _finite_outputs(conf: np.ndarray, lr: float | None) -> np.ndarray:
    """``conf`` if every output is finite; else training diverged at this learning rate
    (a NaN would reach the attack model as a crash): an :class:`InputError` naming ``lr``."""
    if not np.all(np.isfinite(conf)):
        raise InputError(f"training diverged at learning rate {lr:g}: the model's outputs are "
                         "not finite; choose a smaller learning rate", field="lr")
    return conf



def _roc_metrics(scores_in: np.ndarray, scores_out: np.ndarray
                 ) -> tuple[float, dict[float, float | None], list[tuple[float, float]]]:
    from sklearn.metrics import roc_auc_score, roc_curve

    y = np.r_[np.ones(scores_in.size), np.zeros(scores_out.size)]
    s = np.r_[scores_in, scores_out]
    auc = float(roc_auc_score(y, s))
    fpr, tpr, _ = roc_curve(y, s)
    # null where the non-members cannot hold one false positive at f (the population
    # study's rule, one function)
    tpr_at = {f: None if unresolved_tpr_reason(f, scores_out.size) is not None
              else float(tpr[fpr <= f].max()) for f in FPRS}
    from core.audit.stats import thin_roc

    return auc, tpr_at, thin_roc(fpr, tpr)


_SENS_CACHE: dict[tuple[Any, ...], Any] = {}


def _digest(data: Dataset) -> str:
    import hashlib

    return hashlib.sha1(np.ascontiguousarray(data.X).tobytes()
                        + np.ascontiguousarray(data.y).tobytes()).hexdigest()


@dataclass
class _Claim:
    """What a study states about its defense, filled in stage by stage: (ε, δ), the guarantee
    in words, why ε or the accuracy cap is absent, the extra numbers and the notes."""

    eps: float | None
    delta: float | None
    notes: list[str]
    guarantee: str = "none (no defense)"
    eps_reason: str | None = "no DP defense"
    cap_reason: str | None = "no DP defense"
    extra: dict[str, Any] = field(default_factory=dict)


def _calibrate_dpsgd(pipe: _Pipeline, setup: MiaSetup, n_in: int, claim: _Claim,
                     progress: Progress) -> None:
    """DP-SGD: the noise σ for the target (ε, δ), and the ε the accountant proves for it."""
    from core.privacy.dpsgd import dpsgd_epsilon, noise_for_epsilon

    delta = claim.delta
    q = min(1.0, pipe.cfg.batch / n_in)
    steps = train_steps(n_in, pipe.cfg)
    progress(0.0, "calibrating DP-SGD noise")
    pipe.sigma = noise_for_epsilon(float(claim.eps), q, steps, float(delta))  # type: ignore[arg-type]
    acc = dpsgd_epsilon(pipe.sigma, q, steps, float(delta))  # type: ignore[arg-type]
    claim.eps = eps = float(acc.epsilon)  # type: ignore[arg-type]
    claim.extra.update(sigma=pipe.sigma, sample_rate=q, steps=steps, clip=setup.clip,
                       order=acc.order, accountant="dp-accounting RDP")
    claim.guarantee = (f"({eps:.3g}, {delta:g})-DP for the trained model (DP-SGD, RDP "
                       f"accountant of dp-accounting; {acc.adjacency})")


def _dirichlet_rows(pipe: _Pipeline, setup: MiaSetup, claim: _Claim) -> None:
    """The Dirichlet defense's row-level (ε, δ) at L1 radius b, before any training."""
    from core.mdp.accounting import mdp_privacy
    from core.mdp.privatize import mechanism_rows

    # rows at L1 distance b before the victim's smoothing are (1 − λ)·b apart after it
    public = pipe.public_model()
    priv = mdp_privacy(public, float(setup.k), b=float(setup.b) * (1 - TABULAR_SMOOTHING),
                       delta_target=float(claim.delta),  # type: ignore[arg-type]
                       zeros="support", **pipe.domain())
    claim.extra.update(k=float(setup.k), b=float(setup.b), epsilon_row=priv.epsilon,
                       delta_row=priv.delta, smoothing=TABULAR_SMOOTHING,
                       eta=pipe.domain()["eta"],
                       mix_contraction=float(mechanism_rows(public, **pipe.domain())
                                             .contraction.min()),
                       record_relation=RECORD_RELATION)


def _gpm_victim(pipe: _Pipeline, data: Dataset, setup: MiaSetup, members: np.ndarray,
                s_sens: np.random.SeedSequence, claim: _Claim, progress: Progress | None,
                cancelled: Callable[[], bool] | None) -> np.ndarray:
    """GPM: the sensitivity estimate of the deterministic learner, the noise σ it calls for,
    and the victim trained by that learner (its parameters not yet released)."""
    n_in = members.size
    # the deterministic learner A_H: fixed initialisation seed and data order
    sens_seed = int(np.random.default_rng(s_sens).integers(2**31))

    def det_train(ix: np.ndarray) -> np.ndarray:
        return pipe.fit(ix, np.random.default_rng(sens_seed), cancelled, dp=False)

    # the estimate depends on the data, the learner and the seed, not on ε: a defense
    # table's GPM rows (same split and seed) share it
    key = (data.name, _digest(data), n_in, setup.victim, setup.hidden, setup.epochs,
           setup.batch, setup.lr, sens_seed, setup.sensitivity_samples)
    est = _SENS_CACHE.get(key)
    if est is None:
        est = sensitivity_sampler(det_train, data.n, n_in, setup.sensitivity_samples,
                                  np.random.default_rng(s_sens), progress=progress,
                                  cancelled=cancelled)
        if len(_SENS_CACHE) >= 4:
            _SENS_CACHE.clear()
        _SENS_CACHE[key] = est
    eps, delta = claim.eps, claim.delta
    pipe.sigma = gpm_sigma(est.value, float(eps), float(delta))  # type: ignore[arg-type]
    claim.extra.update(sigma=pipe.sigma, sensitivity=est.value,
                       sensitivity_samples=est.samples, gamma=est.gamma)
    claim.guarantee = (f"({eps:g}, {delta:g})-random-DP with confidence 1 − γ = "
                       f"{1 - est.gamma:.3f} (Thm 5.3, γ from {est.samples} sampled pairs): "
                       "the sensitivity is an empirical estimate, not a worst-case bound, so "
                       "this is weaker than DP")
    claim.notes.append("GPM: S̄ is the largest of the sampled replace-one distances; an "
                       "unlucky data set can exceed it (probability ≤ γ)")
    return det_train(members)


def _dirichlet_records(pipe: _Pipeline, data: Dataset, setup: MiaSetup, claim: _Claim
                       ) -> None:
    """The Dirichlet defense's record-level (ε, δ) from the trained victim's visit counts,
    or why there is none."""
    from core.mdp.accounting import mdp_privacy

    # Under RECORD_RELATION a row with n records moves by a two-entry move of L1 2/n, so
    # (1 − λ)·2/n after the smoothing: the row analysis at the radius of the fewest
    # records. The visit counts are public under that relation, so reading them leaks
    # nothing. One record moves one row: no factor 2 (docs/privacy-statements.md).
    extra = claim.extra
    avail = data.mdp.mask.ravel()
    visited = pipe.last_counts[avail]
    visited = visited[visited > 0]
    n_min = int(visited.min()) if visited.size else 0
    e_row, d_row = extra["epsilon_row"], extra["delta_row"]
    extra["fewest_samples_per_row"] = n_min
    radius = 2.0 * (1 - TABULAR_SMOOTHING) / n_min if n_min else 0.0
    extra["record_radius"] = radius
    rec = None
    if 0 < radius <= 1:
        rec = mdp_privacy(pipe.public_model(), float(setup.k), b=radius,
                          delta_target=float(claim.delta),  # type: ignore[arg-type]
                          zeros="support", **pipe.domain())
    if rec is not None and math.isfinite(rec.epsilon):
        claim.eps, claim.delta = eps, delta = float(rec.epsilon), float(rec.delta)
        claim.guarantee = (
            f"({eps:.4g}, {delta:.3g})-DP for {RECORD_RELATION}: it moves 1/n "
            "between two next states of its own row (n = the records with that "
            f"(s, a), at least {n_min}), so after the smoothing of every row by "
            f"λ = {TABULAR_SMOOTHING:g} a two-entry move of L1 ≤ {radius:.4g}; "
            "the row analysis of the MDP pipeline at that radius (exact privacy "
            f"profile). Rows are ({e_row:.4g}, {d_row:.3g})-DP at L1 radius b = "
            f"{setup.b:g}. Replacing, adding or removing a whole record changes "
            "n_sa and renormalises its row: no statement is made for that")
        claim.eps_reason = None
    else:
        claim.eps = None
        claim.eps_reason = (f"a visited (s, a) has {n_min} record(s): replacing its next state "
                            f"moves the row by L1 {radius:.4g}, beyond the row analysis's "
                            "radius (at most 1)" if n_min else "no record was trained on")
        claim.guarantee = (f"rows are ({e_row:.4g}, {d_row:.3g})-DP at L1 radius b = "
                           f"{setup.b:g}; no record-level statement ({claim.eps_reason})")
    claim.cap_reason = ("the study's membership game compares whole records (members and "
                        "non-members differ in their (s, a) too), outside the relation the "
                        "record-level statement is proven for: no cap on the attack follows")


def _oneparam_claim(pipe: _Pipeline, data: Dataset, setup: MiaSetup, theta: np.ndarray,
                    members: np.ndarray, out_in: np.ndarray, claim: _Claim) -> float:
    """The one-parameter defense: its per-vector (k·ε, 0) statement and ε* statistics; returns
    the mean distortion of the released member vectors."""
    raw_in = pipe.raw(theta, members)
    distortion = float(np.mean(np.linalg.norm(out_in - raw_in, axis=1)))
    k = data.classes
    eps_choice = float(setup.epsilon or 1.0)
    eps_vec = k * eps_choice
    # ε* of eq. 6.5 (z = y) per released member vector, (max, min) pair (A22)
    _z, sel = oneparam_release(raw_in[:200], eps_choice, np.random.default_rng(0),
                               m=setup.granularity, preset=setup.preset,
                               return_selected=True)
    stars = np.array([oneparam_epsilon_star(y_, s_) for y_, s_ in zip(raw_in[:200], sel)])
    stars = stars[np.isfinite(stars)]
    claim.extra.update(epsilon_choice=eps_choice, granularity=setup.granularity,
                       preset=setup.preset, query_bound_eps5=query_bound(5.0, k, eps_choice),
                       epsilon_star_median=float(np.median(stars)) if stars.size else None)
    claim.guarantee = (f"each released vector is ({eps_vec:g}, 0)-DP (k·ε = {k}·{claim.eps:g}, "
                       "Thm 6.1) for neighbouring confidence vectors with the same sub-ranges; "
                       "this is not a guarantee about training-set membership, and b queries "
                       f"of the same record compose to b·{eps_vec:g}"
                       + ("; thesis preset: utility 1/|y − c| is unbounded, not formally DP"
                          if setup.preset == "thesis" else ""))
    claim.cap_reason = ("the one-parameter defense's ε protects a confidence vector against "
                        "its neighbours, not a record's membership: no cap follows")
    claim.notes.append("one-parameter defense: ε is a per-choice parameter; a vector costs "
                       "k·ε and repeated queries compose (erratum: the data-dependent "
                       "sub-ranges are not protected)")
    claim.eps, claim.delta = eps_vec, 0.0
    return distortion


def _shadow_features(pipe: _Pipeline, setup: MiaSetup, pool: np.ndarray, n_in: int,
                     s_shadow: np.random.SeedSequence, check: Callable[[], None],
                     cancelled: Callable[[], bool] | None, progress: Progress
                     ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The attack's training records from K shadow models (the attacker knows the algorithm,
    hyperparameters and defense): features of the released outputs, the member bits, and
    (one-parameter defense) the features of the undefended outputs."""
    y = pipe.data.y
    feats, bits, feats_hidden = [], [], []
    shadow_rngs = [np.random.default_rng(s) for s in s_shadow.spawn(setup.shadows)]
    out_slice = pool[setup.shadows * n_in:(setup.shadows + 1) * n_in]
    for j in range(setup.shadows):
        check()
        sh_in = pool[j * n_in:(j + 1) * n_in]
        th = pipe.release_params(pipe.fit(sh_in, shadow_rngs[j], cancelled))
        for ix, bit in ((sh_in, 1), (out_slice, 0)):
            conf = _finite_outputs(pipe.outputs(th, ix), setup.lr)
            feats.append(_features(conf, y[ix]))
            bits.append(np.full(ix.size, bit))
            if setup.defense == "oneparam":
                feats_hidden.append(_features(pipe.raw(th, ix), y[ix]))
        progress((j + 1) / setup.shadows, f"shadow {j + 1}/{setup.shadows}")
    return feats, bits, feats_hidden


def _hidden_attack_accuracy(feats_hidden: list[np.ndarray], bits: list[np.ndarray],
                            att_seed: int, x_in: np.ndarray, x_out: np.ndarray) -> float:
    """The balanced accuracy of an attack trained on undefended shadows (the thesis's threat
    model: the one-parameter modification hidden) against the released outputs."""
    clf_h = _AttackModel(att_seed).fit(np.vstack(feats_hidden), np.concatenate(bits))
    ph_in = clf_h.predict_proba(x_in)[:, 1]
    ph_out = clf_h.predict_proba(x_out)[:, 1]
    return float(((ph_in >= 0.5).sum() + (ph_out < 0.5).sum()) / (2 * x_in.shape[0]))


def _close_claim(setup: MiaSetup, claim: _Claim) -> float | None:
    """The accuracy cap (e^ε + δ)/(1 + e^ε) where a DP statement gives one; settles which
    reasons still stand."""
    from core.privacy.composition import accuracy_cap

    cap = None
    if setup.defense in ("dpsgd", "gpm") and claim.eps is not None:
        cap = accuracy_cap(float(claim.eps), float(claim.delta or 0.0))
        claim.cap_reason = None
        if setup.defense == "gpm":
            claim.extra["accuracy_cap_note"] = "holds with probability ≥ 1 − γ (random DP)"
    if setup.defense in ("dpsgd", "gpm", "oneparam"):
        claim.eps_reason = None
    return cap


def _train_victim(pipe: _Pipeline, members: np.ndarray,
                  seeds: tuple[np.random.SeedSequence, np.random.SeedSequence], claim: _Claim,
                  progress: Progress, cancelled: Callable[[], bool] | None,
                  check: Callable[[], None]) -> tuple[np.ndarray, float]:
    """The defense's parameters, then the victim trained on ``members`` and its parameters
    released; with the training's duration in seconds. ``seeds``: the victim's and the
    GPM sensitivity estimate's."""
    data, setup = pipe.data, pipe.setup
    s_victim, s_sens = seeds
    if setup.defense == "dpsgd":
        _calibrate_dpsgd(pipe, setup, members.size, claim, progress)
    if setup.defense == "dirichlet":
        _dirichlet_rows(pipe, setup, claim)
    t_train0 = time.perf_counter()
    sens_prog = sub_progress(progress, 0.0, 0.35) if setup.defense == "gpm" else None
    vic_prog = sub_progress(progress, 0.35 if sens_prog else 0.0, 0.45 if sens_prog else 0.2)
    if setup.defense == "gpm":
        victim_theta = _gpm_victim(pipe, data, setup, members, s_sens, claim, sens_prog,
                                   cancelled)
    else:
        victim_theta = pipe.fit(members, np.random.default_rng(s_victim), cancelled)
    check()
    vic_prog(1.0, "victim trained")
    victim_theta = pipe.release_params(victim_theta)
    train_s = time.perf_counter() - t_train0
    if setup.victim == "tabular":
        v_pi, v_opt = pipe.policy_values(victim_theta)
        claim.extra.update(policy_value=v_pi, optimal_value=v_opt)
        claim.notes.append(f"value iteration on the released model: its policy earns "
                           f"{v_pi:.4g} on the true MDP (optimal {v_opt:.4g})")
    if setup.defense == "dirichlet":
        _dirichlet_records(pipe, data, setup, claim)
    return victim_theta, train_s


def run_mia(data: Dataset, setup: MiaSetup, *, seed: int | None = None,
            progress: Progress = no_progress,
            cancelled: Callable[[], bool] | None = None,
            networks: NetworkFactory | None = None) -> MiaResult:
    """Run one study (see the module docstring).

    Parameters
    ----------
    data : Dataset
        The records.
    setup : MiaSetup
        Victim, defense, shadows and training.
    seed : int, optional
        Experiment seed; None is release mode (fresh seed for the split and training, DP
        noise from the OS CSPRNG).
    progress : callable
        ``progress(fraction, message)``.
    cancelled : callable, optional
        Polled between stages and epochs; raises :class:`Cancelled`.
    networks : callable, optional
        ``networks(kind, data, hidden)`` builds a network victim (``mlp``, ``cnn``, ``gru``,
        ``lstm``; :func:`core.deep.victims.network_victim`, the ``deep`` extra); the lab
        never imports JAX itself.

    Returns
    -------
    MiaResult
    """
    from core.audit.stats import epsilon_lb as f3_lb
    from core.common.validation import as_random_source, fresh_seed

    t_start = time.perf_counter()
    setup = setup.validated(data)
    src = as_random_source(seed)
    base_seed = seed if seed is not None else fresh_seed()
    ss = np.random.SeedSequence(base_seed)
    s_split, s_victim, s_shadow, s_attack, s_sens = ss.spawn(5)
    # the DP noise: its own seeded stream in an experiment, the OS CSPRNG in release mode
    noise = (np.random.default_rng(ss.spawn(1)[0]) if src.mode == "experiment"
             else src.generator)
    pipe = _Pipeline(data, setup, noise, networks)
    n_in = int(setup.train_size or 0)
    perm = np.random.default_rng(s_split).permutation(data.n)
    members, nonmembers, pool = perm[:n_in], perm[n_in:2 * n_in], perm[2 * n_in:]
    claim = _Claim(setup.epsilon, setup.delta, list(data.notes))

    def check() -> None:
        if cancelled is not None and cancelled():
            raise Cancelled()

    victim_theta, train_s = _train_victim(pipe, members, (s_victim, s_sens), claim, progress,
                                          cancelled, check)

    # --- the victim's released outputs --------------------------------------------------------
    t0 = time.perf_counter()
    out_in = _finite_outputs(pipe.outputs(victim_theta, members), setup.lr)
    out_out = _finite_outputs(pipe.outputs(victim_theta, nonmembers), setup.lr)
    test_s = (time.perf_counter() - t0) / (2 * n_in)
    distortion = (_oneparam_claim(pipe, data, setup, victim_theta, members, out_in, claim)
                  if setup.defense == "oneparam" else None)
    train_acc = float((out_in.argmax(1) == data.y[members]).mean())
    test_acc = float((out_out.argmax(1) == data.y[nonmembers]).mean())
    ent_gap = float(entropy(out_in).mean() - entropy(out_out).mean())

    # --- shadows and the attack ---------------------------------------------------------------
    feats, bits, feats_hidden = _shadow_features(
        pipe, setup, pool, n_in, s_shadow, check, cancelled,
        sub_progress(progress, 0.45 if setup.defense == "gpm" else 0.2, 0.8))
    check()
    progress(0.82, "training the attack model")
    att_seed = int(np.random.default_rng(s_attack).integers(2**31))
    clf = _AttackModel(att_seed).fit(np.vstack(feats), np.concatenate(bits))
    x_in, x_out = _features(out_in, data.y[members]), _features(out_out, data.y[nonmembers])
    p_in, p_out = clf.predict_proba(x_in)[:, 1], clf.predict_proba(x_out)[:, 1]
    tp, fp = int((p_in >= 0.5).sum()), int((p_out >= 0.5).sum())
    att_acc = (tp + (n_in - fp)) / (2 * n_in)
    auc, tpr_at, roc = _roc_metrics(p_in, p_out)
    d_for_lb = float(claim.delta) if claim.delta else 0.0
    eps_lb = float(f3_lb(fp, n_in, n_in - tp, n_in, d_for_lb, 0.95))
    if setup.defense == "oneparam":
        claim.extra["attack_accuracy_hidden"] = _hidden_attack_accuracy(
            feats_hidden, bits, att_seed, x_in, x_out)
        claim.notes.append("attack_accuracy: the attacker knows the defense (its shadows use "
                           "it); attack_accuracy_hidden: the thesis's threat model "
                           "(modification hidden, shadows undefended)")

    # --- model inversion ----------------------------------------------------------------------
    check()
    progress(0.9, "training the inversion network")
    inv_err = _inversion(pipe, victim_theta, pool, members, att_seed)
    claim.extra["pool_queries"] = int(pool.size)
    cap = _close_claim(setup, claim)
    eps, delta = claim.eps, claim.delta
    unbounded = setup.defense == "none" or (setup.defense == "dirichlet" and eps is None)
    claim.notes.append("ε_lb uses the attack's error rates with 95 % Clopper–Pearson limits; "
                       "the trials share one trained model, so it is indicative, not a "
                       "certified bound")
    progress(1.0, "done")
    return MiaResult(
        data=data.name, victim=setup.victim, defense=setup.defense, setup=setup,
        train_accuracy=train_acc, test_accuracy=test_acc, attack_accuracy=float(att_acc),
        auc=auc, tpr_at_fpr=tpr_at, epsilon_lb=eps_lb, entropy_gap=ent_gap,
        generalisation_gap=train_acc - test_acc,
        epsilon=None if unbounded else float(eps),  # type: ignore[arg-type]
        delta=None if unbounded else float(delta or 0.0),
        accuracy_cap=cap, guarantee=claim.guarantee, distortion=distortion,
        inversion_error=inv_err, roc=roc, mode=src.mode, seed=seed, train_s=train_s,
        test_s_per_vector=test_s, elapsed_s=time.perf_counter() - t_start, members=n_in,
        shadows=setup.shadows, extra=claim.extra, notes=claim.notes,
        epsilon_reason=claim.eps_reason, cap_reason=claim.cap_reason)


def _inversion(pipe: _Pipeline, theta: np.ndarray, pool: np.ndarray, members: np.ndarray,
               seed: int) -> float:
    """MSE of an MLP regressor conf → record, trained on the attacker's queries."""
    from sklearn.neural_network import MLPRegressor

    X = pipe.data.X
    reg = MLPRegressor(hidden_layer_sizes=(64,), max_iter=300, random_state=seed)
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(pipe.outputs(theta, pool), X[pool])
    rec = reg.predict(pipe.outputs(theta, members))
    return float(np.mean((rec - X[members]) ** 2))


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableRow:
    """One row of the Table 6.2-shaped comparison."""

    defense: str
    epsilon: float | None
    result: MiaResult
    k: float | None = None
    #: prefix the label with the victim (a comparison of victims)
    show_victim: bool = False

    @property
    def label(self) -> str:
        base = self._label()
        return f"{self.result.victim}: {base}" if self.show_victim else base

    def _label(self) -> str:
        names = {"none": "No defense", "dpsgd": "DP-SGD", "gpm": "GPM",
                 "oneparam": "One-parameter", "dirichlet": "Dirichlet rows"}
        if self.k is not None:
            return f"{names[self.defense]} (k = {self.k:g})"
        if self.epsilon is None:
            return names[self.defense]
        return f"{names[self.defense]} (ε = {self.epsilon:g})"

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {"defense": self.defense, "epsilon_setting": self.epsilon, "label": self.label,
                "k": self.k, "victim": self.result.victim,
                "train_accuracy": r.train_accuracy, "test_accuracy": r.test_accuracy,
                "distortion": r.distortion, "inversion_error": r.inversion_error,
                "attack_accuracy": r.attack_accuracy, "auc": r.auc,
                "epsilon": r.epsilon, "delta": r.delta, "accuracy_cap": r.accuracy_cap,
                "train_s": r.train_s, "test_s_per_vector": r.test_s_per_vector,
                "attack_accuracy_hidden": r.extra.get("attack_accuracy_hidden"),
                "roc": [list(p) for p in r.roc]}


def defense_plan(victim: str, *, epsilons: dict[str, tuple[float, ...]] | None = None,
                 defenses: tuple[str, ...] = DEFENSES
                 ) -> list[tuple[str, float | None, float | None]]:
    """The rows :func:`defense_table` runs for ``victim``: (defense, ε, k) each — no
    defense, each DP defense at each of its ε (DP-SGD not for the tabular victim) and, for
    the tabular victim, the Dirichlet rows at each k of :data:`DEFAULT_TABLE_KS`.

    Examples
    --------
    >>> defense_plan("ffnn", defenses=("none", "gpm"))
    [('none', None, None), ('gpm', 1.0, None), ('gpm', 4.0, None), ('gpm', 8.0, None)]
    """
    eps = dict(DEFAULT_TABLE_EPSILONS if epsilons is None else epsilons)
    plan: list[tuple[str, float | None, float | None]] = []
    for d in defenses:
        if d == "none":
            plan.append(("none", None, None))
        elif d == "dirichlet":
            if victim == "tabular":
                plan.extend(("dirichlet", None, k) for k in DEFAULT_TABLE_KS)
        elif not (d == "dpsgd" and victim == "tabular"):
            plan.extend((d, e, None) for e in eps.get(d, ()))
    return plan


def defense_table(data: Dataset, base: MiaSetup, *, seed: int | None = None,
                  epsilons: dict[str, tuple[float, ...]] | None = None,
                  defenses: tuple[str, ...] = DEFENSES, progress: Progress = no_progress,
                  cancelled: Callable[[], bool] | None = None,
                  networks: NetworkFactory | None = None) -> list[TableRow]:
    """Every defense at several ε on the same split and seed (Table 6.2's shape).

    Parameters
    ----------
    data : Dataset
        The records.
    base : MiaSetup
        Victim and training (its defense and ε are replaced per row).
    seed : int, optional
        Experiment seed (the same for every row, so rows differ only by the defense).
    epsilons : dict, optional
        ε per defense (default :data:`DEFAULT_TABLE_EPSILONS`).
    defenses : tuple of str
        Which defenses.
    progress, cancelled : callable
        As in :func:`run_mia`.
    networks : callable, optional
        As in :func:`run_mia` (network victims, the ``deep`` extra).

    Returns
    -------
    list of TableRow
    """
    plan = defense_plan(base.victim, epsilons=epsilons, defenses=defenses)
    rows = []
    for i, (d, e, k) in enumerate(plan):
        st = replace(base, defense=d, epsilon=e, delta=None,
                     k=float(k) if k is not None else base.k)
        r = run_mia(data, st, seed=seed, progress=sub_progress(progress, i / len(plan),
                                                               (i + 1) / len(plan)),
                    cancelled=cancelled, networks=networks)
        rows.append(TableRow(d, e, r, k))
    return rows


def victim_table(data: Dataset, base: MiaSetup, *, seed: int | None = None,
                 victims: tuple[str, ...] = ("ffnn", "rnn"), progress: Progress = no_progress,
                 cancelled: Callable[[], bool] | None = None,
                 networks: NetworkFactory | None = None) -> list[TableRow]:
    """The same study (defense, ε, split and seed) for each victim, side by side — the RNN
    paper's comparison, qualitative at this scale.

    Parameters
    ----------
    data : Dataset
        The records.
    base : MiaSetup
        Defense and training (its victim is replaced per row).
    seed : int, optional
        Experiment seed (the same split for every victim).
    victims : tuple of str
        Which victims.
    progress, cancelled : callable
        As in :func:`run_mia`.
    networks : callable, optional
        As in :func:`run_mia` (network victims, the ``deep`` extra).

    Returns
    -------
    list of TableRow
    """
    rows = []
    for i, v in enumerate(victims):
        st = replace(base, victim=v)
        r = run_mia(data, st, seed=seed, progress=sub_progress(progress, i / len(victims),
                                                               (i + 1) / len(victims)),
                    cancelled=cancelled, networks=networks)
        rows.append(TableRow(base.defense, base.epsilon, r, None, show_victim=True))
    return rows
