"""AuditParameters, the one parameters object of an audit (the window and ``audit …`` both
build it): every valid value is accepted and survives to_dict → JSON → from_dict; every
invalid field is refused on construction with an InputError naming that field; the run record
keeps its to_dict keys, and from_dict reads a record back as the parameters that made it."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.audit import MECHANISMS, AuditParameters, audit_release
from core.audit.runner import MIN_SAMPLES
from core.common.errors import InputError
from core.privacy.dirichlet_accounting import DELTA_METHODS
from core.project.model import Project
from core.project.recording import audit_run_record

# --------------------------------------------------------------------- valid values
positive = st.floats(min_value=1e-3, max_value=1e3)
unit_open = st.floats(min_value=1e-9, max_value=0.5)


@st.composite
def _dirichlet(draw: Any) -> dict[str, Any]:
    w = draw(st.integers(2, 4))
    eta = draw(st.floats(min_value=1e-3, max_value=0.9 / (w + 1)))
    eta_bar = draw(st.one_of(st.none(), st.floats(min_value=1e-3,
                                                  max_value=1 - w * eta - 1e-3)))
    return {"k": draw(st.floats(min_value=0.5, max_value=1e4)), "eta": eta,
            "eta_bar": eta_bar, "w": w, "b": draw(st.floats(min_value=1e-6, max_value=1.0)),
            "delta": draw(unit_open), "analysis": "W",
            "delta_method": draw(st.sampled_from(DELTA_METHODS))}


@st.composite
def _sharing(draw: Any) -> dict[str, Any]:
    m = draw(st.integers(2, 6))
    return {"k": draw(st.floats(min_value=0.5, max_value=1e4)), "m": m,
            "eta": draw(st.floats(min_value=1e-4, max_value=1.0 / m)),
            "lb": draw(st.floats(min_value=0.0, max_value=0.5)), "delta": draw(unit_open),
            "bound": draw(st.sampled_from(("profile", "paper", "tight")))}


VALID: dict[str, Any] = {
    "laplace": st.fixed_dictionaries({"epsilon": positive, "sensitivity": positive}),
    "exponential": st.fixed_dictionaries({"epsilon": positive},
                                         optional={"sensitivity": positive,
                                                   "monotonic": st.booleans()}),
    "dirichlet": _dirichlet(),
    "sharing": _sharing(),
    "advising": st.fixed_dictionaries({"epsilon": positive,
                                       "variant": st.sampled_from(("sound", "thesis"))}),
    "logistics": st.fixed_dictionaries({"epsilon": positive,
                                        "preset": st.sampled_from(("sound", "thesis"))}),
    "gaussian": st.fixed_dictionaries({}, optional={"mu": positive, "delta": unit_open}),
}
assert set(VALID) == set(MECHANISMS)  # a new mechanism needs its strategy here


@st.composite
def parameters(draw: Any, mechanism: str | None = None) -> AuditParameters:
    mech = mechanism or draw(st.sampled_from(sorted(VALID)))
    return AuditParameters(
        mech, draw(VALID[mech]),
        samples=draw(st.one_of(st.none(), st.integers(MIN_SAMPLES, 10**6))),
        seed=draw(st.one_of(st.none(), st.integers(0, 2**63 - 1))),
        confidence=draw(st.floats(min_value=0.5, max_value=0.999)))


# --------------------------------------------------------------------- invalid values
NAN, INF = math.nan, math.inf
#: mechanism → parameter → values refused naming that parameter (each wrong on its own,
#: whatever the other valid values are)
BAD: dict[str, dict[str, list[Any]]] = {
    "laplace": {"epsilon": [0.0, -1.0, NAN, INF, "x", None],
                "sensitivity": [-1.0, NAN, INF, "x"], "noise_factor": [NAN, "x"]},
    "exponential": {"epsilon": [0.0, NAN, "x", None], "sensitivity": [-1.0, NAN, "x"],
                    "monotonic": ["yes", 1]},
    "dirichlet": {"k": [-1.0, 0.0, NAN, "x", None], "eta": [-0.1, 1.5, NAN, None],
                  "eta_bar": [-0.1, 1.5, NAN], "w": [1, 2.5, "x", None],
                  "b": [0.0, 2.0, NAN, None], "delta": [0.0, 1.0, 5.0, NAN, None],
                  "analysis": ["zz"], "delta_method": ["zz"]},
    "sharing": {"k": [-1.0, NAN, None], "m": [1, 2.5, "x", None], "eta": [0.0, 0.9, NAN],
                "lb": [-1.0, NAN], "delta": [0.0, 1.0, NAN], "bound": ["zz"]},
    "advising": {"epsilon": [0.0, NAN, None], "variant": ["zz"]},
    "logistics": {"epsilon": [-2.0, INF, None], "preset": ["zz"]},
    "gaussian": {"mu": [-1.0, NAN, "x"], "delta": [0.0, 2.0, NAN]},
}
RUN_BAD: dict[str, list[Any]] = {
    "samples": [MIN_SAMPLES - 1, 2.5, True, -1, "x", 10**15],
    "seed": [-1, 1.5, True, "x"],
    "confidence": [0.4, 1.0, NAN, "x", None],
}


@given(parameters())
def test_valid_parameters_round_trip_through_json(p: AuditParameters) -> None:
    d = p.to_dict()
    assert list(d) == ["mechanism", "params", "samples", "confidence", "seeded", "seed"]
    back = AuditParameters.from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert back == p and back.to_dict() == d
    assert d["seeded"] is (p.seed is not None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.samples = 1000  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.params["epsilon"] = 0.0  # type: ignore[index]


@given(st.data())
def test_each_bad_mechanism_value_names_its_field(data: st.DataObject) -> None:
    mech = data.draw(st.sampled_from(sorted(BAD)))
    good = data.draw(VALID[mech])
    key = data.draw(st.sampled_from(sorted(BAD[mech])))
    value = data.draw(st.sampled_from(BAD[mech][key]))
    with pytest.raises(InputError) as err:
        AuditParameters(mech, {**good, key: value}, samples=1000, seed=1)
    assert err.value.field == key, (mech, key, value, str(err.value))


@given(parameters(), st.data())
def test_each_bad_run_setting_names_its_field(p: AuditParameters, data: st.DataObject
                                               ) -> None:
    key = data.draw(st.sampled_from(sorted(RUN_BAD)))
    value = data.draw(st.sampled_from(RUN_BAD[key]))
    with pytest.raises(InputError) as err:
        dataclasses.replace(p, **{key: value})
    assert err.value.field == key


@pytest.mark.parametrize("mechanism, params, field", [
    ("nope", {}, "mechanism"),
    (3, {}, "mechanism"),
    ("laplace", [("epsilon", 1.0)], "params"),
    ("laplace", {"epsilon": 1.0, "radius": 2.0}, "radius"),  # not a laplace parameter
    ("dirichlet", {"k": 10.0, "eta": 0.1, "w": 2, "b": 0.1}, "delta"),  # required, absent
])
def test_the_mechanism_and_its_parameter_names_are_checked(mechanism: Any, params: Any,
                                                           field: str) -> None:
    with pytest.raises(InputError) as err:
        AuditParameters(mechanism, params, samples=1000, seed=1)
    assert err.value.field == field


def test_from_dict_refuses_what_is_not_an_audits_parameters() -> None:
    good = AuditParameters("gaussian", {"mu": 1.0}, samples=1000, seed=2).to_dict()
    for data, field in [([1], "params"), ({**good, "extra": 1}, "extra"),
                        ({**good, "seeded": False}, "seeded"),
                        ({**good, "mechanism": "nope"}, "mechanism"),
                        ({k: v for k, v in good.items() if k != "mechanism"}, "mechanism")]:
        with pytest.raises(InputError) as err:
            AuditParameters.from_dict(data)
        assert err.value.field == field, data


def test_the_logistics_variant_is_read_as_its_preset() -> None:
    a = AuditParameters("logistics", {"epsilon": 1.0, "variant": "thesis"}, seed=1)
    assert dict(a.params) == {"epsilon": 1.0, "preset": "thesis"}
    assert a == AuditParameters("logistics", {"epsilon": 1.0, "preset": "thesis"}, seed=1)


def test_a_run_record_reads_back_as_the_parameters_that_made_it() -> None:
    p = AuditParameters("laplace", {"epsilon": 1.0, "sensitivity": 2.0}, samples=2000,
                        seed=5, confidence=0.9)
    result = audit_release(p)
    rec = audit_run_record(Project(), result, p)
    assert rec.params == p.to_dict()  # the record keeps the object's own keys and values
    assert AuditParameters.from_dict(rec.params) == p
    assert rec.kind == "audit" and rec.target == "laplace" and rec.seed == 5
    # a release-mode audit: no seed in the parameters, none recorded
    q = dataclasses.replace(p, seed=None)
    rec = audit_run_record(Project(), audit_release(q), q)
    assert rec.params["seeded"] is False and rec.params["seed"] is None
    assert AuditParameters.from_dict(rec.params) == q
    with pytest.raises(ValueError, match="gaussian parameters"):
        audit_run_record(Project(), result, AuditParameters("gaussian", seed=1))
