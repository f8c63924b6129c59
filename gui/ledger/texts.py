"""The Privacy Ledger tab's texts: its empty state and the tooltips of its totals."""

from __future__ import annotations

__all__ = ["EMPTY_TEXT", "TOOLTIPS", "UNBOUNDED_TIP"]

EMPTY_TEXT = (
    "<h3>No releases are recorded yet</h3>"
    "<p>Every release of private data made in this project appears here: privatised MDP "
    "transition rows, obfuscated maps and route probabilities, advising Q-values — each "
    "with its mechanism, parameters, (ε, δ), the adjacency assumed, the data it protects, "
    "its mode and time. A release without a finite guarantee (raw data that left, or a "
    "guarantee that does not apply) is listed as <i>unbounded</i> with the reason, and "
    "makes its dataset's totals unbounded.</p>"
    "<p>Seeded experiments (such as a privacy sweep) are listed too, marked as "
    "<i>experiment</i>: reproducible from their seed, they release nothing and are not "
    "counted as spent. The Privacy Calculator's what-ifs are never recorded.</p>"
    "<p>Totals per protected dataset (basic composition, and tighter accountants where "
    "their assumptions hold) and budgets appear below the table.</p>")
TOOLTIPS = {
    "basic": "Basic sequential composition: (Σε, Σδ). Always valid.",
    "PLD": "Tight composition: the releases' privacy-loss distributions composed with "
           "Google's dp-accounting (a Dirichlet privatisation with its exact profile, any "
           "other release through the canonical pair of its (ε, δ)); ε read at basic's δ, "
           "or at the budget's δ when the dataset has one. Valid for releases fixed in "
           "advance; budgets are still checked with basic composition.",
    "advanced": "Advanced composition (Dwork, Rothblum & Vadhan 2010) with slack δ' = 1e-6: "
                "tighter than basic for many small ε, looser for large ε.",
    "zCDP": "Zero-concentrated DP (Bun & Steinke 2016): only when every release is pure "
            "ε-DP (Laplace, exponential); converted to (ε, δ) at δ = 1e-6.",
    "budget": "The most (ε, δ) the project may release about this dataset. A release that "
              "would exceed it asks before it runs. Only releases count (basic composition).",
    "epsilon": "ε: the privacy loss bound; smaller is more private.",
    "delta": "δ: the probability that the ε bound fails; smaller is more private.",
}


UNBOUNDED_TIP = ("unbounded: this release has no finite ε (raw data left PrivPlan, or the "
                 "mechanism's guarantee does not apply), so every total that counts it is "
                 "unbounded and any budget of its dataset is exceeded.")
