"""Table models of the advising set-up editor, and the pure edits behind them.

* :class:`ActionSetModel`: agents (rows) × servers (columns); a ticked cell means the agent
  may use that server. Unticking removes the server from the agent's ordered action set,
  ticking appends it (the order is the index order of the agent's Q and π).
* :class:`RewardModel`: tasks (rows) × servers (columns); each cell is R(task, server).
  A value that is not a number, or that the core refuses, is *not applied*: the cell turns
  red, shows what was typed and gives the reason in its tooltip, until the next accepted
  change of the set-up.

Neither model owns data: both show an :class:`core.advising.model.AdvisingSetup` (frozen)
given by the panel, and turn an edit into a call of ``commit(...)``, which validates the new
set-up and pushes an undoable command (or refuses and says why). The ``edit_*`` functions
below build the new set-up dict; the caller validates it with
:meth:`AdvisingSetup.from_dict`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from core.advising import CASE_NAMES, AdvisingSetup
from gui.shell.param_field import parse_number
from gui.shell.style import ERROR_COLOUR

__all__ = ["ActionSetModel", "RewardModel", "edit_toggle_server", "edit_reward",
           "edit_add_agent", "edit_remove_agent", "edit_add_server", "edit_remove_server",
           "edit_add_task", "edit_remove_task", "parse_number", "neighbour_summary"]

_INVALID_BG = QColor("#FDECE6")
_BEST_BG = QColor("#E6F3EC")  # the best reward of a task (what learning should find)
_Index = QModelIndex | QPersistentModelIndex


# ---------------------------------------------------------------------------- pure edits
def _fresh_name(prefix: str, taken: list[str]) -> str:
    i = len(taken) + 1
    while f"{prefix}{i}" in taken:
        i += 1
    return f"{prefix}{i}"


def edit_toggle_server(d: dict[str, Any], agent: int, server: int, on: bool) -> dict[str, Any]:
    """Allow (append) or forbid (remove) ``server`` for ``agent``."""
    out = copy.deepcopy(d)
    name = out["servers"][server]
    acts = list(out["agents"][agent]["servers"])
    if on and name not in acts:
        acts.append(name)
    elif not on:
        acts = [a for a in acts if a != name]
    out["agents"][agent]["servers"] = acts
    return out


def edit_reward(d: dict[str, Any], task: int, server: int, value: float) -> dict[str, Any]:
    out = copy.deepcopy(d)
    out["rewards"][task][server] = value
    return out


def edit_add_agent(d: dict[str, Any]) -> dict[str, Any]:
    """A new agent with the same servers as the last one (or the first server)."""
    out = copy.deepcopy(d)
    names = [a["name"] for a in out["agents"]]
    servers = list(out["agents"][-1]["servers"]) if out["agents"] else out["servers"][:1]
    prefix = "u" if all(n.startswith("u") for n in names) else "agent "
    out["agents"].append({"name": _fresh_name(prefix, names), "servers": servers})
    return out


def edit_remove_agent(d: dict[str, Any], agent: int) -> dict[str, Any]:
    out = copy.deepcopy(d)
    del out["agents"][agent]
    return out


def edit_add_server(d: dict[str, Any]) -> dict[str, Any]:
    """A new server (next letter) that no agent uses yet, reward 0 for every task."""
    out = copy.deepcopy(d)
    taken = list(out["servers"])
    name = next((c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in taken), None)
    out["servers"].append(name or _fresh_name("S", taken))
    for row in out["rewards"]:
        row.append(0.0)
    return out


def edit_remove_server(d: dict[str, Any], server: int) -> dict[str, Any]:
    out = copy.deepcopy(d)
    name = out["servers"].pop(server)
    for row in out["rewards"]:
        del row[server]
    for a in out["agents"]:
        a["servers"] = [s for s in a["servers"] if s != name]
    return out


def edit_add_task(d: dict[str, Any]) -> dict[str, Any]:
    """A new task whose rewards copy the last task's (so every agent can still learn it)."""
    out = copy.deepcopy(d)
    taken = [str(t) for t in out["tasks"]]
    name = str(len(taken) + 1)
    while name in taken:
        name += "'"
    out["tasks"].append(name)
    out["rewards"].append(list(out["rewards"][-1]) if out["rewards"] else
                          [0.0] * len(out["servers"]))
    return out


def edit_remove_task(d: dict[str, Any], task: int) -> dict[str, Any]:
    out = copy.deepcopy(d)
    del out["tasks"][task]
    del out["rewards"][task]
    return out


def neighbour_summary(setup: AdvisingSetup, agent: int) -> str:
    """Tooltip text: which agents may advise ``agent`` under DP / traditional advising."""
    cases = setup.neighbour_cases()[:, agent]
    servers = ", ".join(setup.servers[k] for k in setup.action_sets[agent])
    lines = [f"{setup.agents[agent]}: servers {servers} (in Q/π order)"]
    dp = [f"{setup.agents[i]} ({CASE_NAMES[int(c)].split(':')[0]})"
          for i, c in enumerate(cases) if c > 0]
    trad = [setup.agents[i] for i, c in enumerate(cases) if c == 1]
    lines.append("may be advised under DP advising by: " + (", ".join(dp) or "nobody"))
    lines.append("under traditional advising by: " + (", ".join(trad) or "nobody"))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- models
