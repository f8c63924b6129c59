"""The Packet-routing page of the logistics workspace (Figs 4.9–4.11 in the GUI)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.logistics.packet_records import PACKET_KIND, run_packet_experiment
from core.project.files import load_project, save_project
from gui.logistics.panel import LogisticsPanel
from gui.shell.document import ProjectDocument


@pytest.fixture
def panel(qtbot):
    doc = ProjectDocument()
    p = LogisticsPanel(doc)
    qtbot.addWidget(p)
    p.resize(1200, 850)
    p.show()
    qtbot.waitExposed(p)
    yield p
    p.shutdown()


def _curves(page, key):
    import pyqtgraph as pg

    return [it for it in page.items[key] if isinstance(it, pg.PlotDataItem)
            and it.opts.get("pen") is not None and it.name()]


def test_tiny_fig411_runs_plots_with_bands_records_and_comes_back(panel, qtbot, tmp_path):
    page = panel.packet
    panel.pages.setCurrentIndex(2)
    assert panel.info_panel.currentIndex() == 2 and panel.info_panel.currentWidget() is \
        page.controls
    page.set_options(experiment="fig411", values=[0.2], approaches=["bestfirst", "greedy"],
                     worlds=3, seed=5, sizes=4, workers=1)
    with qtbot.waitSignal(page.runner.finished, timeout=60000):
        assert panel.run()  # F5 on this page runs the study
    (rec,) = panel._document.project.runs
    assert rec.kind == PACKET_KIND and rec.mode == "experiment" and rec.seed == 5
    assert rec.params["experiment"] == "fig411" and rec.params["sizes"] == 4
    assert panel._document.project.ledger == []  # a seeded study releases nothing
    s = rec.summary
    # the same numbers as the core run with the same parameters (seeded, paired)
    ref = run_packet_experiment("fig411", n=3, master_seed=5, values=[0.2],
                                approaches=["bestfirst", "greedy"], sizes=4)
    assert [r["messages"]["mean"] for r in s["rows"]] == \
        [r["messages"]["mean"] for r in ref["rows"]]
    for key in ("route_length", "messages", "success", "replans"):
        curves = _curves(page, key)
        assert len(curves) == 2  # one line per approach
        for c in curves:
            x, y = c.getData()
            assert list(x) == [0.0, 0.2]
        bands = [it for it in page.items[key] if type(it).__name__ == "FillBetweenItem"]
        if key != "route_length":  # (a route length may be missing where nothing arrived)
            assert len(bands) == 2
    x, y = _curves(page, "messages")[0].getData()
    want = [r["messages"]["mean"] for r in s["rows"] if r["arm"] == "bestfirst"]
    assert np.allclose(y, want, equal_nan=True)
    assert page.claims_table.rowCount() == s["claims_total"] == 4
    verdicts = [page.claims_table.item(i, 0).text() for i in range(4)]
    assert all(v.startswith(("holds", "does not hold")) for v in verdicts)
    assert f"{s['claims_hold']} of 4" in page.caption.text()
    assert "no proven bound" in page.caption.text()  # re-planning under churn proves none
    assert rec.id in page.caption.text()
    assert page.values_edit.text() == "0.2" and page.sizes_spin.value() == 4  # form kept

    # saved and reopened: the page redraws the study from the record alone
    path = tmp_path / "packet.privplan"
    save_project(panel._document.project, path)
    doc2 = ProjectDocument()
    doc2.replace_project(load_project(path), path)
    p2 = LogisticsPanel(doc2)
    qtbot.addWidget(p2)
    try:
        assert p2.packet.run_id == rec.id
        y2 = _curves(p2.packet, "messages")[0].getData()[1]
        assert np.allclose(y2, y, equal_nan=True)
        assert p2.packet.claims_table.rowCount() == 4
        f = p2.packet  # the Run panel as the study was run: Run repeats it
        assert f.experiment_combo.currentData() == "fig411" and f.values_edit.text() == "0.2"
        assert [a for a, cb in f.approach_checks.items() if cb.isChecked()] == \
            ["bestfirst", "greedy"]
        assert (f.worlds_spin.value(), f.sizes_spin.value(), f.seed_spin.value(),
                f.seed_check.isChecked()) == (3, 4, 5, True)
        assert p2.show_run(rec.id) and p2.pages.currentIndex() == 2
    finally:
        p2.shutdown()


def test_cancel_stops_the_study_and_records_nothing(panel, qtbot):
    page = panel.packet
    panel.pages.setCurrentIndex(2)
    page.set_options(experiment="fig49", values=[10, 20, 30], worlds=30, seed=1)
    with qtbot.waitSignal(page.runner.cancelled, timeout=60000):
        assert page.run()
        qtbot.waitUntil(lambda: page.progress.value() > 0 or page.is_running, timeout=5000)
        panel.cancel()
    assert panel._document.project.runs == []


@pytest.mark.parametrize("text, words", [("ten", "comma-separated"), ("", "at least one"),
                                         ("0.5, 2", "(0, 1]"), ("nan", "finite")])
def test_bad_values_are_refused_inline(panel, text, words):
    page = panel.packet
    page.set_options(experiment="fig411")
    page.values_edit.setText(text)
    assert not page.run() and not page.is_running
    assert words in page.controls_message.text()
    assert panel._document.project.runs == []


def test_no_approach_is_refused(panel):
    page = panel.packet
    page.set_options(approaches=[])
    assert not page.run() and "approach" in page.controls_message.text()


def test_a_single_point_draws_error_bars_not_bands(panel):
    summary = run_packet_experiment("fig410", n=2, master_seed=2, values=[0.5],
                                    approaches=["dp"], sizes=4)
    panel.packet.show_summary(summary, run_id="")
    kinds = {type(it).__name__ for it in panel.packet.items["messages"]}
    assert "ErrorBarItem" in kinds and "FillBetweenItem" not in kinds
    names = {c.name() for c in _curves(panel.packet, "messages")}
    assert any("logistics" in n for n in names) and any("packet" in n for n in names)
    assert math.isfinite(summary["rows"][0]["messages"]["mean"])


def test_the_pdf_report_of_a_recorded_study_has_its_packet_section(panel, qtbot, tmp_path):
    from core.report import build_report
    from gui.report.export import export_report, print_html, render_figures

    page = panel.packet
    page.set_options(experiment="fig411", values=[0.2], approaches=["greedy"], worlds=2,
                     seed=3, sizes=4)
    with qtbot.waitSignal(page.runner.finished, timeout=60000):
        assert page.run()
    (rec,) = panel._document.project.runs
    rep = build_report(panel._document.project)
    (sec,) = [s for s in rep.sections if s.id == f"run-{rec.id}"]
    assert sec.title.startswith("Packet routing Fig 4.11")
    images = render_figures(rep)
    for key in ("route_length", "messages", "success", "replans"):
        img = images[f"{rec.id}-{key}"]
        assert not img.isNull() and img.width() > 100
    text = print_html(rep)
    assert "Claims: " in text and "What a real run proves" in text
    pages = export_report(rep, tmp_path / "r.pdf")
    assert pages and pages >= 1 and (tmp_path / "r.pdf").stat().st_size > 10_000


def test_an_os_drawn_master_seed_is_recorded_and_reproduces_the_study(panel, qtbot):
    page = panel.packet
    page.set_options(experiment="fig411", values=[0.2], approaches=["greedy"], worlds=2,
                     sizes=4)
    page.seed_check.setChecked(False)
    assert not page.seed_spin.isEnabled()
    with qtbot.waitSignal(page.runner.finished, timeout=60000):
        assert page.run()
    (rec,) = panel._document.project.runs
    s = rec.summary
    assert rec.seed == s["master_seed"] and "drawn" in s["seed_source"]
    assert rec.mode == "experiment"
    again = run_packet_experiment("fig411", n=2, master_seed=s["master_seed"], values=[0.2],
                                  approaches=["greedy"], sizes=4)
    assert [r["success"]["mean"] for r in again["rows"]] == \
        [r["success"]["mean"] for r in s["rows"]]


def test_the_header_keeps_its_place_while_the_status_changes(panel, qtbot):
    """The status line beside the title changed width and line count with every progress
    step, so the page's header (title, buttons) jumped while a study ran."""
    page = panel.packet
    panel.pages.setCurrentIndex(2)
    qtbot.wait(50)
    label = page.run_controls.progress_label
    geometry = []
    for text in ("starting…", "Running… 3 %  fig411: 1 of 40 worlds",
                 "Running… 57 %  fig411: value 0.2, seed 17 of 40 worlds, node churn"):
        label.setText(text)
        qtbot.wait(30)
        geometry.append((page.title_label.geometry(), page.run_controls.run_button.geometry(),
                         label.width(), page.caption.geometry().top()))
    assert geometry[0] == geometry[1] == geometry[2]
