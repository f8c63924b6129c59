"""Model-checker files (PRISM explicit, Storm DRN) of random models: every model PrivPlan
writes reads back with the same transitions, rewards, terminal rewards, available actions
and settings; DRN keeps the state and action names; writing what was read gives the same
file; and an interval export states exactly the intervals it was given, entry by entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from core.mdp.interop import (
    import_model,
    read_drn,
    read_prism,
    write_drn,
    write_drn_interval,
    write_prism,
    write_prism_interval,
)
from core.mdp.model import MDP


@pytest.fixture(scope="module")
def model(random_mdp_factory: Callable[..., MDP]) -> Callable[[int], MDP]:
    return lambda seed: _model(random_mdp_factory, seed)


def _model(make_random_mdp: Callable[..., MDP], seed: int) -> MDP:
    rng = np.random.default_rng(seed)
    finite = seed % 2 == 1
    m = make_random_mdp(rng, int(rng.integers(1, 7)), int(rng.integers(1, 4)),
                        int(rng.integers(1, 5)) if finite else None, zeros=0.5)
    return m.replace(state_names=[f"Zürich {i} ε" for i in range(m.n_states)])


def _same_core(back: MDP, m: MDP) -> None:
    assert back.transitions.equal(m.transitions)
    assert np.array_equal(back.mask, m.mask)
    assert np.array_equal(back.R[m.mask], m.R[m.mask])
    assert np.array_equal(back.R_T, m.R_T)
    assert back.horizon == m.horizon and back.discount == m.discount


def _settings(m: MDP) -> dict:
    return {"horizon": m.horizon} if m.horizon is not None else {"discount": m.discount}


@pytest.mark.parametrize("seed", range(8))
def test_prism_round_trip_of_random_models(seed: int, tmp_path: Path,
                                        model: Callable[[int], MDP]) -> None:
    m = model(seed)
    files, warnings = write_prism(m, tmp_path / "m")
    # the only warning: the model's own state names, which PRISM's files have no place for
    named = not m.state_names.is_default("s")
    assert [w for w in warnings if "state names" in w] == (warnings[:1] if named else [])
    assert len(warnings) == int(named)
    back = read_prism(files, **_settings(m)).mdp
    _same_core(back, m)
    assert import_model(files, **_settings(m)).mdp.transitions.equal(m.transitions)


@pytest.mark.parametrize("seed", range(8))
def test_drn_round_trip_of_random_models_keeps_the_names(seed: int, tmp_path: Path,
                                        model: Callable[[int], MDP]) -> None:
    m = model(seed)
    (path,), warnings = write_drn(m, tmp_path / "m")
    assert warnings == []
    res = read_drn(path, **_settings(m))
    back = res.mdp
    _same_core(back, m)
    assert list(back.state_names) == list(m.state_names)
    for s in range(m.n_states):
        avail = m.available_actions(s)
        assert [back.action_names[s][a] for a in avail] == [m.action_names[s][a] for a in avail]
    assert res.n_choices == int(m.mask.sum())
    (again,), _ = write_drn(back, tmp_path / "again")
    assert Path(again).read_text(encoding="utf-8") == Path(path).read_text(encoding="utf-8")


_PRISM_LINE = re.compile(r"^(\d+) (\d+) (\d+) \[([^,\]]+),([^\]]+)\]")
_DRN_ENTRY = re.compile(r"^\t\t(\d+) : \[([^,\]]+), ([^\]]+)\]$")


def _intervals(m: MDP, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    d = m.transitions.data
    lo = d * rng.uniform(0.2, 1.0, size=d.size)
    hi = np.minimum(d + rng.uniform(0.0, 0.5, size=d.size), 1.0)
    return lo, hi


@pytest.mark.parametrize("seed", range(4))
def test_interval_exports_state_exactly_the_given_intervals(seed: int, tmp_path: Path,
                                        model: Callable[[int], MDP]) -> None:
    m = model(seed)
    lo, hi = _intervals(m, seed)
    t = m.transitions
    files, _ = write_prism_interval(m, tmp_path / "p", lo, hi)
    tra = next(f for f in files if f.endswith(".tra"))
    lines = Path(tra).read_text().splitlines()
    header = lines[0].split()
    assert int(header[0]) == m.n_states and int(header[2]) == t.nnz
    got = [_PRISM_LINE.match(line) for line in lines[1:]]
    assert all(g is not None for g in got) and len(got) == t.nnz
    assert [float(g.group(4)) for g in got] == lo.tolist()  # repr round trip: exact
    assert [float(g.group(5)) for g in got] == hi.tolist()
    assert [int(g.group(3)) for g in got] == t.indices.tolist()
    (drn,), _ = write_drn_interval(m, tmp_path / "d", lo, hi)
    text = Path(drn).read_text(encoding="utf-8")
    assert "@value_type: double-interval" in text
    entries = [_DRN_ENTRY.match(line) for line in text.splitlines()]
    entries = [e for e in entries if e is not None]
    assert [float(e.group(2)) for e in entries] == lo.tolist()
    assert [float(e.group(3)) for e in entries] == hi.tolist()
    assert [int(e.group(1)) for e in entries] == t.indices.tolist()
