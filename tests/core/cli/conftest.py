"""Fixtures shared by the command-line tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

BUILTIN = Path(__file__).resolve().parents[3] / "assets" / "examples" / "builtin.privplan.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy of the built-in example project, ``p.privplan.json`` in ``tmp_path``."""
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    return path
