"""Networks on JAX (the optional deep extra): DP-SGD's cost and PPO's time to solve.

* **DP-SGD epoch vs the non-private epoch** of the same network on digits (1,437 training
  records, batch 64, the same number of steps): per-example clipping (the MLP: closed-form
  per-example norms and one hand-written backward pass; ``mlp (vmap)`` and the other networks:
  ``vmap`` of ``grad``), Poisson sampling and the noise, against one mean-gradient step per
  batch. Both are compiled
  before the clock starts (a warm-up epoch); the median of ``--repeat`` epochs is reported,
  as wall time and as process CPU time (XLA runs single-threaded here, so CPU time is the
  work done and is robust to a busy machine). Target: the MLP's ratio <= 2.
* **PPO on CartPole-v1**: wall time (compilation included) and environment steps until the
  mean return of the last 100 episodes reaches gymnasium's solved return (475). Target:
  within 5 minutes on 2 cores.
* ``--study``: a complete membership-inference study (victim + 4 shadows + attack +
  inversion) on digits for each network victim.
* ``bench/deep_claims.py``: the seed systems' claims, deep beside tabular, over seeds.

Run: ``.venv/bin/python bench/deep.py [--repeat N] [--seeds N] [--study]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def _epochs(trainer, X, y, repeat: int) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    theta = trainer.fit(X, y, rng=rng)                 # warm-up: compiles
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        theta = trainer.fit(X, y, rng=rng, theta0=theta)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def epoch_table(repeat: int) -> None:
    from core.deep.dpsgd import DpTrainer
    from core.deep.nets import build_network
    from core.modelprivacy.data import load_dataset
    from core.modelprivacy.models import DpSgd, TrainConfig

    d = load_dataset("digits")
    X, y = d.X[:1437], d.y[:1437]
    cfg = TrainConfig(epochs=1, batch=64, lr=0.1, momentum=0.9)
    print("one epoch on digits (1,437 records, batch 64, 23 steps), median of "
          f"{repeat}; DP-SGD: Poisson q = 64/1437, sigma = 1, C = 1")
    print(f"{'network':11s} {'params':>6s} {'plain wall':>11s} {'DP wall':>9s} {'ratio':>6s} "
          f"{'plain CPU':>10s} {'DP CPU':>8s} {'ratio':>6s}")
    for kind, clipping in (("mlp", "auto"), ("mlp", "vmap"), ("cnn", "auto"), ("gru", "auto"),
                           ("lstm", "auto")):
        net = build_network(kind, d, hidden=64)
        pw, pc = _epochs(DpTrainer(net, cfg), X, y, repeat)
        dw, dc = _epochs(DpTrainer(net, cfg, DpSgd(1.0, 1.0), clipping=clipping), X, y, repeat)
        name = kind if clipping == "auto" else f"{kind} (vmap)"
        flag = ("  (target <= 2: " + ("MET" if dc / pc <= 2 else "NOT MET") + ")"
                if name == "mlp" else "")
        print(f"{name:11s} {net.size:6d} {pw * 1e3:9.1f}ms {dw * 1e3:7.1f}ms {dw / pw:5.2f}x "
              f"{pc * 1e3:8.1f}ms {dc * 1e3:6.1f}ms {dc / pc:5.2f}x{flag}", flush=True)


def ppo_solve(seeds: int) -> None:
    from core.deep.ppo import PpoConfig, train_ppo

    print("PPO on CartPole-v1 (64x64 tanh, 4 environments x 128 steps, Adam 1e-3 annealed): "
          "until the last 100 episodes average >= 475; target 300 s")
    for s in range(seeds):
        w, c = time.perf_counter(), time.process_time()
        run = train_ppo("CartPole-v1", PpoConfig(), iterations=800, seed=s,
                        stop_when_solved=True)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        solved = ("not solved in 800 roll-outs" if run.solved_at is None else
                  f"solved after {run.solved_at} steps in {run.solved_s:.1f} s wall")
        print(f"  seed {s}: {solved} (run {wall:.1f} s wall, {cpu:.1f} s CPU, "
              f"{run.episodes} episodes)")


def study() -> None:
    from core.deep.victims import network_victim
    from core.modelprivacy.data import load_dataset
    from core.modelprivacy.study import MiaSetup, run_mia

    d = load_dataset("digits")
    print("complete study on digits (victim + 4 shadows + attack + inversion)")
    for kind in ("mlp", "cnn", "gru", "lstm"):
        t = time.perf_counter()
        r = run_mia(d, MiaSetup(victim=kind), seed=1, networks=network_victim)
        el = time.perf_counter() - t
        print(f"  {kind:5s} {el:6.1f} s  attack accuracy {r.attack_accuracy:.3f}, AUC "
              f"{r.auc:.3f}, test accuracy {r.test_accuracy:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=1, help="PPO seeds")
    ap.add_argument("--study", action="store_true")
    ap.add_argument("--skip-ppo", action="store_true")
    args = ap.parse_args()
    epoch_table(args.repeat)
    if not args.skip_ppo:
        ppo_solve(args.seeds)
    if args.study:
        study()


if __name__ == "__main__":
    main()