class _SetupModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._setup: AdvisingSetup | None = None

    @property
    def setup(self) -> AdvisingSetup | None:
        return self._setup

    def _shape(self, s: AdvisingSetup | None) -> tuple[Any, ...]:
        raise NotImplementedError

    def set_setup(self, setup: AdvisingSetup | None) -> None:
        """Show ``setup``; a change of shape resets the model, else only data changes."""
        if self._shape(setup) != self._shape(self._setup):
            self.beginResetModel()
            self._setup = setup
            self._on_reset()
            self.endResetModel()
            return
        self._setup = setup
        self._on_reset()
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, max(0, self.columnCount() - 1))
        self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, max(0, self.rowCount() - 1))

    def _on_reset(self) -> None:
        pass

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        if parent.isValid() or self._setup is None:
            return 0
        return self._setup.n_servers


class ActionSetModel(_SetupModel):
    """Agents × servers check grid; ``commit(agent, server, allowed) -> bool``."""

    def __init__(self, commit: Callable[[int, int, bool], bool], parent: Any = None) -> None:
        super().__init__(parent)
        self._commit = commit

    def _shape(self, s: AdvisingSetup | None) -> tuple[Any, ...]:
        return (None,) if s is None else (s.agents, s.servers)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        if parent.isValid() or self._setup is None:
            return 0
        return self._setup.n_agents

    def is_allowed(self, agent: int, server: int) -> bool:
        assert self._setup is not None
        return server in self._setup.action_sets[agent]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        s = self._setup
        if s is None or not index.isValid():
            return None
        j, k = index.row(), index.column()
        on = k in s.action_sets[j]
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if on:
                pos = s.action_sets[j].index(k) + 1
                return (f"{s.agents[j]} may use server {s.servers[k]} (action {pos} of "
                        f"{len(s.action_sets[j])} in its Q/π order). Untick to forbid it.")
            return f"{s.agents[j]} may not use server {s.servers[k]}. Tick to allow it."
        if role == Qt.ItemDataRole.BackgroundRole and on:
            return QBrush(QColor("#EAF2FA"))
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable

    def setData(self, index: _Index, value: Any,  # noqa: N802 (Qt override)
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        if self._setup is None or not index.isValid() or role != Qt.ItemDataRole.CheckStateRole:
            return False
        state = value.value if isinstance(value, Qt.CheckState) else int(value)
        return bool(self._commit(index.row(), index.column(),
                                 state == Qt.CheckState.Checked.value))

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        s = self._setup
        if s is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                return s.servers[section] if section < s.n_servers else None
            return s.agents[section] if section < s.n_agents else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if orientation == Qt.Orientation.Vertical and section < s.n_agents:
                return neighbour_summary(s, section)
            if orientation == Qt.Orientation.Horizontal and section < s.n_servers:
                users = [s.agents[j] for j in range(s.n_agents) if section in s.action_sets[j]]
                return f"server {s.servers[section]}: used by " + (", ".join(users) or "nobody")
        return None


class RewardModel(_SetupModel):
    """Tasks × servers reward grid; ``commit(task, server, text) -> str | None`` (error)."""

    def __init__(self, commit: Callable[[int, int, Any], str | None], parent: Any = None) -> None:
        super().__init__(parent)
        self._commit = commit
        self._invalid: dict[tuple[int, int], tuple[str, str]] = {}

    def _shape(self, s: AdvisingSetup | None) -> tuple[Any, ...]:
        return (None,) if s is None else (s.tasks, s.servers)

    def _on_reset(self) -> None:
        self._invalid.clear()  # refused values show until the next accepted change

    @property
    def invalid_cells(self) -> dict[tuple[int, int], tuple[str, str]]:
        """(task, server) → (typed text, reason) of refused entries still shown in red."""
        return dict(self._invalid)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        if parent.isValid() or self._setup is None:
            return 0
        return self._setup.n_tasks

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        s = self._setup
        if s is None or not index.isValid():
            return None
        t, k = index.row(), index.column()
        bad = self._invalid.get((t, k))
        value = float(s.rewards[t, k])
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return bad[0] if bad else f"{value:g}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return Qt.AlignmentFlag.AlignCenter
        if role == Qt.ItemDataRole.BackgroundRole:
            if bad:
                return QBrush(_INVALID_BG)
            if value > 0 and value == float(s.rewards[t].max()):
                return QBrush(_BEST_BG)
            return None
        if role == Qt.ItemDataRole.ForegroundRole and bad:
            return QBrush(QColor(ERROR_COLOUR))
        if role == Qt.ItemDataRole.FontRole and not bad and value > 0 and value == float(
                s.rewards[t].max()):
            f = QFont()
            f.setBold(True)
            return f
        if role == Qt.ItemDataRole.ToolTipRole:
            if bad:
                return f"Not applied: {bad[1]}"
            return (f"R(task {s.tasks[t]}, server {s.servers[k]}) = {value:g}. Double-click to "
                    "edit; a value that is not a number is refused.")
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsEditable)

    def setData(self, index: _Index, value: Any,  # noqa: N802 (Qt override)
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        if self._setup is None or not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        t, k = index.row(), index.column()
        if str(value).strip() == f"{float(self._setup.rewards[t, k]):g}" and (
                t, k) not in self._invalid:
            return True  # unchanged: no command
        error = self._commit(t, k, value)
        if error is None:
            self._invalid.pop((t, k), None)
            return True
        self._invalid[(t, k)] = (str(value), error)
        ix = self.index(t, k)
        self.dataChanged.emit(ix, ix)
        return False

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        s = self._setup
        if s is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                return s.servers[section] if section < s.n_servers else None
            return s.tasks[section] if section < s.n_tasks else None
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Vertical and (
                section < s.n_tasks):
            best = s.rewards[section].max()
            arg = [s.servers[k] for k in range(s.n_servers) if s.rewards[section, k] == best]
            return f"task {s.tasks[section]}: best server(s) {', '.join(arg)} (reward {best:g})"
        return None
