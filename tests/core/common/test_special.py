"""core.common.special: scipy's own compiled special functions, loaded without the package
``scipy.special`` (whose import costs more than numpy's), and scipy's logsumexp bit for bit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.common import special

ROOT = Path(__file__).resolve().parents[3]
NAMES = ("betainc", "betaincc", "betaincinv", "betaln", "expit", "gammaln")


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_functions_are_scipy_specials_own_objects():
    scipy_special = pytest.importorskip("scipy.special")
    for name in NAMES:
        assert getattr(special, name) is getattr(scipy_special, name), name


def test_a_fresh_process_loads_them_without_running_the_package_and_can_import_it_later():
    got = _run(
        "import sys\n"
        "from core.common import special\n"
        "print(type(sys.modules['scipy.special']).__name__,\n"
        "      'scipy.special._basic' in sys.modules, 'numpy.f2py' in sys.modules,\n"
        "      'scipy._lib._array_api' in sys.modules)\n"
        "import scipy.special as s\n"
        "print(all(getattr(s, n) is getattr(special, n) for n in %r),\n"
        "      s.betainc(2.0, 3.0, 0.4) == special.betainc(2.0, 3.0, 0.4),\n"
        "      s.logsumexp([1.0, 2.0]) == special.logsumexp([1.0, 2.0]),\n"
        "      type(sys.modules['scipy.special']).__name__)\n" % (NAMES,))
    assert got.splitlines() == ["_Deferred False False False", "True True True module"]


_DIRS = ("import json, sys\n"
         "if sys.argv[1] == 'shim':\n"
         "    import core.common.special\n"
         "import scipy.special, scipy\n"
         "a, b = sorted(dir(scipy.special)), sorted(dir(scipy))\n"
         "import scipy.stats\n"
         "from scipy.special import gamma, logsumexp\n"
         "print(json.dumps([a, b, sorted(dir(scipy.special)), float(gamma(5.0))]))\n")


def test_the_package_run_later_is_the_package_a_plain_import_gives():
    """Every name of scipy.special and scipy (its compiled submodules included) is there
    as after a plain import, before and after scipy.stats (which uses the package)."""
    def dirs(mode: str) -> list:
        out = subprocess.run([sys.executable, "-c", _DIRS, mode], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    assert dirs("shim") == dirs("plain")


def test_threads_asking_the_deferred_package_at_once_all_get_the_names():
    got = _run(
        "import sys, threading\n"
        "from core.common import special\n"
        "import scipy.special as s\n"
        "out, start = [], threading.Barrier(4)\n"
        "def ask():\n"
        "    start.wait()\n"
        "    out.append(float(s.gamma(4.0)) + float(s.logsumexp([0.0, 0.0])))\n"
        "ts = [threading.Thread(target=ask) for _ in range(4)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "print(len(set(out)), len(out), type(sys.modules['scipy.special']).__name__)\n")
    assert got == "1 4 module"


def _cases(seed: int, n: int):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        shape = tuple(int(v) for v in rng.integers(1, 6, size=rng.integers(1, 4)))
        a = rng.normal(scale=rng.choice([1.0, 100.0, 800.0]), size=shape)
        if rng.random() < 0.3:
            a.flat[rng.integers(a.size)] = rng.choice([-np.inf, np.inf, np.nan])
        if rng.random() < 0.1:
            a[...] = -np.inf
        if rng.random() < 0.2:
            a = np.round(a)  # ties at the maximum
        for axis in (None, *range(a.ndim)):
            yield a, axis


def test_logsumexp_equals_scipys_bit_for_bit():
    scipy_special = pytest.importorskip("scipy.special")
    n = 0
    for a, axis in _cases(seed=11, n=600):
        want = scipy_special.logsumexp(a, axis=axis)
        got = special.logsumexp(a, axis=axis)
        assert type(got) is type(want)
        assert np.shape(got) == np.shape(want)
        assert np.array_equal(np.asarray(got), np.asarray(want), equal_nan=True), (a, axis)
        n += 1
    assert n > 1500


def test_logsumexp_of_nothing_is_minus_infinity():
    assert special.logsumexp(np.zeros((2, 0)), axis=1).tolist() == [-np.inf, -np.inf]
