"""DP-DRL and PE-VDN benchmarks.

* One DP-DRL training on a 9×9 map plus the map-recovery attack: wall time against the 60 s
  target (2 cores).
* ``--table``: the comparison in the shape of the thesis's Tables 5.1 and 5.3 (no defense,
  ε = 1.0, 0.7, 0.4, 0.1, dynamic ε) on random 7×7, 9×9 and 11×11 maps and the 12×11 stand-in,
  with the thesis's numbers beside ours.
* PE-VDN against plain (central) VDN on the same team: the overhead ratio of secure summation.

Run: ``.venv/bin/python bench/drl.py [--table] [--seed S]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from core.comarl.vdn import VdnSetup, team_grid, train_vdn
from core.gridworld.attack import AttackSetup, recover_map
from core.gridworld.dpdrl import DrlSetup, train_agent
from core.gridworld.experiments import defense_sweep
from core.gridworld.maps import example_12x11, random_map

THESIS_NRR = {"No defense": (88.74, 78.99, 77.89, 76.78), "ε = 1": (86.12, 75.36, 75.90, 74.91),
              "ε = 0.7": (79.20, 73.17, 71.81, 70.55), "ε = 0.4": (75.09, 69.10, 66.76, 66.09),
              "ε = 0.1": (70.25, 67.12, 65.12, 65.07),
              "Dynamic ε (thesis)": (70.97, 68.46, 66.05, 65.72)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    m = random_map(9, 9, np.random.default_rng(args.seed))
    t = time.perf_counter()
    res = train_agent(m, DrlSetup(defense="dpdrl", epsilon=0.5), seed=args.seed)
    t_train = time.perf_counter() - t
    att = recover_map(m, res.policy(), AttackSetup(), seed=args.seed + 1)
    total = time.perf_counter() - t
    print(f"9x9 DP-DRL training {t_train:.1f} s + attack {att.elapsed_s:.1f} s = {total:.1f} s "
          f"(target 60 s; {total / 60:.2f} of it); NRR {att.nrr:.3f}")
    plain = train_agent(m, DrlSetup(), seed=args.seed)
    print(f"per step: DRL {plain.time_per_step_s * 1e6:.1f} us, DP-DRL obfuscation "
          f"{res.obfuscation_s_per_step * 1e6:.1f} us "
          f"({res.obfuscation_s_per_step / plain.time_per_step_s:.2f}x a DRL step; thesis: "
          "1.7 % of a DQN step)")
    team = team_grid(3, seed=args.seed)
    pe = train_vdn(team, VdnSetup(episodes=200), seed=args.seed)
    central = train_vdn(team, VdnSetup(episodes=200), seed=args.seed, central=True)
    print(f"PE-VDN {pe.seconds:.2f} s vs VDN {central.seconds:.2f} s on {pe.updates} updates: "
          f"overhead x{pe.seconds / central.seconds:.2f} (secure summation per update); "
          f"max |A_PE - A| {pe.max_diff:.1e}")
    if not args.table:
        return
    maps = [("7x7", random_map(7, 7, np.random.default_rng(args.seed))),
            ("9x9", m), ("11x11", random_map(11, 11, np.random.default_rng(args.seed))),
            ("12x11", example_12x11())]
    results = {}
    for name, g in maps:
        t = time.perf_counter()
        results[name] = defense_sweep(g, seed=args.seed)
        print(f"{name}: {time.perf_counter() - t:.0f} s")
    labels = [r.label for r in results["9x9"]]
    print("\n| Defense | " + " | ".join(f"{n} GRR | {n} NRR (thesis)" for n, _ in maps) + " |")
    print("|---|" + "---|---|" * len(maps))
    for i, lab in enumerate(labels):
        cells = []
        for j, (name, _) in enumerate(maps):
            r = results[name][i].to_json()
            th = THESIS_NRR.get(lab, (None,) * 4)[j]
            cells.append(f"{100 * r['grr']:.1f} % | {100 * r['nrr']:.1f} % ({th} %)")
        print(f"| {lab} | " + " | ".join(cells) + " |")
    print("\n12x11 utility (Table 5.3 shape)\n")
    print("| Defense | Initial avg reward | Initial avg steps | Final avg reward | Final avg "
          "steps | Final success | DP-DRL us/step | DRL us/step |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results["12x11"]:
        j = r.to_json()
        ob = "N/A" if j["obfuscation_s_per_step"] is None else \
            f"{j['obfuscation_s_per_step'] * 1e6:.1f}"
        print(f"| {j['label']} | {j['reward_initial']:.3f} | {j['steps_initial']:.1f} | "
              f"{j['reward_final']:.3f} | {j['steps_final']:.1f} | {j['success_final']:.2f} | "
              f"{ob} | {j['time_per_step_s'] * 1e6:.1f} |")


if __name__ == "__main__":
    main()
