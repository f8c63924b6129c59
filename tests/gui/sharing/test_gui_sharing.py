"""The Policy sharing workspace: set-up → worker → plots and ledger equal to the core's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from core.mdp.examples import four_startups
from core.sharing import SharingSetup
from core.sharing.learning import sharing_study
from gui.sharing.panel import TOOLTIPS, SharingPanel
from gui.sharing.protocol import PROTOCOL_TOOLTIPS

TIMEOUT = 60_000


@pytest.fixture
def panel(qtbot, example_doc):
    p = SharingPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1300, 850)
    p.show()
    yield p
    p.shutdown()


def test_environments_tooltips_and_defaults(panel):
    keys = [panel.env_combo.itemData(i) for i in range(panel.env_combo.count())]
    assert "mdp:four-startups" in keys
    for key in ("k0", "eta", "lb", "delta", "lam", "beta", "budget_e"):
        assert len(TOOLTIPS[key]) > 40 and panel.fields[key].toolTip() == TOOLTIPS[key]
    assert "LESS privacy" in TOOLTIPS["k0"] and "NOT a confidence" in TOOLTIPS["beta"]
    assert panel.randomness_label().endswith("(seed 1)")
    assert panel.summary_label.text().startswith("<i>Run (F5)")


def test_run_shows_what_the_core_computes(qtbot, panel):
    panel.set_parameters(env="mdp:four-startups", iterations=15, seeds=3, seed=4, coef=0.9,
                         eta=0.1, budget_e=1e5, budget_d=0.9)
    with qtbot.waitSignal(panel.runner.succeeded, timeout=TIMEOUT):
        assert panel.run()
    study = panel.study
    ref = sharing_study(four_startups(), panel.setup(), seeds=3, seed=4)
    for kind in ("none", "nonprivate", "aware", "unaware"):
        med = ref.result.band(kind)[0]
        np.testing.assert_array_equal(panel.curves[kind].getData()[1], med)
    np.testing.assert_array_equal(study.privacy.epsilon, ref.privacy.epsilon)
    np.testing.assert_array_equal(panel.curves["quantile"].getData()[1], ref.radius.quantile)
    rows = [r for r in ref.result.ledger.rows if not r.stopped]
    assert panel.ledger_table.item(0, 1).text() == f"{rows[0].k:.4g}"
    assert "Lemma 1" in panel.badge.text()
    assert "seeded experiment (seed 4)" in panel.summary_label.text()
    assert not panel.ternary_plot.isVisible()  # m = 4: no ternary scatter
    # the MDP side's robust cost bound at the same k, beside the sharing cost
    from core.mdp.private_policy import private_policy

    bound = private_policy(four_startups(), 5.0, beta=0.05, seed=4).cost_bound
    assert study.robust["cost_bound"] == pytest.approx(bound)
    assert f"robust cost bound {bound:.4g}" in panel.summary_label.text()
    # recorded: one run and one ledger entry per live roll-out, one undoable step
    doc = panel._document
    record = doc.project.runs[-1]
    assert (record.kind, record.target, record.seed, record.mode) == (
        "sharing", "four-startups", 4, "experiment")
    entries = [e for e in doc.project.ledger if e.source == record.id]
    noisy = [e for e in entries if e.mechanism == "dirichlet-policy"]
    assert len(noisy) == len(rows) and all(e.dataset == "mdp:four-startups" for e in noisy)
    assert noisy[0].count == rows[0].queries * 6  # aware + unaware, 3 seeds each
    assert noisy[0].epsilon == rows[0].epsilon and noisy[0].mode == "experiment"
    assert [e.unbounded for e in entries if e.mechanism == "policy (no noise)"] == [True]
    side = [e for e in entries if e.mechanism not in ("dirichlet-policy", "policy (no noise)")]
    assert len(side) == 1 and side[0].parameters.get("k") == 5.0  # the MDP-side comparison
    doc.stack("sharing").undo()  # the run and its spend stay
    assert record.id in [r.id for r in doc.project.runs]
    assert len([e for e in doc.project.ledger if e.source == record.id]) == len(entries)
    # shown again from the record (the mechanism's curves recomputed in the worker)
    panel.curves.clear()
    with qtbot.waitSignal(panel.result_shown, timeout=TIMEOUT):
        panel.show_run(record.id)
    np.testing.assert_array_equal(panel.curves["aware"].getData()[1],
                                  ref.result.band("aware")[0])
    np.testing.assert_allclose(panel.curves["epsilon"].getData()[1], ref.privacy.epsilon)
    assert f"recorded as {record.id}" in panel.summary_label.text()


def test_bad_input_turns_the_field_red_and_keeps_the_result(qtbot, panel):
    panel.set_parameters(env="mdp:four-startups", eta=0.6)  # η > 1/m
    assert not panel.run()
    assert "eta" in panel.message.text() and panel.message.isVisibleTo(panel)
    assert "1/m" in panel.fields["eta"].toolTip()
    assert panel.study is None
    panel.set_parameters(eta=0.1, students=[])
    assert not panel.run() and "student" in panel.message.text()


def test_share_this_mdps_policy_opens_the_tab_on_it(qtbot, window):
    ws = window.open_workspace("four-startups")
    assert window.share_action.isEnabled()
    panel = window.share_policy()
    assert panel is window.current_tool()
    assert panel.env_combo.currentData() == "mdp:four-startups"
    assert any(window.share_action in a.menu().actions() for a in window.menuBar().actions()
               if a.menu() is not None)
    assert ws.mdp_id == "four-startups"


def test_ternary_scatter_for_three_actions(qtbot, example_doc):
    from core.mdp.examples import random_mdp

    mid = example_doc.project.add_mdp(random_mdp(5, 3, None, seed=3), "three")
    p = SharingPanel(example_doc)
    qtbot.addWidget(p)
    p.show()
    p._fill_envs()
    p.set_parameters(env=f"mdp:{mid}", iterations=5, seeds=2, seed=1, eta=0.1,
                     budget_e=1e5, budget_d=0.9)
    with qtbot.waitSignal(p.result_shown, timeout=TIMEOUT):
        assert p.run()
    t = p.study.ternary
    assert t is not None and len(t["points"]) == 2
    for pts in t["points"]:
        assert np.allclose(pts.sum(axis=1), 1) and (pts >= 0).all()
    assert p.ternary_plot.isVisible()
    x, y = p.curves["ternary_teacher"].getData()
    pi = t["teacher"]
    assert (x[0], y[0]) == pytest.approx((pi[1] + pi[2] / 2, pi[2] * np.sqrt(3) / 2))
    p.shutdown()


def test_teacher_from_an_earlier_synthesise_and_bound_run(qtbot, panel):
    from core.mdp.private_policy import private_policy
    from core.mdp.records import bounds_summary
    from core.project.model import RunRecord

    doc = panel._document
    mdp = doc.mdp_entry("four-startups").mdp
    pp = private_policy(mdp, 30.0, seed=2)
    summary = bounds_summary(pp, list(mdp.state_names), [list(r) for r in mdp.action_names])
    doc.add_run(RunRecord(id=doc.project.new_run_id(), kind="bounds", target="four-startups",
                          params={"k": 30.0}, summary=summary, mode="experiment", seed=2))
    bounds = [r for r in doc.project.runs if r.kind == "bounds"]
    panel.set_parameters(env="mdp:four-startups", iterations=5, seeds=2, seed=1, eta=0.1,
                         budget_e=1e5, budget_d=0.9)
    keys = [panel.teacher_combo.itemData(i) for i in range(panel.teacher_combo.count())]
    assert f"run:{bounds[0].id}" in keys
    panel.teacher_combo.setCurrentIndex(keys.index(f"run:{bounds[0].id}"))
    with qtbot.waitSignal(panel.result_shown, timeout=TIMEOUT):
        assert panel.run()
    from core.sharing.learning import actions_policy, evaluate_softmax, run_policy

    pi = actions_policy(mdp, run_policy(bounds[0]))
    assert panel.study.result.teacher_value == pytest.approx(evaluate_softmax(mdp, pi)[0])
    assert panel._document.project.runs[-1].params["teacher"] == f"run:{bounds[0].id}"


def test_a_gym_environment_becomes_a_project_mdp(qtbot, panel):
    pytest.importorskip("gymnasium")
    doc = panel._document
    panel.set_parameters(env="gym:FrozenLake-v1")
    assert panel.add_env_button.isEnabled()
    n = len(doc.project.mdps)
    mid = panel.add_environment_to_project()
    assert len(doc.project.mdps) == n + 1 and panel.env_combo.currentData() == f"mdp:{mid}"
    mdp = doc.mdp_entry(mid).mdp
    assert mdp.n_states == 16 and mdp.n_actions == 4
    assert not panel.add_env_button.isEnabled()
    doc.stack("project").undo()
    assert len(doc.project.mdps) == n


def test_mechanism_panels_follow_the_parameters_live(qtbot, panel):
    """ε/δ(k) update on a parameter change, without a run (how fast it follows is
    measured, not asserted: a wall-clock bound fails on a loaded machine)."""
    from core.sharing.learning import live_privacy

    panel.set_parameters(env="mdp:four-startups")
    qtbot.waitUntil(lambda: panel.live_shown is not None and panel.live_shown[1] is not None,
                    timeout=TIMEOUT)
    m = int(panel._document.mdp_entry("four-startups").mdp.mask.sum(axis=1).max())
    pc, _ = live_privacy(50.0, m, 0.1, 0.2, "paper", None, 1e-3, 1)
    panel.set_parameters(k0=50.0, lb=0.2)

    def shown() -> bool:
        y = panel.curves["epsilon"].getData()[1]
        return y is not None and len(y) == len(pc.epsilon) and np.allclose(y, pc.epsilon)

    qtbot.waitUntil(shown, timeout=TIMEOUT)
    assert panel.study is None  # nothing was run or recorded


def test_the_budget_covers_every_run_and_the_project_spend(qtbot, panel):
    """the workspace stops the teacher on the total over every noisy run, and
    starts from what the project already spent on the teacher's data; the all-runs total is
    shown first."""
    from core.privacy.ledger import PrivacyLedger
    from core.sharing.records import MECHANISM

    doc = panel._document
    led = PrivacyLedger()
    led.record(dataset="mdp:four-startups", mechanism="laplace", epsilon=300.0,
               released="an earlier release")
    doc.project.ledger.extend(led.entries)
    panel.set_parameters(env="mdp:four-startups", iterations=15, seeds=3, seed=4, coef=0.9,
                         eta=0.1, budget_e=1000.0, budget_d=0.9)
    with qtbot.waitSignal(panel.runner.succeeded, timeout=TIMEOUT):
        assert panel.run()
    record = doc.project.runs[-1]
    noisy = [e for e in doc.project.ledger
             if e.source == record.id and e.mechanism == MECHANISM]
    released = sum(e.count * e.epsilon for e in noisy)
    assert noisy and 300.0 + released <= 1000.0 + 1e-9
    assert record.summary["spent_before"]["epsilon"] == pytest.approx(300.0)
    text = panel.summary_label.text()
    assert text.startswith("<b>teacher's total over all 6 noisy student runs")
    assert "already spent" in text and "(1000, 0.9)" in text
    assert panel.ledger_table.horizontalHeaderItem(6).text() == "ε total (all runs)"


def test_a_typed_k0_out_of_range_is_refused_beside_the_field(qtbot, panel):
    """k₀ = −1 used to become 0.001 silently; now the field keeps 5 and the
    note under it says why."""
    from PySide6.QtCore import Qt

    spin = panel.fields["k0"]
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "-1")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert spin.value() == 5.0
    assert spin.note.isVisible()
    assert "k₀ = -1 refused" in spin.note.text() and "kept 5" in spin.note.text()
    qtbot.keyClicks(spin.lineEdit(), "0")  # the next edit clears the note
    assert not spin.note.isVisible()


def test_the_tab_fits_the_middle_of_a_1366x768_window(qtbot, panel):
    """at 1366×768 (docks open: ~790×640 for the tab) the page needed 880 px
    (titles and plots cut by the tab's scroll area) and Run sat below the fold."""
    from gui.shell.plots import readability_problems

    assert panel.minimumSizeHint().width() <= 760
    panel.resize(790, 640)
    qtbot.wait(20)
    run = panel.run_controls.run_button
    top_left = run.mapTo(panel, run.rect().topLeft())
    assert run.isVisible() and 0 <= top_left.y()
    assert top_left.y() + run.height() <= panel.height() <= 640
    for plot in (panel.curve_plot, panel.eps_plot, panel.delta_plot, panel.radius_plot):
        assert not [p for p in readability_problems(plot) if "title" in p], plot


# ---------------------------------------------------------------- the protocol group
def test_defaults_are_the_cores_and_every_choice_is_explained(panel):
    default = SharingSetup()
    values = panel.protocol.values()
    for key in ("after_budget", "reward_scale", "gradient", "penalty_weight", "episodes",
                "nonprivate_target"):
        assert values[key] == getattr(default, key)
    for key, combo in panel.protocol.combos.items():
        assert combo.toolTip() == PROTOCOL_TOOLTIPS[key] and len(combo.toolTip()) > 80
    assert not panel.protocol.episodes_spin.isEnabled()  # only for the sampled gradient
    panel.set_parameters(gradient="sampled")
    assert panel.protocol.episodes_spin.isEnabled()
    with pytest.raises(ValueError, match="after_budget"):
        panel.set_parameters(after_budget="later")


def test_the_papers_rule_runs_and_is_recorded(qtbot, panel):
    # a budget the teacher spends within the run, so the after-budget rule matters
    panel.set_parameters(env="mdp:four-startups", iterations=12, seeds=3, seed=5, coef=0.9,
                         eta=0.1, budget_e=60.0, budget_d=0.9, after_budget="random",
                         reward_scale="none", gradient="sampled", episodes=3,
                         penalty_weight="occupancy", nonprivate_target="mixed")
    setup = panel.setup()
    assert (setup.after_budget, setup.reward_scale, setup.gradient, setup.episodes,
            setup.penalty_weight, setup.nonprivate_target) == (
        "random", "none", "sampled", 3, "occupancy", "mixed")
    with qtbot.waitSignal(panel.runner.succeeded, timeout=TIMEOUT):
        assert panel.run()
    ref = sharing_study(four_startups(), setup, seeds=3, seed=5)
    assert ref.result.ledger.stopped_at is not None  # the rule was exercised
    for kind in ("none", "nonprivate", "aware", "unaware"):
        np.testing.assert_array_equal(panel.study.result.curves[kind], ref.result.curves[kind])
    # the stop rule gives other curves for the noisy students once the teacher has stopped
    stop = sharing_study(four_startups(), replace(setup, after_budget="stop"), seeds=3, seed=5)
    assert not np.array_equal(stop.result.curves["unaware"], ref.result.curves["unaware"])
    record = panel._document.project.runs[-1]
    for key in ("after_budget", "reward_scale", "gradient", "penalty_weight",
                "nonprivate_target"):
        assert record.params[key] == getattr(setup, key)
    assert record.params["episodes"] == 3
    notes = " ".join(record.summary["notes"])
    assert "uniformly random policies" in notes and "normalised occupancy" in notes
