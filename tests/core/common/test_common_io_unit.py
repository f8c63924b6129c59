"""core.common's small building blocks: errors, strict JSON (jsonable and jsonfile), atomic
writes, progress callbacks, quantity ranges, read-only results and timestamps.

Every test checks a promise a docstring makes (a field named in an error, a position in a
message, a file left untouched), an edge case (empty, NaN, ±inf, huge numbers, unicode), or
a round trip against an independent computation (the json module, a hand-made clip).
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import math
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common import atomic
from core.common.atomic import atomic_write_bytes, atomic_write_text, clean_stale_temporaries
from core.common.errors import InputError, RunFailure, WriteFailure, plain_values
from core.common.jsonable import (
    UNBOUNDED,
    UNDEFINED,
    dumps,
    finite_or_none,
    jsonable,
    jsonable_dict,
)
from core.common.jsonfile import MAX_DEPTH, describe_bytes, json_problem, loads_strict, read_json
from core.common.progress import Cancelled, no_progress, sub_progress, time_left_text
from core.common.quantities import (
    AT_LEAST_ONE,
    NON_NEGATIVE,
    PROBABILITY,
    REAL,
    QuantityRange,
    band_around,
    clip_band,
)
from core.common.results import Status, readonly
from core.common.timestamps import now_iso

# ---------------------------------------------------------------- errors


def test_input_error_prefixes_file_then_field() -> None:
    err = InputError("must be > 0", field="k", file="m.json")
    assert str(err) == "m.json: k: must be > 0"
    assert (err.field, err.file, err.problem) == ("k", "m.json", "must be > 0")
    assert err.partial is None


def test_input_error_without_field_or_file_is_the_bare_message() -> None:
    assert str(InputError("bad")) == "bad"
    assert str(InputError("bad", file="f")) == "f: bad"


def test_input_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        raise InputError("x", field="y")


def test_with_file_keeps_class_field_and_problem() -> None:
    class Special(InputError):
        pass

    err = Special("too big", field="n").with_file("a.json")
    assert type(err) is Special
    assert (err.field, err.file, err.problem) == ("n", "a.json", "too big")
    assert str(err) == "a.json: n: too big"


def test_input_error_message_shows_numpy_scalars_plainly() -> None:
    err = InputError(f"value {np.float64(-0.5)!r} at row {np.int64(3)!r}", field="P")
    assert "np." not in str(err)
    assert err.problem == "value -0.5 at row 3"


@pytest.mark.parametrize("text, plain", [
    ("np.float64(1.5)", "1.5"),
    ("np.int32(-7) and np.uint8(255)", "-7 and 255"),
    ("np.str_('a')", "'a'"),
    ("np.bool_(True)", "True"),
    ("no numpy here (np.float64)", "no numpy here (np.float64)"),
    ("mynp.float64(2)", "mynp.float64(2)"),  # not a word boundary: left alone
])
def test_plain_values(text: str, plain: str) -> None:
    assert plain_values(text) == plain


def test_run_failure_and_write_failure_are_one_line() -> None:
    rf = RunFailure("worker died", missing=3)
    assert str(rf) == "worker died" and rf.missing == 3 and rf.partial is None
    wf = WriteFailure(errno.ENOSPC, "cannot write 'x': disk full")
    assert isinstance(wf, OSError) and wf.errno == errno.ENOSPC
    assert str(wf) == "cannot write 'x': disk full"


# ---------------------------------------------------------------- jsonable


def test_finite_or_none() -> None:
    assert finite_or_none(np.float32(2.5)) == 2.5
    assert finite_or_none(3) == 3.0
    for bad in (math.inf, -math.inf, math.nan, np.float64("nan")):
        assert finite_or_none(bad) is None


def test_jsonable_scalars_and_arrays_become_python() -> None:
    out = jsonable({"a": np.arange(3), "b": np.float32(0.5), "c": (1, 2), "d": np.int64(7)})
    assert out == {"a": [0, 1, 2], "b": 0.5, "c": [1, 2], "d": 7}
    assert type(out["d"]) is int and type(out["b"]) is float


def test_jsonable_reasons_distinguish_nan_from_inf() -> None:
    out = jsonable({"e": -math.inf, "n": math.nan})
    assert out["e"] is None and out["n"] is None
    assert out["e_reason"] == UNBOUNDED and out["n_reason"] == UNDEFINED


def test_jsonable_array_with_nan_gets_aligned_reasons() -> None:
    out = jsonable({"v": np.array([1.0, np.inf, 2.0, np.nan])})
    assert out["v"] == [1.0, None, 2.0, None]
    assert out["v_reason"] == [None, UNBOUNDED, None, UNDEFINED]


def test_jsonable_producer_reason_wins_but_a_null_reason_is_filled() -> None:
    own = jsonable({"eps": math.inf, "eps_reason": "raw values released"})
    assert own["eps_reason"] == "raw values released"
    filled = jsonable({"eps": math.inf, "eps_reason": None})
    assert filled["eps_reason"] == UNBOUNDED


def test_jsonable_does_not_touch_its_input() -> None:
    src = {"x": [1.0, math.nan], "y": {"z": math.inf}}
    jsonable(src)
    assert math.isnan(src["x"][1]) and src["y"]["z"] == math.inf


def test_jsonable_nested_dicts_get_their_own_reasons() -> None:
    out = jsonable({"outer": {"inner": math.inf}, "lst": [{"q": math.nan}]})
    assert out["outer"] == {"inner": None, "inner_reason": UNBOUNDED}
    assert out["lst"] == [{"q": None, "q_reason": UNDEFINED}]


def test_jsonable_top_level_non_finite_scalar_is_none() -> None:
    assert jsonable(math.inf) is None
    assert jsonable(np.float64("nan")) is None
    assert jsonable([math.inf, 1]) == [None, 1]


def test_jsonable_leaves_strings_bools_and_none_alone() -> None:
    src = {"s": "ε ≤ 1", "b": True, "n": None, "i": 10 ** 30}
    assert jsonable(src) == src


def test_jsonable_dict_returns_a_dict() -> None:
    assert jsonable_dict({"a": np.float64(1.0)}) == {"a": 1.0}


_leaf = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10 ** 6, 10 ** 6),
                  st.text(max_size=5), st.booleans(), st.none())
_tree = st.recursive(_leaf, lambda kids: st.one_of(
    st.lists(kids, max_size=4),
    st.dictionaries(st.text(alphabet="abcxyz", min_size=1, max_size=3), kids, max_size=4)),
    max_leaves=10)


def _same_finite_part(back: Any, orig: Any) -> None:
    """An independent model of what survives: non-finite floats become None, every value
    keeps its place, and a dict may only gain ``<key>_reason`` keys."""
    if isinstance(orig, float) and not math.isfinite(orig):
        assert back is None
    elif isinstance(orig, list):
        assert isinstance(back, list) and len(back) == len(orig)
        for b, o in zip(back, orig):
            _same_finite_part(b, o)
    elif isinstance(orig, dict):
        assert isinstance(back, dict)
        for key, value in orig.items():
            _same_finite_part(back[key], value)
        extra = set(back) - set(orig)
        assert all(k.endswith("_reason") and k[:-7] in orig for k in extra)
    else:
        assert back == orig


@settings(max_examples=30)
@given(_tree)
def test_dumps_is_always_strict_json_and_keeps_every_finite_value(obj: Any) -> None:
    text = dumps(obj)  # allow_nan=False inside: would raise on any NaN/inf left
    _same_finite_part(json.loads(text), obj)


# ---------------------------------------------------------------- jsonfile


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e309", "-1e400"])
def test_loads_strict_refuses_non_finite_numbers_with_their_position(token: str) -> None:
    text = '{\n  "a": [1,\n    ' + token + "]}"
    with pytest.raises(InputError) as info:
        loads_strict(text, file="f.json")
    err = info.value
    assert err.file == "f.json"
    assert f"{token} at line 3, column 5" in err.problem
    assert "must be finite" in err.problem


def test_loads_strict_position_skips_a_token_used_as_a_key() -> None:
    with pytest.raises(InputError) as info:
        loads_strict('{"NaN": NaN}')
    assert "line 1, column 9" in info.value.problem


def test_loads_strict_position_skips_the_token_inside_a_string() -> None:
    text = '{"note": "a 1e309 b", "x": 1e309}'
    with pytest.raises(InputError) as info:
        loads_strict(text)
    assert f"line 1, column {text.rindex('1e309') + 1}" in info.value.problem


def test_loads_strict_accepts_large_but_float_sized_integers() -> None:
    n = int("9" * 300)
    assert loads_strict(f"[{n}]") == [n]


def test_loads_strict_refuses_integers_beyond_any_float() -> None:
    with pytest.raises(InputError) as info:
        loads_strict("[" + "7" * 400 + "]")
    assert info.value.problem.startswith("7" * 20 + "…")
    assert "line 1, column 2" in info.value.problem


def test_loads_strict_depth_limit_is_exact() -> None:
    assert loads_strict("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(InputError, match="nested more than"):
        loads_strict("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))


def test_loads_strict_brackets_inside_strings_do_not_count_as_depth() -> None:
    text = json.dumps({"s": "[" * (MAX_DEPTH * 2)})
    assert loads_strict(text) == {"s": "[" * (MAX_DEPTH * 2)}


def test_loads_strict_agrees_with_json_on_ordinary_text() -> None:
    obj = {"ε": [1, 2.5, -3e-7, None, True, "Zürich 東京"], "n": {"m": []}}
    assert loads_strict(json.dumps(obj, ensure_ascii=False)) == obj


@pytest.mark.parametrize("text, words", [
    ('{"a": 1', "truncated"),
    ('{"a": "open', "never closed"),
    ("{} x", "more text after the JSON value"),
    ('{"a": "x\ty"}', "control character"),
])
def test_malformed_json_is_a_whole_sentence_with_line_and_column(text: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        loads_strict(text)
    problem = info.value.problem
    assert problem.startswith("malformed JSON at line 1, column ")
    assert words in problem and problem.endswith(".")


def test_extra_data_is_not_called_truncated() -> None:
    with pytest.raises(InputError) as info:
        loads_strict("[1] [2]")
    assert "truncated" not in info.value.problem


def test_json_problem_lowercases_and_ends_with_full_stop() -> None:
    text = "[1, 2,, 3]"
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        msg = json_problem(exc, text)
    assert msg[0].islower() and msg.endswith(".") and "truncated" not in msg


@pytest.mark.parametrize("head, looks", [
    (b"", "an empty file"),
    (b"\x89PNG\r\n\x1a\n1234", "a PNG image"),
    (b"%PDF-1.7", "a PDF document"),
    (b"PK\x03\x04rest", "a ZIP archive (an .npz file? open it as an MDP)"),
    (b"\x1f\x8b\x08", "a gzip archive"),
    (b"\x93NUMPY\x01\x00", "a NumPy array file"),
    (b'{"a": 1}', ""),
    ('{"name": "Zürich"}'.encode(), ""),
    ("ab東".encode()[:-1], ""),  # a multi-byte character cut by the 64-byte window
    (b"\xff\xfe\x00\x01abcdefgh", "binary data"),
    (b"abc\x00def", "binary data"),
])
def test_describe_bytes(head: bytes, looks: str) -> None:
    assert describe_bytes(head) == looks


def test_read_json_round_trip_unicode(tmp_path: Path) -> None:
    p = tmp_path / "ü.json"
    obj = {"name": "Straße ε", "v": [0.1, 2]}
    p.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    assert read_json(p) == obj


@pytest.mark.parametrize("data, words", [
    (b"", "the file is empty"),
    (b"  \n\t ", "the file is empty"),
    (b"\x89PNG\r\n\x1a\n" + bytes(16), "it looks like a PNG image"),
    (b'{"a": "caf\xe9"}', "not UTF-8 text (byte 10 is 0xe9)"),
    (b'{"a": NaN}', "NaN at line 1, column 7"),
])
def test_read_json_names_the_file_and_the_problem(tmp_path: Path, data: bytes, words: str) -> None:
    p = tmp_path / "bad.json"
    p.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_json(p)
    assert info.value.file == str(p)
    assert words in info.value.problem


def test_read_json_missing_file_and_folder_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_json(tmp_path / "nope.json")
    assert "nope.json" in str(info.value)
    with pytest.raises(InputError):
        read_json(tmp_path)


# ---------------------------------------------------------------- atomic writes


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_atomic_write_creates_and_replaces_without_leaving_temporaries(tmp_path: Path) -> None:
    p = tmp_path / "out.bin"
    atomic_write_bytes(p, b"one")
    atomic_write_bytes(p, b"two, longer")
    assert p.read_bytes() == b"two, longer"
    assert _temporaries(tmp_path) == []


def test_atomic_write_text_is_utf8(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    atomic_write_text(str(p), "ε → ∞ 東京")
    assert p.read_bytes() == "ε → ∞ 東京".encode()


def test_atomic_write_keeps_the_permissions_of_an_existing_file(tmp_path: Path) -> None:
    p = tmp_path / "keep.txt"
    p.write_text("old")
    os.chmod(p, 0o640)
    atomic_write_text(p, "new")
    assert stat.S_IMODE(p.stat().st_mode) == 0o640 and p.read_text() == "new"


def test_atomic_write_new_file_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "n.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o640


def test_atomic_write_refuses_a_missing_folder_naming_output(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "f.json"
    with pytest.raises(InputError) as info:
        atomic_write_text(target, "x")
    assert info.value.field == "output" and info.value.file == str(target)
    assert "does not exist" in info.value.problem


def test_atomic_write_refuses_a_folder_as_target(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(InputError) as info:
        atomic_write_text(tmp_path / "d", "x")
    assert info.value.field == "output" and "is a folder" in info.value.problem


def test_atomic_write_failure_midway_leaves_the_old_file(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "f.txt"
    p.write_text("old content")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(WriteFailure) as info:
        atomic_write_text(p, "new content")
    assert info.value.errno == errno.ENOSPC
    assert "previous file is untouched" in str(info.value) and str(p) in str(info.value)
    assert p.read_text() == "old content"
    assert _temporaries(tmp_path) == []


def test_atomic_write_failure_on_a_new_file_says_nothing_was_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.EDQUOT, "Disk quota exceeded")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(WriteFailure, match="nothing was written"):
        atomic_write_bytes(tmp_path / "new.bin", b"x")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_non_os_error_propagates_unchanged(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def cancel(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", cancel)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(tmp_path / "k.bin", b"x")
    assert list(tmp_path.iterdir()) == []


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_clean_stale_temporaries_removes_only_dead_writers_files(tmp_path: Path) -> None:
    target = tmp_path / "proj.json"
    dead = tmp_path / f".proj.json.{_dead_pid()}.abc123.tmp"
    mine = tmp_path / f".proj.json.{os.getpid()}.def456.tmp"
    other = tmp_path / f".other.json.{_dead_pid()}.x.tmp"
    unrelated = tmp_path / ".proj.json.notapid.tmp"
    for f in (dead, mine, other, unrelated):
        f.write_text("partial")
    removed = clean_stale_temporaries(target)
    assert removed == [str(dead)]
    assert not dead.exists() and mine.exists() and other.exists() and unrelated.exists()


def test_clean_stale_temporaries_with_a_prefix_covers_sidecars(tmp_path: Path) -> None:
    pid = _dead_pid()
    a = tmp_path / f".proj.json.{pid}.r1.tmp"
    b = tmp_path / f".proj.ledger.json.{pid}.r2.tmp"
    for f in (a, b):
        f.write_text("x")
    removed = clean_stale_temporaries(tmp_path / "proj.json", prefix="proj")
    assert sorted(removed) == sorted([str(a), str(b)])


def test_clean_stale_temporaries_escapes_glob_characters(tmp_path: Path) -> None:
    pid = _dead_pid()
    folder = tmp_path / "run [1]*"
    folder.mkdir()
    t = folder / f".a[b].json.{pid}.r.tmp"
    decoy = folder / f".ab.json.{pid}.r.tmp"  # would match the unescaped pattern .a[b]*
    t.write_text("x")
    decoy.write_text("x")
    assert clean_stale_temporaries(folder / "a[b].json") == [str(t)]
    assert decoy.exists()


# ---------------------------------------------------------------- progress


def test_no_progress_accepts_both_signatures() -> None:
    assert no_progress(0.5) is None and no_progress(1.0, "done") is None


@settings(max_examples=40)
@given(st.floats(-10, 10), st.floats(0, 1), st.floats(0, 1))
def test_sub_progress_maps_into_its_interval(f: float, a: float, b: float) -> None:
    seen: list[float] = []
    start, stop = min(a, b), max(a, b)
    sub_progress(lambda x, m="": seen.append(x), start, stop)(f)
    assert start - 1e-12 <= seen[0] <= stop + 1e-12
    clamped = min(max(f, 0.0), 1.0)
    assert seen[0] == pytest.approx(start + (stop - start) * clamped, abs=1e-12)


def test_sub_progress_nests_and_passes_the_message() -> None:
    seen: list[tuple[float, str]] = []
    outer = sub_progress(lambda f, m="": seen.append((f, m)), 0.2, 0.6)
    inner = sub_progress(outer, 0.5, 1.0)
    inner(0.5, "step")
    assert seen == [(pytest.approx(0.2 + 0.4 * 0.75), "step")]


def test_cancelled_propagates_through_sub_progress() -> None:
    def cancel(f: float, m: str = "") -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        sub_progress(cancel, 0.0, 0.5)(0.1)


@pytest.mark.parametrize("elapsed, fraction, text", [
    (0.99, 0.5, ""),                 # under 1 s: start-up
    (10.0, 0.019, ""),               # under 2 %
    (10.0, 1.0, ""),                 # done
    (math.nan, 0.5, ""),
    (10.0, math.nan, ""),
    (1.0, 0.99, "about 1 s left"),   # 0.01 s rounds up to the 1 s floor
    (10.0, 0.5, "about 10 s left"),
    (89.0, 0.5, "about 89 s left"),
    (90.0, 0.5, "about 2 min left"),  # 1.5 min rounds to 2
    (60.0 * 60 * 1.4, 0.5, "about 84 min left"),
    (5400.0, 0.5, "about 1.5 h left"),
    (1.0, 0.02, "about 49 s left"),
])
def test_time_left_text(elapsed: float, fraction: float, text: str) -> None:
    assert time_left_text(elapsed, fraction) == text


# ---------------------------------------------------------------- quantities


def test_quantity_range_refuses_nan_and_reversed_ends() -> None:
    with pytest.raises(InputError) as info:
        QuantityRange(math.nan, 1.0)
    assert info.value.field == "low"
    with pytest.raises(InputError) as info:
        QuantityRange(0.0, math.nan)
    assert info.value.field == "low"
    with pytest.raises(InputError, match=r"2.0 > 1.0"):
        QuantityRange(2.0, 1.0)


def test_quantity_range_a_single_point_is_allowed() -> None:
    r = QuantityRange(3.0, 3.0)
    assert r.clip([-1, 3, 9]).tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("factor", [0.0, -1.0, math.nan])
def test_scaled_refuses_non_positive_factors(factor: float) -> None:
    with pytest.raises(InputError) as info:
        PROBABILITY.scaled(factor)
    assert info.value.field == "factor"


def test_scaled_keeps_infinite_ends() -> None:
    assert NON_NEGATIVE.scaled(100.0) == QuantityRange(0.0, math.inf)
    assert REAL.scaled(2.0) == REAL
    assert AT_LEAST_ONE.scaled(0.5) == QuantityRange(0.5, math.inf)


def test_declared_ranges() -> None:
    assert (PROBABILITY.low, PROBABILITY.high) == (0.0, 1.0)
    assert (NON_NEGATIVE.low, NON_NEGATIVE.high) == (0.0, math.inf)
    assert AT_LEAST_ONE.low == 1.0 and REAL.low == -math.inf and REAL.high == math.inf


@settings(max_examples=40)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=20),
       st.floats(-100, 100), st.floats(0, 100))
def test_clip_matches_an_elementwise_model(values: list[float], low: float, width: float) -> None:
    r = QuantityRange(low, low + width)
    got = r.clip(values)
    assert got.dtype == np.float64 and got.shape == (len(values),)
    for v, g in zip(values, got):
        if math.isnan(v):
            assert math.isnan(g)
        else:
            assert g == min(max(v, r.low), r.high)


def test_clip_band_clips_both_ends_and_keeps_nan() -> None:
    lo, hi = clip_band([-0.1, math.nan, 0.4], [1.2, math.nan, 0.6], PROBABILITY)
    assert lo[0] == 0.0 and math.isnan(lo[1]) and lo[2] == 0.4
    assert hi[0] == 1.0 and math.isnan(hi[1]) and hi[2] == 0.6


@settings(max_examples=40)
@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(0, 1e6)), min_size=1, max_size=10))
def test_band_around_contains_the_clipped_mean(pairs: list[tuple[float, float]]) -> None:
    mean = [m for m, _ in pairs]
    half = [h for _, h in pairs]
    lo, hi = band_around(mean, half, NON_NEGATIVE)
    assert np.all(lo >= 0.0) and np.all(lo <= hi)
    clipped = NON_NEGATIVE.clip(mean)
    assert np.all(lo <= clipped) and np.all(clipped <= hi)


def test_band_around_infinite_half_width_reaches_the_range_ends() -> None:
    lo, hi = band_around([0.5], [math.inf], PROBABILITY)
    assert lo.tolist() == [0.0] and hi.tolist() == [1.0]


# ---------------------------------------------------------------- results, timestamps


def test_status_messages() -> None:
    assert Status.SUCCESS.message == "converged"
    assert "iteration limit" in Status.MAX_ITER.message
    assert {s.value for s in Status} == {0, 1}


def test_readonly_is_a_float_copy_that_refuses_writes() -> None:
    src = np.array([1, 2, 3], dtype=np.int32)
    out = readonly(src)
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 3.0]
    src[0] = 99
    assert out[0] == 1.0  # a copy, not a view
    with pytest.raises(ValueError):
        out[0] = 5.0
    scalar = readonly(2.5)
    assert scalar.shape == () and float(scalar) == 2.5 and not scalar.flags.writeable


def test_now_iso_is_utc_whole_seconds_and_now() -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    stamp = now_iso()
    after = dt.datetime.now(dt.timezone.utc)
    parsed = dt.datetime.fromisoformat(stamp)
    assert parsed.utcoffset() == dt.timedelta(0)
    assert parsed.microsecond == 0 and stamp.endswith("+00:00") and len(stamp) == 25
    assert before <= parsed <= after
