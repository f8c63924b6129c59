"""Panels are composed of parts that receive what they need, never the panel.

A part of a GUI package (any module but its ``panel.py``) that keeps the panel as
``self._view`` and reads ``self._view.<widget>`` is a mixin in all but name: it can touch
every widget of the panel, and its imports of the panel (often under ``TYPE_CHECKING``) tie
the two together. The house shape is a part given a small bundle of the widgets it reads
or writes and callables for what it asks of the panel (``gui/advising/views.py``).

The packages of :data:`STRICT` are held to that fully. Elsewhere the remaining uses are
counted per file in :data:`ALLOWANCE`, a list that may only shrink: a file over its
allowance, or not listed, fails; so does a listed file below its allowance (lower the
number, so it stays down).
The count is of ``self._view`` in code (``ast``; a ``v = self._view`` alias counts once, its
``v.<widget>`` reads not), so the checks run without Qt.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

#: Modules that may hold and import their package's panel: the panel itself, and the
#: screenshot scripts, which build the panel as a user opens it (drivers, not parts).
PANEL_HOLDERS = ("panel.py", "screenshot.py")

#: path → (uses of ``self._view`` in code, imports its package's panel module); only shrinks.
ALLOWANCE: dict[str, tuple[int, bool]] = {}

#: Packages held to the rule with no allowance at all.
STRICT = ("gui/advising", "gui/calculator", "gui/logistics", "gui/mdp", "gui/sharing")


def view_uses(tree: ast.AST) -> int:
    """How many times the code reads or writes ``self._view`` (comments and strings aside)."""
    return sum(1 for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "_view"
               and isinstance(n.value, ast.Name) and n.value.id == "self")


def imports_panel(tree: ast.AST, package: str) -> bool:
    """True if the module imports ``gui.<package>.panel`` (at run time or for type checking)."""
    target = f"gui.{package}.panel"
    for n in ast.walk(tree):
        if isinstance(n, ast.Import) and any(a.name == target for a in n.names):
            return True
        if isinstance(n, ast.ImportFrom):
            if n.level == 0 and n.module == target:
                return True
            if n.level == 0 and n.module == f"gui.{package}" and any(
                    a.name == "panel" for a in n.names):
                return True
            if n.level == 1 and (n.module == "panel" or (
                    n.module is None and any(a.name == "panel" for a in n.names))):
                return True
    return False


def reach_of_parts(root: Path = ROOT) -> dict[str, tuple[int, bool]]:
    """path → (``self._view`` uses, imports its panel) of every GUI part that has either."""
    found: dict[str, tuple[int, bool]] = {}
    for path in sorted((root / "gui").glob("*/*.py")):
        if path.name in PANEL_HOLDERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        uses, imports = view_uses(tree), imports_panel(tree, path.parent.name)
        if uses or imports:
            found[path.relative_to(root).as_posix()] = (uses, imports)
    return found


def test_strict_parts_never_see_the_panel():
    """No module of a STRICT package but its panel imports the panel or uses self._view."""
    reach = reach_of_parts()
    bad = {p: r for p, r in reach.items() if p.startswith(STRICT)}
    assert bad == {}
    assert not [p for p in ALLOWANCE if p.startswith(STRICT)]


def test_gui_parts_reach_into_their_panel_no_more_than_allowed():
    """Elsewhere in gui/, the uses of the panel by its parts only go down."""
    reach = reach_of_parts()
    over = {p: (r, ALLOWANCE.get(p)) for p, r in reach.items()
            if p not in ALLOWANCE or r[0] > ALLOWANCE[p][0] or (r[1] and not ALLOWANCE[p][1])}
    assert over == {}, "a part reaches into its panel more than before (path: now, allowed)"
    stale = {p: (reach.get(p, (0, False)), a) for p, a in ALLOWANCE.items()
             if reach.get(p, (0, False)) != a}
    assert stale == {}, "uses fell: lower ALLOWANCE to (path: now, listed) so they stay down"


def test_the_checks_see_a_part_that_holds_its_panel(tmp_path):
    """The checks fail on the shapes they forbid: a TYPE_CHECKING import of the panel, a
    relative import, ``self._view.<widget>`` reads; a ``_view`` that is not ``self``'s and
    the words in a docstring do not count."""
    part = ('"""Uses self._view.button in prose only."""\n'
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from gui.demo.panel import DemoPanel\n"
            "class Part:\n"
            "    def __init__(self, view):\n        self._view = view\n"
            "    def go(self, other):\n"
            "        self._view.button.setEnabled(other._view.ok)\n")
    tree = ast.parse(part)
    assert view_uses(tree) == 2
    assert imports_panel(tree, "demo")
    assert not imports_panel(tree, "other")
    assert imports_panel(ast.parse("from . import panel\n"), "demo")
    assert imports_panel(ast.parse("from .panel import DemoPanel\n"), "demo")
    assert not imports_panel(ast.parse("from .views import Widgets\n"), "demo")

    demo = tmp_path / "gui" / "demo"
    demo.mkdir(parents=True)
    (demo / "part.py").write_text(part, encoding="utf-8")
    (demo / "panel.py").write_text("class DemoPanel:\n    def f(self):\n        self._view = 1\n",
                                   encoding="utf-8")
    (demo / "bundle.py").write_text("from gui.demo.views import Widgets\n", encoding="utf-8")
    assert reach_of_parts(tmp_path) == {"gui/demo/part.py": (2, True)}
