"""bench/claims.py: docs/claims.md's generated claims tables against the saved runs in
bench/data/ (the check passes on the repository, fails on a corrupted value and says where),
and --run's saved file (gzip, versions) read back by --check and --list."""

from __future__ import annotations

import contextlib
import gzip
import importlib.util
import io
import json
import shutil
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "bench" / "data"


@pytest.fixture(scope="module")
def claims():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("claims_cli", ROOT / "bench" / "claims.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["claims_cli"] = mod          # its dataclass looks its module up
    spec.loader.exec_module(mod)
    return mod


def _main(mod, argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = mod.main(argv)
    return rc, buf.getvalue()


def test_check_passes_on_the_repository(claims):
    # CPU time, not wall time: the check's own work, whatever the machine's load (≈ 5 s for
    # every family; the exact signed-rank p-values of tied samples are counted, not
    # enumerated as scipy's permutation test does, which took ≈ 45 s).
    t0 = time.process_time()
    rc, out = _main(claims, ["--check"])
    assert rc == 0, out
    assert "ok drl7" in out and "ok drl12" in out
    # every family has its saved runs (a family without would be a warning line)
    assert "ok mia" in out and "ok packet_fig411" in out and "ok packet_fig49" in out
    assert "ok sharing_taxi" in out and "ok deep_attack" in out
    assert "warning:" not in out
    assert "ok advising_layout_exp1" in out and "ok packet_fig410" in out
    assert "ok logistics_routes" in out and "ok domain_trends" in out
    assert time.process_time() - t0 < 30


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    docs = tmp_path / "claims.md"
    shutil.copy(ROOT / "docs" / "claims.md", docs)
    return docs, data


def test_a_corrupted_saved_value_fails_with_a_diff_and_write_repairs(claims, tmp_path):
    docs, data = _copy(tmp_path)
    f = data / "drl12_8.json"
    js = json.loads(f.read_text())
    nrr = js["study"]["values"][0]["eps=0.1"]["nrr"]
    nrr[0] = nrr[0] - 0.2                    # one replicate's NRR under master seed 8
    f.write_text(json.dumps(js))
    rc, out = _main(claims, ["--check", "--docs", str(docs), "--data", str(data)])
    assert rc == 1
    assert "FAIL drl12" in out and "ok drl7" in out
    diff = [ln for ln in out.splitlines() if ln.startswith(("-|", "+|"))]
    assert diff and all("12x11" in ln for ln in diff)
    assert any(ln.startswith("+| 12x11: DP-DRL at ε = 0.1 lowers NRR (all runs)") for ln in diff)
    before = docs.read_text()
    rc, _ = _main(claims, ["--write", "--docs", str(docs), "--data", str(data)])
    assert rc == 0 and docs.read_text() != before
    rc, out = _main(claims, ["--check", "--docs", str(docs), "--data", str(data)])
    assert rc == 0, out


def test_a_marked_table_without_its_runs_fails(claims, tmp_path):
    docs, data = _copy(tmp_path)
    for p in data.glob("drl7_*"):
        p.unlink()
    rc, out = _main(claims, ["--check", "--docs", str(docs), "--data", str(data)])
    assert rc == 1 and "FAIL drl7" in out and "no saved run" in out


def test_a_hand_edited_cell_fails(claims, tmp_path):
    docs, data = _copy(tmp_path)
    text = docs.read_text()
    i = text.index("<!-- claims:drl7 begin -->")
    j = text.index("mean [90 % t]", i)
    docs.write_text(text[:j] + "mean [95 % t]" + text[j + len("mean [90 % t]"):])
    rc, out = _main(claims, ["--check", "--docs", str(docs), "--data", str(data)])
    assert rc == 1 and "FAIL drl7" in out and "-| 7x7: NRR at ε = 0.1 equals" in out


def test_the_saved_claims_rebuild_the_code_s_claims(claims):
    """The generic renderer (claims read back from a saved run) gives the DP-DRL claims'
    p-values and intervals the family's own renderer computes from the code's claims."""
    from core.gridworld.study import drl_claims
    from core.study import evaluate_claims

    fam = claims.family("drl7")
    results, saved = claims.load(fam, claims.saved_files(fam, DATA))
    rebuilt = claims.claims_lib.claims_from_saved(saved[0]["claims"]["runs"][0], results[0])
    code = drl_claims(["7x7"], [0.1, 1.0, 4.0, 16.0])
    a, b = evaluate_claims(results[1], rebuilt), evaluate_claims(results[1], code)
    assert [r.claim.text for r in a] == [r.claim.text for r in b]
    assert [(r.p_adjusted, r.estimate()) for r in a] == [(r.p_adjusted, r.estimate()) for r in b]


TOY = '''
import sys
sys.path[:0] = [{bench!r}, {root!r}]
from claims_lib import parser, run_claims
from core.study import Arm, Claim, Study
from core.study.toy import shifted_normal
args = parser("toy", n=12, master_seed=5, second_seed=6).parse_args()
study = Study("toy", (Arm("high", shifted_normal, {{"shift": 1.0}}),
                      Arm("low", shifted_normal, {{"shift": 0.0}})), n=args.n,
              master_seed=args.master_seed)
sys.exit(run_claims(study, [Claim("high beats low", "x", "high", "low", ">"),
                            Claim("high equals low", "x", "high", "low", "=", margin=0.1)],
                    args, metrics=("x",)))
'''


def test_run_saves_gzip_with_versions_and_check_reads_it(claims, tmp_path, monkeypatch):
    script = tmp_path / "toy_claims.py"
    script.write_text(TOY.format(bench=str(ROOT / "bench"), root=str(ROOT)))
    fam = claims.Family("toy", str(script), ("--n", "12", "--workers", "1"), (5, 6), "0",
                        "a toy", claims.render_generic)
    monkeypatch.setattr(claims, "FAMILIES", (fam,))
    data = tmp_path / "data"
    assert claims.run(fam, 5, 10, data) == 0
    # a second file, under master seed 6, with the same values (one subprocess is enough)
    js = json.loads(gzip.decompress((data / "toy_5.json.gz").read_bytes()))
    assert js["study"]["n"] == 10 and js["study"]["master_seed"] == 5
    assert js["second"] is None and js["claims"]["master_seeds"] == [5]
    assert {"privplan", "numpy", "scipy", "python", "command"} <= set(js["provenance"])
    assert js["provenance"]["command"][-6:] == ["--master-seed", "5", "--second-seed", "-1",
                                                "--json", js["provenance"]["command"][-1]]
    (data / "toy_6.json").write_text(json.dumps(js).replace('"master_seed": 5', '"master_seed": 6'))
    docs = tmp_path / "claims.md"
    docs.write_text("# t\n\n<!-- claims:toy begin -->\n<!-- claims:toy end -->\n")
    rc, out = _main(claims, ["--check", "--docs", str(docs), "--data", str(data)])
    assert rc == 1 and "FAIL toy" in out
    rc, _ = _main(claims, ["--write", "--docs", str(docs), "--data", str(data)])
    text = docs.read_text()
    assert rc == 0 and "| high beats low | Wilcoxon signed-rank, two-sided |" in text
    assert "| high equals low | TOST, paired t, ±0.1 | mean [90 % t] |" in text
    assert "master seed 5: n, a − b" in text and "master seed 6: n, a − b" in text
    assert "n = 10: " in text
    rc, out = _main(claims, ["--check", "--docs", str(docs), "--data", str(data)])
    assert rc == 0 and "ok toy" in out
    rc, out = _main(claims, ["--list", "--data", str(data)])
    assert "saved runs under master seeds 5 (toy_5.json.gz; privplan " in out
    assert "6 (toy_6.json; privplan " in out


# the two advising studies (16 s) run in make test-slow; the packet one in make test
@pytest.mark.parametrize("name", [
    pytest.param("advising_layout_nested", marks=pytest.mark.slow), "packet_fig410",
    pytest.param("advising_36_exp3", marks=pytest.mark.slow)])
def test_advising_and_packet_scripts_save_runs_claims_py_reads(claims, name, tmp_path):
    """The advising-layout, packet and §3.6 advising scripts' --json at n = 2 (through the
    family's own command, as --run makes it) loads as a study under its master seed and renders the
    family's claims table: every claim of the script, n = 2 pairs, no verdict."""
    fam = claims.family(name)
    assert fam.json_flag and fam.render is not None
    data = tmp_path / "data"
    assert claims.run(fam, fam.master_seeds[0], 2, data) == 0
    results, saved = claims.load(fam, claims.saved_files(fam, data))
    assert [r.master_seed for r in results] == [fam.master_seeds[0]] and results[0].n == 2
    run = saved[0]["claims"]["runs"][0]
    assert run and len(saved[0]["study"]["seeds"]) == 2
    table = fam.render(results, saved)
    rows = [ln for ln in table.splitlines() if ln.startswith("| ") and "n = 2: " in ln]
    assert [r.split(" | ")[0][2:] for r in rows] == [c["claim"] for c in run]
    assert all("no verdict" in r for r in rows)
