"""A seeded mutator over PrivPlan's example files, and a driver that runs each mutant through
its loader and its command-line subcommand.

Every format the command line reads is covered: MDP JSON and NPZ (``bounds``), logistics
maps (``plan``), projects (``report`` to HTML, and projects whose model keeps its arrays in a
sidecar), advising set-ups (``advise --setup``), grid worlds (``drl``) and CSV data sets
(``mia``). A mutant is the example with one to three hostile changes (a value replaced by a
wrong type, a non-finite or huge number, a deep structure; a key deleted; a list item
duplicated) or a text-level change (truncation, binary garbage, deep nesting,
``NaN``/``1e309`` tokens). The hostile families are mixed in: type swaps, extreme IEEE
values (subnormals, -0.0, the largest double, 2**63), hostile unicode (newlines, bidi
overrides, NUL, lone surrogates, very long names), and for NPZ files forged headers, bit
flips, truncations and deflate bombs (a few KB that decompress to gigabytes).

The contract checked (docs/formats-and-cli.md §5): exit 0 with one strict JSON object (no NaN or
Infinity), or exit 2 with exactly one line on stderr — never exit 1 ("internal error"),
never more than ``TIMEOUT_S`` per case.

Run as a script (the test does, in a child process with a memory cap)::

    python tests/core/fuzz/mutants.py --cases 400 --seed 1 --out DIR

It prints one JSON line per case that broke the contract, and a last line with totals.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import random
import resource
import signal
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "assets" / "examples"
#: Per case: CPU seconds (a computation that never ends), and a wall-clock backstop for a
#: blocking read (a FIFO). CPU time, not wall time, so a loaded machine does not fail a case
#: that answers in a fraction of a second of its own time.
TIMEOUT_S = 20
WALL_TIMEOUT_S = 180
BIG = "__PRIVPLAN_FUZZ_1E309__"
DEEP = "__PRIVPLAN_FUZZ_DEEP__"

#: Extreme IEEE doubles and integers: subnormals, -0.0, the largest double, the
#: smallest normal, integers past 2**53 and 2**63.
IEEE: list[Any] = [5e-324, -5e-324, -0.0, 1.7976931348623157e308, -1.7976931348623157e308,
                   2.2250738585072014e-308, 1e-320, 2**53 + 1, 2**63, 2**64, -(2**63) - 1,
                   10**400, 4.9e-324, 1 - 2**-53, 1 + 2**-52]
#: Hostile unicode: line breaks, bidi overrides, NUL, a lone surrogate, combining marks,
#: path-like and very long names.
UNICODE: list[str] = ["a\nb", "line\r\nbreak", "\u202eevil", "nul\u0000x", "\ud800",
                      "\u2028sep", "e\u0301\u0301\u0301", "../../etc/passwd", "CON", "a\tb",
                      "\U0001f600" * 50, "x" * 100_000, " ", "\ufeffbom"]
HOSTILE: list[Any] = [
    None, True, False, 0, -1, 1, 2.5, -2.5, 1e308, -1e308, 1e-300, 10**12, -(10**12),
    float("nan"), float("inf"), -float("inf"), BIG, DEEP, "", "xy", "NaN", "1e309", [], [1],
    [None, None], [0.5, "x"], {}, {"a": 1}, "a" * 5000, [[[]]], [1e308, 1e308],
    *IEEE, *UNICODE,
]


# ---------------------------------------------------------------------------- JSON mutations
def _paths(tree: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += _paths(v, prefix + (i,))
    return out


def _get(tree: Any, path: tuple) -> Any:
    for p in path:
        tree = tree[p]
    return tree


def _set(tree: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _get(tree, path[:-1])[path[-1]] = value
    return tree


def mutate_tree(tree: Any, rng: random.Random) -> Any:
    """One to three structural changes of a parsed JSON document."""
    tree = copy.deepcopy(tree)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(tree)
        path = rng.choice(paths[1:] if len(paths) > 1 else paths)
        parent = _get(tree, path[:-1]) if path else None
        r = rng.random()
        node = _get(tree, path)
        if r < 0.3:
            tree = _set(tree, path, copy.deepcopy(rng.choice(HOSTILE)))
        elif r < 0.55:
            tree = _set(tree, path, type_swap(node, rng))
        elif r < 0.7 and isinstance(parent, dict):
            del parent[path[-1]]
        elif r < 0.85 and isinstance(parent, list):
            parent.insert(rng.randrange(len(parent) + 1), copy.deepcopy(node))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            tree = _set(tree, path, rng.choice([str(node), bool(node), [node], -node,
                                                node * 1e300]))
        elif isinstance(node, str):
            tree = _set(tree, path, rng.choice([[node], {"id": node}, node + node, 7]))
        else:
            tree = _set(tree, path, copy.deepcopy(rng.choice(HOSTILE)))
    return tree


def type_swap(node: Any, rng: random.Random) -> Any:
    """``node`` as a value of another JSON type: a number as a string or a list, a string as
    a number, an object as a list of its values, an extreme double or hostile unicode."""
    if isinstance(node, bool):
        return rng.choice([int(node), str(node).lower(), [node], None])
    if isinstance(node, (int, float)):
        return rng.choice([str(node), [node], {"value": node}, rng.choice(IEEE), None,
                           bool(node)])
    if isinstance(node, str):
        return rng.choice([rng.choice(UNICODE), 1.5, [node], {"id": node}, None,
                           node + rng.choice(UNICODE)])
    if isinstance(node, list):
        return rng.choice([{str(i): v for i, v in enumerate(node)}, len(node), "list",
                           node * 2, [node], None])
    if isinstance(node, dict):
        return rng.choice([list(node.values()), list(node), "object", 0, None, [node]])
    return rng.choice(HOSTILE)


def nudge_numbers(tree: Any, rng: random.Random) -> Any:
    """One to three numbers scaled to an edge: 0, negative, tiny, huge or rounded.

    These mutants stay close to valid files, so more of them reach the computation.
    """
    tree = copy.deepcopy(tree)
    nums = [p for p in _paths(tree) if p and isinstance(_get(tree, p), (int, float))
            and not isinstance(_get(tree, p), bool)]
    for path in rng.sample(nums, min(len(nums), rng.randint(1, 3))):
        x = _get(tree, path)
        factor = rng.choice([0, -1, 1e-12, 1e-300, 0.5, 2, 1e6, 1e150, 1e300, 5e-324, -0.0,
                             1 + 2**-52, 1e16])
        y = x * factor if x else factor
        tree = _set(tree, path, int(y) if isinstance(x, int) and abs(y) < 1e18 else y)
    return tree


def dumps_mutant(tree: Any) -> str:
    text = json.dumps(tree, allow_nan=True)  # ensure_ascii: a lone surrogate stays \\udXXX
    text = text.replace(f'"{BIG}"', "1e309")
    return text.replace(f'"{DEEP}"', "[" * 50_000 + "]" * 50_000)


def mutate_text(text: str, rng: random.Random) -> bytes:
    """A text-level mutant: truncated, garbage, deep, or with a bad token spliced in."""
    r = rng.random()
    if r < 0.25:
        return text[: rng.randrange(len(text))].encode("utf-8", "surrogatepass")
    if r < 0.4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
    if r < 0.5:
        return b"\x89PNG\r\n\x1a\n" + bytes(64)
    if r < 0.6:
        return ("[" * 200_000 + "]" * 200_000).encode()
    if r < 0.7:
        return b""
    i = rng.randrange(len(text))
    return (text[:i] + rng.choice(["NaN", "Infinity", "1e309", "-1e309", "{", "]", "\u0000",
                                   '"\\ud800"']) + text[i:]).encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------- NPZ mutations
def _npz_bytes(arrays: dict[str, Any]) -> bytes:
    import numpy as np

    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _npz_compressed(arrays: dict[str, Any]) -> bytes:
    import numpy as np

    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def _bomb(shape: tuple[int, ...]) -> bytes:
    """An NPZ whose ``P`` declares ``shape`` (float64) but holds a few bytes of data."""
    import numpy as np

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            header, {"descr": "<f8", "fortran_order": False, "shape": shape})
        zf.writestr("P.npy", header.getvalue() + bytes(4096))
        for key, val in (("R", np.zeros((2, 2))), ("horizon", np.array(3)),
                         ("discount", np.array(1.0)), ("initial_state", np.array(0))):
            h = io.BytesIO()
            np.save(h, val)
            zf.writestr(f"{key}.npy", h.getvalue())
    return buf.getvalue()


_DEFLATE_BOMBS: dict[tuple[int, ...], bytes] = {}


def deflate_bomb(shape: tuple[int, ...]) -> bytes:
    """A *valid* NPZ whose ``P`` is ``shape`` float64 zeros, deflated: a few MB on disk that
    decompress to ``8 * prod(shape)`` bytes (built by streaming, cached per shape)."""
    import numpy as np

    if shape not in _DEFLATE_BOMBS:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            with zf.open("P.npy", "w", force_zip64=True) as fh:
                header = io.BytesIO()
                np.lib.format.write_array_header_1_0(
                    header, {"descr": "<f8", "fortran_order": False, "shape": shape})
                fh.write(header.getvalue())
                block = bytes(1 << 24)
                left = 8 * int(np.prod(shape))
                while left > 0:
                    fh.write(block[: min(left, len(block))])
                    left -= len(block)
            S, A = shape[0], shape[1] if len(shape) > 1 else 1
            for key, val in (("R", np.zeros((S, A))), ("horizon", np.array(3)),
                             ("discount", np.array(1.0)), ("initial_state", np.array(0))):
                h = io.BytesIO()
                np.save(h, val)
                zf.writestr(f"{key}.npy", h.getvalue())
        _DEFLATE_BOMBS[shape] = buf.getvalue()
    return _DEFLATE_BOMBS[shape]


def forged_sizes(data: bytes, rng: random.Random) -> bytes:
    """The archive with the uncompressed size of one member forged in its directory entry
    (the header's shape and the data stay as they were)."""
    out = bytearray(data)
    i = out.rfind(b"PK\x01\x02")  # the last central-directory entry
    if i < 0:
        return bytes(out)
    value = rng.choice([0, 1, 2**31 - 1, 2**32 - 1, 123])
    out[i + 24:i + 28] = value.to_bytes(4, "little")
    return bytes(out)


def bit_flip(data: bytes, rng: random.Random, flips: int = 1) -> bytes:
    """``data`` with ``flips`` random bits flipped (a damaged download or disk)."""
    out = bytearray(data)
    for _ in range(flips):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def _mutate_entry(a: dict[str, Any], key: str, choice: int, rng: random.Random) -> None:
    """One change of the array ``a[key]`` (``choice`` in 0..11 picks which): removed, made a
    scalar, text, the wrong shape or dtype, a NaN or infinite entry, empty, or complex."""
    import numpy as np

    if choice == 0:
        del a[key]
    elif choice == 1:
        a[key] = np.array(float("nan"))
    elif choice == 2:
        a[key] = np.array("x")
    elif choice == 3:
        a[key] = np.arange(3)
    elif choice == 4:
        a[key] = np.array(2.5)
    elif choice == 5:
        a[key] = np.array(rng.choice([10**9, 10**12, -5, 2**62]))
    elif choice == 6:
        a[key] = np.asarray(a[key]).reshape(-1)
    elif choice == 7 and a[key].size and a[key].dtype.kind in "fiub":
        b = np.array(a[key], dtype=np.float64)
        b.flat[rng.randrange(b.size)] = rng.choice([float("nan"), float("inf"), -1.0,
                                                    1e308])
        a[key] = b
    elif choice == 8:
        a[key] = np.zeros((0,) * max(1, np.ndim(a[key])))
    elif choice == 9:
        a[key] = np.asarray(a[key]).astype(bool)
    elif choice == 10:
        a[key] = np.array([[1, 2], [3, 4]], dtype=np.complex128)
    else:
        a[key] = np.array(["a", "b"])


def mutate_npz(arrays: dict[str, Any], rng: random.Random) -> bytes:
    r = rng.random()
    if r < 0.08:
        return _bomb(rng.choice([(8000, 4, 8000), (100_000, 10, 100_000), (3, 2**40, 3)]))
    if r < 0.11:
        return deflate_bomb(rng.choice([(4000, 2, 4000), (12000, 1, 12000)]))
    if r < 0.2:
        return bit_flip(_npz_compressed(arrays), rng, rng.choice([1, 1, 2, 8]))
    if r < 0.24:
        return forged_sizes(_npz_compressed(arrays), rng)
    if r < 0.28:
        whole = _npz_compressed(arrays)
        return whole[: rng.randrange(len(whole))]
    if r < 0.32:
        return mutate_text("PK\x03\x04" + "x" * 200, rng)
    a = {k: v.copy() for k, v in arrays.items()}
    for _ in range(rng.randint(1, 2)):
        if not a:
            break
        key = rng.choice(sorted(a))
        _mutate_entry(a, key, rng.randrange(12), rng)
    return _npz_bytes(a)


# ---------------------------------------------------------------------------- the driver
def grid_rows() -> list[str]:
    """The 12 x 11 example grid world as text rows (the ``*.grid.json`` base)."""
    from core.gridworld.maps import example_12x11

    g = example_12x11()
    rows = []
    for r in range(g.cells.shape[0]):
        rows.append("".join("S" if (r, c) == g.start else "G" if (r, c) == g.goal else
                            "." if g.cells[r, c] else "#" for c in range(g.cells.shape[1])))
    return rows


def csv_rows(n: int = 200) -> list[list[str]]:
    """A small numeric data set (three features, two classes) as CSV cells."""
    rng = random.Random(7)
    rows = [["f1", "f2", "f3", "label"]]
    for i in range(n):
        y = i % 2
        rows.append([f"{rng.gauss(y, 1):.6g}", f"{rng.gauss(-y, 1):.6g}",
                     f"{rng.uniform(0, 1):.6g}", "yes" if y else "no"])
    return rows


def dumps_csv(rows: list[list[Any]]) -> bytes:
    import csv

    buf = io.StringIO()
    csv.writer(buf).writerows([[str(c) for c in r] for r in rows])
    return buf.getvalue().encode("utf-8", "surrogatepass")


def mutate_csv(rows: list[list[str]], rng: random.Random) -> bytes:
    """One to three cells replaced by extreme numbers, non-numbers or hostile text, a row
    cut or lengthened, or the whole text mutated."""
    if rng.random() < 0.15:
        return mutate_text(dumps_csv(rows).decode(), rng)
    rows = [list(r) for r in rows]
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(rows))
        r = rng.random()
        if r < 0.6 and rows[i]:
            j = rng.randrange(len(rows[i]))
            rows[i][j] = rng.choice(["1e308", "-1e308", "1e309", "nan", "inf", "-inf", "5e-324",
                                     "", "x", "0x10", "1_000", "١٢٣", *UNICODE[:6],
                                     repr(rng.choice(IEEE))])
        elif r < 0.8:
            rows[i] = rows[i][:-1]
        else:
            rows[i] = rows[i] + ["1"]
    return dumps_csv(rows)


