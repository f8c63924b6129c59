"""The resource guard (core.common.resources): real memory limits, regular files only, NPZ
headers before any decompression, time budgets named with their estimate."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from core.common.errors import InputError
from core.common.jsonfile import read_json
from core.common.resources import (
    check_time,
    load_npz,
    memory_budget,
    memory_limits,
    npz_inventory,
    open_regular,
    read_bytes,
)
from core.mdp.examples import example2
from core.mdp.files import load_mdp, save_mdp

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "core" / "fuzz"))


def test_the_budget_follows_the_address_space_limit_of_the_process():
    script = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(ROOT)!r})
        resource.setrlimit(resource.RLIMIT_AS, (1500 * 2**20, 1500 * 2**20))
        from core.common.resources import memory_budget, memory_limits
        limits = memory_limits()
        print(limits["address-space limit"], memory_budget())
    """)
    env = {k: v for k, v in os.environ.items() if k != "PRIVPLAN_MEMORY_MB"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    room, budget = (int(x) for x in out.stdout.split())
    assert 0 < room < 1500 * 2**20  # what is left once the interpreter is mapped
    assert budget <= room


def test_the_budget_is_the_smallest_known_limit(monkeypatch):
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "100")
    limits = memory_limits()
    assert limits["PRIVPLAN_MEMORY_MB"] == 100 * 2**20
    assert "available memory" in limits  # /proc/meminfo on Linux
    assert memory_budget() == min(limits.values()) <= 100 * 2**20


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/dev/urandom", "folder", "link"])
def test_streams_and_special_files_are_refused_before_a_byte_is_read(tmp_path, special):
    path = str(tmp_path / "in.json")
    if special == "fifo":
        os.mkfifo(path)  # opening it for reading would block until a writer comes
    elif special == "folder":
        os.mkdir(path)
    elif special == "link":
        os.symlink("/dev/zero", path)
    else:
        path = special
    t0 = time.perf_counter()
    for reader in (read_json, lambda p: read_bytes(p, max_bytes=100), open_regular):
        with pytest.raises(InputError, match="folder|pipe|device|not a file") as info:
            reader(path)
        assert "\n" not in str(info.value)
    assert time.perf_counter() - t0 < 2.0


def test_a_fifo_with_a_writer_waiting_is_still_refused(tmp_path):
    path = str(tmp_path / "m.mdp.json")
    os.mkfifo(path)
    writer = threading.Thread(target=lambda: open(path, "wb").close(), daemon=True)
    writer.start()
    with pytest.raises(InputError, match="named pipe"):
        load_mdp(path)


def test_a_deflate_bomb_is_refused_from_its_header_before_decompressing(tmp_path,
                                                                       monkeypatch):
    import mutants

    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "500")
    path = tmp_path / "bomb.mdp.npz"
    path.write_bytes(mutants.deflate_bomb((6000, 1, 6000)))  # 288 MB of zeros, ~0.3 MB
    assert path.stat().st_size < 2 * 2**20
    t0 = time.perf_counter()
    with pytest.raises(InputError, match="needs .* of memory"):
        load_mdp(path)
    assert time.perf_counter() - t0 < 1.0  # nothing was inflated


def test_a_forged_directory_entry_or_header_is_refused(tmp_path):
    import mutants

    good = mutants._npz_compressed({"P": np.zeros((3, 2, 3)), "R": np.zeros((3, 2))})
    rng = random.Random(1)
    for i in range(20):
        path = tmp_path / f"f{i}.npz"
        path.write_bytes(mutants.forged_sizes(good, rng))
        try:
            load_npz(path)
        except InputError as exc:
            assert "\n" not in str(exc)
    path = tmp_path / "forged.npz"
    path.write_bytes(mutants._bomb((3, 2**40, 3)))
    with pytest.raises(InputError, match="truncated or forged"):
        npz_inventory(path)


