"""ProjectDocument + commands: push, undo, redo, with the signals they emit."""

from __future__ import annotations

import pytest

from core.mdp.examples import example2, four_startups
from core.project.model import Project, RunRecord
from gui.shell.commands import (
    AddRunCommand,
    RemoveRunCommand,
    RenameProjectCommand,
    ReplaceMdpCommand,
)
from gui.shell.document import ProjectDocument


def _record(doc: ProjectDocument, target: str = "four-startups") -> RunRecord:
    return RunRecord(id=doc.project.new_run_id(), kind="sweep", target=target,
                     params={"ks": [10.0]}, summary={"k": [10.0]}, mode="experiment", seed=7)


def test_rename_push_undo_redo(qtbot, example_doc):
    doc = example_doc
    old = doc.project.name
    assert not doc.is_dirty
    names, dirty = [], []
    doc.name_changed.connect(names.append)
    doc.dirty_changed.connect(dirty.append)
    with qtbot.waitSignals([doc.name_changed, doc.dirty_changed]):
        doc.push(RenameProjectCommand(doc, "Renamed"))
    assert doc.project.name == "Renamed"
    assert doc.is_dirty
    assert names == ["Renamed"] and dirty == [True]
    with qtbot.waitSignal(doc.name_changed) as blocker:
        doc.undo_stack.undo()
    assert blocker.args == [old]
    assert doc.project.name == old
    assert not doc.is_dirty  # back at the clean state
    with qtbot.waitSignal(doc.name_changed):
        doc.undo_stack.redo()
    assert doc.project.name == "Renamed"
    assert doc.undo_stack.undoText() == "Rename project to “Renamed”"


def test_recorded_run_is_not_undone_by_ctrl_z(qtbot, example_doc):
    """a recorded run and its ledger entries are facts, not edits — Ctrl+Z right
    after a run undoes the edit before it and leaves the run and its privacy spend."""
    doc = example_doc
    doc.push(RenameProjectCommand(doc, "Before the run"))
    doc.mark_saved(doc.path or "unused.privplan.json")
    record = _record(doc)
    entry = {"dataset": "mdp:four-startups", "mechanism": "dirichlet", "epsilon": 1.5,
             "delta": 0.0, "mode": "release", "source": record.id, "id": "x"}
    with qtbot.waitSignal(doc.run_added) as blocker:
        doc.push(AddRunCommand(doc, record, ledger_entries=[entry]))
    assert blocker.args == [record.id]
    assert [r.id for r in doc.project.runs] == [record.id]
    assert [e.source for e in doc.project.ledger] == [record.id]
    assert doc.is_dirty  # recorded since the save: unsaved, although no stack moved
    assert doc.undo_stack.undoText() == "Rename project to “Before the run”"
    doc.undo_stack.undo()  # Ctrl+Z: the rename goes, the run and its spend stay
    assert doc.project.name != "Before the run"
    assert doc.run(record.id) is record
    assert [e.epsilon for e in doc.project.ledger] == [1.5]
    doc.push(RemoveRunCommand(doc, record.id))  # explicit removal (Project tree) is undoable
    assert doc.project.runs == []
    assert [e.source for e in doc.project.ledger] == [record.id]  # the spend stays
    doc.undo_stack.undo()
    assert doc.run(record.id) is record


def test_remove_run_restores_position(qtbot, example_doc):
    doc = example_doc
    first, second = _record(doc), None
    doc.push(AddRunCommand(doc, first))
    second = _record(doc)
    doc.push(AddRunCommand(doc, second))
    doc.push(RemoveRunCommand(doc, first.id))
    assert [r.id for r in doc.project.runs] == [second.id]
    doc.undo_stack.undo()
    assert [r.id for r in doc.project.runs] == [first.id, second.id]


def test_duplicate_run_id_is_refused(example_doc):
    record = _record(example_doc)
    example_doc.add_run(record)
    with pytest.raises(ValueError):
        example_doc.add_run(record)


