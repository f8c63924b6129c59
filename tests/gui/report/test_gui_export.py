"""Report export: pyqtgraph figures, PDF through Qt, the export dialog, File ▸ Export Report…,
and ``report … -o OUT.pdf`` on the command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from core.mdp.sweep import privacy_sweep
from core.project.files import load_project, save_project
from core.project.model import RunRecord
from core.report.html import build_report
from gui.report import export as ge
from gui.shell import ledger as gl

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"
TIMEOUT = 60_000
SECTION_TITLES = ("Summary", "Models", "Privacy sweep of four startups", "Privacy ledger",
                  "Releases by group", "Values and cost of privacy per k")
needs_poppler = pytest.mark.skipif(
    not (shutil.which("pdftotext") and shutil.which("pdftoppm")),
    reason="poppler-utils (pdftotext, pdftoppm) is not installed: "
           "run `bash tools/ensure-debs.sh report`")


def sweep_document(example_doc, seed: int = 7):
    """The built-in example with a seeded sweep run and its ledger entries, as the GUI
    records them (run record + record_sweep)."""
    doc = example_doc
    mdp_id = doc.project.mdps[0].id
    result = privacy_sweep(doc.project.mdps[0].mdp, [10, 100, 1000], runs=4, seed=seed,
                           workers=1)
    summary = result.to_dict()
    summary.pop("privacy_rows")
    doc.project.runs.append(RunRecord(id="run-1", kind="sweep", target=mdp_id,
                                      params={"runs": 4}, summary=summary,
                                      mode=result.mode, seed=result.seed))
    gl.record_sweep(doc, mdp_id, result, source="run-1")
    gl.set_budget(doc, f"mdp:{mdp_id}", (100.0, 0.1))
    return doc


def pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True,
                          capture_output=True, text=True).stdout


def test_figure_image_is_drawn_at_print_resolution(qapp, example_doc):
    rep = build_report(sweep_document(example_doc).project)
    fig = rep.figures()[0]
    image = ge.figure_image(fig)
    assert (image.width(), image.height()) == ge.FIGURE_SIZE
    # not blank: the curves put colour on the white background
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 25)
               for y in range(0, image.height(), 25)}
    assert len(colours) > 5


def test_print_html_uses_images_and_page_breaks(example_doc):
    rep = build_report(sweep_document(example_doc).project)
    html = ge.print_html(rep)
    assert html.count('<img src="fig:') == 2 and "<svg" not in html
    assert ge.page_breaks(rep) == ["run-run-1", "ledger"]
    assert '<h2 class="page-break">Privacy ledger' in html


@needs_poppler
def test_pdf_of_the_builtin_project_with_a_sweep(qapp, example_doc, tmp_path):
    rep = build_report(sweep_document(example_doc).project)
    out = tmp_path / "report.pdf"
    seen = []
    pages = ge.render_pdf(rep, out, progress=lambda f, m="": seen.append(f))
    assert out.is_file() and out.read_bytes().startswith(b"%PDF") and pages >= 3
    assert seen[-1] == 1.0 and seen == sorted(seen)
    text = pdf_text(out)
    for title in SECTION_TITLES:
        assert title in text, title
    assert f"page {pages} of {pages}" in text
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(out), str(tmp_path / "page")],
                   check=True, capture_output=True)
    pngs = sorted(tmp_path.glob("page-*.png"))
    assert len(pngs) == pages and all(p.stat().st_size > 2000 for p in pngs)
    assert not list(tmp_path.glob(".*.tmp"))


def test_pdf_to_a_missing_folder_fails_cleanly(qapp, tmp_path):
    rep = build_report(load_project(BUILTIN))
    with pytest.raises(OSError):
        ge.write_pdf(rep, {}, tmp_path / "no" / "r.pdf")
    with pytest.raises(OSError):
        ge.write_pdf(rep, {}, tmp_path)


def test_cancelling_a_pdf_leaves_no_file(qapp, tmp_path):
    rep = build_report(load_project(BUILTIN))
    folder = tmp_path / "out"
    folder.mkdir()
    steps = ge.pdf_steps(rep, {}, folder / "r.pdf")
    next(steps)
    next(steps)
    steps.close()
    assert list(folder.iterdir()) == []


def test_html_export_is_the_core_html(tmp_path, example_doc):
    from core.report.html import to_html

    rep = build_report(sweep_document(example_doc).project)
    out = tmp_path / "r.html"
    assert ge.export_report(rep, out) is None
    assert out.read_text(encoding="utf-8") == to_html(rep)


# --------------------------------------------------------------------------- dialog
@pytest.fixture
def dialog(qtbot, example_doc):
    from gui.report.export_dialog import ExportDialog

    d = ExportDialog(sweep_document(example_doc))
    qtbot.addWidget(d)
    d.show()
    return d


def test_dialog_lists_sections_and_previews(qtbot, dialog):
    assert dialog.selected_sections() == ["overview", "models", "run-run-1", "ledger"]
    items = [dialog.sections.item(i).data(Qt.ItemDataRole.UserRole)
             for i in range(dialog.sections.count())]
    assert items[-1] == "ledger-entries"  # the full per-entry ledger: listed, not ticked
    assert dialog.fmt == "pdf" and dialog.path_edit.text().endswith("-report.pdf")
    html = dialog.preview.toHtml()
    assert "Privacy sweep of four startups" in dialog.preview.toPlainText()
    assert "fig:run-1-values" in html and "run-1-values" in dialog.preview.images
    with qtbot.waitSignal(dialog.preview_updated, timeout=5000):
        dialog.set_sections(["overview", "ledger"])
    text = dialog.preview.toPlainText()
    assert "Privacy ledger" in text and "Privacy sweep of" not in text
    dialog.set_format("html")
    assert dialog.path_edit.text().endswith("-report.html")


def test_dialog_refuses_an_unwritable_path(dialog, tmp_path):
    dialog.set_path(str(tmp_path / "missing" / "r.pdf"))
    assert not dialog.export()
    assert "does not exist" in dialog.path_error.text() and dialog.path_error.isVisible()
    dialog.set_path(str(tmp_path))
    assert not dialog.export() and "must end in .pdf" in dialog.last_error
    (tmp_path / "dir.pdf").mkdir()
    dialog.set_path(str(tmp_path / "dir.pdf"))
    assert not dialog.export() and "is a folder" in dialog.last_error
    dialog.set_path(str(tmp_path / "r.pdf"))
    dialog.set_sections([])
    assert not dialog.export() and "at least one section" in dialog.last_error


@pytest.mark.parametrize("fmt", ["pdf", "html"])
def test_dialog_exports_with_progress(qtbot, dialog, tmp_path, fmt):
    out = tmp_path / f"r.{fmt}"
    dialog.set_format(fmt)
    dialog.set_path(str(out))
    logged = []
    dialog.message_logged.connect(lambda level, text: logged.append((level, text)))
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT) as blocker:
        assert dialog.export()
        assert dialog.progress.isVisible() and not dialog.export_button.isEnabled()
    assert blocker.args == [str(out)] and out.is_file()
    assert not dialog.is_busy and dialog.open_button.isEnabled()
    assert logged and logged[-1][0] == "INFO" and str(out) in logged[-1][1]
    if fmt == "pdf":
        assert dialog.last_pages and dialog.last_pages >= 3


def test_dialog_cancel_writes_nothing(qtbot, dialog, tmp_path):
    out = tmp_path / "r.pdf"
    dialog.set_path(str(out))
    with qtbot.waitSignal(dialog.finished_export, timeout=TIMEOUT) as blocker:
        dialog.export()
        dialog.cancel()
    assert blocker.args == [False] and not out.exists()
    assert "Cancelled" in dialog.status.text()


def test_unsaved_changes_are_said_in_the_metadata(dialog, example_doc):
    assert example_doc.is_dirty  # the budget was set (an undoable edit)
    meta = dialog.build_report().metadata
    assert "unsaved changes" in meta["project file"] and "project SHA-256" not in meta


# --------------------------------------------------------------------------- main window
def test_file_menu_gets_export_report(qtbot, window):
    from gui.report.export_dialog import ExportDialog

    action = getattr(window, "export_report_action", None) or ge.install_export_action(window)
    assert action.shortcut().toString() == "Ctrl+E"
    file_menu = next(a.menu() for a in window.menuBar().actions()
                     if a.text().replace("&", "") == "File")
    assert action in file_menu.actions()
    action.trigger()
    dialog = window.export_dialog
    assert isinstance(dialog, ExportDialog) and dialog.isVisible()
    dialog.close()


# --------------------------------------------------------------------------- command line
@needs_poppler
def test_cli_report_pdf_in_process(qapp, tmp_path, capsys):
    import app

    project = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, project)
    out = tmp_path / "r.pdf"
    assert app.main(["report", str(project), "-o", str(out), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["output"] == str(out) and payload["pages"] >= 1
    text = pdf_text(out)
    assert "no analyses yet" in text and "No releases are recorded" in text


def test_cli_report_pdf_headless_subprocess(tmp_path, example_doc):
    project = tmp_path / "sweep.privplan.json"
    save_project(sweep_document(example_doc).project, project)
    out = tmp_path / "r.pdf"
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, str(ROOT / "app.py"), "report", str(project),
                           "-o", str(out), "--json"], capture_output=True, text=True,
                          env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["pages"] >= 3 and out.is_file()
    bad = subprocess.run([sys.executable, str(ROOT / "app.py"), "report", str(project),
                          "-o", str(tmp_path / "nope" / "r.pdf")], capture_output=True,
                         text=True, env=env, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "does not exist" in bad.stderr


def test_dialog_preview_builds(qtbot):
    from gui.report import export_dialog

    w = export_dialog.preview(exec_=False)
    qtbot.addWidget(w)
    w.show()
    assert w.sections.count() >= 2


def test_advising_runs_recorded_by_the_workspace_have_a_report_section():
    import core.advising.records as advising_results
    from core.advising.framework import run_advising
    from core.advising.presets import preset
    from core.project.model import Project
    from core.report.html import to_html
    res = run_advising(preset("fig32", strategy="dp", epsilon=1.0, epochs=30), rng=3)
    p = Project(name="advising")
    p.runs.append(RunRecord(id="run-1", kind="advise", target="advising-1",
                            params={"ask_budget": 30, "give_budget": 30},
                            summary=advising_results.rounded_json(
                                advising_results.single_summary(res)),
                            mode=res.mode, seed=res.seed))
    rep = build_report(p)
    assert [s.id for s in rep.sections] == ["overview", "run-run-1", "ledger"]
    html = to_html(rep)
    assert "Advising run on fig32" in html and "Convergence ratio vs epoch" in html
    assert "Privacy per teacher (true ε)" in html and html.count("<svg") == 1


def test_dialog_follows_new_runs(qtbot, dialog, example_doc):
    from gui.shell.commands import AddRunCommand

    dialog.set_sections(["overview", "run-run-1", "ledger"])  # models unticked
    run = example_doc.project.runs[0]
    extra = RunRecord(id="run-2", kind="sweep", target=run.target, params=run.params,
                      summary=run.summary, mode=run.mode, seed=run.seed)
    with qtbot.waitSignal(dialog.preview_updated, timeout=5000):
        example_doc.push(AddRunCommand(example_doc, extra))
    assert dialog.selected_sections() == ["overview", "run-run-1", "run-run-2", "ledger"]


def test_advising_experiments_recorded_by_the_workspace_have_a_report_section():
    import core.advising.records as advising_results
    from core.advising.experiments import run_experiment
    from core.advising.presets import experiment_arms
    from core.project.model import Project
    from core.report.html import to_html
    arms = experiment_arms("exp1", epochs=20)
    res = run_experiment(arms, seeds=3, seed=5, workers=1, name="exp1")
    summary = advising_results.rounded_json(advising_results.experiment_summary(res))
    p = Project(name="advising")
    p.runs.append(RunRecord(id="run-1", kind="advise-experiment", target="advising-1",
                            params={"experiment": "Experiment 1"}, summary=summary,
                            mode="experiment", seed=5))
    rep = build_report(p)
    html = to_html(rep)
    assert "Advising exp1 (run-1)" in html and "Arms (means over seeds)" in html
    assert html.count("<svg") == 1 and "Paired comparisons with the first arm" in html


def test_pdf_figures_show_the_data_range_in_the_app_colours(qapp):
    """Issue: the PDF's advising plot had axes to 1800 and 900 (the image size) while the
    data ran 0.25–1.0 over 700 epochs, and arms had other colours than in the app."""
    from core.advising.experiments import run_experiment
    from core.advising.presets import experiment_arms
    from core.advising.records import experiment_summary
    from core.common.palette import arm_colour
    from core.project.model import Project
    from core.report.html import Figure

    res = run_experiment(experiment_arms("exp1", epochs=60), seeds=2, seed=0, workers=1)
    summary = experiment_summary(res)
    p = Project(name="advising")
    p.runs.append(RunRecord(id="run-1", kind="advise-experiment", target="advising-1",
                            params={"run": "exp1", "experiment": "Experiment 1"},
                            summary=summary, mode="experiment", seed=0))
    fig = next(f for f in build_report(p).figures() if f.id == "run-1-convergence")
    assert isinstance(fig, Figure)
    labels = [s.name for s in fig.series]
    assert [s.colour for s in fig.series] == [arm_colour(lab, labels) for lab in labels]
    widget = ge.figure_plot(fig)
    try:
        (x0, x1), (y0, y1) = widget.getPlotItem().getViewBox().viewRange()
        xs = [x for s in fig.series for x in s.x]
        ys = [y for s in fig.series for y in s.y]
        span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
        assert x0 <= min(xs) and x1 >= max(xs) and (x1 - x0) < 1.5 * span_x
        assert y0 <= min(ys) and y1 >= max(ys) and (y1 - y0) < 3.0 * span_y + 0.2
        pens = [c.opts["pen"].color().name().upper() for c in
                widget.getPlotItem().listDataItems()]
        assert pens == [s.colour.upper() for s in fig.series]
    finally:
        widget.deleteLater()


@pytest.mark.parametrize("shape", ["rising", "top-right only", "flat"])
def test_a_figures_legend_never_covers_its_data(qapp, shape):
    """The PDF figures place their legend as the workspaces do: in a corner free of data,
    else beside or under the axes."""
    import numpy as np

    from core.report.model import Figure, Series
    from gui.shell.plots import readability_problems

    x = np.linspace(0.0, 1.0, 30)
    ys = {"rising": [x ** 2, 1.0 - x], "top-right only": [x ** 3, 0.5 * x ** 3],
          "flat": [np.ones(30), np.zeros(30), np.full(30, 0.5)]}[shape]
    fig = Figure("f", shape, "x", "y", tuple(
        Series(f"series {i}", tuple(x.tolist()), tuple(y.tolist())) for i, y in enumerate(ys)))
    widget = ge.figure_plot(fig)
    try:
        legend = widget.getPlotItem().legend
        assert legend is not None and legend.items
        assert readability_problems(widget) == []
    finally:
        widget.deleteLater()
