"""Build a real report of the built-in example and render pages of it for the README.

The built-in example project gets the privacy sweep the MDP workspace runs with its
default parameters (every default k, 50 runs per k, β = 0.05) as a seeded experiment
(seed 7), recorded as the workspace records it (run record + ledger entries), and one
real release at k = 100 so the ledger has something spent; the report is written with
``privplan report`` to PDF, and pages are rendered with ``pdftoppm``.

Usage: ``python tools/make_report_pages.py [OUT_DIR]`` (default ``docs``): writes
``report-example.privplan.json`` and ``report-example.pdf`` to a temporary folder (kept
with ``--keep``) and ``report-page1.png`` / ``report-page2.png`` to OUT_DIR.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build_project(seed: int = 7):
    from core.mdp.accounting import mdp_privacy, record_privatization
    from core.mdp.sweep import DEFAULT_K, privacy_sweep
    from core.privacy.ledger import PrivacyLedger, budgets_to_dict
    from core.project.files import load_project
    from core.project.model import RunRecord

    project = load_project(ROOT / "assets" / "examples" / "builtin.privplan.json")
    entry = project.mdps[0]
    result = privacy_sweep(entry.mdp, list(DEFAULT_K), runs=50, beta=0.05, seed=seed,
                           workers=min(2, os.cpu_count() or 1))
    summary = result.to_dict()  # what a sweep run record keeps (core.mdp.records)
    summary.pop("privacy_rows")
    summary["privacy_rows_total"] = [len(p.rows) for p in result.privacy]
    summary["privacy_rows_without_guarantee"] = [len(p.not_applicable) for p in result.privacy]
    summary["elapsed_s"] = 0.0  # wall time varies; the example's file (and hash) must not
    project.runs.append(RunRecord(
        id="run-1", kind="sweep", target=entry.id,
        params={"k": list(DEFAULT_K), "runs": 50, "beta": 0.05, "alpha_mode": "paper",
                "seeded": True, "seed": seed, "b": 0.1, "delta_target": 0.05,
                "adjacency": "one-row"},
        summary=summary, mode=result.mode, seed=result.seed,
        created="2026-01-05T10:00:00+00:00"))
    led = PrivacyLedger()
    for k, priv in zip(result.k.tolist(), result.privacy):
        record_privatization(led, mdp_id=entry.id, privacy=priv, k=k, mode="experiment",
                             seed=seed, source="run-1", count=50,
                             time="2026-01-05T10:00:00+00:00")
    record_privatization(led, mdp_id=entry.id, privacy=mdp_privacy(entry.mdp, 100.0), k=100.0,
                         mode="release", seed=None, source="release-1",
                         time="2026-01-06T09:30:00+00:00")
    led.set_budget(f"mdp:{entry.id}", 100.0, 0.1)
    project.ledger, project.budgets = list(led.entries), budgets_to_dict(led.budgets)
    return project


def main(argv: list[str]) -> int:
    keep = "--keep" in argv
    args = [a for a in argv if a != "--keep"]
    out_dir = Path(args[0]) if args else ROOT / "docs"
    if not shutil.which("pdftoppm"):
        print("pdftoppm is missing: run `bash tools/ensure-debs.sh report`", file=sys.stderr)
        return 2
    from core.project.files import save_project

    work = Path(tempfile.mkdtemp(prefix="privplan-report-"))
    project_file = work / "report-example.privplan.json"
    pdf = work / "report-example.pdf"
    save_project(build_project(), project_file)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1767700800")  # 2026-01-06, a stable date
    subprocess.run([sys.executable, str(ROOT / "app.py"), "report", str(project_file), "-o",
                    str(pdf)], check=True, env=env)
    out_dir.mkdir(parents=True, exist_ok=True)
    for page in (1, 2):
        stem = work / f"page{page}"
        subprocess.run(["pdftoppm", "-r", "110", "-png", "-singlefile", "-f", str(page),
                        "-l", str(page), str(pdf), str(stem)], check=True)
        shutil.copy(f"{stem}.png", out_dir / f"report-page{page}.png")
    print(f"wrote {out_dir / 'report-page1.png'} and {out_dir / 'report-page2.png'} "
          f"from {pdf}")
    if not keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
