"""core.plan.document and the plan's δ shares and Gaussian noise (core.plan.accounting).

The plan document: every valid plan survives ``plan_to_dict`` → JSON → ``plan_from_dict``
unchanged (property test), and every invalid field is refused with its path
(``releases[NAME].FIELD``). The accounting helpers are checked against independent
computations: the even δ share by hand, the Gaussian σ against the analytic Gaussian
mechanism's profile (Balle & Wang) evaluated here with scipy, and against dp-accounting.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from dp_accounting.pld import privacy_loss_distribution  # noqa: F401 - slow import, at collection
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from core.common.errors import InputError
from core.plan.accounting import (
    GaussianTerm,
    gaussian_sigma_for,
    model_memo,
    plan_deltas,
    release_terms,
    resolve_release,
    term_epsilon,
)
from core.plan.document import (
    KINDS,
    KNOBS,
    PLAN_FORMAT,
    Plan,
    PlannedRelease,
    load_plan,
    plan_from_dict,
    plan_to_dict,
    project_plan,
)
from core.privacy.pld import eps_delta_term, laplace_term


def _doc(*releases: dict[str, Any], **top: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"format": PLAN_FORMAT, "version": 1,
                         "budget": {"epsilon": 2.0, "delta": 1e-5},
                         "releases": list(releases) or [{"name": "q", "kind": "laplace",
                                                         "epsilon": 0.5}]}
    d.update(top)
    return d


# ---------------------------------------------------------------- round trip

_pos = st.floats(1e-3, 1e3)
_release = st.one_of(
    st.fixed_dictionaries({"kind": st.just("laplace"), "epsilon": _pos},
                          optional={"sensitivity": _pos, "tolerance": _pos}),
    st.fixed_dictionaries({"kind": st.just("gaussian"), "sigma": _pos},
                          optional={"sensitivity": _pos, "delta": st.floats(0, 0.5)}),
    st.fixed_dictionaries({"kind": st.just("gaussian"), "epsilon": _pos}),
    st.fixed_dictionaries({"kind": st.just("dpsgd"), "sigma": _pos,
                           "sample_rate": st.floats(1e-4, 1.0), "steps": st.integers(1, 10 ** 6)},
                          optional={"window": st.integers(1, 100),
                                    "proxy_accuracy": st.lists(
                                        st.tuples(_pos, st.floats(0.01, 1.0)).map(list),
                                        min_size=2, max_size=4)}),
    st.fixed_dictionaries({"kind": st.just("mdp"), "mdp": st.just("example:four-startups"),
                           "k": _pos},
                          optional={"eta": st.one_of(st.floats(0, 1), st.just("0.1/n")),
                                    "adjacency": st.sampled_from(["one-row", "all-rows"])}),
    st.fixed_dictionaries({"kind": st.just("logistics"), "map": st.just("m.json"),
                           "epsilon": _pos}, optional={"centers": st.integers(4, 50)}),
    st.fixed_dictionaries({"kind": st.just("sharing"), "k0": _pos, "c": _pos,
                           "rollouts": st.integers(1, 50), "epsilon": _pos}),
)


@settings(max_examples=40)
@given(st.lists(_release, min_size=1, max_size=4), st.floats(1e-3, 100),
       st.floats(0, 0.99), st.text(min_size=1, max_size=6),
       st.lists(st.floats(0.1, 10), min_size=4, max_size=4), st.lists(st.booleans(),
                                                                     min_size=4, max_size=4))
def test_every_valid_plan_round_trips_through_json(releases: list[dict], eps: float,
                                                   delta: float, dataset: str,
                                                   weights: list[float],
                                                   fixed: list[bool]) -> None:
    rs = [{**r, "name": f"r{i} ü", "weight": weights[i], "fixed": fixed[i]}
          for i, r in enumerate(releases)]
    plan = plan_from_dict(_doc(*rs, budget={"epsilon": eps, "delta": delta}, dataset=dataset,
                               name="P"))
    text = json.dumps(plan_to_dict(plan), allow_nan=False)
    again = plan_from_dict(json.loads(text))
    assert again == plan
    assert [r.name for r in again.releases] == [r["name"] for r in rs]
    for r in again.releases:
        curve = r.params.get("proxy_accuracy")
        if curve:
            assert curve == sorted(curve)  # stored sorted by epsilon


def test_defaults_are_filled_in_and_left_out_again() -> None:
    plan = plan_from_dict(_doc({"name": "m", "kind": "mdp", "mdp": "x", "k": 10}))
    p = plan.releases[0].params
    assert (p["eta"], p["b"], p["adjacency"], p["beta"]) == ("0.3/n", 0.1, "one-row", 0.05)
    assert plan.dataset == "study" and plan.name == ""
    d = plan_to_dict(plan)["releases"][0]
    assert "epsilon" not in d and "delta" not in d and "weight" not in d and "fixed" not in d


def test_kinds_and_knobs_agree() -> None:
    assert set(KNOBS) == set(KINDS)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("top, field", [
    ({"format": "other"}, "format"),
    ({"version": 2}, "version"),
    ({"version": "1"}, "version"),
    ({"budget": None}, "budget"),
    ({"budget": {"delta": 0.1}}, "budget.epsilon"),
    ({"budget": {"epsilon": 0.0}}, "budget.epsilon"),
    ({"budget": {"epsilon": 1e13}}, "budget.epsilon"),
    ({"budget": {"epsilon": True}}, "budget.epsilon"),
    ({"budget": {"epsilon": 1.0, "delta": 1.0}}, "budget.delta"),
    ({"budget": {"epsilon": 1.0, "delta": -0.1}}, "budget.delta"),
    ({"releases": []}, "releases"),
    ({"releases": {"name": "q"}}, "releases"),
    ({"dataset": ""}, "dataset"),
    ({"dataset": 5}, "dataset"),
])
def test_top_level_refusals_name_the_field(top: dict, field: str) -> None:
    with pytest.raises(InputError) as info:
        plan_from_dict(_doc(**top))
    assert info.value.field == field


def test_a_non_object_plan_is_refused() -> None:
    with pytest.raises(InputError) as info:
        plan_from_dict([1])
    assert info.value.field == "plan"


@pytest.mark.parametrize("release, field, words", [
    ("x", "releases[0]", "must be an object"),
    ({"kind": "laplace", "epsilon": 1}, "releases[0].name", "non-empty"),
    ({"name": "", "kind": "laplace"}, "releases[0].name", "non-empty"),
    ({"name": "a", "kind": "poisson"}, "releases[a].kind", "kind must be one of"),
    ({"name": "a", "kind": "laplace", "epsilon": 1, "sigma": 2},
     "releases[a].sigma", "unknown key"),
    ({"name": "a", "kind": "laplace"}, "releases[a].epsilon", "needs 'epsilon'"),
    ({"name": "a", "kind": "laplace", "epsilon": math.inf}, "releases[a].epsilon",
     "finite"),
    ({"name": "a", "kind": "laplace", "epsilon": 1, "sensitivity": 1e-13},
     "releases[a].sensitivity", "[1e-12, 1e12]"),
    ({"name": "a", "kind": "gaussian"}, "releases[a].sigma", "needs sigma or epsilon"),
    ({"name": "a", "kind": "gaussian", "sigma": 1, "epsilon": 1}, "releases[a].epsilon",
     "not both"),
    ({"name": "a", "kind": "dpsgd", "sigma": 1, "sample_rate": 0, "steps": 5},
     "releases[a].sample_rate", "(0, 1]"),
    ({"name": "a", "kind": "dpsgd", "sigma": 1, "sample_rate": 0.1, "steps": 2.5},
     "releases[a].steps", "whole number"),
    ({"name": "a", "kind": "dpsgd", "sigma": 1, "sample_rate": 0.1, "steps": 0},
     "releases[a].steps", "whole number"),
    ({"name": "a", "kind": "dpsgd", "sigma": 1, "sample_rate": 0.1, "steps": 5,
      "proxy_accuracy": [[1, 0.5]]}, "releases[a].proxy_accuracy", "at least two"),
    ({"name": "a", "kind": "dpsgd", "sigma": 1, "sample_rate": 0.1, "steps": 5,
      "proxy_accuracy": [[1, 0.5], [2]]}, "releases[a].proxy_accuracy[1]", "pair"),
    ({"name": "a", "kind": "dpsgd", "sigma": 1, "sample_rate": 0.1, "steps": 5,
      "proxy_accuracy": [[1, 0.5], [2, 1.5]]}, "releases[a].proxy_accuracy[1][1]",
     "(0, 1]"),
    ({"name": "a", "kind": "mdp", "mdp": "x", "k": 1, "adjacency": "some-rows"},
     "releases[a].adjacency", "one-row or all-rows"),
    ({"name": "a", "kind": "mdp", "mdp": "", "k": 1}, "releases[a].mdp", "non-empty"),
    ({"name": "a", "kind": "mdp", "mdp": "x", "k": 1, "eta": -0.1}, "releases[a].eta",
     ">= 0"),
    ({"name": "a", "kind": "logistics", "map": "m", "epsilon": 1, "preset": "fast"},
     "releases[a].preset", "sound or thesis"),
    ({"name": "a", "kind": "logistics", "map": "m", "epsilon": 1, "centers": 3},
     "releases[a].centers", "[4, 50]"),
    ({"name": "a", "kind": "sharing", "k0": 1, "c": 1, "rollouts": 1, "epsilon": 1,
      "env": "file:x"}, "releases[a].env", "gym:ID"),
    ({"name": "a", "kind": "advising", "epsilon": 1, "preset": "nope"},
     "releases[a].preset", "must be one of"),
    ({"name": "a", "kind": "laplace", "epsilon": 1, "delta": 1.0}, "releases[a].delta",
     "[0, 1)"),
    ({"name": "a", "kind": "laplace", "epsilon": 1, "weight": 0}, "releases[a].weight",
     "[1e-12, 1e12]"),
    ({"name": "a", "kind": "laplace", "epsilon": 1, "fixed": "yes"}, "releases[a].fixed",
     "true or false"),
])
def test_release_refusals_name_the_release_and_field(release: Any, field: str,
                                                     words: str) -> None:
    with pytest.raises(InputError) as info:
        plan_from_dict(_doc(release))
    assert info.value.field == field and words in info.value.problem


def test_duplicate_release_names_are_refused_at_the_second() -> None:
    r = {"name": "same", "kind": "laplace", "epsilon": 0.1}
    with pytest.raises(InputError) as info:
        plan_from_dict(_doc(r, r))
    assert info.value.field == "releases[1].name" and "duplicate" in info.value.problem


def test_load_plan_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "x.plan.json"
    p.write_text(json.dumps(_doc({"name": "a", "kind": "laplace"})))
    with pytest.raises(InputError) as info:
        load_plan(p)
    assert info.value.file == str(p) and info.value.field == "releases[a].epsilon"
    p.write_text(json.dumps(_doc()))
    assert load_plan(p).releases[0].name == "q"
    p.write_text("{")
    with pytest.raises(InputError) as info:
        load_plan(p)
    assert info.value.file == str(p)


def test_project_plan_prefixes_the_plans_name() -> None:
    class _Project:
        def plan(self, name: str) -> dict[str, Any]:
            return _doc({"name": "a", "kind": "laplace", "epsilon": -1})

    with pytest.raises(InputError) as info:
        project_plan(_Project(), "study-1")
    assert info.value.field == "plans[study-1].releases[a].epsilon"


def test_plan_release_lookup_and_replacement() -> None:
    plan = plan_from_dict(_doc({"name": "a", "kind": "laplace", "epsilon": 1},
                               {"name": "b", "kind": "laplace", "epsilon": 2}))
    assert plan.release("b").params["epsilon"] == 2.0
    with pytest.raises(InputError) as info:
        plan.release("c")
    assert info.value.field == "releases"
    changed = plan.release("a").with_params(epsilon=0.25)
    assert changed.params["epsilon"] == 0.25 and plan.release("a").params["epsilon"] == 1.0
    p2 = plan.with_releases([changed])
    assert p2.releases == (changed,) and p2.epsilon == plan.epsilon
    assert hash(changed) == hash(plan.release("a").with_params(epsilon=0.25))


# ---------------------------------------------------------------- δ shares


def _plan(*releases: PlannedRelease, delta: float = 1e-5) -> Plan:
    return Plan(1.0, delta, tuple(releases))


def test_plan_deltas_share_what_the_given_deltas_leave() -> None:
    plan = _plan(PlannedRelease("lap", "laplace", {"epsilon": 1}),
                 PlannedRelease("g1", "gaussian", {"sigma": 1}),
                 PlannedRelease("g2", "gaussian", {"sigma": 1}, delta=4e-6),
                 PlannedRelease("net", "dpsgd", {}),
                 PlannedRelease("log", "logistics", {}, delta=1e-7),
                 PlannedRelease("adv", "advising", {}),
                 delta=1e-5)
    d = plan_deltas(plan)
    share = (1e-5 - 4e-6 - 1e-7) / 2
    assert d == {"lap": 0.0, "g1": pytest.approx(share), "g2": 4e-6,
                 "net": pytest.approx(share), "log": 1e-7, "adv": 0.0}
    assert math.fsum(d.values()) == pytest.approx(1e-5)


def test_plan_deltas_never_negative_when_given_deltas_overrun() -> None:
    plan = _plan(PlannedRelease("g1", "gaussian", {}, delta=1e-4),
                 PlannedRelease("g2", "gaussian", {}), delta=1e-5)
    assert plan_deltas(plan)["g2"] == 0.0


# ---------------------------------------------------------------- Gaussian noise


def _analytic_delta(sigma: float, eps: float, sens: float) -> float:
    a, b = sens / (2 * sigma), eps * sigma / sens
    return float(norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b))


@pytest.mark.parametrize("eps, delta, sens", [(1.0, 1e-5, 1.0), (0.1, 1e-6, 1.0),
                                              (4.0, 1e-3, 2.5), (1.0, 0.3, 1e-3)])
def test_gaussian_sigma_is_the_smallest_meeting_the_target(eps: float, delta: float,
                                                           sens: float) -> None:
    sigma = gaussian_sigma_for(eps, delta, sens)
    assert _analytic_delta(sigma, eps, sens) <= delta
    assert _analytic_delta(sigma * (1 - 1e-5), eps, sens) > delta


def test_gaussian_sigma_scales_with_the_sensitivity_and_falls_with_epsilon() -> None:
    base = gaussian_sigma_for(1.0, 1e-5)
    assert gaussian_sigma_for(1.0, 1e-5, 7.0) == pytest.approx(7 * base, rel=3e-6)
    sigmas = [gaussian_sigma_for(e, 1e-5) for e in (0.25, 0.5, 1.0, 2.0)]
    assert all(a > b for a, b in zip(sigmas, sigmas[1:]))


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-5, 2.0])
def test_gaussian_sigma_needs_a_delta(delta: float) -> None:
    with pytest.raises(InputError) as info:
        gaussian_sigma_for(1.0, delta)
    assert info.value.field == "delta"


def test_gaussian_term_agrees_with_its_target_epsilon() -> None:
    sigma = gaussian_sigma_for(1.0, 1e-5)
    eps = term_epsilon([GaussianTerm("gaussian", (sigma, 1.0, 1.0, 1, False))], 1e-5)
    assert 1.0 - 1e-6 <= eps <= 1.0 + 0.01  # dp-accounting is pessimistic, by ~ its grid


def test_resolve_release_computes_sigma_from_epsilon_and_names_errors() -> None:
    r = PlannedRelease("g", "gaussian", {"sigma": None, "epsilon": 1.0, "sensitivity": 1.0})
    resolved = resolve_release(r, 1e-5)
    assert resolved.params["epsilon"] is None
    assert resolved.params["sigma"] == pytest.approx(gaussian_sigma_for(1.0, 1e-5))
    with pytest.raises(InputError) as info:
        resolve_release(r, 0.0)
    assert info.value.field == "releases[g].delta"
    lap = PlannedRelease("l", "laplace", {"epsilon": 1.0, "sensitivity": 1.0})
    assert resolve_release(lap, 0.0) is lap


def test_release_terms_of_simple_kinds() -> None:
    lap = PlannedRelease("l", "laplace", {"epsilon": 0.5, "sensitivity": 2.0})
    assert release_terms(lap, 0.0) == [laplace_term(4.0, 2.0, 1, "l")]
    decl = PlannedRelease("s", "sharing", {"epsilon": 3.0})
    assert release_terms(decl, 1e-6) == [eps_delta_term(3.0, 1e-6, 1, "s")]
    net = PlannedRelease("n", "dpsgd", {"sigma": 1.1, "sample_rate": 0.01, "steps": 1000,
                                        "window": 3, "updates_per_entry": 4})
    (t,) = release_terms(net, 1e-5)
    assert t.params == (1.1, 1.0, 0.01, 12, True)  # the window counts 3 × 4 steps
    with pytest.raises(InputError) as info:
        release_terms(PlannedRelease("x", "teleport", {}), 0.0)
    assert info.value.field == "releases[x].kind"


def test_term_epsilon_shortcuts() -> None:
    assert term_epsilon([laplace_term(2.0, 1.0), laplace_term(4.0, 1.0)], 0.0) == 0.75
    assert term_epsilon([eps_delta_term(1.0, 1e-6)], 1e-6) == 1.0
    assert term_epsilon([eps_delta_term(1.0, 1e-6)], 1e-7) == math.inf
    g = GaussianTerm("gaussian", (1.0, 1.0, 1.0, 1, False))
    assert term_epsilon([g], 0.0) == math.inf  # approximate DP at δ = 0: no finite ε


def test_model_memo_caches_by_identity_and_keeps_the_model() -> None:
    calls: list[int] = []

    @model_memo
    def f(model: Any, x: int) -> int:
        calls.append(x)
        return len(model) + x

    a, b = [1, 2], [1, 2]  # equal but distinct objects
    assert f(a, 1) == 3 and f(a, 1) == 3 and calls == [1]
    assert f(b, 1) == 3 and calls == [1, 1]
    assert f(a, 2) == 4 and calls == [1, 1, 2]
