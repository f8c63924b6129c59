"""Shared settings for the Qt-free core tests.

Hypothesis runs derandomised (a fixed seed derived from each test) and without an
example database, so a CI run is reproducible (``.hypothesis/`` then holds only
Hypothesis's constants cache; it is git-ignored).
Set ``HYPOTHESIS_PROFILE=explore`` to search with fresh random examples instead.
"""

from __future__ import annotations

import inspect
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=500, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def make_random_mdp(rng: np.random.Generator, n_states: int, n_actions: int,
                    horizon: int | None, *, discount: float | None = None,
                    zeros: float = 0.0, masked: bool = True, holes: bool = False):
    """A random valid MDP; ``zeros`` is the chance of a structural zero per entry.

    Rewards are drawn from N(0, 1) so values have both signs. With ``masked``, states
    have between 1 and ``n_actions`` actions. By default the available actions are
    ``0 .. n_s-1`` (the shape an ``*.mdp.json`` file can express) and some state has all
    of them; ``holes=True`` makes any non-empty subset available instead (NPZ only).
    """
    from core.mdp.model import MDP

    S, A = n_states, n_actions
    u = rng.uniform(size=(S, A, S))
    if zeros:
        u = np.where(rng.uniform(size=u.shape) < zeros, 0.0, u)
        empty = u.sum(axis=2) == 0
        u[empty, rng.integers(S)] = 1.0  # keep every row a distribution
    P = u / u.sum(axis=2, keepdims=True)
    mask = np.ones((S, A), dtype=bool)
    if masked and A > 1:
        if holes:
            mask = rng.uniform(size=(S, A)) < 0.6
            mask[np.arange(S), rng.integers(A, size=S)] = True
        else:
            n_s = rng.integers(1, A + 1, size=S)
            n_s[rng.integers(S)] = A
            mask = np.arange(A)[None, :] < n_s[:, None]
    if discount is None:
        discount = 1.0 if horizon is not None else float(rng.uniform(0.3, 0.95))
    return MDP(P=P, R=rng.normal(size=(S, A)), R_T=rng.normal(size=S), mask=mask,
               horizon=horizon, discount=discount)


@pytest.fixture(scope="session")
def random_mdp_factory():
    return make_random_mdp


@pytest.fixture(scope="session")
def run_tool():
    """``run_tool(name, out)``: run ``tools/<name>.py``'s ``main()`` writing into ``out``.

    The example generators write to their module-level ``OUT``; tests redirect it to a
    temporary folder and compare what they write with the committed files.
    """
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]

    def run(name: str, out: Path) -> Path:
        spec = importlib.util.spec_from_file_location(name, root / "tools" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mp = pytest.MonkeyPatch()
        mp.setattr(mod, "OUT", out)
        try:
            mod.main()
        finally:
            mp.undo()
        return out

    return run


@pytest.fixture
def project(tmp_path):
    """A private copy of the built-in example project, ``tmp_path/p.privplan.json``.

    (Here rather than in a ``tests/core/cli/conftest.py``: a second ``conftest.py`` under
    ``tests/core`` breaks ``--doctest-modules``, which imports both as ``conftest``.)
    """
    import shutil
    from pathlib import Path

    builtin = Path(__file__).resolve().parents[2] / "assets" / "examples" / "builtin.privplan.json"
    path = tmp_path / "p.privplan.json"
    shutil.copy(builtin, path)
    return path


_NEEDS_DEEP = re.compile(r'importorskip\("(jax|equinox)"\)')


def _module_deep(mod) -> tuple[bool, bool]:
    """(the module mentions such an ``importorskip`` at all, one at its top level)."""
    try:
        text = inspect.getsource(mod)
    except (OSError, TypeError):
        return False, False
    top = "\n".join(ln for ln in text.splitlines() if not ln.startswith((" ", "\t")))
    return bool(_NEEDS_DEEP.search(text)), bool(_NEEDS_DEEP.search(top))


def pytest_collection_modifyitems(items):
    """Mark ``needs_deep`` every test that skips itself without JAX or equinox.

    ``.venv-core`` has neither, so ``make test-core`` skips these; ``make test-deep`` runs
    just them (``-m needs_deep``) in ``.venv``, not the rest of their files a second time.
    A module-level ``importorskip`` marks the whole file.
    """
    seen: dict[str, tuple[bool, bool]] = {}
    for item in items:
        fn, mod = getattr(item, "function", None), getattr(item, "module", None)
        if fn is None or mod is None:
            continue
        if mod.__name__ not in seen:
            seen[mod.__name__] = _module_deep(mod)
        anywhere, top = seen[mod.__name__]
        if top or (anywhere and _NEEDS_DEEP.search(inspect.getsource(fn))):
            item.add_marker(pytest.mark.needs_deep)
