"""core.common.resources (sizes, durations, counts, time and memory limits, regular files,
NPZ archives) and core.common.palette.

Limits are driven through their environment variables (monkeypatched), files are real files
in a temporary folder (a FIFO, a folder, /dev/null), and NPZ archives are written with numpy
and read back — in one piece and in chunks, C and Fortran order — against the arrays written.
"""

from __future__ import annotations

import io
import math
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from core.common import palette, resources
from core.common.errors import InputError
from core.common.progress import Cancelled
from core.common.resources import (
    DEFAULT_TIME_LIMIT_S,
    MODEL_MEMORY_FACTOR,
    check_count,
    check_memory,
    check_model_memory,
    check_time,
    format_bytes,
    format_duration,
    load_npz,
    memory_budget,
    memory_limits,
    npz_inventory,
    open_regular,
    read_bytes,
    sweep_seconds,
    time_limit_s,
)

# ---------------------------------------------------------------- formatting


@pytest.mark.parametrize("n, text", [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
    (2 ** 20 - 1, "1024.0 KiB"), (2 ** 20, "1.0 MiB"), (5 * 2 ** 30, "5.0 GiB"),
    (2 ** 50, "1.0 PiB"), (2 ** 60, "1.0 EiB"), (2.0 ** 70, "1024.0 EiB"), (-2048, "-2.0 KiB"),
    (math.nan, "unknown"), (math.inf, "unknown"), (-math.inf, "unknown"),
])
def test_format_bytes(n: float, text: str) -> None:
    assert format_bytes(n) == text


@pytest.mark.parametrize("seconds, text", [
    (0.0, "0 s"), (0.25, "0.25 s"), (89.0, "89 s"), (90.0, "1.5 min"), (5399.0, "90 min"),
    (5400.0, "1.5 h"), (1.5 * 86400, "1.5 days"), (365.25 * 86400, "1 years"),
    (3e6 * 365.25 * 86400, "3e+06 years"), (math.inf, "forever"), (math.nan, "forever"),
])
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_sweep_seconds_is_linear_in_sweeps_and_entries() -> None:
    for kind, (overhead, per) in resources.SWEEP_COST.items():
        assert sweep_seconds(0, 1e9, kind) == 0.0
        assert sweep_seconds(10, 0, kind) == pytest.approx(10 * overhead)
        assert sweep_seconds(3, 1e6, kind) == pytest.approx(3 * (overhead + per * 1e6))
    assert sweep_seconds(1, 1.0, "robust") > sweep_seconds(1, 1.0, "plain")
    with pytest.raises(KeyError):
        sweep_seconds(1, 1, "quantum")


# ---------------------------------------------------------------- counts


@pytest.mark.parametrize("value", [1.0, "3", None, True, [1]])
def test_check_count_refuses_non_integers_naming_the_flag(value: object) -> None:
    with pytest.raises(InputError) as info:
        check_count(value, "--runs")
    assert info.value.field == "--runs" and "must be an integer" in info.value.problem


def test_check_count_range_and_numpy_integers() -> None:
    assert check_count(np.int64(5), "--n", high=5) == 5
    assert type(check_count(np.int32(2), "--n")) is int
    assert check_count(0, "--n", low=0) == 0
    with pytest.raises(InputError, match=r"in \[1, 1,000\], got 1001"):
        check_count(1001, "--n", high=1000)
    with pytest.raises(InputError, match=r">= 2, got 1"):
        check_count(1, "--n", low=2)


def test_check_count_checks_memory_per_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "1")
    assert check_count(1000, "--samples", bytes_each=8.0) == 1000
    with pytest.raises(InputError) as info:
        check_count(10 ** 6, "--samples", bytes_each=8.0, what="samples per side")
    assert info.value.field == "--samples"
    assert "1,000,000 samples per side needs 7.6 MiB" in info.value.problem
    assert "(PRIVPLAN_MEMORY_MB)" in info.value.problem


