"""The reliability campaign: thousands of command-line runs under a 3 GB cap.

Every case is one ``privplan`` subcommand run the way a user runs it — in its own process,
with its address space capped (``RLIMIT_AS``, default 3 GB), 60 s to answer — on a hostile
input or flag:

* ``file``     a mutant of every file kind the command line reads (MDP JSON and NPZ, maps,
               projects, project sidecars, advising set-ups, grid worlds, CSV data sets):
               structure, type swaps, extreme IEEE values, hostile unicode, truncation
               (``tests/core/fuzz/mutants.py``);
* ``npz``      forged headers, forged zip directories, bit flips, truncations, deflate bombs
               (a few MB that decompress to gigabytes), as MDP files and as project sidecars;
* ``special``  FIFOs, ``/dev/zero``, ``/dev/urandom``, ``/dev/null``, folders, symlinks to
               them, symlink loops, missing files — as every input of every command;
* ``flags``    one flag of a command set to an extreme, a wrong type or hostile text;
* ``refuse``   inputs and flags outside the documented ranges (a row summing to 0.9, a
               discount of 1 with no horizon, ``dirichlet --b 10``, duplicate model ids,
               ``comarl --seed -1``…): they must be refused;
* ``answer``   valid transformations with a known answer (the states of an MDP permuted,
               its rewards shifted or scaled, its JSON re-indented): the answer must follow;
* ``io``       outputs on a full file system and on a read-only one (with root, tmpfs mounts);
* ``other``    the remaining commands and formats: PRISM and DRN files for ``import``,
               ``export`` with extreme ``--k``/``--beta``, ``design``, ``bounds --policy``
               (mutated tables, booleans as probabilities), ``plan --domain`` on air, rover
               and logistics maps (hostile base roles), ``mia --attack``, ``share gym:ID``
               (module ids such as ``gym:this:Foo`` must import nothing: a refusal with
               anything on stdout but the --json error object is a contract failure),
               hostile ledger entries, and batch commands whose declared work is far beyond
               the time limit (``plan-bench --worlds 1e8``, ``advise-bench --seeds``,
               ``sweep --runs``), which must be refused up front.

Each outcome is classified: **crash** (exit 1, a signal, a traceback), **hang** (killed at
60 s), **bomb** (peak RSS over the cap, or the run ran out of memory: the guard should have
refused it), **wrong acceptance** (an input that must be refused exited 0), **wrong
answer**, **contract** (exit 2 without exactly one stderr line, exit 0 without exactly one
strict JSON object), else fine: exit 0, exit 2 with one line, or exit 3 with one line for a
runtime failure (a full disk).

Runs are forked from a parent that has imported PrivPlan once (a run costs its own work,
not the interpreter's start); every ``--real-every``-th case runs as a real
``python -m core.cli`` process instead. ``PRIVPLAN_TIME_LIMIT_S`` is set to 20 s for the
campaign, so that work estimated beyond it is refused rather than run for minutes.

Usage::

    python bench/fuzz_campaign.py --cases 3300 --seed 24 --jobs 2 --out /tmp/campaign

prints one JSON line per failing case and a summary (also written to ``OUT/summary.json``),
with a ``commands`` table: cases per command and file format, and their outcomes. On a shared
machine run it in chunks at low priority and add the chunks up::

    for s in 1 2 3; do nice -n 19 python bench/fuzz_campaign.py --cases 500 --seed $s \
        --jobs 1 --small-bombs --out /tmp/campaign/$s; done
    python bench/fuzz_campaign.py --table /tmp/campaign/*/summary.json
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "core" / "fuzz"))
EXAMPLES = ROOT / "assets" / "examples"

CAP_MB = 3072
TIMEOUT_S = 60.0
TIME_LIMIT_S = "20"
EXTREMES = ["0", "-0", "-1", "5e-324", "1e-300", "1e308", "1.8e308", "-1.8e308", "nan", "inf",
            "-inf", "1e9", "1000000000", "9223372036854775808", "18446744073709551616",
            "1e16", "0.5", "1.0000000000000002", "", "x", "1,2", "a\nb", "\u202e1", "١",
            "0x10", "1_000", "   ", "-9223372036854775809", "4.9e-324", "2.5"]


@dataclass
class Case:
    """One run: what to write in its folder, the command line, and what must happen."""

    family: str
    kind: str
    argv: list[str]
    files: dict[str, Any] = field(default_factory=dict)  # name -> bytes | ("fifo",) | …
    expect: str = "any"  # "any", "refuse", "answer", "runtime-ok"
    check: Callable[[dict[str, Any]], str | None] | None = None  # for "answer"
    real: bool = False


# ----------------------------------------------------------------------------- inputs
def _json_bytes(tree: Any) -> bytes:
    import mutants

    return mutants.dumps_mutant(tree).encode("utf-8", "surrogatepass")


class Inputs:
    """The example inputs every family starts from."""

    def __init__(self) -> None:
        import mutants

        self.bases = mutants._examples()
        self.mdp = self.bases["mdp.json"]
        self.map = self.bases["map.json"]
        self.project = self.bases["privplan.json"]
        self.setup = self.bases["advising.json"]
        self.grid = self.bases["grid.json"]
        self.csv = self.bases["csv"]
        self.npz = self.bases["mdp.npz"]

    def command_for(self, kind: str, name: str) -> list[str]:
        """The base command line reading the input ``name`` of ``kind``."""
        return {
            "mdp.json": ["bounds", name, "--k", "100", "--beta", "0.1", "--json"],
            "mdp.npz": ["bounds", name, "--k", "100", "--beta", "0.1", "--json"],
            "privatize": ["privatize", name, "--k", "100", "--seed", "1", "-o", "out.mdp.json",
                          "--json"],
            "sweep": ["sweep", name, "--k", "10,100", "--runs", "2", "--seed", "1",
                      "--workers", "1", "--json"],
            "share": ["share", name, "--iterations", "10", "--seeds", "2", "--seed", "1",
                      "--json"],
            "map.json": ["plan", name, "--origin", "a1", "--goal-agent", "f", "--epsilon", "1",
                         "--seed", "1", "--json"],
            "privplan.json": ["report", name, "-o", "r.html", "--json"],
            "advising.json": ["advise", "--setup", name, "--epochs", "3", "--seed", "1",
                              "--json", "--summary"],
            "grid.json": ["drl", name, "--episodes", "20", "--max-steps", "40", "--seed", "1",
                          "--json"],
            "csv": ["mia", "--data", name, "--epochs", "2", "--shadows", "1", "--seed", "1",
                    "--json"],
            "record": ["audit", "laplace", "--epsilon", "1", "--sensitivity", "1",
                       "--samples", "2000", "--seed", "1", "--record", name, "--json"],
        }[kind]


# Commands whose flags are mutated: a base command line that runs in seconds.
FLAG_BASES: list[list[str]] = [
    ["bounds", "@mdp", "--k", "100", "--beta", "0.1", "--alpha", "paper", "--method",
     "greedy", "--json"],
    ["privatize", "@mdp", "--k", "100", "--seed", "1", "--eta", "0.001", "-o", "out.mdp.json",
     "--json"],
    ["sweep", "@mdp", "--k", "10,100", "--runs", "2", "--beta", "0.05", "--seed", "1",
     "--workers", "1", "--json"],
    ["plan", "@map", "--origin", "a1", "--goal-agent", "f", "--epsilon", "1", "--seed", "1",
     "--budget", "30", "--json"],
    ["advise", "--preset", "exp2", "--epsilon", "1", "--epochs", "3", "--budget", "30",
     "--alpha", "0.5", "--xi", "0.1", "--gamma", "0", "--delta", "1e-5", "--seed", "1",
     "--json", "--summary"],
    ["audit", "laplace", "--epsilon", "1", "--sensitivity", "1", "--samples", "2000",
     "--confidence", "0.95", "--seed", "1", "--json"],
    ["audit", "exponential", "--epsilon", "1", "--sensitivity", "1", "--samples", "2000",
     "--seed", "1", "--json"],
    ["audit", "dirichlet", "--k", "100", "--eta", "0.1", "--w", "2", "--b", "0.5", "--delta",
     "0.01", "--samples", "2000", "--seed", "1", "--json"],
    ["audit", "advising", "--epsilon", "1", "--samples", "2000", "--seed", "1", "--json"],
    ["dirichlet", "--k", "100", "--eta", "0.1", "--w", "2", "--b", "0.5", "--delta", "0.01",
     "--json"],
    ["dirichlet", "--adjacency", "l2-all", "--k", "100", "--eta", "0.1", "--w", "2", "--b",
     "0.5", "--delta", "0.01", "--draws", "20000", "--seed", "0", "--json"],
    ["accountant", "dpsgd", "--sigma", "1", "--sample-rate", "0.01", "--steps", "100",
     "--window", "50", "--delta", "1e-5", "--json"],
    ["share", "@mdp", "--k0", "5", "--coef", "0.9", "--iterations", "10", "--seeds", "2",
     "--lr", "5", "--beta", "0.05", "--seed", "1", "--json"],
    ["mia", "--data", "@csv", "--epochs", "2", "--shadows", "1", "--hidden", "8",
     "--train-size", "40", "--seed", "1", "--json"],
    ["drl", "--random", "9", "--episodes", "20", "--max-steps", "40", "--epsilon", "1",
     "--seed", "1", "--json"],
    ["comarl", "--agents", "2", "--size", "7", "--episodes", "5", "--sigma", "1",
     "--window", "64", "--seed", "1", "--json"],
    ["advise-bench", "--seeds", "2", "--epochs", "5", "--seed", "1", "--workers", "1",
     "--json"],
    ["report", "@project", "-o", "r.html", "--sections", "overview", "--json"],
]


def _materialise(argv: list[str], inputs: Inputs) -> tuple[list[str], dict[str, Any]]:
    """Replace ``@mdp``/``@map``/``@csv``/``@project`` by files written into the case."""
    files: dict[str, Any] = {}
    out = []
    for a in argv:
        if a == "@mdp":
            files["m.mdp.json"] = _json_bytes(inputs.mdp)
            out.append("m.mdp.json")
        elif a == "@map":
            files["w.map.json"] = _json_bytes(inputs.map)
            out.append("w.map.json")
        elif a == "@csv":
            import mutants

            files["d.csv"] = mutants.dumps_csv(inputs.csv)
            out.append("d.csv")
        elif a == "@project":
            files["p.privplan.json"] = _json_bytes(inputs.project)
            out.append("p.privplan.json")
        else:
            out.append(a)
    return out, files


# ----------------------------------------------------------------------------- families
#: Shapes of the deflate bombs (3.2 GB, 1.2 GB and 256 MB of zeros; ``--small-bombs`` drops
#: the first, which takes seconds to build).
BOMB_SHAPES: list[tuple[int, ...]] = [(20000, 1, 20000), (12000, 1, 12000), (4000, 2, 4000)]
FILE_KINDS = ["mdp.json", "mdp.npz", "map.json", "privplan.json", "advising.json",
              "grid.json", "csv", "sidecar.npz"]


def family_file(inputs: Inputs, rng: random.Random, n: int) -> list[Case]:
    import mutants

    cases = []
    for i in range(n):
        kind = FILE_KINDS[i % len(FILE_KINDS)]
        data = mutants._mutant(kind, inputs.bases[kind], rng)
        if kind == "sidecar.npz":
            files = {"s.privplan.json": mutants.sidecar_project(), mutants.SIDECAR_NAME: data}
            cases.append(Case("file", kind, ["report", "s.privplan.json", "-o", "r.html",
                                             "--json"], files))
            continue
        name = "in." + kind
        if kind == "mdp.json" and rng.random() < 0.3:  # other readers of the same file
            cmd = rng.choice(["privatize", "sweep", "share"])
            cases.append(Case("file", kind, inputs.command_for(cmd, name), {name: data}))
            continue
        cases.append(Case("file", kind, inputs.command_for(kind, name), {name: data}))
    return cases


def family_npz(inputs: Inputs, rng: random.Random, n: int) -> list[Case]:
    import mutants

    good = mutants._npz_compressed(inputs.npz)
    makers: list[Callable[[], bytes]] = [
        lambda: mutants._bomb(rng.choice([(8000, 4, 8000), (100_000, 10, 100_000),
                                          (3, 2**40, 3), (2**31, 2**31, 2)])),
        lambda: mutants.deflate_bomb(rng.choice(BOMB_SHAPES)),
        lambda: mutants.bit_flip(good, rng, rng.choice([1, 1, 1, 3, 16])),
        lambda: mutants.forged_sizes(good, rng),
        lambda: good[: rng.randrange(len(good))],
        lambda: mutants.mutate_npz(inputs.npz, rng),
    ]
    cases = []
    for i in range(n):
        data = makers[i % len(makers)]()
        if rng.random() < 0.5:
            cases.append(Case("npz", "mdp.npz", inputs.command_for("mdp.npz", "in.mdp.npz"),
                              {"in.mdp.npz": data}))
        else:
            files = {"s.privplan.json": mutants.sidecar_project(), mutants.SIDECAR_NAME: data}
            cmd = rng.choice([["report", "s.privplan.json", "-o", "r.html", "--json"],
                              ["sweep", "s.privplan.json", "--mdp", "ex", "--k", "100",
                               "--runs", "1", "--seed", "1", "--workers", "1", "--json"],
                              inputs.command_for("record", "s.privplan.json")])
            cases.append(Case("npz", "sidecar.npz", cmd, files))
    return cases


SPECIALS: list[tuple[str, Any]] = [
    ("fifo", ("fifo",)), ("dev-zero", ("symlink", "/dev/zero")), ("dev-zero-path", "/dev/zero"),
    ("dev-urandom", "/dev/urandom"), ("dev-null", "/dev/null"), ("folder", ("dir",)),
    ("loop", ("symlink", "loop.json")), ("missing", None), ("link-to-fifo", ("fifo-link",)),
    ("newline-name", ("newline",)), ("bidi-name", ("bidi",)),
]
SPECIAL_INPUTS = ["mdp.json", "mdp.npz", "map.json", "privplan.json", "advising.json",
                  "grid.json", "csv", "record", "privatize", "share"]


def family_special(inputs: Inputs, rng: random.Random, n: int) -> list[Case]:
    cases = []
    combos = [(s, k) for s in SPECIALS for k in SPECIAL_INPUTS]
    for i in range(n):
        (label, spec), kind = combos[i % len(combos)]
        ext = {"record": "privplan.json", "privatize": "mdp.json",
               "share": "mdp.json"}.get(kind, kind)
        name = "in." + ext
        files: dict[str, Any] = {}
        if isinstance(spec, str):
            name = spec  # a device path given directly
        elif spec in (("newline",), ("bidi",)):  # a hostile file name holding garbage
            name = ("in\nsecond line." if spec == ("newline",) else "in\u202egnp.") + ext
            files[name] = b"\x00garbage\n"
        elif spec is not None:
            files[name] = spec
        cases.append(Case("special", f"{label}:{kind}", inputs.command_for(kind, name), files))
    return cases


def family_flags(inputs: Inputs, rng: random.Random, n: int) -> list[Case]:
    import mutants

    cases = []
    for i in range(n):
        base = FLAG_BASES[i % len(FLAG_BASES)]
        argv, files = _materialise(base, inputs)
        flags = [j for j, a in enumerate(argv) if a.startswith("-") and a != "--json"
                 and j + 1 < len(argv) and not argv[j + 1].startswith("--")]
        r = rng.random()
        if r < 0.8 and flags:
            for j in rng.sample(flags, min(len(flags), 1 if rng.random() < 0.8 else 2)):
                argv[j + 1] = rng.choice(EXTREMES + [rng.choice(mutants.UNICODE)[:200]])
        elif r < 0.9:
            argv.insert(rng.randrange(1, len(argv) + 1), rng.choice(
                ["--seed", "--workers", "--unknown-flag", "--json", "-o", "--record"]))
        elif flags:
            j = rng.choice(flags)
            del argv[j:j + 2]  # a required flag may go missing
        cases.append(Case("flags", argv[0], argv, files))
    return cases


# ------------------------------------------------------------------ refusals and answers
def _mdp(inputs: Inputs) -> dict[str, Any]:
    return copy.deepcopy(inputs.mdp)


def _mdp_refusals(inputs: Inputs) -> list[tuple[str, list[str], dict[str, Any]]]:
    """MDP files the contract says must be refused."""
    out: list[tuple[str, list[str], dict[str, Any]]] = []

    def mdp_case(label: str, change: Callable[[dict[str, Any]], Any], text: str | None = None
                 ) -> None:
        d = _mdp(inputs)
        change(d)
        data = (text or _json_bytes(d)).encode() if isinstance(text, str) else _json_bytes(d)
        out.append((f"mdp:{label}", inputs.command_for("mdp.json", "m.mdp.json"),
                    {"m.mdp.json": data}))

    def row(d: dict[str, Any]) -> dict[str, float]:
        return d["transitions"]["start"]["acquire_1"]

    mdp_case("row sums to 0.9", lambda d: row(d).update(failure=row(d)["failure"] - 0.1))
    mdp_case("negative probability", lambda d: row(d).update(start=-0.01, failure=0.802))
    mdp_case("probability above 1", lambda d: row(d).update(start=1.5, failure=-0.698))
    mdp_case("discount 1 without horizon", lambda d: d.update(horizon=None, discount=1.0))
    mdp_case("discount above 1", lambda d: d.update(horizon=None, discount=1.5))
    mdp_case("discount 0", lambda d: d.update(horizon=None, discount=0.0))
    mdp_case("negative discount", lambda d: d.update(discount=-0.5))
    mdp_case("horizon 0", lambda d: d.update(horizon=0))
    mdp_case("negative horizon", lambda d: d.update(horizon=-3))
    mdp_case("fractional horizon", lambda d: d.update(horizon=2.5))
    mdp_case("boolean horizon", lambda d: d.update(horizon=True))
    mdp_case("unknown initial state", lambda d: d.update(initial_state="nowhere"))
    mdp_case("duplicate state", lambda d: d["states"].append(d["states"][0]))
    mdp_case("unknown next state", lambda d: row(d).update(elsewhere=0.0))
    mdp_case("string probability", lambda d: row(d).update(start="0.01"))
    mdp_case("state without actions", lambda d: d["transitions"].update(success={}))
    for token in ("NaN", "Infinity", "-Infinity", "1e309", "-1e999"):
        text = json.dumps(_mdp(inputs)).replace('"horizon": 3', f'"horizon": {token}')
        out.append((f"mdp:{token} horizon", inputs.command_for("mdp.json", "m.mdp.json"),
                    {"m.mdp.json": text.encode()}))
        text = json.dumps(_mdp(inputs)).replace('"success": 1.0', f'"success": {token}')
        out.append((f"mdp:{token} reward", inputs.command_for("mdp.json", "m.mdp.json"),
                    {"m.mdp.json": text.encode()}))
    return out


def _project_refusals(inputs: Inputs) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Project files the contract says must be refused."""
    out: list[tuple[str, list[str], dict[str, Any]]] = []

    def project_case(label: str, change: Callable[[dict[str, Any]], Any],
                     cmd: str = "privplan.json") -> None:
        d = copy.deepcopy(inputs.project)
        change(d["project"])
        out.append((f"project:{label}", inputs.command_for(cmd, "p.privplan.json"),
                    {"p.privplan.json": _json_bytes(d)}))

    def dup_model(p: dict[str, Any]) -> None:
        p["mdps"][1]["id"] = p["mdps"][0]["id"]

    def ledger(p: dict[str, Any], **kw: Any) -> None:
        e = {"id": "rel-1", "dataset": "d", "mechanism": "laplace", "epsilon": 1.0}
        e.update(kw)
        p["ledger"] = [e]

    def runs(p: dict[str, Any], **kw: Any) -> None:
        r = {"id": "run-1", "kind": "audit", "target": "laplace", "params": {}, "summary": {},
             "mode": "experiment", "seed": 1, "created": ""}
        r.update(kw)
        p["runs"] = [r]

    for cmd in ("privplan.json", "record"):
        project_case("duplicate model ids", dup_model, cmd)
        project_case("duplicate ledger ids", lambda p: (ledger(p), p["ledger"].append(
            dict(p["ledger"][0]))), cmd)
        project_case("negative epsilon", lambda p: ledger(p, epsilon=-1.0), cmd)
        project_case("delta above 1", lambda p: ledger(p, delta=2.0), cmd)
        project_case("unknown mode", lambda p: ledger(p, mode="sometimes"), cmd)
        project_case("unbounded without reason", lambda p: ledger(p, epsilon=None), cmd)
        project_case("duplicate run ids", lambda p: (runs(p), p["runs"].append(
            dict(p["runs"][0]))), cmd)
        project_case("run seed as text", lambda p: runs(p, seed="1"), cmd)
        project_case("runs not a list", lambda p: p.update(runs={"a": 1}), cmd)
        project_case("negative budget", lambda p: p.update(
            budgets={"d": {"epsilon": -1.0, "delta": 0.0}}), cmd)
    d = copy.deepcopy(inputs.project)
    d["schema_version"] = 99
    out.append(("project:newer schema", inputs.command_for("privplan.json", "p.privplan.json"),
                {"p.privplan.json": _json_bytes(d)}))
    return out


