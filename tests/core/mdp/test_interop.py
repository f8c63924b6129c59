"""PRISM and Storm interop: exact round trips, errors that name the line, a model with a known
answer through import → privatise → bounds → interval export, and Storm where it exists."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.annotations import TERMINAL_REWARD
from core.mdp.examples import four_startups, sparse_random_mdp
from core.mdp.files import load_mdp, save_mdp
from core.mdp.interop import import_model, read_drn, read_prism, write_drn, write_prism
from core.mdp.interop.drn import write_drn_interval
from core.mdp.interop.interval import interval_value_bounds, robust_intervals
from core.mdp.interop.prism import write_prism_interval
from core.mdp.privatize import privatize_mdp
from core.mdp.robust import cost_of_privacy, release_centre_shift
from core.mdp.synthesis import evaluate_policy, synthesize

# lec12mdpa.nm of the PRISM manual's "Explicit Model Files" appendix, with its transition
# rewards, a state reward structure and labels
TRA = """4 5 7
0 0 1 1 a
1 0 2 0.5 c
1 0 3 0.5 c
1 1 0 0.7 b
1 1 1 0.3 b
2 0 2 1 a
3 0 3 1 a
"""
TREW = """# Reward structure "r"
# Transition rewards
4 5 4
1 0 2 6
1 0 3 6
1 1 0 5
1 1 1 5
"""
SREW = """# Reward structure "time"
# State rewards
4 2
0 1
1 1
"""
LAB = """0="init" 1="deadlock" 2="heads" 3="end"
0: 0
2: 2 3
3: 3
"""
STA = """(x,done)
0:(0,false)
1:(1,false)
2:(2,true)
3:(3,true)
"""


def _write(folder: Path, **files: str) -> list[str]:
    out = []
    for name, text in files.items():
        p = folder / name.replace("_", ".")
        p.write_text(text)
        out.append(str(p))
    return out


@pytest.fixture
def lec(tmp_path: Path) -> list[str]:
    return _write(tmp_path, lec_tra=TRA, lec_trew=TREW, lec_srew=SREW, lec_lab=LAB,
                  lec_sta=STA)


def test_import_reads_everything(lec: list[str]) -> None:
    res = read_prism(lec, horizon=2, reward="r")
    m = res.mdp
    assert (m.n_states, int(m.mask.sum()), m.nnz) == (4, 5, 7)
    assert m.state_names[2] == "(2,true)" and m.annotations.variables == ("x", "done")
    assert m.action_names[1] == ("c", "b")
    assert m.P[1, 1].tolist() == [0.7, 0.3, 0.0, 0.0]
    assert m.annotations.labels["end"].tolist() == [2, 3]
    assert set(m.annotations.rewards) == {"r", "time"} and m.annotations.reward_used == "r"
    # r(s, a): the transition rewards are the same for every next state of a choice
    assert m.R[1].tolist() == [6.0, 5.0] and m.R[0, 0] == 0.0


def test_known_answer(lec: list[str]) -> None:
    """Horizon 2 by hand: from state 1, 'b' earns 5 + 0.3·6 = 6.8 (then 'c' earns 6);
    state 0 moves to 1 for nothing and earns 6 there."""
    plan = synthesize(read_prism(lec, horizon=2, reward="r").mdp)
    assert plan.values[0].tolist() == pytest.approx([6.0, 6.8, 0.0, 0.0], abs=1e-12)
    assert plan.policy[0].tolist()[1] == 1 and plan.policy[1].tolist()[1] == 0


def test_prism_round_trip_is_exact(lec: list[str], tmp_path: Path) -> None:
    m = read_prism(lec, horizon=2, reward="r").mdp
    files, warnings = write_prism(m, tmp_path / "out")
    assert not warnings
    text = {Path(f).suffix: Path(f).read_text() for f in files}
    assert text[".tra"] == TRA and text[".lab"] == LAB and text[".sta"] == STA
    assert text[".trew"] == TREW
    back = read_prism(files, horizon=2, reward="r").mdp
    assert back == m.replace(name=back.name) and back.annotations.equal(m.annotations)
    # through a PrivPlan file too
    for suffix in (".mdp.json", ".mdp.npz"):
        save_mdp(m, tmp_path / f"m{suffix}")
        loaded = load_mdp(tmp_path / f"m{suffix}")
        assert loaded.transitions.equal(m.transitions)
        assert loaded.annotations.equal(m.annotations) and loaded.state_names == m.state_names


def test_drn_round_trip_is_exact(lec: list[str], tmp_path: Path) -> None:
    m = read_prism(lec, horizon=2, reward="r").mdp
    files, _ = write_drn(m, tmp_path / "a")
    back = read_drn(files[0], horizon=2, reward="r").mdp
    assert back.transitions.equal(m.transitions) and back.state_names == m.state_names
    # (DRN writes labels on states: a label no state carries, like 'deadlock' here, is gone)
    assert np.array_equal(back.R, m.R)
    assert {k: v.tolist() for k, v in back.annotations.labels.items()} == {
        k: v.tolist() for k, v in m.annotations.labels.items() if v.size}
    again, _ = write_drn(back, tmp_path / "b")
    assert Path(again[0]).read_text() == Path(files[0]).read_text()


def test_a_privplan_model_survives_both_formats(tmp_path: Path) -> None:
    m = four_startups()
    prism, _ = write_prism(m, tmp_path / "fs")
    assert any(f.endswith(".srew") for f in prism)  # R_T as the privplan_terminal structure
    back = read_prism(prism, horizon=3).mdp
    assert back.transitions.equal(m.transitions)
    assert np.array_equal(back.R, m.R) and np.array_equal(back.R_T, m.R_T)
    assert TERMINAL_REWARD in back.annotations.rewards
    drn, _ = write_drn(m, tmp_path / "fs")
    back = read_drn(drn[0], horizon=3).mdp
    assert back.transitions.equal(m.transitions) and back.state_names == m.state_names
    assert np.array_equal(back.R, m.R) and np.array_equal(back.R_T, m.R_T)
    assert [back.action_names[0][a] for a in range(4)] == list(m.action_names[0])


def test_dtmc_and_fractions(tmp_path: Path) -> None:
    (tmp_path / "c.tra").write_text("3 4\n0 1 1/3\n0 2 2/3\n1 1 1\n2 2 1\n")
    m = read_prism([str(tmp_path / "c.tra")], discount=0.9).mdp
    assert m.n_actions == 1 and m.horizon is None and m.discount == 0.9
    assert m.P[0, 0].tolist() == [0.0, 1 / 3, 2 / 3]


def test_deadlocks_get_a_self_loop(tmp_path: Path) -> None:
    (tmp_path / "d.tra").write_text("3 2 2\n0 0 1 1\n1 0 1 1\n")
    res = read_prism([str(tmp_path / "d.tra")], horizon=1)
    assert res.mdp.P[2, 0].tolist() == [0.0, 0.0, 1.0]
    assert any("deadlock" in w for w in res.warnings)


@pytest.mark.parametrize("text, line, match", [
    ("2 1 1\n0 0 1 x\n", 2, "probability 'x' is not a number"),
    ("2 1 1\n0 0 5 1\n", 2, "target state 5 is outside"),
    ("2 2 3\n0 0 1 1\n1 0 1 1\n", 1, "declares 3 transitions, the file has 2"),
    ("2 2 3\n0 0 1 0.5\n0 0 1 0.5\n1 0 1 1\n", 3, "given twice"),
    ("2 2 3\n0 0 0 0.5\n0 0 1 0.4\n1 0 1 1\n", 2, r"lines 2-3\) sum to 0.9"),
    ("2 1 1\n0 0 1 [0.5,1]\n", 2, "interval"),
    ("2 2 2\n0 0 1 1 a\n0 0 1 1 b\n", 3, "labelled 'a'"),
    ("two 1 1\n", 1, "is not an integer"),
])
def test_prism_errors_name_the_file_and_line(tmp_path: Path, text: str, line: int,
                                             match: str) -> None:
    p = tmp_path / "bad.tra"
    p.write_text(text)
    with pytest.raises(InputError, match=match) as info:
        read_prism([str(p)], horizon=1)
    assert info.value.file == str(p) and f"line {line}:" in str(info.value)


def test_label_and_reward_errors_name_their_files(tmp_path: Path) -> None:
    files = _write(tmp_path, m_tra=TRA, m_lab='0="init"\n0: 0 7\n')
    with pytest.raises(InputError, match="line 2: label index 7") as info:
        read_prism(files, horizon=1)
    assert info.value.file.endswith("m.lab")
    files = _write(tmp_path, n_tra=TRA, n_trew="4 5 1\n0 0 3 1\n")
    with pytest.raises(InputError, match="not a transition"):
        read_prism(files, horizon=1)
    with pytest.raises(InputError, match="--reward"):
        read_prism(_write(tmp_path, o_tra=TRA, o_trew=TREW), horizon=1, reward="cost")


@pytest.mark.parametrize("body, match", [
    ("state 0 init\n\taction a\n\t\t5 : 1\nstate 1\n\taction a\n\t\t1 : 1\n",
     r"line 13: target state 5"),
    ("state 0 init\n\taction a\n\t\t1 : [0.5, 1]\nstate 1\n\taction a\n\t\t1 : 1\n",
     r"line 13: an interval"),
    ("state 1 init\n", r"line 11: states must be numbered in order"),
])
def test_drn_errors_name_the_line(tmp_path: Path, body: str, match: str) -> None:
    p = tmp_path / "bad.drn"
    p.write_text("@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n"
                 "@model\n" + body)
    with pytest.raises(InputError, match=match) as info:
        read_drn(p, horizon=1)
    assert info.value.file == str(p)


def _parse_interval_tra(path: Path) -> dict[tuple[int, int, int], tuple[float, float]]:
    out = {}
    for line in path.read_text().splitlines()[1:]:
        s, k, t, iv = line.split()[:4]
        m = re.fullmatch(r"\[([^,\s]+),([^,\s]+)\]", iv)
        assert m, line  # PRISM's interval syntax: no blank inside the brackets
        out[(int(s), int(k), int(t))] = (float(m.group(1)), float(m.group(2)))
    return out


def test_import_privatise_bound_and_export_the_robust_set(lec: list[str],
                                                          tmp_path: Path) -> None:
    """The issue's end-to-end path on the PRISM model with the known answer."""
    true = read_prism(lec, horizon=2, reward="r").mdp
    k, beta = 2000.0, 0.05
    priv = privatize_mdp(true, k, rng=5, eta=0.001, domain_rule="mix").mdp
    assert priv.annotations.labels["end"].tolist() == [2, 3]  # labels ride along
    shift = release_centre_shift(priv, eta=0.001, domain_rule="mix")
    res = cost_of_privacy(priv, k=k, beta=beta, centre_shift=shift)
    v_true = evaluate_policy(true, res.policy)
    # the private policy is the true optimum here and its value lies inside the bounds
    assert res.v_lower[0, 1] <= v_true[0, 1] <= res.v_upper[0, 1]
    assert v_true[0].tolist() == pytest.approx([6.0, 6.8, 0.0, 0.0], abs=1e-12)
    lo, hi, alpha, alpha_shift = robust_intervals(priv, k=k, beta=beta, centre_shift=shift)
    files, _ = write_prism_interval(priv, tmp_path / "robust", lo, hi)
    intervals = _parse_interval_tra(Path(files[0]))
    assert len(intervals) == priv.nnz
    for (s, c, t), (low, up) in intervals.items():
        a = int(np.flatnonzero(priv.mask[s])[c])
        assert low <= priv.P[s, a, t] <= up  # P̄ itself
        assert low <= true.P[s, a, t] <= up  # and the true model, at this k
    t = priv.transitions
    sums_lo = np.add.reduceat(lo, t.indptr[:-1][np.diff(t.indptr) > 0])
    sums_hi = np.add.reduceat(hi, t.indptr[:-1][np.diff(t.indptr) > 0])
    assert (sums_lo <= 1 + 1e-12).all() and (sums_hi >= 1 - 1e-12).all()
    # the interval model bounds the true value of the private policy
    vb = interval_value_bounds(priv, lo, hi, res.policy)
    assert (vb.v_lower[0] <= v_true[0] + 1e-12).all() and (v_true[0] <= vb.v_upper[0] + 1e-12).all()
    drn, _ = write_drn_interval(priv, tmp_path / "robust", lo, hi)
    assert "@value_type: double-interval" in Path(drn[0]).read_text()


