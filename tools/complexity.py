"""Simple functions: McCabe complexity at most 15 and at most 120 lines, with a named list of
exceptions that may only shrink.

ruff enforces the complexity (``C901``, ``max-complexity = 15`` in ``pyproject.toml``), but it
can excuse a function only by a ``noqa`` comment or a whole file by ``per-file-ignores``. This
check is the precise one: it lists every function over either limit — the complexity from
``ruff check --select C901 --output-format json`` (run without the per-file ignores), the
length from the ``ast`` (``def`` line to last line, decorators not counted) — and compares
them with :data:`EXCEPTIONS`, keyed ``"path::qualname"`` with the reason. It fails (exit 1)
on a function over a limit that is not listed, on a listed function that is no longer over
either limit (remove it: the list only shrinks), and when the ``C901`` per-file ignores of
``pyproject.toml`` are not exactly the files that hold a listed function over the
complexity limit (so ``ruff check .`` stays green and no file stays excused once its
functions are split).

Usage: ``python tools/complexity.py [--list] [ROOT]``; ``--list`` prints what is over the
limits now as lines for :data:`EXCEPTIONS`. Exit 0 when everything matches, 1 on a
mismatch, 3 when ruff is not installed.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

MAX_COMPLEXITY = 15
MAX_LINES = 120
ROOT = Path(__file__).resolve().parent.parent

# "path::qualname": why the function is still over a limit (split it, then remove the entry)
EXCEPTIONS: dict[str, str] = {
    "core/deep/dqn.py::train_dqn":
        "one loop threads params, target, Adam state, replay ring, 2 RNGs; 24 docstring lines",
    "core/deep/kickstart.py::run_ppo_sharing":
        "16 parameters: a 40-line docstring and 5 checks before one teacher-then-students run",
    "core/deep/ppo.py::train_ppo":
        "one PPO loop (roll-out, GAE, updates) threading params, Adam state, envs and the RNG",
    "core/deep/vdn.py::train_vdn_net":
        "one episode loop threading parameters, replay window, 2 RNGs; DP/plain update inside",
    "gui/advising/panel.py::AdvisingPanel._build_editor":
        "one editor of 3 group boxes built in order; outside this split, module 597/600 lines",
    "gui/advising/results.py::AdvisingResultsView.__init__":
        "one results view built in order; outside this split, module at its line ceiling",
    "gui/audit/panel.py::AuditPanel._build_setup":
        "one group box built in order, 1 line over; module at its line ceiling (helper adds)",
    "gui/ledger/panel.py::LedgerPanel.__init__":
        "one panel of 2 group boxes built in order; module at its line ceiling (helpers add)",
    "gui/logistics/panel.py::LogisticsPanel._build_map_page":
        "one map page built in order; left alone while another change edits gui/logistics",
    "gui/mdp/analysis_panel.py::AnalysisPanel.__init__":
        "one panel of 4 group boxes built in order; module 3 lines under its ceiling",
    "gui/mdp/inspector.py::MdpInspector.__init__":
        "one inspector, 25 signal hookups, built in order; module at its line ceiling",
    "gui/sharing/panel.py::SharingPanel._build_setup":
        "one form of 3 group boxes built in order; another change is editing this panel",
    "gui/shell/main_window.py::MainWindow.__init__":
        "the window's wiring (24 signal hookups) in one place; module at its line ceiling",
    "gui/shell/main_window.py::MainWindow._create_actions":
        "every menu action in one table-like block, 3 lines over; module at its ceiling",
}

_TOO_COMPLEX = re.compile(r"`(?P<name>[^`]+)` is too complex \((?P<n>\d+) > \d+\)")


def ruff_command() -> list[str] | None:
    """How to run ruff here: this Python's ruff module, else a ruff on PATH, else None."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    found = shutil.which("ruff")
    return [found] if found else None


