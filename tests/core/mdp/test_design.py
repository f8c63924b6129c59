"""The privacy designer and defaults at every size (§2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.cli.main import run_cli
from core.common.errors import InputError
from core.mdp.accounting import mdp_privacy
from core.mdp.design import design, public_proxy, value_range
from core.mdp.examples import example2, four_startups
from core.mdp.model import MDP, with_transitions
from core.privacy.laplace import exponential_probabilities

ROOT = Path(__file__).resolve().parents[3]
FOUR = str(ROOT / "assets" / "examples" / "four_startups.mdp.json")


def _cli(*argv: str) -> tuple[int, str, str]:
    import io

    out, err = io.StringIO(), io.StringIO()
    code = run_cli([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("adjacency", ["one-row", "all-rows"])
def test_frontier_points_meet_the_target_and_k_is_the_largest(adjacency) -> None:
    m = four_startups()
    d = design(m, epsilon=1.0, delta=0.05, adjacency=adjacency)
    assert d.frontier and d.recommended in d.frontier
    for p in d.frontier:
        # verified independently of the search: the statement at (k, eta) meets the target
        priv = mdp_privacy(public_proxy(m), p.k, eta=p.eta, delta_target=0.05,
                           adjacency=adjacency)
        assert priv.epsilon == pytest.approx(p.epsilon, rel=1e-12) and p.epsilon <= 1.0
        # and the true model's supports give the same number (only supports enter)
        assert mdp_privacy(m, p.k, eta=p.eta, delta_target=0.05,
                           adjacency=adjacency).epsilon == pytest.approx(p.epsilon, rel=1e-12)
        # the search found the largest k to its 1 %: a slightly larger k misses the target
        over = mdp_privacy(m, p.k * 1.02, eta=p.eta, delta_target=0.05, adjacency=adjacency)
        assert over.epsilon > 1.0
    assert d.recommended.cost_bound == min(p.cost_bound for p in d.frontier)
    assert all(0 <= p.cost_bound <= value_range(m) + 1e-12 for p in d.frontier)


def test_a_public_design_reads_no_transition_probability() -> None:
    m = four_startups()
    P = np.array(m.P)
    P[0, 0] = [0.3, 0.3, 0.4]  # same supports, other probabilities
    other = with_transitions(m, P, name=m.name)
    a = design(m, epsilon=2.0, delta=0.05).to_dict()
    b = design(other, epsilon=2.0, delta=0.05).to_dict()
    assert a == b and a["selection"] == "public" and a["selection_epsilon"] == 0.0


def test_a_tighter_target_needs_a_smaller_k_or_a_larger_eta() -> None:
    m = four_startups()
    loose = {p.eta: p.k for p in design(m, epsilon=4.0, delta=0.05).frontier}
    tight = {p.eta: p.k for p in design(m, epsilon=1.0, delta=0.05).frontier}
    assert set(tight) <= set(loose)
    assert all(tight[e] < loose[e] for e in tight)


def test_unreachable_targets_say_why() -> None:
    d = design(example2(), epsilon=0.05, delta=1e-6)
    assert d.recommended is None and d.frontier == ()
    assert len(d.infeasible) == 8 and all(why for _, why in d.infeasible)
    assert "raise" in d.to_dict()["recommended_reason"]


def test_exponential_selection_follows_its_distribution_and_never_shows_private_bounds():
    m = four_startups()
    d = design(m, epsilon=1.0, delta=0.05, selection="exponential", selection_epsilon=2.0,
               rng=1)
    pub = design(m, epsilon=1.0, delta=0.05)
    # the frontier shown is the public one (the private bounds are utilities only)
    assert [p.to_dict() for p in d.frontier] == [p.to_dict() for p in pub.frontier]
    assert d.selection_epsilon == 2.0 and d.mode == "experiment" and d.seed == 1
    # its choices over seeds: a chi-square check against the exponential mechanism
    from core.mdp.design import _Costs

    cost = _Costs(m, 0.05, "paper")
    costs = [cost(p.k, p.eta) for p in d.frontier]
    probs = exponential_probabilities([-c for c in costs], epsilon=2.0,
                                      sensitivity=value_range(m))
    n = 400
    counts = np.zeros(len(costs))
    for seed in range(n):
        r = design(m, epsilon=1.0, delta=0.05, selection="exponential",
                   selection_epsilon=2.0, rng=seed, etas=[p.eta for p in d.frontier])
        counts[[p.eta for p in d.frontier].index(r.recommended.eta)] += 1
    chi2 = float(((counts - n * probs) ** 2 / (n * probs)).sum())
    assert chi2 < 20.5  # 99.9 % quantile of chi-square with 3 degrees of freedom is 16.3


def test_design_validates_its_inputs() -> None:
    m = four_startups()
    for kwargs, field in ((dict(epsilon=0.0, delta=0.05), "epsilon"),
                          (dict(epsilon=1.0, delta=1.0), "delta"),
                          (dict(epsilon=1.0, delta=0.05, adjacency="some"), "adjacency"),
                          (dict(epsilon=1.0, delta=0.05, selection="exponential"),
                           "selection_epsilon")):
        with pytest.raises(InputError) as e:
            design(m, **kwargs)
        assert e.value.field == field
    fewer = np.array(m.P)
    fewer[0, 0] = [0.5, 0.5, 0.0]  # a support the model does not have
    bad = with_transitions(m, fewer, name="other supports")
    with pytest.raises(InputError) as e:
        design(m, epsilon=1.0, delta=0.05, proxy=bad)
    assert e.value.field == "proxy"


def test_design_command_json_keys_and_record(tmp_path: Path) -> None:
    code, out, err = _cli("design", FOUR, "--epsilon", "1", "--delta", "0.05", "--json")
    assert code == 0, err
    d = json.loads(out)
    for key in ("frontier", "recommended", "selection", "selection_epsilon"):
        assert key in d
    assert all(set(p) == {"k", "eta", "epsilon", "delta", "cost_bound"} for p in d["frontier"])
    assert d["recommended"] in d["frontier"]
    # a project: the exponential selection is charged in the ledger
    from core.project.files import load_project, save_project
    from core.project.model import MdpEntry, Project

    path = tmp_path / "p.privplan.json"
    save_project(Project(name="t", mdps=[MdpEntry(id="m", mdp=four_startups())]), path)
    code, out, err = _cli("design", path, "--epsilon", "1", "--delta", "0.05", "--selection",
                          "exponential", "--selection-epsilon", "0.5", "--seed", "2",
                          "--record", "--json")
    assert code == 0, err
    rec = json.loads(out)["recorded"]
    p = load_project(path)
    assert [r.kind for r in p.runs] == ["design"] and p.runs[0].id == rec["run"]
    assert [(e.mechanism, e.epsilon, e.mode) for e in p.ledger] == [
        ("exponential", 0.5, "experiment")]
    code, _, err = _cli("design", FOUR, "--epsilon", "1", "--delta", "0.05",
                        "--selection-epsilon", "0.5")
    assert code == 2 and "--selection-epsilon" in err and err.count("\n") == 1


# ------------------------------------------------------------------ §2: defaults at every size
def _wide(S: int, A: int = 2, seed: int = 0) -> MDP:
    rng = np.random.default_rng(seed)
    P = rng.uniform(0.5, 1.5, size=(S, A, S))
    P /= P.sum(axis=2, keepdims=True)
    return MDP(P=P, R=rng.uniform(-1, 0, size=(S, A)), horizon=3)


def test_the_defaults_serve_rows_with_a_thousand_successors(tmp_path: Path) -> None:
    """with eta = 1e-3 a row of 1,000+ next states was refused ('the mix weight
    n·eta must be < 1'); the per-row rule min(1e-3, 1/(2n)) serves every model, and the
    statement names the eta it used."""
    from core.mdp.files import save_mdp

    m = _wide(1200)
    priv = mdp_privacy(m, 100.0)
    assert priv.bounded and priv.n_applicable == len(priv.rows)
    assert priv.supports[0].result.eta == pytest.approx(1 / 2400)
    assert "auto" in priv.statement and "0.000416667" in priv.statement
    path = tmp_path / "big.mdp.npz"
    save_mdp(m, path)
    code, out, err = _cli("bounds", path, "--k", "100", "--beta", "0.05", "--json")
    assert code == 0, err
    assert json.loads(out)["privacy"]["eta"] == "auto"
    code, out, err = _cli("privatize", path, "--k", "100", "--seed", "1", "-o",
                          tmp_path / "p.mdp.npz", "--json")
    assert code == 0, err


def test_the_search_by_class_profile_gives_the_accounting_and_bounds_of_the_rows():
    """The designer evaluates ε from the class profile (distinct support sizes, their
    counts) and the bound with the plan and supports made once: the same floats as
    mdp_privacy on the pre-processed rows and cost_of_privacy with their centre shift."""
    from core.mdp.accounting import mdp_privacy
    from core.mdp.design import _Costs, _profile, _support_histogram, public_proxy
    from core.mdp.examples import sparse_random_mdp
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import centre_shift, cost_of_privacy

    base = sparse_random_mdp(60, 3, 4, 4, seed=5)
    t = base.transitions
    keep = np.ones(t.indices.size, dtype=bool)
    keep[t.indptr[:-1][::5]] = False  # some rows lose a next state: several support sizes
    from core.mdp.model import with_transitions

    counts = np.add.reduceat(keep.astype(np.int64), t.indptr[:-1])
    data = t.data[keep]
    indptr = np.concatenate([[0], np.cumsum(counts)])
    probs = data / np.repeat(np.add.reduceat(data, indptr[:-1]), counts)
    m = with_transitions(base, type(t)(t.n_states, t.n_actions, indptr, t.indices[keep],
                                       probs), name="mixed supports")
    pub = public_proxy(m)
    hist = _support_histogram(pub)
    assert hist[0].size > 1
    cost = _Costs(pub, 0.05, "paper")
    for eta in ("auto", "0.2/n"):
        prof = _profile(pub, eta, hist)
        prep = mechanism_rows(pub, eta=eta, domain_rule="mix")
        for k in (3.0, 80.0):
            for adjacency in ("one-row", "all-rows"):
                want = mdp_privacy(pub, k, adjacency=adjacency, prepared=prep).epsilon
                got = prof.epsilon(k, eta, b=0.1, delta=0.05, adjacency=adjacency)
                assert got == want
            shift = centre_shift(prep, (pub.n_states, pub.n_actions))
            assert cost(k, eta) == cost_of_privacy(pub, k=k, beta=0.05,
                                                   centre_shift=shift).cost_bound