def _map_and_grid_refusals(inputs: Inputs) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Logistics maps and grid worlds the contract says must be refused."""
    out: list[tuple[str, list[str], dict[str, Any]]] = []
    for label, change in (
            ("zero length", lambda m: m["edges"][0].update(length=0)),
            ("negative length", lambda m: m["edges"][0].update(length=-3.0)),
            ("center of one agent", lambda m: next(
                n for n in m["nodes"] if n["kind"] == "center").update(agents=["a"])),
            ("unknown kind", lambda m: m["nodes"][0].update(kind="depot"))):
        mm = copy.deepcopy(inputs.map)
        change(mm)
        out.append((f"map:{label}", inputs.command_for("map.json", "w.map.json"),
                    {"w.map.json": _json_bytes(mm)}))
    # grid worlds
    rows = inputs.grid["rows"]
    for label, new_rows in (("two starts", [rows[0]] + [rows[1].replace(".", "S", 1)]
                             + rows[2:]),
                            ("no goal", [r.replace("G", ".") for r in rows]),
                            ("65 columns", [r + "#" * (65 - len(r)) for r in rows]),
                            ("unknown cell", [rows[0].replace("#", "X", 1)] + rows[1:])):
        g = dict(inputs.grid, rows=new_rows)
        out.append((f"grid:{label}", inputs.command_for("grid.json", "g.grid.json"),
                    {"g.grid.json": _json_bytes(g)}))
    for token in ("NaN", "-1e999", "1e309"):
        out.append((f"grid:{token}", inputs.command_for("grid.json", "g.grid.json"),
                    {"g.grid.json": ('{"format": "privplan-grid", "version": 1, "rows": '
                                     f'{token}}}').encode()}))
    out.append(("grid:deep nesting", inputs.command_for("grid.json", "g.grid.json"),
                {"g.grid.json": b"[" * 100_000 + b"]" * 100_000}))
    return out


def _flag_refusals(inputs: Inputs) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Flags outside their documented ranges, which the contract says must be refused."""
    out: list[tuple[str, list[str], dict[str, Any]]] = []
    flag_cases = [
        ["dirichlet", "--adjacency", "l2-all", "--k", "100", "--eta", "0.1", "--w", "2", "--b",
         "10", "--delta", "0.01", "--json"],
        ["dirichlet", "--k", "100", "--eta", "0.1", "--w", "2", "--b", "1.5", "--delta",
         "0.01", "--json"],
        ["dirichlet", "--k", "100", "--eta", "0.1", "--w", "2", "--b", "0", "--delta", "0.01",
         "--json"],
        ["dirichlet", "--adjacency", "l2-all", "--k", "1e308", "--eta", "0.1", "--w", "2",
         "--b", "0.5", "--delta", "0.01", "--json"],
        ["dirichlet", "--k", "-1", "--eta", "0.1", "--w", "2", "--b", "0.5", "--delta", "0.01",
         "--json"],
        ["dirichlet", "--k", "100", "--eta", "0.1", "--w", "1", "--b", "0.5", "--delta",
         "0.01", "--json"],
        ["accountant", "dpsgd", "--sigma", "1.8e308", "--sample-rate", "0.01", "--steps",
         "100", "--delta", "1e-5", "--json"],
        ["accountant", "dpsgd", "--sigma", "1.7e308", "--sample-rate", "0.01", "--steps",
         "100", "--delta", "1e-5", "--json"],
        ["accountant", "dpsgd", "--sigma", "-1", "--sample-rate", "0.01", "--steps", "100",
         "--delta", "1e-5", "--json"],
        ["accountant", "dpsgd", "--sigma", "1", "--sample-rate", "1.5", "--steps", "100",
         "--delta", "1e-5", "--json"],
        ["accountant", "dpsgd", "--sigma", "1", "--sample-rate", "0.01", "--steps", "100",
         "--delta", "1", "--json"],
        ["comarl", "--seed", "-1", "--episodes", "2", "--json"],
        ["comarl", "--size", "1000", "--seed", "1", "--json"],
        ["comarl", "--agents", "1", "--seed", "1", "--json"],
        ["drl", "--random", "1000", "--seed", "1", "--json"],
        ["drl", "--random", "4", "--seed", "1", "--json"],
        ["audit", "laplace", "--epsilon", "1", "--sensitivity", "5e-324", "--seed", "1",
         "--json"],
        ["audit", "laplace", "--epsilon", "5", "--sensitivity", "5e-324", "--samples", "1000",
         "--seed", "1", "--json"],
        ["audit", "laplace", "--epsilon", "1", "--sensitivity", "0", "--seed", "1", "--json"],
        ["audit", "laplace", "--epsilon", "1", "--sensitivity", "1", "--samples",
         "1000000000", "--seed", "1", "--json"],
        ["audit", "laplace", "--epsilon", "1", "--sensitivity", "1", "--samples", "0",
         "--seed", "1", "--json"],
        ["audit", "laplace", "--epsilon", "-1", "--sensitivity", "1", "--seed", "1", "--json"],
        ["advise", "--preset", "exp2", "--epsilon", "0", "--epochs", "3", "--seed", "1",
         "--json"],
        ["advise", "--preset", "exp2", "--epochs", "0", "--seed", "1", "--json"],
        ["advise", "--preset", "exp2", "--epochs", "3", "--seed", "-5", "--json"],
        ["bounds", "@mdp", "--k", "100", "--beta", "1", "--json"],
        ["bounds", "@mdp", "--k", "0", "--beta", "0.1", "--json"],
        ["bounds", "@mdp", "--k", "nan", "--beta", "0.1", "--json"],
        ["sweep", "@mdp", "--k", "10,-1", "--runs", "2", "--seed", "1", "--json"],
        ["sweep", "@mdp", "--k", "10", "--runs", "0", "--seed", "1", "--json"],
        ["share", "@mdp", "--seed", "-1", "--iterations", "5", "--json"],
        ["mia", "--data", "@csv", "--seed", "-1", "--epochs", "2", "--json"],
        ["plan", "@map", "--origin", "a1", "--goal-agent", "f", "--epsilon", "0", "--seed",
         "1", "--json"],
        ["plan", "@map", "--origin", "nowhere", "--goal-agent", "f", "--epsilon", "1",
         "--json"],
    ]
    for argv in flag_cases:
        a, files = _materialise(argv, inputs)
        out.append((f"flag:{' '.join(argv[:4])}", a, files))
    return out


