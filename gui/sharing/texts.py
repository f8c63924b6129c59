"""Words of the Policy sharing workspace: labels, colours and the parameters' tooltips."""

from __future__ import annotations

__all__ = ["STUDENT_LABELS", "WARNING_COLOUR", "COLOURS", "TOOLTIPS", "INFO_HTML"]

STUDENT_LABELS = {"none": "no teacher", "nonprivate": "non-private teacher",
                  "aware": "privacy-aware (λ > 0)", "unaware": "privacy-unaware (λ = 0)"}
WARNING_COLOUR = "#8A5300"
COLOURS = {"none": "#7F7F7F", "nonprivate": "#1F77B4", "aware": "#2CA02C",
           "unaware": "#D62728", "teacher": "#000000"}

TOOLTIPS = {
    "env": "The environment the teacher has learned: an MDP of this project, or a gymnasium "
           "toy-text environment imported through its transition table. Its states are the "
           "teacher's observations, the data this mechanism protects.",
    "teacher": "The teacher's policy: the optimal one, or a softmax of the optimal action "
               "values with a temperature (higher: more random).",
    "k0": "k₀: the Dirichlet concentration of the first roll-out. Larger k means more "
          "accurate demonstrations and LESS privacy (ε of eq. 12 grows with k).",
    "coef": "c in (0, 1]: k_j = k₀·c^j, the vanishing coefficient applied at every roll-out "
            "(the paper: 0.1, 0.3, 0.9). Smaller c spends less budget, and helps less.",
    "eta": "η: every shared policy entry is at least η (≤ 1/m). The teacher is mixed as "
           "(1 − m·η)·π + η to get there. Larger η: more private (G shrinks), less useful.",
    "lb": "L·b: how far (ℓ2) the policies at two neighbouring observations may be apart. "
          "Larger L·b: the same noise hides less, so ε is larger.",
    "delta": "A target δ per query: τ is solved per roll-out by Monte Carlo so that each "
             "query's δ is at most this. Smaller δ needs a smaller τ, so a larger ε.",
    "tau": "A fixed threshold τ instead of a target δ. Theorem 1's δ tends to 1 as k → 0 at "
           "a fixed τ, so a fixed τ soon blows the δ budget.",
    "bound": "ε of eq. 12 as printed (paper), or with its first term halved (tight: "
             "derived, Σ(π_i − π'_i) = 0; spec §1.3).",
    "lam": "λ ≥ 0: the aware student ignores demonstrations within α_λ = λ·√(ln(1/β)/"
           "(2(k+1))) of its own policy (eq. 15); λ = 0 is the privacy-unaware student.",
    "beta": "β in (0, 1): enters α_λ. It is NOT a confidence level: Lemma 1 of the paper is "
            "false as stated (the Radius plot shows the radius that holds).",
    "kappa": "κ: the weight of the penalty for straying from the demonstrations.",
    "lr": "The students' learning rate (exact policy gradient).",
    "budget_e": "E: the teacher stops (k = 0, no more demonstrations) before its total ε under "
                "basic composition would pass E.",
    "budget_d": "D: the same for the total δ (each roll-out adds queries × δ).",
    "seeds": "Runs per student type (the band is the 85th percentile over them).",
    "iterations": "Roll-outs (= policy-gradient steps) per run.",
    "mode": "Seeded experiment (reproducible, not for real releases) or release mode "
            "(Dirichlet noise and Monte Carlo from the OS's secure source).",
    "seed": "The experiment's seed.",
}

INFO_HTML = (
    "<b>Policy sharing</b><br>The protected data are the teacher's observations: two "
    "observations are neighbours when ‖X − X′‖₂ ≤ b; the teacher is L-Lipschitz, so "
    "its shared policies differ by at most L·b. Every shared policy is one Dirichlet "
    "draw; ε per query is eq. 12 (exact), δ a Monte Carlo upper bound (95 %)."
    "<br><br><b>Errata of the paper, as met here</b> (spec §1.9)<ul>"
    "<li>Lemma 1 (the concentration radius) is false as stated: the Radius plot shows "
    "the Monte Carlo quantile that holds; β is not a confidence level.</li>"
    "<li>Eq. 13 (Chebyshev for the Monte Carlo δ) has N² where N belongs; PrivPlan "
    "reports a one-sided Clopper–Pearson bound instead.</li>"
    "<li>Eq. 7's O(k log k · b L log(1/τ)) is not implied by eq. 12 (its lnΓ terms do "
    "not scale with L·b): ε is always eq. 12.</li>"
    "<li>In eq. 5 and Lemma 1, n and Δ_{n,η} mean m and Δ_{m,η}; eq. 9 should read "
    "Σ_{i &lt; m} x_i ≤ 1 − η; the appendix's stationary point is [1/m, …].</li>"
    "<li>Theorem 1 is undefined at k = 0 and its δ → 1 as k → 0: the stopped teacher "
    "sends nothing, which is (0, 0)-DP because it no longer reads the data.</li></ul>")
