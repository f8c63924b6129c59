"""Input hardening: each input below crashed (exit 1), imported code, ran unbounded or was
accepted though wrong. Each is now a one-line refusal naming the flag, field or file (exit
2), or a right answer."""

from __future__ import annotations

import builtins
import json
import os
import sys
from pathlib import Path

import pytest
from cli_run import cli

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "assets" / "examples"
FOUR = EXAMPLES / "four_startups.mdp.json"
sys.path.insert(0, str(ROOT / "tests" / "core" / "fuzz"))


def refused(*argv: object, match: str = "", code: int = 2) -> str:
    got, out, err = cli(*argv)
    assert got == code, (got, out[:300], err)
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "internal error" not in err and "Traceback" not in err
    assert match.lower() in err.lower(), err
    return err


# ------------------------------------------------------------------ k and b: one range
@pytest.mark.parametrize("k", ["1.7976931348623157e308", "1e300", "1.0000001e12"])
def test_bounds_k_beyond_the_documented_ceiling_is_refused(k: str) -> None:
    refused("bounds", FOUR, "--k", k, "--beta", "0.1", "--json",
            match="--k: must lie in (0, 1e+12]")


def test_k_ceiling_holds_wherever_k_is_taken(tmp_path: Path) -> None:
    refused("sweep", FOUR, "--k", "10,1e13", "--runs", "2", "--seed", "1", "--json",
            match="--k")
    refused("privatize", FOUR, "--k", "1e300", "--seed", "1", "-o", tmp_path / "o.mdp.json",
            match="--k")
    refused("export", FOUR, "--format", "prism-interval", "--k", "1e300", "--beta", "0.1",
            "-o", tmp_path / "x", match="--k")
    from core.common.errors import InputError
    from core.common.validation import K_MAX, check_k

    assert check_k(K_MAX) == K_MAX
    with pytest.raises(InputError):
        check_k(K_MAX * 1.0000001)


def test_bounds_at_the_ceiling_still_answers() -> None:
    code, out, err = cli("bounds", FOUR, "--k", "1e12", "--beta", "0.1", "--json")
    assert code == 0, err
    assert json.loads(out)["v_private"]


@pytest.mark.parametrize("b", ["4.9e-324", "1e-300", "9e-13"])
def test_design_refuses_a_subnormal_or_tiny_b(b: str) -> None:
    refused("design", FOUR, "--epsilon", "1", "--delta", "1e-5", "--b", b, "--json",
            match="--b: must lie in [1e-12, 1]")


