"""Code and docs say what the code does and why, not which ticket asked for it: the project's
issue tracker is not in the repository, so "issue 26 §4" would point a reader nowhere. An
upstream project's tracker named with its project ("pyqtgraph issue #3485") is a reference a
reader can follow, and stays."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"\b[Ii]ssues? ?#?\d+")
UPSTREAM = re.compile(r"\b(pyqtgraph|PySide6|Qt|numpy|scipy|jax|dp-accounting|opendp)\s+issue",
                      re.I)


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / f for f in out]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary file (images, gzipped runs, fonts)."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_file_refers_to_the_issue_tracker() -> None:
    found = []
    for path in _tracked():
        if not path.is_file() or path == Path(__file__).resolve():  # this file's examples
            continue
        text = _text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if REFERENCE.search(line) and not UPSTREAM.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:90]}")
    assert not found, "references to an issue tracker:\n" + "\n".join(found)


def test_the_rule_can_fail() -> None:
    assert REFERENCE.search("# issue 26 §4: the dock fits")
    assert REFERENCE.search('"""Issue 24\'s reproductions')
    assert UPSTREAM.search("for every plot of the app (pyqtgraph issue #3485)")
