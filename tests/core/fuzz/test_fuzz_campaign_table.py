"""The campaign's catalogue and its table, without running a case (the slice test runs some)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _campaign():
    spec = importlib.util.spec_from_file_location("fuzz_campaign",
                                                  ROOT / "bench" / "fuzz_campaign.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_campaign"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_other_family_covers_every_remaining_command_and_format() -> None:
    fc = _campaign()
    cases = fc.family_other(fc.Inputs(), random.Random(11), 300)
    rows = {fc.table_row(c) for c in cases}
    assert {"import / drn", "import / prism", "export", "design", "bounds", "plan", "mia",
            "share", "report", "audit", "plan-bench", "advise-bench", "sweep"} <= rows
    gym = [c for c in cases if c.argv[:2] == ["share", "gym:this:Foo"]]
    assert gym and all(c.expect == "refuse" for c in gym)
    bombs = [c for c in cases if c.kind.endswith("-bomb")]
    assert bombs and all(c.expect == "refuse" for c in bombs)


def test_markdown_table_adds_chunks_up() -> None:
    fc = _campaign()
    a = {"cases": 3, "commands": {"bounds": {"cases": 2, "ok": 1, "crash": 1},
                                  "design": {"cases": 1, "wrong-acceptance": 1}}}
    b = {"cases": 2, "commands": {"bounds": {"cases": 2, "ok": 1, "hang": 1}}}
    table = fc.markdown_table([a, b]).splitlines()
    assert table[2] == "| bounds | 4 | 1 | 1 | 0 | 0 | 0 | 0 |"
    assert table[3] == "| design | 1 | 0 | 0 | 0 | 1 | 0 | 0 |"
    assert table[-1].startswith("| **total** | **5** | **1** | **1** | **0** | **1** |")
