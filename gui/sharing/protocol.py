"""The Policy sharing workspace's learning protocol: the five choices of
:class:`core.sharing.SharingSetup` that decide how the study is run rather than how private the
teacher is — what the teacher sends once its budget is spent, the reward scale the students
learn on, exact or sampled policy gradients, how the teacher's penalty is weighed, and what
the non-private baseline imitates.

The CLI's ``share --after-budget / --reward-scale / --gradient / --episodes /
--penalty-weight / --nonprivate-target`` set the same fields; the run's record keeps them
(``sharing_params``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QSpinBox, QWidget

from core.sharing import SharingSetup

__all__ = ["ProtocolBox", "PROTOCOL_TOOLTIPS"]

_DEFAULT = SharingSetup()

#: (field, label, [(value, item text)]) of each combo, the default first
_CHOICES: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    ("after_budget", "after the budget", (("stop", "send nothing (stop)"),
                                          ("random", "random policies (paper)"))),
    ("reward_scale", "rewards", (("max", "scaled to max |R|"), ("none", "as they are"))),
    ("gradient", "gradient", (("exact", "exact"), ("sampled", "sampled (REINFORCE)"))),
    ("penalty_weight", "penalty weight", (("visits", "discounted visits"),
                                          ("occupancy", "occupancy (sum 1)"))),
    ("nonprivate_target", "non-private imitates", (("teacher", "the teacher's π_T"),
                                                   ("mixed", "the η-mixed π̃_T"))),
)

PROTOCOL_TOOLTIPS = {
    "after_budget": "What the teacher sends once its budget (E, D) is spent. Stop "
                    "(PrivPlan's rule): nothing. Random policies (the paper's rule): a "
                    "uniformly random policy per state, which never reads the teacher's data, "
                    "so it is (0, 0)-DP — but it misleads the privacy-unaware student.",
    "reward_scale": "Scaled (default): the students learn on R / max|R|, so κ and the learning "
                    "rate weigh a value of one unit in every environment and the teacher "
                    "matters on CliffWalking and Taxi. As they are: raw rewards (κ then "
                    "depends on the reward range). Curves are always in the environment's "
                    "units.",
    "gradient": "Exact: every student follows its exact policy gradient (no exploration "
                "noise: bands come from the Dirichlet noise only). Sampled: REINFORCE from "
                "the given number of roll-outs per iteration — every student explores, and "
                "the teacher answers the states those roll-outs visit.",
    "episodes": "Roll-outs per iteration of the sampled gradient (at least 2: the baseline "
                "leaves one out).",
    "penalty_weight": "How the penalty for straying from a demonstration is weighed per "
                      "state. Discounted visits (default): like the policy gradient, as "
                      "kickstarting sums both losses over the same steps. Occupancy: the "
                      "normalised occupancy (sum 1), which weighs the teacher 1/(1 − γ) "
                      "times less — it barely counts on long episodes.",
    "nonprivate_target": "What the non-private student (the baseline without privacy) "
                         "imitates. The teacher's π_T (default): conventional kickstarting, "
                         "the paper's non-private experiment. The η-mixed π̃_T = (1 − mη)π_T + "
                         "η: the policy the private teacher's Dirichlet draws centre on, so "
                         "the arms differ only in the noise — a poor policy at η = 0.1, and "
                         "the student is held near it.",
}


class ProtocolBox(QGroupBox):
    """The protocol group: :meth:`values` gives the :class:`SharingSetup` keywords."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Protocol", parent)
        form = QFormLayout(self)
        self.combos: dict[str, QComboBox] = {}
        for key, label, items in _CHOICES:
            combo = QComboBox(self)
            for value, text in items:
                combo.addItem(text, value)
            combo.setCurrentIndex(combo.findData(getattr(_DEFAULT, key)))
            combo.setToolTip(PROTOCOL_TOOLTIPS[key])
            self.combos[key] = combo
            form.addRow(label, combo)
            if key == "gradient":
                self.episodes_spin = QSpinBox(self)
                self.episodes_spin.setRange(2, 10_000)
                self.episodes_spin.setValue(int(_DEFAULT.episodes))
                self.episodes_spin.setToolTip(PROTOCOL_TOOLTIPS["episodes"])
                form.addRow("roll-outs / step", self.episodes_spin)
        self.combos["gradient"].currentIndexChanged.connect(self._sync)
        self._sync()

    def _sync(self) -> None:
        self.episodes_spin.setEnabled(self.combos["gradient"].currentData() == "sampled")

    def values(self) -> dict[str, Any]:
        """The chosen protocol as :class:`SharingSetup` keywords."""
        out: dict[str, Any] = {k: str(c.currentData()) for k, c in self.combos.items()}
        out["episodes"] = int(self.episodes_spin.value())
        return out

    def keys(self) -> tuple[str, ...]:
        return (*self.combos, "episodes")

    def set_value(self, key: str, value: Any) -> None:
        """Set one field by its :class:`SharingSetup` name (ValueError if unknown)."""
        if key == "episodes":
            self.episodes_spin.setValue(int(value))
            return
        combo = self.combos[key]
        i = combo.findData(value)
        if i < 0:
            raise ValueError(f"{key} cannot be {value!r}")
        combo.setCurrentIndex(i)
