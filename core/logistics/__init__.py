"""DP multi-agent route planning for logistic-like problems (thesis Chapter 4;
``docs/reference-values.md`` chapter L).

Modules: :mod:`~core.logistics.model` (world, tasks, validation), :mod:`~core.logistics.io`
(``*.map.json``), :mod:`~core.logistics.examples` (fig41 reconstruction, generator),
:mod:`~core.logistics.obfuscation` (Alg 7, Eq. 4.2), :mod:`~core.logistics.route_rl`
(Alg 8, crossing estimates), :mod:`~core.logistics.planner` (the three steps, sessions),
:mod:`~core.logistics.strategy` (the public strategy API a session offers its approaches:
results, message counts, the session protocol), :mod:`~core.logistics.baselines`
(Best-first, Greedy), :mod:`~core.logistics.routing`
(packet-routing dynamics), :mod:`~core.logistics.domains` (the domain profiles of §4.7:
logistics, packet, air, rover), :mod:`~core.logistics.experiments` (B1–B5),
:mod:`~core.logistics.route_claims` (the route comparisons as a paired, Holm-tested study),
:mod:`~core.cli.logistics` (``plan``, ``plan-bench``), :mod:`~core.logistics.randomness`
(the release-mode CSPRNG for the choices that shape a released map).

The common names are re-exported lazily (importing this package stays cheap, so the
command line starts fast).
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
