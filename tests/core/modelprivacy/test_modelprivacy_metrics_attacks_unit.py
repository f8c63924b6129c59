"""Unit tests of core.modelprivacy.metrics, the score and metric helpers of
core.modelprivacy.attacks, the canary test of core.modelprivacy.canary and the closed forms of
core.modelprivacy.defenses, each against an independent computation (brute force, scipy,
sklearn, a closed form).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from sklearn.metrics import roc_auc_score

from core.common.errors import InputError
from core.modelprivacy import attacks, defenses
from core.modelprivacy.attacks import evaluate_attack, lira_scores, loss_scores, tpr_at_fpr
from core.modelprivacy.canary import snj_epsilon_lb, snj_p_value
from core.modelprivacy.defenses import (
    gaussian_delta,
    gaussian_epsilon,
    gaussian_mu,
    gpm_sigma,
    oneparam_candidates,
    oneparam_epsilon_star,
    oneparam_epsilon_star_lsq,
    oneparam_release,
    query_bound,
    thm52_bound,
)
from core.modelprivacy.metrics import episodic_reward, tpr_at_fpr_items, unresolved_tpr_reason

# --- metrics -------------------------------------------------------------------------------------


@pytest.mark.parametrize("steps, horizon, gamma, want", [
    (0, 200, 0.9, 1.0), (200, 200, 0.9, 0.1), (10, 100, 0.5, 0.95), (50, 50, 1.0, 0.0)])
def test_episodic_reward_closed_form(steps, horizon, gamma, want):
    assert episodic_reward(steps, horizon=horizon, gamma=gamma) == pytest.approx(want)
    assert episodic_reward(steps, horizon=horizon, gamma=gamma, reached=False) == 0.0


@settings(max_examples=30)
@given(st.sampled_from([0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5]),
       st.integers(min_value=0, max_value=5000))
def test_unresolved_reason_iff_no_false_positive_fits(fpr, n):
    reason = unresolved_tpr_reason(fpr, n)
    # brute force: the largest k with k <= fpr * n, computed with exact fractions
    from fractions import Fraction
    k = math.floor(Fraction(str(fpr)) * n)
    assert (reason is None) == (k >= 1)
    if reason is not None:
        assert f"{n:,}" in reason and f"{math.ceil(1 / fpr):,}" in reason


def test_unresolved_reason_for_a_zero_fpr():
    assert unresolved_tpr_reason(0.0, 10**6) == (
        "an FPR of 0 needs a positive FPR for one false positive; the study has 1,000,000")


def test_tpr_items_use_stored_reasons_nulls_and_the_formatter():
    summary = {"tpr_at_fpr": {"0.1": 0.5, "0.01": None, "0.05": 0.25, "x": 0.3,
                              "0.001": 0.7},
               "tpr_at_fpr_reason": {"0.05": "stored why"}, "nonmembers": 100}
    items = dict(tpr_at_fpr_items(summary, fmt=lambda v: f"{v:.1f}"))
    assert items["0.1"] == "0.5"
    # 0.01 x 100 allows one false positive: resolved, but the value is null
    assert items["0.01"] == "not resolved"
    assert items["0.05"] == "not resolved (stored why)"
    assert items["x"] == "0.3"
    assert items["0.001"] == ("not resolved (an FPR of 0.001 needs at least 1,000 non-members "
                              "for one false positive; the study has 100)")
    assert tpr_at_fpr_items({}) == []


def test_tpr_items_null_value_without_a_count_and_bool_count_ignored():
    items = tpr_at_fpr_items({"tpr_at_fpr": {"0.001": None, "0.5": 0.9}, "members": True})
    assert items == [("0.001", "not resolved"), ("0.5", "0.900")]


# --- attack scores and metrics ------------------------------------------------------------------

def _brute_tpr(s_in, s_out, alpha):
    """Scan every threshold: the best TPR among thresholds letting <= floor(alpha n) through,
    where a threshold is strictly above a non-member score."""
    k = math.floor(alpha * len(s_out) + 1e-9)
    best = None
    for t in sorted(set(s_out)):
        fp = sum(s > t for s in s_out)
        if fp <= k:
            tp = sum(s > t for s in s_in)
            if best is None or tp > best[0]:
                best = (tp, fp)
    return best


@settings(max_examples=30)
@given(st.lists(st.integers(min_value=0, max_value=8), min_size=1, max_size=30),
       st.lists(st.integers(min_value=0, max_value=8), min_size=10, max_size=40),
       st.sampled_from([0.1, 0.2, 0.5]))
def test_tpr_at_fpr_matches_a_threshold_scan(s_in, s_out, alpha):
    res = tpr_at_fpr(np.array(s_in, float), np.array(s_out, float), alpha)
    assert res["resolved"] and res["members"] == len(s_in)
    tp, fp = _brute_tpr(s_in, s_out, alpha)
    assert res["true_positives"] == tp and res["false_positives"] == fp
    assert res["tpr"] == tp / len(s_in) and res["fpr"] <= alpha + 1e-12
    assert res["tpr_lo"] <= res["tpr"] <= res["tpr_hi"]
    assert res["fpr_lo"] <= res["fpr"] <= res["fpr_hi"]


def test_tpr_at_fpr_unresolved_and_the_dp_bound():
    res = tpr_at_fpr(np.arange(5.0), np.arange(50.0), 0.01)
    assert res["resolved"] is False and res["tpr"] is None and "100" in res["tpr_reason"]
    res = tpr_at_fpr(np.full(200, 1e3), np.arange(100.0), 0.1, privacy=(1.0, 1e-5))
    assert res["tpr"] == 1.0
    assert res["dp_bound"] == pytest.approx(min(1.0, math.e * res["fpr_hi"] + 1e-5))
    assert res["exceeds_dp_bound"] == (res["tpr_lo"] > res["dp_bound"])


@settings(max_examples=30)
@given(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=15),
       st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=15))
def test_best_threshold_reaches_the_best_balanced_accuracy(s_in, s_out):
    si, so = np.array(s_in, float), np.array(s_out, float)
    t = attacks._best_threshold(si, so)

    def acc(th):
        return 0.5 * ((si > th).mean() + (so <= th).mean())
    cands = list(np.unique(np.r_[si, so])) + [max(s_in + s_out)]
    assert acc(t) == pytest.approx(max(max(acc(c) for c in cands), 0.5))


def test_best_threshold_of_nothing_is_zero():
    assert attacks._best_threshold(np.array([]), np.array([])) == 0.0


def test_loss_scores_negate():
    np.testing.assert_array_equal(loss_scores([0.5, 2.0, 0.0]), [-0.5, -2.0, -0.0])


def test_loo_means_by_hand():
    phi = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    member = np.array([[True, False], [True, True], [False, True]])
    mu_in, mu_out, n_in, n_out = attacks._loo_means(phi, member, 0)
    # models 1 and 2: record 0 is in model 1 (3) and out of model 2 (5); record 1 in both
    np.testing.assert_array_equal(n_in, [1, 2])
    np.testing.assert_array_equal(n_out, [1, 0])
    np.testing.assert_allclose(mu_in, [3.0, 5.0])
    assert mu_out[0] == 5.0 and math.isnan(mu_out[1])


def test_offline_lira_is_a_z_score_against_the_out_models():
    rng = np.random.default_rng(0)
    member = rng.random((5, 30)) < 0.5
    phi = rng.normal(size=(5, 30))
    s = lira_scores(phi, member, online=False)
    v = 2
    keep = np.arange(5) != v
    p, m = phi[keep], member[keep]
    mu_in, mu_out, _, _ = attacks._loo_means(phi, member, v)
    shift = np.nanmean(mu_in - mu_out)
    mu_out = np.where(np.isfinite(mu_out), mu_out, mu_in - shift)
    sd = math.sqrt(np.mean(((p - mu_out) ** 2)[~m]))
    np.testing.assert_allclose(s[v], (phi[v] - mu_out) / sd)


def test_online_lira_is_a_gaussian_log_likelihood_ratio():
    rng = np.random.default_rng(1)
    member = np.tile(np.array([True, False]), (4, 10))
    member[1::2] = ~member[1::2]
    phi = rng.normal(size=member.shape) + member
    s = lira_scores(phi, member)
    v = 0
    keep = np.arange(4) != v
    p, m = phi[keep], member[keep]
    mu_in = (p * m).sum(0) / m.sum(0)
    mu_out = (p * ~m).sum(0) / (~m).sum(0)
    sd_in = math.sqrt(np.mean(((p - mu_in) ** 2)[m]))
    sd_out = math.sqrt(np.mean(((p - mu_out) ** 2)[~m]))
    want = sps.norm.logpdf(phi[v], mu_in, sd_in) - sps.norm.logpdf(phi[v], mu_out, sd_out)
    np.testing.assert_allclose(s[v], want)


@pytest.mark.parametrize("m", [1, 2])
def test_lira_refuses_too_few_models(m):
    with pytest.raises(InputError) as err:
        lira_scores(np.zeros((m, 4)), np.zeros((m, 4), dtype=bool))
    assert err.value.field == "models"


def test_evaluate_attack_auc_matches_a_mann_whitney_count():
    rng = np.random.default_rng(3)
    member = np.zeros((4, 40), dtype=bool)
    member[:, ::2] = True
    scores = rng.normal(size=(4, 40)) + 0.8 * member
    met = evaluate_attack("x", scores, member, fprs=(0.1,))
    for v in range(4):
        pos, neg = scores[v][member[v]], scores[v][~member[v]]
        mw = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
        assert met.auc_per_victim[v] == pytest.approx(mw)
    pooled = roc_auc_score(member.ravel(), scores.ravel())
    assert met.auc_pooled == pytest.approx(pooled)
    assert met.members == 80 and met.nonmembers == 80
    assert all(0 <= a <= 1 for a in met.accuracy_per_victim)
    j = met.to_json()
    assert j["victims"] == 4 and j["tpr_at_fpr"][0]["fpr_target"] == 0.1
    assert j["roc"][0] == [0.0, 0.0] and j["roc"][-1] == [1.0, 1.0]


# --- canary test (Steinke, Nasr & Jagielski) -----------------------------------------------------

@settings(max_examples=30)
@given(st.integers(min_value=1, max_value=60), st.data(), st.floats(min_value=0, max_value=5))
def test_snj_p_value_without_delta_is_the_binomial_tail(r, data, eps):
    v = data.draw(st.integers(min_value=0, max_value=r))
    q = math.exp(eps) / (1 + math.exp(eps))
    want = sum(math.comb(r, j) * q ** j * (1 - q) ** (r - j) for j in range(v, r + 1))
    assert snj_p_value(100, r, v, eps, 0.0) == pytest.approx(min(1.0, want), rel=1e-9,
                                                              abs=1e-15)


def test_snj_p_value_grows_with_epsilon_and_delta():
    ps = [snj_p_value(200, 50, 40, e, 0.0) for e in (0.0, 0.5, 1.0, 2.0)]
    assert ps == sorted(ps)
    assert snj_p_value(200, 50, 40, 1.0, 1e-3) > snj_p_value(200, 50, 40, 1.0, 0.0)
    assert snj_p_value(200, 50, 40, 1.0, 1.0) == 1.0


@pytest.mark.parametrize("args", [(10, 5, 6, 1.0, 0.0), (10, 11, 5, 1.0, 0.0),
                                  (10, 5, 2, -1.0, 0.0), (10, 5, 2, 1.0, 1.5)])
def test_snj_p_value_refuses_impossible_counts(args):
    with pytest.raises(ValueError):
        snj_p_value(*args)


@pytest.mark.parametrize("r, v", [(100, 100), (100, 80), (50, 45), (200, 130)])
def test_snj_epsilon_lb_is_the_rejection_boundary(r, v):
    lb = snj_epsilon_lb(1000, r, v, 0.0)
    assert lb > 0
    assert snj_p_value(1000, r, v, lb, 0.0) < 0.05
    assert snj_p_value(1000, r, v, lb + 1e-5, 0.0) >= 0.05 - 1e-9


def test_snj_epsilon_lb_all_correct_closed_form_and_chance():
    # all r correct: q^r = level  =>  eps = ln(q / (1 - q)) with q = level^(1/r)
    q = 0.05 ** (1 / 100)
    assert snj_epsilon_lb(1000, 100, 100, 0.0) == pytest.approx(math.log(q / (1 - q)),
                                                                abs=1e-5)
    assert snj_epsilon_lb(1000, 100, 50, 0.0) == 0.0


# --- defense closed forms ------------------------------------------------------------------------

def _delta_closed(eps, mu):
    return sps.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * sps.norm.cdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("eps, mu", [(0.5, 0.5), (1.0, 1.0), (2.0, 1.5), (0.1, 3.0)])
def test_gaussian_delta_matches_the_closed_form(eps, mu):
    assert gaussian_delta(eps, mu) == pytest.approx(_delta_closed(eps, mu), rel=1e-7)


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-5), (0.5, 1e-3), (3.0, 1e-6)])
def test_gaussian_mu_epsilon_and_delta_are_mutually_inverse(eps, delta):
    mu = gaussian_mu(eps, delta)
    assert gaussian_delta(eps, mu) <= delta
    assert gaussian_delta(eps, mu * (1 + 1e-6)) > delta * (1 - 1e-3)
    assert gaussian_epsilon(delta, mu) == pytest.approx(eps, rel=1e-4)
    assert gpm_sigma(2.0, eps, delta) == pytest.approx(2.0 / mu)


@pytest.mark.parametrize("eps, delta, field", [
    (0.0, 1e-5, "epsilon"), (math.inf, 1e-5, "epsilon"), (1.0, 0.0, "delta"),
    (1.0, 1.0, "delta")])
def test_gaussian_mu_refusals(eps, delta, field):
    with pytest.raises(InputError) as err:
        gaussian_mu(eps, delta)
    assert err.value.field == field


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_gpm_sigma_refuses_a_bad_sensitivity(bad):
    with pytest.raises(InputError) as err:
        gpm_sigma(bad, 1.0, 1e-5)
    assert err.value.field == "sensitivity"


def test_gamma_and_rho_refuse_bad_sample_counts_and_rho_minimises_gamma():
    for bad in (0, 2.5, -3):
        with pytest.raises(InputError) as err:
            defenses.rho_n(bad)
        assert err.value.field == "samples"
    n = 300
    rho = defenses.rho_n(n)

    def g(r):
        return r + math.sqrt(math.log(1 / r) / (2 * n))
    assert defenses.gamma_n(n) == pytest.approx(g(rho))
    grid = np.linspace(rho * 0.5, min(rho * 2, 0.99), 201)
    assert g(rho) <= min(g(r) for r in grid) + 1e-9


def test_thm52_bound_and_query_bound_closed_forms():
    assert thm52_bound(0.1, 2.0, 3, 11, 5.0) == pytest.approx(
        2 * ((1.2) ** 3 - 1) * 5.0 / (10 * 2.0))
    # with T = 1 the bound is 2ηC/(m − 1), independent of β
    assert thm52_bound(0.01, 7.0, 1, 5, 3.0) == pytest.approx(2 * 0.01 * 3.0 / 4)
    assert query_bound(1.0, 2, 0.5) == pytest.approx(1.0 * (math.e - 1) / (1.0 * (math.e - 1)))
    # b grows with the total budget
    assert query_bound(2.0, 10, 0.1) > query_bound(1.0, 10, 0.1)


@settings(max_examples=30)
@given(st.lists(st.floats(min_value=0.01, max_value=1.0), min_size=2, max_size=6),
       st.integers(min_value=1, max_value=8))
def test_oneparam_candidates_tile_the_unit_interval(w, m):
    y = np.array(w) / sum(w)
    order, lo, cand = oneparam_candidates(y, m)
    ys = np.sort(y)
    np.testing.assert_array_equal(np.sort(order[0]), np.arange(y.size))
    assert lo[0, 0] == 0.0
    np.testing.assert_allclose(lo[0, 1:], 0.5 * (ys[1:] + ys[:-1]))
    # each sorted score lies in its own sub-range [lo_i, hi_i)
    hi = np.r_[lo[0, 1:], 1.0]
    assert ((lo[0] <= ys + 1e-12) & (ys <= hi + 1e-12)).all()
    assert cand.shape == (1, y.size, m)
    np.testing.assert_allclose(np.diff(cand[0], axis=1), np.repeat(((hi - lo[0]) / m)[:, None],
                                                                     m - 1, axis=1))


def test_oneparam_release_is_a_softmax_of_the_selection_in_place():
    y = np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
    z, sel = oneparam_release(y, 2.0, np.random.default_rng(0), return_selected=True)
    e = np.exp(2.0 * sel / 2)
    np.testing.assert_allclose(z, e / e.sum(axis=1, keepdims=True))
    _, lo, cand = oneparam_candidates(y)
    for i in range(2):
        order = np.argsort(y[i], kind="stable")
        for pos, k in enumerate(order):
            assert any(abs(sel[i, k] - c) < 1e-12 for c in cand[i, pos])


@pytest.mark.parametrize("eps, preset, field", [
    (0.0, "sound", "epsilon"), (math.nan, "sound", "epsilon"), ("1", "sound", "epsilon"),
    (1.0, "exact", "preset")])
def test_oneparam_release_refusals(eps, preset, field):
    with pytest.raises(InputError) as err:
        oneparam_release(np.array([[0.5, 0.5]]), eps, np.random.default_rng(0), preset=preset)
    assert err.value.field == field


def test_oneparam_epsilon_star_inverts_the_softmax():
    sel = np.array([0.05, 0.45, 0.85])
    eps = 3.0
    z = np.exp(eps * sel / 2)
    z /= z.sum()
    assert oneparam_epsilon_star(z, sel) == pytest.approx(eps)
    assert oneparam_epsilon_star_lsq(z, sel) == pytest.approx(eps)
    assert oneparam_epsilon_star(z, np.full(3, 0.4)) == math.inf
    assert oneparam_epsilon_star_lsq(z, np.full(3, 0.4)) == math.inf
    assert oneparam_epsilon_star(np.array([1.0, 0.0]), np.array([0.9, 0.1])) == math.inf
