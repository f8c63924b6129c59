"""Start-up cost of the command line: a command imports only what it uses."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("scipy.stats", "networkx", "core.logistics", "scipy.optimize", "numba")

_PROBE = ("import sys, runpy; sys.argv = ['core.cli', *sys.argv[1:]]\n"
          "try:\n    runpy.run_module('core.cli', run_name='__main__')\n"
          "except SystemExit:\n    pass\n"
          "print('\\nMODULES', *sorted(sys.modules), file=sys.stderr)\n")


def _modules_after(*argv: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES"))
    return set(line.split()[1:])


@pytest.mark.parametrize("argv", [("--version",), ("--help",)])
def test_version_and_help_import_no_heavy_module(argv):
    mods = _modules_after(*argv)
    assert "core.cli.main" in mods  # the probe did run the command line
    loaded = sorted(m for m in mods if m.startswith(HEAVY))
    assert loaded == []
    assert not any(m.startswith("core.cli.") and m not in ("core.cli.main", "core.cli.common",
                                                          "core.cli.grammar", "core.cli.__main__")
                   for m in mods)


def test_synthesise_on_a_small_model_imports_no_heavy_module():
    four = str(ROOT / "assets" / "examples" / "four_startups.mdp.json")
    mods = _modules_after("synthesise", four)
    assert "core.mdp.synthesis" in mods
    assert sorted(m for m in mods if m.startswith(HEAVY)) == []


def test_the_help_listing_is_that_of_the_full_parser():
    """Each command's help line in the table is the one its own parser declares."""
    lazy = main._build_parser().format_help()
    full = main._build_parser(full=True).format_help()
    assert lazy == full


def test_every_command_parses_with_its_own_parser_loaded():
    for name in main.COMMANDS:
        parser = main._build_parser(name)
        sub = next(a for a in parser._actions if a.dest == "command")
        assert sub.choices[name].add_help  # the real parser, not the listing's stand-in


def test_subcommands_resolves_handlers_lazily():
    assert "privatize" in main.SUBCOMMANDS and "nonsense" not in main.SUBCOMMANDS
    assert main.SUBCOMMANDS["privatize"].__name__ == "cmd_privatize"


def test_an_unknown_command_is_exit_2_with_one_line():
    err = io.StringIO()
    assert main.run_cli(["nonsense"], io.StringIO(), err) == 2
    assert err.getvalue().count("\n") == 1


# scipy.special itself is there, deferred (core.common.special): its __init__ never runs
ACCOUNTING_HEAVY = ("scipy.special._basic", "scipy._lib._array_api", "numpy.f2py",
                    "numpy.testing", "numpy.polynomial")


@pytest.mark.parametrize("argv", [
    ("privatize", "{four}", "--k", "100", "--seed", "1", "-o", "{tmp}/p.mdp.json"),
    ("bounds", "{four}", "--k", "100"),
    ("design", "{four}", "--epsilon", "1", "--delta", "1e-3")])
def test_accounting_on_a_small_model_skips_the_scipy_special_package(argv, tmp_path):
    """The accountants' special functions come from scipy's compiled module alone
    (core.common.special): the package's array-API layer would import numpy.testing,
    numpy.f2py, ... and double a command's start-up."""
    four = str(ROOT / "assets" / "examples" / "four_startups.mdp.json")
    mods = _modules_after(*(a.format(four=four, tmp=tmp_path) for a in argv))
    assert "core.privacy.dirichlet_accounting" in mods
    assert "scipy.special._ufuncs" in mods
    assert sorted(m for m in mods if m in ACCOUNTING_HEAVY) == []
