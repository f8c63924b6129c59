"""Regenerate the logistics maps in ``assets/examples/`` from ``core.logistics.examples``.

* ``fig41.map.json`` — the reconstruction of thesis Fig 4.1 (spec §7.2; lengths invented);
* ``generated30.map.json`` — a generated 30-center world (spec §6.4, seed 30) with one
  round of packages as its tasks;
* ``air.map.json`` — airplane transport (thesis §4.7.2): 8 areas, boundary airports, a fuel
  range of 600 km (longer hops flown through refuelling airports), one round of passengers;
* ``rover.map.json`` — rover exploration (thesis §4.7.3): 8 rovers, private targets,
  two-rover hand-over locations, samples with a half-life of 300 m, one round of samples.

``tests/core/test_logistics_io.py`` checks that the committed files equal what this
script writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.logistics.examples import fig41, generate_tasks, generate_world  # noqa: E402
from core.logistics.io import save_map  # noqa: E402
from core.logistics.model import LogisticsWorld  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "assets" / "examples"
GENERATED_SEED = 30


def generated30() -> LogisticsWorld:
    w = generate_world(30, seed=GENERATED_SEED, name="generated world (N = 30, seed 30)")
    tasks = generate_tasks(w, p_package=0.2, rng=GENERATED_SEED)
    return LogisticsWorld(w.graph, name=w.name, tasks=tasks, degree_cap=w.degree_cap,
                          note="spec §6.4 generator: 30 centers, 30 agents with 5 bases each; "
                               "tasks: one round of packages (p = 0.2 per base)")


def domain_example(domain: str) -> LogisticsWorld:
    """The example map of ``domain`` (8 centers, seed 8) with one round of items (p 0.3)."""
    from core.logistics.domains import domain_tasks, generate_domain_world, profile

    prof = profile(domain)
    w = generate_domain_world(domain, 8, seed=8, name=f"{prof.title}: example (8 "
                              f"{prof.vocabulary.centers}, seed 8)")
    tasks = domain_tasks(w, p_package=0.3, rng=8)
    note = (f"thesis section {prof.section}, generated: " + "; ".join(prof.constraints)
            + f". Tasks: one round of {prof.vocabulary.items} (p = 0.3).")
    return LogisticsWorld(w.graph, name=w.name, tasks=tasks, degree_cap=w.degree_cap,
                          note=note, domain=w.domain, domain_params=w.domain_params)


FILES = {"fig41.map.json": fig41, "generated30.map.json": generated30,
         "air.map.json": lambda: domain_example("air"),
         "rover.map.json": lambda: domain_example("rover")}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in FILES.items():
        save_map(make(), OUT / name)
    print(f"wrote {', '.join(FILES)} to {OUT}")


if __name__ == "__main__":
    main()
