"""Private policy sharing: a teacher kickstarts a privacy-aware student ([KS];
``docs/reference-values.md`` chapter K, §1.3–§1.6 and F1).

* :mod:`core.sharing.mechanism`: the teacher's Dirichlet mechanism on policies and its
  (ε, δ) by Theorem 1 (eq. 12, Monte Carlo eq. 6 with a Clopper–Pearson bound, closed
  forms for the tests), the student's loss radius α_λ and the Lemma 1 erratum.
"""

# The capability's public face: ``from core.sharing import Name`` (the GUI imports these, not
# the modules). The names load on first use, so importing the package stays cheap.

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.sharing.gym_import import (
        GYM_IDS,
        gym_actions,
        gym_available,
        import_gym,
        parse_gym_id,
    )
    from core.sharing.learning import (
        STUDENTS,
        SharingSetup,
        SharingStudy,
        live_privacy,
        live_radius,
        mechanism_curves,
        run_policy,
        sharing_study,
    )
    from core.sharing.mechanism import PrivacyCurve, RadiusCurve, check_sharing
    from core.sharing.records import mdp_side_entries, sharing_params, sharing_summary

_WHERE = {
    "GYM_IDS": "core.sharing.gym_import",
    "PrivacyCurve": "core.sharing.mechanism",
    "RadiusCurve": "core.sharing.mechanism",
    "STUDENTS": "core.sharing.learning",
    "SharingSetup": "core.sharing.learning",
    "SharingStudy": "core.sharing.learning",
    "check_sharing": "core.sharing.mechanism",
    "gym_actions": "core.sharing.gym_import",
    "gym_available": "core.sharing.gym_import",
    "import_gym": "core.sharing.gym_import",
    "live_privacy": "core.sharing.learning",
    "live_radius": "core.sharing.learning",
    "mdp_side_entries": "core.sharing.records",
    "mechanism_curves": "core.sharing.learning",
    "parse_gym_id": "core.sharing.gym_import",
    "run_policy": "core.sharing.learning",
    "sharing_params": "core.sharing.records",
    "sharing_study": "core.sharing.learning",
    "sharing_summary": "core.sharing.records",
}

__all__ = [
    "GYM_IDS",
    "PrivacyCurve",
    "RadiusCurve",
    "STUDENTS",
    "SharingSetup",
    "SharingStudy",
    "check_sharing",
    "gym_actions",
    "gym_available",
    "import_gym",
    "live_privacy",
    "live_radius",
    "mdp_side_entries",
    "mechanism_curves",
    "parse_gym_id",
    "run_policy",
    "sharing_params",
    "sharing_study",
    "sharing_summary",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'core.sharing' has no attribute {name!r}")