def _data_refusals(inputs: Inputs) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Data sets the contract says must be refused, and work too long or unbounded to start
    (refused up front)."""
    out: list[tuple[str, list[str], dict[str, Any]]] = []
    import mutants

    base = inputs.csv
    for label, rows_ in (("one class", [base[0]] + [r[:-1] + ["yes"] for r in base[1:]]),
                         ("39 records", base[:40]),
                         ("a NaN feature", [base[0]] + [[*base[1][:-2], "nan", base[1][-1]]]
                          + base[2:]),
                         ("an infinite feature", [base[0]] + [[*base[1][:-2], "inf",
                                                              base[1][-1]]] + base[2:])):
        out.append((f"csv:{label}", inputs.command_for("csv", "d.csv"),
                    {"d.csv": mutants.dumps_csv(rows_)}))
    # long or unbounded work that must be refused up front
    for label, change in (("discount 1 - 1e-12", lambda d: d.update(horizon=None,
                                                                     discount=1 - 1e-12)),
                          ("horizon 1e6", lambda d: d.update(horizon=10**6)),
                          ("horizon 1e9", lambda d: d.update(horizon=10**9))):
        d = _mdp(inputs)
        change(d)
        for cmd in ("mdp.json", "share", "sweep"):
            out.append((f"work:{label}:{cmd}", inputs.command_for(cmd, "m.mdp.json"),
                        {"m.mdp.json": _json_bytes(d)}))
    return out


def _refusals(inputs: Inputs) -> list[tuple[str, list[str], dict[str, Any]]]:
    """(label, argv, files) of inputs the contract says must be refused."""
    return [*_mdp_refusals(inputs), *_project_refusals(inputs), *_map_and_grid_refusals(inputs),
            *_flag_refusals(inputs), *_data_refusals(inputs)]


def _bounds_answer(inputs: Inputs) -> dict[str, Any]:
    from core.cli.main import run_cli

    d = tempfile.mkdtemp()
    path = os.path.join(d, "m.mdp.json")
    Path(path).write_bytes(_json_bytes(inputs.mdp))
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(inputs.command_for("mdp.json", path), out=out, err=err)
    shutil.rmtree(d, ignore_errors=True)
    assert code == 0, err.getvalue()
    return dict(json.loads(out.getvalue()))


def _close(a: Any, b: Any, tol: float = 1e-9) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    return bool(a == b)


_ANSWER_KEYS = ("v_private", "v_lower", "v_upper")
#: A transformation of the MDP file and the answer ``bounds`` must then give: it changes the
#: parsed model ``d`` in place and returns (label, check of the JSON answer against ``ref``).
_Transform = Callable[[dict[str, Any], dict[str, Any], random.Random, int],
                      tuple[str, Callable[[dict[str, Any]], str | None]]]


def _permuted_states(d: dict[str, Any], ref: dict[str, Any], rng: random.Random, T: int
                     ) -> tuple[str, Callable[[dict[str, Any]], str | None]]:
    """Permute the states: every per-state answer is permuted alike."""
    states = list(d["states"])
    perm = list(range(len(states)))
    rng.shuffle(perm)
    d["states"] = [states[j] for j in perm]

    def check(out: dict[str, Any]) -> str | None:
        for k in _ANSWER_KEYS:
            want = [ref[k][j] for j in perm]
            if not _close(out[k], want):
                return f"{k} {out[k]} != permuted {want}"
        return None
    return "permuted states", check


def _shifted_rewards(d: dict[str, Any], ref: dict[str, Any], rng: random.Random, T: int
                     ) -> tuple[str, Callable[[dict[str, Any]], str | None]]:
    """Add c to every reward: values at stage 0 move by c·T exactly."""
    c = rng.choice([-2.0, -0.5, 0.25, 3.0])
    for s in d["states"]:
        acts = d["transitions"][s]
        d.setdefault("rewards", {}).setdefault(s, {})
        for a in acts:
            d["rewards"][s][a] = d["rewards"][s].get(a, 0.0) + c

    def check(out: dict[str, Any]) -> str | None:
        for k in _ANSWER_KEYS:
            want = [v + c * T for v in ref[k]]
            if not _close(out[k], want, 1e-8):
                return f"{k} {out[k]} != shifted {want}"
        return None
    return "shifted rewards", check


def _scaled_rewards(d: dict[str, Any], ref: dict[str, Any], rng: random.Random, T: int
                    ) -> tuple[str, Callable[[dict[str, Any]], str | None]]:
    """Scale every reward by a > 0: values and the cost bound scale by a."""
    a_ = rng.choice([0.5, 2.0, 10.0])
    d["rewards"] = {s: {x: v * a_ for x, v in acts.items()}
                    for s, acts in d.get("rewards", {}).items()}
    d["terminal_rewards"] = {s: v * a_ for s, v in d.get("terminal_rewards", {}).items()}

    def check(out: dict[str, Any]) -> str | None:
        for k in (*_ANSWER_KEYS, "cost_bound"):
            want = [v * a_ for v in ref[k]] if isinstance(ref[k], list) else ref[k] * a_
            if not _close(out[k], want, 1e-8):
                return f"{k} {out[k]} != scaled {want}"
        return None
    return "scaled rewards", check


def _same_model(d: dict[str, Any], ref: dict[str, Any], rng: random.Random, T: int
                ) -> tuple[str, Callable[[dict[str, Any]], str | None]]:
    """The same model written differently (the file is re-indented): the same answer."""
    def check(out: dict[str, Any]) -> str | None:
        for k in (*_ANSWER_KEYS, "policy", "alpha"):
            if not _close(out[k], ref[k], 1e-12):
                return f"{k} changed with the layout of the file"
        return None
    return "re-indented", check


_TRANSFORMS: tuple[_Transform, ...] = (_permuted_states, _shifted_rewards, _scaled_rewards,
                                       _same_model)


def _answers(inputs: Inputs, rng: random.Random, n: int) -> list[Case]:
    """Valid transformations of the MDP with the answer they must give (``bounds``), each
    of :data:`_TRANSFORMS` in turn."""
    ref = _bounds_answer(inputs)
    T = int(inputs.mdp["horizon"])
    cases = []
    for i in range(n):
        d = _mdp(inputs)
        label, check = _TRANSFORMS[i % len(_TRANSFORMS)](d, ref, rng, T)
        if label == "re-indented":
            items = list(d.items())
            rng.shuffle(items)
            data = json.dumps(dict(items), indent=rng.choice([None, 1, 4])).encode()
        else:
            data = _json_bytes(d)
        cases.append(Case("answer", label, inputs.command_for("mdp.json", "m.mdp.json"),
                          {"m.mdp.json": data}, "answer", check))
    return cases


def family_semantic(inputs: Inputs, rng: random.Random, n: int) -> list[Case]:
    """Half refusals (each at least once when there is room for all), half known answers."""
    refusals = _refusals(inputs)
    if n - n // 2 >= len(refusals):
        cases = [Case("refuse", label, argv, files, "refuse")
                 for label, argv, files in refusals]
    else:  # a small campaign: a sample of them
        cases = [Case("refuse", label, argv, files, "refuse")
                 for label, argv, files in rng.sample(refusals, n - n // 2)]
    while len(cases) < n - n // 2:
        label, argv, files = refusals[rng.randrange(len(refusals))]
        cases.append(Case("refuse", label, argv, files, "refuse"))
    return cases + _answers(inputs, rng, max(n // 2, 4))


def family_io(inputs: Inputs, rng: random.Random, n: int, full: str | None,
              readonly: str | None) -> list[Case]:
    cases = []
    outs = [("report", lambda o: ["report", "p.privplan.json", "-o", o, "--json"],
             {"p.privplan.json": _json_bytes(inputs.project)}),
            ("privatize", lambda o: ["privatize", "m.mdp.json", "--k", "100", "--seed", "1",
                                     "-o", o, "--json"],
             {"m.mdp.json": _json_bytes(inputs.mdp)}),
            ("advise-bench", lambda o: ["advise-bench", "--seeds", "1", "--epochs", "3",
                                        "--seed", "1", "--workers", "1", "--csv", o,
                                        "--json"], {})]
    targets = [t for t in (full, readonly) if t]
    for i in range(n):
        label, make, files = outs[i % len(outs)]
        if targets and i % 3 != 2:
            where = targets[i % len(targets)]
            name = {"report": "r.html", "privatize": "x.mdp.json",
                    "advise-bench": "c.csv"}[label]
            o = os.path.join(where, f"{i}-{name}")
            cases.append(Case("io", f"{label}:{'full' if where == full else 'read-only'}",
                              make(o), dict(files), "runtime-ok"))
        else:  # into a folder that does not exist, a folder as the output, a symlinked output
            o = rng.choice(["missing/dir/out.html", ".", "/", "link-out.html"])
            f = dict(files)
            if o == "link-out.html":
                f["link-out.html"] = ("symlink", "/dev/full")
            cases.append(Case("io", f"{label}:{o}", make(o), f, "any"))
    return cases



# ------------------------------------------------- the other commands and file formats
_DRN_TEXT = ("@type: MDP\n@parameters\n\n@reward_models\ntime cost\n@nr_states\n2\n"
             "@nr_choices\n2\n@model\nstate 0 [0, 0] init\n\taction go [1, 2]\n\t\t1 : 1\n"
             "state 1 [0, 0] goal\n\taction stay [0, 0]\n\t\t1 : 1\n")
_TRA_TEXT = "2 2 2\n0 0 1 1\n1 0 1 1\n"
_LAB_TEXT = '0="init" 1="deadlock" 2="goal"\n0: 0\n1: 2\n'
#: gymnasium ids a user (or a project file) may type; the module ones must import nothing
GYM_IDS_HOSTILE = ["gym:this:Foo", "gym:antigravity:X", "gym:os:CartPole-v1",
                   "gym:FrozenLake-v1:1000x1000", "gym:FrozenLake-v1:8x8", "gym:Nope-v0",
                   "gym:", "gym:Taxi-v3", "gym:CliffWalking-v0", "gym:../../etc/passwd",
                   "gym:CartPole-v1:x"]


def _policy_table(inputs: Inputs, rng: random.Random) -> Any:
    mdp = inputs.mdp
    T, S = int(mdp["horizon"]), len(mdp["states"])
    A = max(len(a) for a in mdp["transitions"].values())
    table = [[[1.0] + [0.0] * (A - 1) for _ in range(S)] for _ in range(T)]
    return table


_PLAN = {"format": "privplan-plan", "version": 1, "budget": {"epsilon": 6.0, "delta": 1e-5},
         "releases": [{"name": "counts", "kind": "laplace", "epsilon": 0.7},
                      {"name": "means", "kind": "gaussian", "sigma": 3.0, "sensitivity": 1.0},
                      {"name": "net", "kind": "dpsgd", "sigma": 1.3, "sample_rate": 0.02,
                       "steps": 600}]}


def _synthesise_case(inputs: Inputs, rng: random.Random) -> Case:
    """``synthesise`` on a mutated model, with its method and softmax temperature drawn."""
    import mutants

    data = (_json_bytes(inputs.mdp) if rng.random() < 0.3
            else mutants._mutant("mdp.json", inputs.mdp, rng))
    argv = ["synthesise", "m.mdp.json", "--json"]
    extra = rng.choice([[], ["--method", "lp"], ["--softmax", rng.choice(["0.5"] + EXTREMES)]])
    return Case("other", "synthesise", argv + extra, {"m.mdp.json": data})


def _budget_case(rng: random.Random) -> Case:
    """``budget`` on a mutated privacy plan (the issue's plan less its project model), with
    an allocation drawn; a plan whose releases' ε is negative or not a number is refused."""
    import mutants

    plan = copy.deepcopy(_PLAN)
    expect = "any"
    if rng.random() < 0.25:
        plan["releases"][0]["epsilon"] = rng.choice([-1.0, "nan", None, True, "x"])
        expect = "refuse"
    data = (mutants.mutate_tree(plan, rng) if expect == "any" and rng.random() < 0.7
            else plan)
    argv = ["budget", "p.plan.json", "--json"] + rng.choice(
        [[], ["--allocate", "weights"], ["--allocate", rng.choice(["x", ""])]])
    return Case("other", "budget", argv, {"p.plan.json": _json_bytes(data)}, expect)


def _other_cases(inputs: Inputs, rng: random.Random) -> list[Case]:  # noqa: C901 - a catalogue
    """One case of each kind below, drawn at random: mutated import files, exports with
    extreme flags, design, bounds --policy, plan --domain, mia --attack, share gym:, hostile
    ledgers and batch bombs (the last three with their expected refusals)."""
    import mutants

    kind = rng.choice(["import-drn", "import-prism", "export", "design", "policy", "domain",
                       "mia-attack", "gym", "ledger", "batch", "synthesise", "budget"])
    mdp_file = {"m.mdp.json": _json_bytes(inputs.mdp)}
    if kind in ("synthesise", "budget"):
        return [_synthesise_case(inputs, rng) if kind == "synthesise" else _budget_case(rng)]
    if kind == "import-drn":
        data = mutants.mutate_text(_DRN_TEXT, rng) if rng.random() < 0.9 else _DRN_TEXT.encode()
        return [Case("other", "drn", ["import", "m.drn", "-o", "o.mdp.npz", "--horizon", "3",
                                      "--json"], {"m.drn": data})]
    if kind == "import-prism":
        tra = mutants.mutate_text(_TRA_TEXT, rng) if rng.random() < 0.7 else _TRA_TEXT.encode()
        lab = mutants.mutate_text(_LAB_TEXT, rng) if rng.random() < 0.5 else _LAB_TEXT.encode()
        return [Case("other", "prism", ["import", "m.tra", "m.lab", "-o", "o.mdp.npz",
                                        "--horizon", rng.choice(["3", "0", "1e9", "x"]),
                                        "--json"], {"m.tra": tra, "m.lab": lab})]
    if kind == "export":
        fmt = rng.choice(["prism", "drn", "prism-interval"])
        argv = ["export", "m.mdp.json", "--format", fmt, "-o", "out"]
        if fmt == "prism-interval" or rng.random() < 0.3:
            argv += ["--k", rng.choice(["100"] + EXTREMES), "--beta",
                     rng.choice(["0.1"] + EXTREMES)]
        data = mdp_file if rng.random() < 0.6 else {
            "m.mdp.json": mutants._mutant("mdp.json", inputs.mdp, rng)}
        return [Case("other", f"export-{fmt}", argv + ["--json"], data)]
    if kind == "design":
        argv = ["design", "m.mdp.json", "--epsilon", "1", "--delta", "1e-5", "--b", "0.1",
                "--json"]
        j = rng.choice([3, 5, 7])
        argv[j] = rng.choice(EXTREMES)
        # never valid: a non-finite or negative target; for --b also one below 1e-12 (its
        # epsilon underflowed to 0); a tiny --delta is a (hard) target, answered
        bad = {"nan", "inf", "-inf", "-1", "-1.8e308"} | (
            {"5e-324", "4.9e-324", "1e-300", "0", "-0"} if j == 7 else set())
        expect = "refuse" if argv[j] in bad else "any"
        return [Case("other", "design", argv, mdp_file, expect)]
    if kind == "policy":
        table = _policy_table(inputs, rng)
        expect = "any"
        r = rng.random()
        if r < 0.3:
            table[0][0][0] = rng.choice([True, False])
            if table[0][0][0] is False:
                table[0][0][1] = 1.0
            expect = "refuse"
        elif r < 0.8:
            doc = mutants.mutate_tree({"policy": table}, rng)
            files = dict(mdp_file, **{"pi.json": _json_bytes(doc)})
            return [Case("other", "policy", ["bounds", "m.mdp.json", "--k", "100", "--beta",
                                             "0.1", "--policy", "pi.json", "--json"], files)]
        files = dict(mdp_file, **{"pi.json": _json_bytes({"policy": table})})
        return [Case("other", "policy", ["bounds", "m.mdp.json", "--k", "100", "--beta", "0.1",
                                         "--policy", "pi.json", "--json"], files, expect)]
    if kind == "domain":
        name = rng.choice(["fig41.map.json", "air.map.json", "rover.map.json"])
        d = json.loads((EXAMPLES / name).read_text())
        expect = "any"
        if rng.random() < 0.5:
            bases = [n for n in d["nodes"] if n.get("kind") == "base"]
            rng.choice(bases)["role"] = rng.choice(["hangar", "", None, 7, "stop", "target"])
            bad = {"fig41.map.json": True}.get(name, False)
            expect = "refuse" if bad else "any"
        elif rng.random() < 0.5:
            d = mutants.mutate_tree(d, rng)
        nodes = [n.get("id") for n in d.get("nodes", []) if isinstance(n, dict)] \
            if isinstance(d, dict) else []
        bases = [str(x) for x in nodes if isinstance(x, str)] or ["a1"]
        argv = ["plan", "w.map.json", "--origin", rng.choice(bases), "--goal-agent",
                rng.choice(["a", "b", "f", "x"]), "--epsilon", "1", "--seed", "1",
                "--domain", rng.choice(["logistics", "air", "rover", "packet"]), "--json"]
        return [Case("other", "plan-domain", argv, {"w.map.json": _json_bytes(d)}, expect)]
    if kind == "mia-attack":
        argv = ["mia", "--data", "d.csv", "--attack", rng.choice(["shadow", "lira", "loss",
                                                                   "canary"]),
                "--epochs", "2", "--shadows", "1", "--hidden", "8", "--train-size", "40",
                "--seed", "1", "--json"]
        if rng.random() < 0.5:
            argv += [rng.choice(["--lr", "--epsilon", "--k", "--b", "--epochs"]),
                     rng.choice(EXTREMES)]
        return [Case("other", "mia-attack", argv, {"d.csv": mutants.dumps_csv(inputs.csv)})]
    if kind == "gym":
        env = rng.choice(GYM_IDS_HOSTILE)
        agent = rng.choice(["ppo", "tabular"])
        module_id = env.count(":") >= 2 and env.split(":")[1] in ("this", "antigravity", "os")
        expect = "refuse" if module_id or env in ("gym:", "gym:Nope-v0") else "any"
        argv = ["share", env, "--agent", agent, "--iterations", "5", "--seeds", "1",
                "--seed", "1", "--json"]
        if agent == "ppo":
            argv += ["--teacher-iterations", "1", "--ppo-steps", "16", "--ppo-envs", "1"]
        return [Case("other", f"share-gym-{agent}", argv, {}, expect)]
    if kind == "ledger":
        d = copy.deepcopy(inputs.project)
        e: dict[str, Any] = {"id": "rel-1", "dataset": "d", "mechanism": "laplace",
                             "epsilon": 1.0}
        field_, value = rng.choice([("source", None), ("id", ""), ("id", " "),
                                    ("mode", None), ("parameters", []), ("seed", "7"),
                                    ("time", 5), ("epsilon", True), ("delta", "0"),
                                    ("count", 0), ("adjacency", None), ("reason", [])])
        e[field_] = value
        d["project"]["ledger"] = [e]
        cmd = rng.choice(["privplan.json", "record"])
        return [Case("other", f"ledger-{cmd}", inputs.command_for(cmd, "p.privplan.json"),
                     {"p.privplan.json": _json_bytes(d)}, "refuse")]
    big = rng.choice(["100000000", "10000000", "1000000000"])
    argv = rng.choice([["plan-bench", "B4", "--worlds", big, "--seed", "1"],
                       ["plan-bench", "all", "--worlds", big, "--seed", "1"],
                       ["advise-bench", "--seeds", big, "--seed", "1"],
                       ["sweep", "m.mdp.json", "--k", "10,100", "--runs", "1000000",
                        "--seed", "1"]])
    return [Case("other", argv[0] + "-bomb", argv + ["--json"], mdp_file, "refuse")]


def family_other(inputs: Inputs, rng: random.Random, n: int) -> list[Case]:
    cases: list[Case] = []
    while len(cases) < n:
        cases += _other_cases(inputs, rng)
    return cases[:n]


# ----------------------------------------------------------------------------- running
def _prepare(case: Case, folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    for name, spec in case.files.items():
        path = os.path.join(folder, name)
        if isinstance(spec, bytes):
            with open(path, "wb") as fh:
                fh.write(spec)
        elif spec == ("fifo",):
            os.mkfifo(path)
        elif spec == ("fifo-link",):
            os.mkfifo(os.path.join(folder, "pipe"))
            os.symlink("pipe", path)
        elif spec == ("dir",):
            os.mkdir(path)
        elif isinstance(spec, tuple) and spec[0] == "symlink":
            os.symlink(spec[1] if spec[1] != "loop.json" else name, path)


def _child(argv: list[str], folder: str, cap: int) -> None:  # pragma: no cover - forked
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.chdir(folder)
        out_fd = os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        err_fd = os.open("stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8",
                                      line_buffering=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), encoding="utf-8",
                                      line_buffering=True)
        from core.cli.main import run_cli

        code = run_cli(argv, out=sys.stdout, err=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException as exc:  # noqa: BLE001 - anything escaping run_cli: a crash
        try:
            os.write(2, f"Traceback (escaped run_cli): {type(exc).__name__}: {exc}\n".encode())
        finally:
            os._exit(1)
    os._exit(code if isinstance(code, int) and 0 <= code < 256 else 1)


def _start(case: Case, folder: str, cap: int) -> Any:
    if case.real:
        env = dict(os.environ, PYTHONPATH=str(ROOT))

        def limit() -> None:  # pragma: no cover - in the child
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

        out = open(os.path.join(folder, "stdout.txt"), "wb")  # noqa: SIM115
        err = open(os.path.join(folder, "stderr.txt"), "wb")  # noqa: SIM115
        # as bytes: a lone surrogate in a hostile flag reaches the program as raw bytes
        argv = [a.encode("utf-8", "surrogatepass") for a in case.argv]
        proc = subprocess.Popen([os.fsencode(sys.executable), b"-m", b"core.cli", *argv],
                                cwd=folder, stdout=out, stderr=err, env=env,
                                preexec_fn=limit)
        out.close()
        err.close()
        return proc.pid
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        _child(case.argv, folder, cap)
    return pid


def _refusal_stdout_problem(out: str, code: int, as_json: bool) -> str:
    """What is wrong with a refusal's stdout ("" if nothing): without ``--json`` it is empty;
    with it, exactly one strict JSON object whose ``error`` carries the exit code — anything
    else there (an imported module's output, a second object) breaks the contract."""
    if not as_json:
        return f"exit {code} with output on stdout: {out[:200]!r}" if out.strip() else ""
    try:
        payload = json.loads(out, parse_constant=lambda t: (_ for _ in ()).throw(
            ValueError(f"non-finite {t}")))
    except ValueError as exc:
        return f"exit {code} without one strict JSON error object on stdout: {exc}"
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict) or error.get("exit") != code:
        return f"exit {code} whose JSON has no error object with that exit: {out[:200]!r}"
    return ""


def _classify(case: Case, status: int, rss_kb: int, hung: bool, folder: str, cap_mb: int
              ) -> tuple[str, str]:
    """(outcome, detail): outcome in ok, crash, hang, bomb, wrong-acceptance, wrong-answer,
    contract."""
    out = Path(folder, "stdout.txt").read_text("utf-8", "replace") \
        if Path(folder, "stdout.txt").exists() else ""
    err = Path(folder, "stderr.txt").read_text("utf-8", "replace") \
        if Path(folder, "stderr.txt").exists() else ""
    failed = _process_failure(status, rss_kb, hung, err, cap_mb)
    if failed is not None:
        return failed
    code = os.WEXITSTATUS(status)
    if code == 0 and case.expect == "refuse":
        return "wrong-acceptance", out[:300]
    if code in (2, 3):
        return _refusal_outcome(case, code, out, err)
    return _answer_outcome(case, out)


def _process_failure(status: int, rss_kb: int, hung: bool, err: str, cap_mb: int
                     ) -> tuple[str, str] | None:
    """A hang, a memory bomb or a crash (a signal, exit 1, a traceback or an exit code
    other than 0, 2 and 3); None when the process answered in the contract's terms."""
    if hung:
        return "hang", f"no answer in {TIMEOUT_S:.0f} s"
    if rss_kb > cap_mb * 1024:
        return "bomb", f"peak RSS {rss_kb / 1024:.0f} MB"
    if os.WIFSIGNALED(status):
        return "crash", f"killed by signal {os.WTERMSIG(status)}: {err[-300:]}"
    code = os.WEXITSTATUS(status)
    if "MemoryError" in err or "out of memory" in err:
        return "bomb", f"exit {code}: {err.strip()[-300:]}"
    if code == 1 or "Traceback" in err or code not in (0, 2, 3):
        return "crash", f"exit {code}: {err.strip()[-300:]}"
    return None


def _refusal_outcome(case: Case, code: int, out: str, err: str) -> tuple[str, str]:
    """A refusal (exit 2 or 3) keeps the contract with one line on stderr, the JSON error
    object under --json, and exit 3 only where a runtime failure may happen."""
    problem = _refusal_stdout_problem(out, code, "--json" in case.argv)
    if problem:
        return "contract", problem
    if err.count("\n") != 1 or not err.endswith("\n"):
        return "contract", f"exit {code} with {err.count(chr(10))} stderr lines: {err[:300]}"
    if code == 3 and case.expect != "runtime-ok":
        return "contract", f"exit 3 outside a runtime failure: {err.strip()[:300]}"
    return "ok", f"exit {code}"


def _answer_outcome(case: Case, out: str) -> tuple[str, str]:
    """An answer (exit 0): under --json one strict JSON object, which the case's check
    accepts; a case that checks its answer needs --json."""
    if "--json" in case.argv:
        try:
            payload = json.loads(out, parse_constant=lambda t: (_ for _ in ()).throw(
                ValueError(f"non-finite {t}")))
        except ValueError as exc:
            return "contract", f"exit 0 without one strict JSON object: {exc}"
        if not isinstance(payload, dict):
            return "contract", "exit 0 with JSON that is not an object"
        if case.expect == "answer" and case.check is not None:
            problem = case.check(payload)
            if problem:
                return "wrong-answer", problem
    elif case.expect == "answer":
        return "contract", "no --json"
    return "ok", "exit 0"



#: the special family's input names that are a format read by another command
_FORMAT_OF = {"privatize": "mdp.json", "share": "mdp.json", "record": "privplan.json"}


def table_row(case: Case) -> str:
    """The row of the reliability table a case counts in: the command, and for a file case
    the format it reads (``bounds / mdp.npz``)."""
    if case.family in ("file", "npz", "special"):
        fmt = _FORMAT_OF.get(case.kind.split(":")[-1], case.kind.split(":")[-1])
        return f"{case.argv[0]} / {fmt}" if case.argv else fmt
    if case.family == "other" and case.kind in ("drn", "prism"):
        return f"import / {case.kind}"
    return case.argv[0] if case.argv else case.kind


_COLUMNS = (("crash", "crashes"), ("hang", "hangs"), ("bomb", "bombs"),
            ("wrong-acceptance", "wrong acceptances"), ("wrong-answer", "wrong answers"),
            ("contract", "contract"))


def markdown_table(summaries: list[dict[str, Any]]) -> str:
    """The per-command table of one or more campaign summaries (chunks add up)."""
    rows: dict[str, Counter[str]] = {}
    for summ in summaries:
        for row, counts in summ.get("commands", {}).items():
            cmd, _, fmt = row.partition(" / ")
            if fmt:
                row = f"{cmd} / {_FORMAT_OF.get(fmt, fmt)}"
            rows.setdefault(row, Counter()).update(counts)
    total: Counter[str] = Counter()
    lines = ["| command / format | cases | " + " | ".join(c for _, c in _COLUMNS) + " |",
             "|---|---:|" + "---:|" * len(_COLUMNS)]
    for row in sorted(rows):
        c = rows[row]
        total.update(c)
        lines.append(f"| {row} | {c['cases']} | "
                     + " | ".join(str(c[k]) for k, _ in _COLUMNS) + " |")
    lines.append(f"| **total** | **{total['cases']}** | "
                 + " | ".join(f"**{total[k]}**" for k, _ in _COLUMNS) + " |")
    return "\n".join(lines)


def run_campaign(cases: list[Case], out_dir: str, *, jobs: int, cap_mb: int,
                 keep: bool = False) -> dict[str, Any]:
    cap = cap_mb * 2**20
    pending = list(enumerate(cases))
    running: dict[int, tuple[int, Case, str, float]] = {}
    outcomes: Counter[str] = Counter()
    exits: Counter[str] = Counter()
    by_family: dict[str, Counter[str]] = {}
    by_command: dict[str, Counter[str]] = {}
    failures: list[dict[str, Any]] = []
    peak_kb = 0
    slowest = 0.0
    t_start = time.time()
    while pending or running:
        while pending and len(running) < jobs:
            i, case = pending.pop(0)
            folder = os.path.join(out_dir, f"case{i:05d}")
            _prepare(case, folder)
            pid = _start(case, folder, cap)
            running[pid] = (i, case, folder, time.monotonic())
        done = False
        for pid, (i, case, folder, t0) in list(running.items()):
            try:
                wpid, status, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                wpid, status, usage = pid, 0, None  # type: ignore[assignment]
            hung = False
            if wpid == 0:
                if time.monotonic() - t0 < TIMEOUT_S:
                    continue
                os.kill(pid, signal.SIGKILL)
                wpid, status, usage = os.wait4(pid, 0)
                hung = True
            del running[pid]
            done = True
            elapsed = time.monotonic() - t0
            slowest = max(slowest, elapsed if not hung else TIMEOUT_S)
            rss = int(usage.ru_maxrss) if usage is not None else 0
            peak_kb = max(peak_kb, rss)
            outcome, detail = _classify(case, status, rss, hung, folder, cap_mb)
            outcomes[outcome] += 1
            by_family.setdefault(case.family, Counter())[outcome] += 1
            row = table_row(case)
            by_command.setdefault(row, Counter())[outcome] += 1
            by_command[row]["cases"] += 1
            if not hung and os.WIFEXITED(status):
                exits[f"exit {os.WEXITSTATUS(status)}"] += 1
            if outcome != "ok":
                failures.append({"case": i, "family": case.family, "kind": case.kind,
                                 "outcome": outcome, "argv": case.argv, "detail": detail,
                                 "real": case.real, "seconds": round(elapsed, 1)})
                print(json.dumps(failures[-1]), flush=True)
            elif not keep:
                shutil.rmtree(folder, ignore_errors=True)
        if not done:
            time.sleep(0.01)
    return {"cases": len(cases), "real_processes": sum(c.real for c in cases),
            "outcomes": dict(outcomes), "exits": dict(exits),
            "families": {k: dict(v) for k, v in sorted(by_family.items())},
            "commands": {k: dict(v) for k, v in sorted(by_command.items())},
            "crashes": outcomes["crash"], "hangs": outcomes["hang"], "bombs": outcomes["bomb"],
            "wrong_acceptances": outcomes["wrong-acceptance"],
            "wrong_answers": outcomes["wrong-answer"], "contract": outcomes["contract"],
            "peak_rss_mb": round(peak_kb / 1024), "slowest_s": round(slowest, 1),
            "cap_mb": cap_mb, "timeout_s": TIMEOUT_S,
            "wall_s": round(time.time() - t_start), "failures": failures}


def _mount(kind: str, base: str) -> str | None:
    """A 64 KiB tmpfs filled to the brim ("full") or mounted read-only; None without root."""
    path = os.path.join(base, kind)
    os.makedirs(path, exist_ok=True)
    opts = "size=64k" + (",ro" if kind == "readonly" else "")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", path],
                      capture_output=True).returncode != 0:
        return None
    if kind == "full":
        with open(os.path.join(path, "filler"), "wb") as fh:
            try:
                fh.write(bytes(1 << 20))
            except OSError:
                pass
    return path


