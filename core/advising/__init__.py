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

from core.advising.accounting import (
    ACCOUNTANTS,
    ADJACENCY,
    DEFAULT_DELTA,
    AdvisingAccounting,
    AgentPrivacy,
    account_advising,
)
from core.advising.claims import THESIS_CLAIMS, check_claims
from core.advising.experiments import (
    UNBOUNDED_SPENT,
    ExperimentResult,
    ci95,
    epsilon_sweep,
    run_experiment,
)
from core.advising.framework import AdvisingResult, advice_query, run_advising
from core.advising.model import (
    CASE_NAMES,
    VARIANT_KNOBS,
    AdvisingParams,
    AdvisingSetup,
    neighbour_case,
)
from core.advising.presets import (
    EXP3_EPSILONS,
    ExperimentArm,
    WorkedExample,
    experiment_arms,
    preset,
    table35_params,
    worked_example,
)
from core.advising.records import (
    RUN_TARGET,
    experiment_ledger_entries,
    experiment_summary,
    randomness_text,
    rounded_json,
    single_summary,
)

__all__ = [
    "ACCOUNTANTS",
    "CASE_NAMES",
    "DEFAULT_DELTA",
    "EXP3_EPSILONS",
    "RUN_TARGET",
    "UNBOUNDED_SPENT",
    "VARIANT_KNOBS",
    "WorkedExample",
    "ci95",
    "experiment_ledger_entries",
    "experiment_summary",
    "randomness_text",
    "rounded_json",
    "single_summary",
    "table35_params",
    "ADJACENCY",
    "AdvisingAccounting",
    "AdvisingParams",
    "AdvisingResult",
    "AdvisingSetup",
    "AgentPrivacy",
    "ExperimentArm",
    "ExperimentResult",
    "THESIS_CLAIMS",
    "account_advising",
    "advice_query",
    "check_claims",
    "epsilon_sweep",
    "experiment_arms",
    "neighbour_case",
    "preset",
    "run_advising",
    "run_experiment",
    "worked_example",
]
