"""Private policy sharing: a teacher kickstarts a privacy-aware student ([KS]; spec
``kickstarting-mia-comarl.md`` §1 and F1).

* :mod:`core.sharing.mechanism`: the teacher's Dirichlet mechanism on policies and its
  (ε, δ) by Theorem 1 (eq. 12, Monte Carlo eq. 6 with a Clopper–Pearson bound, closed
  forms for the tests), the student's loss radius α_λ and the Lemma 1 erratum.
"""
