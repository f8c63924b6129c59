"""Editing the advising set-up: agents, servers, rewards and parameters, and the refresh.

:class:`SetupEditor` is given the document, the set-up shown (a
:class:`gui.advising.views.ShownSetup` it keeps up to date), the set-up widgets (a
:class:`gui.advising.views.SetupWidgets` the panel builds and connects to its methods) and two
callables: ``log(level, text)`` for the Log dock and ``refreshed()``, called after each
refresh. It never sees the panel. Every edit is one undoable
:class:`gui.advising.commands.SetAdvisingSetupCommand`; a refused value turns its field red
with the reason and leaves the document untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QLabel,
    QTableView,
)

from core.advising import VARIANT_KNOBS, AdvisingParams, AdvisingSetup, preset
from core.common import InputError
from core.project import mark_unedited
from gui.advising.commands import SetAdvisingSetupCommand, store_setup
from gui.advising.models import (
    edit_add_agent,
    edit_add_server,
    edit_add_task,
    edit_remove_agent,
    edit_remove_server,
    edit_remove_task,
    edit_reward,
    edit_toggle_server,
    parse_number,
)
from gui.advising.parts import (
    FIELD_LABELS,
    SETUP_INDEX,
    fit_grid,
    problem_text,
    setup_title,
)
from gui.advising.views import SetupWidgets, ShownSetup
from gui.shell.param_field import ParamField
from gui.shell.style import ERROR_COLOUR

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["SetupEditor"]


class SetupEditor:
    """The set-up edits: agents, servers, rewards and parameters, and the refresh (see the
    module docstring)."""

    def __init__(self, document: ProjectDocument, shown: ShownSetup, widgets: SetupWidgets, *,
                 log: Callable[[str, str], None], refreshed: Callable[[], None]) -> None:
        self._document = document
        self._shown = shown
        self._w = widgets
        self._log = log
        self._refreshed = refreshed

    @property
    def setup(self) -> AdvisingSetup | None:
        """The validated set-up shown, or None if the project has none that can be used."""
        return self._shown.setup

    def problems(self) -> list[str]:
        """The refused values still shown in the set-up (not applied); empty when none."""
        s = self._shown.setup
        return [] if s is None else self._w.problems(s)

    def preset_variant(self) -> str:
        """The variant a preset is loaded with: the one chosen, ``sound`` for ``custom``."""
        variant = self._w.variant()
        return variant if variant in ("sound", "thesis") else "sound"

    # ------------------------------------------------------------------ set-up edits
    def ensure_setup(self) -> None:
        """Give a project without an advising set-up the Table 3.5 preset to show. Opening
        the tab is not an edit: the preset is stored without an undo step, so the project
        stays unmodified until the user changes the set-up or runs it."""
        if not self._document.project.advising:
            store_setup(self._document, SETUP_INDEX, preset("table35"))
            # nor is it a change of the file's set-ups at the next save: another program's
            # set-up saved meanwhile is taken, not a conflict
            mark_unedited(self._document.project, ["advising"])

    def push_setup(self, new: AdvisingSetup, text: str) -> bool:
        entries = self._document.project.advising
        if entries and entries[SETUP_INDEX] == new:
            return False
        index = SETUP_INDEX if entries else len(entries)
        self._document.push(SetAdvisingSetupCommand(self._document, index, new, text),
                            "advising")
        return True

    def _validated(self, new: dict[str, Any]) -> AdvisingSetup:
        return AdvisingSetup.from_dict(new)

    def _current_dict(self) -> dict[str, Any] | None:
        return None if self._shown.setup is None else self._shown.setup.to_dict()

    def _try_edit(self, new: dict[str, Any], text: str, where: QLabel) -> str | None:
        """Validate ``new`` and push it; the error message (shown in ``where``) or None."""
        try:
            valid = self._validated(new)
        except InputError as exc:
            msg = f"Not applied: {exc}"
            where.setText(msg)
            where.show()
            self._log("WARNING", f"advising set-up: {exc}")
            return str(exc)
        where.hide()
        self.push_setup(valid, text)
        return None

    def commit_action(self, agent: int, server: int, on: bool) -> bool:
        d = self._current_dict()
        if d is None:
            return False
        s = self._shown.setup
        assert s is not None
        verb = "Allow" if on else "Forbid"
        text = f"{verb} server {s.servers[server]} for {s.agents[agent]}"
        return self._try_edit(edit_toggle_server(d, agent, server, on), text,
                              self._w.action_message) is None

    def commit_reward(self, task: int, server: int, value: Any) -> str | None:
        d = self._current_dict()
        if d is None:
            return "the set-up is invalid"
        s = self._shown.setup
        assert s is not None
        where = f"R(task {s.tasks[task]}, server {s.servers[server]})"
        try:
            x = parse_number(value)
        except ValueError as exc:
            msg = f"{where} {exc}"
            self._w.reward_message.setText(f"Not applied: {msg}")
            self._w.reward_message.show()
            self._log("WARNING", f"advising set-up: {msg}")
            return msg
        return self._try_edit(edit_reward(d, task, server, x), f"Set {where} = {x:g}",
                              self._w.reward_message)

    def _structural_edit(self, fn: Any, text: str, where: QLabel, *args: Any) -> None:
        d = self._current_dict()
        if d is None:
            return
        self._try_edit(fn(d, *args), text, where)

    def _current_row(self, view: QTableView, count: int) -> int:
        ix = view.currentIndex()
        return ix.row() if ix.isValid() else count - 1

    def _current_col(self, view: QTableView, count: int) -> int:
        ix = view.currentIndex()
        return ix.column() if ix.isValid() else count - 1

    def on_add_agent(self) -> None:
        self._structural_edit(edit_add_agent, "Add an agent", self._w.action_message)

    def on_remove_agent(self) -> None:
        if self._shown.setup is None:
            return
        j = self._current_row(self._w.action_view, self._shown.setup.n_agents)
        self._structural_edit(edit_remove_agent, f"Remove agent {self._shown.setup.agents[j]}",
                              self._w.action_message, j)

    def on_add_server(self) -> None:
        self._structural_edit(edit_add_server, "Add a server", self._w.action_message)

    def on_remove_server(self) -> None:
        if self._shown.setup is None:
            return
        k = self._current_col(self._w.action_view, self._shown.setup.n_servers)
        self._structural_edit(edit_remove_server, f"Remove server {self._shown.setup.servers[k]}",
                              self._w.action_message, k)

    def on_add_task(self) -> None:
        self._structural_edit(edit_add_task, "Add a task", self._w.reward_message)

    def on_remove_task(self) -> None:
        if self._shown.setup is None:
            return
        t = self._current_row(self._w.reward_view, self._shown.setup.n_tasks)
        self._structural_edit(edit_remove_task, f"Remove task {self._shown.setup.tasks[t]}",
                              self._w.reward_message, t)

    def _commit_params(self, changes: dict[str, Any], text: str, fld: ParamField | None) -> bool:
        d = self._current_dict()
        if d is None:
            return False
        new = dict(d)
        new["params"] = {**d["params"], **changes}
        try:
            valid = self._validated(new)
        except InputError as exc:
            name = next(iter(changes))
            target = fld or self._w.fields.get(exc.field or "") or self._w.fields.get(name)
            sym = FIELD_LABELS.get(exc.field or name, exc.field or name)
            msg = f"{sym} {problem_text(exc)}"
            if target is not None:
                target.set_error(msg)
            else:
                self._w.error_label.setText(f"Not applied: {msg}")
                self._w.error_label.show()
            self._log("WARNING", f"advising parameters: {exc}")
            return False
        if fld is not None:
            fld.clear_error()
        self.push_setup(valid, text)
        return True

    def on_field_committed(self, name: str, value: Any) -> None:
        """A parameter field left with a value its AdvisingParams accepts: apply it."""
        if self._shown.setup is None:
            return
        f = self._w.fields[name]
        if getattr(self._shown.setup.params, name) == value:
            f.clear_error()
            return
        self._commit_params({name: value}, f"Set {f.label} = {value:g}", f)

    def on_field_refused(self, name: str, message: str) -> None:
        """A parameter field left with a refused value (the field shows why)."""
        self._log("WARNING", f"advising parameters: {message}")

    def on_strategy_combo_activated(self, index: int) -> None:
        s = str(self._w.value("strategy"))
        if self._shown.setup is not None and s != self._shown.setup.params.strategy:
            self._commit_params({"strategy": s}, f"Set strategy {s}", None)

    def on_variant_combo_activated(self, index: int) -> None:
        v = self._w.variant()
        if self._shown.setup is None or v == self._shown.setup.params.variant or v == "custom":
            self._refresh_params()
            return
        p = {k: val for k, val in self._shown.setup.params.to_dict().items()
             if k not in VARIANT_KNOBS[v]}
        params = AdvisingParams.for_variant(v, **p)
        self._commit_params({k: getattr(params, k) for k in VARIANT_KNOBS[v]},
                            f"Use the {v} variant", None)

    def on_guard_check_clicked(self, checked: bool) -> None:
        if self._shown.setup is not None:
            on = bool(self._w.value("direction_guard"))
            self._commit_params({"direction_guard": on},
                                "Direction guard " + ("on" if on else "off"), None)

    # ------------------------------------------------------------------ refresh
    def on_document_advising_changed(self, index: int) -> None:
        if index == SETUP_INDEX:
            self.refresh()

    def clear_all_errors(self) -> None:
        for f in self._w.fields.values():
            f.clear_error()
        w = self._w
        for lab in (w.action_message, w.reward_message, w.error_label):
            lab.hide()

    def refresh(self) -> None:
        entries = self._document.project.advising
        # validated when read or edited (core.project.files, _try_edit)
        self._shown.setup = entries[SETUP_INDEX] if entries else None
        if self._shown.setup is None:
            self._w.error_label.setText(
                "The stored advising set-up cannot be used: the project has no advising "
                "set-up. Load a preset to replace it.")
            self._w.error_label.show()
            self._w.title_label.set_parts("No usable advising set-up", "")
        else:
            self._w.error_label.hide()
            self._w.title_label.set_parts(*setup_title(self._shown.setup))
        self._w.action_model.set_setup(self._shown.setup)
        self._w.reward_model.set_setup(self._shown.setup)
        for view in (self._w.action_view, self._w.reward_view):
            fit_grid(view)
        self.balance_editor()
        for lab in (self._w.action_message, self._w.reward_message):
            lab.hide()
        self._refresh_params()
        self._refreshed()

    def balance_editor(self) -> None:
        """Grids as wide as their cells need, the parameters get the rest."""
        total = sum(self._w.splitter.sizes())
        if total <= 0:
            return
        widths = [b.minimumSizeHint().width() for b in self._w.grid_boxes]
        self._w.splitter.setSizes([*widths, max(200, total - sum(widths))])

    def _refresh_params(self) -> None:
        s = self._shown.setup
        enabled = s is not None
        for w in (self._w.strategy_combo, self._w.variant_combo, self._w.guard_check,
                  *self._w.fields.values()):
            w.setEnabled(enabled)
        if s is None:
            return
        p = s.params
        self._w.show_parameters(p)
        strict = s.strict_sensitivity
        noise = s.noise_sensitivity
        if abs(noise - strict) < 1e-12:
            text = (f"S = {noise:g} (strict, r<sub>max</sub> − r<sub>min</sub>): each release "
                    f"is {p.epsilon:g}-DP")
        else:
            text = (f"S = {noise:g} (thesis); strict S = {strict:g}: each release is really "
                    f"<b style='color:{ERROR_COLOUR}'>{s.true_epsilon_per_release:g}-DP</b>, "
                    f"not {p.epsilon:g}")
        raw = []
        if p.strategy == "dp" and not p.noise_on_identical_sets:
            raw.append("advice between identical sets is <b>not noised</b>")
        if p.strategy == "traditional" or (p.strategy == "dp" and p.advice_prior == "teacher"):
            raw.append("advice is drawn from the teacher's <b>raw policy</b>")
        if p.strategy != "none" and p.direction_guard:
            raw.append("the direction guard compares <b>raw visit counts</b>")
        if raw:
            text += ("; " + "; ".join(raw) + f" — <b style='color:{ERROR_COLOUR}'>ε spent is "
                     "unbounded</b> for the teachers concerned")
        elif p.strategy == "dp":
            text += "; advice built from the noisy Q-values alone"
        self._w.sensitivity_label.setText(text)
