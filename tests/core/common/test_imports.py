"""The seam: importing every module of ``core`` loads no Qt, no pyqtgraph and no ``gui``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = r"""
import importlib, json, pkgutil, sys
import core
DECLARED = set(sys.argv[1].split(","))
names = sorted(m.name for m in pkgutil.walk_packages(core.__path__, "core."))
failed, missing = {}, {}
for name in names:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in DECLARED:
            missing[name] = exc.name  # a declared dependency absent from this interpreter
        else:
            failed[name] = repr(exc)
    except ImportError as exc:
        failed[name] = repr(exc)
forbidden = sorted(m for m in sys.modules
                   if m.split(".")[0] in ("PySide6", "PySide2", "PyQt5", "PyQt6", "shiboken6",
                                          "pyqtgraph", "gui"))
print(json.dumps({"modules": names, "failed": failed, "missing": missing,
                  "forbidden": forbidden}))
"""


def declared_dependencies() -> list[str]:
    """Import names of the core's runtime dependencies (pyproject ``[project].dependencies``)
    and of the optional ``deep`` extra (``core.deep``'s modules need JAX; they are checked
    in the main venv, which has it)."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + project["optional-dependencies"]["deep"]
    return [re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].strip().lower().replace("-", "_")
            for d in deps]


def test_core_imports_no_gui_toolkit():
    """Run in a fresh interpreter so nothing imported by other tests can hide a leak.

    A module whose *declared* dependency is not installed here (e.g. opendp outside the
    project's venv) is tolerated; any other import failure fails the test.
    """
    out = subprocess.run([sys.executable, "-c", SCRIPT, ",".join(declared_dependencies())],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"core.mdp.model", "core.mdp.robust", "core.mdp.sweep", "core.project.files",
            "core.privacy.dirichlet", "core.mdp.synthesis"} <= set(report["modules"])
    assert report["forbidden"] == [], f"core pulled in {report['forbidden']}"
    assert report["failed"] == {}, f"core modules failed to import: {report['failed']}"


def test_every_core_module_declares_all():
    """House style §7.9: ``__all__`` at the top of every core module."""
    missing = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name != "__init__.py" and "__all__" not in text:
            missing.append(str(path.relative_to(ROOT)))
    assert missing == []