# ---------------------------------------------------------------- memory and time limits


def test_memory_limits_include_the_environment_and_the_budget_is_the_least(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "3")
    limits = memory_limits()
    assert limits["PRIVPLAN_MEMORY_MB"] == 3 * 2 ** 20
    assert "half the physical memory" in limits
    assert memory_budget() == min(limits.values()) == 3 * 2 ** 20


@pytest.mark.parametrize("text", ["", "  ", "abc", "-5", "0", "nan", "inf"])
def test_a_meaningless_memory_setting_is_ignored(monkeypatch: pytest.MonkeyPatch,
                                                 text: str) -> None:
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", text)
    assert "PRIVPLAN_MEMORY_MB" not in memory_limits()


def test_a_fractional_memory_setting_is_at_least_one_mebibyte(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "0.25")
    assert memory_limits()["PRIVPLAN_MEMORY_MB"] == 2 ** 20


def test_check_memory_refuses_above_the_budget_and_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "2")
    check_memory(2 * 2 ** 20, "P")  # exactly the budget fits
    with pytest.raises(InputError) as info:
        check_memory(2 * 2 ** 20 + 1, "P", detail="a dense copy")
    assert info.value.field == "P"
    assert info.value.problem.startswith("a dense copy needs 2.0 MiB of memory")
    with pytest.raises(InputError) as info:
        check_memory(math.nan, "P")
    assert "needs an unknown amount of memory" in info.value.problem
    assert "inf" not in info.value.problem and "EiB" not in info.value.problem
    with pytest.raises(InputError) as info:
        check_memory(1e30, "P")
    assert info.value.problem.startswith("this needs")


def test_check_model_memory_uses_the_dense_arrays_times_the_factor(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "1")
    # S = 100, A = 2: 5 × 8 × 100 × 2 × 100 = 800 kB < 1 MiB
    assert MODEL_MEMORY_FACTOR * 8 * 100 * 2 * 100 < 2 ** 20
    check_model_memory(100, 2, "states")
    with pytest.raises(InputError) as info:
        check_model_memory(200, 0, "states")  # 0 actions counts as 1: 1.6 MB
    assert info.value.field == "states"
    assert "200 states x 1 actions" in info.value.problem


def test_time_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRIVPLAN_TIME_LIMIT_S", raising=False)
    assert time_limit_s() == DEFAULT_TIME_LIMIT_S
    monkeypatch.setenv("PRIVPLAN_TIME_LIMIT_S", "12.5")
    assert time_limit_s() == 12.5
    monkeypatch.setenv("PRIVPLAN_TIME_LIMIT_S", "-3")
    assert time_limit_s() == DEFAULT_TIME_LIMIT_S


def test_check_time_refuses_past_the_limit_naming_estimate_and_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVPLAN_TIME_LIMIT_S", "60")
    check_time(60.0, "horizon", detail="x")
    with pytest.raises(InputError) as info:
        check_time(5400.0, "horizon", detail="1e9 sweeps")
    assert info.value.field == "horizon"
    assert info.value.problem == ("1e9 sweeps: about 1.5 h of computation; the limit of one "
                                  "computation is 60 s (PRIVPLAN_TIME_LIMIT_S)")
    with pytest.raises(InputError, match="about forever"):
        check_time(math.nan, "discount", detail="a sweep count")


# ---------------------------------------------------------------- regular files


def test_open_regular_reads_a_file(tmp_path: Path) -> None:
    p = tmp_path / "f.bin"
    p.write_bytes(b"abc")
    with open_regular(p) as fh:
        assert fh.read() == b"abc"


