"""The built-in logistics-engine maps as project-tree examples (logistics, air, rover).

Registers one :class:`gui.shell.tools.ExampleSpec` per map in ``assets/examples/``: the
fig41 reconstruction and the generated 30-center world (logistics), the airplane-transport
example (thesis §4.7.2: area controllers, boundary airports, a fuel range) and the rover
example (§4.7.3: rovers, private targets, hand-over locations, decaying samples).
Double-clicking one in the Project tree opens the Logistics map tab and adds the map to the
project (an undoable command); the map view then names and marks its nodes in the domain's
words (:mod:`gui.logistics.domain_style`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gui.shell.tools import ExampleSpec, register_example

__all__ = ["EXAMPLE_KEYS", "domain_fallback"]


def domain_fallback(domain: str) -> Callable[[], Any]:
    """A builder of ``domain``'s example world (used if its asset file cannot be read)."""

    def build() -> Any:
        from core.logistics.domains import domain_tasks, generate_domain_world
        from core.logistics.model import LogisticsWorld

        w = generate_domain_world(domain, 8, seed=8)
        return LogisticsWorld(w.graph, name=w.name, tasks=domain_tasks(w, p_package=0.3, rng=8),
                              degree_cap=w.degree_cap, domain=w.domain,
                              domain_params=w.domain_params)

    return build


def _opener(method: str, *args: str) -> Callable[[Any], object]:
    return lambda panel: getattr(panel, method)(*args)


_EXAMPLES = (
    ("logistics:fig41", "Logistics: fig41 (thesis Fig 4.1, reconstruction)", "load_fig41", (),
     "Six military units a–f whose areas meet at public logistic centers A–F (lengths and "
     "layout reconstructed: the thesis's figure carries no numbers)."),
    ("logistics:generated30", "Logistics: generated world, 30 centers", "load_generated30", (),
     "A generated world (30 centers, 30 units with 5 bases each) with one round of "
     "packages."),
    ("logistics:air", "Airplane transport: 8 areas (thesis 4.7.2)", "load_domain", ("air",),
     "Area controllers keep their airports private; boundary airports between two areas are "
     "public; no flight leg is longer than the 600 km fuel range (refuelling airports ⚑); "
     "one round of passengers."),
    ("logistics:rover", "Rover exploration: 8 rovers (thesis 4.7.3)", "load_domain", ("rover",),
     "Each rover's locations and targets (✚) are private; samples change rover only at "
     "hand-over locations (⇄) two rovers reach, and lose half their value every 300 m "
     "driven; one round of samples."),
)

for _key, _title, _method, _args, _tip in _EXAMPLES:
    register_example(ExampleSpec(_key, _title, "logistics", _opener(_method, *_args), _tip))

#: the registered keys, in tree order
EXAMPLE_KEYS = tuple(k for k, *_ in _EXAMPLES)
