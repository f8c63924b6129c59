"""ComarlParameters, the one parameters object of a co-MARL run (``comarl`` and the Agents
tab's Train team both build it): valid values build and survive to_dict → JSON → from_dict;
each invalid field is refused on construction naming it; the run record keeps its params
keys, and from_dict reads a record back."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.comarl.release import ComarlParameters, comarl_release
from core.common.errors import InputError
from core.project.model import Project
from core.project.recording import comarl_run_record

FAST = settings(max_examples=60, deadline=None)


@st.composite
def valid(draw: Any) -> dict[str, Any]:
    dp = draw(st.booleans())
    return {"agents": draw(st.integers(2, 6)), "size": draw(st.integers(5, 64)),
            "episodes": draw(st.integers(1, 200)),
            "algorithm": "vdn" if dp else draw(st.sampled_from(("vdn", "iql"))),
            "lr": draw(st.floats(min_value=1e-4, max_value=1.0)), "dp": dp,
            "sigma": draw(st.floats(min_value=1e-2, max_value=1e3)),
            "window": draw(st.integers(1, 10**6)),
            "sample_rate": draw(st.floats(min_value=1e-6, max_value=1.0)),
            "delta": draw(st.one_of(st.none(), st.floats(min_value=1e-12, max_value=0.5))),
            "agent": draw(st.sampled_from(("tabular", "net"))),
            "seed": draw(st.one_of(st.none(), st.integers(0, 2**63 - 1)))}


@FAST
@given(valid())
def test_valid_parameters_build_and_round_trip_through_json(kw: dict[str, Any]) -> None:
    p = ComarlParameters(**kw)
    d = p.to_dict()
    assert list(d) == ["agents", "size", "episodes", "algorithm", "lr", "dp", "sigma",
                       "window", "sample_rate", "delta", "seeded", "seed", "agent"]
    assert ComarlParameters.from_dict(json.loads(json.dumps(d, allow_nan=False))) == p
    setup = p.setup()
    assert (setup.episodes, setup.dp, setup.window) == (kw["episodes"], kw["dp"], kw["window"])
    # the networks learn with the VDN rule and their own rate, whatever the tables' are
    assert (setup.algorithm, setup.lr) == ((kw["algorithm"], kw["lr"])
                                           if kw["agent"] == "tabular" else ("vdn", 0.2))


BAD: dict[str, list[Any]] = {
    "agents": [1, 0, 2.5, True, "3"],
    "size": [4, 65, 7.5, "7"],
    "episodes": [0, 1.5, None],
    "algorithm": ["qmix", None],
    "lr": [0.0, -1.0, math.inf, math.nan],
    "dp": [1, "yes"],
    "window": [0, 2.5],
    "agent": ["ppo", None],
    "seed": [-1, 0.5],
}
DP_BAD: dict[str, list[Any]] = {"sigma": [0.0, -1.0, math.nan],
                                "sample_rate": [0.0, 1.5, -0.1, math.nan]}


@FAST
@given(st.sampled_from(sorted(BAD) + sorted(DP_BAD)).flatmap(
    lambda f: st.tuples(st.just(f), st.sampled_from({**BAD, **DP_BAD}[f]))))
def test_each_invalid_field_is_refused_naming_it(case: tuple[str, Any]) -> None:
    field, value = case
    base: dict[str, Any] = {"agents": 2, "episodes": 10, "dp": field in DP_BAD, "seed": 1}
    with pytest.raises(InputError) as info:
        ComarlParameters(**{**base, field: value})
    assert info.value.field == field


def test_refusals_say_what_the_command_line_has_always_said() -> None:
    with pytest.raises(InputError, match="PE-Co-MARL needs at least 2 agents, got 1"):
        ComarlParameters(agents=1, size=2)  # the team before the map, as before
    with pytest.raises(InputError, match="5 to 64 rows and columns, got 2 x 2"):
        ComarlParameters(agents=2, size=2, episodes=0)
    with pytest.raises(InputError, match="implemented for VDN only") as info:
        ComarlParameters(algorithm="iql", dp=True)
    assert info.value.field == "algorithm"
    # a DP setting is read only with DP, as ``comarl`` without --dp
    assert ComarlParameters(sigma=-1.0).sigma == -1.0


def test_the_record_keeps_the_old_keys_and_reads_back() -> None:
    params = ComarlParameters(agents=2, size=5, episodes=6, dp=True, window=16, seed=3)
    run = comarl_release(params)
    assert run.central is not None and run.pe.central_seconds == run.central.seconds
    rec, entries = comarl_run_record(Project(), run, params)
    assert rec.params == {"agents": 2, "episodes": 6, "dp": True, "sigma": 1.0,
                          "window": 16, "sample_rate": 1 / 32, "seeded": True, "seed": 3,
                          "agent": "tabular"}
    assert rec.summary["central_returns"] == [float(v) for v in run.central.returns]
    assert len(entries) == 4
    back = ComarlParameters.from_dict(rec.params)
    assert (back.agents, back.episodes, back.dp, back.window, back.seed) == (2, 6, True, 16, 3)
    plain = ComarlParameters(agents=2, episodes=4, seed=3)
    rec, _ = comarl_run_record(Project(), comarl_release(plain, reference=False), plain)
    assert (rec.params["sigma"], rec.params["window"], rec.params["sample_rate"]) == (
        None, None, None)
    assert "central_returns" not in rec.summary
    assert ComarlParameters.from_dict(rec.params) == plain


def test_the_networks_need_their_trainer() -> None:
    with pytest.raises(ValueError, match="trainer"):
        comarl_release(ComarlParameters(agents=2, episodes=2, agent="net", seed=0))
