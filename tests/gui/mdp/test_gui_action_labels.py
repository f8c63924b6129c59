"""every action's name and reward are on the canvas (declutter by priority)."""

from __future__ import annotations

from gui.shell.canvas import LodTextItem, declutter_labels


def _shown_texts(view) -> set[str]:
    return {it.text() for it in view.scene().items()
            if isinstance(it, LodTextItem) and it.isVisible() and not it.crowded}


def test_every_action_of_four_startups_shows_its_name_and_reward(qtbot, window):
    """The start state's four actions used to show no names and two of four rewards."""
    window.resize(1366, 768)
    ws = window.active_workspace()
    view = ws.mdp_view
    qtbot.wait(50)
    declutter_labels(view)
    shown = _shown_texts(view)
    model = window.document.model(ws.mdp_id)
    assert model.n_states == 3 and len(model.action_labels[0]) == 4
    for s in range(model.n_states):
        for j, name in enumerate(model.action_labels[s]):
            reward = f"r={float(model.R[s, j]):.3g}"
            assert name in shown, (name, sorted(shown))
            assert any(t.startswith(reward) for t in shown), (reward, sorted(shown))
