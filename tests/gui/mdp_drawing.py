"""Drawing an MDP through the GUI, the way a person does (used by several GUI tests).

Every step goes through what the mouse and keyboard trigger: the canvas's add-state
(double-click / N / Add-state mode), A on a selected state, a drag from an action dot to a
state (``MdpView.connect_action``), typing into the Inspector's fields and its probability table.
"""

from __future__ import annotations

from PySide6.QtCore import Qt


def type_into(edit, text: str) -> None:
    """Type ``text`` into a QLineEdit and press Enter (commits one command)."""
    edit.setFocus()
    edit.selectAll()
    edit.setText(text)
    edit.setModified(True)
    edit.editingFinished.emit()


def set_probability(inspector, target_label: str, value: str) -> bool:
    """Type ``value`` into the p cell of ``target_label`` in the Inspector's table."""
    model = inspector.table_model
    for row in range(model.rowCount()):
        label = model.data(model.index(row, 0), Qt.ItemDataRole.EditRole)
        if label == target_label:
            return model.setData(model.index(row, 1), value, Qt.ItemDataRole.EditRole)
    raise KeyError(target_label)


def add_state(ws, name: str, pos: tuple[float, float], terminal: str | None = None) -> str:
    sid = ws.mdp_view.add_state_at(pos)
    type_into(ws.inspector.state_name, name)
    if terminal is not None:
        type_into(ws.inspector.terminal_edit, terminal)
    return sid


def add_action(ws, state_id: str, name: str, reward: str | None = None) -> str:
    ws.editor.select_ids([state_id])
    (aid,) = ws.editor.add_action()
    type_into(ws.inspector.action_name, name)
    if reward is not None:
        type_into(ws.inspector.reward_edit, reward)
    return aid


def draw_three_states(ws) -> dict[str, str]:
    """a --go (r = -1)--> b 0.75 / c 0.25; b and c absorb; R_T(b) = 10; horizon 2."""
    ids = {"a": add_state(ws, "a", (0.0, 0.0)),
           "b": add_state(ws, "b", (300.0, -120.0), terminal="10"),
           "c": add_state(ws, "c", (300.0, 120.0))}
    ids["go"] = add_action(ws, ids["a"], "go", reward="-1")
    ws.mdp_view.connect_action(ids["go"], ids["b"])  # the first transition takes the whole row
    ws.editor.select_ids([ids["go"]])
    set_probability(ws.inspector, "b", "0.75")
    ws.mdp_view.connect_action(ids["go"], ids["c"])  # then what the row still misses: 0.25
    for s in ("b", "c"):
        ids[f"stay_{s}"] = add_action(ws, ids[s], "stay")
        ws.mdp_view.connect_action(ids[f"stay_{s}"], ids[s])
    ws.inspector.horizon_spin.setValue(2)
    return ids
