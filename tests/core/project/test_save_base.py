"""A window that opened a project and edited nothing in its models is not their author.

Opening completes a model stored without a layout with state positions
(core.project.layout.fill_project_layouts). That is not an edit: at the next save a model
another program changed or removed meanwhile is taken from the file — no conflict — while
the window's own edits elsewhere are written, and a real edit of the models by both sides
is still a conflict.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.project.files import load_project, save_project
from core.project.layout import fill_project_layouts
from core.project.model import Project
from core.project.store import ProjectChanged, mark_unedited, save_document

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"


def _open_like_the_window(path: Path) -> Project:
    """What the window's Open does in core: read the file, then lay out its models."""
    project = load_project(path)
    assert fill_project_layouts(project), "the example has models without a layout"
    return project


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, p)
    return p


def test_opening_lays_out_models_but_records_them_as_unedited(path: Path) -> None:
    window = _open_like_the_window(path)
    file_form = load_project(path).origin.sections["mdps"]
    assert window.origin.sections["mdps"] == file_form  # the base is still the file's
    assert set(window.origin.unedited) == {"mdps"}
    assert not window.origin.edited("mdps", window.origin.unedited["mdps"])
    assert window.origin.edited("mdps", "0" * 64)


def test_a_model_another_writer_changed_is_taken_and_the_windows_notes_kept(path: Path
                                                                          ) -> None:
    window = _open_like_the_window(path)
    other = load_project(path)
    first = other.mdps[0]
    first.model.set_settings(name="changed elsewhere")
    save_document(other, path)
    window.notes = "notes of the window"
    window.name = "renamed in the window"
    report = save_document(window, path)
    assert report.adopted == ["mdps"] and report.overwritten == []
    on_disk = load_project(path)
    assert on_disk.mdps[0].model.name == "changed elsewhere"
    assert window.mdps[0].model.name == "changed elsewhere"
    assert (on_disk.notes, on_disk.name) == ("notes of the window", "renamed in the window")


def test_a_model_another_writer_removed_stays_removed(path: Path) -> None:
    window = _open_like_the_window(path)
    ids = [e.id for e in window.mdps]
    assert len(ids) >= 2
    other = load_project(path)
    del other.mdps[-1]
    save_document(other, path)
    window.notes = "notes of the window"
    report = save_document(window, path)
    assert report.adopted == ["mdps"]
    on_disk = load_project(path)
    assert [e.id for e in on_disk.mdps] == [e.id for e in window.mdps] == ids[:-1]
    assert on_disk.notes == "notes of the window"


def test_a_model_both_sides_edited_is_still_a_conflict(path: Path) -> None:
    window = _open_like_the_window(path)
    other = load_project(path)
    other.mdps[0].model.set_settings(name="changed elsewhere")
    save_document(other, path)
    state = window.mdps[0].model.state_ids[0]
    window.mdps[0].model.move_states({state: (123.0, 45.0)})  # the user drags a state
    before = path.read_bytes()
    with pytest.raises(ProjectChanged) as info:
        save_document(window, path)
    assert info.value.sections == ["mdps"] and path.read_bytes() == before
    save_document(window, path, overwrite=True)
    on_disk = load_project(path).mdps[0].model
    assert on_disk.name != "changed elsewhere"
    assert on_disk.position(state) == (123.0, 45.0)


def test_an_edit_undone_back_to_the_opened_form_is_no_edit(path: Path) -> None:
    window = _open_like_the_window(path)
    model = window.mdps[0].model
    old = model.name
    model.set_settings(name="edited")
    model.set_settings(name=old)  # and undone
    other = load_project(path)
    other.mdps[-1].model.set_settings(name="changed elsewhere")
    save_document(other, path)
    assert save_document(window, path).adopted == ["mdps"]
    assert load_project(path).mdps[-1].model.name == "changed elsewhere"


def test_after_a_save_the_written_form_is_the_base(path: Path) -> None:
    window = _open_like_the_window(path)
    save_document(window, path)  # writes the positions: the file's form is the window's now
    assert window.origin.unedited == {}
    assert fill_project_layouts(window) == []
    other = load_project(path)
    other.mdps[0].model.set_settings(name="changed elsewhere")
    save_document(other, path)
    assert save_document(window, path).adopted == ["mdps"]
    assert load_project(path).mdps[0].model.name == "changed elsewhere"


def test_marking_without_a_base_or_without_a_difference_records_nothing(tmp_path: Path
                                                                        ) -> None:
    assert mark_unedited(Project(name="new")) == []
    p = tmp_path / "q.privplan.json"
    save_project(Project(name="q"), p)
    project = load_project(p)
    assert mark_unedited(project) == [] and project.origin.unedited == {}
    project.notes = "derived"
    assert mark_unedited(project, ["notes", "name"]) == ["notes"]
    assert set(project.origin.unedited) == {"notes"}
    other = load_project(p)
    other.notes = "written elsewhere"
    save_document(other, p)
    assert save_document(project, p).adopted == ["notes"]
    assert load_project(p).notes == project.notes == "written elsewhere"
