"""The F6 entry point: :class:`BoundsParameters` validated once, :func:`bounds_release`."""

from __future__ import annotations

import pytest

from core.common.errors import InputError
from core.mdp.examples import four_startups
from core.mdp.private_policy import bounds_release, private_policy
from core.mdp.records import BoundsParameters
from core.project.model import Project
from core.project.recording import bounds_run_record


@pytest.mark.parametrize("kwargs, field", [
    ({"k": 0.0}, "k"), ({"k": float("nan")}, "k"), ({"k": 10, "beta": 1.0}, "beta"),
    ({"k": 10, "alpha_mode": "loose"}, "alpha"), ({"k": 10, "eta": 2.0}, "eta"),
    ({"k": 10, "domain_rule": "clip"}, "domain_rule"), ({"k": 10, "b": 0.0}, "b"),
    ({"k": 10, "delta_target": 0.0}, "delta_target"), ({"k": 10, "adjacency": "any"},
                                                        "adjacency"),
    ({"k": 10, "delta_method": "guess"}, "delta_method"), ({"k": 10, "seed": -1}, "seed"),
    ({"k": 10, "seed": 3, "release": True}, "seed"),
])
def test_parameters_name_the_bad_field(kwargs, field) -> None:
    with pytest.raises(InputError) as exc:
        BoundsParameters(**kwargs)
    assert exc.value.field == field


def test_seeded_release_is_the_private_policy_of_that_seed() -> None:
    mdp = four_startups()
    rel = bounds_release(mdp, BoundsParameters(k=50.0, beta=0.1, seed=11))
    ref = private_policy(mdp, 50.0, beta=0.1, seed=11)
    assert rel.result.mode == "experiment" and rel.result.seed == 11
    assert (rel.result.v_lower == ref.v_lower).all() and (rel.result.policy == ref.policy).all()
    assert rel.privacy.k == 50.0 and rel.digest is None


def test_release_mode_has_no_seed_and_differs_between_calls() -> None:
    mdp = four_startups()
    a = bounds_release(mdp, BoundsParameters(k=50.0, seeded=False, release=True))
    b = bounds_release(mdp, BoundsParameters(k=50.0, seeded=False, release=True))
    assert a.result.mode == b.result.mode == "release" and a.result.seed is None
    assert (a.result.v_private != b.result.v_private).any()


def test_unseeded_experiment_draws_and_records_a_seed() -> None:
    rel = bounds_release(four_startups(), BoundsParameters(k=50.0, seeded=False))
    assert rel.result.mode == "experiment" and isinstance(rel.result.seed, int)


def test_recording_needs_the_models_ids() -> None:
    rel = bounds_release(four_startups(), BoundsParameters(k=50.0, seed=1))
    with pytest.raises(ValueError, match="digest_key"):
        bounds_run_record(Project(), "m", rel)
