"""Model privacy lab benchmarks.

* A complete membership-inference study on digits (victim + 4 shadows + attack + inversion),
  for the feed-forward and the recurrent victim: wall time against the 30 s target.
* The one-parameter defense's cost per released vector, against the victim's own forward
  pass per vector in the same run (ratio printed), and against the 1 ms target.
* ``--table``: the defense comparison (Table 6.2's shape) for both victims, as Markdown.

Run: ``.venv/bin/python bench/mia.py [--table] [--seed S]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from core.modelprivacy.data import load_dataset
from core.modelprivacy.defenses import oneparam_release
from core.modelprivacy.models import Network, TrainConfig, train
from core.modelprivacy.records import TABLE_COLUMNS, table_cells
from core.modelprivacy.study import MiaSetup, defense_table, run_mia


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    data = load_dataset("digits")
    print("complete study on digits (victim + 4 shadows + attack + inversion), target < 30 s")
    for victim in ("ffnn", "rnn"):
        t = time.perf_counter()
        r = run_mia(data, MiaSetup(victim=victim), seed=args.seed)
        el = time.perf_counter() - t
        print(f"  {victim:5s} {el:6.2f} s  ({el / 30:.2f} of the budget)  attack accuracy "
              f"{r.attack_accuracy:.3f}, AUC {r.auc:.3f}, test accuracy {r.test_accuracy:.3f}")

    net = Network("ffnn", (64,), 10, 32)
    th = train(net, data.X[:224], data.y[:224], TrainConfig(epochs=30),
               rng=np.random.default_rng(0))
    X = data.X
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        y = net.predict_proba(th, X)
    fwd = (time.perf_counter() - t) / (reps * X.shape[0])
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    for _ in range(reps):
        oneparam_release(y, 0.7, rng)
    op = (time.perf_counter() - t) / (reps * X.shape[0])
    t = time.perf_counter()
    for i in range(500):
        oneparam_release(y[i:i + 1], 0.7, rng)
    single = (time.perf_counter() - t) / 500
    print(f"one-parameter defense: {op * 1e6:.2f} us per vector in batches ({op / fwd:.1f}x the "
          f"victim's forward pass, {fwd * 1e6:.2f} us); {single * 1e6:.1f} us for a single "
          f"vector (target < 1000 us)")
    if not args.table:
        return
    for victim in ("ffnn", "rnn"):
        t = time.perf_counter()
        rows = defense_table(data, MiaSetup(victim=victim), seed=args.seed)
        print(f"\n### {victim} on digits, seed {args.seed} ({time.perf_counter() - t:.0f} s)\n")
        print("| " + " | ".join(TABLE_COLUMNS) + " |")
        print("|" + "---|" * len(TABLE_COLUMNS))
        for cells in table_cells([r.to_json() for r in rows]):
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
