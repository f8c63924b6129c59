"""F6 with the greedy π̄ synthesised by the occupancy-measure LP (issue 29: LP synthesis as a
cross-checked alternative to induction, selectable in the workspace)."""

from __future__ import annotations

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.examples import four_startups, random_mdp
from core.mdp.private_policy import bounds_release, private_policy
from core.mdp.records import BoundsParameters


@pytest.mark.parametrize("mdp", [four_startups(), random_mdp(12, 3, 6, seed=2),
                                 random_mdp(10, 3, None, seed=5)],
                         ids=["four-startups", "finite", "infinite"])
def test_lp_synthesis_gives_the_induction_optimum_and_its_bounds(mdp):
    ind = private_policy(mdp, 200.0, seed=9)
    lp = private_policy(mdp, 200.0, seed=9, synthesis="lp")
    assert lp.policy_source == "lp" and ind.policy_source == "greedy"
    assert lp.synthesis_check is not None and lp.synthesis_check <= 1e-9
    np.testing.assert_allclose(lp.v_private, ind.v_private, rtol=0, atol=1e-9)
    if np.array_equal(lp.policy, ind.policy):  # no tie broken differently: same bounds
        np.testing.assert_array_equal(lp.v_lower, ind.v_lower)
        np.testing.assert_array_equal(lp.v_upper, ind.v_upper)
    s = lp.summary()
    assert s["policy_source"] == "lp" and s["synthesis"] == "lp" and "policy" in s
    assert "policy_probs" not in s  # deterministic


def test_lp_synthesis_through_the_parameters_is_recorded():
    rel = bounds_release(four_startups(), BoundsParameters(k=100.0, seed=3, synthesis="lp"))
    assert rel.result.policy_source == "lp"
    assert rel.params.record_params()["policy_source"] == "lp"


@pytest.mark.parametrize("kw", [{"synthesis": "simplex"}, {"synthesis": "lp", "temperature": 0.1},
                                {"synthesis": "lp", "policy_table": np.ones((3, 3, 4)) / 4}])
def test_bad_synthesis_choices_name_the_field(kw):
    with pytest.raises(InputError) as e:
        BoundsParameters(k=100.0, seed=1, **kw)
    assert e.value.field == "synthesis"
    with pytest.raises(InputError) as e:
        private_policy(four_startups(), 100.0, seed=1, **kw)
    assert e.value.field == "synthesis"
