"""The audit's plug-ins: every registered target implements the AuditTarget protocol, the
registry refuses what it does not know, and run_audit reaches each target through it."""

from __future__ import annotations

import math

import pytest

from core.audit import MECHANISMS, AuditTarget, load_target, run_audit
from core.audit.target import AUDIT_TARGETS, PROTOCOL_MEMBERS, number
from core.common.errors import InputError


@pytest.mark.parametrize("mechanism", sorted(AUDIT_TARGETS))
def test_every_registered_target_implements_the_protocol(mechanism):
    target = load_target(mechanism)
    assert isinstance(target, AuditTarget)
    assert all(hasattr(target, m) for m in PROTOCOL_MEMBERS)
    assert isinstance(target.LABEL, str) and target.LABEL
    assert isinstance(target.DEFAULT_SAMPLES, int) and target.DEFAULT_SAMPLES >= 200
    assert isinstance(target.RELEASE_PATH, bool)
    spec = MECHANISMS[mechanism]
    assert spec.path == target.__name__
    # the registry's defaults plus placeholder values for the required parameters build a
    # variant; the claim is a finite or infinite ε >= 0 with a δ in [0, 1)
    values = {"epsilon": 1.0, "k": 10.0, "eta": 0.15, "w": 2, "b": 0.1, "delta": 0.05,
              "m": 3, "lb": 0.05}
    params = {**spec.optional, **{p: values[p] for p in spec.required}}
    epsilon, variant = target.variant_from(params)
    claim = target.claimed(epsilon, variant)
    assert float(claim[0]) >= 0 and 0 <= float(claim[1]) < 1 and isinstance(claim[2], str)
    assert target.candidate_pairs(epsilon, variant)
    assert isinstance(target.parameters(epsilon, variant), dict)


def test_unknown_mechanism_is_refused_naming_the_field():
    with pytest.raises(InputError) as err:
        load_target("no-such")
    assert err.value.field == "mechanism"
    with pytest.raises(InputError) as err:
        run_audit("no-such", seed=1)
    assert err.value.field == "mechanism"


def test_a_registered_module_without_the_members_is_a_type_error(monkeypatch):
    from core.audit.target import TargetSpec

    monkeypatch.setitem(AUDIT_TARGETS, "broken", TargetSpec("core.audit.stats", (), {}))
    with pytest.raises(TypeError, match="not an AuditTarget"):
        load_target("broken")


def test_variant_from_names_a_bad_parameter():
    with pytest.raises(InputError) as err:
        run_audit("laplace", samples=1000, seed=1, epsilon=1.0, sensitivity="lots")
    assert err.value.field == "sensitivity"
    with pytest.raises(InputError) as err:
        run_audit("gaussian", samples=1000, seed=1, mu=math.inf)
    assert err.value.field == "mu"
    assert number({"k": "2.5"}, "k") == 2.5


def test_a_preset_variant_is_reported_under_its_own_parameter_name():
    r = run_audit("logistics", samples=2000, seed=3, epsilon=1.0, preset="sound")
    assert r.parameters["preset"] == "sound" and r.parameters["epsilon"] == 1.0