def test_replace_mdp_command(qtbot, example_doc):
    doc = example_doc
    with qtbot.waitSignal(doc.mdp_changed) as blocker:
        doc.push(ReplaceMdpCommand(doc, "four-startups", example2()))
    assert blocker.args == ["four-startups"]
    assert doc.mdp_entry("four-startups").mdp.n_states == 20
    doc.undo_stack.undo()
    assert doc.mdp_entry("four-startups").mdp == four_startups()


def test_replace_project_clears_history(qtbot, example_doc):
    doc = example_doc
    doc.push(RenameProjectCommand(doc, "x"))
    assert doc.undo_stack.count() == 1 and doc.is_dirty
    with qtbot.waitSignals([doc.project_replaced, doc.dirty_changed]):
        doc.replace_project(Project(name="fresh"))
    assert doc.undo_stack.count() == 0
    assert not doc.is_dirty
    assert doc.path is None
    assert doc.display_name == "fresh"


def test_mark_saved(qtbot, example_doc, tmp_path):
    doc = example_doc
    doc.push(RenameProjectCommand(doc, "x"))
    target = tmp_path / "p.privplan.json"
    with qtbot.waitSignals([doc.dirty_changed, doc.path_changed]):
        doc.mark_saved(target)
    assert not doc.is_dirty and doc.path == str(target)
    doc.undo_stack.undo()
    assert doc.is_dirty


# ---------------------------------------------------------------------- MDP editing commands
from core.mdp.editable import MdpModel  # noqa: E402
from gui.shell.commands import (  # noqa: E402
    AddActionCommand,
    AddMdpCommand,
    AddStateCommand,
    MoveStatesCommand,
    NormaliseRowsCommand,
    RemoveItemsCommand,
    RemoveMdpCommand,
    RenameItemCommand,
    SetMdpSettingsCommand,
    SetProbabilityCommand,
    SetRewardCommand,
    SetTerminalRewardCommand,
    connect_probability,
)


@pytest.fixture
def blank_doc():
    project = Project(name="drawing")
    project.add_mdp(MdpModel(name="blank", horizon=2), "m")
    return ProjectDocument(project)


def test_add_state_and_action_undo_redo_keep_ids(qtbot, blank_doc):
    doc = blank_doc
    with qtbot.waitSignal(doc.mdp_changed) as blocker:
        add = AddStateCommand(doc, "m", (10.0, 20.0))
        doc.push(add)
    assert blocker.args == ["m"]
    sid = add.state_id
    model = doc.model("m")
    assert model.state_ids == [sid] and model.position(sid) == (10.0, 20.0)
    assert model.initial_state == sid and doc.undo_stack.undoText() == "Add state “s0”"
    act = AddActionCommand(doc, "m", sid)
    doc.push(act)
    aid = act.action_id
    assert model.action_ids == [[aid]]
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert model.n_states == 0 and model.initial_state is None
    doc.undo_stack.redo()
    doc.undo_stack.redo()
    assert model.state_ids == [sid] and model.action_ids == [[aid]]  # same ids again


def test_problems_are_cached_per_version(blank_doc):
    doc = blank_doc
    first = doc.problems("m")
    assert doc.problems("m") is first
    assert doc.summary("m").startswith("model invalid: the model has no states")
    doc.push(AddStateCommand(doc, "m", (0, 0)))
    assert doc.problems("m") is not first
    assert "has no actions" in doc.summary("m") and not doc.is_valid("m")


def _three(doc):
    ids = []
    for i in range(3):
        c = AddStateCommand(doc, "m", (100.0 * i, 0.0))
        doc.push(c)
        ids.append(c.state_id)
    acts = []
    for s in ids:
        c = AddActionCommand(doc, "m", s)
        doc.push(c)
        acts.append(c.action_id)
    return ids, acts


