"""F6 with the greedy π̄ synthesised by the occupancy-measure LP (LP synthesis as a
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


def _cli(*argv):
    import io
    import json

    from core.cli.main import run_cli

    out, err = io.StringIO(), io.StringIO()
    code = run_cli([str(a) for a in argv], out=out, err=err)
    return code, (json.loads(out.getvalue()) if code == 0 and "--json" in argv else
                  out.getvalue()), err.getvalue()


def test_bounds_project_synthesis_lp_is_the_windows_lp_run(tmp_path):
    from core.mdp.files import save_mdp
    from core.project.files import load_project, save_project
    from core.project.model import MdpEntry, Project

    proj = tmp_path / "p.privplan.json"
    p = Project(name="lp")
    p.mdps.append(MdpEntry("four", four_startups()))
    save_project(p, proj)
    code, r, err = _cli("bounds", proj, "--mdp", "four", "--k", 150, "--beta", 0.05,
                        "--seed", 5, "--synthesis", "lp", "--json")
    assert code == 0, err
    want = private_policy(load_project(proj).mdp("four"), 150.0, seed=5, synthesis="lp")
    assert r["policy_source"] == "lp" and r["synthesis_check"] == want.synthesis_check
    assert r["v_lower"] == want.v_lower[0].tolist() and r["policy"] == want.policy.tolist()
    # refused: with a model file, and beside --softmax (exit 2, the flag named)
    mdp_file = tmp_path / "four.mdp.json"
    save_mdp(four_startups(), mdp_file)
    code, _, err = _cli("bounds", mdp_file, "--k", 150, "--beta", 0.05, "--synthesis", "lp")
    assert code == 2 and "--synthesis" in err and "synthesise --method lp" in err
    code, _, err = _cli("bounds", proj, "--mdp", "four", "--k", 150, "--beta", 0.05, "--seed",
                        5, "--synthesis", "lp", "--softmax", 0.2)
    assert code == 2 and "--synthesis" in err and "Traceback" not in err
