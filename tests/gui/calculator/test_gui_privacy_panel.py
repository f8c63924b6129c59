"""The Privacy Calculator workspace: presets, live plots, inline validation, no records."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from core.privacy.calculator import (
    FIGURE_1_1,
    epsilon_delta_curve,
    epsilon_vs_k,
)
from core.privacy.dirichlet_accounting import LEMMA_1_2_WARNING, dirichlet_privacy
from gui.calculator.panel import PrivacyCalculatorPanel
from gui.calculator.parts import DRAFT_POINTS, N_POINTS, PARAMETERS, TOOLTIPS
from gui.shell.style import pretty_message

TIMEOUT = 30_000


@pytest.fixture
def calc(qtbot, example_doc):
    panel = PrivacyCalculatorPanel(example_doc)
    qtbot.addWidget(panel)
    panel.resize(1000, 780)
    panel.show()
    qtbot.waitUntil(lambda: not panel.is_busy, timeout=TIMEOUT)
    yield panel
    panel.shutdown()


def settle(qtbot, panel):
    """Wait until every plot, ε vs k included, is up to date."""
    qtbot.waitUntil(lambda: not panel.is_busy, timeout=TIMEOUT)


def wait_result(qtbot, panel):
    """Wait for the point result and the fast curves only (not ε vs k)."""
    qtbot.waitUntil(lambda: not (panel._throttle.isActive() or panel._pending is not None
                                 or panel.runner.is_running), timeout=TIMEOUT)


def data(panel, key):
    """(x, y) as given to the curve, before the log-axis mapping."""
    x, y = panel.curves[key].getOriginalDataset()
    return (np.array([]), np.array([])) if x is None else (np.asarray(x), np.asarray(y))


def test_builds_with_tooltips_and_figure_defaults(calc):
    assert calc.result is not None and calc.k_result is not None
    inp = calc.inputs()
    assert (inp.k, inp.eta, inp.eta_bar, inp.w, inp.b) == (6.7, 0.15, 0.15, 3, 0.1)
    assert inp.delta_target == 0.05 and inp.gamma is None and inp.delta_method == "auto"
    for key, row in calc.rows.items():
        tip = row.spin.toolTip()
        assert tip == TOOLTIPS[key] and row.slider.toolTip() == tip
        assert tip.count(". ") == 0 and tip.endswith(".")  # one sentence
    for key in ("k", "eta", "eta_bar", "w", "b", "delta", "gamma"):
        assert "private" in TOOLTIPS[key], key
    assert "less private" in TOOLTIPS["k"] and "more accurate" in TOOLTIPS["k"]
    assert calc.method_combo.toolTip() == TOOLTIPS["delta_method"]
    assert not calc.rows["gamma"].spin.isEnabled()  # target-δ mode by default
    # the k slider is logarithmic over the spin box range
    k_row = calc.rows["k"]
    assert k_row.slider.value_at(0) == pytest.approx(PARAMETERS["k"].minimum)
    assert k_row.slider.value_at(k_row.slider.maximum()) == pytest.approx(PARAMETERS["k"].maximum)
    assert k_row.slider.value_at(k_row.slider.maximum() // 2) == pytest.approx(
        np.sqrt(PARAMETERS["k"].minimum * PARAMETERS["k"].maximum))
    # the δ method: auto is the proven union bound, and the tooltips say what exact rests on
    method_tip = TOOLTIPS["delta_method"]
    assert "auto" in method_tip and "union" in method_tip and "proven" in method_tip
    assert "Lemma 1.2" in method_tip and "gap" in method_tip and "not proven" in method_tip
    assert calc.field_warning("delta_method") == "" and calc.field_error("delta_method") == ""
    # result box: the proven statement (union δ) at δ̂ = 0.05 ...
    labels = calc.result_labels
    assert calc.result.point.delta_method == "union"
    assert "2.5208" in labels["epsilon"].text()
    assert "proven upper bound" in labels["delta"].text()
    tip = labels["delta"].toolTip()
    assert "union bound" in tip and "holds at every input" in tip and "proven" in tip
    assert "Lemma 1.2" in tip and "gap" in tip  # what the other method rests on
    assert "quadrature" not in tip  # no quadrature is claimed as the guarantee
    assert "0.003013" in labels["gamma"].text()
    assert "5.0483" in labels["epsilon_approx"].text()
    # ... and Figure 1.1's own value (spec §4.3), labelled with where it comes from
    assert calc.result_names["compare"].text() == "ε, Lemma 1.2 δ"
    compare = labels["compare"].text()
    assert "2.5161" in compare and "Figure 1.1 left" in compare and "unproven" in compare
    assert "Lemma 1.2" in labels["compare"].toolTip()
    assert "0.03247" in labels["variance"].text()  # 1/(4·7.7)
    assert "paper" in labels["alpha"].text() and "rigorous" in labels["alpha"].text()
    assert "can fail" in calc.alpha_note.text()


@pytest.mark.parametrize("name", ["middle", "right", "left"])
def test_figure_buttons_set_the_configuration_and_the_curve(qtbot, calc, name):
    if name == "left":
        calc.apply_preset("middle")
        wait_result(qtbot, calc)
    qtbot.mouseClick(calc.preset_buttons[name], Qt.MouseButton.LeftButton)
    cfg = FIGURE_1_1[name]
    inp = calc.inputs()
    assert (inp.k, inp.eta, inp.eta_bar, inp.w, inp.b) == tuple(cfg[k] for k in
                                                                 ("k", "eta", "eta_bar", "w", "b"))
    wait_result(qtbot, calc)
    ref = epsilon_delta_curve(**cfg, n_points=N_POINTS)  # the default: union δ (proven)
    assert ref.delta_method == "union"
    x, y = data(calc, "epsilon")
    np.testing.assert_allclose(x, ref.delta, rtol=1e-12)
    np.testing.assert_allclose(y, ref.epsilon, rtol=1e-12)
    # the displayed (log-x) data are the same points
    xd, yd = calc.curves["epsilon"].getData()
    np.testing.assert_allclose(10 ** np.asarray(xd), ref.delta, rtol=1e-9)
    np.testing.assert_allclose(yd, ref.epsilon, rtol=1e-12)
    xa, ya = data(calc, "epsilon_approx")
    np.testing.assert_allclose(ya - y, ref.approx_offset, rtol=1e-9)
    # the star is the default accountant's statement: the exact profile at δ̂ = 0.05, on
    # the profile's curve, below every Theorem 1.6 curve
    point = dirichlet_privacy(**cfg, delta_target=0.05)
    assert point.delta_method == "profile"
    px, py = data(calc, "point")
    assert (px[0], py[0]) == pytest.approx((point.delta, point.epsilon))
    xp, yp = data(calc, "profile")
    assert np.interp(np.log(0.05), np.log(xp), yp) == pytest.approx(point.epsilon, rel=2e-2)
    assert point.epsilon < np.interp(np.log(0.05), np.log(x), y)
    assert f"{point.epsilon:.4g}"[:4] in calc.result_labels["profile"].text()
    assert f"Figure 1.1 {name}" in calc.eps_delta_plot.getPlotItem().titleLabel.text
    # the figure's own curve (vertex reduction of Lemma 1.2) is the second series, and it
    # passes through the spec's ε at δ = 0.05 (spec §4.3); the proven curve lies above it
    fig = epsilon_delta_curve(**cfg, n_points=N_POINTS, delta_method="exact")
    xe, ye = data(calc, "epsilon_exact")
    np.testing.assert_allclose(xe, fig.delta, rtol=1e-12)
    np.testing.assert_allclose(ye, fig.epsilon, rtol=1e-12)
    spec = {"left": 2.5161, "middle": 1.6940, "right": 1.2007}[name]
    assert np.interp(np.log(0.05), np.log(xe), ye) == pytest.approx(spec, abs=1e-2)
    assert np.interp(np.log(0.05), np.log(x), y) >= np.interp(np.log(0.05), np.log(xe), ye)
    # the result box gives the figure's value at δ̂ = 0.05 and says where it comes from
    exact = calc.result.points["exact"]
    assert exact.delta_method == "exact" and exact.epsilon == pytest.approx(spec, abs=1e-3)
    assert calc.result.point.epsilon > exact.epsilon  # the proven ε is the larger one
    text = calc.result_labels["compare"].text()
    assert f"Figure 1.1 {name}" in text and "Lemma 1.2" in text
    legend = [label.text for _, label in calc.legends["eps_delta"].items]
    assert any("union" in t for t in legend) and any("exact profile" in t for t in legend)
    assert any("Lemma 1.2" in t and "Fig. 1.1" in t for t in legend)


def test_other_plots_match_the_core(qtbot, calc):
    r = calc.result
    x, y = data(calc, "delta_exact")
    np.testing.assert_array_equal(x, r.delta_gamma.gamma)
    np.testing.assert_array_equal(y, r.delta_gamma.exact)
    _, yu = data(calc, "delta_union")
    assert np.all(yu >= y - 1e-12)
    kx, ky = data(calc, "k_epsilon")
    ref = epsilon_vs_k(kx.tolist(), 0.15, 0.15, 3, 0.1, delta_target=0.05)
    np.testing.assert_allclose(ky, ref.epsilon, rtol=1e-12)
    assert np.all(np.diff(ky[np.isfinite(ky)]) > 0)  # ε grows with k
    assert "target δ = 0.05" in calc.eps_k_plot.getPlotItem().titleLabel.text
    ax, ay = data(calc, "variance")
    np.testing.assert_allclose(ay, 1 / (4 * (ax + 1)))
    _, esq = data(calc, "sq_error")
    np.testing.assert_allclose(esq, (1 - 1 / 4) / (ax + 1))
    assert calc.k_line.value() == pytest.approx(np.log10(6.7))
    for plot in (calc.eps_delta_plot, calc.eps_k_plot, calc.delta_gamma_plot,
                 calc.accuracy_plot):
        item = plot.getPlotItem()
        assert item.legend is not None and item.legend.items
        assert item.getAxis("bottom").labelText and item.getAxis("left").labelText


def test_out_of_domain_turns_the_field_red_and_keeps_the_plots(qtbot, calc):
    before = data(calc, "epsilon")
    result = calc.result
    calc.rows["eta"].spin.setValue(0.6)
    calc.rows["eta_bar"].spin.setValue(0.5)
    row = calc.rows["eta_bar"]
    assert "border" in row.spin.styleSheet()
    assert "η + η̄ must be < 1" in row.error and row.error.startswith("η̄")
    assert row.message.isVisibleTo(calc) and "η̄" in row.message.text()
    assert "η + η̄ must be < 1" in row.spin.toolTip()
    assert "Fix the red field" in calc.status_label.text()
    assert "last valid" in calc.results_box.title()
    qtbot.wait(3 * 120)
    assert not calc.is_busy and calc.result is result
    after = data(calc, "epsilon")
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
    # fixing it clears the red field and computes again
    calc.rows["eta"].spin.setValue(0.15)
    calc.rows["eta_bar"].spin.setValue(0.2)
    assert row.error == "" and row.spin.styleSheet() == ""
    wait_result(qtbot, calc)
    assert calc.result.inputs.eta_bar == 0.2


def k_title(panel):
    return panel.eps_k_plot.getPlotItem().titleLabel.text


def test_gamma_beyond_one_over_w_is_refused(qtbot, calc):
    calc.set_parameters(mode="gamma", gamma=0.01)
    wait_result(qtbot, calc)
    # the ε-vs-k title always names the curve it shows: the old one (target δ) until the
    # new curve (fixed γ) arrives — which may already have happened, so check whichever
    # curve is shown now, then wait for the new one
    shown = calc.k_result
    assert (f"target δ = {shown.delta_target:g}" if shown.delta_target is not None
            else f"γ = {shown.fixed_gamma:g}") in k_title(calc)
    qtbot.waitUntil(lambda: calc.k_result.fixed_gamma == 0.01 and "γ = 0.01" in k_title(calc),
                    timeout=TIMEOUT)
    settle(qtbot, calc)
    assert calc.rows["gamma"].spin.isEnabled() and not calc.rows["delta"].spin.isEnabled()
    assert calc.result.inputs.gamma == 0.01
    assert calc.result.point.epsilon == pytest.approx(2.114192024, abs=1e-8)
    assert "fixed" in calc.result_labels["gamma"].text()
    assert "γ = 0.01" in calc.eps_k_plot.getPlotItem().titleLabel.text
    before = data(calc, "gamma_point")
    calc.rows["gamma"].spin.setValue(0.4)
    err = calc.field_error("gamma")
    assert err.startswith("γ:") and "(0, 1/|W|) = (0, 0.333333)" in err
    assert "border" in calc.rows["gamma"].spin.styleSheet()
    qtbot.wait(300)
    np.testing.assert_array_equal(data(calc, "gamma_point")[1], before[1])


def test_empty_domain_names_eta_and_its_range(calc):
    calc.set_parameters(eta=0.3)  # |W|·η + η̄ = 1.05 > 1
    err = calc.field_error("eta")
    assert err.startswith("η:") and "need η <= 0.283333" in err


def test_exact_method_needs_small_w(qtbot, calc):
    calc.set_parameters(w=5, eta=0.05, eta_bar=0.1, delta_method="exact")
    err = calc.field_error("delta_method")
    assert "|W| <= 3" in err and "border" in calc.method_combo.styleSheet()
    assert calc.rows["n"].value() == 6  # n follows |W| + 1
    calc.set_parameters(delta_method="auto")
    wait_result(qtbot, calc)
    assert calc.result.point.delta_method == "union"
    assert "proven upper bound" in calc.result_labels["delta"].text()
    assert data(calc, "delta_exact")[0].size == 0  # no vertex reduction for |W| > 3
    assert data(calc, "epsilon_exact")[0].size == 0
    assert "|W| = 5 > 3" in calc.result_labels["compare"].text()
    legend = [label.text for _, label in calc.legends["delta_gamma"].items]
    assert not any("Lemma 1.2" in t for t in legend) and any("union" in t for t in legend)


def test_exact_method_is_labelled_as_resting_on_lemma_1_2(qtbot, calc):
    calc.set_parameters(delta_method="exact")
    warning = calc.field_warning("delta_method")
    assert "Lemma 1.2" in warning and "not proven" in warning
    assert calc.field_error("delta_method") == ""
    wait_result(qtbot, calc)
    p = calc.result.point
    assert p.delta_method == "exact" and LEMMA_1_2_WARNING in p.warnings
    assert p.epsilon == pytest.approx(2.5161, abs=1e-3)  # spec §4.3, Figure 1.1 left
    assert "Lemma 1.2" in calc.result_labels["delta"].text()
    assert "unproven" in calc.result_labels["delta"].text()
    assert "printed proof" in calc.result_labels["delta"].toolTip()
    # the comparison row now gives the proven statement
    assert calc.result_names["compare"].text() == "ε, union δ"
    assert "2.5208" in calc.result_labels["compare"].text()
    assert "proven" in calc.result_labels["compare"].text()
    calc.set_parameters(delta_method="auto")
    assert calc.field_warning("delta_method") == ""


def test_low_k_warning_next_to_k(qtbot, calc):
    calc.set_parameters(k=3.0)
    warning = calc.field_warning("k")
    assert "k·η = 0.45" in warning and "Lemma 1.2" in warning and "union bound" in warning
    assert calc.rows["k"].message.isVisibleTo(calc) and "⚠" in calc.rows["k"].message.text()
    assert "premise of Lemma 1.2" in calc.rows["k"].spin.toolTip()  # the full text
    assert calc.field_warning("eta") == "" and calc.field_warning("b") == ""
    wait_result(qtbot, calc)
    assert "not available" in calc.result_labels["epsilon_approx"].text()
    assert data(calc, "epsilon_approx")[0].size == 0
    assert "premise of Lemma 1.2" in calc.result_labels["compare"].text()
    assert data(calc, "epsilon_exact")[0].size == 0
    calc.set_parameters(k=50.0, b=0.8)  # η + b/2 > (1 − η̄)/2: the corrected v₂
    assert "corrected v₂" in calc.field_warning("b") and calc.field_warning("k") == ""
    wait_result(qtbot, calc)


def test_monte_carlo_method(qtbot, calc):
    calc.set_parameters(delta_method="mc")
    wait_result(qtbot, calc)
    assert calc.result.point.delta_method == "mc"
    assert "estimated" in calc.result_labels["delta"].text()
    assert "Lemma 1.2" in calc.field_warning("delta_method")  # MC evaluates the vertices
    assert data(calc, "delta_mc")[0].size > 0
    np.testing.assert_array_equal(data(calc, "epsilon_mc")[1], calc.result.curve.epsilon)


def test_slider_moves_update_live_and_are_rate_limited(qtbot, calc, monkeypatch):
    import gui.calculator.compute as module

    module.RESULTS.clear()
    calls = []
    real = module.evaluate_calculator

    def counting(inputs, **kwargs):
        calls.append((inputs.k, kwargs.get("n_points")))
        return real(inputs, **kwargs)

    monkeypatch.setattr(module, "evaluate_calculator", counting)
    slider = calc.rows["k"].slider
    start = slider.value()
    slider.setSliderDown(True)  # the user holds the handle: coarse, fast curves
    for step in range(1, 11):
        slider.setValue(start + 3 * step)
    assert calc.rows["k"].value() == pytest.approx(slider.value_at(start + 30), rel=1e-3)
    qtbot.waitUntil(lambda: calc.result.inputs.k == calc.rows["k"].value(), timeout=TIMEOUT)
    assert calc.result.curve.gamma.size <= DRAFT_POINTS
    assert 1 <= len(calls) <= 3  # ten moves, coalesced
    slider.setSliderDown(False)
    slider.sliderReleased.emit()
    wait_result(qtbot, calc)
    assert calls[-1][1] == N_POINTS and calc.result.curve.gamma.size > DRAFT_POINTS
    assert calc.last_latency_s is not None and calc.last_latency_s < 10
    assert "redrawn" in calc.status_label.text()


def test_k_changes_do_not_recompute_the_k_curve(qtbot, calc, monkeypatch):
    import gui.calculator.compute as module

    module.K_CURVES.clear()
    calls = []
    real = module.epsilon_vs_k
    monkeypatch.setattr(module, "epsilon_vs_k",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    calc.set_parameters(k=10.0)
    settle(qtbot, calc)
    assert calls == []
    kx, ky = data(calc, "k_point")
    assert (kx[0], ky[0]) == pytest.approx((10.0, calc.result.profile.epsilon))
    calc.set_parameters(b=0.05)
    settle(qtbot, calc)
    assert calls == [1]


def test_compare_overlays_the_three_configurations(qtbot, calc):
    calc.set_compare(True)
    qtbot.waitUntil(lambda: len(calc.figure_curves) == 3, timeout=TIMEOUT)
    for name, cfg in FIGURE_1_1.items():
        # solid: the figure itself (the vertex reduction of Lemma 1.2)
        x, y = data(calc, f"fig_{name}")
        ref = epsilon_delta_curve(**cfg, n_points=N_POINTS, delta_method="exact")
        np.testing.assert_allclose(y, ref.epsilon, rtol=1e-12)
        _, ya = data(calc, f"fig_{name}_approx")
        np.testing.assert_allclose(ya, ref.epsilon_approx, rtol=1e-12)
        # dotted: the proven union-bound curve of the same configuration
        _, yu = data(calc, f"fig_{name}_union")
        np.testing.assert_allclose(yu, epsilon_delta_curve(**cfg, n_points=N_POINTS).epsilon,
                                   rtol=1e-12)
    assert not calc.curves["epsilon"].isVisible()  # the current config is one of the three
    assert not calc.curves["epsilon_exact"].isVisible()
    labels = [label.text for _, label in calc.legends["eps_delta"].items]
    assert sum(t.startswith(("left", "middle", "right")) for t in labels) == 3
    assert "dotted: union δ (proven)" in labels
    assert "Lemma 1.2" in calc.eps_delta_plot.getPlotItem().titleLabel.text
    calc.set_parameters(k=20.0)
    wait_result(qtbot, calc)
    assert calc.curves["epsilon"].isVisible()
    calc.set_compare(False)
    assert data(calc, "fig_left")[0].size == 0 and data(calc, "fig_left_union")[0].size == 0


def test_nothing_is_recorded(qtbot, calc, example_doc):
    calc.apply_preset("right")
    wait_result(qtbot, calc)
    assert example_doc.project.runs == []
    assert example_doc.undo_stack.count() == 0 and not example_doc.is_dirty


def test_pretty_message():
    assert pretty_message("k·eta = 0.45 and k·eta_bar = 0.45") == "k·η = 0.45 and k·η̄ = 0.45"
    assert pretty_message("beta in (0, 1); delta <= 0.05; gamma") == "β in (0, 1); δ <= 0.05; γ"


def test_main_window_opens_the_calculator(qtbot, window):
    action = window.calculator_action
    assert action.shortcut().toString() == "Ctrl+Shift+P"
    menu = next(a.menu() for a in window.menuBar().actions() if "Analysis" in a.text())
    assert action in menu.actions()
    action.trigger()
    calc = window.calculator
    assert isinstance(calc, PrivacyCalculatorPanel)
    assert window.tabs.currentWidget() is calc
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Privacy Calculator"
    assert window.params_stack.currentWidget() is calc.info_panel
    assert "what-if" in window.mode_label.text()
    assert not window.run_action.isEnabled()  # F5 runs MDP sweeps only
    qtbot.waitUntil(lambda: not calc.is_busy, timeout=TIMEOUT)
    # a second open brings the same tab forward
    window.tabs.setCurrentIndex(0)
    assert window.run_action.isEnabled()
    assert window.open_calculator() is calc and window.tabs.count() == 3
    # closing the tab shuts it down
    window.tabs.tabCloseRequested.emit(window.tabs.indexOf(calc))
    assert window.calculator is None and window.tabs.count() == 2


def test_project_tree_entry_opens_the_calculator(qtbot, window):
    tree = window.project_panel.tree
    items = tree.findItems("Privacy Calculator",
                           Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive)
    assert len(items) == 1
    tree.itemActivated.emit(items[0], 0)
    assert window.calculator is not None and window.tabs.currentWidget() is window.calculator
    qtbot.waitUntil(lambda: not window.calculator.is_busy, timeout=TIMEOUT)
    # a new project keeps the calculator (it does not belong to a project)
    from core.project.model import Project

    window.document.replace_project(Project(name="Empty"), None)
    assert window.calculator is not None and window.tabs.count() == 1
    assert window.central.currentWidget() is window.tabs


def test_typing_is_validated_as_you_type(qtbot, calc):
    spin = calc.rows["eta"].spin
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, "0.9")  # no Enter: every acceptable keystroke is checked
    assert calc.rows["eta"].value() == pytest.approx(0.9)
    assert "η + η̄ must be < 1" in calc.field_error("eta_bar")
    spin.selectAll()
    qtbot.keyClicks(spin, "0.2")
    assert calc.field_error("eta_bar") == ""
    wait_result(qtbot, calc)
    assert calc.result.inputs.eta == pytest.approx(0.2)


def test_epsilon_readout_follows_a_change_at_once(qtbot, calc, monkeypatch):
    """the ε readout (proven union method) updates on the change itself, before
    the worker's curves arrive (the point costs well under a millisecond)."""
    import threading
    import time

    import gui.calculator.panel as panel_module

    release = threading.Event()
    real = panel_module.evaluate_task

    def slow(inputs, **kwargs):
        release.wait(10)  # the curves are held back until the readout has been checked
        return real(inputs, **kwargs)

    monkeypatch.setattr(panel_module, "evaluate_task", slow)
    t0 = time.perf_counter()
    calc.rows["k"].set_value(123.0)
    elapsed = time.perf_counter() - t0
    point = dirichlet_privacy(123.0, calc.inputs().eta, calc.inputs().eta_bar, calc.inputs().w,
                              calc.inputs().b, delta_target=calc.inputs().delta_target,
                              delta_method="union")
    from gui.calculator.parts import fmt_value

    assert f"<b>{fmt_value(point.epsilon)}</b>" in calc.result_labels["epsilon"].text()
    assert f"<b>{fmt_value(point.delta)}</b>" in calc.result_labels["delta"].text()
    assert elapsed < 5.0, elapsed  # the held-back worker would take 10 s: the readout did not wait
    release.set()
    settle(qtbot, calc)
    assert f"<b>{fmt_value(point.epsilon)}</b>" in calc.result_labels["epsilon"].text()


@pytest.mark.parametrize("typed", ["-1", "1e9"])
def test_a_typed_k_out_of_range_is_refused_beside_the_field(qtbot, calc, typed):
    """k = −1 used to become 0.1 and 1e9 to revert, silently. Typed and
    confirmed with Enter, the field keeps its value and the message beside it says why."""
    from PySide6.QtCore import Qt

    calc.show()
    row = calc.rows["k"]
    spin = row.spin
    spin.setValue(6.7)
    wait_result(qtbot, calc)
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), typed)
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert spin.value() == 6.7 and spin.text() == "6.7"
    wait_result(qtbot, calc)
    assert row.message.isVisible()
    text = row.message.text()
    assert f"k = {typed} refused" in text and "between 0.1 and 1e+05" in text
    assert "kept 6.7" in text
    assert calc.inputs().k == 6.7
    # the next edit clears it
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "8")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    wait_result(qtbot, calc)
    assert spin.value() == 8 and not row.message.isVisible()
