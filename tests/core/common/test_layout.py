"""The house rules of the tree (docs/architecture.md) that a test can check."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LIMIT = 600


def test_no_gui_module_over_600_lines_without_a_reason_at_its_top():
    """House style: a long GUI module says at its top why it is long."""
    missing = []
    for path in sorted((ROOT / "gui").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= LIMIT:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if "600 lines" not in doc:
            missing.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert missing == []


def test_no_module_imports_a_private_name_from_another_package():
    """``from x.y import _name`` only within the same package (docs/architecture.md)."""
    bad = []
    for top in ("core", "gui"):
        for path in sorted((ROOT / top).rglob("*.py")):
            package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:2])
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    other = ".".join(node.module.split(".")[:2])
                    private = [a.name for a in node.names if a.name.startswith("_")
                               and not a.name.startswith("__")]
                    if private and other != package:
                        bad.append(f"{path.relative_to(ROOT)}: {node.module}:{private}")
    assert bad == []
