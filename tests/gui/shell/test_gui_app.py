"""run_gui: --screenshot, bad files, asset paths."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtGui import QImage

from gui.shell import resources
from gui.shell.app import build_parser, run_gui


def test_screenshot_writes_png(qapp, tmp_path):
    out = tmp_path / "shot.png"
    assert run_gui(["--screenshot", str(out), "--workers", "1", "--size", "1500x950"]) == 0
    assert out.stat().st_size > 20_000
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1500, 950)


def test_calculator_screenshot(qapp, tmp_path):
    """--calculator --screenshot: the calculator tab on Figure 1.1, every plot drawn."""
    out = tmp_path / "calc.png"
    assert run_gui(["--screenshot", str(out), "--calculator", "--size", "1500x950"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1500, 950)
    assert out.stat().st_size > 20_000
    assert "--calculator" in build_parser().format_help()


def test_calculator_screenshot_at_a_laptop_size(qapp, tmp_path):
    out = tmp_path / "calc.png"
    assert run_gui(["--screenshot", str(out), "--calculator", "--size", "1366x768"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1366, 768)


@pytest.mark.parametrize("bad", ["1366", "0x0", "axb", "1366x768x2", "12x7000"])
def test_a_bad_size_exits_2_naming_the_flag(qapp, tmp_path, capsys, bad):
    out = tmp_path / "never.png"
    assert run_gui(["--screenshot", str(out), "--size", bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("privplan: --size:") and bad in err
    assert not out.exists()


def test_bad_file_exits_2_with_one_line(qapp, tmp_path, capsys):
    bad = tmp_path / "bad.privplan.json"
    bad.write_text("{ not json")
    assert run_gui([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "malformed JSON" in err and "Traceback" not in err
    assert run_gui([str(tmp_path / "missing.json")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_unknown_mdp_id_exits_2(qapp, capsys):
    assert run_gui(["--mdp", "nope", "--screenshot", "x.png"]) == 2
    assert "nope" in capsys.readouterr().err


def test_asset_path(monkeypatch, tmp_path):
    assert resources.asset_path("examples", "builtin.privplan.json").is_file()
    assert resources.asset_path("assets", "examples") == resources.asset_path("examples")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources.asset_path("examples", "x.json") == tmp_path / "assets" / "examples" / "x.json"
