"""Privacy plans: budget a whole study before the first release (``docs/privacy-plan.md``).

A plan (:mod:`core.plan.document`) gives a dataset's total (ε, δ) and its planned releases;
:mod:`core.plan.budget` composes them (PLD beside basic composition), forecasts each from
public inputs and allocates the budget; :mod:`core.plan.execute` records the releases in a
project's ledger against the plan.
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