@pytest.mark.parametrize("kind", ["missing", "folder", "fifo", "device"])
def test_open_regular_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    p: str
    if kind == "missing":
        p, words = str(tmp_path / "none"), "file not found"
    elif kind == "folder":
        p, words = str(tmp_path), "folder"
    elif kind == "fifo":
        p, words = str(tmp_path / "pipe"), "a named pipe (FIFO)"
        os.mkfifo(p)
    else:
        p, words = "/dev/null", "a character device"
    with pytest.raises(InputError) as info:
        open_regular(p, field="--input")  # a FIFO must not block here
    assert info.value.field == "--input" and info.value.file == p
    assert words in info.value.problem


def test_open_regular_refuses_an_unreadable_file(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    p = tmp_path / "secret"
    p.write_bytes(b"x")
    os.chmod(p, 0)
    with pytest.raises(InputError, match="cannot read file"):
        open_regular(p)


def test_read_bytes_limits_the_size(tmp_path: Path) -> None:
    p = tmp_path / "d.csv"
    p.write_bytes(b"x" * 100)
    assert read_bytes(p, max_bytes=100) == b"x" * 100
    with pytest.raises(InputError) as info:
        read_bytes(p, max_bytes=99, what="CSV file", field="--data")
    assert info.value.field == "--data" and info.value.file == str(p)
    assert info.value.problem == "is 100 B; a CSV file of at most 99 B is read"
    (tmp_path / "empty").write_bytes(b"")
    assert read_bytes(tmp_path / "empty", max_bytes=0) == b""


# ---------------------------------------------------------------- NPZ archives


def _npz(path: Path, **arrays: np.ndarray) -> Path:
    np.savez_compressed(path, **arrays)
    return path


def test_npz_inventory_declares_shapes_without_reading(tmp_path: Path) -> None:
    p = _npz(tmp_path / "m.npz", P=np.zeros((3, 2, 3)), names=np.array(["a", "bb"]),
             s=np.float64(1.5))
    inv = npz_inventory(p)
    assert inv["P"].shape == (3, 2, 3) and inv["P"].nbytes == 3 * 2 * 3 * 8
    assert inv["P"].describe() == "3 x 2 x 3 float64"
    assert inv["names"].dtype == np.dtype("<U2")
    assert inv["s"].shape == () and inv["s"].describe() == "a scalar float64"
    assert all(i.stored >= i.nbytes for i in inv.values())


def test_npz_inventory_refuses_object_arrays_and_non_archives(tmp_path: Path) -> None:
    p = tmp_path / "o.npz"
    np.savez(p, obj=np.array([{"a": 1}], dtype=object))
    with pytest.raises(InputError) as info:
        npz_inventory(p)
    assert info.value.field == "obj" and "Python objects" in info.value.problem
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(InputError, match="not a readable NPZ archive"):
        npz_inventory(bad)


def test_npz_inventory_refuses_a_forged_header(tmp_path: Path) -> None:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(4))
    raw = buf.getvalue()
    forged = raw.replace(b"'shape': (4,)", b"'shape': (9,)")  # 9 values declared, 4 held
    assert forged != raw
    p = tmp_path / "f.npz"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("P.npy", forged)
    with pytest.raises(InputError) as info:
        npz_inventory(p)
    assert info.value.field == "P" and "truncated or forged" in info.value.problem


def test_npz_inventory_refuses_arrays_beyond_memory(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    p = _npz(tmp_path / "big.npz", P=np.zeros((64, 4, 64)))  # 131 kB
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "1")
    npz_inventory(p)
    with pytest.raises(InputError) as info:
        npz_inventory(p, factor=10.0)
    assert info.value.field == "P" and "P of 64 x 4 x 64" in info.value.problem
    q = _npz(tmp_path / "other.npz", x=np.zeros(2 ** 17))  # 1 MiB
    with pytest.raises(InputError) as info:
        npz_inventory(q, field="weights", factor=2.0)
    assert info.value.field == "weights"