SIDECAR_NAME = "mutant.ex.npz"  # a name without a digest: the mutated arrays are read


def sidecar_project() -> bytes:
    """A project whose model ``ex`` keeps its arrays in :data:`SIDECAR_NAME`."""
    from core.mdp.editable import MdpModel
    from core.mdp.examples import example2

    m = MdpModel.from_mdp(example2())
    d = {"id": "ex", **m.to_dict(transitions=False), "arrays": SIDECAR_NAME}
    doc = {"format": "privplan-project", "schema_version": 2, "saved_by": "fuzz",
           "project": {"name": "sidecar", "notes": "", "mdps": [d], "maps": [],
                       "advising": [], "ledger": [], "runs": []}}
    return json.dumps(doc).encode()


def _examples() -> dict[str, Any]:
    import numpy as np

    from core.advising.presets import preset

    with np.load(EXAMPLES / "example2.mdp.npz", allow_pickle=False) as z:
        npz = {k: z[k] for k in z.files}
    small_project = json.loads((EXAMPLES / "builtin.privplan.json").read_text())
    return {
        "mdp.json": json.loads((EXAMPLES / "four_startups.mdp.json").read_text()),
        "mdp.npz": npz,
        "map.json": json.loads((EXAMPLES / "fig41.map.json").read_text()),
        "privplan.json": small_project,
        "advising.json": preset("exp2", epochs=3).to_dict(),
        "grid.json": {"format": "privplan-grid", "version": 1, "name": "12x11",
                      "rows": grid_rows()},
        "csv": csv_rows(),
        "sidecar.npz": {"P": npz["P"]},
    }


