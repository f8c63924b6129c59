"""the replay window (Theorem 4.2) is accounted under replace-one.

A fixed-size FIFO buffer holds B entries; two neighbouring runs differ in one entry (a
transition *replaced* by another), and that entry is in the buffer for at most B steps. Each
step Poisson-samples the buffer. So the window composes B replace-one Poisson-subsampled
Gaussian steps, not B add/remove-one steps (the dissertation's reading, kept as a labelled
"thesis reading").
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from core.cli.main import run_cli
from core.common.errors import InputError
from core.privacy.dpsgd import dpsgd_epsilon

SIGMA, Q, DELTA = 1.4539, 1 / 32, 2 ** -11


def _optimistic_replace_one(sigma: float, q: float, steps: int, delta: float,
                            h: float = 1e-4) -> float:
    """dp-accounting's *optimistic* PLD under REPLACE_ONE (privacy buckets rounded down): a
    lower bound on the true ε of the pair (the issue's 4.52 is this at h = 1e-3)."""
    from dp_accounting import privacy_accountant
    from dp_accounting.pld import privacy_loss_distribution as pldm

    pld = pldm.from_gaussian_mechanism(
        sigma, sampling_prob=q, pessimistic_estimate=False, use_connect_dots=False,
        value_discretization_interval=h,
        neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE)
    return float(pld.self_compose(steps).get_epsilon_for_delta(delta))


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(list(argv), out, err), out.getvalue(), err.getvalue()


def test_window_is_accounted_under_replace_one():
    """The issue's numbers: 2.90 was stated; replace-one needs >= 4.52 (optimistic PLD)."""
    r = dpsgd_epsilon(SIGMA, Q, 20_000, DELTA, window=1024)
    assert r.steps_counted == 1024
    assert r.relation == "replace-one"
    assert r.epsilon >= 4.52 and r.epsilon >= _optimistic_replace_one(SIGMA, Q, 1024, DELTA, h=1e-3)
    # never below the optimistic estimate of the same pair (a lower bound on the truth), and
    # within 0.06 of it: the truth lies in [lower, stated], about 1 % wide
    lower = _optimistic_replace_one(SIGMA, Q, 1024, DELTA)
    assert lower <= r.epsilon <= lower + 0.06
    # the dissertation's figure survives only as the labelled thesis reading
    th = r.thesis_reading
    assert th is not None and th["relation"] == "add/remove-one"
    assert th["epsilon"] == pytest.approx(2.8999, abs=1e-4)
    assert "not" in th["label"] and "thesis" in th["label"]


def test_no_window_stays_add_remove():
    """Without a buffer the data set is fixed and Poisson sampling is add/remove-one."""
    r = dpsgd_epsilon(SIGMA, Q, 1024, DELTA)
    assert r.relation == "add/remove-one" and r.thesis_reading is None
    assert r.epsilon == pytest.approx(2.8999, abs=1e-4)


def test_rdp_is_refused_with_a_window():
    """dp-accounting's RDP accountant has no replace-one analysis of Poisson sampling."""
    with pytest.raises(InputError) as ei:
        dpsgd_epsilon(SIGMA, Q, 1024, DELTA, window=1024, method="rdp")
    assert ei.value.field == "method"


def test_cli_states_the_relation_and_the_thesis_reading():
    argv = ["accountant", "dpsgd", "--sigma", "1.4539", "--sample-rate", "0.03125",
            "--steps", "20000", "--window", "1024", "--delta", "0.00048828125"]
    rc, out, _ = _cli(*argv, "--json")
    assert rc == 0
    js = json.loads(out)
    assert js["epsilon"] >= 4.52 and js["method"] == "pld"
    assert js["neighboring_relation"] == "replace-one" and "replace" in js["adjacency"]
    assert js["thesis_reading"]["epsilon"] == pytest.approx(2.8999, abs=1e-4)
    rc, out, _ = _cli(*argv)
    assert rc == 0
    first = out.splitlines()[1]
    assert first.startswith("epsilon = ") and float(first.split()[2]) >= 4.52
    assert "adjacency: replace-one" in out and "thesis reading" in out
    rc, out, err = _cli(*argv, "--method", "rdp")
    assert rc == 2 and "--method" in err and err.count("\n") == 1 and out == ""


def _mixture_hockey(u: np.ndarray, v: np.ndarray, q: float, sigma: float,
                    eps: np.ndarray) -> np.ndarray:
    """H_{e^eps}(P_u || P_v), P_w = (1 - q) N(0, s²I) + q N(w, s²I), by 2-D quadrature."""
    h = 0.03
    g = np.arange(-9 * sigma - 2, 9 * sigma + 2, h)
    xx, yy = np.meshgrid(g, g, indexing="ij")

    def dens(w: np.ndarray) -> np.ndarray:
        r0 = (xx ** 2 + yy ** 2) / (2 * sigma ** 2)
        r1 = ((xx - w[0]) ** 2 + (yy - w[1]) ** 2) / (2 * sigma ** 2)
        return ((1 - q) * np.exp(-r0) + q * np.exp(-r1)) / (2 * math.pi * sigma ** 2)

    p, qv = dens(u), dens(v)
    return np.array([np.maximum(p - math.exp(e) * qv, 0).sum() * h * h for e in eps])


def test_antipodal_pair_dominates_other_replacements():
    """The pair dp-accounting composes, (1-q)N(0) + qN(-C) against (1-q)N(0) + qN(+C), is the
    worst replacement of one clipped gradient (norms <= C): checked by quadrature in the
    plane of the two gradients, at several angles and norms, in both directions."""
    q, sigma = 0.2, 1.0           # a large q makes the differences visible
    eps = np.array([0.0, 0.1, 0.3, 0.6, 1.0])
    worst = _mixture_hockey(np.array([-1.0, 0.0]), np.array([1.0, 0.0]), q, sigma, eps)
    for angle in (0.3, 1.0, 2.0, 2.8):
        for ru, rv in ((1.0, 1.0), (0.5, 1.0), (1.0, 0.3)):
            u = ru * np.array([1.0, 0.0])
            v = rv * np.array([math.cos(angle), math.sin(angle)])
            for a, b in ((u, v), (v, u)):
                assert (_mixture_hockey(a, b, q, sigma, eps) <= worst + 1e-6).all()
    # and the quadrature agrees with dp-accounting's pessimistic REPLACE_ONE PLD
    from dp_accounting import privacy_accountant
    from dp_accounting.pld import privacy_loss_distribution as pldm

    pld = pldm.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=1e-4,
        neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE)
    lib = np.array([pld.get_delta_for_epsilon(float(e)) for e in eps])
    assert (lib >= worst - 1e-5).all() and (lib <= worst + 2e-3).all()  # grid error ~3e-6


def test_small_noise_coarsens_the_grid_and_stays_an_upper_bound():
    """σ = 0.01 would need millions of grid points at 1e-3: the interval grows (pessimistic
    at any interval), and ε stays above the optimistic estimate at the fine grid."""
    from core.privacy.dpsgd import REPLACE_PLD_INTERVAL, replay_interval

    assert replay_interval(SIGMA) == REPLACE_PLD_INTERVAL
    assert replay_interval(0.01) > 100 * REPLACE_PLD_INTERVAL
    r = dpsgd_epsilon(0.05, Q, 64, DELTA, window=64)
    assert r.epsilon is not None and math.isfinite(r.epsilon)
    assert r.epsilon >= _optimistic_replace_one(0.05, Q, 64, DELTA, h=1e-2)
