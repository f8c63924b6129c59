"""DP advising between simultaneously learning agents (thesis Ch. 3; spec dp-advising.md).

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

from core.advising.accounting import ADJACENCY, AdvisingAccounting, AgentPrivacy, account_advising
from core.advising.claims import THESIS_CLAIMS, check_claims
from core.advising.experiments import ExperimentResult, epsilon_sweep, run_experiment
from core.advising.framework import AdvisingResult, advice_query, run_advising
from core.advising.model import AdvisingParams, AdvisingSetup, neighbour_case
from core.advising.presets import ExperimentArm, experiment_arms, preset, worked_example

__all__ = [
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
