"""One way to write a project: every writer of a project file merges, under the lock.

A project file may be written by several programs at once (the window, any number of
``--record`` commands). Only :mod:`core.project.store` writes over one, reading it again
under the project lock and merging (:func:`~core.project.store.record_and_save` for a
command's run, :func:`~core.project.store.save_document` for the window's Save). This test
reads the source of the program (``core/``, ``gui/``, ``privplan/``, ``app.py``, ``tools/``)
and fails when any other module

* calls or imports ``save_project`` / ``write_project`` (a save that replaces the file with
  the copy the caller read: how ``bounds --record`` lost a sweep recorded meanwhile), or
* writes files by any route (``atomic_write_*``, ``os.replace``, ``Path.write_text``,
  ``open(…, "w")``, …) without being listed below with what it writes.

A new module that writes a file is added to ``WRITES_FILES`` with the kind of file — never a
project (``*.privplan.json``) file, which goes through the store.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCES = [*sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "gui").rglob("*.py")),
           *sorted((ROOT / "privplan").rglob("*.py")), ROOT / "app.py",
           *sorted((ROOT / "tools").rglob("*.py"))]

#: The project writers that replace a file without merging.
REPLACING = {"save_project", "write_project"}
#: Who may use them, and why.
MAY_REPLACE = {
    "core/project/files.py": "defines them",
    "core/project/store.py": "the merging writer: writes under the lock after the merge",
    "core/project/autosave.py": "the window's recovery copy, a file only its window writes",
    "core/project/__init__.py": "re-exports save_project (for new files: examples, tests)",
    "tools/make_examples.py": "creates the example projects in assets/examples (new files)",
    "tools/make_report_pages.py": "creates a new example project for the report pages",
}

#: Calls that write a file (by name or attribute), and ``os.``/``shutil.`` ones that move or
#: copy a file over another.
FILE_WRITES = {"atomic_write_text", "atomic_write_bytes", "write_text", "write_bytes",
               "savez", "savez_compressed"}
MOVES = {("os", "replace"), ("os", "rename"), ("shutil", "copy"), ("shutil", "copy2"),
         ("shutil", "copyfile"), ("shutil", "move")}
#: Every module that writes files, and what it writes (none of them a project file).
WRITES_FILES = {
    "core/common/atomic.py": "defines the atomic writes",
    "core/project/files.py": "project files (for the store), sidecar arrays",
    "core/project/store.py": "project files: the one merging writer",
    "core/project/autosave.py": "the recovery copy and its note",
    "core/logistics/io.py": "map files (*.map.json)",
    "core/mdp/files.py": "MDP files (*.mdp.json, *.mdp.npz)",
    "core/mdp/interop/prism.py": "PRISM explicit files (export)",
    "core/mdp/interop/drn.py": "Storm DRN files (export)",
    "core/cli/advising.py": "advise-bench --csv",
    "tools/facades.py": "the generated facade stubs (core/*/__init__.pyi)",
    "tools/house_metrics.py": "the measured block of docs/conventions.md",
    "tools/cli_reference.py": "the generated command-line reference page of the guide",
    "core/cli/report.py": "report -o OUT.html",
    "core/cli/logistics.py": "plan-bench / plan-experiment outputs (CSV, JSON, Markdown)",
    "core/cli/synthesis.py": "synthesise -o (a policy JSON)",
    "gui/report/export.py": "report exports (PDF, HTML)",
    "gui/ledger/panel.py": "the ledger's CSV export",
    "gui/plan/files.py": "Save plan… (a *.plan.json file)",
    "tools/make_report_pages.py": "the report pages' pictures",
}


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _called(node: ast.Call) -> str | None:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _moves(node: ast.Call) -> bool:
    f = node.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
        and (f.value.id, f.attr) in MOVES


def _opens_for_writing(node: ast.Call) -> bool:
    if _called(node) not in ("open", "fdopen"):
        return False
    mode = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) \
        and any(c in mode.value for c in "wax+")


def _uses(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(replacing project writers named, file-writing calls made) in a module."""
    replacing, writes = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            replacing |= {a.name for a in node.names if a.name in REPLACING}
        elif isinstance(node, ast.Attribute) and node.attr in REPLACING:
            replacing.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in REPLACING:
            replacing.add(node.id)
        if isinstance(node, ast.Call):
            name = _called(node)
            if name in FILE_WRITES or _moves(node):
                writes.add(name or "")
            if _opens_for_writing(node):
                writes.add("open")
    return replacing, writes


def test_only_the_store_replaces_a_project_file() -> None:
    offenders = {}
    for path in SOURCES:
        replacing, _ = _uses(ast.parse(path.read_text(encoding="utf-8")))
        if replacing and _rel(path) not in MAY_REPLACE:
            offenders[_rel(path)] = sorted(replacing)
    assert not offenders, (
        "these modules write a project file without merging what other writers recorded "
        f"(use core.project.store.record_and_save or save_document): {offenders}")


def test_every_module_that_writes_files_is_listed_with_what_it_writes() -> None:
    writers = {}
    for path in SOURCES:
        _, writes = _uses(ast.parse(path.read_text(encoding="utf-8")))
        if writes:
            writers[_rel(path)] = sorted(writes)
    unlisted = {k: v for k, v in writers.items() if k not in WRITES_FILES}
    assert not unlisted, (
        f"new file writers {unlisted}: a project file goes through core.project.store; "
        "anything else is listed in WRITES_FILES with what it writes")
    stale = set(WRITES_FILES) - set(writers)
    assert not stale, f"listed but writing nothing now (remove them): {sorted(stale)}"


def test_the_checks_catch_the_old_bounds_record() -> None:
    """The pattern ``bounds --record`` had: a replacing save after an in-memory record."""
    old = ("def _record_bounds(args, project):\n"
           "    from core.project.files import save_project\n"
           "    record_run(project, record, entries)\n"
           "    save_project(project, args.mdp)\n")
    assert _uses(ast.parse(old))[0] == {"save_project"}
    sneaky = ("import os\n"
              "def f(p, text):\n"
              "    with open(p + '.tmp', 'w') as fh:\n"
              "        fh.write(text)\n"
              "    os.replace(p + '.tmp', p)\n")
    assert _uses(ast.parse(sneaky))[1] == {"open", "replace"}
