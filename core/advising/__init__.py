"""DP advising between simultaneously learning agents (thesis Ch. 3; docs/reference-values.md A).

* :mod:`core.advising.model`: :class:`AdvisingSetup`, :class:`AdvisingParams`, neighbour cases.
* :mod:`core.advising.framework`: the engine (:func:`run_advising`), Algorithms 3–5, one
  advice query (:func:`advice_query`, also what :mod:`core.audit.advising` audits) and the
  privacy proof of the sound variant.
* :mod:`core.advising.accounting`: per-teacher basic / advanced / RDP composition; raw
  releases are unbounded (∞ with a reason), never free.
* :mod:`core.advising.presets`: Table 3.5, the §5.6 layouts, Experiments 1–3, Tables 3.1–3.4.
* :mod:`core.advising.experiments`: many seeds per configuration, CIs, ε sweeps.
* :mod:`core.advising.claims`: the thesis's claims and whether our runs reproduce them.
* :mod:`core.cli.advising`: the ``advise`` and ``advise-bench`` subcommands.
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
