"""What the halves of the DP-advising workspace share: texts, presets and small widgets.

Tooltips that explain every privacy parameter, the preset buttons and run kinds, the
set-up field with its inline error, and the request a Run builds.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableView,
    QToolButton,
    QWidget,
)

from core.advising import (
    BENCH_RUNS,
    RUN_TARGET,
    AdviseBenchParameters,
    AdviseParameters,
    AdvisingSetup,
    preset,
    table35_params,
)
from core.common import InputError
from gui.shell.style import ERROR_COLOUR

__all__ = ["TARGET", "SETUP_INDEX", "PRESET_BUTTONS", "RUN_KINDS", "KIND_TITLES", "KIND_HELP",
           "SENSITIVITY_TEXT", "TOOLTIPS", "FIELD_LABELS", "compact_combo",
           "fit_grid", "problem_text", "setup_title", "TitleLabel", "worked_example_setup",
           "preset_setup", "RunRequest", "Refused", "grid_view", "message_label",
           "tool_button"]

#: RunRecord.target of runs on Project.advising[0].
TARGET = RUN_TARGET
SETUP_INDEX = 0

PRESET_BUTTONS = (
    ("table35", "Table 3.5", "The Table 3.5 parameters (10 users, 12 servers, 10 tasks, "
     "rewards 2/0, ε = 1, d = 0.7, budgets 30, 700 epochs) on the 'mixed' layout, DP advising."),
    ("exp1", "Experiment 1", "Experiment 1: each agent has one different server (the "
     "'sunflower' layout, A B C + one of D…L); the run compares no advice, traditional "
     "advising among identical sets and DP advising."),
    ("exp2", "Experiment 2", "Experiment 2: agents 1–4 share A B C D, agents 5–10 differ by "
     "one server ('mixed'); the three strategies in the same setting."),
    ("exp3", "Experiment 3", "Experiment 3: the 'mixed' layout, DP advising at "
     "ε ∈ {0.1, 0.4, 0.7, 1, 2} against no advice."),
    ("one-different", "One different", "Experiment 1's own layout (§3.6.1): every agent "
     "{A, B} plus its own pair of C…L — {A,B,C,D}, {A,B,C,E}, {A,B,D,E}, … — so no two agents "
     "share a set and only DP advising (case 4) can advise; optima on A and B."),
    ("nested", "Cases 2 and 3", "Agents 1–3 have A B C, 4–7 add D, 8–10 add D and E: a "
     "teacher with one more server than its student is case 2, one fewer case 3."),
    ("fig32", "Fig. 3.2", "The motivating example of Fig. 3.2: users a, b, c, d; a = {A,B,C,D} "
     "and c = {B,C,D,E} can advise each other only with DP advising."),
    ("worked", "Worked example", "Tables 3.1–3.4 instantiated: two agents whose converged "
     "Q-tables differ in one record (neighbouring datasets)."),
)

#: The single run, then the experiments over many seeds (the core's, with the titles their
#: run records keep).
RUN_KINDS = (("single", "Single run of this set-up"), *BENCH_RUNS.items())
KIND_TITLES = dict(RUN_KINDS)
KIND_HELP = {
    "single": "One run of the set-up above with its strategy. Seeded: a reproducible "
              "experiment (numpy noise). Unticked: <b>release mode</b> — Laplace noise from "
              "OpenDP and OS-seeded sampling, not reproducible.",
    "strategies": "No advice, traditional advising and DP advising on the set-up above, over "
                  "the same seeds (paired comparison), with 95 % confidence intervals.",
    "sweep": "No advice, then DP advising at each ε below, on the set-up above.",
    "exp1": "The thesis's Experiment 1: no advice and traditional advising with identical "
            "sets ('same': A B C D for everyone), DP advising with one different server per "
            "agent ('sunflower'). The parameters above apply (ε, d, budgets, epochs, variant, "
            "α, ξ); the preset's layouts and Table 3.5 rewards are used, not grid edits.",
    "exp1-one-different": "Experiment 1 as §3.6.1 describes it: DP advising on the "
                          "'one-different' layout ({A,B,C,D}, {A,B,C,E}, {A,B,D,E}, …), no "
                          "advice and traditional advising on identical sets with the same "
                          "rewards. The thesis expected DP to equal traditional advising; the "
                          "claims table tests it (±1 pp of AUC200).",
    "exp2": "The thesis's Experiment 2: the three strategies on the 'mixed' layout (agents "
            "1–4 share A B C D, 5–10 differ by one server). The parameters above apply; the "
            "preset's layout and rewards are used, not grid edits.",
    "exp3": "The thesis's Experiment 3: no advice, then DP advising at each ε below on the "
            "'mixed' layout (thesis: 0.1, 0.4, 0.7, 1, 2). Other parameters as above.",
}

SENSITIVITY_TEXT = (
    "<b>Two sensitivities.</b> A teacher's Q-values get Laplace noise of scale S/ε before a "
    "student sees them. The thesis fixes <b>S = 1</b> (“the maximum value of a percentage is "
    "1”), but the noise is added to Q-values, which lie in [r<sub>min</sub>, r<sub>max</sub>]: "
    "one differing Q-record moves a coordinate by up to <b>S = r<sub>max</sub> − "
    "r<sub>min</sub></b> (the strict sensitivity; 2 with rewards 2/0). With S = 1 each release "
    "is therefore only (r<sub>max</sub> − r<sub>min</sub>)·ε-DP. <i>sound</i> calibrates the "
    "noise to the strict S, so the ε you set holds, noises advice between identical action "
    "sets too, and draws the advised action from the noisy Q-values alone — each advice query "
    "is then ε-DP for the teacher (one Q-table entry differs). <i>thesis</i> keeps S = 1, sends "
    "raw Q-values between identical sets and draws the advice from the teacher's raw policy: "
    "no finite ε covers those releases, and the ledger says <b>unbounded</b>.")

TOOLTIPS = {
    "strategy": "How agents learn: ‘none’ = independent learners (the thesis's traditional "
                "RL); ‘traditional’ = advice only between agents with identical server sets, "
                "no noise; ‘dp’ = advice also between agents whose sets differ by one server "
                "(neighbours), with Laplace noise on the teacher's Q-values.",
    "variant": "sound: noise calibrated to the strict sensitivity S = r_max − r_min, every DP "
               "release noised, the advised action drawn from the noisy Q-values alone — "
               "each advice query is ε-DP for the teacher. thesis: S = 1, raw Q-values between "
               "identical sets and advice drawn from the teacher's raw policy, as in the "
               "thesis — its ε is unbounded (raw data leaves). custom: other settings.",
    "epsilon": "ε, the privacy budget of one release: every time a teacher's Q-values are "
               "shown to a student, Laplace noise of scale S/ε is added. Smaller ε = more "
               "noise = more private (and usually worse advice). Must be > 0.",
    "distance_threshold": "d: advice is given only if the squared Euclidean distance between "
                          "the teacher's (noisy) and the student's Q-values exceeds d — the "
                          "knowledge gap (Eq. 3.1). Must be ≥ 0; Table 3.5: 0.7.",
    "ask_budget": "b_ask: how many times each agent may receive advice (Table 3.5: 30). Each "
                  "advice costs the student 1.",
    "give_budget": "b_give: how many times each agent may give advice (Table 3.5: 30). Each "
                   "advice costs the teacher 1. Fewer advice events also means fewer "
                   "releases of the teacher's Q-values.",
    "epochs": "Number of epochs; in each, every agent gets a random task and picks a server "
              "(Table 3.5: 700).",
    "alpha": "α, the Q learning rate: Q(s,a) ← (1−α)Q(s,a) + α·r. In (0, 1]; default 0.5 "
             "(not given in the thesis).",
    "xi": "ξ, the policy learning rate of Algorithm 3: π(s,a) ← π(s,a) + ξ(Q(s,a) − r̄). "
          "≥ 0; default 0.1 (not given in the thesis).",
    "direction_guard": "Only teachers that met the task more often than the student may "
                       "advise (spec A10). Off = the thesis: the neighbour with the largest "
                       "distance advises, even a less experienced one. The guard compares "
                       "raw visit counts, which no ε covers: with it on, every compared "
                       "teacher's ε spent is unbounded.",
    "sensitivity": "S, the sensitivity the noise is calibrated to (scale S/ε). Strict S = "
                   "r_max − r_min bounds how far one differing Q-record moves a coordinate; "
                   "the thesis's S = 1 under-calibrates the noise when r_max − r_min > 1.",
    "run_kind": "What Run (F5) does: a single run of the set-up, or an experiment over many "
                "seeds (means with 95 % confidence intervals).",
    "seeded": "Ticked: a reproducible seeded experiment with the seed shown (numpy noise — "
              "for studying the method, not for real releases). Unticked: a single run is a "
              "release (OpenDP noise, not reproducible); an experiment draws a fresh seed "
              "from the OS and records it.",
    "seed": "Seed of the run (experiments use seed, seed+1, … for their runs; every arm uses "
            "the same seeds, so arms are compared seed by seed).",
    "seeds": "Runs per arm of an experiment (the spec's protocol: 20). More seeds = narrower "
             "confidence bands.",
    "workers": "Worker processes for an experiment's runs (the window stays responsive).",
    "epsilons": "The ε values of an ε sweep / Experiment 3, separated by commas. Each must "
                "be > 0.",
    "delta": "δ of the advanced-composition and Rényi-DP totals in the ledger, in (0, 1). "
             "Basic composition needs no δ. Smaller δ = stronger guarantee, larger ε.",
}

FIELD_LABELS = {"epsilon": "ε", "distance_threshold": "d", "ask_budget": "b_ask",
                 "give_budget": "b_give", "epochs": "epochs", "alpha": "α", "xi": "ξ"}


def compact_combo(combo: QComboBox, chars: int) -> None:
    """Let a combo box shrink (its popup still shows the full texts)."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)


