
# The capability's public face: ``from core.privacy import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.privacy.calculator import (
        FIGURE_1_1,
        CalculatorInputs,
        CalculatorResult,
        EpsilonDeltaCurve,
        EpsilonVsK,
        default_k_grid,
        epsilon_delta_curve,
        epsilon_vs_k,
        evaluate_calculator,
        k_for_epsilon,
    )
    from core.privacy.composition import accuracy_cap, advanced_composition
    from core.privacy.dirichlet_accounting import CURVE_RTOL, dirichlet_privacy
    from core.privacy.laplace import check_epsilon
    from core.privacy.ledger import (
        LedgerEntry,
        PrivacyLedger,
        budgets_from_dict,
        budgets_to_dict,
        release_modes,
    )

_WHERE = {
    "CURVE_RTOL": "core.privacy.dirichlet_accounting",
    "CalculatorInputs": "core.privacy.calculator",
    "CalculatorResult": "core.privacy.calculator",
    "EpsilonDeltaCurve": "core.privacy.calculator",
    "EpsilonVsK": "core.privacy.calculator",
    "FIGURE_1_1": "core.privacy.calculator",
    "LedgerEntry": "core.privacy.ledger",
    "PrivacyLedger": "core.privacy.ledger",
    "accuracy_cap": "core.privacy.composition",
    "advanced_composition": "core.privacy.composition",
    "budgets_from_dict": "core.privacy.ledger",
    "budgets_to_dict": "core.privacy.ledger",
    "check_epsilon": "core.privacy.laplace",
    "default_k_grid": "core.privacy.calculator",
    "dirichlet_privacy": "core.privacy.dirichlet_accounting",
    "epsilon_delta_curve": "core.privacy.calculator",
    "epsilon_vs_k": "core.privacy.calculator",
    "evaluate_calculator": "core.privacy.calculator",
    "k_for_epsilon": "core.privacy.calculator",
    "release_modes": "core.privacy.ledger",
}

__all__ = [
    "CURVE_RTOL",
    "CalculatorInputs",
    "CalculatorResult",
    "EpsilonDeltaCurve",
    "EpsilonVsK",
    "FIGURE_1_1",
    "LedgerEntry",
    "PrivacyLedger",
    "accuracy_cap",
    "advanced_composition",
    "budgets_from_dict",
    "budgets_to_dict",
    "check_epsilon",
    "default_k_grid",
    "dirichlet_privacy",
    "epsilon_delta_curve",
    "epsilon_vs_k",
    "evaluate_calculator",
    "k_for_epsilon",
    "release_modes",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.privacy' has no attribute {name!r}")