def test_large_sparse_model_round_trips_through_prism(tmp_path: Path) -> None:
    m = sparse_random_mdp(5000, 2, 3, 2, seed=3)
    files, _ = write_prism(m, tmp_path / "big")
    back = import_model(files, horizon=2).mdp
    assert back.transitions.equal(m.transitions) and np.array_equal(back.R, m.R)
    assert np.array_equal(back.R_T, m.R_T) and not back.is_dense


def _storm() -> object:
    return pytest.importorskip("stormpy")


def test_storm_reads_the_exports_and_agrees(lec: list[str], tmp_path: Path) -> None:
    sp = _storm()
    m = read_prism(lec, horizon=2, reward="r").mdp
    files, _ = write_drn(m, tmp_path / "m")
    model = sp.build_model_from_drn(files[0])  # type: ignore[attr-defined]
    prop = sp.parse_properties('R{"r"}max=? [C<=2]')  # type: ignore[attr-defined]
    r = sp.model_checking(model, prop[0])  # type: ignore[attr-defined]
    assert [r.get_value(i) for i in range(4)] == pytest.approx([6.0, 6.8, 0.0, 0.0])


def test_storm_interval_value_iteration_equals_privplans(tmp_path: Path) -> None:
    sp = _storm()
    m = sparse_random_mdp(300, 1, 4, 5, seed=8)
    m = m.replace(R_T=np.zeros(300))  # C<=T sums step rewards only
    priv = privatize_mdp(m, 200.0, rng=1).mdp
    lo, hi, _, _ = robust_intervals(priv, k=200.0, beta=0.05)
    files, _ = write_drn_interval(priv, tmp_path / "i", lo, hi)
    model = sp.build_model_from_drn[sp.Interval](files[0])  # type: ignore[attr-defined,index]
    vb = interval_value_bounds(priv, lo, hi, np.zeros((5, 300), dtype=int))
    coop = sp.UncertaintyResolutionMode.COOPERATIVE  # type: ignore[attr-defined]
    for prop, ref in (('R{"r"}min=? [C<=5]', vb.v_lower[0]), ('R{"r"}max=? [C<=5]',
                                                                vb.v_upper[0])):
        res = sp.model_checking(model, sp.parse_properties(prop)[0],  # type: ignore[attr-defined]
                                uncertainty_resolution_mode=coop)
        got = np.array([res.get_value(i) for i in range(300)])
        assert np.abs(got - ref).max() <= 1e-9