def test_load_npz_returns_the_arrays_written(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    arrays = {"P": rng.uniform(size=(4, 3, 4)), "F": np.asfortranarray(rng.normal(size=(5, 7))),
              "i": np.arange(10, dtype=np.int32), "t": np.array(["ü", "東京"])}
    p = _npz(tmp_path / "a.npz", **arrays)
    out = load_npz(p)
    assert set(out) == set(arrays)
    for k, v in arrays.items():
        assert out[k].dtype == v.dtype and np.array_equal(out[k], v)
    assert set(load_npz(p, keys=("i",))) == {"i"}


def test_load_npz_in_chunks_reports_progress_and_matches(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(resources, "_CHUNK_BYTES", 64)
    rng = np.random.default_rng(1)
    arrays = {"a": rng.normal(size=(10, 9)), "f": np.asfortranarray(rng.normal(size=(6, 11))),
              "small": np.arange(3.0)}
    p = _npz(tmp_path / "c.npz", **arrays)
    seen: list[float] = []
    out = load_npz(p, progress=lambda f, m="": seen.append(f))
    for k, v in arrays.items():
        assert np.array_equal(out[k], v)
    assert out["f"].flags.f_contiguous
    assert len(seen) > 10 and all(0.0 <= f <= 1.0 + 1e-12 for f in seen)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0, abs=0.05)


def test_load_npz_cancel_propagates(tmp_path: Path) -> None:
    p = _npz(tmp_path / "x.npz", a=np.zeros(3), b=np.ones(3))

    def cancel(f: float, m: str = "") -> None:
        if f > 0:
            raise Cancelled

    with pytest.raises(Cancelled):
        load_npz(p, progress=cancel)


def test_load_npz_names_a_damaged_member(tmp_path: Path) -> None:
    p = tmp_path / "d.npz"
    np.savez(p, P=np.arange(1000.0))  # stored, not deflated: the data is easy to damage
    raw = bytearray(p.read_bytes())
    at = raw.index(np.arange(1000.0)[500:501].tobytes())
    raw[at] ^= 0xFF  # the CRC no longer matches
    p.write_bytes(bytes(raw))
    with pytest.raises(InputError) as info:
        load_npz(p)
    assert info.value.field == "P" and "damaged" in info.value.problem
    assert info.value.problem.count("not a readable NPZ archive") == 1


# ---------------------------------------------------------------- palette

_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


def test_every_palette_colour_is_hex_and_the_okabe_ito_set() -> None:
    named = list(palette.OKABE_ITO.values())
    assert len(set(named)) == 8 and all(_HEX.match(c) for c in named)
    for table in (palette.SERIES_COLOURS, palette.APPROACH_COLOURS):
        assert all(_HEX.match(c) for c in table.values())
    assert palette.series_colour("v_private") == palette.PRIVATE_ACCENT
    with pytest.raises(KeyError):
        palette.series_colour("v_unknown")


def test_cycle_and_agent_colours_repeat_with_their_period() -> None:
    n = len(palette.CYCLE)
    assert [palette.cycle_colour(i) for i in range(n)] == list(palette.CYCLE)
    assert len(set(palette.CYCLE)) == n
    assert palette.cycle_colour(n + 2) == palette.cycle_colour(2)
    agents = [palette.agent_colour(i) for i in range(8)]
    assert len(set(agents)) == 8 and palette.agent_colour(8) == agents[0]


def test_arm_colours_fixed_arms_and_sweep_order() -> None:
    assert palette.arm_colour("no advice") == palette.OKABE_ITO["black"]
    assert palette.arm_colour("traditional") == palette.OKABE_ITO["blue"]
    arms = ["no advice", "eps=0.5", "traditional", "eps=1", "eps=2"]
    sweep = [palette.arm_colour(a, arms) for a in ("eps=0.5", "eps=1", "eps=2")]
    assert len(set(sweep)) == 3
    assert palette.OKABE_ITO["black"] not in sweep
    # an arm not in the list takes the first sweep colour; the order decides, not the name
    assert palette.arm_colour("unlisted", arms) == sweep[0]
    assert palette.arm_colour("eps=2", ["eps=2"]) == sweep[0]