def fit_grid(view: QTableView, max_w: int = 400, max_h: int = 230) -> None:
    """Size a grid to show every cell when that is reasonable (else it scrolls)."""
    model = view.model()
    vh, hh = view.verticalHeader(), view.horizontalHeader()
    frame = 2 * view.frameWidth() + 2
    w = vh.sizeHint().width() + hh.defaultSectionSize() * model.columnCount() + frame
    h = hh.sizeHint().height() + vh.defaultSectionSize() * model.rowCount() + frame
    view.setMinimumWidth(min(w, max_w))
    view.setMinimumHeight(min(max(h, 80), max_h))


def problem_text(exc: InputError) -> str:
    return exc.problem if getattr(exc, "problem", None) else str(exc)


def setup_title(setup: AdvisingSetup) -> tuple[str, str]:
    return (f"Set-up “{setup.name}”: {setup.n_agents} agents × {setup.n_servers} servers × "
            f"{setup.n_tasks} tasks", setup.description or "custom")


class TitleLabel(QLabel):
    """A bold head and its description, word-wrapped to the width so nothing is cut (a long
    description takes a second line instead of being elided at a laptop's width)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_parts(self, head: str, text: str) -> None:
        self.setToolTip(f"{head} — {text}" if text else head)
        tail = f" — {html.escape(text)}" if text else ""
        self.setText(f"<b>{html.escape(head)}</b>{tail}")


def worked_example_setup(variant: str = "sound") -> AdvisingSetup:
    """Tables 3.1–3.4 as a runnable set-up: i = {A,B,C,D}, j = {A,B,C,E}, one task."""
    return AdvisingSetup.from_labels(
        servers=list("ABCDE"), tasks=["s"],
        agents={"i": ["A", "B", "C", "D"], "j": ["A", "B", "C", "E"]},
        rewards=[[2.0, 0.0, 0.0, 0.0, 0.0]], params=table35_params(variant, epochs=60),
        name="worked", description="Tables 3.1–3.4: teacher i and student j differ in one "
                                   "server (D vs E)")


def preset_setup(name: str, variant: str = "sound") -> AdvisingSetup:
    """The set-up a preset button loads."""
    if name == "worked":
        return worked_example_setup(variant)
    return preset(name, variant=variant, strategy="dp")


@dataclass
class RunRequest:
    """What Run starts: the kind of run, the core's parameters of one run (the set-up, the seed
    — None: release mode, or a fresh OS seed for an experiment — and δ), and for an
    experiment its seeds, processes and ε values, and once they are checked the core's
    parameters of the experiment (``bench``)."""

    kind: str
    params: AdviseParameters
    n_seeds: int = 1
    workers: int = 1
    epsilons: tuple[float, ...] = ()
    bench: AdviseBenchParameters | None = None

    @property
    def setup(self) -> AdvisingSetup:
        return self.params.setup

    @property
    def seed(self) -> int | None:
        return self.params.seed

    @property
    def seeded(self) -> bool:
        return self.params.seeded

    @property
    def delta(self) -> float:
        return self.params.delta

    @property
    def is_experiment(self) -> bool:
        return self.kind != "single"


class Refused(Exception):
    """The run cannot start (the message says why)."""


def grid_view(model: Any, parent: QWidget, width: int = 22) -> QTableView:
    """A set-up grid: fixed small cells, one cell selected at a time."""
    v = QTableView(parent)
    v.setModel(model)
    v.horizontalHeader().setMinimumSectionSize(16)  # before the default (it clamps)
    v.horizontalHeader().setDefaultSectionSize(width)
    v.verticalHeader().setMinimumSectionSize(14)
    v.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    v.verticalHeader().setDefaultSectionSize(17)
    v.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    v.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    v.setMinimumHeight(120)
    return v


def message_label(parent: QWidget) -> QLabel:
    """A hidden red note under a grid (why an edit was not applied)."""
    lab = QLabel(parent)
    lab.setWordWrap(True)
    lab.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; font-size: 8.5pt; }}")
    lab.hide()
    return lab


def tool_button(text: str, tip: str, parent: QWidget) -> QToolButton:
    """A small + / − button."""
    b = QToolButton(parent)
    b.setText(text)
    b.setMinimumWidth(24)
    b.setToolTip(tip)
    return b
