"""Words of the Model privacy workspace: tooltips, the info panel, result HTML and table cells."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from core.modelprivacy import (  # shared with the report
    TABLE_COLUMNS,
    table_cells,
    tpr_at_fpr_items,
)
from gui.shell.style import fmt_value as _f  # one formatter for every result text

__all__ = ["DEFENSE_NAMES", "TOOLTIPS", "INFO_HTML", "EMPTY_TEXT", "TABLE_COLUMNS",
           "study_html", "table_cells"]

DEFENSE_NAMES = {"none": "No defense", "dpsgd": "DP-SGD", "gpm": "GPM (noise after training)",
                 "oneparam": "One-parameter defense",
                 "dirichlet": "Dirichlet rows (tabular)"}

TOOLTIPS = {
    "data": "Records the victim learns from. Built-in sets ship with scikit-learn (no "
            "download); an MDP of the project gives next-state records from random "
            "trajectories; a CSV file has numeric features and the label last.",
    "victim": "The model under attack: a one-hidden-layer feed-forward network, an Elman "
              "recurrent network reading the record as a sequence (digits: 8 rows), or the "
              "MLE transition model of an MDP. With the optional 'deep' extra (JAX): an MLP, "
              "a CNN, a GRU or an LSTM trained with per-example-clipped DP-SGD.",
    "defense": "DP-SGD: clipped, noisy gradients (ε from dp-accounting, a proven DP bound). "
               "GPM: Gaussian noise on the trained parameters, calibrated to an *empirical* "
               "sensitivity (random DP, weaker). One-parameter: each released confidence "
               "vector is re-drawn by the exponential mechanism (k·ε per vector, not a "
               "membership guarantee).",
    "epsilon": "DP-SGD / GPM: the target ε of the whole trained model (smaller = more "
               "private, less accurate). One-parameter defense: ε per choice; a vector of k "
               "classes costs k·ε, and every query of the same record costs it again.",
    "k": "Dirichlet privatisation of the tabular victim's rows: concentration k. Larger k keeps "
         "the model closer to the data (more accurate) and is less private.",
    "delta": "DP-SGD / GPM: the probability that the ε statement may fail; keep it well "
             "below 1/(training records).",
    "shadows": "Shadow models the attacker trains on its own disjoint data with the victim's "
               "algorithm and defense. Each needs as many records as the victim's training "
               "set.",
    "attack": "Shadow model: Shokri's attack on one victim (recorded with its ledger entries). "
              "LiRA + loss + shadow: 8 victims on random halves of a population, each "
              "attacked by LiRA (online, offline), the loss threshold and the shadow model "
              "with the others as reference models; TPR at low FPR only where the "
              "non-members resolve it. Canary audit: mislabelled canaries inserted at "
              "random, one training run, an empirical ε_lb beside the accountant's ε. "
              "Both run on the feed-forward, recurrent and network (JAX) victims. "
              "The last two release nothing and are shown, not recorded.",
    "mode": "Seeded experiment: reproducible, for studying the defense. Release: a fresh "
            "split and every noise draw from the OS secure random source.",
    "seed": "Seed of the split, initialisation, batches and (experiment mode) the noise.",
    "victims": "Run the chosen defense for the feed-forward and the recurrent victim on the "
               "same split and seed, side by side (the RNN paper's comparison; qualitative at "
               "this scale); a chosen network victim (JAX) joins them.",
    "compare": "Run no defense, DP-SGD and GPM at ε = 1, 4, 8 and the one-parameter defense at "
               "ε = 0.1, 0.7, 1.4, 2.0 on the same split (Table 6.2's shape). Takes about a "
               "minute on digits.",
}

INFO_HTML = (
    "<b>Model privacy lab</b><p>The attack (Shokri et al., as the RNN paper uses it): the "
    "attacker trains <i>shadow models</i> like the victim on its own data, learns from their "
    "confidence vectors which records were members, and classifies the victim's members and "
    "non-members (balanced: 50 % is chance).</p>"
    "<p><b>Attack accuracy, AUC, TPR at FPR 0.1 % / 1 %</b> measure the leak. <b>ε_lb</b> is "
    "the audit's formula on the attack's error rates (indicative: the trials share one "
    "model). Under (ε, δ)-DP no attack can beat the <b>DP cap</b> (e^ε + δ)/(1 + e^ε).</p>"
    "<p><b>DP-SGD</b> gives a proven (ε, δ) for the model (add/remove one record). "
    "<b>GPM</b> adds N(0, σ²) to the parameters once; σ comes from a sampled sensitivity, so "
    "its guarantee is <i>random DP</i>: it holds with probability 1 − γ(n). The "
    "<b>one-parameter defense</b> keeps accuracy (order preserved) and hides confidence; its "
    "ε protects a confidence vector against neighbouring vectors, not a record's membership, "
    "and it composes per query.</p>"
    "<p>Every run is recorded with the ledger entries of what the victim released.</p>")

EMPTY_TEXT = ("<p style='color:#444'>No study yet. Press <b>Run study</b> (F5) for one "
              "attack, or <b>Compare defenses</b> for the table. The numbers, the privacy "
              "statement, the attack ROC and accuracy against ε appear here.</p>")



def study_html(s: Mapping[str, Any], kind: str, run_id: str | None) -> str:
    """The summary of a study (or of a comparison's first row with the table's caption)."""
    if kind != "mia":
        rows = s.get("rows", [])
        what = ("Victim comparison (feed-forward vs recurrent)" if s.get("compare") ==
                "victims" else "Defense comparison")
        who = ("feed-forward and recurrent victims" if s.get("compare") == "victims"
               else f"{html.escape(str(s.get('victim')))} victim")
        head = (f"<h3>{what} on {html.escape(str(s.get('data')))} — {who}</h3>"
                f"<p>{len(rows)} studies on the same split "
                + ("(seed " + str(s.get("seed")) + ")" if s.get("seed") is not None
                   else "(release mode)") + f"; recorded as {run_id}.</p>"
                "<p>RNN vs feed-forward and these numbers are qualitative: the sources' "
                "gaps depend on their data and models (CIFAR10, MNIST at full scale).</p>")
        return head
    cap = s.get("accuracy_cap")
    cap_text = (f"{cap:.3f}" if cap is not None
                else f"none ({html.escape(str(s.get('accuracy_cap_reason') or ''))})")
    eps = s.get("epsilon")
    eps_text = ("unbounded — " + html.escape(str(s.get("epsilon_reason")))
                if eps is None else f"{eps:.4g}, δ = {s.get('delta'):g}")
    parts = [
        f"<h3>{html.escape(str(s.get('victim')))} on {html.escape(str(s.get('data')))} — "
        f"{html.escape(DEFENSE_NAMES.get(str(s.get('defense')), str(s.get('defense'))))}</h3>",
        "<table cellpadding='2'>",
        f"<tr><td>train / test accuracy</td><td><b>{_f(s.get('train_accuracy'))}</b> / "
        f"<b>{_f(s.get('test_accuracy'))}</b></td></tr>",
        f"<tr><td>attack accuracy (chance 0.5)</td><td><b>{_f(s.get('attack_accuracy'))}"
        f"</b>, AUC {_f(s.get('auc'))}</td></tr>",
        "<tr><td>TPR at FPR</td><td>" + ", ".join(
            f"{k}: {html.escape(v)}" for k, v in tpr_at_fpr_items(s, _f)) + "</td></tr>",
        f"<tr><td>ε_lb (indicative)</td><td>{_f(s.get('epsilon_lb'))}</td></tr>",
        f"<tr><td>entropy gap</td><td>{_f(s.get('entropy_gap'))}</td></tr>",
        f"<tr><td>inversion error</td><td>{_f(s.get('inversion_error'), '.4f')}</td></tr>",
    ]
    if s.get("distortion") is not None:
        parts.append(f"<tr><td>distortion (ℓ2)</td><td>{_f(s.get('distortion'))}; attack "
                     f"with the defense hidden: {_f(s.get('attack_accuracy_hidden'))}"
                     "</td></tr>")
        parts.append(f"<tr><td>ε* (z = y, median)</td><td>{_f(s.get('epsilon_star_median'))}"
                     " — below ε* outputs look less confident than the model, above more "
                     f"(Property 6.3); queries of one record within ε′ = 5: "
                     f"{_f(s.get('query_bound_eps5'), '.3g')} (Thm 6.3)</td></tr>")
    parts += [f"<tr><td>ε</td><td>{eps_text}</td></tr>",
              f"<tr><td>DP cap on accuracy</td><td>{cap_text}</td></tr>", "</table>",
              f"<p><b>Guarantee:</b> {html.escape(str(s.get('guarantee')))}</p>",
              "<p style='color:#555'>" + ("seeded experiment (seed " + str(s.get("seed"))
                                          + ")" if s.get("seed") is not None
                                          else "release mode (secure noise)")
              + (f"; recorded as {run_id}" if run_id else "") + "</p>"]
    notes = s.get("notes") or []
    if notes:
        parts.append("<ul>" + "".join(f"<li>{html.escape(str(n))}</li>" for n in notes)
                     + "</ul>")
    return "".join(parts)
