"""Count the GUI's deep imports into the core.

A *deep* import names a module inside a core capability (``from core.mdp.model import
MdpModel``); a *facade* import names the capability itself (``from core.mdp import
MdpModel``), whose ``__init__`` is its public face. Every ``import`` / ``from … import``
statement in ``gui/`` counts, at module level or inside a function.

Usage: ``python tools/deep_imports.py [--by-module] [ROOT]`` (ROOT defaults to the repository).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path


def core_imports(path: Path) -> list[str]:
    """The core modules imported by one file, one entry per import statement and module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "core" or node.module.startswith("core."):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names
                         if a.name == "core" or a.name.startswith("core."))
    return found


def main(argv: list[str]) -> int:
    by_module = "--by-module" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    deep: Counter[str] = Counter()
    total = 0
    for path in sorted((root / "gui").rglob("*.py")):
        for module in core_imports(path):
            total += 1
            if module.count(".") >= 2:
                deep[module] += 1
    print(f"core imports in gui/: {total}; deep (core.<capability>.<module>): "
          f"{sum(deep.values())}; facade: {total - sum(deep.values())}")
    if by_module:
        for module, n in deep.most_common():
            print(f"{n:4d}  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
