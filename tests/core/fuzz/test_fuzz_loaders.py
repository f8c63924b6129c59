"""Fuzzed files through every loader and subcommand: exit 0 with a valid result, or exit 2
with one line — never an internal error, a hang or a swap storm (issue: a first hour
without stumbles, headless robustness; type swaps, extreme IEEE values, hostile
unicode, deflate bombs, forged headers and bit flips, grid worlds, CSV data sets and
project sidecars).

The mutants come from :mod:`mutants` (seeded, so a failure reproduces with
``python tests/core/fuzz/mutants.py --cases N --seed S --out DIR``). The driver runs in a
child process whose address space is capped, so a decompression bomb that slipped past the
loaders' size checks fails the test instead of swapping.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CASES = int(os.environ.get("PRIVPLAN_FUZZ_CASES", "2000"))
MEMORY_MB = 3000


def _run(cases: int, seed: int, tmp_path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PRIVPLAN_MEMORY_MB="1500",
               PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        [sys.executable, str(HERE / "mutants.py"), "--cases", str(cases), "--seed", str(seed),
         "--out", str(tmp_path), "--memory-mb", str(MEMORY_MB)],
        capture_output=True, text=True, timeout=900, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    summary = lines[-1]
    summary["failed"] = lines[:-1]
    return summary


@pytest.mark.slow  # a long study: make test-slow (CI) runs it
def test_every_mutant_exits_0_with_a_result_or_2_with_one_line(tmp_path: Path) -> None:
    res = _run(CASES, seed=20261125, tmp_path=tmp_path)
    assert res["cases"] == CASES
    assert res["failed"] == [], "\n".join(json.dumps(f) for f in res["failed"][:20])
    outcomes = res["outcomes"]
    kinds = {"mdp.json", "mdp.npz", "map.json", "privplan.json", "advising.json", "grid.json",
             "csv", "sidecar.npz"}
    # every format is exercised, and both ways: some mutants are refused, some still run
    for kind in kinds:
        assert outcomes.get(f"{kind} exit 2", 0) > 0, kind
    assert sum(outcomes.get(f"{k} exit 0", 0) for k in kinds) > CASES // 50


@pytest.mark.parametrize("shape", [(8000, 4, 8000), (3, 2**40, 3)])
def test_a_forged_npz_is_refused_before_any_allocation(tmp_path: Path, shape) -> None:
    """A few KB declaring gigabytes: refused from the headers, in well under a second."""
    import time

    sys.path.insert(0, str(HERE))
    from mutants import _bomb

    from core.common.errors import InputError
    from core.mdp.files import load_mdp

    path = tmp_path / "bomb.mdp.npz"
    path.write_bytes(_bomb(shape))
    t0 = time.perf_counter()
    with pytest.raises(InputError, match="truncated or forged|needs .* of memory"):
        load_mdp(path)
    assert time.perf_counter() - t0 < 1.0
