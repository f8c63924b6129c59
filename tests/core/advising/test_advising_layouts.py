"""The action-set layouts: Experiment 1's own ``one-different`` layout
(every agent one different action) and ``nested`` (cases 2 and 3 of the mismatch).

Structural properties are asserted exactly; the runs use fixed seeds and check only what
the layout guarantees (who may advise whom, which cases occur), not the thesis's claims
(those are measured by ``advise-bench`` and stated in the README).
"""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
from cli_run import cli

from core.advising.claims import THESIS_CLAIMS, check_claims
from core.advising.experiments import run_experiment
from core.advising.framework import run_advising
from core.advising.layout_study import EXP1_ONE_DIFFERENT, arm
from core.advising.presets import (
    SERVER_LABELS,
    experiment_arms,
    layout_action_sets,
    layout_rewards,
    preset,
)
from core.common.errors import InputError


def labels(sets: list[list[int]]) -> list[str]:
    return ["".join(SERVER_LABELS[k] for k in a) for a in sets]


def test_one_different_is_the_thesis_layout() -> None:
    sets = layout_action_sets("one-different")
    # §3.6.1: A(a1) = {A,B,C,D}, A(a2) = {A,B,C,E}, A(a3) = {A,B,D,E}, ...
    assert labels(sets)[:3] == ["ABCD", "ABCE", "ABDE"]
    assert all(len(a) == 4 and {0, 1} <= set(a) for a in sets)
    assert len({frozenset(a) for a in sets}) == len(sets)  # no two agents share a set
    setup = preset("exp1", strategy="dp", layout="one-different")
    cases = setup.neighbour_cases()
    off = ~np.eye(len(sets), dtype=bool)
    assert set(np.unique(cases[off])) == {0, 4}  # case 4 (one swapped action) or strangers
    assert not setup.can_advise("traditional").any()  # traditional advising has no pair
    assert (setup.can_advise("dp").sum(axis=0) >= 3).all()  # every agent has DP teachers
    # every pair differing in exactly one action is a neighbour, and only those
    for i, j in combinations(range(len(sets)), 2):
        one = len(set(sets[i]) ^ set(sets[j])) == 2
        assert (cases[i, j] == 4) == one


def test_one_different_rewards_keep_the_knowledge_the_same() -> None:
    """Every task's best server is one every agent has, in the DP arm and the others."""
    r = layout_rewards("one-different", 10, 12)
    assert set(np.argmax(r, axis=1)) == {0, 1}
    arms = experiment_arms("exp1", layout="one-different", epochs=10)
    assert [a.label for a in arms] == ["no advice", "traditional", "dp"]
    for a in arms:
        np.testing.assert_array_equal(a.setup.rewards, r)
        best = np.argmax(a.setup.rewards, axis=1)
        for s in a.setup.action_sets:
            assert set(best) <= set(s)
    assert all(len(set(map(tuple, a.setup.action_sets))) == 1 for a in arms[:2])  # identical
    # the default (sunflower) arms are unchanged
    sun = experiment_arms("exp1", epochs=10)
    assert sun[2].setup.description.endswith("[layout: sunflower]")
    np.testing.assert_array_equal(sun[0].setup.rewards, sun[2].setup.rewards)


def test_nested_layout_gives_cases_2_and_3() -> None:
    sets = layout_action_sets("nested")
    assert [len(a) for a in sets] == [3, 3, 3, 4, 4, 4, 4, 5, 5, 5]
    cases = preset("exp2", strategy="dp", layout="nested").neighbour_cases()
    sizes = np.array([len(a) for a in sets])
    for i in range(10):
        for j in range(10):
            if i == j:
                continue
            gap = sizes[i] - sizes[j]  # teacher i, student j
            want = {0: 1, 1: 2, -1: 3}.get(int(gap), 0)  # nested: one more / one fewer
            assert cases[i, j] == want, (i, j)


def test_a_nested_run_advises_across_cases_2_and_3() -> None:
    setup = preset("exp2", strategy="dp", layout="nested", epochs=150)
    r = run_advising(setup, rng=5, detail=True)
    seen = {int(c) for c in r.events.case}
    assert {2, 3} <= seen, seen  # a bigger teacher of a smaller student and the reverse


def test_bad_layouts_are_refused_naming_the_field() -> None:
    for call in (lambda: experiment_arms("exp1", layout="mixed"),
                 lambda: preset("exp2", layout="nope"),
                 lambda: preset("fig32", layout="same"),
                 lambda: layout_action_sets("nope")):
        with pytest.raises(InputError) as exc:
            call()
        assert exc.value.field == "layout"


def test_the_layout_study_arm_replays_and_matches_the_experiment() -> None:
    """The study-runner arm is the experiment's run: the same seed, the same metrics."""
    a = arm(11, **EXP1_ONE_DIFFERENT["dp"], epochs=60)
    assert a == arm(11, **EXP1_ONE_DIFFERENT["dp"], epochs=60)
    r = run_advising(preset("exp1", strategy="dp", layout="one-different", epochs=60), rng=11,
                     detail=False)
    assert a["auc200"] == r.auc(200) and a["advice"] == r.advice_total


def test_equal_traditional_claim_is_stated() -> None:
    ids = [c.id for c in THESIS_CLAIMS]
    assert "exp1-equal-traditional" in ids
    res = run_experiment(experiment_arms("exp1", layout="one-different", epochs=60), seeds=4,
                         seed=0, workers=1, name="exp1")
    row = next(c for c in check_claims({"exp1": res})
               if c.claim.id == "exp1-equal-traditional")
    assert row.verdict in ("reproduced", "partly", "not reproduced")
    assert "one-different" in row.ours and "±" in row.ours


def test_advise_bench_layout_flag() -> None:
    code, out, err = cli("advise-bench", "--experiment", "exp1", "--layout", "one-different",
                         "--seeds", "2", "--epochs", "40", "--seed", "3", "--workers", "1",
                         "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["layout"] == "one-different"
    assert any(c["id"] == "exp1-equal-traditional" for c in d["claims"]["sound"])
    code, out, err = cli("advise-bench", "--experiment", "exp1", "--layout", "nested",
                         "--seeds", "2", "--epochs", "40", "--seed", "3")
    assert code == 2 and out == "" and "--layout" in err and err.count("\n") == 1
