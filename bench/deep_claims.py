"""The seed systems with networks beside the tabular (numpy) versions, over seeds.

Every row is the mean over ``--seeds`` seeds with a 95 % t-interval (``mean [lo, hi]``);
the README's learning sections quote these tables.

* ``mia``: the RNN paper's membership inference on digits — numpy victims (ffnn, rnn) and the
  JAX networks (mlp, gru, lstm, cnn), no defense or DP-SGD at ε = 4 (δ = 1e-5), ``--rows``
  picks the pairs: attack accuracy, AUC, test accuracy.
* ``dqn``: DP-DRL (thesis ch. 5) on random 7×7 maps (one per seed): tabular Q-learning and the
  DQN, no defense and DP-DRL (strict, ε = 0.5), the GA map-recovery attack's NRR and the
  final-stage success.
* ``vdn``: PE-VDN (dissertation ch. 4) on the 3-agent team grid: tables and networks, with and
  without DP-SGD (σ = 1.4539, q = 1/32, window 1024): the final team return and ε.

The PPO kickstarting comparison is the ``share gym:CartPole-v1 --agent ppo`` command itself
(its JSON has the seeds' steps to solve per student type).

Run: ``.venv/bin/python bench/deep_claims.py mia|dqn|vdn [--seeds N]``.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence

import numpy as np
from scipy.stats import t as student_t


def ci(values: Sequence[float]) -> str:
    """``mean [lo, hi]``: the 95 % t-interval of the mean (just the value for one seed)."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], float)
    if v.size == 0:
        return "—"
    if v.size == 1:
        return f"{v[0]:.3f}"
    half = student_t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size)
    return f"{v.mean():.3f} [{v.mean() - half:.3f}, {v.mean() + half:.3f}]"


def mia(seeds: int, rows: Sequence[str]) -> None:
    from core.deep.victims import network_victim
    from core.modelprivacy.data import load_dataset
    from core.modelprivacy.study import MiaSetup, run_mia

    d = load_dataset("digits")
    print(f"membership inference on digits, 4 shadows, seeds 1..{seeds}: mean [95 % CI]")
    print("| victim | defense | attack accuracy | AUC | test accuracy | s per study |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        victim, defense = row.split(":")
        eps = 4.0 if defense == "dpsgd" else None
        acc, auc, test, secs = [], [], [], []
        for s in range(1, seeds + 1):
            t0 = time.perf_counter()
            r = run_mia(d, MiaSetup(victim=victim, defense=defense, epsilon=eps), seed=s,
                        networks=network_victim)
            secs.append(time.perf_counter() - t0)
            acc.append(r.attack_accuracy)
            auc.append(r.auc)
            test.append(r.test_accuracy)
        name = "none" if defense == "none" else f"DP-SGD ε = {eps:g}"
        print(f"| {victim} | {name} | {ci(acc)} | {ci(auc)} | {ci(test)} | "
              f"{np.median(secs):.1f} |", flush=True)


def dqn(seeds: int, episodes: int, agents: Sequence[str] = ("tabular", "dqn")) -> None:
    from core.deep.dqn import DqnSetup, train_dqn
    from core.gridworld.attack import AttackSetup, recover_map
    from core.gridworld.dpdrl import DrlSetup, train_agent
    from core.gridworld.maps import random_map

    print(f"DP-DRL on random 7x7 maps (one per seed, 1..{seeds}), {episodes} episodes, GA "
          "100 x 200: mean [95 % CI]")
    print("| agent | defense | NRR | final success | s per run |")
    print("|---|---|---|---|---|")
    for agent in agents:
        for defense, eps in (("none", None), ("dpdrl", 0.5)):
            nrr, succ, secs = [], [], []
            for s in range(1, seeds + 1):
                grid = random_map(7, 7, np.random.default_rng(s))
                setup = DrlSetup(defense=defense, epsilon=eps, episodes=episodes)
                t0 = time.perf_counter()
                res = (train_agent(grid, setup, seed=s) if agent == "tabular"
                       else train_dqn(grid, setup, DqnSetup(), seed=s))
                att = recover_map(grid, res.policy(), AttackSetup(), seed=s + 1)
                secs.append(time.perf_counter() - t0)
                nrr.append(att.nrr)
                succ.append(res.to_json()["success_final"])
            name = "none" if defense == "none" else f"DP-DRL ε = {eps:g}"
            print(f"| {agent} | {name} | {ci(nrr)} | {ci(succ)} | {np.median(secs):.1f} |",
                  flush=True)


def vdn(seeds: int, episodes: int) -> None:
    from core.comarl.vdn import VdnSetup, team_grid, train_vdn
    from core.deep.vdn import train_vdn_net

    print(f"PE-VDN, 3 agents on the 7x7 team grid (one per seed, 1..{seeds}), {episodes} "
          "episodes: mean [95 % CI]")
    print("| learners | DP-SGD | team return (last 10 %) | ε per transition | s per run |")
    print("|---|---|---|---|---|")
    for agent in ("tables", "networks"):
        for dp in (False, True):
            ret, eps, secs = [], [], []
            for s in range(1, seeds + 1):
                team = team_grid(3, seed=s)
                setup = VdnSetup(episodes=episodes, dp=dp, sigma=1.4539, window=1024,
                                 sample_rate=1 / 32)
                t0 = time.perf_counter()
                res = (train_vdn(team, setup, seed=s) if agent == "tables"
                       else train_vdn_net(team, setup, seed=s))
                secs.append(time.perf_counter() - t0)
                ret.append(res.team_return)
                eps.append(res.epsilon if res.epsilon is not None else math.inf)
            e = "unbounded" if not dp else f"{eps[0]:.2f}"
            print(f"| {agent} | {'σ = 1.4539' if dp else 'no'} | {ci(ret)} | {e} | "
                  f"{np.median(secs):.1f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("part", choices=("mia", "dqn", "vdn"))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--episodes", type=int, default=None)
    ap.add_argument("--agents", default="tabular,dqn", help="dqn: the learners")
    ap.add_argument("--rows", default="ffnn:none,rnn:none,mlp:none,gru:none,lstm:none,"
                    "cnn:none,ffnn:dpsgd,rnn:dpsgd,mlp:dpsgd,gru:dpsgd,lstm:dpsgd",
                    help="victim:defense pairs (defense none or dpsgd at epsilon 4)")
    args = ap.parse_args()
    if args.part == "mia":
        mia(args.seeds, args.rows.split(","))
    elif args.part == "dqn":
        dqn(args.seeds, args.episodes or 600, args.agents.split(","))
    else:
        vdn(args.seeds, args.episodes or 400)


if __name__ == "__main__":
    main()
