"""Private policy sharing: a teacher kickstarts a privacy-aware student ([KS];
``docs/reference-values.md`` chapter K, §1.3–§1.6 and F1).

* :mod:`core.sharing.mechanism`: the teacher's Dirichlet mechanism on policies and its
  (ε, δ) by Theorem 1 (eq. 12, Monte Carlo eq. 6 with a Clopper–Pearson bound, closed
  forms for the tests), the student's loss radius α_λ and the Lemma 1 erratum.
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
