"""The study runner: seeded, paired replicates of compared arms, with intervals and tests.

Every experiment capability runs its many-seed studies through this package (see
``docs/study-runner.md``): :class:`Arm` and :class:`Study` say what to run,
:func:`run_study` runs it through the executor seam (inline, process pool or dask),
:class:`StudyResult` holds every run's values and seeds, :class:`Claim` and
:func:`evaluate_claims` test the verdicts a table states, :func:`verdict_stability`
re-runs them under other master seeds, and :mod:`core.study.tables` prints them with their
intervals.
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
