"""The project document: plain dataclasses, mutated only by the GUI's document/commands.

A project holds MDPs (each a frozen :class:`core.mdp.model.MDP` under a stable id), run
records (parameters, seeds and summaries — never big arrays), logistics maps
(:class:`core.logistics.document.MapEntry`), advising set-ups
(:class:`core.advising.model.AdvisingSetup`) and the privacy ledger
(:class:`core.privacy.ledger.LedgerEntry`): typed, validated when a file is read (a damaged
entry refuses the file with a message naming it) and immutable, so undo commands hold them
as they are.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> p = Project(name="demo")
>>> p.add_mdp(four_startups())
'mdp-1'
>>> p.mdp("mdp-1").n_states
3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.advising.model import AdvisingSetup
from core.common.errors import InputError
from core.common.timestamps import now_iso
from core.gridworld.maps import GridEntry
from core.logistics.document import MapEntry
from core.mdp.editable import MdpModel
from core.mdp.model import MDP
from core.privacy.ledger import LedgerEntry

__all__ = ["MdpEntry", "RunRecord", "Project", "now_iso"]


class MdpEntry:
    """An MDP of the project: its id, the editable :class:`MdpModel` and a note.

    ``entry.mdp`` is the validated, frozen :class:`MDP` of the model (cached until the
    model changes; InputError naming the problem if the model is invalid). Assigning an
    MDP to ``entry.mdp`` replaces the model.
    """

    def __init__(self, id: str, mdp: "MDP | MdpModel", note: str = "") -> None:  # noqa: A002
        self.id = id
        self.note = note
        self.model = mdp if isinstance(mdp, MdpModel) else MdpModel.from_mdp(mdp)
        # (model, version, MDP): holds the model itself, so a model that replaced a freed
        # one at the same address can never be taken for it
        self._cache: tuple[MdpModel, int, MDP] | None = None

    @property
    def mdp(self) -> MDP:
        model = self.model
        if self._cache is None or self._cache[0] is not model \
                or self._cache[1] != model.version:
            self._cache = (model, model.version, model.to_mdp())
        return self._cache[2]

    @mdp.setter
    def mdp(self, value: MDP) -> None:
        self.model = MdpModel.from_mdp(value)
        self._cache = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MdpEntry):
            return NotImplemented
        return (self.id, self.note, self.model.to_dict()) == (other.id, other.note,
                                                              other.model.to_dict())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MdpEntry(id={self.id!r}, name={self.model.name!r})"


@dataclass
class RunRecord:
    """One analysis run: what was run, on what, with which parameters, and its summary."""

    id: str
    kind: str  # e.g. "sweep"
    target: str  # id of the analysed item
    params: dict[str, Any]
    summary: dict[str, Any]
    mode: str  # "experiment" or "release"
    seed: int | None
    created: str = field(default_factory=now_iso)


@dataclass
class Project:
    name: str = "Untitled"
    mdps: list[MdpEntry] = field(default_factory=list)
    runs: list[RunRecord] = field(default_factory=list)
    # logistics maps (validated; edited through core.logistics.edits)
    maps: list[MapEntry] = field(default_factory=list)
    # grid worlds of the private-agents workspace (may break the constraints while drawn)
    grids: list[GridEntry] = field(default_factory=list)
    # advising set-ups (validated; the workspace shows the first)
    advising: list[AdvisingSetup] = field(default_factory=list)
    # every release and seeded privatisation (typed, validated when a file is read)
    ledger: list[LedgerEntry] = field(default_factory=list)
    notes: str = ""
    # privacy budget per protected dataset: {dataset: {"epsilon": e, "delta": d}}
    # (core.privacy.ledger.budgets_from_dict reads it); optional key "budgets" in the file
    budgets: dict[str, dict[str, float]] = field(default_factory=dict)
    # privacy plans (plan documents, docs/formats-and-cli.md §6), each with a unique "name";
    # optional key "plans" in the file, validated in full where a plan is used (core.plan)
    plans: list[dict[str, Any]] = field(default_factory=list)
    # what the file this project was read from (or last saved to) held: the merge base of
    # the next save (core.project.snapshot.Snapshot; None for a project never saved)
    origin: Any = field(default=None, compare=False, repr=False)

    def _new_id(self, prefix: str, taken: set[str]) -> str:
        i = 1
        while f"{prefix}-{i}" in taken:
            i += 1
        return f"{prefix}-{i}"

    def add_mdp(self, mdp: "MDP | MdpModel", mdp_id: str | None = None) -> str:
        mdp_id = mdp_id or self._new_id("mdp", {e.id for e in self.mdps})
        self.mdps.append(MdpEntry(mdp_id, mdp))
        return mdp_id

    def entry(self, mdp_id: str) -> MdpEntry:
        for e in self.mdps:
            if e.id == mdp_id:
                return e
        raise InputError(f"no MDP with id {mdp_id!r}", field="mdp")

    def mdp(self, mdp_id: str) -> MDP:
        """The validated MDP of an entry (InputError if its model is invalid)."""
        return self.entry(mdp_id).mdp

    def new_map_id(self) -> str:
        return self._new_id("map", {m.id for m in self.maps})

    def new_grid_id(self) -> str:
        return self._new_id("grid", {g.id for g in self.grids})

    def new_run_id(self) -> str:
        return self._new_id("run", {r.id for r in self.runs})

    def plan(self, name: str) -> dict[str, Any]:
        """The plan document named ``name`` (InputError naming the known plans if none)."""
        for p in self.plans:
            if p.get("name") == name:
                return p
        known = ", ".join(str(p.get("name")) for p in self.plans) or "none"
        raise InputError(f"the project has no plan {name!r} (its plans: {known})",
                         field="plan")

    def runs_for(self, target: str, kind: str | None = None) -> list[RunRecord]:
        return [r for r in self.runs if r.target == target and (kind is None or r.kind == kind)]
