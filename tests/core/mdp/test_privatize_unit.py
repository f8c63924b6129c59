"""core.mdp.privatize: the public pre-processing of the rows (the declared domain η, the
zero handling) and the privatised model, checked against the module docstring's promises:
every support entry at least its row's η under ``mix`` and within n·η of the true row,
``refuse`` naming the row, zeros staying zero, rows summing to one, the noise centred on
the pre-processed rows (mean over seeded draws within 5 standard errors of the Dirichlet
variance p(1 − p)/(k + 1)), and the η rules as the docstrings write them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.model import MDP
from core.mdp.privatize import (
    ETA_AUTO,
    ETA_CAP,
    eta_label,
    mechanism_rows,
    parse_eta,
    privatize_mdp,
    row_etas,
)


@pytest.fixture(scope="module")
def models(random_mdp_factory: Callable[..., MDP]) -> list[MDP]:
    out = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        out.append(random_mdp_factory(rng, int(rng.integers(2, 7)), int(rng.integers(1, 4)), 3,
                                      zeros=0.4))
    return out


# ---------------------------------------------------------------- η rules


@pytest.mark.parametrize("value, parsed", [
    ("auto", ETA_AUTO), (" AUTO ", ETA_AUTO), ("0.3/n", "0.3/n"), (" 0.25/n", "0.25/n"),
    ("0.5", 0.5), (0.001, 0.001), (np.float64(0.2), 0.2),
])
def test_parse_eta_accepts(value: object, parsed: object) -> None:
    assert parse_eta(value) == parsed


@pytest.mark.parametrize("value", ["1/n", "0/n", "-0.1/n", "x/n", "nan/n", 0.0, 1.0, -0.5,
                                   math.nan, math.inf, "abc", None, [0.1]])
def test_parse_eta_refuses_naming_eta(value: object) -> None:
    with pytest.raises(InputError) as info:
        parse_eta(value)
    assert info.value.field == "eta"


def test_row_etas_follow_each_rule() -> None:
    n = np.array([1, 2, 3, 500, 1000, 4000])
    assert row_etas(ETA_AUTO, n).tolist() == [min(ETA_CAP, 0.5 / max(x, 1)) for x in n]
    assert row_etas("0.2/n", n).tolist() == pytest.approx([0.2 / x for x in n])
    assert row_etas(0.01, n).tolist() == [0.01] * 6
    assert row_etas(ETA_AUTO, 0).tolist() == ETA_CAP  # n < 1 counts as 1


def test_eta_labels() -> None:
    assert eta_label(0.002) == "0.002"
    assert eta_label("0.3/n") == "0.3/n (every row mixed with weight 0.3)"
    assert eta_label(ETA_AUTO) == "auto (min(0.001, 1/(2n)) per row of n possible next states)"
    text = eta_label(ETA_AUTO, np.array([2, 2, 1000, 4000, 1]))
    assert text.endswith(": 0.001, 0.0005, 0.000125)")


# ---------------------------------------------------------------- the rows the noise is centred on


@pytest.mark.parametrize("eta", [0.01, ETA_AUTO, "0.2/n"])
def test_mix_puts_every_support_entry_at_least_eta_and_near_the_row(models: list[MDP],
                                                                     eta: object) -> None:
    for m in models:
        prep = mechanism_rows(m, eta=eta, domain_rule="mix")
        true = np.asarray(m.P[m.mask])
        rows = np.asarray(prep.rows)
        n = (true > 0).sum(axis=1)
        assert prep.support.tolist() == n.tolist()
        etas = prep.row_eta()
        assert np.allclose(rows.sum(axis=1), 1.0)
        assert np.array_equal(rows > 0, true > 0)  # zeros stay zero, support stays
        multi = n >= 2
        on = (true > 0) & multi[:, None]
        assert np.all(rows[on] >= np.repeat(etas[multi], n[multi]) * (1 - 1e-12))
        assert np.all(np.abs(rows - true).max(axis=1)[multi] <= (n * etas)[multi] + 1e-12)
        lam = np.where(multi, n * etas, 0.0)
        assert np.allclose(prep.contraction, 1.0 - lam)


def test_mix_refuses_a_row_whose_weight_would_reach_one() -> None:
    m = MDP(P=np.array([[[0.5, 0.5]], [[0.5, 0.5]]]), R=np.zeros((2, 1)), horizon=1)
    with pytest.raises(InputError) as info:
        mechanism_rows(m, eta=0.6, domain_rule="mix")
    assert info.value.field == "eta"


def test_refuse_names_the_row_entry_and_leaves_valid_rows_alone() -> None:
    m = MDP(P=np.array([[[0.5, 0.5, 0.0]], [[0.0, 0.0, 1.0]], [[0.9, 0.1, 0.0]]]),
            R=np.zeros((3, 1)), horizon=1)
    with pytest.raises(InputError) as info:
        mechanism_rows(m, eta=0.2, domain_rule="refuse")
    assert info.value.field == "eta"
    assert "P(s2, a0)" in info.value.problem and "'s1'" in info.value.problem
    ok = mechanism_rows(m, eta=0.05, domain_rule="refuse")
    assert np.array_equal(np.asarray(ok.rows), np.asarray(m.P[m.mask]))
    assert np.all(ok.contraction == 1.0)


@pytest.mark.parametrize("kw, field", [({"zeros": "drop"}, "zeros"),
                                       ({"domain_rule": "clip"}, "domain_rule"),
                                       ({"zeros": "smoothing", "smoothing": 0.0}, "smoothing"),
                                       ({"zeros": "smoothing", "smoothing": 1.5}, "smoothing")])
def test_mechanism_rows_refuse_bad_settings(models: list[MDP], kw: dict, field: str) -> None:
    with pytest.raises(InputError) as info:
        mechanism_rows(models[0], **kw)
    assert info.value.field == field


def test_smoothing_fills_every_row_with_a_zero(models: list[MDP]) -> None:
    for m in models:
        prep = mechanism_rows(m, zeros="smoothing", smoothing=0.05)
        rows = np.asarray(prep.rows)
        true = np.asarray(m.P[m.mask])
        had_zero = (true == 0).any(axis=1)
        assert prep.smoothed.tolist() == had_zero.tolist()
        assert np.all(rows[had_zero] > 0) and np.allclose(rows.sum(axis=1), 1.0)


# ---------------------------------------------------------------- the privatised model


def test_privatised_models_keep_structure_rewards_and_sum_to_one(models: list[MDP]) -> None:
    for i, m in enumerate(models):
        res = privatize_mdp(m, 30.0, rng=i)
        p = res.mdp
        assert np.array_equal(p.mask, m.mask) and np.array_equal(p.R, m.R)
        assert np.array_equal(p.R_T, m.R_T) and p.horizon == m.horizon
        P, T = np.asarray(p.P), np.asarray(m.P)
        assert np.allclose(P[m.mask].sum(axis=1), 1.0)
        assert np.array_equal(P[m.mask] > 0, T[m.mask] > 0)
        assert np.all(P[~m.mask] == 0)
        assert res.mode == "experiment" and res.seed == i and res.rows == int(m.mask.sum())
        assert p.name.endswith("(private)")


def test_seeds_reproduce_and_differ(models: list[MDP]) -> None:
    m = models[1]
    a = privatize_mdp(m, 30.0, rng=5).mdp.P
    assert np.array_equal(a, privatize_mdp(m, 30.0, rng=5).mdp.P)
    assert not np.array_equal(a, privatize_mdp(m, 30.0, rng=6).mdp.P)


def test_warnings_say_the_support_is_disclosed_and_single_rows_are_released() -> None:
    m = MDP(P=np.array([[[0.5, 0.5, 0.0]], [[0.0, 0.0, 1.0]], [[0.2, 0.3, 0.5]]]),
            R=np.zeros((3, 1)), horizon=1)
    res = privatize_mdp(m, 10.0, rng=0)
    text = " ".join(res.warnings)
    assert "support" in text and "1 deterministic row(s)" in text
    assert res.mdp.P[1, 0].tolist() == [0.0, 0.0, 1.0]
    full = MDP(P=np.full((2, 1, 2), 0.5), R=np.zeros((2, 1)), horizon=1)
    quiet = " ".join(privatize_mdp(full, 10.0, rng=0).warnings)
    assert "support-restricted" not in quiet and "deterministic" not in quiet
    assert "domain rule 'mix'" in quiet  # the centre moved: always said


@pytest.mark.parametrize("k", [0.0, -1.0, math.inf, 1e13])
def test_privatize_refuses_a_bad_k(models: list[MDP], k: float) -> None:
    with pytest.raises(InputError) as info:
        privatize_mdp(models[0], k, rng=0)
    assert info.value.field == "k"


@pytest.mark.parametrize("k", [5.0, 200.0])
def test_noise_is_centred_on_the_preprocessed_rows(k: float) -> None:
    P = np.array([[[0.6, 0.3, 0.1], [0.0, 0.5, 0.5]],
                  [[0.2, 0.2, 0.6], [1.0, 0.0, 0.0]],
                  [[0.05, 0.9, 0.05], [0.3, 0.3, 0.4]]])
    m = MDP(P=P, R=np.zeros((3, 2)), horizon=2)
    prep = mechanism_rows(m)
    centre = np.zeros_like(P)
    centre[m.mask] = np.asarray(prep.rows)
    n = 400
    gen = np.random.default_rng(12)
    draws = np.stack([privatize_mdp(m, k, rng=gen, prepared=prep).mdp.P for _ in range(n)])
    mean = draws.mean(axis=0)
    se = np.sqrt(centre * (1 - centre) / (k + 1) / n)
    assert np.all(np.abs(mean - centre) <= 5 * se + 1e-12)
    # and the spread is the Dirichlet's: the sample variance of n = 400 draws has a relative
    # standard error of about sqrt(2/(n-1)) = 7 %; 35 % is five of them
    var = draws.var(axis=0, ddof=1)
    want = centre * (1 - centre) / (k + 1)
    big = want > 1e-4
    assert np.all(np.abs(var[big] / want[big] - 1) < 0.35)
