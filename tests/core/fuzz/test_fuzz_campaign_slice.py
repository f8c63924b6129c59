"""A slice of the reliability campaign (bench/fuzz_campaign.py) in the suite: every
family of hostile inputs and flags once more, each run in its own capped process — 0
crashes, 0 hangs, 0 bombs, 0 wrong acceptances, 0 wrong answers, 0 broken contracts. The
whole campaign (3,300 runs) is run by hand; its numbers are in the README."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow  # a long study: make test-slow (CI) runs it
def test_a_slice_of_the_campaign_finds_nothing(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fuzz_campaign.py"), "--cases", "60",
         "--seed", "7", "--jobs", "2", "--real-every", "15", "--small-bombs", "--out",
         str(tmp_path)],
        capture_output=True, text=True, timeout=1200, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["cases"] >= 60 and summary["real_processes"] >= 4
    bad = {k: summary[k] for k in ("crashes", "hangs", "bombs", "wrong_acceptances",
                                   "wrong_answers", "contract") if summary[k]}
    assert bad == {}, json.dumps(summary["failures"][:10], indent=1)
    fams = summary["families"]
    assert {"file", "npz", "special", "flags", "refuse", "answer", "io", "other"} <= set(fams)
