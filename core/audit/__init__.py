"""Empirical privacy audit of every mechanism PrivPlan releases through (spec F3).

For a mechanism and its public parameters (one :class:`AuditParameters`, validated when
made; :func:`audit_release` runs it, :func:`run_audit` is the same by keywords), the audit
takes the mechanism's own claim (ε_claimed, δ_claimed, adjacency), searches neighbouring
input pairs for the worst case, runs a black-box distinguishing attack on N samples per
side and reports a lower bound ε_lb on the true ε with Clopper–Pearson confidence, next to
ε_tight (the exact ε of the worst pair found, where the output densities are known) and
ε_claimed. A claim is contradicted ("violation") iff ε_lb > ε_claimed, or an exact ε_tight
exceeds it.

Mechanisms: ``laplace``, ``exponential`` (core/privacy/laplace.py), ``dirichlet`` (the
row mechanism and its accountant), ``advising`` (the advice as the student observes
it), ``logistics`` (the logistics releases), and ``gaussian`` (a sanity check of the
audit itself, spec B20). See :mod:`core.audit.runner` for the procedure and
:mod:`core.audit.target` for the interface every mechanism implements (the
:class:`~core.audit.target.AuditTarget` protocol) and the registry of targets.

Examples
--------
>>> r = run_audit("laplace", samples=20_000, seed=1, epsilon=1.0, sensitivity=1.0)
>>> r.verdict, r.epsilon_claimed, r.epsilon_tight, 0.5 < r.epsilon_lb <= 1.0
('consistent', 1.0, 1.0, True)
>>> sorted(r.to_dict())[:5]
['adjacency', 'attack', 'candidates', 'confidence', 'delta_claimed']
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