def _ruff(ruff: list[str], root: Path, *args: str) -> str:
    proc = subprocess.run([*ruff, "check", *args], cwd=root, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        sys.exit(f"ruff failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def functions(path: Path, rel: str) -> dict[int, tuple[str, int]]:
    """Every function of one file by its ``def`` line: (``"path::qualname"``, its lines).

    The qualname joins the enclosing classes and functions with dots (``Panel.run``,
    ``preview.build``).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: dict[int, tuple[str, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    lines = (child.end_lineno or child.lineno) - child.lineno + 1
                    found[child.lineno] = (f"{rel}::{name}", lines)
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def over_limits(root: Path, ruff: list[str]) -> dict[str, str]:
    """Every function of the files ruff checks under ``root`` that is over a limit, with
    what is over (``"complexity 26 > 15"``, ``"130 lines > 120"``, or both)."""
    files = [Path(f) for f in _ruff(ruff, root, "--show-files", ".").splitlines()
             if f.endswith((".py", ".pyi"))]
    report = json.loads(_ruff(
        ruff, root, "--select", "C901", "--config",
        f"lint.mccabe.max-complexity={MAX_COMPLEXITY}", "--config", "lint.per-file-ignores={}",
        "--output-format", "json", "--exit-zero", ".") or "[]")
    complexity: dict[tuple[str, int], int] = {}
    for d in report:
        m = _TOO_COMPLEX.match(d["message"])
        if d["code"] == "C901" and m:
            complexity[(_relative(d["filename"], root), d["location"]["row"])] = int(m["n"])
    found: dict[str, list[str]] = {}
    for path in files:
        rel = _relative(str(path), root)
        for row, (key, lines) in functions(root / rel, rel).items():
            if (rel, row) in complexity:
                found.setdefault(key, []).append(
                    f"complexity {complexity.pop((rel, row))} > {MAX_COMPLEXITY}")
            if lines > MAX_LINES:
                found.setdefault(key, []).append(f"{lines} lines > {MAX_LINES}")
    for (rel, row), n in complexity.items():  # ruff saw a function the ast walk did not
        found.setdefault(f"{rel}:{row}", []).append(f"complexity {n} > {MAX_COMPLEXITY}")
    return {key: ", ".join(why) for key, why in sorted(found.items())}


def _relative(filename: str, root: Path) -> str:
    path = Path(filename)
    return (path.resolve().relative_to(root.resolve()) if path.is_absolute()
            else path).as_posix()


def c901_ignored_files(pyproject: Path) -> set[str]:
    """The files whose ``[tool.ruff.lint.per-file-ignores]`` entry ignores C901."""
    if not pyproject.is_file():
        return set()
    lint = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get(
        "ruff", {}).get("lint", {})
    return {pattern for pattern, codes in lint.get("per-file-ignores", {}).items()
            if "C901" in codes}


def problems(found: Mapping[str, str], exceptions: Mapping[str, str],
             ignored: Iterable[str]) -> list[str]:
    """What does not match: unlisted functions over a limit, listed ones no longer over,
    and C901 per-file ignores that differ from the files of listed complex functions."""
    out = [f"{key}: {why} (split it, or list it in tools/complexity.py EXCEPTIONS)"
           for key, why in found.items() if key not in exceptions]
    out += [f"{key}: listed in EXCEPTIONS but no longer over the limits (remove it)"
            for key in exceptions if key not in found]
    need = {key.split("::")[0] for key, why in found.items()
            if key in exceptions and "complexity" in why}
    ignored = set(ignored)
    out += [f"pyproject.toml: {f} holds a listed function over complexity {MAX_COMPLEXITY}; "
            "add it to [tool.ruff.lint.per-file-ignores] with C901" for f in sorted(need - ignored)]
    out += [f"pyproject.toml: the C901 per-file ignore of {f} is no longer needed (remove it)"
            for f in sorted(ignored - need)]
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    root = Path(args[0]).resolve() if args else ROOT
    ruff = ruff_command()
    if ruff is None:
        print("complexity: ruff is not installed (pip install ruff)", file=sys.stderr)
        return 3
    found = over_limits(root, ruff)
    if "--list" in argv:
        for key, why in found.items():
            print(f'    "{key}": "<why it stays one function>",  # {why}')
        return 0
    bad = problems(found, EXCEPTIONS, c901_ignored_files(root / "pyproject.toml"))
    for line in bad:
        print(line)
    if not bad:
        print(f"complexity: {len(found)} functions over the limits, all listed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
