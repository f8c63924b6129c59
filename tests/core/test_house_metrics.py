"""The numbers docs/conventions.md states about the house are the measured ones
(tools/house_metrics.py), so the conventions cannot overstate what the code does."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("house_metrics", ROOT / "tools" / "house_metrics.py")
assert spec is not None and spec.loader is not None
metrics = importlib.util.module_from_spec(spec)
sys.modules["house_metrics"] = metrics
spec.loader.exec_module(metrics)


def test_conventions_state_the_measured_numbers() -> None:
    assert metrics.main(["--check"]) == 0


def test_the_measures_see_what_they_claim() -> None:
    with_examples, total = metrics.doctest_coverage()
    assert 0 < with_examples < total  # some, not all, public functions have examples
    assert metrics.mypy_settings().startswith(("strict", "not strict"))
    tests, source = metrics.test_ratio()
    assert tests > 0 and source > tests / 2


def test_mypy_settings_name_what_an_override_turns_off(
        tmp_path: Path, monkeypatch: "pytest.MonkeyPatch") -> None:
    monkeypatch.setattr(metrics, "ROOT", tmp_path)
    toml = tmp_path / "pyproject.toml"
    toml.write_text("[tool.mypy]\nstrict = true\n", encoding="utf-8")
    assert metrics.mypy_settings() == "strict"
    toml.write_text('[tool.mypy]\nstrict = true\n\n[[tool.mypy.overrides]]\n'
                    'module = ["gui", "gui.*"]\nwarn_return_any = false\n'
                    'disallow_untyped_defs = false\n', encoding="utf-8")
    assert metrics.mypy_settings() == ("strict, except: gui, gui.* without warn_return_any, "
                                       "disallow_untyped_defs")
    toml.write_text("[tool.mypy]\ncheck_untyped_defs = true\n", encoding="utf-8")
    assert metrics.mypy_settings() == "not strict; on: check_untyped_defs"


def test_every_large_core_module_states_why_it_is_one_module() -> None:
    assert metrics.unexplained() == []
    big = [m for m in metrics.large_modules() if m[0].startswith("core/")]
    assert big and all(reason for _, n, reason in big if n > metrics.SIZE_LIMIT)


def test_check_fails_on_a_large_core_module_without_a_reason(
        tmp_path: Path, monkeypatch: "pytest.MonkeyPatch",
        capsys: "pytest.CaptureFixture[str]") -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "gui").mkdir()
    (tmp_path / "tests").mkdir()
    body = "\n".join(f"x{i} = {i}" for i in range(metrics.SIZE_LIMIT))
    (tmp_path / "core" / "big.py").write_text('"""A big module."""\n' + body, encoding="utf-8")
    (tmp_path / "core" / "fine.py").write_text(
        '"""A big module.\n\nSize: one table, read as one.\n"""\n' + body, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n", encoding="utf-8")
    monkeypatch.setattr(metrics, "ROOT", tmp_path)
    doc = tmp_path / "conventions.md"
    monkeypatch.setattr(metrics, "DOC", doc)
    doc.write_text(f"x\n{metrics.START}\n{metrics.END}\n", encoding="utf-8")
    assert [m[0] for m in metrics.large_modules()] == ["core/big.py", "core/fine.py"]
    assert metrics.unexplained() == [
        f"core/big.py: {metrics.SIZE_LIMIT + 1} lines and no 'Size:' line in its module "
        "docstring saying why it is one module (give one, or split the module)"]
    assert metrics.main(["--write"]) == 1  # the block is written, the module still refused
    assert "1 state their reason" in doc.read_text(encoding="utf-8")
    assert metrics.main(["--check"]) == 1
    assert "core/big.py" in capsys.readouterr().err
    (tmp_path / "core" / "big.py").unlink()
    assert metrics.main(["--write"]) == 0 and metrics.main(["--check"]) == 0
