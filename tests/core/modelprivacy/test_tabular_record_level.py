"""the tabular victim's record-level statement, for the adjacency it proves.

The victim's row for (s, a) is the empirical distribution of the next states of the n_sa
records with that (s, a). Removing or adding a record renormalises the whole row, which the
two-entry row analysis does not cover. Replacing a record's *next state* while it keeps its
(s, a) — the visit counts n_sa are public — moves 1/n_sa between two entries of one row: a
two-entry move of L1 2/n_sa, exactly what the row analysis proves. The statement is made
for that relation, at the radius 2(1 − λ)/min n_sa (λ: the pipeline's smoothing of every
row), and checked here on the worst neighbouring pair of data sets: exactly (two Beta laws)
and by Monte Carlo on the full Dirichlet densities.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from core.mdp.examples import four_startups
from core.mdp.model import MDP, with_transitions
from core.mdp.privatize import mechanism_rows
from core.modelprivacy.data import mdp_dataset
from core.modelprivacy.records import mia_entries
from core.modelprivacy.study import TABULAR_SMOOTHING, MiaSetup, run_mia, tabular_rows


def _chain() -> MDP:
    P = np.array([[[0.5, 0.5, 0.0], [0.2, 0.7, 0.1]], [[0.6, 0.3, 0.1], [0.3, 0.6, 0.1]],
                  [[0.4, 0.4, 0.2], [0.1, 0.1, 0.8]]])
    return MDP(P=P, R=np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]), horizon=None,
               discount=0.9)


@pytest.fixture(scope="module")
def study():
    """Three states, two actions: every (s, a) is visited often, so the statement is finite
    (four_startups with 400 trajectories has an (s, a) with one record: unbounded)."""
    d = mdp_dataset(_chain(), seed=0, trajectories=400)
    r = run_mia(d, MiaSetup(victim="tabular", defense="dirichlet", k=50.0, shadows=2),
                seed=1)
    return d, r


def test_statement_names_the_relation_it_proves(study):
    _, r = study
    n = r.extra["fewest_samples_per_row"]
    assert n >= 2
    assert r.extra["record_relation"].startswith("replace one record's next state")
    assert "keeps its (s, a)" in r.guarantee and "public" in r.guarantee
    assert r.extra["record_radius"] == pytest.approx(2 * (1 - TABULAR_SMOOTHING) / n)
    # one row moves (not two): the record-level figure is one row's at that radius, no 2x
    assert r.epsilon is not None and r.epsilon != pytest.approx(2 * r.extra["epsilon_row"])
    # the study's membership game swaps whole records: no accuracy cap follows
    assert r.accuracy_cap is None and "(s, a)" in r.to_json()["accuracy_cap_reason"]
    (e,) = mia_entries(r)
    assert e.epsilon == r.epsilon and "next state" in e.adjacency


def _centre(counts: np.ndarray, mdp: MDP, eta: float) -> np.ndarray:
    """The rows the noise is centred on: the victim's rows, then privatize_mdp's own
    pre-processing with the victim's declared domain."""
    rows = tabular_rows(counts)
    m = with_transitions(mdp, np.where(mdp.mask[..., None], rows.reshape(mdp.P.shape), 0.0),
                         name="victim")
    return mechanism_rows(m, eta=eta, domain_rule="refuse").rows


def _dir_logpdf(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    return gammaln(a.sum()) - gammaln(a).sum() + ((a - 1) * np.log(x)).sum(axis=1)


def test_worst_neighbouring_pair_is_within_the_statement(study):
    """The worst neighbours under the relation, given the public counts: in a row with the
    fewest records n, the only record of one next state moves to a next state no record has
    (the two smallest entries: the corner of the row analysis)."""
    d, r = study
    mdp = d.mdp
    S, A = d.mdp_dims
    n = r.extra["fewest_samples_per_row"]
    row = int(np.flatnonzero(mdp.mask.ravel())[0])
    counts = np.full((S * A, S), 10.0)
    counts[row] = 0.0
    counts[row, 0], counts[row, 2 % S] = 1.0, n - 1.0          # c_0 = 1, c_1 = 0
    moved = counts.copy()
    moved[row, 0], moved[row, 1] = 0.0, 1.0                    # its next state 0 -> 1
    assert counts[row].sum() == moved[row].sum() == n          # (s, a) keeps its count
    eta = r.extra["eta"]
    p, q = _centre(counts, mdp, eta)[row], _centre(moved, mdp, eta)[row]
    assert p.min() >= eta and q.min() >= eta                   # in the declared domain
    diff = np.flatnonzero(np.abs(p - q) > 1e-15)
    assert diff.tolist() == [0, 1]                             # a two-entry move ...
    radius = r.extra["record_radius"] * r.extra["mix_contraction"]
    assert np.abs(p - q).sum() <= radius * (1 + 1e-9)          # ... within the radius
    k, eps, delta = 50.0, r.epsilon, r.delta
    # exact: the loss depends on t = x_0/(x_0 + x_1) only, t ~ Beta(k a_0, k a_1) under a
    for a, b in ((p, q), (q, p)):
        c0 = gammaln(k * b[0]) + gammaln(k * b[1]) - gammaln(k * a[0]) - gammaln(k * a[1])
        dd = k * (a[0] - b[0])                                 # L(t) = c0 + dd·logit(t)
        z = (eps - c0) / dd
        if dd > 0:    # {L > eps} = {t > sigmoid(z)}
            tau = 1 / (1 + math.exp(-z))
            pa, pb = (stats.beta.sf(tau, k * a[0], k * a[1]),
                      stats.beta.sf(tau, k * b[0], k * b[1]))
        else:         # {L > eps} = {t < sigmoid(z)}
            tau = 1 / (1 + math.exp(-z))
            pa, pb = (stats.beta.cdf(tau, k * a[0], k * a[1]),
                      stats.beta.cdf(tau, k * b[0], k * b[1]))
        assert pa - math.exp(eps) * pb <= delta * (1 + 1e-9), (pa, pb, delta)
    # Monte Carlo on the full Dirichlet densities, independent of the Beta reduction
    rng = np.random.default_rng(7)
    draws = 200_000
    for a, b in ((p, q), (q, p)):
        xs = np.clip(rng.dirichlet(k * a, size=draws), 1e-300, None)
        loss = _dir_logpdf(xs, k * a) - _dir_logpdf(xs, k * b)
        h = np.maximum(0.0, 1.0 - np.exp(np.minimum(eps - loss, 700)))
        se = h.std(ddof=1) / math.sqrt(draws)
        assert h.mean() <= delta + 5 * se + 1e-12, (h.mean(), delta, se)


def test_whole_record_replacement_is_not_a_two_entry_move():
    """Why the old statement ("replacing one training record moves <= 2 rows, each by
    L1 <= 2/n") was not proven: removing a record renormalises its whole row."""
    c = np.array([[3.0, 5.0, 2.0]])
    removed = c - np.array([[1.0, 0.0, 0.0]])
    p, q = tabular_rows(c)[0], tabular_rows(removed)[0]
    assert np.count_nonzero(np.abs(p - q) > 1e-12) == 3


def test_a_row_with_one_record_has_no_record_level_statement():
    d = mdp_dataset(four_startups(), seed=0, trajectories=400)
    r = run_mia(d, MiaSetup(victim="tabular", defense="dirichlet", k=50.0, shadows=1), seed=1)
    assert r.extra["fewest_samples_per_row"] == 1
    assert r.epsilon is None and "1 record" in r.epsilon_reason
    (e,) = mia_entries(r)
    assert e.unbounded
