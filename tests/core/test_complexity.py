"""Simple functions (tools/complexity.py): every function at most McCabe 15 and 120 lines, or
named in its EXCEPTIONS; the list and pyproject's C901 per-file ignores only shrink."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("complexity", ROOT / "tools" / "complexity.py")
assert spec is not None and spec.loader is not None
complexity = importlib.util.module_from_spec(spec)
sys.modules["complexity"] = complexity
spec.loader.exec_module(complexity)

RUFF = complexity.ruff_command()
needs_ruff = pytest.mark.skipif(RUFF is None, reason="ruff is not installed (the test extra)")

# 16 if-branches: McCabe 17
COMPLEX = "def tangled(x):\n" + "".join(
    f"    if x == {i}:\n        return {i}\n" for i in range(16)) + "    return -1\n"
LONG = "def long_one():\n    total = 0\n" + "    total += 1\n" * 125 + "    return total\n"
SIMPLE = textwrap.dedent("""\
    class Box:
        def small(self, x):
            return x + 1
    """)


@needs_ruff
def test_the_repository_matches_its_exception_list() -> None:
    assert complexity.main([]) == 0


@needs_ruff
def test_functions_over_a_limit_are_found_by_qualified_name(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(COMPLEX + "\n\nclass K:\n" + textwrap.indent(
        LONG, "    ") + "\n\n" + SIMPLE)
    found = complexity.over_limits(tmp_path, RUFF)
    assert found == {"pkg/a.py::tangled": "complexity 17 > 15",
                     "pkg/a.py::K.long_one": "128 lines > 120"}


@needs_ruff
def test_unlisted_stale_and_excused_files_are_each_reported(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(COMPLEX)
    (tmp_path / "b.py").write_text(LONG)
    (tmp_path / "c.py").write_text(SIMPLE)
    found = complexity.over_limits(tmp_path, RUFF)
    assert set(found) == {"a.py::tangled", "b.py::long_one"}
    # everything listed, the complex function's file excused: clean
    listed = {"a.py::tangled": "being split", "b.py::long_one": "being split"}
    assert complexity.problems(found, listed, {"a.py"}) == []
    # an unlisted function; a listed one split since; a file excused for nothing
    out = complexity.problems(found, {"b.py::long_one": "x", "c.py::Box.small": "x"},
                              {"a.py", "c.py"})
    assert out == [
        "a.py::tangled: complexity 17 > 15 (split it, or list it in tools/complexity.py "
        "EXCEPTIONS)",
        "c.py::Box.small: listed in EXCEPTIONS but no longer over the limits (remove it)",
        "pyproject.toml: the C901 per-file ignore of a.py is no longer needed (remove it)",
        "pyproject.toml: the C901 per-file ignore of c.py is no longer needed (remove it)",
    ]
    # a listed complex function whose file ruff does not excuse: `ruff check .` would fail
    assert complexity.problems(found, listed, set()) == [
        "pyproject.toml: a.py holds a listed function over complexity 15; add it to "
        "[tool.ruff.lint.per-file-ignores] with C901"]


def test_the_c901_ignores_are_read_from_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff.lint.per-file-ignores]\n"a.py" = ["C901"]\n"tests/**" = ["B023"]\n'
        '"b.py" = ["E101", "C901"]\n')
    assert complexity.c901_ignored_files(tmp_path / "pyproject.toml") == {"a.py", "b.py"}
    assert complexity.c901_ignored_files(tmp_path / "missing.toml") == set()