def test_every_bit_flip_of_an_npz_is_read_or_refused_never_a_zlib_error(tmp_path):
    """A bit-flipped archive gave exit 1 (zlib.error) before."""
    import mutants

    m = example2()
    good = mutants._npz_compressed({"P": m.P, "R": m.R, "horizon": np.array(m.horizon),
                                    "discount": np.array(m.discount),
                                    "initial_state": np.array(0)})
    rng = random.Random(24)
    refused = 0
    for i in range(150):
        path = tmp_path / f"b{i}.mdp.npz"
        path.write_bytes(mutants.bit_flip(good, rng))
        try:
            load_mdp(path)
        except InputError as exc:
            refused += 1
            assert "\n" not in str(exc) and str(path) in str(exc)
    assert refused > 50


def test_a_sidecar_declaring_more_than_memory_is_refused(tmp_path, monkeypatch):
    """A 236-byte forged sidecar gave exit 1 (MemoryError) before."""
    import mutants

    from core.project.files import load_project

    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "1000")
    (tmp_path / "s.privplan.json").write_bytes(mutants.sidecar_project())
    for shape in ((8000, 4, 8000), (2**31, 2**31, 2)):
        (tmp_path / mutants.SIDECAR_NAME).write_bytes(mutants._bomb(shape))
        with pytest.raises(InputError, match="forged|memory") as info:
            load_project(tmp_path / "s.privplan.json")
        assert "sidecar" in str(info.value) and "\n" not in str(info.value)
    (tmp_path / mutants.SIDECAR_NAME).write_bytes(mutants.deflate_bomb((12000, 1, 12000)))
    with pytest.raises(InputError, match="needs .* of memory"):
        load_project(tmp_path / "s.privplan.json")


def _chain(path, n):
    import json

    states = [f"s{i}" for i in range(n)]
    trans = {s: {"go": {states[min(i + 1, n - 1)]: 1.0}} for i, s in enumerate(states)}
    path.write_text(json.dumps({"format": "privplan-mdp", "version": 1, "states": states,
                                "initial_state": "s0", "horizon": 3, "discount": 1.0,
                                "transitions": trans}))
    return path


def test_a_large_chain_is_read_as_sparse_rows_under_a_small_cap(tmp_path, monkeypatch):
    """A 20,000-state chain of 0.9 MB reached 3 GB in 10-16 s before (dense S x A x S
    arrays): it is read as CSR rows now, in memory linear in its entries."""
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "1500")
    m = load_mdp(_chain(tmp_path / "chain.mdp.json", 20_000))
    assert m.n_states == 20_000 and not m.is_dense
    assert m.transitions.data.size == 20_000


def test_a_dense_model_is_refused_from_its_state_count_before_its_arrays_are_built(
        tmp_path, monkeypatch):
    """Small models keep dense arrays: their size is checked from the counts first."""
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "1")
    with pytest.raises(InputError, match="200 states .* needs .* of memory"):
        load_mdp(_chain(tmp_path / "chain.mdp.json", 200))


def test_time_budgets_name_the_estimate_and_the_limit(monkeypatch):
    monkeypatch.setenv("PRIVPLAN_TIME_LIMIT_S", "30")
    check_time(10.0, "horizon", detail="ten seconds")
    with pytest.raises(InputError) as info:
        check_time(3 * 3600.0, "horizon", detail="backward induction over 1e9 stages")
    msg = str(info.value)
    assert msg.startswith("horizon: backward induction over 1e9 stages: about 3 h")
    assert "30 s" in msg and "PRIVPLAN_TIME_LIMIT_S" in msg


def test_npz_inventory_reads_no_data(tmp_path, monkeypatch):
    path = tmp_path / "m.mdp.npz"
    save_mdp(example2(), path)
    calls = []
    real = zipfile.ZipExtFile.read

    def counting(self, n=-1):
        calls.append(n)
        return real(self, n)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting)
    inv = npz_inventory(path)
    assert inv["P"].shape == example2().P.shape
    assert sum(max(0, c) for c in calls) < 4096  # headers only


def test_json_files_have_a_size_cap(tmp_path, monkeypatch):
    from core.common import jsonfile

    monkeypatch.setattr(jsonfile, "MAX_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b"1," * 1000 + b"1]")
    with pytest.raises(InputError, match="a JSON file .* of at most"):
        read_json(path)
    path.write_bytes(b"{}")
    assert read_json(path) == {}