def build_cases(n: int, seed: int, full: str | None, readonly: str | None,
                real_every: int) -> list[Case]:
    rng = random.Random(seed)
    inputs = Inputs()
    share = {"file": 0.30, "npz": 0.06, "special": 0.04, "flags": 0.22, "semantic": 0.12,
             "io": 0.02, "other": 0.24}
    if n < 200:  # a slice: every family, the semantic ones too
        share["semantic"] = 0.3
    counts = {k: max(1, int(round(v * n))) for k, v in share.items()}
    cases = (family_file(inputs, rng, counts["file"]) + family_npz(inputs, rng, counts["npz"])
             + family_special(inputs, rng, counts["special"])
             + family_flags(inputs, rng, counts["flags"])
             + family_semantic(inputs, rng, counts["semantic"])
             + family_io(inputs, rng, counts["io"], full, readonly)
             + family_other(inputs, rng, counts["other"]))
    rng.shuffle(cases)
    for i, c in enumerate(cases):
        c.real = real_every > 0 and i % real_every == 0
    return cases


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=3300)
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--cap-mb", type=int, default=CAP_MB)
    p.add_argument("--real-every", type=int, default=20,
                   help="every N-th case runs as a real python -m core.cli process")
    p.add_argument("--out", default=None)
    p.add_argument("--keep", action="store_true", help="keep the folders of passing cases")
    p.add_argument("--small-bombs", action="store_true",
                   help="no 3.2 GB deflate bomb (quicker to build: the test suite's slice)")
    p.add_argument("--table", nargs="+", metavar="SUMMARY", default=None,
                   help="print the markdown table of these summary.json files (chunks add "
                        "up) and exit")
    args = p.parse_args()
    if args.table:
        summaries = [json.loads(Path(f).read_text()) for f in args.table]
        print(markdown_table(summaries))
        print(f"\n{sum(s['cases'] for s in summaries)} cases, seeds "
              f"{', '.join(str(s.get('seed')) for s in summaries)}")
        return
    if args.small_bombs:
        del BOMB_SHAPES[0]
    os.environ.setdefault("PRIVPLAN_TIME_LIMIT_S", TIME_LIMIT_S)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ["PYTHONWARNINGS"] = "ignore"
    import warnings

    warnings.simplefilter("ignore")
    out_dir = args.out or tempfile.mkdtemp(prefix="privplan-campaign-")
    os.makedirs(out_dir, exist_ok=True)
    mounts = [m for m in (_mount("full", out_dir), _mount("readonly", out_dir)) if m]
    try:
        # import everything a run may need once: the forks start warm (the command line
        # imports each command's module, and the heavy libraries, only when it runs)
        import core.cli.main
        import core.modelprivacy.study  # noqa: F401
        import core.report.html  # noqa: F401
        import core.sharing.learning  # noqa: F401

        core.cli.main.build_parser()  # every command's module
        for name in ("scipy.stats", "scipy.optimize", "networkx", "sklearn.linear_model",
                     "dp_accounting", "core.logistics", "core.mdp.accounting",
                     "core.privacy.pld", "core.advising.framework", "core.audit.runner"):
            __import__(name)

        full = os.path.join(out_dir, "full") if os.path.join(out_dir, "full") in mounts \
            else None
        ro = os.path.join(out_dir, "readonly") if os.path.join(out_dir, "readonly") in mounts \
            else None
        cases = build_cases(args.cases, args.seed, full, ro, args.real_every)
        summary = run_campaign(cases, os.path.join(out_dir, "cases"), jobs=args.jobs,
                               cap_mb=args.cap_mb, keep=args.keep)
        summary.update(seed=args.seed, full_disk=full is not None, read_only=ro is not None,
                       time_limit_s=float(os.environ["PRIVPLAN_TIME_LIMIT_S"]))
        Path(out_dir, "summary.json").write_text(json.dumps(summary, indent=1))
        brief = {k: v for k, v in summary.items() if k != "failures"}
        print(json.dumps(brief))
    finally:
        for m in mounts:
            subprocess.run(["umount", m], capture_output=True)


if __name__ == "__main__":
    main()
