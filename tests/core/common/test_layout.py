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


def mixed_classes(tree: ast.AST) -> list[str]:
    """Classes that mix bases together (two or more bases) or are named a mixin."""
    return [f"class {n.name}({', '.join(ast.unparse(b) for b in n.bases)})"
            for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
            and (len(n.bases) > 1 or n.name.lower().endswith("mixin"))]


def test_no_mixin_class_in_gui():
    """Workspaces are composed of objects that take ``(document, view)``, never of mixins
    (docs/architecture.md): no class in gui/ has two bases or is named a mixin."""
    bad = [f"{path.relative_to(ROOT)}: {c}" for path in sorted((ROOT / "gui").rglob("*.py"))
           for c in mixed_classes(ast.parse(path.read_text(encoding="utf-8")))]
    assert bad == []


def test_the_mixin_check_sees_a_mixin():
    """The check fails on the shapes it forbids: a panel that mixes a helper in, a mixin."""
    tree = ast.parse("class Drawing:\n    pass\n\nclass View(Drawing, QWidget):\n    pass\n"
                     "\nclass RunMixin:\n    pass\n\nclass Panel(QWidget):\n    pass\n")
    assert mixed_classes(tree) == ["class View(Drawing, QWidget)", "class RunMixin()"]


# GUI modules still over the 600-line limit, at most this long; the list only shrinks.
LONG_GUI_MODULES = {
    "gui/shell/main_window.py": 1312,
    "gui/mdp/inspector.py": 946,
    "gui/advising/results.py": 896,
    "gui/logistics/map_view.py": 850,
    "gui/mdp/analysis_panel.py": 744,
    "gui/logistics/experiments.py": 680,
    "gui/audit/panel.py": 652,
    "gui/ledger/panel.py": 645,
}


def test_gui_modules_stay_under_600_lines_or_only_shrink():
    over = {}
    for path in sorted((ROOT / "gui").rglob("*.py")):
        n = path.read_text(encoding="utf-8").count("\n")
        rel = path.relative_to(ROOT).as_posix()
        if n > LIMIT and n > LONG_GUI_MODULES.get(rel, LIMIT):
            over[rel] = n
    assert over == {}, f"over {LIMIT} lines (or longer than its ceiling): {over}"
