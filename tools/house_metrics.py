"""Measure what the conventions say about the house, and keep the docs' numbers true.

``docs/conventions.md`` states the house's numbers between two markers; this script measures
them and writes them there (``--write``) or fails when the docs are out of date (``--check``,
run by the test suite). What it measures:

* doctest coverage: the public functions and classes of ``core`` (names in a module's
  ``__all__``) whose docstring has an ``Examples`` section with ``>>>``;
* mypy's settings (the core's and the GUI's), as ``pyproject.toml`` has them (strict or not,
  and which checks a per-module override turns off);
* modules over 600 lines in ``core`` and ``gui``, and whether each states its reason (a
  module docstring line starting ``Size:``); ``--check`` also fails on a ``core`` module over
  the limit without one (a large core module says why it is one module, or it is split);
* test lines per source line (non-blank lines of ``tests`` over those of ``core`` and ``gui``).

Usage::

    python tools/house_metrics.py            # print the measurements
    python tools/house_metrics.py --write    # put them into docs/conventions.md
    python tools/house_metrics.py --check    # exit 1 when the docs' block is stale or a
                                             # large core module gives no reason
"""

from __future__ import annotations

import argparse
import ast
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "conventions.md"
START, END = "<!-- house-metrics:start -->", "<!-- house-metrics:end -->"
SIZE_LIMIT = 600


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def _module_all(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return {str(n) for n in ast.literal_eval(node.value)}
            except ValueError:
                return set()
    return set()


def doctest_coverage() -> tuple[int, int]:
    """(public functions and classes with a doctested example, all of them) in ``core``."""
    with_examples = total = 0
    for path in sorted((ROOT / "core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        public = _module_all(tree)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in public:
                total += 1
                doc = ast.get_docstring(node) or ""
                with_examples += ">>>" in doc
    return with_examples, total


def mypy_settings() -> str:
    """How strict mypy is on the core and the GUI (one configuration), as configured: strict
    or the checks on, then every per-module override that turns checks off, with its checks
    (a package exempted from part of ``strict`` is named, not counted as strict)."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mypy = cfg.get("tool", {}).get("mypy", {})
    if mypy.get("strict"):
        base = "strict"
    else:
        on = [k for k in ("check_untyped_defs", "disallow_untyped_defs", "warn_unused_ignores",
                          "warn_redundant_casts", "no_implicit_optional") if mypy.get(k)]
        base = "not strict; on: " + ", ".join(on)
    relaxed = []
    for override in mypy.get("overrides", []):
        off = [k for k, v in override.items() if k != "module" and v is False]
        modules = override.get("module", [])
        if off:
            names = ", ".join([modules] if isinstance(modules, str) else modules)
            relaxed.append(f"{names} without {', '.join(off)}")
    return base + (", except: " + "; ".join(relaxed) if relaxed else "")


def large_modules() -> list[tuple[str, int, bool]]:
    """(module, lines, states its reason) for every module over :data:`SIZE_LIMIT` lines."""
    out = []
    for top in ("core", "gui"):
        for path in sorted((ROOT / top).rglob("*.py")):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > SIZE_LIMIT:
                doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
                reason = any(line.strip().startswith("Size:") for line in doc.splitlines())
                out.append((str(path.relative_to(ROOT)), n, reason))
    return out


def unexplained() -> list[str]:
    """The ``core`` modules over :data:`SIZE_LIMIT` lines whose docstring has no ``Size:``
    line, each as one message (``--check`` fails on any)."""
    return [f"{module}: {n} lines and no 'Size:' line in its module docstring saying why it "
            "is one module (give one, or split the module)"
            for module, n, reason in large_modules()
            if module.startswith("core/") and not reason]


def test_ratio() -> tuple[int, int]:
    """(non-blank test lines, non-blank source lines of core and gui)."""
    tests = sum(_lines(p) for p in (ROOT / "tests").rglob("*.py"))
    source = sum(_lines(p) for top in ("core", "gui") for p in (ROOT / top).rglob("*.py"))
    return tests, source


def block() -> str:
    ex, total = doctest_coverage()
    tests, source = test_ratio()
    big = large_modules()
    core_big = [m for m in big if m[0].startswith("core/")]
    gui_big = [m for m in big if m[0].startswith("gui/")]
    unexplained_big = [m for m in core_big if not m[2]]
    items = [
        f"doctested examples: {100 * ex / max(total, 1):.0f} % of the public core functions "
        "and classes have an `Examples` section with `>>>`;",
        f"mypy on the core and the GUI: {mypy_settings()}; both clean (`make typecheck` and "
        "`make typecheck-gui` fail on any error);",
        f"modules over {SIZE_LIMIT} lines: {len(core_big)} in `core` "
        f"({len(core_big) - len(unexplained_big)} state their reason in a `Size:` line of "
        "their docstring; `--check` fails on a core module over the limit without one), "
        f"{len(gui_big)} in `gui`;",
        f"test lines per source line: {tests / max(source, 1):.1f} (non-blank lines of "
        "`tests` over those of `core` and `gui`; one decimal, so that a new test does not "
        "make this page stale).",
    ]
    lines = [
        START,
        "Measured by `python tools/house_metrics.py --write` (the test suite fails when these",
        "numbers are stale):",
        "",
        *(line for item in items
          for line in textwrap.wrap(item, 96, initial_indent="- ", subsequent_indent="  ",
                                    break_on_hyphens=False)),
        END,
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="update docs/conventions.md")
    g.add_argument("--check", action="store_true", help="exit 1 when its block is stale")
    args = ap.parse_args(argv)
    text = block()
    if not (args.write or args.check):
        print(text)
        return 0
    doc = DOC.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        print(f"{DOC.relative_to(ROOT)} has no {START} … {END} block", file=sys.stderr)
        return 1
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    new = head + text + tail
    problems = unexplained()
    for problem in problems:
        print(problem, file=sys.stderr)
    if args.check:
        if new != doc:
            print("docs/conventions.md: the house's numbers are stale (run python "
                  "tools/house_metrics.py --write)", file=sys.stderr)
            return 1
        return 1 if problems else 0
    DOC.write_text(new, encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