@pytest.mark.parametrize("b", ["1e-12", "1e-6"])
def test_design_at_small_b_answers_with_positive_epsilons(b: str) -> None:
    code, out, err = cli("design", FOUR, "--epsilon", "1", "--delta", "1e-5", "--b", b,
                         "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert all(0 < p["epsilon"] <= 1 for p in payload["frontier"])
    if b == "1e-6":
        assert payload["recommended"] is not None


# ------------------------------------------------------------------ accountant
def test_pld_accountant_refuses_a_sigma_its_grid_cannot_hold() -> None:
    refused("accountant", "dpsgd", "--sigma", "1e-300", "--sample-rate", "1", "--method",
            "pld", "--steps", "10", "--delta", "1e-5", "--json", match="--sigma")


def test_pld_at_a_small_sigma_is_an_upper_bound_near_rdp() -> None:
    """The coarser grid below σ ≈ 0.14 stays pessimistic: ε above zero and within the RDP
    bound's order (PLD is tighter than RDP, never looser by much)."""
    from core.privacy.dpsgd import dpsgd_epsilon

    pld = dpsgd_epsilon(0.01, 1.0, 10, 1e-5, method="pld").epsilon
    rdp = dpsgd_epsilon(0.01, 1.0, 10, 1e-5, method="rdp").epsilon
    assert pld is not None and rdp is not None
    assert 0.5 * rdp < pld <= 1.05 * rdp


# ------------------------------------------------------------------ mia
def test_mia_diverging_learning_rate_is_refused_naming_lr(tmp_path: Path) -> None:
    import mutants

    data = tmp_path / "d.csv"
    data.write_bytes(mutants.dumps_csv(mutants.csv_rows()))
    refused("mia", "--data", data, "--lr", "1.79e308", "--epochs", "2", "--shadows", "1",
            "--seed", "1", "--json", match="--lr: training diverged")


# ------------------------------------------------------------------ ledgers
def _project(tmp_path: Path, **entry: object) -> Path:
    d = json.loads((EXAMPLES / "builtin.privplan.json").read_text())
    e = {"id": "rel-1", "dataset": "d", "mechanism": "laplace", "epsilon": 1.0}
    e.update(entry)
    d["project"]["ledger"] = [e]
    path = tmp_path / "p.privplan.json"
    path.write_text(json.dumps(d))
    return path


@pytest.mark.parametrize("entry, match", [
    ({"source": None}, "source must be a string"),
    ({"id": ""}, "id must be a non-empty string"),
    ({"id": "  "}, "id must be a non-empty string"),
    ({"mode": None}, "mode must be"),
    ({"parameters": []}, "parameters must be an object"),
    ({"seed": "7"}, "seed must be an integer"),
])
def test_hostile_ledger_entries_are_refused(tmp_path: Path, entry: dict, match: str) -> None:
    err = refused("report", _project(tmp_path, **entry), "-o", tmp_path / "r.html", "--json",
                  match=match)
    assert "p.privplan.json" in err


def test_a_well_formed_ledger_still_reports(tmp_path: Path) -> None:
    code, out, err = cli("report", _project(tmp_path, source="audit:laplace"), "-o",
                         tmp_path / "r.html", "--json")
    assert code == 0, err


# ------------------------------------------------------------------ logistics roles
def _map(tmp_path: Path, name: str, role: object) -> Path:
    d = json.loads((EXAMPLES / name).read_text())
    next(n for n in d["nodes"] if n["kind"] == "base")["role"] = role
    path = tmp_path / name
    path.write_text(json.dumps(d))
    return path


@pytest.mark.parametrize("name", ["fig41.map.json", "air.map.json"])
@pytest.mark.parametrize("role", ["hangar", "", None])
def test_unknown_base_roles_are_refused_naming_the_node(tmp_path: Path, name: str,
                                                        role: object) -> None:
    path = _map(tmp_path, name, role)
    refused("plan", path, "--origin", "a1", "--goal-agent", "f", "--epsilon", "1", "--seed",
            "1", "--json", match=".role")
    if name == "fig41.map.json":  # packet routing reads the same logistics map
        refused("plan", path, "--origin", "a1", "--goal-agent", "f", "--epsilon", "1",
                "--seed", "1", "--domain", "packet", "--json", match=".role")


def test_known_air_roles_still_load(tmp_path: Path) -> None:
    from core.logistics.io import load_map

    assert load_map(_map(tmp_path, "air.map.json", "airport")).domain == "air"


# ------------------------------------------------------------------ share --agent ppo
def test_gym_module_id_is_refused_without_importing_it(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    pytest.importorskip("gymnasium")
    pytest.importorskip("jax")
    monkeypatch.delitem(sys.modules, "this", raising=False)
    code, out, err = cli("share", "gym:this:Foo", "--agent", "ppo", "--json")
    assert code == 2 and err.count("\n") == 1, (code, out[:200], err)
    # under --json stdout holds exactly the one error object
    assert json.loads(out)["error"]["field"] == "ENV" and out.count("\n") == 1, out
    assert "--unsafe-gym-module" in err
    assert "this" not in sys.modules


@pytest.mark.parametrize("env, match", [("gym:FrozenLake-v1:1000x1000", "ENV"),
                                        ("gym:Nope-v0", "not a registered gymnasium id")])
def test_ppo_takes_registered_ids_only(env: str, match: str) -> None:
    pytest.importorskip("gymnasium")
    pytest.importorskip("jax")
    refused("share", env, "--agent", "ppo", "--json", match=match)


def test_registered_id_never_reaches_gymnasium_make_for_a_module_id() -> None:
    pytest.importorskip("gymnasium")
    pytest.importorskip("equinox")  # core.deep.ppo is the deep extra's (JAX, equinox)
    from core.common.errors import InputError
    from core.deep.ppo import registered_id, solved_return

    for bad in ("this:Foo", "antigravity:X", "os:CartPole-v1"):
        with pytest.raises(InputError):
            registered_id(bad)
        with pytest.raises(InputError):
            solved_return(bad)
    assert "antigravity" not in sys.modules
    assert registered_id("CartPole-v1") == "CartPole-v1"


def _without(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    real = builtins.__import__

    def fake(mod: str, *a: object, **kw: object) -> object:
        if mod == name or mod.startswith(name + "."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(mod, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", fake)
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_missing_gymnasium_names_the_deep_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("jax")
    _without(monkeypatch, "gymnasium")
    err = refused("share", "gym:CartPole-v1", "--agent", "ppo", "--json",
                  match="privplan[deep]")
    assert "gymnasium" in err


def test_missing_jax_names_the_deep_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "jax" else real(name, *a))
    err = refused("share", "gym:CartPole-v1", "--agent", "ppo", "--json",
                  match="privplan[deep]")
    assert "jax" in err


def test_deep_extra_brings_gymnasium_with_the_gym_extras_spec() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    gym_spec = [d for d in extras["gym"] if d.startswith("gymnasium")]
    assert gym_spec and set(gym_spec) <= set(extras["deep"])


# ------------------------------------------------------------------ more wrong acceptances
def test_comarl_nan_delta_is_refused_without_dp() -> None:
    refused("comarl", "--delta", "nan", "--episodes", "2", "--json", match="--delta")


@pytest.mark.parametrize("bad", [True, False])
def test_policy_file_with_booleans_is_refused(tmp_path: Path, bad: bool) -> None:
    from core.mdp.files import load_mdp

    mdp = load_mdp(FOUR)
    T, S, A = mdp.horizon, mdp.n_states, mdp.n_actions
    table = [[[1.0] + [0.0] * (A - 1) for _ in range(S)] for _ in range(T)]
    table[0][0][0] = bad
    if not bad:
        table[0][0][1] = 1.0
    pol = tmp_path / "pi.json"
    pol.write_text(json.dumps({"policy": table}))
    refused("bounds", FOUR, "--k", "100", "--beta", "0.1", "--policy", pol, "--json",
            match="true/false")
    table[0][0][0] = float(bad)
    pol.write_text(json.dumps({"policy": table}))
    code, _, err = cli("bounds", FOUR, "--k", "100", "--beta", "0.1", "--policy", pol, "--json")
    assert code == 0, err


_DRN = ("@type: MDP\n@parameters\n\n@reward_models\ntime cost\n@nr_states\n2\n@nr_choices\n2\n"
        "@model\nstate 0 [0, 0] init\n\taction go {}\n\t\t1 : 1\nstate 1 [0, 0] goal\n"
        "\taction stay [0, 0]\n\t\t1 : 1\n")


def test_drn_action_with_fewer_rewards_than_models_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.drn"
    path.write_text(_DRN.format("[1]"))
    err = refused("import", path, "-o", tmp_path / "m.mdp.npz", "--horizon", "3", "--json",
                  match="1 rewards for 2 reward model(s)")
    assert "m.drn" in err
    path.write_text(_DRN.format("[1, 2]"))
    code, _, err = cli("import", path, "-o", tmp_path / "m.mdp.npz", "--horizon", "3",
                       "--json")
    assert code == 0, err


def test_messages_show_plain_numbers_not_numpy_reprs(tmp_path: Path) -> None:
    import numpy as np

    from core.common.errors import InputError

    e = InputError(f"probability {np.float64(-0.0)!r} at {np.int64(3)!r}", field="p")
    assert str(e) == "p: probability -0.0 at 3"
    tra = tmp_path / "m.tra"
    tra.write_text("2 2 2\n0 0 1 -0.0\n1 0 1 1\n")
    err = refused("import", tra, "-o", tmp_path / "m.mdp.npz", "--horizon", "3", "--json",
                  match="must be positive")
    assert "np." not in err


# ------------------------------------------------------------------ batch bombs
@pytest.mark.parametrize("argv, flag", [
    (["plan-bench", "B4", "--worlds", "100000000"], "--worlds"),
    (["plan-bench", "all", "--worlds", "1000000", "--workers", "1"], "--worlds"),
    (["advise-bench", "--seeds", "100000000"], "--seeds"),
    (["advise-bench", "--seeds", "20000", "--workers", "1"], "--seeds"),
    (["sweep", str(FOUR), "--k", "10,100", "--runs", "1000000", "--seed", "1"], "--runs"),
])
def test_batch_commands_are_refused_up_front_saying_how_long(argv: list[str], flag: str
                                                            ) -> None:
    import time

    t0 = time.monotonic()
    err = refused(*argv, "--json", match=flag)
    # the time it would take, or (advise-bench's curves) the memory it would need first
    assert ("of computation" in err and "PRIVPLAN_TIME_LIMIT_S" in err) or "of memory" in err
    assert time.monotonic() - t0 < 30  # refused before any run


def test_default_batches_fit_the_default_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The up-front estimates are low ends: the documented defaults are not refused."""
    from core.cli.guard import ADVISE_STEP_S, PLAN_RUN_S, check_batch
    from core.common.resources import DEFAULT_TIME_LIMIT_S

    monkeypatch.delenv("PRIVPLAN_TIME_LIMIT_S", raising=False)
    check_batch(50 * 7 * 3, PLAN_RUN_S, "--worlds", workers=1, what="runs")  # B1 default
    check_batch(20 * 84_000, ADVISE_STEP_S, "--seeds", workers=1, what="agent-epochs")
    assert 20 * 84_000 * ADVISE_STEP_S < DEFAULT_TIME_LIMIT_S


def test_unsafe_flag_imports_the_named_module_and_takes_its_registered_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("gymnasium")
    pytest.importorskip("equinox")  # core.deep.ppo is the deep extra's (JAX, equinox)
    import argparse

    from core.cli.deep import _ppo_env_id
    from core.common.errors import InputError

    (tmp_path / "privplan_test_envs.py").write_text(
        "import gymnasium\n"
        "gymnasium.register(id='PrivplanTest-v0', "
        "entry_point='gymnasium.envs.classic_control.cartpole:CartPoleEnv')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    env = "gym:privplan_test_envs:PrivplanTest-v0"
    with pytest.raises(InputError, match="--unsafe-gym-module"):
        _ppo_env_id(argparse.Namespace(env=env, unsafe_gym_module=False))
    assert "privplan_test_envs" not in sys.modules
    got = _ppo_env_id(argparse.Namespace(env=env, unsafe_gym_module=True))
    assert got == "PrivplanTest-v0" and "privplan_test_envs" in sys.modules
    import gymnasium

    del gymnasium.envs.registration.registry["PrivplanTest-v0"]


def test_a_pool_never_starts_more_processes_than_chunks_or_cpus(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """advise-bench --workers 1_000 hung starting idle interpreters."""
    from concurrent.futures import ThreadPoolExecutor

    import core.common.parallel as par

    sizes: list[int] = []

    def fake(workers: int, shared: bytes = b"") -> ThreadPoolExecutor:
        sizes.append(workers)
        return ThreadPoolExecutor(workers)

    monkeypatch.setattr(par, "default_executor", fake)
    got: dict[int, int] = {}
    par.run_chunks(abs, [-1, -2], lambda t: (t,), lambda t, r: got.update({t: r}),
                   inline=False, workers=1000)
    assert got == {-1: 1, -2: 2} and sizes == [min(2, os.cpu_count() or 1)]


def test_dirichlet_subnormal_eta_is_refused_not_crashing() -> None:
    """Found by the campaign (seed 104): an infinite sum in the privacy profile."""
    refused("dirichlet", "--k", "100", "--eta", "5e-324", "--w", "2", "--b", "0.5", "--delta",
            "0.01", "--json", match="--eta")


def test_a_module_id_is_refused_before_the_deep_extra_loads() -> None:
    # found by the fuzz campaign: the refusal imported core.deep.ppo (JAX) first, which under
    # load took past the campaign's 60 s; the id's form is checked before anything loads
    import subprocess

    code = ("import sys, argparse\n"
            "from core.cli.deep import _ppo_env_id\n"
            "from core.common.errors import InputError\n"
            "try:\n"
            "    _ppo_env_id(argparse.Namespace(env='gym:os:CartPole-v1', "
            "unsafe_gym_module=False))\n"
            "except InputError as exc:\n"
            "    print(exc.field, 'core.deep.ppo' in sys.modules, 'jax' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[3], timeout=120)
    assert proc.stdout.split() == ["ENV", "False", "False"], proc.stderr
