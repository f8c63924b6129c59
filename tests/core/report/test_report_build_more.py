"""core.report.build: the provenance names the project file by its SHA-256 (checked with
hashlib), the generated time honours SOURCE_DATE_EPOCH, sections are chosen by id, a run
kind without a layout still gets a section, oracle and ledger notes are attached to their run,
a damaged run is refused naming runs[i], and section_titles agrees with the built report."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest

from core.common.errors import InputError
from core.mdp.examples import corridor
from core.privacy.ledger import LedgerEntry
from core.project.files import save_project
from core.project.model import Project, RunRecord
from core.report.build import (
    OPTIONAL_SECTIONS,
    build_report,
    file_sha256,
    oracle_keys,
    section_titles,
)
from core.report.html import to_html
from core.report.model import KeyValues, Paragraph, Table

NOW = dt.datetime(2026, 3, 4, 5, 6, 7, 890, tzinfo=dt.timezone.utc)


def _run(rid: str = "run-1", kind: str = "mystery-kind", **over: object) -> RunRecord:
    d: dict = dict(id=rid, kind=kind, target="thing", params={"alpha": 0.5, "name": "ü",
                                                             "nested": {"x": 1}},
                   summary={}, mode="experiment", seed=17, created="2026-01-02T03:04:05+00:00")
    d.update(over)
    return RunRecord(**d)


def test_file_sha256_is_hashlibs_digest_of_the_bytes(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    data = bytes(range(256)) * 5000  # more than one read chunk
    f.write_bytes(data)
    assert file_sha256(f) == hashlib.sha256(data).hexdigest()
    e = tmp_path / "empty"
    e.write_bytes(b"")
    assert file_sha256(str(e)) == hashlib.sha256(b"").hexdigest()


def test_oracle_keys_read_only_a_list() -> None:
    assert oracle_keys(_run(summary={"oracle_keys": ["a", 3]})) == ["a", "3"]
    assert oracle_keys(_run(summary={"oracle_keys": "a"})) == []
    assert oracle_keys(_run(summary={})) == []


def test_the_metadata_names_the_project_file_and_the_seeds(tmp_path: Path) -> None:
    p = Project(name="Études")
    p.runs = [_run("run-1", seed=17), _run("run-2", seed=None, mode="release"),
              _run("run-3", seed=3)]
    path = tmp_path / "Études.privplan.json"
    save_project(p, path)
    rep = build_report(p, project_path=path, now=NOW)
    m = rep.metadata
    assert m["project SHA-256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert m["project file"] == "Études.privplan.json"
    assert m["rebuild with"] == "privplan report Études.privplan.json -o REPORT.pdf"
    assert m["seeds"] == "17, 3"  # sorted as text, each once
    assert m["generated"] == "2026-03-04T05:06:07+00:00"
    assert rep.title == "PrivPlan report — Études"


def test_a_missing_project_file_is_not_named(tmp_path: Path) -> None:
    rep = build_report(Project(name="p"), project_path=tmp_path / "gone.privplan.json",
                       now=NOW)
    assert "project SHA-256" not in rep.metadata and "seeds" not in rep.metadata


def test_source_date_epoch_fixes_the_generated_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    assert build_report(Project()).metadata["generated"] == "1970-01-02T00:00:00+00:00"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "not a number")
    generated = dt.datetime.fromisoformat(build_report(Project()).metadata["generated"])
    assert abs((dt.datetime.now(dt.timezone.utc) - generated).total_seconds()) < 600


def test_an_empty_project_says_it_has_no_analyses() -> None:
    rep = build_report(Project(), now=NOW)
    ids = [s.id for s in rep.sections]
    assert ids == ["no-analyses", "ledger"]
    assert "no analyses yet" in rep.sections[0].blocks[0].text  # type: ignore[union-attr]


def test_a_run_without_a_layout_lists_its_parameters() -> None:
    p = Project()
    p.runs = [_run()]
    sec = next(s for s in build_report(p, now=NOW).sections if s.id == "run-run-1")
    assert sec.title == "mystery-kind on thing (run-1)"
    kv = next(b for b in sec.blocks if isinstance(b, KeyValues))
    items = dict(kv.items)
    assert items["alpha"] == "0.5" and items["name"] == "ü"
    assert "nested" not in items  # only scalar parameters are listed
    assert items["randomness"].startswith("seeded experiment (seed 17)")
    assert items["created"] == "2026-01-02 03:04:05 UTC"
    assert any(isinstance(b, Paragraph) and "no report layout" in b.text for b in sec.blocks)


def test_oracle_and_ledger_notes_are_attached_to_their_run() -> None:
    p = Project()
    p.runs = [_run(summary={"oracle_keys": ["value"], "oracle_view": "true-model values"})]
    p.ledger = [LedgerEntry("e1", "d", "laplace", 0.5, source="run-1", mode="experiment"),
                LedgerEntry("e2", "d", "laplace", 0.5, source="run-9")]
    rep = build_report(p, now=NOW)
    sec = next(s for s in rep.sections if s.id == "run-run-1")
    texts = [b.text for b in sec.blocks if isinstance(b, Paragraph)]
    assert sec.blocks[1].text.startswith("Oracle view — value: true-model values")  # type: ignore[union-attr]
    assert texts[-1] == "Privacy ledger entries of this run: e1 (experiment)."
    overview = next(s for s in rep.sections if s.id == "overview")
    runs_table = next(b for b in overview.blocks if isinstance(b, Table) and
                      b.title == "Analyses")
    assert runs_table.rows[0][3].endswith("; oracle view")
    assert any(isinstance(b, Paragraph) and b.text.startswith("Oracle views: run-1")
               for b in overview.blocks)


def test_sections_are_chosen_by_id_and_the_appendix_only_on_request() -> None:
    p = Project()
    p.add_mdp(corridor(), "c")
    p.runs = [_run("run-1"), _run("run-2")]
    p.ledger = [LedgerEntry("e1", "d", "laplace", 0.5)]
    default = [s.id for s in build_report(p, now=NOW).sections]
    assert default == ["overview", "models", "run-run-1", "run-run-2", "ledger"]
    assert OPTIONAL_SECTIONS == ("ledger-entries",)
    picked = [s.id for s in build_report(p, include=["run-run-2", "ledger-entries"],
                                         now=NOW).sections]
    assert picked == ["run-run-2", "ledger-entries"]
    assert build_report(p, include=[], now=NOW).sections == []


def test_section_titles_match_the_built_report() -> None:
    p = Project()
    p.add_mdp(corridor(), "c")
    p.runs = [_run("run-1")]
    p.ledger = [LedgerEntry("e1", "d", "laplace", 0.5)]
    titles = section_titles(p)
    built = build_report(p, include=[i for i, _ in titles], now=NOW)
    assert [(s.id, s.title) for s in built.sections] == titles


def test_a_damaged_run_is_refused_naming_its_position() -> None:
    """A reporter that trips over a summary edited outside PrivPlan (here a KeyError and a
    TypeError) makes the build refuse with the run's position, never a traceback."""
    from core.report.model import REPORTERS, Section, reporter

    def fragile(project: object, run: RunRecord) -> Section:
        return Section(f"{run.summary['value'] + 1}")

    before = dict(REPORTERS)
    try:
        reporter("fragile-kind")(fragile)
        p = Project()
        p.runs = [_run("run-1"), _run("run-2", kind="fragile-kind", summary={})]
        with pytest.raises(InputError) as info:
            build_report(p, now=NOW)
        assert info.value.field == "runs[1]" and "'run-2'" in info.value.problem
        assert "KeyError" in info.value.problem and "not written" in info.value.problem
        p.runs[1] = _run("run-2", kind="fragile-kind", summary={"value": "text"})
        with pytest.raises(InputError) as info:
            build_report(p, now=NOW)
        assert "TypeError" in info.value.problem
        p.runs[1] = _run("run-2", kind="fragile-kind", summary={"value": 41})
        assert build_report(p, now=NOW).sections[-2].title == "42"
    finally:
        REPORTERS.clear()
        REPORTERS.update(before)


def test_the_whole_report_renders_to_html() -> None:
    p = Project(name="p <&>", notes="notes ✓")
    p.runs = [_run()]
    page = to_html(build_report(p, now=NOW), css="")
    assert "p &lt;&amp;&gt;" in page and "notes ✓" in page
    assert page.count("<section") == len(build_report(p, now=NOW).sections)