def _argv(kind: str, path: str, out_dir: str) -> list[str]:
    if kind in ("mdp.json", "mdp.npz"):
        return ["bounds", path, "--k", "100", "--beta", "0.1", "--json"]
    if kind == "map.json":
        return ["plan", path, "--origin", "a1", "--goal-agent", "f", "--epsilon", "1",
                "--seed", "1", "--json"]
    if kind == "privplan.json":
        return ["report", path, "-o", os.path.join(out_dir, "r.html"), "--json"]
    if kind == "grid.json":
        return ["drl", path, "--episodes", "20", "--max-steps", "40", "--seed", "1", "--json"]
    if kind == "csv":
        return ["mia", "--data", path, "--epochs", "2", "--shadows", "1", "--seed", "1",
                "--json"]
    if kind == "sidecar.npz":
        return ["report", os.path.join(out_dir, "sidecar.privplan.json"), "-o",
                os.path.join(out_dir, "r.html"), "--json"]
    return ["advise", "--setup", path, "--epochs", "3", "--seed", "1", "--json", "--summary"]


class _Timeout(BaseException):
    """Raised by the alarms; a BaseException so run_cli's internal-error handler lets it out."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def _strict_json(text: str) -> Any:
    def bad(token: str) -> Any:
        raise ValueError(f"non-finite token {token}")

    return json.loads(text, parse_constant=bad)


def run_case(kind: str, data: bytes, out_dir: str, tally: dict[str, int] | None = None
             ) -> dict[str, Any] | None:
    """Run one mutant; None if the contract held, else what broke it.

    ``tally`` counts the outcomes per ``"<kind> exit <code>"``.
    """
    from core.cli.main import run_cli

    suffix = "." + kind
    path = os.path.join(out_dir, "mutant" + suffix)
    if kind == "sidecar.npz":  # the arrays of a project's model (the project names them)
        path = os.path.join(out_dir, SIDECAR_NAME)
        with open(os.path.join(out_dir, "sidecar.privplan.json"), "wb") as fh:
            fh.write(sidecar_project())
    with open(path, "wb") as fh:
        fh.write(data)
    out, err = io.StringIO(), io.StringIO()
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    signal.alarm(WALL_TIMEOUT_S)
    signal.setitimer(signal.ITIMER_PROF, TIMEOUT_S)
    try:
        code = run_cli(_argv(kind, path, out_dir), out=out, err=err)
    except _Timeout:
        return {"kind": kind, "problem": f"no answer in {TIMEOUT_S} CPU s or {WALL_TIMEOUT_S} s"}
    except BaseException as exc:  # noqa: BLE001 - anything escaping run_cli is a failure
        return {"kind": kind, "problem": f"escaped run_cli: {type(exc).__name__}: {exc}"[:300]}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
    o, e = out.getvalue(), err.getvalue()
    if tally is not None:
        tally[f"{kind} exit {code}"] = tally.get(f"{kind} exit {code}", 0) + 1
    if code == 0:
        try:
            _strict_json(o)
        except ValueError as exc:
            return {"kind": kind, "problem": f"exit 0 without strict JSON: {exc}"[:300]}
        if "not a number (undefined)" in o:
            return {"kind": kind, "problem": "exit 0 with a NaN result: " + o[:200]}
        return None
    if code == 2:
        if e.count("\n") != 1 or not e.endswith("\n"):
            return {"kind": kind, "problem": f"exit 2 with {e.count(chr(10))} lines: {e[:300]}"}
        return None
    return {"kind": kind, "problem": f"exit {code}: {e.strip()[:300]}"}


def _mutant(kind: str, base: Any, rng: random.Random) -> bytes:
    if kind in ("mdp.npz", "sidecar.npz"):
        return mutate_npz(base, rng)
    if kind == "csv":
        return mutate_csv(base, rng)
    r = rng.random()
    if r < 0.15:
        return mutate_text(json.dumps(base), rng)
    if r < 0.45:
        return dumps_mutant(nudge_numbers(base, rng)).encode("utf-8", "surrogatepass")
    return dumps_mutant(mutate_tree(base, rng)).encode("utf-8", "surrogatepass")


def fuzz(cases: int, seed: int, out_dir: str
         ) -> tuple[int, list[dict[str, Any]], dict[str, int]]:
    """Run ``cases`` mutants (formats in turn) from ``seed``.

    Returns (cases run, failures, outcome counts per kind and exit code).
    """
    rng = random.Random(seed)
    bases = _examples()
    kinds = sorted(bases)
    failures = []
    tally: dict[str, int] = {}
    for i in range(cases):
        kind = kinds[i % len(kinds)]
        if kind == "csv" and (i // len(kinds)) % 4:  # a CSV case trains models: 1 in 4
            kind = "mdp.json"
        data = _mutant(kind, bases[kind], rng)
        res = run_case(kind, data, out_dir, tally)
        if res is not None:
            res["case"] = i
            failures.append(res)
    return cases, failures, tally


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cases", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    p.add_argument("--memory-mb", type=int, default=0,
                   help="address-space cap (a decompression bomb fails instead of swapping)")
    args = p.parse_args()
    if args.memory_mb:
        limit = args.memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    n, failures, tally = fuzz(args.cases, args.seed, args.out)
    for f in failures:
        print(json.dumps(f))
    print(json.dumps({"cases": n, "failures": len(failures), "outcomes": tally}))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
