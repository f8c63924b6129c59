"""A renumbered run takes every ledger entry linked to it along, whatever its source says
after the run id (``run-7`` or ``run-7: logistics: …``), in both writers of the store.

Before, only entries whose source was exactly the run id followed: a plan recorded as run-8
while another writer took run-7 left its 13 entries on run-7, someone else's sweep.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from core.privacy.ledger import LedgerEntry
from core.project.files import load_project
from core.project.model import RunRecord
from core.project.snapshot import entry_run, snapshot
from core.project.store import record_and_save, save_document

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"


def _plan(project, tag: str) -> tuple[RunRecord, list[LedgerEntry]]:
    rid = project.new_run_id()
    rec = RunRecord(rid, "plan", "map-1", {"tag": tag}, {}, "experiment", 4)
    entries = [LedgerEntry(id="", dataset=f"agent:a{i}", mechanism="laplace", epsilon=0.5,
                           mode="experiment", seed=4, source=f"{rid}: logistics: agent a{i}")
               for i in range(3)]
    entries.append(LedgerEntry(id="", dataset="agent:x", mechanism="laplace", epsilon=0.5,
                               mode="experiment", seed=4, source=rid,
                               released=f"advice of x (3 releases, {rid})"))
    return rec, entries


def _linked(project, run_id: str) -> list[LedgerEntry]:
    ids = {r.id for r in project.runs}
    return [e for e in project.ledger if entry_run(e.source, ids) == run_id]


def test_a_command_renumbered_at_record_time_relinks_both_forms(tmp_path: Path) -> None:
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    first, second = load_project(path), load_project(path)  # both read an empty ledger
    rec_a, ent_a = _plan(first, "a")
    rec_b, ent_b = _plan(second, "b")
    assert rec_a.id == rec_b.id == "run-1"
    record_and_save(path, first, rec_a, ent_a)
    stored, entries = record_and_save(path, second, rec_b, ent_b)
    assert stored.id == "run-2"
    assert [e.source for e in entries] == [f"run-2: logistics: agent a{i}" for i in range(3)] \
        + ["run-2"]
    assert entries[-1].released == "advice of x (3 releases, run-2)"  # its text follows
    after = load_project(path)
    for run, tag in (("run-1", "a"), ("run-2", "b")):
        assert {r.id: r.params["tag"] for r in after.runs}[run] == tag
        assert len(_linked(after, run)) == 4


def test_the_windows_merge_relinks_a_renumbered_runs_entries(tmp_path: Path) -> None:
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    window = load_project(path)
    command = load_project(path)
    rec, entries = _plan(command, "command")
    record_and_save(path, command, rec, entries)  # the command's plan is run-1 on disk
    mine, my_entries = _plan(window, "window")    # the window's own run-1
    window.runs.append(mine)
    window.ledger.extend(LedgerEntry(**{**e.__dict__, "id": f"rel-{i + 1}"})
                         for i, e in enumerate(my_entries))
    report = save_document(window, path)
    assert report.merged_runs == ["run-2"] and len(report.merged_entries) == 4
    after = load_project(path)
    tags = {r.id: r.params["tag"] for r in after.runs}
    assert tags == {"run-1": "window", "run-2": "command"}
    assert {e.source for e in _linked(after, "run-2")} == {
        "run-2", *(f"run-2: logistics: agent a{i}" for i in range(3))}
    assert len(_linked(after, "run-1")) == 4 and len(after.ledger) == 8
    # saving again merges nothing twice: the merge keys read both forms of the link
    assert save_document(after, path).merged_entries == []
    assert len(load_project(path).ledger) == 8


def test_merge_keys_follow_the_run_not_its_id() -> None:
    run = {"kind": "plan", "target": "map-1"}
    a = {"runs": [dict(run, id="run-1")],
         "ledger": [{"id": "rel-1", "source": "run-1: logistics: a1", "epsilon": 1}]}
    b = {"runs": [dict(run, id="run-5")],
         "ledger": [{"id": "rel-9", "source": "run-5: logistics: a1", "epsilon": 1}]}
    assert snapshot(a, "x").ledger == snapshot(b, "x").ledger
    c = {"runs": [dict(run, id="run-5")],
         "ledger": [{"id": "rel-9", "source": "run-5: logistics: a2", "epsilon": 1}]}
    assert snapshot(a, "x").ledger != snapshot(c, "x").ledger