def test_probabilities_rewards_and_normalise(qtbot, blank_doc):
    doc = blank_doc
    (a, b, c), (go, sb, sc) = _three(doc)
    model = doc.model("m")
    assert connect_probability(model, go, b) == 1.0  # an empty row takes all of it
    doc.push(SetProbabilityCommand(doc, "m", go, b, 0.6))
    assert connect_probability(model, go, c) == pytest.approx(0.4)
    doc.push(SetProbabilityCommand(doc, "m", go, c, 0.2))
    (p,) = [p for p in doc.errors("m") if p.action == go]
    assert p.deficit == pytest.approx(0.2)
    doc.push(NormaliseRowsCommand(doc, "m", [go]))
    assert model.row(go) == pytest.approx({b: 0.75, c: 0.25})
    doc.undo_stack.undo()
    assert model.row(go) == pytest.approx({b: 0.6, c: 0.2})
    doc.push(SetRewardCommand(doc, "m", go, -1.5))
    doc.push(SetTerminalRewardCommand(doc, "m", b, 10.0))
    assert model.reward(go) == -1.5 and model.terminal_reward(b) == 10.0
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert model.reward(go) == 0.0 and model.terminal_reward(b) == 0.0
    assert connect_probability(model, go, a) == pytest.approx(0.2)
    doc.push(SetProbabilityCommand(doc, "m", go, a, 0.2))
    assert connect_probability(model, sb, a) == 1.0
    doc.push(SetProbabilityCommand(doc, "m", sb, b, 1.0))
    assert connect_probability(model, sb, a) == 0.1  # a full row: flagged, then normalised


def test_remove_items_is_one_step_and_undo_restores_everything(qtbot, blank_doc):
    doc = blank_doc
    (a, b, c), (go, sb, sc) = _three(doc)
    doc.push(SetProbabilityCommand(doc, "m", go, b, 0.5))
    doc.push(SetProbabilityCommand(doc, "m", go, c, 0.5))
    model = doc.model("m")
    before = model.to_dict()
    cmd = RemoveItemsCommand(doc, "m", [c], [sb], [(go, b)])
    assert cmd.text() == "Delete state “s2”, action “a0”, 1 transition"
    doc.push(cmd)
    assert model.state_ids == [a, b] and model.action_ids == [[go], []]
    assert model.row(go) == {}  # the transition to b and the one to the removed c are gone
    doc.undo_stack.undo()
    assert model.to_dict() == before
    doc.undo_stack.redo()
    assert model.state_ids == [a, b]


def test_move_rename_settings(qtbot, blank_doc):
    doc = blank_doc
    (a, b, c), _ = _three(doc)
    model = doc.model("m")
    with qtbot.waitSignal(doc.states_moved) as blocker:
        doc.push(MoveStatesCommand(doc, "m", {a: (5.0, 6.0), b: (7.0, 8.0)}))
    assert blocker.args == ["m", [a, b]]
    assert doc.undo_stack.undoText() == "Move 2 states"
    doc.undo_stack.undo()
    assert model.position(a) == (0.0, 0.0)
    doc.push(RenameItemCommand(doc, "m", a, "start"))
    assert model.label(a) == "start" and "“s0” to “start”" in doc.undo_stack.undoText()
    doc.push(SetMdpSettingsCommand(doc, "m", initial_state=b))
    assert model.initial_state == b and doc.undo_stack.undoText() == "Make “s1” the initial state"
    doc.push(SetMdpSettingsCommand(doc, "m", horizon=None, discount=0.9))
    assert model.horizon is None and model.discount == 0.9
    doc.undo_stack.undo()
    assert model.horizon == 2 and model.discount == 1.0


def test_add_and_remove_mdp(qtbot, blank_doc):
    doc = blank_doc
    with qtbot.waitSignal(doc.mdp_added) as blocker:
        cmd = AddMdpCommand(doc, MdpModel(name="second"))
        doc.push(cmd)
    assert blocker.args == [cmd.mdp_id] and cmd.mdp_id == "mdp-1"
    with qtbot.waitSignal(doc.mdp_removed):
        doc.push(RemoveMdpCommand(doc, "m"))
    assert [e.id for e in doc.project.mdps] == ["mdp-1"]
    doc.undo_stack.undo()
    assert [e.id for e in doc.project.mdps] == ["m", "mdp-1"]  # back in its place
