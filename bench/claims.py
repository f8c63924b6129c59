"""docs/claims.md's claims tables, regenerated from the saved runs in bench/data/.

A *family* is one claims study (a ``bench/*_claims.py`` command and its Holm family). A
family's saved runs are ``bench/data/FAMILY_SEED.json`` or ``.json.gz``, one file per master
seed, each the ``--json`` output of its script (every replicate's values and seeds). For
every family with saved runs, the tables between ``<!-- claims:FAMILY begin -->`` and
``<!-- claims:FAMILY end -->`` in docs/claims.md are recomputed: values → the study
runner's statistics (core.study) → Markdown rows.

Usage::

    python bench/claims.py --check     # exit 1 and a diff when docs/claims.md differs
    python bench/claims.py --write     # rewrite the marked tables
    python bench/claims.py --list      # each family: saved master seeds, or how to re-run it
    python bench/claims.py --run drl12 --master-seed 8 [--n 8]   # re-run, save .json.gz

A family without saved runs is a warning line under ``--check``, not a failure, so the check
becomes stricter as runs are added.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import claims_lib  # noqa: E402

from core.study import StudyResult, evaluate_claims  # noqa: E402

Renderer = Callable[[list[StudyResult], list[dict[str, Any]]], str]


@dataclass(frozen=True)
class Family:
    """One claims study: how it is run and how its tables are drawn."""

    name: str
    script: str
    args: tuple[str, ...]
    master_seeds: tuple[int, int]
    minutes: str
    what: str
    render: Renderer | None = None
    json_flag: bool = True  # the script writes --json through claims_lib
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def command(self, master_seed: int, n: int | None, out: Path) -> list[str]:
        args = list(self.args)
        if n is not None:
            if "--n" in args:
                args[args.index("--n") + 1] = str(n)
            else:
                args += ["--n", str(n)]
        return [sys.executable, str(ROOT / self.script), *args, "--master-seed",
                str(master_seed), "--second-seed", "-1", "--json", str(out)]

    def shell(self) -> str:
        return " ".join(["python", self.script, *(f'"{a}"' if " " in a else a
                                                   for a in self.args)])


def _render_drl(results: list[StudyResult], saved: list[dict[str, Any]]) -> str:
    import drl_claims  # bench/drl_claims.py

    from core.gridworld.study import drl_claims as claims_of

    first = results[0]
    sizes = [str(p["size"]) for p in first.points]
    eps = sorted(float(a.split("=", 1)[1]) for a in first.arms if a.startswith("eps="))
    claims = claims_of(sizes, eps)
    runs = tuple(evaluate_claims(r, claims) for r in results)
    return drl_claims.readme_rows(first, runs, tuple(results))


def render_generic(results: list[StudyResult], saved: list[dict[str, Any]]) -> str:
    """The claims table of any claims_lib study: the claims its first saved run tested,
    re-tested on every saved run's values."""
    return _claims_table(results,
                         claims_lib.claims_from_saved(saved[0]["claims"]["runs"][0], results[0]))


def _claims_table(results: list[StudyResult], claims: list[Any]) -> str:
    """``claims`` tested on every saved run, as the claims table (one Holm family per run)."""
    runs = tuple(evaluate_claims(r, claims) for r in results)
    return claims_lib.claims_rows(runs, f"the {len(claims)} claims of this run")


def _render_sharing(results: list[StudyResult], saved: list[dict[str, Any]]) -> str:
    """Policy sharing: the claims the study defines today (core.sharing.study.sharing_claims,
    both after-budget protocols side by side), tested on the saved runs' values — runs saved
    before a claim was added are re-tested with it, since every arm's values are saved."""
    from core.sharing.study import ENVIRONMENTS, sharing_claims

    names = {gym_id: name for name, gym_id in ENVIRONMENTS.items()}
    return _claims_table(results, sharing_claims([names[p["env"]] for p in results[0].points]))


