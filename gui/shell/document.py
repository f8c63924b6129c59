"""The open project as seen by the GUI: a :class:`core.project.model.Project` plus undo and signals.

Views connect to the signals and read ``document.project``; they never keep their own
authoritative copy. The mutation methods below are called by the commands in
:mod:`gui.shell.commands`, which is how every user edit becomes undoable.
:meth:`ProjectDocument.replace_project` (File ▸ New / Open) is the one non-undoable change:
it starts a fresh history.

Undo history: one :class:`QUndoStack` per workspace, in one :class:`QUndoGroup`
(:attr:`ProjectDocument.undo_group`). A workspace pushes on its own stack
(``document.push(command, key)``: ``"mdp:<id>"`` for everything done to one MDP,
``"logistics"``, ``"advising"``, ``"audit"``, ``"ledger"``, ``"plan"``), and project-level
actions (add/remove a model, rename the project) on ``"project"``. The window makes the
current tab's stack the group's active one, so Edit ▸ Undo and Ctrl+Z never reach into
another tab. Recorded runs and privacy-ledger entries are not edits: they go into the
project outside the undo history (:meth:`ProjectDocument.record`), so Ctrl+Z never
un-spends a release. A run is removed (Project tree, undoable) on the stack of the tab that
recorded it, and its ledger entries stay; removing a model clears that model's stack (its
edits cannot be undone once the model is gone). The document is dirty while any stack is
away from its clean state or something was recorded since the last save.

Editable MDPs (:class:`core.mdp.editable.MdpModel`) change through the ``add_state`` …
``set_settings`` methods. Each emits ``mdp_changed(mdp_id)`` (content: states, actions,
probabilities, rewards, names, settings) or ``states_moved(mdp_id, state_ids)`` (positions
only, so a canvas moves items instead of redrawing). :meth:`problems` caches the model's
problems per version, so the status bar, the inspector and the analysis panel share one
validation per edit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QUndoCommand, QUndoGroup, QUndoStack

from core.mdp import MDP, MdpModel, Problem
from core.project import MdpEntry, Project, RunRecord

__all__ = ["ProjectDocument", "PROJECT_STACK", "mdp_stack_key"]

#: The undo stack of project-level actions.
PROJECT_STACK = "project"


def mdp_stack_key(mdp_id: str) -> str:
    """The undo stack of everything done to one MDP (edits, settings, its runs)."""
    return f"mdp:{mdp_id}"


class ProjectDocument(QObject):
    """Wraps a :class:`Project` with a :class:`QUndoStack`, its file path and a dirty flag."""

    project_replaced = Signal()
    dirty_changed = Signal(bool)
    path_changed = Signal(str)
    name_changed = Signal(str)
    run_added = Signal(str)
    run_removed = Signal(str)
    mdp_changed = Signal(str)  # the content of one MDP changed
    states_moved = Signal(str, list)  # mdp id, ids of the states whose position changed
    mdp_added = Signal(str)
    mdp_removed = Signal(str)
    # the tool documents: one signal per kind of change (replacing a whole project emits
    # project_replaced and the two ledger signals)
    map_changed = Signal(int)  # index into Project.maps (created, replaced or removed)
    advising_changed = Signal(int)  # index into Project.advising (created, replaced, removed)
    grid_changed = Signal(int)  # index into Project.grids (created, replaced or removed)
    ledger_changed = Signal()  # entries of Project.ledger added or removed
    budgets_changed = Signal()  # Project.budgets edited
    plans_changed = Signal(str)  # name of the plan of Project.plans stored, replaced or removed
    history_changed = Signal()  # any undo stack moved (push, undo, redo, clear)
    # sections a save took from the file (another program changed them), and how many undo
    # steps that edited them were dropped (see adopt_merged)
    sections_taken = Signal(list, int)

    def __init__(self, project: Project | None = None, path: str | Path | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project if project is not None else Project()
        self._path = str(path) if path else None
        self._dirty = False
        self._force_dirty = False
        self._group = QUndoGroup(self)
        self._stacks: dict[str, QUndoStack] = {}
        self._last_key = PROJECT_STACK
        self._run_stacks: dict[str, str] = {}  # run id -> key of the stack that added it
        self._history = 0
        self.stack(PROJECT_STACK)
        self._problems: dict[str, tuple[MdpModel, int, list[Problem]]] = {}
        self._digests: dict[str, tuple[MdpModel, int, str]] = {}

    # ------------------------------------------------------------------ read access
    @property
    def project(self) -> Project:
        """The project. Read it freely; change it only through commands."""
        return self._project

    @property
    def undo_group(self) -> QUndoGroup:
        """Every stack of the document; its active stack is the current tab's."""
        return self._group

    def stack(self, key: str) -> QUndoStack:
        """The undo stack ``key`` (created on first use)."""
        st = self._stacks.get(key)
        if st is None:
            st = QUndoStack(self)
            self._stacks[key] = st
            self._group.addStack(st)
            # declared slots: Qt drops these connections when the document is destroyed,
            # before its stacks are (a plain Python callable would be called half-dead)
            st.cleanChanged.connect(self._on_stack_clean_changed)
            st.indexChanged.connect(self._on_history_moved)
        return st

    def stacks(self) -> dict[str, QUndoStack]:
        """Every stack made so far, by key."""
        return dict(self._stacks)

    def set_active_stack(self, key: str) -> None:
        """Make stack ``key`` the group's active one (the window calls this per tab)."""
        self._group.setActiveStack(self.stack(key))

    @property
    def undo_stack(self) -> QUndoStack:
        """The active stack, else the one pushed to last (a panel used on its own)."""
        active = self._group.activeStack()
        return active if active is not None else self.stack(self._last_key)

    def history_version(self) -> int:
        """A number that changes whenever any stack moves (autosave compares it)."""
        return self._history

    @property
    def path(self) -> str | None:
        """The ``*.privplan.json`` file this project was loaded from or saved to, if any."""
        return self._path

    @property
    def is_dirty(self) -> bool:
        return self._dirty

    @property
    def display_name(self) -> str:
        return self._project.name or "Untitled"

    def has_mdp(self, mdp_id: str) -> bool:
        return any(e.id == mdp_id for e in self._project.mdps)

    def mdp_entry(self, mdp_id: str) -> MdpEntry:
        for e in self._project.mdps:
            if e.id == mdp_id:
                return e
        raise KeyError(mdp_id)

    def model(self, mdp_id: str) -> MdpModel:
        """The editable model of an MDP (read it; change it only through commands)."""
        return self.mdp_entry(mdp_id).model

    def problems(self, mdp_id: str) -> list[Problem]:
        """``model.problems()``, computed once per model version."""
        model = self.model(mdp_id)
        cached = self._problems.get(mdp_id)
        if cached is None or cached[0] is not model or cached[1] != model.version:
            cached = (model, model.version, model.problems())
            self._problems[mdp_id] = cached
        return cached[2]

    def errors(self, mdp_id: str) -> list[Problem]:
        return [p for p in self.problems(mdp_id) if p.severity == "error"]

    def is_valid(self, mdp_id: str) -> bool:
        return not self.errors(mdp_id)

    def summary(self, mdp_id: str) -> str:
        """One line for the status bar: "model valid ✓ (…)" or the first problem."""
        return self.model(mdp_id).summary(self.problems(mdp_id))

    def digest(self, mdp_id: str) -> str:
        """``model.digest()``, computed once per model version."""
        model = self.model(mdp_id)
        cached = self._digests.get(mdp_id)
        if cached is None or cached[0] is not model or cached[1] != model.version:
            cached = (model, model.version, model.digest())
            self._digests[mdp_id] = cached
        return cached[2]

    def note_digest(self, mdp_id: str, version: int, digest: str) -> None:
        """Remember a digest computed elsewhere (a worker) for the model at ``version``."""
        if self.has_mdp(mdp_id) and self.model(mdp_id).version == version:
            self._digests[mdp_id] = (self.model(mdp_id), version, digest)

    def run(self, run_id: str) -> RunRecord:
        for r in self._project.runs:
            if r.id == run_id:
                return r
        raise KeyError(run_id)

    # ------------------------------------------------------------------ whole-document changes
    def push(self, command: QUndoCommand, key: str = PROJECT_STACK) -> None:
        """Do ``command`` and put it on undo stack ``key`` (see the module docstring).

        A recorded run (:class:`~gui.shell.commands.AddRunCommand`) and ledger entries
        (:class:`~gui.shell.ledger.AddLedgerEntriesCommand`) are done but kept off the edit
        stack (:meth:`record`): they state what happened — a release cannot be un-spent —, so
        Ctrl+Z never takes them back.
        """
        from gui.shell.commands import AddRunCommand
        from gui.shell.ledger import AddLedgerEntriesCommand

        self._last_key = key
        if isinstance(command, AddRunCommand):
            self._run_stacks[command.record.id] = key
        if isinstance(command, (AddRunCommand, AddLedgerEntriesCommand)):
            self.record(command)
            return
        self.stack(key).push(command)

    def record(self, command: QUndoCommand) -> None:
        """Do ``command`` outside every undo stack: a fact recorded, not an edit.

        The project becomes unsaved (until the next save) and the history version moves
        (autosave sees it). A recorded run is removed only by an explicit Remove run in the
        Project tree, which keeps its ledger entries.
        """
        command.redo()
        self._force_dirty = True
        self._set_dirty(True)
        self._history += 1
        self.history_changed.emit()

    def run_stack_key(self, run_id: str) -> str:
        """The key of the stack that recorded run ``run_id`` (``"project"`` if unknown)."""
        return self._run_stacks.get(run_id, PROJECT_STACK)

    def replace_project(self, project: Project, path: str | Path | None = None, *,
                        problems: dict[str, tuple[int, list[Problem]]] | None = None) -> None:
        """Swap in another project (New/Open). Clears the undo history; not undoable.

        ``problems`` (mdp id -> (model version, problems)) are validations already done,
        for instance in the worker that read a large file.
        """
        for st in self._stacks.values():
            st.clear()
        self._run_stacks.clear()
        self._project = project
        self._problems.clear()
        self._digests.clear()
        for mdp_id, (version, found) in (problems or {}).items():
            if self.has_mdp(mdp_id) and self.model(mdp_id).version == version:
                self._problems[mdp_id] = (self.model(mdp_id), version, list(found))
        self._set_path(str(path) if path else None)
        self._set_all_clean()
        self.project_replaced.emit()
        self.ledger_changed.emit()
        self.budgets_changed.emit()

    def mark_saved(self, path: str | Path) -> None:
        """Record a successful save to ``path``: the current state becomes the clean one."""
        self._set_path(str(path))
        self._set_all_clean()

    def adopt_merged(self, run_ids: Iterable[str], ledger_ids: Iterable[str],
                     sections: Iterable[str] = (), before: Mapping[str, Any] | None = None
                     ) -> int:
        """Announce what a save merged in from another writer: runs and ledger entries (a
        command's ``--record`` while the window was open) and whole ``sections`` another
        program changed that this window had not (core.project.store.SaveReport.adopted).
        They are on disk and in the project now, outside the undo history.

        ``before`` maps each adopted section to the project's value before the save (the
        store replaces a section, never edits it in place): models that went away are
        announced removed and their undo stacks cleared, since their edits refer to a model
        another program replaced.

        Every undo step of any stack that edited an adopted section (its command's
        ``section``, :class:`gui.shell.commands.DocumentCommand`) is made obsolete: undoing
        an older rename after the file's name was taken would put the stale name back, so
        Qt drops such a step instead of undoing or redoing it. :attr:`sections_taken` says
        which sections were taken and how many steps were dropped (the window tells the
        user). Returns that number."""
        for run_id in run_ids:
            self.run_added.emit(run_id)
        if list(ledger_ids):
            self.ledger_changed.emit()
        taken = list(sections)
        dropped = 0
        for section in taken:
            self._announce_section(section, (before or {}).get(section))
            dropped += self._retire_edits(section)
        if taken:
            self.sections_taken.emit(taken, dropped)
        return dropped

    def _retire_edits(self, section: str) -> int:
        """Make obsolete every undo step (on any stack, done or undone) that edited
        ``section``; returns how many were."""
        n = 0
        for st in self._stacks.values():
            for i in range(st.count()):
                cmd = st.command(i)
                if getattr(cmd, "section", None) == section and not cmd.isObsolete():
                    cmd.setObsolete(True)
                    n += 1
        return n

    def _announce_section(self, section: str, old: Any) -> None:
        p = self._project
        if section == "name":
            self.name_changed.emit(p.name)
        elif section == "mdps":
            new_ids = [e.id for e in p.mdps]
            old_ids = [e.id for e in old or ()]
            for mdp_id in old_ids:
                self._problems.pop(mdp_id, None)
                self._digests.pop(mdp_id, None)
                st = self._stacks.get(mdp_stack_key(mdp_id))
                if st is not None:
                    st.clear()
                if mdp_id in new_ids:
                    self.mdp_changed.emit(mdp_id)
                else:
                    self.mdp_removed.emit(mdp_id)
            for mdp_id in new_ids:
                if mdp_id not in old_ids:
                    self.mdp_added.emit(mdp_id)
        elif section in ("maps", "advising", "grids"):
            signal = {"maps": self.map_changed, "advising": self.advising_changed,
                      "grids": self.grid_changed}[section]
            for i in range(max(len(old or ()), len(getattr(p, section)))):
                signal.emit(i)
        elif section == "budgets":
            self.budgets_changed.emit()
        elif section == "plans":
            names = {str(d.get("name")) for d in [*(old or ()), *p.plans]}
            for name in sorted(names):
                self.plans_changed.emit(name)

    # ------------------------------------------------------------------ mutations (commands only)
    def set_project_name(self, name: str) -> None:
        self._project.name = name
        self.name_changed.emit(name)

    def add_run(self, record: RunRecord, index: int | None = None) -> None:
        if any(r.id == record.id for r in self._project.runs):
            raise ValueError(f"run id {record.id!r} already exists")
        if index is None:
            self._project.runs.append(record)
        else:
            self._project.runs.insert(index, record)
        self.run_added.emit(record.id)

    def remove_run(self, run_id: str) -> tuple[int, RunRecord]:
        for i, r in enumerate(self._project.runs):
            if r.id == run_id:
                del self._project.runs[i]
                self.run_removed.emit(run_id)
                return i, r
        raise KeyError(run_id)

    def plan_document(self, name: str) -> dict[str, Any] | None:
        """The plan document ``name`` of the project's ``plans`` section (None if absent)."""
        for p in self._project.plans:
            if p.get("name") == name:
                return p
        return None

    def set_plan(self, name: str, document: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """Store the plan document ``name`` (replacing one of that name, else appended), or
        remove it with ``None``; returns the document it replaced (None if there was none).
        The plan workspace validates a plan before it stores it (core.plan)."""
        plans = self._project.plans
        index = next((i for i, p in enumerate(plans) if p.get("name") == name), None)
        old = None if index is None else plans[index]
        if document is None:
            if index is not None:
                del plans[index]
        else:
            new = dict(document, name=name)
            if index is None:
                plans.append(new)
            else:
                plans[index] = new
        self.plans_changed.emit(name)
        return old

    def set_mdp(self, mdp_id: str, mdp: MDP) -> MdpModel:
        """Replace the model stored under ``mdp_id`` by ``mdp``; returns the previous model."""
        entry = self.mdp_entry(mdp_id)
        old = entry.model
        entry.mdp = mdp
        self.mdp_changed.emit(mdp_id)
        return old

    def add_mdp(self, entry: MdpEntry, index: int | None = None) -> None:
        if self.has_mdp(entry.id):
            raise ValueError(f"MDP id {entry.id!r} already exists")
        mdps = self._project.mdps
        mdps.insert(len(mdps) if index is None else index, entry)
        self.mdp_added.emit(entry.id)

    def remove_mdp(self, mdp_id: str) -> tuple[int, MdpEntry]:
        for i, e in enumerate(self._project.mdps):
            if e.id == mdp_id:
                del self._project.mdps[i]
                self._problems.pop(mdp_id, None)
                self._digests.pop(mdp_id, None)
                st = self._stacks.get(mdp_stack_key(mdp_id))
                if st is not None and st.count():
                    # its edits refer to a model that is gone: they cannot be undone
                    # (called from inside a command of another stack: clear it later)
                    from PySide6.QtCore import QTimer

                    QTimer.singleShot(0, lambda: self._clear_if_gone(mdp_id))
                self.mdp_removed.emit(mdp_id)
                return i, e
        raise KeyError(mdp_id)

    # MDP content. Every method changes the model of one entry and says so.
    def add_state(self, mdp_id: str, label: str | None, pos: tuple[float, float] | None, *,
                  state_id: str | None = None, terminal_reward: float = 0.0) -> str:
        sid = self.model(mdp_id).add_state(label, pos, state_id=state_id,
                                           terminal_reward=terminal_reward)
        self.mdp_changed.emit(mdp_id)
        return sid

    def add_action(self, mdp_id: str, state_id: str, label: str | None, *,
                   action_id: str | None = None, reward: float = 0.0,
                   row: Mapping[str, float] | None = None) -> str:
        aid = self.model(mdp_id).add_action(state_id, label, action_id=action_id,
                                            reward=reward, row=row)
        self.mdp_changed.emit(mdp_id)
        return aid

    def remove_items(self, mdp_id: str, state_ids: Iterable[str] = (),
                     action_ids: Iterable[str] = (),
                     transitions: Iterable[tuple[str, str]] = ()) -> None:
        """Remove transitions (action id, target id), then actions, then states."""
        model = self.model(mdp_id)
        states = [s for s in state_ids if s in model.state_ids]
        actions = [a for a in action_ids if model.has_action(a)
                   and model.state_of(a) not in states]
        for aid, tid in transitions:
            if model.has_action(aid) and tid in model.state_ids \
                    and aid not in actions and model.state_of(aid) not in states:
                model.set_probability(aid, tid, 0.0)
        for aid in actions:
            model.remove_action(aid)
        for sid in states:
            model.remove_state(sid)
        self.mdp_changed.emit(mdp_id)

    def restore_model(self, mdp_id: str, snapshot: MdpModel) -> None:
        """Put back the content of a model snapshot (undo of structural edits)."""
        self.model(mdp_id).restore(snapshot)
        self.mdp_changed.emit(mdp_id)

    def set_label(self, mdp_id: str, item_id: str, label: str) -> None:
        """Rename a state or an action."""
        model = self.model(mdp_id)
        if item_id in model.state_ids:
            model.set_state_label(item_id, label)
        else:
            model.set_action_label(item_id, label)
        self.mdp_changed.emit(mdp_id)

    def move_states(self, mdp_id: str,
                    positions: Mapping[str, "tuple[float, float] | None"]) -> None:
        self.model(mdp_id).move_states(positions)
        self.states_moved.emit(mdp_id, list(positions))

    def set_probability(self, mdp_id: str, action_id: str, target_id: str, p: float) -> None:
        self.model(mdp_id).set_probability(action_id, target_id, p)
        self.mdp_changed.emit(mdp_id)

    def set_rows(self, mdp_id: str, rows: Mapping[str, np.ndarray]) -> None:
        """Replace whole next-state rows (action id -> array over all states)."""
        model = self.model(mdp_id)
        for aid, row in rows.items():
            s, j = model.action_index(aid)
            model.P[s, j] = np.asarray(row, dtype=float)
        model.version += 1
        self.mdp_changed.emit(mdp_id)

    def normalise_rows(self, mdp_id: str, action_ids: Iterable[str]) -> None:
        model = self.model(mdp_id)
        for aid in action_ids:
            model.normalise_row(aid)
        self.mdp_changed.emit(mdp_id)

    def set_reward(self, mdp_id: str, action_id: str, value: float) -> None:
        self.model(mdp_id).set_reward(action_id, value)
        self.mdp_changed.emit(mdp_id)

    def set_terminal_reward(self, mdp_id: str, state_id: str, value: float) -> None:
        self.model(mdp_id).set_terminal_reward(state_id, value)
        self.mdp_changed.emit(mdp_id)

    def set_settings(self, mdp_id: str, **changes: Any) -> None:
        """``horizon``, ``discount``, ``initial_state``, ``name`` (see MdpModel.set_settings)."""
        self.model(mdp_id).set_settings(**changes)
        self.mdp_changed.emit(mdp_id)

    # ------------------------------------------------------------------ internals
    def _set_path(self, path: str | None) -> None:
        if path != self._path:
            self._path = path
            self.path_changed.emit(path or "")

    def _set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)

    def _set_all_clean(self) -> None:
        self._force_dirty = False
        for st in self._stacks.values():
            st.setClean()
        self._update_dirty()

    def mark_unsaved(self) -> None:
        """Make the current state count as unsaved (e.g. a recovered copy)."""
        self._set_dirty(True)
        self._force_dirty = True

    @Slot(bool)
    def _on_stack_clean_changed(self, clean: bool) -> None:
        if "_stacks" in self.__dict__:  # not while the garbage collector takes it apart
            self._update_dirty()

    def _update_dirty(self) -> None:
        if any(not st.isClean() for st in self._stacks.values()):
            self._set_dirty(True)
        elif not self._force_dirty:
            self._set_dirty(False)

    @Slot(int)
    def _on_history_moved(self, index: int) -> None:
        if "_stacks" not in self.__dict__:  # being taken apart by the garbage collector
            return
        self._history += 1
        self.history_changed.emit()

    def _clear_if_gone(self, mdp_id: str) -> None:
        if not self.has_mdp(mdp_id):
            st = self._stacks.get(mdp_stack_key(mdp_id))
            if st is not None:
                st.clear()
