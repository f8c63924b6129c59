"""core.plan.document: every refusal names the field it is about, the JSON round trip is exact
(also for generated plans and unicode names), and the small helpers (``Plan.release``,
``with_params``, ``load_plan``, ``project_plan``) do what their docstrings promise."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.plan.document import (
    KINDS,
    KNOBS,
    PLAN_FORMAT,
    PLAN_VERSION,
    Plan,
    PlannedRelease,
    load_plan,
    plan_from_dict,
    plan_to_dict,
    project_plan,
)


def _doc(*releases: dict[str, Any], **top: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"format": PLAN_FORMAT, "version": PLAN_VERSION,
                         "budget": {"epsilon": 2.0, "delta": 1e-6},
                         "releases": list(releases) or [{"name": "c", "kind": "laplace",
                                                         "epsilon": 0.5}]}
    d.update(top)
    return d


def _field(d: Any) -> str | None:
    with pytest.raises(InputError) as info:
        plan_from_dict(d)
    return info.value.field


# ------------------------------------------------------------------ top-level refusals
@pytest.mark.parametrize("doc,field", [
    ([], "plan"),
    ("plan", "plan"),
    ({"version": 1}, "format"),
    (_doc(format="privplan-project"), "format"),
    (_doc(version=2), "version"),
    (_doc(version="1"), "version"),
    (_doc(budget=None), "budget"),
    (_doc(budget=[1.0, 0.0]), "budget"),
    (_doc(budget={"delta": 0.0}), "budget.epsilon"),
    (_doc(budget={"epsilon": 0.0}), "budget.epsilon"),
    (_doc(budget={"epsilon": -1.0}), "budget.epsilon"),
    (_doc(budget={"epsilon": math.nan}), "budget.epsilon"),
    (_doc(budget={"epsilon": math.inf}), "budget.epsilon"),
    (_doc(budget={"epsilon": True}), "budget.epsilon"),
    (_doc(budget={"epsilon": "1"}), "budget.epsilon"),
    (_doc(budget={"epsilon": 1e13}), "budget.epsilon"),
    (_doc(budget={"epsilon": 1.0, "delta": 1.0}), "budget.delta"),
    (_doc(budget={"epsilon": 1.0, "delta": -1e-9}), "budget.delta"),
    (_doc(releases=[]), "releases"),
    (_doc(releases={"c": {}}), "releases"),
    (_doc(dataset=""), "dataset"),
    (_doc(dataset=3), "dataset"),
])
def test_a_bad_plan_is_refused_naming_the_field(doc: Any, field: str) -> None:
    assert _field(doc) == field


def test_the_error_text_is_one_line_that_starts_with_the_field() -> None:
    with pytest.raises(InputError) as info:
        plan_from_dict(_doc(budget={"epsilon": -2.0}))
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith("budget.epsilon: ") and "-2" in text


# ------------------------------------------------------------------ release refusals
@pytest.mark.parametrize("release,field", [
    ("c", "releases[0]"),
    ({"kind": "laplace", "epsilon": 1.0}, "releases[0].name"),
    ({"name": "", "kind": "laplace", "epsilon": 1.0}, "releases[0].name"),
    ({"name": 7, "kind": "laplace", "epsilon": 1.0}, "releases[0].name"),
    ({"name": "c", "kind": "poisson"}, "releases[c].kind"),
    ({"name": "c", "kind": ["laplace"]}, "releases[c].kind"),
    ({"name": "c", "kind": "laplace", "epsilon": 1.0, "sigma": 2.0}, "releases[c].sigma"),
    ({"name": "c", "kind": "laplace"}, "releases[c].epsilon"),
    ({"name": "c", "kind": "laplace", "epsilon": 1.0, "sensitivity": 0}, "releases[c].sensitivity"),
    ({"name": "g", "kind": "gaussian"}, "releases[g].sigma"),
    ({"name": "g", "kind": "gaussian", "sigma": 1.0, "epsilon": 1.0}, "releases[g].epsilon"),
    ({"name": "n", "kind": "dpsgd", "sigma": 1.0, "steps": 10}, "releases[n].sample_rate"),
    ({"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 0.0, "steps": 10},
     "releases[n].sample_rate"),
    ({"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 1.5, "steps": 10},
     "releases[n].sample_rate"),
    ({"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 0.1, "steps": 2.5},
     "releases[n].steps"),
    ({"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 0.1, "steps": 0},
     "releases[n].steps"),
    ({"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 0.1, "steps": 10,
      "window": -1}, "releases[n].window"),
    ({"name": "m", "kind": "mdp", "k": 10.0}, "releases[m].mdp"),
    ({"name": "m", "kind": "mdp", "mdp": "corridor"}, "releases[m].k"),
    ({"name": "m", "kind": "mdp", "mdp": "corridor", "k": 5.0, "adjacency": "two-rows"},
     "releases[m].adjacency"),
    ({"name": "m", "kind": "mdp", "mdp": "corridor", "k": 5.0, "eta": -0.1},
     "releases[m].eta"),
    ({"name": "m", "kind": "mdp", "mdp": "corridor", "k": 5.0, "beta": 0.0},
     "releases[m].beta"),
    ({"name": "l", "kind": "logistics", "map": "m.json", "epsilon": 1.0, "preset": "loud"},
     "releases[l].preset"),
    ({"name": "l", "kind": "logistics", "map": "m.json", "epsilon": 1.0, "centers": 3},
     "releases[l].centers"),
    ({"name": "l", "kind": "logistics", "map": "m.json", "epsilon": 1.0, "centers": 51},
     "releases[l].centers"),
    ({"name": "s", "kind": "sharing", "k0": 1.0, "c": 1.0, "rollouts": 5, "epsilon": 1.0,
      "env": "private:data"}, "releases[s].env"),
    ({"name": "c", "kind": "laplace", "epsilon": 1.0, "delta": 1.0}, "releases[c].delta"),
    ({"name": "c", "kind": "laplace", "epsilon": 1.0, "delta": -0.5}, "releases[c].delta"),
    ({"name": "c", "kind": "laplace", "epsilon": 1.0, "weight": 0}, "releases[c].weight"),
    ({"name": "c", "kind": "laplace", "epsilon": 1.0, "fixed": "yes"}, "releases[c].fixed"),
    ({"name": "c", "kind": "laplace", "epsilon": 1.0, "fixed": 1}, "releases[c].fixed"),
])
def test_a_bad_release_is_refused_naming_its_field(release: Any, field: str) -> None:
    assert _field(_doc(release)) == field


def test_a_duplicate_release_name_is_named_by_position() -> None:
    r = {"name": "c", "kind": "laplace", "epsilon": 0.5}
    assert _field(_doc(r, dict(r))) == "releases[1].name"


def test_the_unknown_key_named_is_the_first_in_sorted_order() -> None:
    with pytest.raises(InputError) as info:
        plan_from_dict(_doc({"name": "c", "kind": "laplace", "epsilon": 1.0, "zz": 1, "aa": 2}))
    assert info.value.field == "releases[c].aa"
    assert "aa, zz" in info.value.problem


@pytest.mark.parametrize("curve,field", [
    ("fast", "releases[n].proxy_accuracy"),
    ([[1.0, 0.5]], "releases[n].proxy_accuracy"),
    ([[1.0, 0.5], [2.0]], "releases[n].proxy_accuracy[1]"),
    ([[1.0, 0.5], (2.0, 0.6)], "releases[n].proxy_accuracy[1]"),
    ([[1.0, 0.5], [0.0, 0.6]], "releases[n].proxy_accuracy[1][0]"),
    ([[1.0, 1.5], [2.0, 0.6]], "releases[n].proxy_accuracy[0][1]"),
    ([[1.0, 0.5], [2.0, math.nan]], "releases[n].proxy_accuracy[1][1]"),
])
def test_a_bad_proxy_curve_names_the_pair_and_the_coordinate(curve: Any, field: str) -> None:
    r = {"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 0.01, "steps": 100,
         "proxy_accuracy": curve}
    assert _field(_doc(r)) == field


# ------------------------------------------------------------------ what is accepted
def test_defaults_fill_the_optional_parameters() -> None:
    p = plan_from_dict(_doc(
        {"name": "c", "kind": "laplace", "epsilon": 1},
        {"name": "m", "kind": "mdp", "mdp": "corridor", "epsilon": 1.0},
        {"name": "l", "kind": "logistics", "map": "m.json", "epsilon": 1.0},
        {"name": "s", "kind": "sharing", "k0": 1.0, "c": 2.0, "rollouts": 3,
         "epsilon": 0.5, "env": "gym:CartPole-v1"},
    ))
    c, m, lg, s = p.releases
    assert c.params == {"epsilon": 1.0, "sensitivity": 1.0, "tolerance": None}
    assert isinstance(c.params["epsilon"], float)
    assert (m.params["eta"], m.params["b"], m.params["adjacency"], m.params["beta"]) == \
        ("0.3/n", 0.1, "one-row", 0.05)
    assert m.params["k"] is None
    assert (lg.params["preset"], lg.params["centers"]) == ("sound", 10)
    assert s.params["env"] == "gym:CartPole-v1" and s.params["rollouts"] == 3
    assert (p.dataset, p.name, c.weight, c.fixed, c.delta, c.note) == \
        ("study", "", 1.0, False, None, "")


def test_a_whole_float_count_becomes_an_int_and_eta_may_be_a_number() -> None:
    p = plan_from_dict(_doc(
        {"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 1, "steps": 10.0,
         "window": 2},
        {"name": "m", "kind": "mdp", "mdp": "corridor", "k": 4.0, "eta": 0},
    ))
    n, m = p.releases
    assert n.params["steps"] == 10 and type(n.params["steps"]) is int
    assert n.params["sample_rate"] == 1.0  # 1 is in (0, 1]
    assert m.params["eta"] == 0.0


def test_the_proxy_curve_is_sorted_by_epsilon() -> None:
    r = {"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 0.01, "steps": 100,
         "proxy_accuracy": [[8, 0.9], [0.5, 0.6], [2, 0.8]]}
    curve = plan_from_dict(_doc(r)).releases[0].params["proxy_accuracy"]
    assert curve == [[0.5, 0.6], [2.0, 0.8], [8.0, 0.9]]


@pytest.mark.parametrize("value,ok", [(1e-12, True), (1e12, True), (0.99e-12, False),
                                      (1.01e12, False)])
def test_a_positive_quantity_must_lie_within_twelve_decades(value: float, ok: bool) -> None:
    d = _doc({"name": "c", "kind": "laplace", "epsilon": value})
    if ok:
        assert plan_from_dict(d).releases[0].params["epsilon"] == value
    else:
        assert _field(d) == "releases[c].epsilon"


def test_every_kind_has_a_knob_among_its_parameters() -> None:
    from core.plan.document import _PARAMS

    assert set(KNOBS) == set(KINDS)
    for kind, knob in KNOBS.items():
        assert knob in _PARAMS[kind]


def test_validation_does_not_change_the_input_document() -> None:
    d = _doc({"name": "n", "kind": "dpsgd", "sigma": 1.0, "sample_rate": 0.01, "steps": 100,
              "proxy_accuracy": [[8, 0.9], [0.5, 0.6]]})
    before = copy.deepcopy(d)
    plan_from_dict(d)
    assert d == before


# ------------------------------------------------------------------ round trips
def test_to_dict_omits_defaults_and_keeps_what_was_set() -> None:
    r = PlannedRelease("c", "laplace", {"epsilon": 1.0, "sensitivity": 1.0, "tolerance": None})
    assert r.to_dict() == {"name": "c", "kind": "laplace", "epsilon": 1.0, "sensitivity": 1.0}
    r2 = PlannedRelease("c", "laplace", {"epsilon": 1.0}, delta=0.0, weight=2.0, fixed=True,
                        note="n")
    assert r2.to_dict() == {"name": "c", "kind": "laplace", "epsilon": 1.0, "delta": 0.0,
                            "weight": 2.0, "fixed": True, "note": "n"}


def test_a_full_plan_round_trips_through_json_text() -> None:
    d = _doc(
        {"name": "zählung", "kind": "laplace", "epsilon": 0.25, "tolerance": 3.0,
         "note": "Ωmega ✓"},
        {"name": "g", "kind": "gaussian", "epsilon": 0.5, "delta": 1e-7, "weight": 3.0},
        {"name": "n", "kind": "dpsgd", "sigma": 1.1, "sample_rate": 0.01, "steps": 500,
         "window": 5, "updates_per_entry": 2, "proxy_accuracy": [[0.5, 0.6], [4.0, 0.9]],
         "nonprivate_accuracy": 0.95, "fixed": True},
        {"name": "m", "kind": "mdp", "mdp": "four-startups", "k": 50.0, "eta": "0.2/n",
         "adjacency": "all-rows"},
        name="研究 plan", dataset="patients-2026",
    )
    p = plan_from_dict(d)
    again = plan_from_dict(json.loads(json.dumps(plan_to_dict(p), ensure_ascii=False)))
    assert again == p
    assert plan_to_dict(again) == plan_to_dict(p)
    assert p.name == "研究 plan" and p.release("zählung").note == "Ωmega ✓"


_names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1,
                 max_size=12)
_pos = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def _plans(draw: Any) -> dict[str, Any]:
    names = draw(st.lists(_names, min_size=1, max_size=5, unique=True))
    releases = []
    for name in names:
        r: dict[str, Any] = {"name": name}
        if draw(st.booleans()):
            r.update(kind="laplace", epsilon=draw(_pos), sensitivity=draw(_pos))
        else:
            r.update(kind="gaussian", sigma=draw(_pos))
        if draw(st.booleans()):
            r["delta"] = draw(st.floats(min_value=0.0, max_value=0.5))
        if draw(st.booleans()):
            r["weight"] = draw(_pos)
        r["fixed"] = draw(st.booleans())
        releases.append(r)
    return _doc(*releases, budget={"epsilon": draw(_pos),
                                   "delta": draw(st.floats(min_value=0.0, max_value=0.99))},
                dataset=draw(_names))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_plans())
def test_generated_plans_round_trip_exactly(d: dict[str, Any]) -> None:
    p = plan_from_dict(d)
    assert plan_from_dict(plan_to_dict(p)) == p
    assert plan_from_dict(json.loads(json.dumps(plan_to_dict(p)))) == p
    assert [r.name for r in p.releases] == [r["name"] for r in d["releases"]]


# ------------------------------------------------------------------ helpers
def test_plan_release_finds_by_name_and_names_the_field_when_missing() -> None:
    p = plan_from_dict(_doc())
    assert p.release("c").kind == "laplace"
    with pytest.raises(InputError) as info:
        p.release("nope")
    assert info.value.field == "releases" and "'nope'" in info.value.problem


def test_with_params_and_with_releases_copy_and_leave_the_original() -> None:
    p = plan_from_dict(_doc())
    r = p.releases[0]
    r2 = r.with_params(epsilon=0.25)
    assert r.params["epsilon"] == 0.5 and r2.params["epsilon"] == 0.25
    assert r2.params["sensitivity"] == r.params["sensitivity"]
    p2 = p.with_releases([r2])
    assert isinstance(p2.releases, tuple) and p2.releases[0] is r2
    assert p.releases[0] is r and p2.epsilon == p.epsilon


def test_equal_releases_hash_equal_and_are_usable_as_keys() -> None:
    a = PlannedRelease("c", "laplace", {"epsilon": 1.0, "sensitivity": 1.0})
    b = PlannedRelease("c", "laplace", {"sensitivity": 1.0, "epsilon": 1.0})
    assert a == b and hash(a) == hash(b)
    assert len({a, b, a.with_params(epsilon=2.0)}) == 2


def test_load_plan_names_the_file_and_the_field(tmp_path: Path) -> None:
    good = tmp_path / "ok.plan.json"
    good.write_text(json.dumps(_doc()), encoding="utf-8")
    assert load_plan(good) == plan_from_dict(_doc())
    assert load_plan(str(good)) == load_plan(good)
    bad = tmp_path / "bad.plan.json"
    bad.write_text(json.dumps(_doc(budget={"epsilon": 0})), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_plan(bad)
    assert info.value.file == str(bad) and info.value.field == "budget.epsilon"
    assert str(info.value).startswith(f"{bad}: budget.epsilon: ")


def test_load_plan_refuses_a_file_that_is_not_json(tmp_path: Path) -> None:
    bad = tmp_path / "x.plan.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_plan(bad)
    assert str(bad) in str(info.value)


class _Project:
    def __init__(self, plans: dict[str, Any]) -> None:
        self._plans = plans

    def plan(self, name: str) -> Any:
        if name not in self._plans:
            raise InputError(f"no plan named {name!r}", field="plan")
        return self._plans[name]


def test_project_plan_prefixes_the_field_with_the_plan_name() -> None:
    proj = _Project({"main": _doc(), "broken": _doc({"name": "g", "kind": "gaussian"})})
    assert project_plan(proj, "main") == plan_from_dict(_doc())
    with pytest.raises(InputError) as info:
        project_plan(proj, "broken")
    assert info.value.field == "plans[broken].releases[g].sigma"
    with pytest.raises(InputError) as info:
        project_plan(proj, "absent")
    assert info.value.field == "plan"


def test_a_plan_is_frozen() -> None:
    p = Plan(1.0, 0.0, ())
    with pytest.raises(AttributeError):
        p.epsilon = 2.0  # type: ignore[misc]
