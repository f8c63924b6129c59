"""The study runner: seeded, paired replicates of compared arms, with intervals and tests.

Every experiment capability runs its many-seed studies through this package (see
``docs/study-runner.md``): :class:`Arm` and :class:`Study` say what to run,
:func:`run_study` runs it through the executor seam (inline, process pool or dask),
:class:`StudyResult` holds every run's values and seeds, :class:`Claim` and
:func:`evaluate_claims` test the verdicts a table states, :func:`verdict_stability`
re-runs them under other master seeds, and :mod:`core.study.tables` prints them with their
intervals.
"""

from core.study.claims import Claim, ClaimResult, Stability, evaluate_claims, verdict_stability
from core.study.runner import Arm, Study, StudyResult, point_label, run_study
from core.study.seeds import derive_seeds
from core.study.stats import (
                              TESTS,
                              Comparison,
                              Equivalence,
                              Summary,
                              clopper_pearson,
                              equivalence_test,
                              holm,
                              median_interval,
                              paired_test,
                              summarize,
)
from core.study.tables import claims_table, interval_series, summary_rows, summary_table

__all__ = ["Arm", "Study", "StudyResult", "run_study", "point_label", "derive_seeds",
           "Claim", "ClaimResult", "Stability", "evaluate_claims", "verdict_stability",
           "TESTS", "Comparison", "Equivalence", "Summary", "summarize", "paired_test",
           "equivalence_test", "holm", "median_interval", "clopper_pearson",
           "summary_table", "claims_table", "interval_series", "summary_rows"]
