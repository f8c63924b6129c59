"""Undoable edits of the project: every change a user makes is one of these commands.

Each command calls :class:`gui.shell.document.ProjectDocument` mutation methods in ``redo``
and their inverse in ``undo``; nothing else in the GUI mutates a project.

MDP edits keep what they need to undo: the old value (a probability, a reward, a name,
old positions, old rows) or, for deletions, a snapshot of the model taken just before
(``model.copy()``). Commands that create states or actions remember the ids they got
the first time, so redo recreates the very same ids (later commands refer to them).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtGui import QUndoCommand

from core.mdp import MDP, MdpModel
from core.project import MdpEntry, RunRecord

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["DocumentCommand", "RenameProjectCommand", "AddRunCommand", "RemoveRunCommand",
           "ReplaceMdpCommand", "AddMdpCommand", "RemoveMdpCommand", "AddStateCommand",
           "AddActionCommand", "RemoveItemsCommand", "RenameItemCommand", "MoveStatesCommand",
           "SetProbabilityCommand", "NormaliseRowsCommand", "SetRewardCommand",
           "SetTerminalRewardCommand", "SetMdpSettingsCommand", "connect_probability"]


class DocumentCommand(QUndoCommand):
    """A command on the document, which it holds weakly.

    The undo stacks own their commands and the document owns its stacks: a strong reference
    back would make every document a reference cycle, left to the garbage collector, which
    tears PySide objects apart in an order Qt does not survive (a crash at collection).
    With a weak reference a document is freed as soon as the last window lets go of it.

    ``section`` names the project section (:data:`core.project.snapshot.SECTIONS`) the
    command edits, None for none (a recorded run, its ledger entries). When a save takes
    that section from the file another program changed
    (:meth:`ProjectDocument.adopt_merged`), the command is made obsolete: undoing or
    redoing it would put back a value the file no longer holds, so Qt drops it instead.
    """

    section: str | None = None

    @property
    def _document(self) -> "ProjectDocument":
        doc = self._document_ref()
        if doc is None:
            raise RuntimeError("the document of this command is gone")
        return doc

    @_document.setter
    def _document(self, document: "ProjectDocument") -> None:
        self._document_ref = weakref.ref(document)


class RenameProjectCommand(DocumentCommand):
    section = "name"

    def __init__(self, document: "ProjectDocument", name: str,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Rename project to “{name}”", parent)
        self._document = document
        self._old = document.project.name
        self._new = name

    def redo(self) -> None:
        self._document.set_project_name(self._new)

    def undo(self) -> None:
        self._document.set_project_name(self._old)


class AddRunCommand(DocumentCommand):
    """Record a finished run (its parameters and summary) in the project: the one command
    every workspace uses.

    With ``ledger_entries`` the same undo step also appends the run's privacy-ledger
    entries (through :class:`gui.shell.ledger.AddLedgerEntriesCommand`: fresh ``rel-N``
    ids, ``ledger_changed``), which this command owns and drives itself (not a Qt child
    command: PySide and parented QUndoCommands do not mix well when the stack is
    garbage-collected). ``text`` names the step (default "Record KIND ID").
    :meth:`ProjectDocument.push` does it outside every undo stack (a recorded run and its
    privacy spend are facts, not edits); ``undo`` serves tests and nested use only.
    """

    def __init__(self, document: "ProjectDocument", record: RunRecord,
                 parent: QUndoCommand | None = None, *, text: str | None = None,
                 ledger_entries: "Iterable[Any]" = ()) -> None:
        super().__init__(text or f"Record {record.kind} {record.id}", parent)
        from gui.shell.ledger import AddLedgerEntriesCommand

        self._document = document
        self._record = record
        entries = list(ledger_entries)
        self._ledger = AddLedgerEntriesCommand(document, entries) if entries else None

    @property
    def record(self) -> RunRecord:
        return self._record

    @property
    def ledger_entries(self) -> list[dict[str, Any]]:
        """The ledger entries as stored (with their project-ledger ids)."""
        return [] if self._ledger is None else [e.to_dict() for e in self._ledger.entries]

    def redo(self) -> None:
        if self._ledger is not None:
            self._ledger.redo()
        self._document.add_run(self._record)

    def undo(self) -> None:
        self._document.remove_run(self._record.id)
        if self._ledger is not None:
            self._ledger.undo()


class RemoveRunCommand(DocumentCommand):
    def __init__(self, document: "ProjectDocument", run_id: str,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Remove run {run_id}", parent)
        self._document = document
        self._run_id = run_id
        self._index: int | None = None
        self._record: RunRecord | None = None

    def redo(self) -> None:
        self._index, self._record = self._document.remove_run(self._run_id)

    def undo(self) -> None:
        assert self._record is not None
        self._document.add_run(self._record, self._index)


class ReplaceMdpCommand(DocumentCommand):
    """Swap the whole model of one MDP entry for a validated MDP (undo restores a snapshot)."""

    section = "mdps"

    def __init__(self, document: "ProjectDocument", mdp_id: str, mdp: MDP,
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        super().__init__(text or f"Change MDP {mdp_id}", parent)
        self._document = document
        self._mdp_id = mdp_id
        self._new = mdp
        self._old: MdpModel = document.model(mdp_id).copy()

    def redo(self) -> None:
        self._document.set_mdp(self._mdp_id, self._new)

    def undo(self) -> None:
        self._document.restore_model(self._mdp_id, self._old)


class AddMdpCommand(DocumentCommand):
    """Add an MDP (a new blank one, an imported file, a duplicate) to the project."""

    section = "mdps"

    def __init__(self, document: "ProjectDocument", model: MdpModel, mdp_id: str | None = None,
                 note: str = "", text: str = "", parent: QUndoCommand | None = None) -> None:
        taken = {e.id for e in document.project.mdps}
        if mdp_id is None or mdp_id in taken:
            i = 1
            while f"mdp-{i}" in taken:
                i += 1
            mdp_id = f"mdp-{i}"
        super().__init__(text or f"Add MDP “{model.name}”", parent)
        self._document = document
        self._entry = MdpEntry(mdp_id, model, note)

    @property
    def mdp_id(self) -> str:
        return self._entry.id

    def redo(self) -> None:
        self._document.add_mdp(self._entry)

    def undo(self) -> None:
        self._document.remove_mdp(self._entry.id)


class RemoveMdpCommand(DocumentCommand):
    section = "mdps"

    def __init__(self, document: "ProjectDocument", mdp_id: str,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Delete MDP “{document.model(mdp_id).name or mdp_id}”", parent)
        self._document = document
        self._mdp_id = mdp_id
        self._index = 0
        self._entry: MdpEntry | None = None

    def redo(self) -> None:
        self._index, self._entry = self._document.remove_mdp(self._mdp_id)

    def undo(self) -> None:
        assert self._entry is not None
        self._document.add_mdp(self._entry, self._index)


class _MdpCommand(DocumentCommand):
    section = "mdps"

    def __init__(self, document: "ProjectDocument", mdp_id: str, text: str,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(text, parent)
        self._document = document
        self._mdp_id = mdp_id

    @property
    def mdp_id(self) -> str:
        return self._mdp_id

    @property
    def _model(self) -> MdpModel:
        return self._document.model(self._mdp_id)


class AddStateCommand(_MdpCommand):
    """Add a state at ``pos`` (the label defaults to the next free "s<i>")."""

    def __init__(self, document: "ProjectDocument", mdp_id: str,
                 pos: tuple[float, float] | None, label: str | None = None,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(document, mdp_id, "Add state", parent)
        self._pos = None if pos is None else (float(pos[0]), float(pos[1]))
        self._label = label
        self._state_id: str | None = None

    @property
    def state_id(self) -> str | None:
        return self._state_id

    def redo(self) -> None:
        self._state_id = self._document.add_state(self._mdp_id, self._label, self._pos,
                                                  state_id=self._state_id)
        if self._label is None:
            self._label = self._model.label(self._state_id)
            self.setText(f"Add state “{self._label}”")

    def undo(self) -> None:
        assert self._state_id is not None
        self._document.remove_items(self._mdp_id, [self._state_id])


class AddActionCommand(_MdpCommand):
    """Add an action to a state (an empty row: its probabilities are entered next)."""

    def __init__(self, document: "ProjectDocument", mdp_id: str, state_id: str,
                 label: str | None = None, parent: QUndoCommand | None = None) -> None:
        super().__init__(document, mdp_id, "Add action", parent)
        self._state_id = state_id
        self._label = label
        self._action_id: str | None = None

    @property
    def action_id(self) -> str | None:
        return self._action_id

    def redo(self) -> None:
        self._action_id = self._document.add_action(self._mdp_id, self._state_id, self._label,
                                                    action_id=self._action_id)
        if self._label is None:
            self._label = self._model.label(self._action_id)
            self.setText(f"Add action “{self._label}” to “{self._model.label(self._state_id)}”")

    def undo(self) -> None:
        assert self._action_id is not None
        self._document.remove_items(self._mdp_id, action_ids=[self._action_id])


class RemoveItemsCommand(_MdpCommand):
    """Delete states, actions and transitions in one step (undo restores a snapshot)."""

    def __init__(self, document: "ProjectDocument", mdp_id: str,
                 state_ids: Iterable[str] = (), action_ids: Iterable[str] = (),
                 transitions: Iterable[tuple[str, str]] = (),
                 parent: QUndoCommand | None = None) -> None:
        self._states = list(dict.fromkeys(state_ids))
        self._actions = list(dict.fromkeys(action_ids))
        self._transitions = list(dict.fromkeys(transitions))
        model = document.model(mdp_id)
        parts = []
        for ids, one, many in ((self._states, "state", "states"),
                               (self._actions, "action", "actions"),
                               ([a for a, _ in self._transitions], "transition",
                                "transitions")):
            if len(ids) == 1 and one != "transition":
                parts.append(f"{one} “{model.label(ids[0])}”")
            elif ids:
                parts.append(f"{len(ids)} {many if len(ids) > 1 else one}")
        super().__init__(document, mdp_id, "Delete " + (", ".join(parts) or "nothing"), parent)
        self._snapshot: MdpModel | None = None

    @property
    def is_empty(self) -> bool:
        return not (self._states or self._actions or self._transitions)

    def redo(self) -> None:
        self._snapshot = self._model.copy()
        self._document.remove_items(self._mdp_id, self._states, self._actions,
                                    self._transitions)

    def undo(self) -> None:
        assert self._snapshot is not None
        self._document.restore_model(self._mdp_id, self._snapshot)
        self._snapshot = None


class RenameItemCommand(_MdpCommand):
    """Rename a state or an action."""

    def __init__(self, document: "ProjectDocument", mdp_id: str, item_id: str, label: str,
                 parent: QUndoCommand | None = None) -> None:
        old = document.model(mdp_id).label(item_id)
        kind = "state" if item_id in document.model(mdp_id).state_ids else "action"
        super().__init__(document, mdp_id, f"Rename {kind} “{old}” to “{label}”", parent)
        self._item_id = item_id
        self._old, self._new = old, str(label)

    def redo(self) -> None:
        self._document.set_label(self._mdp_id, self._item_id, self._new)

    def undo(self) -> None:
        self._document.set_label(self._mdp_id, self._item_id, self._old)


class MoveStatesCommand(_MdpCommand):
    """Move states (a finished drag, an automatic layout): old and new positions."""

    def __init__(self, document: "ProjectDocument", mdp_id: str,
                 new: Mapping[str, tuple[float, float]], text: str = "",
                 parent: QUndoCommand | None = None) -> None:
        model = document.model(mdp_id)
        n = len(new)
        super().__init__(document, mdp_id, text or (
            f"Move state “{model.label(next(iter(new)))}”" if n == 1 else f"Move {n} states"),
            parent)
        self._new = {sid: (float(p[0]), float(p[1])) for sid, p in new.items()}
        self._old = {sid: model.position(sid) for sid in new}

    def redo(self) -> None:
        self._document.move_states(self._mdp_id, self._new)

    def undo(self) -> None:
        self._document.move_states(self._mdp_id, self._old)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


class SetProbabilityCommand(_MdpCommand):
    """Set P(target | state, action) = p (0 removes the transition)."""

    def __init__(self, document: "ProjectDocument", mdp_id: str, action_id: str,
                 target_id: str, p: float, text: str = "",
                 parent: QUndoCommand | None = None) -> None:
        model = document.model(mdp_id)
        s, j = model.action_index(action_id)
        t = model.state_index(target_id)
        where = (f"{model.state_labels[s]}, {model.action_labels[s][j]} → "
                 f"{model.state_labels[t]}")
        super().__init__(document, mdp_id, text or f"Set p({where}) = {_fmt(p)}", parent)
        self._action_id, self._target_id = action_id, target_id
        self._old = float(model.P[s, j, t])
        self._new = float(p)

    def redo(self) -> None:
        self._document.set_probability(self._mdp_id, self._action_id, self._target_id,
                                       self._new)

    def undo(self) -> None:
        self._document.set_probability(self._mdp_id, self._action_id, self._target_id,
                                       self._old)


def connect_probability(model: MdpModel, action_id: str, target_id: str) -> float:
    """The probability a new transition starts with: what the row still misses, or 0.1
    when the row is already full (the row is then flagged, and one click normalises it)."""
    s, j = model.action_index(action_id)
    t = model.state_index(target_id)
    if model.P[s, j, t] > 0:
        return float(model.P[s, j, t])
    missing = 1.0 - float(np.nansum(model.P[s, j]))
    return round(missing, 12) if missing > 1e-9 else 0.1


class NormaliseRowsCommand(_MdpCommand):
    """Scale rows to sum to 1 (the one-click fix for a deficit)."""

    def __init__(self, document: "ProjectDocument", mdp_id: str, action_ids: Iterable[str],
                 parent: QUndoCommand | None = None) -> None:
        model = document.model(mdp_id)
        self._ids = list(dict.fromkeys(action_ids))
        self._old = {}
        for aid in self._ids:
            s, j = model.action_index(aid)
            self._old[aid] = model.P[s, j].copy()
        text = (f"Normalise “{model.label(self._ids[0])}”" if len(self._ids) == 1
                else f"Normalise {len(self._ids)} rows")
        super().__init__(document, mdp_id, text, parent)

    def redo(self) -> None:
        self._document.normalise_rows(self._mdp_id, self._ids)

    def undo(self) -> None:
        self._document.set_rows(self._mdp_id, self._old)


class SetRewardCommand(_MdpCommand):
    def __init__(self, document: "ProjectDocument", mdp_id: str, action_id: str, value: float,
                 parent: QUndoCommand | None = None) -> None:
        model = document.model(mdp_id)
        super().__init__(document, mdp_id, f"Set reward of “{model.label(action_id)}” to "
                                           f"{_fmt(value)}", parent)
        self._action_id = action_id
        self._old, self._new = model.reward(action_id), float(value)

    def redo(self) -> None:
        self._document.set_reward(self._mdp_id, self._action_id, self._new)

    def undo(self) -> None:
        self._document.set_reward(self._mdp_id, self._action_id, self._old)


class SetTerminalRewardCommand(_MdpCommand):
    def __init__(self, document: "ProjectDocument", mdp_id: str, state_id: str, value: float,
                 parent: QUndoCommand | None = None) -> None:
        model = document.model(mdp_id)
        super().__init__(document, mdp_id, f"Set terminal reward of “{model.label(state_id)}” "
                                           f"to {_fmt(value)}", parent)
        self._state_id = state_id
        self._old, self._new = model.terminal_reward(state_id), float(value)

    def redo(self) -> None:
        self._document.set_terminal_reward(self._mdp_id, self._state_id, self._new)

    def undo(self) -> None:
        self._document.set_terminal_reward(self._mdp_id, self._state_id, self._old)


_SETTING_TEXT = {"horizon": "horizon", "discount": "discount", "initial_state": "initial state",
                 "name": "name"}


class SetMdpSettingsCommand(_MdpCommand):
    """Change horizon (None = infinite), discount, initial state or name of an MDP."""

    def __init__(self, document: "ProjectDocument", mdp_id: str, text: str = "",
                 parent: QUndoCommand | None = None, **changes: Any) -> None:
        model = document.model(mdp_id)
        unknown = set(changes) - set(_SETTING_TEXT)
        if unknown:
            raise TypeError(f"unknown settings {sorted(unknown)}")
        if not text:
            key, value = next(iter(changes.items()))
            if key == "initial_state":
                text = f"Make “{model.label(value)}” the initial state"
            elif key == "horizon" and value is None:
                text = "Make the horizon infinite"
            else:
                text = "Set " + ", ".join(
                    f"{_SETTING_TEXT[k]} to {_fmt(v) if k == 'discount' else v}"
                    for k, v in changes.items())
        super().__init__(document, mdp_id, text, parent)
        self._new = dict(changes)
        self._old = {k: getattr(model, k) for k in changes}

    def redo(self) -> None:
        self._apply(self._new)

    def undo(self) -> None:
        self._apply(self._old)

    def _apply(self, values: dict[str, Any]) -> None:
        self._document.set_settings(self._mdp_id, **values)
