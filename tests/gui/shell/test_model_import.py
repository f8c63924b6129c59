"""PRISM and Storm models imported from the window: File ▸ Import Model… (the dialog
replaced) and a drop of the files on the window (a QDropEvent with file URLs), each
undoable; a refused file shows the message ``privplan import`` prints for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from core.mdp import four_startups
from core.mdp.interop import write_drn, write_prism


@pytest.fixture
def prism_files(tmp_path: Path) -> list[str]:
    files, _ = write_prism(four_startups(), tmp_path / "startups")
    return [str(f) for f in files]


@pytest.fixture
def drn_file(tmp_path: Path) -> str:
    files, _ = write_drn(four_startups(), tmp_path / "storm")
    return str(files[0])


@pytest.fixture
def errors(monkeypatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical",
                        lambda parent, title, text, *a: shown.append(text))
    return shown


def _mime(paths: list[str]) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(p) for p in paths])
    return mime


def _drop(window, paths: list[str]) -> tuple[bool, bool]:
    """Send a drag-enter and a drop of ``paths``; (enter accepted, drop accepted)."""
    mime = _mime(paths)
    pos = QPointF(window.width() / 2, window.height() / 2)
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    return enter.isAccepted(), drop.isAccepted()


def _check_imported(window, before: int, name: str) -> None:
    doc = window.document
    assert len(doc.project.mdps) == before + 1
    entry = doc.project.mdps[-1]
    ref = four_startups()
    model = entry.model
    assert model.n_states == ref.n_states and name in model.name
    # the same transitions as the model the files were written from
    imported = doc.mdp_entry(entry.id).mdp
    assert imported.transitions.equal(ref.transitions)
    doc.undo_stack.undo()  # one undoable step
    assert len(doc.project.mdps) == before


def test_file_import_reads_prism_files_and_a_storm_drn(window, monkeypatch, prism_files,
                                                        drn_file, errors):
    before = len(window.document.project.mdps)
    chosen: list[list[str]] = [[prism_files[0]], [drn_file]]  # a lone .tra brings its siblings
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        lambda *a, **k: (chosen.pop(0), ""))
    assert "Import Model" in window.import_action.text()
    window.import_action.trigger()
    _check_imported(window, before, "startups")
    assert any(".lab" in line for line in window.log_panel.plain_text().splitlines()
               if "imported" in line)
    window.import_action.trigger()
    _check_imported(window, before, "storm")
    assert not errors


def test_dropping_prism_files_or_a_drn_imports_them(window, prism_files, drn_file, errors):
    before = len(window.document.project.mdps)
    assert _drop(window, prism_files) == (True, True)
    _check_imported(window, before, "startups")
    assert _drop(window, [drn_file]) == (True, True)
    _check_imported(window, before, "storm")
    assert not errors


def test_a_drop_of_other_files_is_refused(window, tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("x")
    before = len(window.document.project.mdps)
    enter_ok, drop_ok = _drop(window, [str(other)])
    assert not enter_ok and not drop_ok
    assert len(window.document.project.mdps) == before


def test_a_refused_file_shows_the_command_lines_message(window, tmp_path, errors, capsys):
    bad = tmp_path / "broken.drn"
    bad.write_text("@type: mdp\n@model\nstate zero\n")
    from core.cli.main import run_cli

    code = run_cli(["import", str(bad), "-o", str(tmp_path / "x.mdp.json")])
    cli_err = capsys.readouterr().err.strip()
    assert code == 2 and cli_err
    before = len(window.document.project.mdps)
    assert _drop(window, [str(bad)]) == (True, True)
    assert len(window.document.project.mdps) == before
    assert len(errors) == 1
    # the dialog says what the command line says, after its "privplan import:" prefix
    assert errors[0] in cli_err and len(errors[0]) > 10, (errors[0], cli_err)
