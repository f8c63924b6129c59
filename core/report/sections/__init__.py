"""One module of report sections per capability; importing this package registers them all
with :func:`core.report.model.reporter`."""

from core.report.sections import (  # noqa: F401  (each module registers its reporters)
    advising,
    agents,
    audit,
    ledger,
    logistics,
    mdp,
    modelprivacy,
    sharing,
)
