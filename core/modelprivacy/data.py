"""Data sets of the model privacy lab: no downloads.

* scikit-learn's bundled ``digits`` (1,797 8×8 images, 10 classes; as a sequence: 8 rows of 8
  pixels), ``breast-cancer`` (569 × 30, 2 classes) and ``wine`` (178 × 13, 3 classes);
* ``text``: a sequence task that needs no download — 2,000 strings of 20 characters over a
  12-letter alphabet, each written by one of four synthetic "languages" (first-order Markov
  chains with sparse random transitions, drawn once from a fixed seed), the label being the
  language (language identification); a record is the one-hot characters, its sequence view
  one character per step (20 × 12);
* a user CSV file: numeric feature columns, the *last* column the class label (an optional
  header row is skipped);
* ``mdp:FILE``: next-state prediction on trajectories sampled from an MDP (uniformly random
  actions from the initial state): a record is two consecutive steps
  (one-hot state ⊕ one-hot action) and its label the state that follows.

Features are scaled with constants that do not depend on the records (digits: /16; MDP data:
one-hot) or, for breast-cancer, wine and CSV files, standardised with the whole file's mean and
standard deviation. That standardisation is treated as public preprocessing (as in the
sources' experiments); it is not covered by any DP statement and the result says so.

Every record also has a *sequence view* for the recurrent victim: ``seq_shape = (steps,
features)`` with the flat vector zero-padded to ``steps × features``.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from core.common.errors import InputError

if TYPE_CHECKING:
    from core.mdp.model import MDP

__all__ = ["Dataset", "BUILTIN", "load_dataset", "csv_dataset", "mdp_dataset", "as_sequences",
           "CSV_MAX_BYTES", "text_dataset"]

#: Largest CSV data set read (a lab data set of 100,000 records x 100 features is ~ 100 MB).
CSV_MAX_BYTES = 256 * 2**20

BUILTIN = ("digits", "breast-cancer", "wine", "text")


@dataclass(frozen=True)
class Dataset:
    """Records ``X`` (n × d, float64), labels ``y`` (0..classes−1) and the sequence view."""

    name: str
    X: np.ndarray
    y: np.ndarray
    classes: int
    seq_shape: tuple[int, int]
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: (states, actions) for next-state records of an MDP (the tabular victim needs them)
    mdp_dims: tuple[int, int] | None = None
    #: the MDP the records were sampled from (its rewards, horizon and mask are public)
    mdp: Any = None

    @property
    def n(self) -> int:
        return int(self.X.shape[0])


def _seq_shape(d: int) -> tuple[int, int]:
    steps = math.ceil(math.sqrt(d))
    return steps, math.ceil(d / steps)


def as_sequences(X: np.ndarray, seq_shape: tuple[int, int]) -> np.ndarray:
    """The (n, steps, features) view of flat records, zero-padded.

    Parameters
    ----------
    X : numpy.ndarray
        (n, d) records.
    seq_shape : (int, int)
        (steps, features) with steps·features ≥ d.

    Returns
    -------
    numpy.ndarray
    """
    n, d = X.shape
    steps, feats = seq_shape
    out = np.zeros((n, steps * feats))
    out[:, :d] = X
    return out.reshape(n, steps, feats)


def _finish(name: str, X: np.ndarray, labels: np.ndarray, *,
            seq_shape: tuple[int, int] | None = None,
            notes: tuple[str, ...] = (), field_name: str = "data",
            mdp_dims: tuple[int, int] | None = None, mdp: Any = None) -> Dataset:
    if X.shape[0] == 0:
        raise InputError("has no records", field=field_name)
    uniq, y = np.unique(labels, return_inverse=True)
    classes = int(uniq.size)
    if mdp_dims is not None:  # next states keep their state index: the labels are S classes
        y, classes = np.asarray(labels, dtype=np.int64), mdp_dims[0]
    if uniq.size < 2:
        raise InputError(f"has one class only ({str(uniq[0])!r}): membership inference needs a "
                         "classification task with at least 2 classes", field=field_name)
    if X.shape[0] < 40:
        raise InputError(f"has {X.shape[0]} records; the lab needs at least 40 (victim, "
                         "non-members and the attacker's shadows)", field=field_name)
    return Dataset(name, np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64),
                   classes, seq_shape or _seq_shape(X.shape[1]), notes, mdp_dims, mdp)


def _standardise(X: np.ndarray) -> np.ndarray:
    big = np.abs(X).max(axis=0, initial=0.0)
    if (big > 1e150).any():  # squares would overflow: standardisation is scale-free, so
        X = X / np.where(big > 1e150, big, 1.0)  # scale those columns to [-1, 1] first
    sd = X.std(axis=0)
    result: np.ndarray = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return result


_STD_NOTE = ("features standardised with the whole data set's mean and standard deviation "
             "(treated as public preprocessing; not covered by any DP statement)")


def load_dataset(spec: str, *, seed: int = 0) -> Dataset:
    """A data set from ``digits``, ``breast-cancer``, ``wine``, ``mdp:FILE`` or a CSV path.

    Parameters
    ----------
    spec : str
        What the ``--data`` flag names.
    seed : int
        Seed of the trajectories sampled from an MDP (ignored otherwise).

    Returns
    -------
    Dataset

    Examples
    --------
    >>> d = load_dataset("digits")
    >>> d.X.shape, d.classes, d.seq_shape
    ((1797, 64), 10, (8, 8))
    """
    from sklearn import datasets as skd

    if spec == "digits":
        b = skd.load_digits()
        return _finish("digits", b.data / 16.0, b.target, seq_shape=(8, 8))
    if spec == "breast-cancer":
        b = skd.load_breast_cancer()
        return _finish("breast-cancer", _standardise(b.data), b.target, notes=(_STD_NOTE,))
    if spec == "wine":
        b = skd.load_wine()
        return _finish("wine", _standardise(b.data), b.target, notes=(_STD_NOTE,))
    if spec == "text":
        return text_dataset()
    if spec.startswith("mdp:"):
        return mdp_dataset(spec[4:], seed=seed)
    if spec.lower().endswith(".csv") or os.path.exists(spec):
        return csv_dataset(spec)
    raise InputError(f"unknown data set {spec!r}: use digits, breast-cancer, wine, text, "
                     "mdp:FILE or a CSV file", field="data")


def text_dataset(*, records: int = 2000, length: int = 20, letters: int = 12,
                 languages: int = 4, concentration: float = 0.3) -> Dataset:
    """Language identification on synthetic strings (no download): each language is a
    first-order Markov chain over ``letters`` characters whose rows are Dirichlet
    (``concentration``) draws, all from the fixed seed 0, so the data set is the same
    everywhere; ``records`` strings (as many per language) of ``length`` characters.

    Parameters
    ----------
    records, length, letters, languages : int
        Sizes.
    concentration : float
        Dirichlet concentration of the chains' rows (smaller: more distinct languages).

    Returns
    -------
    Dataset
        One-hot records (length × letters), ``seq_shape = (length, letters)``.

    Examples
    --------
    >>> d = text_dataset()
    >>> d.X.shape, d.classes, d.seq_shape, float(d.X.sum(axis=1).max())
    ((2000, 240), 4, (20, 12), 20.0)
    """
    rng = np.random.default_rng(0)
    chains = rng.dirichlet(np.full(letters, concentration), size=(languages, letters))
    starts = rng.dirichlet(np.ones(letters), size=languages)
    labels = np.arange(records) % languages
    text = np.empty((records, length), dtype=np.int64)
    u = rng.random((records, length))
    cum_start, cum = np.cumsum(starts, axis=1), np.cumsum(chains, axis=2)
    text[:, 0] = [min(int(np.searchsorted(cum_start[c], x, side="right")), letters - 1)
                  for c, x in zip(labels, u[:, 0])]
    for t in range(1, length):
        rows = cum[labels, text[:, t - 1]]
        text[:, t] = np.minimum((rows < u[:, t, None]).sum(axis=1), letters - 1)
    X = np.zeros((records, length, letters))
    X[np.arange(records)[:, None], np.arange(length)[None, :], text] = 1.0
    return _finish("text", X.reshape(records, -1), labels, seq_shape=(length, letters),
                   notes=(f"synthetic text: {languages} Markov-chain languages over "
                          f"{letters} letters, strings of {length} (fixed seed 0)",))


def csv_dataset(path: str) -> Dataset:
    """Numeric features, the last column the label; an optional header row is skipped.

    Parameters
    ----------
    path : str
        The CSV file.

    Returns
    -------
    Dataset
    """
    from core.common.resources import read_bytes

    raw = read_bytes(path, max_bytes=CSV_MAX_BYTES, what="CSV file")  # regular files only
    try:
        text = raw.decode("utf-8")
        rows = [r for r in csv.reader(io.StringIO(text, newline=""))
                if any(c.strip() for c in r)]
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read ({exc.__class__.__name__}: {exc})", file=path) from None
    except csv.Error as exc:
        raise InputError(f"is not a CSV file ({exc})", file=path) from None
    if not rows:
        raise InputError("is empty", file=path)

    def numeric(row: list[str]) -> bool:
        try:
            [float(c) for c in row]
        except ValueError:
            return False
        return True

    if not numeric(rows[0][:-1]):
        rows = rows[1:]  # a header (the label column may be text in every row)
    if not rows:
        raise InputError("has a header and no records", file=path)
    width = len(rows[0])
    if width < 2:
        raise InputError("needs at least one feature column and the label column", file=path)
    X = np.empty((len(rows), width - 1))
    labels = []
    for i, r in enumerate(rows):
        if len(r) != width:
            raise InputError(f"row {i + 1} has {len(r)} columns, the first has {width}",
                             file=path)
        try:
            X[i] = [float(c) for c in r[:-1]]
        except ValueError:
            bad = next(c for c in r[:-1] if not _is_float(c))
            raise InputError(f"row {i + 1}: {bad!r} is not a number (features must be "
                             "numeric; the label is the last column)", file=path) from None
        labels.append(r[-1].strip())
    if not np.isfinite(X).all():
        raise InputError("has a non-finite feature (nan or inf)", file=path)
    name = os.path.basename(path)
    try:
        return _finish(name, _standardise(X), np.asarray(labels), notes=(_STD_NOTE,),
                       field_name="data")
    except InputError as exc:
        raise InputError(exc.problem, file=path) from None


def _is_float(c: str) -> bool:
    try:
        float(c)
    except ValueError:
        return False
    return True


def mdp_dataset(path_or_mdp: str | MDP, *, seed: int = 0, trajectories: int = 400,
                length: int = 8) -> Dataset:
    """Next-state prediction records from trajectories of an MDP (random actions).

    Parameters
    ----------
    path_or_mdp : str or MDP
        An MDP file or model.
    seed : int
        Seed of the sampled trajectories.
    trajectories, length : int
        How many trajectories of how many steps (the horizon caps the length).

    Returns
    -------
    Dataset
        Records (one-hot s_{t−1} ⊕ a_{t−1}, one-hot s_t ⊕ a_t) with label s_{t+1};
        ``seq_shape = (2, S + A)``.
    """
    from core.mdp.model import MDP

    if isinstance(path_or_mdp, MDP):
        mdp, name = path_or_mdp, path_or_mdp.name or "mdp"
    else:
        from core.mdp.files import load_mdp

        mdp, name = load_mdp(path_or_mdp), os.path.basename(str(path_or_mdp))
    S, A, _ = mdp.P.shape
    rng = np.random.default_rng(seed)
    if mdp.horizon is not None:
        length = min(length, mdp.horizon)
    if length < 2:
        raise InputError("needs a horizon of at least 2 steps for two-step records",
                         field="data")
    cum = np.cumsum(mdp.P, axis=2)
    feats, labels = [], []
    eye_s, eye_a = np.eye(S), np.eye(A)
    for _ in range(trajectories):
        s = mdp.initial_state
        prev = None
        for _t in range(length):
            allowed = np.flatnonzero(mdp.mask[s])
            a = int(rng.choice(allowed))
            s2 = int(min(np.searchsorted(cum[s, a], rng.random(), side="right"), S - 1))
            cur = np.concatenate([eye_s[s], eye_a[a]])
            if prev is not None:
                feats.append(np.concatenate([prev, cur]))
                labels.append(s2)
            prev, s = cur, s2
    if not feats:
        raise InputError("gives no records", field="data")
    return _finish(f"mdp:{name}", np.asarray(feats), np.asarray(labels),
                   seq_shape=(2, S + A), mdp_dims=(S, A), mdp=mdp,
                   notes=(f"{trajectories} random-action trajectories of {length} steps "
                          f"(seed {seed}); a record is two consecutive (state, action) steps "
                          "and its label the next state",))