def _render_routes(results: list[StudyResult], saved: list[dict[str, Any]]) -> str:
    """Logistics routes and the air and rover domains: the claims the study defines today
    (core.logistics.route_claims), then DP relative to each approach as shares and points,
    and the delivery rates (bench/logistics_claims.py)."""
    import logistics_claims  # bench/logistics_claims.py

    from core.logistics.route_claims import route_claims

    class _Points:
        points = results[0].points

    out = [_claims_table(results, route_claims(_Points)), "",
           "The same comparisons as shares of the other approach (lengths on the tasks both "
           "delivered, per world, then the mean over worlds), messages likewise, success in "
           "points; positive: DP longer, DP sends more, DP delivers more:", "",
           logistics_claims.percent_table(results)]
    leg = logistics_claims.longest_leg(results)
    if leg > 0:
        out += ["", f"Longest flight leg of any delivered air plan: {leg:g} km (fuel range "
                "600 km)."]
    return "\n".join(out)


def _render_advising_36(results: list[StudyResult], saved: list[dict[str, Any]]) -> str:
    """Thesis §3.6: the claims table of the saved runs, then the claims that compare no two
    arms (not tested) as the same runs measure them."""
    import advising_claims  # bench/advising_claims.py

    part = "exp3" if any(p.get("experiment") == "exp3" for p in results[0].points) else "exp12"
    return (render_generic(results, saved) + "\n\n"
            + advising_claims.untested(part, results))


FAMILIES: tuple[Family, ...] = (
    Family("drl7", "bench/drl_claims.py",
           ("--sizes", "7x7", "--epsilons", "0.1,1,4,16", "--n", "120", "--workers", "1"),
           (2029, 8), "53", "DP-DRL on random 7×7 maps", _render_drl),
    Family("drl12", "bench/drl_claims.py",
           ("--sizes", "12x11", "--epsilons", "0.1,16", "--n", "8"),
           (2029, 8), "29", "DP-DRL on the 12×11 stand-in", _render_drl),
    Family("mia", "bench/mia_claims.py", ("--n", "10"), (2028, 7), "15–48",
           "model privacy lab (LiRA, numpy victims)", render_generic),
    Family("sharing", "bench/sharing_claims.py",
           ("--n", "30", "--envs", "FrozenLake 4x4,FrozenLake 8x8,CliffWalking,corridor"),
           (2028, 7), "16", "policy sharing: FrozenLake, CliffWalking at n = 30, corridor",
           _render_sharing),
    Family("sharing_cliff", "bench/sharing_claims.py",
           ("--n", "80", "--envs", "CliffWalking"), (2028, 7), "10",
           "policy sharing: CliffWalking at n = 80", _render_sharing),
    Family("sharing_taxi", "bench/sharing_claims.py", ("--n", "100", "--envs", "Taxi"),
           (2028, 7), "36", "policy sharing: Taxi at n = 100", _render_sharing),
    Family("comarl", "bench/comarl_claims.py", ("--n", "10"), (2028, 7), "14",
           "PE-Co-MARL", render_generic),
    Family("deep_attack", "bench/deep_attack_claims.py",
           ("--arms", "mlp,cnn,gru,lstm,mlp-dpsgd,gru-dpsgd,mlp-h8", "--canary-n", "0"),
           (2028, 7), "57", "networks on JAX against the attacks (needs the deep extra)",
           render_generic),
    Family("advising_layout_exp1", "bench/advising_layout_claims.py",
           ("--part", "exp1", "--n", "20", "--workers", "1"), (2029, 7), "24",
           "advising layouts: Experiment 1 on one-different, ε = 1 and 10", render_generic),
    Family("advising_layout_nested", "bench/advising_layout_claims.py",
           ("--part", "nested", "--n", "20", "--workers", "1"), (2029, 7), "6",
           "advising layouts: the nested layout (cases 2 and 3)", render_generic),
    Family("packet_fig411", "bench/packet_claims.py",
           ("--figure", "fig411", "--n", "12", "--workers", "1"), (2029, 7), "1–2",
           "packet routing: approaches vs dynamism (Fig 4.11)", render_generic),
    Family("packet_fig410", "bench/packet_claims.py",
           ("--figure", "fig410", "--n", "12", "--workers", "1"), (2029, 7), "11",
           "packet routing: DP-based vs ε beside logistics (Fig 4.10)", render_generic),
    Family("packet_fig49", "bench/packet_claims.py",
           ("--figure", "fig49", "--n", "10", "--workers", "1"), (2029, 7), "5–9",
           "packet routing: approaches vs network size beside logistics (Fig 4.9)",
           render_generic),
    Family("logistics_routes", "bench/logistics_claims.py",
           ("--study", "routes", "--n", "25", "--workers", "1"), (2020, 7), "7",
           "logistics routes: the approaches vs map size, DP-based vs ε", _render_routes),
    Family("domain_trends", "bench/logistics_claims.py",
           ("--study", "domains", "--n", "25", "--workers", "1"), (2020, 7), "13",
           "logistics trends on the air and rover worlds", _render_routes),
    Family("advising_36_exp12", "bench/advising_claims.py",
           ("--part", "exp12", "--n", "20", "--workers", "1"), (2029, 7), "13",
           "DP advising, thesis §3.6: Experiments 1 and 2", _render_advising_36),
    Family("advising_36_exp3", "bench/advising_claims.py",
           ("--part", "exp3", "--n", "20", "--workers", "1"), (2029, 7), "13",
           "DP advising, thesis §3.6: Experiment 3 (ε sweep)", _render_advising_36),
)

