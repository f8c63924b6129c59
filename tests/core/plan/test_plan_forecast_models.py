"""core.plan.forecast and core.plan.models: a release's forecast is the closed form of its noise
(or the interpolated public proxy, or the cost bound on the public proxy model), an unknown
one says why, and a plan's model reference resolves project first, then file, then example."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest

from core.common.errors import InputError
from core.plan.document import PlannedRelease
from core.plan.forecast import SIMULATED, Forecast, forecast_release
from core.plan.models import EXAMPLES, resolve_model, resolve_models


# ------------------------------------------------------------------ noise kinds
@pytest.mark.parametrize("eps,sens,tol", [(1.0, 1.0, None), (0.5, 2.0, 1.0), (4.0, 1.0, 0.1)])
def test_laplace_forecast_is_its_tail_probability(eps: float, sens: float,
                                                  tol: float | None) -> None:
    f = forecast_release(PlannedRelease("c", "laplace", {"epsilon": eps, "sensitivity": sens,
                                                         "tolerance": tol}), eps)
    t = tol if tol is not None else sens
    scale = sens / eps
    assert f.value == pytest.approx(1 - math.exp(-t / scale)) and f.utility == f.value
    d = f.to_dict()
    assert d["expected_abs_error"] == pytest.approx(scale) and d["tolerance"] == t
    assert d["metric"] == f"P(|error| <= {t:g})" and "value_reason" not in d


def test_gaussian_forecast_is_its_two_sided_normal_probability() -> None:
    f = forecast_release(PlannedRelease("g", "gaussian", {"sigma": 2.0, "sensitivity": 1.0,
                                                          "tolerance": 2.0}), 1.0)
    assert f.value == pytest.approx(0.682689492, rel=1e-8)  # P(|N(0, σ²)| <= σ)
    assert dict(f.details)["expected_abs_error"] == pytest.approx(2 * math.sqrt(2 / math.pi))


def test_more_epsilon_forecasts_more_utility() -> None:
    utils = [forecast_release(PlannedRelease("c", "laplace", {"epsilon": e, "sensitivity": 1.0,
                                                              "tolerance": None}), e).utility
             for e in (0.1, 0.5, 1.0, 5.0)]
    assert utils == sorted(utils) and 0 < utils[0] < utils[-1] < 1


# ------------------------------------------------------------------ DP-SGD proxy curve
CURVE = [[0.5, 0.6], [2.0, 0.8], [8.0, 0.9]]


def _dpsgd(**params: Any) -> PlannedRelease:
    return PlannedRelease("m", "dpsgd", params)


def test_dpsgd_forecast_interpolates_the_proxy_in_log_epsilon() -> None:
    f = forecast_release(_dpsgd(proxy_accuracy=CURVE, nonprivate_accuracy=0.95), 1.0)
    assert f.value == pytest.approx(0.7)  # log 1 is half-way between log 0.5 and log 2
    assert f.utility == pytest.approx(0.7 / 0.95)
    assert forecast_release(_dpsgd(proxy_accuracy=CURVE), 8.0).value == pytest.approx(0.9)
    ends = forecast_release(_dpsgd(proxy_accuracy=CURVE, nonprivate_accuracy=0.5), 2.0)
    assert ends.value == pytest.approx(0.8) and ends.utility == 1.0  # capped at 1


@pytest.mark.parametrize("params,eps,reason", [
    ({}, 1.0, "no public-data proxy"),
    ({"proxy_accuracy": CURVE}, math.inf, "no finite epsilon"),
    ({"proxy_accuracy": CURVE}, 0.1, "outside the proxy curve's range [0.5, 8]"),
    ({"proxy_accuracy": CURVE}, 20.0, "outside")])
def test_dpsgd_forecast_without_a_value_says_why(params: dict, eps: float,
                                                 reason: str) -> None:
    f = forecast_release(_dpsgd(**params), eps)
    assert f.value is None and f.utility is None and reason in f.reason
    assert f.to_dict()["value_reason"] == f.reason


def test_dpsgd_utility_needs_the_nonprivate_accuracy() -> None:
    f = forecast_release(_dpsgd(proxy_accuracy=CURVE), 2.0)
    assert f.value == pytest.approx(0.8) and f.utility is None
    assert "nonprivate_accuracy" in f.to_dict()["utility_reason"]


# ------------------------------------------------------------------ simulated and mdp kinds
@pytest.mark.parametrize("kind", sorted(SIMULATED))
def test_simulated_kinds_are_computed_on_demand(kind: str) -> None:
    f = forecast_release(PlannedRelease("s", kind, {}), 1.0, estimates=False)
    assert f.metric == SIMULATED[kind][0]
    assert f.value is None and "on demand" in f.reason
    assert f.to_dict()["estimate"] == "on demand"


def test_mdp_forecast_is_the_cost_bound_on_the_public_proxy() -> None:
    model, _ = resolve_model("four-startups")
    small = forecast_release(PlannedRelease("r", "mdp", {"k": 50.0, "eta": "auto",
                                                         "beta": 0.05}), 1.0, model)
    large = forecast_release(PlannedRelease("r", "mdp", {"k": 5000.0, "eta": "auto",
                                                         "beta": 0.05}), 1.0, model)
    assert small.metric.startswith("cost-of-privacy bound")
    assert 0 < large.value < small.value  # more concentration, less cost
    span = dict(small.details)["value_range"]
    assert span > 0 and small.utility == pytest.approx(max(0.0, 1 - small.value / span))
    assert small.utility <= large.utility <= 1.0


def test_forecast_dict_lists_details() -> None:
    f = Forecast("m", None, None, "why", details=(("a", 1),))
    assert f.to_dict() == {"metric": "m", "value": None, "utility": None,
                           "value_reason": "why", "utility_reason": "why", "a": 1}


# ------------------------------------------------------------------ model references
def test_examples_resolve_to_models() -> None:
    assert set(EXAMPLES) == {"four-startups", "corridor"}
    mdp, where = resolve_model("corridor")
    assert where == "example" and mdp.n_states == 12


def test_a_file_is_read_relative_to_the_plan(tmp_path: Any) -> None:
    from core.mdp.examples import corridor
    from core.mdp.files import save_mdp

    save_mdp(corridor(n=5), str(tmp_path / "m.mdp.json"))
    mdp, where = resolve_model("m.mdp.json", base_dir=str(tmp_path))
    assert where == "file" and mdp.n_states == 5
    absolute = str(tmp_path / "m.mdp.json")
    assert resolve_model(absolute, base_dir="/elsewhere")[1] == "file"
    with pytest.raises(InputError):  # not beside the plan: not found
        resolve_model("m.mdp.json", base_dir="/elsewhere")


class _Project:
    def __init__(self, models: dict[str, Any]) -> None:
        self.mdps = [SimpleNamespace(id=i) for i in models]
        self._models = models

    def mdp(self, name: str) -> Any:
        m = self._models[name]
        if isinstance(m, Exception):
            raise m
        return m


def test_a_project_model_comes_first() -> None:
    sentinel = object()
    project = _Project({"corridor": sentinel})
    assert resolve_model("corridor", project=project) == (sentinel, "project")


def test_an_invalid_project_model_and_an_unknown_name_are_refused() -> None:
    project = _Project({"m1": InputError("row 3 sums to 0.7", field="P")})
    with pytest.raises(InputError) as info:
        resolve_model("m1", project=project, field="releases[r].mdp")
    assert info.value.field == "releases[r].mdp" and "row 3 sums to 0.7" in str(info.value)
    with pytest.raises(InputError) as info:
        resolve_model("nowhere")
    assert info.value.field == "mdp" and "four-startups, corridor" in str(info.value)


def test_resolve_models_maps_every_mdp_release_by_name() -> None:
    plan = SimpleNamespace(releases=[
        PlannedRelease("a", "mdp", {"mdp": "corridor"}),
        PlannedRelease("b", "laplace", {"epsilon": 1.0}),
        PlannedRelease("c", "mdp", {"mdp": "nowhere"})])
    with pytest.raises(InputError) as info:
        resolve_models(plan)
    assert info.value.field == "releases[c].mdp"
    plan.releases.pop()
    models = resolve_models(plan)
    assert list(models) == ["a"] and models["a"].n_states == 12
