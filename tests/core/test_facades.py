"""The capability packages' facades: one list of public names (the modules' ``__all__``),
a generated stub that is up to date, and every public name importable from its package."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("facades", ROOT / "tools" / "facades.py")
assert spec is not None and spec.loader is not None
facades = importlib.util.module_from_spec(spec)
sys.modules["facades"] = facades
spec.loader.exec_module(facades)

PACKAGES = [p.name for p in facades.packages()]


def test_stubs_are_generated_from_the_modules() -> None:
    assert facades.main(["--check"]) == 0


@pytest.mark.parametrize("pkg", PACKAGES)
def test_every_public_name_is_importable_from_its_package(pkg: str) -> None:
    module = importlib.import_module(f"core.{pkg}")
    if pkg == "deep" and importlib.util.find_spec("jax") is None:
        exports, _, _ = facades.package_exports(ROOT / "core" / pkg)
        names = exports["extra"]  # the rest needs the optional extra
    else:
        names = [n for n in module.__all__]
    for name in names:
        assert getattr(module, name) is not None, f"core.{pkg}.{name}"


@pytest.mark.parametrize("pkg", PACKAGES)
def test_package_init_keeps_no_list_of_its_own(pkg: str) -> None:
    tree = ast.parse((ROOT / "core" / pkg / "__init__.py").read_text(encoding="utf-8"))
    names = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Name)}
    assert "_WHERE" not in names
    assert not [n for n in tree.body if isinstance(n, (ast.If, ast.ImportFrom))], (
        "a facade imports nothing itself: its names come from the generated stub")


def test_names_the_issue_named_resolve_to_their_modules() -> None:
    from core.mdp import synthesize
    from core.mdp.synthesis import synthesize as direct

    assert synthesize is direct
    exports, _, ambiguous = facades.package_exports(ROOT / "core" / "audit")
    assert "LABEL" in ambiguous  # each audit target's own label stays with its module
    assert "run_audit" in exports["run"]
