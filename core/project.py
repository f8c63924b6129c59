"""The project document: plain dataclasses, mutated only by the GUI's document/commands.

A project holds MDPs (each a frozen :class:`core.mdp.MDP` under a stable id), run
records (parameters, seeds and summaries — never big arrays), and slots that later
workspaces fill (logistics maps, advising set-ups, the privacy ledger).

Examples
--------
>>> from core.examples import four_startups
>>> p = Project(name="demo")
>>> p.add_mdp(four_startups())
'mdp-1'
>>> p.mdp("mdp-1").n_states
3
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from core._validation import InputError
from core.mdp import MDP

__all__ = ["MdpEntry", "RunRecord", "Project", "now_iso"]


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


@dataclass
class MdpEntry:
    id: str
    mdp: MDP
    note: str = ""


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
    maps: list[dict[str, Any]] = field(default_factory=list)
    advising: list[dict[str, Any]] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    notes: str = ""

    def _new_id(self, prefix: str, taken: set[str]) -> str:
        i = 1
        while f"{prefix}-{i}" in taken:
            i += 1
        return f"{prefix}-{i}"

    def add_mdp(self, mdp: MDP, mdp_id: str | None = None) -> str:
        mdp_id = mdp_id or self._new_id("mdp", {e.id for e in self.mdps})
        self.mdps.append(MdpEntry(mdp_id, mdp))
        return mdp_id

    def mdp(self, mdp_id: str) -> MDP:
        for e in self.mdps:
            if e.id == mdp_id:
                return e.mdp
        raise InputError(f"no MDP with id {mdp_id!r}", field="mdp")

    def new_run_id(self) -> str:
        return self._new_id("run", {r.id for r in self.runs})

    def runs_for(self, target: str, kind: str | None = None) -> list[RunRecord]:
        return [r for r in self.runs if r.target == target and (kind is None or r.kind == kind)]
