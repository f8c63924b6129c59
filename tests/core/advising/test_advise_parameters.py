"""The parameters of one advising run: :class:`AdvisingParams` (the algorithm's knobs) and
:class:`AdviseParameters` (the set-up, the seed and δ, what ``advise …`` and the window's single
run both build). Every valid value is accepted and survives to_dict → JSON → from_dict; every
invalid field is refused on construction with an InputError naming that field; the one entry
point runs them and the record keeps the run record's ``params`` keys."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.advising import (
    ADVICE_PRIORS,
    STRATEGIES,
    AdviseParameters,
    AdvisingParams,
    advise_release,
    preset,
    run_advising,
)
from core.common.errors import InputError
from core.common.progress import Cancelled
from core.project.model import Project
from core.project.recording import advise_run_record

ROOT = Path(__file__).resolve().parents[3]

# --------------------------------------------------------------------- AdvisingParams
unit = st.floats(min_value=1e-6, max_value=1.0)


@st.composite
def valid_params(draw: Any) -> dict[str, Any]:
    center = draw(st.floats(min_value=0.01, max_value=0.99))
    snapshot = draw(st.booleans())
    return {
        "strategy": draw(st.sampled_from(STRATEGIES)),
        "epsilon": draw(st.floats(min_value=1e-3, max_value=1e3)),
        "sensitivity": draw(st.one_of(st.none(), st.floats(min_value=1e-3, max_value=1e3))),
        "alpha": draw(unit),
        "xi": draw(st.floats(min_value=0.0, max_value=1e6)),
        "gamma": draw(st.floats(min_value=0.0, max_value=0.999)) if snapshot else 0.0,
        "q0": draw(st.floats(min_value=-1e6, max_value=1e6)),
        "norm_center": center,
        "norm_floor": draw(st.floats(min_value=1e-6, max_value=center * 0.99)),
        "ask_budget": draw(st.integers(0, 10**6)),
        "give_budget": draw(st.integers(0, 10**6)),
        "distance_threshold": draw(st.floats(min_value=0.0, max_value=1e9)),
        "epochs": draw(st.integers(1, 10**6)),
        "subtract_rbar": draw(st.booleans()),
        "noise_on_identical_sets": draw(st.booleans()),
        "advice_prior": draw(st.sampled_from(ADVICE_PRIORS)),
        "direction_guard": draw(st.booleans()),
        "snapshot_teachers": snapshot,
        "noise_zero": draw(st.booleans()),
        "max_epsilon_per_teacher": draw(st.one_of(st.none(),
                                                  st.floats(min_value=1e-3, max_value=1e6))),
    }


@given(valid_params())
def test_valid_advising_params_build_and_round_trip_through_json(d: dict[str, Any]) -> None:
    p = AdvisingParams(**d)
    back = AdvisingParams.from_dict(json.loads(json.dumps(p.to_dict(), allow_nan=False)))
    assert back == p
    assert back.to_dict() == p.to_dict()
    assert list(p.to_dict()) == list(d)  # every field, in the declared order


#: field → values it refuses (each alone, the other fields at their defaults)
INVALID: dict[str, list[Any]] = {
    "strategy": ["greedy", "", None],
    "epsilon": [0.0, -1.0, math.inf, math.nan, "x", True],
    "sensitivity": [0.0, -2.0, math.inf, "s"],
    "alpha": [0.0, 1.5, -0.1, math.nan],
    "xi": [-0.1, 2e6, math.inf],
    "gamma": [1.0, -0.1, math.nan],
    "q0": [2e6, -2e6, math.inf],
    "norm_floor": [0.0, 0.5, 0.9],
    "norm_center": [1.0, 1.5],
    "distance_threshold": [-0.01, math.nan, None],
    "ask_budget": [-1, 1.5, "3", True, 2**60],
    "give_budget": [-1, 0.5],
    "epochs": [0, -5, 2.5],
    "subtract_rbar": [1, "yes", None],
    "noise_on_identical_sets": [0, "no"],
    "advice_prior": ["teachers", 1],
    "direction_guard": [1, None],
    "snapshot_teachers": ["true"],
    "noise_zero": [0.0],
    "max_epsilon_per_teacher": [0.0, -1.0, math.inf, "cap"],
}


@given(st.sampled_from(sorted(INVALID)), st.data())
def test_each_invalid_field_is_refused_naming_it(name: str, data: Any) -> None:
    value = data.draw(st.sampled_from(INVALID[name]))
    with pytest.raises(InputError) as info:
        AdvisingParams(**{name: value})
    assert info.value.field == name


def test_cross_field_refusals_name_the_field_they_concern() -> None:
    with pytest.raises(InputError) as info:
        AdvisingParams(snapshot_teachers=False, gamma=0.5)
    assert info.value.field == "snapshot_teachers"
    with pytest.raises(InputError) as info:
        AdvisingParams(norm_center=0.2, norm_floor=0.3)
    assert info.value.field == "norm_floor"
    with pytest.raises(InputError) as info:
        AdvisingParams.from_dict({"epsilon": 1.0, "speed": 2})
    assert info.value.field == "params"


# --------------------------------------------------------------------- AdviseParameters
SETUP = preset("exp2", epochs=15)


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.none(), st.integers(0, 2**63 - 1)),
       st.floats(min_value=1e-12, max_value=0.999))
def test_advise_parameters_round_trip_through_json(seed: int | None, delta: float) -> None:
    p = AdviseParameters(SETUP, seed=seed, delta=delta)
    assert p.seeded is (seed is not None)
    d = json.loads(json.dumps(p.to_dict(), allow_nan=False))
    assert list(d) == ["setup", "seed", "delta"]
    assert AdviseParameters.from_dict(d) == p


@pytest.mark.parametrize("kwargs, field", [
    ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"), ({"seed": "7"}, "seed"),
    ({"seed": True}, "seed"), ({"delta": 0.0}, "delta"), ({"delta": 1.0}, "delta"),
    ({"delta": -1e-5}, "delta"), ({"delta": "d"}, "delta"), ({"delta": math.nan}, "delta"),
])
def test_advise_parameters_refuse_naming_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as info:
        AdviseParameters(SETUP, **kwargs)
    assert info.value.field == field


def test_advise_parameters_refuse_a_missing_or_unknown_key_or_a_bad_setup() -> None:
    for data, field in (({"seed": 1}, "setup"), ({"setup": SETUP.to_dict(), "x": 1}, "params"),
                        ("setup", "params")):
        with pytest.raises(InputError) as info:
            AdviseParameters.from_dict(data)
        assert info.value.field == field
    with pytest.raises(InputError) as info:
        AdviseParameters(SETUP.to_dict())  # type: ignore[arg-type]
    assert info.value.field == "setup"


# --------------------------------------------------------------------- entry point, record
def test_advise_release_is_run_advising_of_its_parameters() -> None:
    p = AdviseParameters(SETUP, seed=4, delta=1e-6)
    r, same = advise_release(p), run_advising(SETUP, rng=4, delta=1e-6)
    assert np.array_equal(r.convergence, same.convergence)
    assert r.accounting.delta == 1e-6 and r.mode == "experiment" and r.seed == 4
    assert advise_release(AdviseParameters(SETUP)).mode == "release"


def test_advise_release_stops_when_cancelled_and_reports_progress() -> None:
    seen: list[float] = []
    p = AdviseParameters(SETUP, seed=1)
    advise_release(p, lambda f, m="": seen.append(f))
    assert seen and seen[-1] == pytest.approx(1.0)
    calls = [0]

    def cancelled() -> bool:
        calls[0] += 1
        return calls[0] > 3

    with pytest.raises(Cancelled):
        advise_release(p, None, cancelled)
    assert calls[0] == 4  # polled once per epoch, stopped at the first True


def test_advise_run_record_keeps_the_params_keys_and_checks_the_mode() -> None:
    p = AdviseParameters(SETUP, seed=2, delta=1e-4)
    result = advise_release(p)
    record, entries = advise_run_record(Project(), result, p)
    assert list(record.params) == [
        "run", "setup", "strategy", "variant", "epsilon", "epochs", "distance_threshold",
        "ask_budget", "give_budget", "noise_sensitivity", "strict_sensitivity", "delta",
        "seeded", "seed", "agents", "servers", "tasks", "params"]
    assert record.params["delta"] == 1e-4 and record.params["seeded"] is True
    assert record.params["params"] == SETUP.params.to_dict()
    assert record.kind == "advise" and entries
    with pytest.raises(ValueError):
        advise_run_record(Project(), result, AdviseParameters(SETUP))  # release-mode params


def test_the_command_line_and_the_window_run_the_one_entry_point() -> None:
    for path in ("core/cli/advising.py", "gui/advising/running.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert "advise_release" in text and "advise_run_record" in text, path
        assert "run_advising" not in text, path
