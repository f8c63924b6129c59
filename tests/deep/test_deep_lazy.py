"""JAX is loaded only when a network is asked for: importing every other module of the core
and the GUI, and running the command line's tabular commands, leaves it unloaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import importlib, io, json, os, pkgutil, sys
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import core, gui
names = sorted(m.name for pkg, prefix in ((core, "core."), (gui, "gui."))
               for m in pkgutil.walk_packages(pkg.__path__, prefix)
               if not m.name.startswith("core.deep.") and ".screenshot" not in m.name)
for name in names:
    importlib.import_module(name)
from core.cli.main import run_cli
code = run_cli(["accountant", "dpsgd", "--sigma", "1", "--sample-rate", "0.01", "--steps",
                "10", "--delta", "1e-5", "--json"], out=io.StringIO(), err=io.StringIO())
print(json.dumps({"modules": len(names), "code": code,
                  "loaded": sorted(m for m in sys.modules
                                   if m.split(".")[0] in ("jax", "jaxlib", "equinox", "optax")
                                   or m.startswith("core.deep."))}))
"""


def test_nothing_outside_core_deep_loads_jax():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["modules"] > 100 and report["code"] == 0
    assert report["loaded"] == [], f"imported eagerly: {report['loaded']}"
