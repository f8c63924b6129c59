"""Loaders report progress and stop when the callback cancels; the bulk readers of DRN and
PRISM files read what the line-by-line readers read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.common.progress import Cancelled
from core.mdp.examples import sparse_random_mdp
from core.mdp.files import load_mdp, save_mdp
from core.mdp.interop import drn, import_model, prism, read_drn, read_prism, write_drn, write_prism


def _model():
    m = sparse_random_mdp(400, 3, 4, 5, seed=7)
    return m.replace(state_names=[f"room {i}" for i in range(400)])


@pytest.fixture
def files(tmp_path: Path) -> dict[str, list[str]]:
    m = _model()
    save_mdp(m, tmp_path / "m.mdp.npz")
    save_mdp(m, tmp_path / "m.mdp.json")
    write_drn(m, tmp_path / "d")
    written, _ = write_prism(m, tmp_path / "p")
    return {"npz": [str(tmp_path / "m.mdp.npz")], "json": [str(tmp_path / "m.mdp.json")],
            "drn": [str(tmp_path / "d.drn")], "prism": written}


def _loaders(paths: list[str]):
    return {
        "load_mdp": lambda progress: load_mdp(paths[0], progress=progress),
        "import_model": lambda progress: import_model(paths, horizon=3, progress=progress),
    }


@pytest.mark.parametrize("kind", ["npz", "json", "drn", "prism"])
def test_fractions_rise_to_one_and_a_cancel_stops_the_load(files, kind) -> None:
    name = "load_mdp" if kind in ("npz", "json") else "import_model"
    load = _loaders(files[kind])[name]
    seen: list[float] = []
    load(lambda f, message="": seen.append(f))
    assert seen and seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)
    assert all(b >= a for a, b in zip(seen, seen[1:])), seen
    assert len(seen) >= 3  # reading, checking or building, done

    calls: list[float] = []

    def cancel_midway(f: float, message: str = "") -> None:
        calls.append(f)
        if len(calls) == 2:
            raise Cancelled

    with pytest.raises(Cancelled):
        load(cancel_midway)
    assert len(calls) == 2


def test_the_readers_take_progress_by_keyword(files) -> None:
    seen: list[float] = []
    read_drn(files["drn"][0], progress=lambda f, m="": seen.append(f))
    read_prism(files["prism"], progress=lambda f, m="": seen.append(f))
    assert seen.count(1.0) == 2


def test_transitions_report_every_chunk(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(drn, "CHUNK", 256)
    monkeypatch.setattr(prism, "CHUNK", 256)
    m = _model()  # 400 x 3 x 4 = 4,800 transitions: about 19 chunks
    write_drn(m, tmp_path / "d")
    written, _ = write_prism(m, tmp_path / "p")
    for load in (lambda p: read_drn(tmp_path / "d.drn", progress=p),
                 lambda p: read_prism(written, progress=p)):
        seen: list[str] = []
        load(lambda f, message="": seen.append(message))
        assert seen.count("reading the transitions") >= 15


def _drn_both(path, monkeypatch):
    fast = drn.read_drn(path)
    with monkeypatch.context() as mp:
        orig = drn._read_body
        mp.setattr(drn, "_read_body", lambda *a, bulk: orig(*a, bulk=False))
        slow = drn.read_drn(path)
    return fast, slow


def _same(a, b) -> None:
    assert a.mdp == b.mdp and a.warnings == b.warnings
    assert a.mdp.action_names.vocabulary == b.mdp.action_names.vocabulary
    ann_a, ann_b = a.mdp.annotations, b.mdp.annotations
    assert {k: v.tolist() for k, v in ann_a.labels.items()} == {
        k: v.tolist() for k, v in ann_b.labels.items()}
    for name in ann_a.rewards:
        for part in ("state", "choice", "transition"):
            x, y = getattr(ann_a.rewards[name], part), getattr(ann_b.rewards[name], part)
            assert (x is None and y is None) or np.array_equal(x, y)


def test_bulk_drn_reads_names_labels_rewards_and_unlabelled_actions_as_line_by_line(
        tmp_path, monkeypatch) -> None:
    text = ("@type: MDP\n@parameters\n\n@reward_models\ncost time\n@nr_states\n3\n"
            "@nr_choices\n4\n@model\n"
            "state 0 [1.5] init \"has space\" goal\n//(x=0)\n"
            "\taction go [0, 2]\n\t\t1 : 0.25\n\t\t2 : 0.75\n"
            "\taction __NOLABEL__ [3, 0]\n\t\t0 : 1\n"
            "state 1\n//(x=1)\n\taction stay\n\t\t1 : 1\n"
            "state 2 [0, 4] goal\n//(x=2)\n\taction go [1, 1]\n\t\t0:1/3\n\t\t2:2/3\n")
    path = tmp_path / "rich.drn"
    path.write_text(text)
    fast, slow = _drn_both(path, monkeypatch)
    _same(fast, slow)
    assert list(fast.mdp.state_names) == ["(x=0)", "(x=1)", "(x=2)"]
    assert fast.mdp.annotations.labels["has space"].tolist() == [0]
    # a comment after an action names nothing; a missing name leaves the default names
    path.write_text(text.replace("//(x=1)\n\taction stay", "\taction stay\n//note"))
    fast, slow = _drn_both(path, monkeypatch)
    _same(fast, slow)
    assert list(fast.mdp.state_names) == ["s0", "s1", "s2"]


def test_bulk_prism_reads_what_line_by_line_reads(tmp_path, monkeypatch) -> None:
    tra = tmp_path / "m.tra"
    tra.write_text("3 4 6\n0 0 1 0.25 go\n0 0 2 0.75 go\n0 1 0 1\n1 0 1 1 stay\n"
                   "2 0 0 1/3\n2 0 2\t2/3 go\n")
    fast = read_prism([str(tra)])

    def irregular(*a, **k):
        raise prism._Irregular

    monkeypatch.setattr(prism, "_bulk_tra", irregular)
    slow = read_prism([str(tra)])
    _same(fast, slow)
    assert fast.mdp.action_names.name(2, 0) == "go"


def test_large_arrays_are_read_in_pieces_with_the_same_errors(tmp_path, monkeypatch) -> None:
    from core.common import resources
    from core.common.errors import InputError

    monkeypatch.setattr(resources, "_CHUNK_BYTES", 4096)
    m = sparse_random_mdp(2000, 3, 4, 5, seed=8)
    path = tmp_path / "m.mdp.npz"
    save_mdp(m, path)
    seen: list[str] = []
    got = load_mdp(path, progress=lambda f, message="": seen.append(message))
    assert got.transitions.equal(m.transitions) and np.array_equal(got.R, m.R)
    assert seen.count("reading P_data") > 10  # 24,000 entries x 8 bytes in 4 kB pieces
    with pytest.raises(Cancelled):  # a cancel inside an array's pieces stops the load
        load_mdp(path, progress=lambda f, message="": (_ for _ in ()).throw(Cancelled)
                 if f > 0.1 else None)
    # a damaged member: the same error with and without the pieces
    raw = bytearray(path.read_bytes())
    at = raw.index(b"P_data.npy") + 400  # inside the (stored, not deflated) array
    raw[at] ^= 0xFF
    bad = tmp_path / "bad.mdp.npz"
    bad.write_bytes(bytes(raw))
    with pytest.raises(InputError) as whole:
        load_mdp(bad)
    with pytest.raises(InputError) as pieces:
        load_mdp(bad, progress=lambda f, message="": None)
    assert str(whole.value) == str(pieces.value) and "P_data" in str(pieces.value)
    short = tmp_path / "short.mdp.npz"
    short.write_bytes(path.read_bytes()[:len(raw) // 2])
    with pytest.raises(InputError) as whole:
        load_mdp(short)
    with pytest.raises(InputError) as pieces:
        load_mdp(short, progress=lambda f, message="": None)
    assert str(whole.value) == str(pieces.value)


def test_text_is_read_in_pieces_with_the_same_lines_and_a_cancel_point(tmp_path, monkeypatch):
    """read_text_lines reads, decodes and splits a piece at a time (a progress call each):
    the lines equal splitlines() of the whole text whatever the piece size, with line
    breaks and multi-byte characters across the pieces' edges, and Cancel stops the read."""
    import pytest

    from core.common.progress import Cancelled
    from core.mdp.interop import common

    text = "é€a\r\nb\n\nc\rd\u2028e\r\n" * 7 + "last line without a break"
    path = tmp_path / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    for piece in (1, 2, 3, 5, 7, 64, 1 << 20):
        monkeypatch.setattr(common, "TEXT_PIECE", piece)
        seen: list[float] = []
        lines = common.read_text_lines(str(path), progress=lambda f, m="": seen.append(f))
        assert lines == text.splitlines(), piece
        assert seen == sorted(seen) and seen[-1] == 1.0
    monkeypatch.setattr(common, "TEXT_PIECE", 8)

    def stop(fraction, message=""):
        if fraction > 0.3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        common.read_text_lines(str(path), progress=stop)
    path.write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(common.InputError, match="UTF-8"):
        common.read_text_lines(str(path))
