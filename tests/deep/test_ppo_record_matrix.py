"""``share gym:… --agent ppo --project P --record`` in the recorder matrix
(``tests/core/project/test_recorder_matrix.py``): as real processes, slowed and free, against
other recorders; nothing lost, every entry on its own run. It lives here because the core
tests run where JAX is not installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

MATRIX = Path(__file__).resolve().parents[1] / "core" / "project" / "test_recorder_matrix.py"


@pytest.mark.slow
def test_ppo_recorder_against_others_loses_nothing(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("recorder_matrix", MATRIX)
    assert spec is not None and spec.loader is not None
    matrix = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(matrix)
    matrix.run_ppo_matrix(tmp_path)