SAVED = re.compile(r"^(?P<family>[a-z0-9_]+?)_(?P<seed>\d+)\.json(?:\.gz)?$")


def family(name: str) -> Family:
    for f in FAMILIES:
        if f.name == name:
            return f
    raise SystemExit(f"unknown family {name!r}; known: {', '.join(f.name for f in FAMILIES)}")


def saved_files(fam: Family, data: Path) -> dict[int, Path]:
    """The family's saved runs by master seed (one file per master seed)."""
    out: dict[int, Path] = {}
    for p in sorted(data.glob(f"{fam.name}_*.json*")):
        m = SAVED.match(p.name)
        if not m or m.group("family") != fam.name:
            continue
        seed = int(m.group("seed"))
        if seed in out:
            raise SystemExit(f"{fam.name}: two saved runs for master seed {seed}: "
                             f"{out[seed].name} and {p.name}")
        out[seed] = p
    return out


def read_saved(path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    data: dict[str, Any] = json.loads(raw)
    return data


def load(fam: Family, files: dict[int, Path]) -> tuple[list[StudyResult], list[dict[str, Any]]]:
    """The saved results, the family's main master seed first."""
    order = sorted(files, key=lambda s: (s != fam.master_seeds[0], s != fam.master_seeds[1], s))
    results, saved = [], []
    for seed in order:
        data = read_saved(files[seed])
        res = StudyResult.from_json(data["study"])
        if res.master_seed != seed:
            raise SystemExit(f"{files[seed]}: its study ran under master seed "
                             f"{res.master_seed}, its name says {seed}")
        results.append(res)
        saved.append(data)
    return results, saved


def markers(name: str) -> tuple[str, str]:
    return f"<!-- claims:{name} begin -->", f"<!-- claims:{name} end -->"


def block_span(text: str, name: str) -> tuple[int, int] | None:
    """Character span of the text between the family's markers (None: no markers)."""
    begin, end = markers(name)
    i, j = text.find(begin), text.find(end)
    if i < 0 and j < 0:
        return None
    if i < 0 or j < i or text.count(begin) != 1 or text.count(end) != 1:
        raise SystemExit(f"docs/claims.md: the markers of {name} must appear once each, "
                         "begin before end")
    return i + len(begin), j


def expected_block(fam: Family, data: Path) -> str | None:
    files = saved_files(fam, data)
    if not files or fam.render is None:
        return None
    results, saved = load(fam, files)
    return "\n\n" + fam.render(results, saved).strip() + "\n\n"


def check(docs: Path, data: Path, *, write: bool = False) -> int:
    """Compare (or rewrite) every marked table; 0 when all agree."""
    text = docs.read_text(encoding="utf-8")
    new_text = text
    failures = 0
    for fam in FAMILIES:
        span = block_span(new_text, fam.name)
        want = expected_block(fam, data)
        if want is None:
            if span is not None:
                print(f"FAIL {fam.name}: docs/claims.md marks a generated table but "
                      f"bench/data has no saved run of it")
                failures += 1
            else:
                print(f"warning: {fam.name}: no saved runs — its tables are not checked "
                      f"({_how(fam)})")
            continue
        if span is None:
            print(f"FAIL {fam.name}: saved runs exist but docs/claims.md has no "
                  f"'{markers(fam.name)[0]}' … '{markers(fam.name)[1]}' block")
            failures += 1
            continue
        have = new_text[span[0]:span[1]]
        if have == want:
            print(f"ok {fam.name}: the table matches its saved runs")
            continue
        if write:
            new_text = new_text[:span[0]] + want + new_text[span[1]:]
            print(f"rewrote {fam.name}")
            continue
        failures += 1
        print(f"FAIL {fam.name}: docs/claims.md differs from what the saved runs give:")
        runs = ", ".join(sorted(p.name for p in saved_files(fam, data).values()))
        sys.stdout.writelines(difflib.unified_diff(
            have.splitlines(keepends=True), want.splitlines(keepends=True),
            f"docs/claims.md ({fam.name})", f"from {runs}"))
    if write and new_text != text:
        docs.write_text(new_text, encoding="utf-8")
    if failures:
        print(f"{failures} famil{'y' if failures == 1 else 'ies'} differ: "
              "python bench/claims.py --write rewrites the marked tables")
    return 1 if failures else 0


def _how(fam: Family) -> str:
    if not fam.json_flag:
        took = ("run time not recorded" if fam.minutes == "unknown"
                else f"≈ {fam.minutes} min")
        return f"{fam.note}; today: {fam.shell()}, {took}"
    seeds = " and ".join(str(s) for s in fam.master_seeds)
    return (f"re-run with python bench/claims.py --run {fam.name} --master-seed S for S in "
            f"{seeds}, ≈ {fam.minutes} min per master seed on the shared 2 cores")


def list_families(data: Path) -> int:
    for fam in FAMILIES:
        files = saved_files(fam, data)
        if not files:
            print(f"{fam.name} ({fam.what}): no saved runs — {_how(fam)}")
            continue
        parts = []
        for seed, p in sorted(files.items(), key=lambda kv: (kv[0] not in fam.master_seeds,
                                                             kv[0] != fam.master_seeds[0])):
            prov = read_saved(p).get("provenance")
            ver = (f"privplan {prov['privplan']}, numpy {prov['numpy']}, scipy {prov['scipy']}"
                   if prov else "no version record")
            parts.append(f"{seed} ({p.name}; {ver})")
        print(f"{fam.name} ({fam.what}): saved runs under master seeds " + ", ".join(parts))
    return 0


def provenance(cmd: Sequence[str], seconds: float) -> dict[str, Any]:
    import numpy
    import scipy

    from core import __version__
    return {"privplan": __version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "python": platform.python_version(), "command": list(cmd[1:]),
            "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "wall_s": round(seconds, 1)}


def run(fam: Family, master_seed: int, n: int | None, data: Path) -> int:
    """Run the family's script under one master seed and save its JSON, gzipped, with the
    package and numpy/scipy versions."""
    if not fam.json_flag:
        print(f"{fam.name}: {fam.note}; run {fam.shell()} by hand", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        cmd = fam.command(master_seed, n, out)
        print("running: " + " ".join(cmd[1:]), file=sys.stderr)
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, cwd=ROOT)
        if rc != 0:
            print(f"{fam.name}: the script exited {rc}; nothing saved", file=sys.stderr)
            return 3
        payload = json.loads(out.read_text())
    payload["provenance"] = provenance(cmd, time.perf_counter() - t0)
    data.mkdir(parents=True, exist_ok=True)
    target = data / f"{fam.name}_{master_seed}.json.gz"
    plain = data / f"{fam.name}_{master_seed}.json"
    target.write_bytes(gzip.compress(json.dumps(payload, indent=None).encode(), mtime=0))
    if plain.exists():
        plain.unlink()
        print(f"replaced {plain.name}", file=sys.stderr)
    print(f"saved {target}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail on any difference")
    mode.add_argument("--write", action="store_true", help="rewrite the marked tables")
    mode.add_argument("--list", action="store_true", help="the families and their runs")
    mode.add_argument("--run", metavar="FAMILY", help="re-run one family, save its JSON")
    ap.add_argument("--master-seed", type=int, default=None)
    ap.add_argument("--n", type=int, default=None, help="replicates (default: the family's)")
    ap.add_argument("--docs", type=Path, default=ROOT / "docs" / "claims.md")
    ap.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    args = ap.parse_args(argv)
    if args.list:
        return list_families(args.data)
    if args.run:
        fam = family(args.run)
        seed = fam.master_seeds[0] if args.master_seed is None else args.master_seed
        return run(fam, seed, args.n, args.data)
    return check(args.docs, args.data, write=args.write)


if __name__ == "__main__":
    sys.exit(main())
