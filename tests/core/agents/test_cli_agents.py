"""``drl`` and ``comarl`` on the command line: JSON keys, refusals (one line, exit 2)."""

from __future__ import annotations

import io
import json

import pytest

from core.cli.main import run_cli


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(list(argv), out, err), out.getvalue(), err.getvalue()


def test_drl_json_with_attack(tmp_path):
    rc, out, _ = _cli("drl", "--random", "7", "--defense", "dpdrl", "--epsilon", "0.5",
                      "--episodes", "60", "--max-steps", "60", "--attack", "--population",
                      "10", "--generations", "3", "--seed", "1", "--json")
    assert rc == 0
    js = json.loads(out)
    for key in ("reward_final", "steps_final", "epsilon_per_step", "epsilon_total", "grr",
                "nrr"):
        assert key in js
    assert js["epsilon_total"] is None and js["epsilon_total_reason"]
    assert js["epsilon_per_step"] == 0.5 and 0 <= js["nrr"] <= 1
    # the map file round trip
    from core.gridworld.maps import grid_from_rows

    p = tmp_path / "m.grid.json"
    p.write_text(json.dumps({"format": "privplan-grid", "version": 1,
                             "rows": js["truth"]}))
    assert grid_from_rows(js["truth"]).shape == (7, 7)
    rc, out, _ = _cli("drl", str(p), "--episodes", "5", "--seed", "2", "--json")
    assert rc == 0 and json.loads(out)["defense"] == "none"


@pytest.mark.parametrize("argv, flag", [
    (("drl", "--random", "9", "--defense", "dpdrl", "--epsilon", "0"), "--epsilon"),
    (("drl", "--random", "3"), "--random"),
    (("drl",), "MAP"),
    (("drl", "--random", "9", "--epsilon", "1"), "--epsilon"),
    (("comarl", "--agents", "1"), "--agents"),
])
def test_refusals_are_one_line(argv, flag):
    rc, out, err = _cli(*argv)
    assert rc == 2 and flag in err and err.count("\n") == 1 and out == ""


def test_bad_map_file_names_the_file(tmp_path):
    p = tmp_path / "bad.grid.json"
    p.write_text(json.dumps({"format": "privplan-grid", "version": 1,
                             "rows": ["#####", "#S#G#", "#####"]}))
    rc, _, err = _cli("drl", str(p))
    assert rc == 2 and "bad.grid.json" in err and "connected" in err


def test_comarl_json():
    rc, out, _ = _cli("comarl", "--agents", "3", "--episodes", "30", "--seed", "1", "--json")
    assert rc == 0
    js = json.loads(out)
    for key in ("team_return", "pe_vs_central_max_diff", "epsilon", "delta"):
        assert key in js
    assert js["epsilon"] is None and js["pe_vs_central_max_diff"] < 6e-5
    rc, out, _ = _cli("comarl", "--agents", "2", "--episodes", "5", "--dp", "--sigma",
                      "1.4539", "--window", "1024", "--seed", "1", "--json")
    js = json.loads(out)
    assert rc == 0 and js["epsilon"] > 0 and js["delta"] == pytest.approx(1024 ** -1.1)
