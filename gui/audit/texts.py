"""The Audit workspace's words: its constants, parameter specs and the texts of a result.

Pure functions of an audit summary (``AuditResult.to_dict`` made JSON-safe), kept apart
from the widget in :mod:`gui.audit.panel` so that they can be read and tested alone.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.audit import MECHANISMS
from core.audit import available as _core_available
from gui.audit.plots import claimed_epsilon, fmt_eps
from gui.shell.style import ERROR_COLOUR, OKABE_ITO

DEFAULT_SAMPLES = 100_000
MAX_SAMPLES = 50_000_000
BANNER = {  # verdict -> (background, border, text colour)
    "violation": ("#FBE3D6", ERROR_COLOUR, "#7A2300"),
    "consistent": ("#DDF2E9", OKABE_ITO["green"], "#00513C"),
    "unbounded": ("#FDF1D2", OKABE_ITO["orange"], "#5E3B00"),
}

#: mechanism -> (title, what the observer sees, its parameters in form order)
MECHANISM_CHOICES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "laplace": ("Laplace mechanism",
                "a query answer plus Laplace(Δ/ε) noise (the release path of "
                "core/privacy/laplace.py)", ("epsilon", "sensitivity")),
    "exponential": ("Exponential mechanism",
                    "the index chosen with probability ∝ exp(ε·u/(2Δ))",
                    ("epsilon", "sensitivity")),
    "dirichlet": ("Dirichlet row mechanism",
                  "a privatised transition row x ~ Dir(k·p) (Algorithm 1, Theorem 1.6)",
                  ("k", "eta", "eta_bar", "w", "b", "delta", "analysis")),
    "sharing": ("Shared-policy mechanism",
                "a shared policy x ~ Dir(k·π), neighbours within L·b in ℓ2 ([KS] Theorem 1)",
                ("k", "m", "eta", "lb", "delta", "bound")),
    "advising": ("DP advising (the advice)",
                 "the advised actions exactly as the student observes them",
                 ("epsilon", "variant")),
    "logistics": ("Logistics releases",
                  "the released (obfuscated) map and route messages of the planner",
                  ("epsilon", "preset")),
}

TOOLTIPS = {
    "mechanism": "Which mechanism to audit: the audit runs it on neighbouring inputs it "
                 "constructs and tries to tell them apart from the outputs alone.",
    "epsilon": "ε, the privacy loss the mechanism claims: a smaller ε adds more noise and "
               "is more private; the audit tries to prove the true ε is at least ε_lb.",
    "sensitivity": "Δ, the most one neighbour can change the query (L1): the noise scale is "
                   "Δ/ε, so the claim stays ε; neighbours are answers at distance ≤ Δ.",
    "k": "Dirichlet concentration k: a larger k gives outputs closer to the true row (more "
         "accurate) but a larger ε (less private).",
    "eta": "η, the least probability any entry of W may have (a public domain bound): a "
           "larger η gives a smaller ε (more private) but admits fewer rows.",
    "eta_bar": "η̄, the least total probability of the entries outside W: a larger η̄ gives "
               "a smaller ε (more private); unticked, η̄ = η.",
    "w": "|W|, how many entries of a row neighbours may differ in: a larger |W| makes ε or "
         "δ larger (less private).",
    "b": "Adjacency radius b: neighbouring rows differ by at most b in L1; a larger b hides "
         "bigger differences (more private per row) at the price of a larger ε.",
    "delta": "Target δ̂ of the claim, the probability the ε bound may fail: a smaller δ̂ is "
             "more private but forces a larger ε.",
    "analysis": "Which theorem makes the claim: W (Theorem 1.6: two entries of W move, the "
                "rest is fixed) or support (any two entries of the support may move).",
    "variant": "Advising variant: sound (the student receives only a function of noised "
               "data) or thesis (the dissertation's behaviour, which releases raw data and "
               "claims no finite ε).",
    "preset": "Logistics preset: sound (the conservative bound the preset proves) or thesis "
              "(the dissertation's parameters and per-agent ε).",
    "m": "m, the number of actions: the shared policy has m entries, each at least η.",
    "lb": "L·b, how far (ℓ2) two neighbouring policies may lie apart: a larger L·b hides "
          "bigger differences (more private) for a larger ε.",
    "bound": "Which accountant makes the claim: the exact profile (certified, the default) "
             "or Theorem 1's eq. 12 (as printed, or with its first term halved).",
    "samples": "N, outputs per side of the audited pair (split 20/30/50 % into fit, threshold "
               "choice and evaluation): more samples give a larger, sharper ε_lb and take "
               "longer; they do not change privacy.",
    "mode": "Seeded experiment: the whole audit is reproducible from the seed. Release mode: "
            "randomness from the operating system's secure source, sampled through the "
            "release code path, as a real release would be (not reproducible).",
    "seed": "Seed of a seeded experiment (the same seed gives the same audit).",
    "confidence": "Confidence of ε_lb (Clopper–Pearson on both error rates): a higher "
                  "confidence gives a smaller, safer ε_lb.",
}


@dataclass(frozen=True)
class _Spec:
    label: str
    minimum: float = 0.0
    maximum: float = 1.0
    default: float = 0.0
    integer: bool = False
    log_step: float | None = None
    choices: tuple[tuple[str, str], ...] = ()
    optional: bool = False


# The minima admit values the core refuses (ε = 0, …): the refusal then names the field.
PARAMETERS: dict[str, _Spec] = {
    "epsilon": _Spec("ε", 0.0, 1e3, 1.0, log_step=10 ** 0.1),
    "sensitivity": _Spec("Δ (sensitivity)", 0.0, 1e6, 1.0, log_step=10 ** 0.1),
    "k": _Spec("k", 0.0, 1e5, 10.0, log_step=10 ** 0.1),
    "eta": _Spec("η", 0.0, 1.0, 0.15),
    "eta_bar": _Spec("η̄", 0.0, 1.0, 0.15, optional=True),
    "w": _Spec("|W|", 1, 30, 2, integer=True),
    "b": _Spec("b", 0.0, 1.0, 0.1),
    "delta": _Spec("target δ̂", 0.0, 1.0, 0.05, log_step=10 ** 0.1),
    "analysis": _Spec("analysis", choices=(("W", "W (Theorem 1.6)"),
                                           ("support", "support (within-support)"))),
    "variant": _Spec("variant", choices=(("sound", "sound"), ("thesis", "thesis"))),
    "preset": _Spec("preset", choices=(("sound", "sound"), ("thesis", "thesis"))),
    "m": _Spec("m (actions)", 2, 30, 4, integer=True),
    "lb": _Spec("L·b (ℓ2 radius)", 0.0, 2.0, 0.05),
    "bound": _Spec("accountant", choices=(("profile", "exact profile"),
                                          ("paper", "eq. 12 (paper)"),
                                          ("tight", "eq. 12, halved"))),
}

# names of the core's extra parameters in the stamp
_LABELS = {"delta_target": "δ̂", "gamma": "γ", "delta_method": "δ method", "sensitivity": "Δ",
           "noise_factor": "noise factor (test knob)"}

EMPTY_TEXT = (
    "<h3>No audit yet</h3>"
    "<p>Choose a mechanism and its public parameters above, then <b>Run (F5)</b>. The "
    "audit searches neighbouring inputs for the pair that is easiest to tell apart, runs "
    "the mechanism N times on each, and attacks: how well can an observer who sees only "
    "the outputs guess which input was used?</p>"
    "<p>Here you will then see</p><ul>"
    "<li><b>the verdict</b> — <span style='color:#00513C'>consistent</span>, or "
    "<span style='color:#7A2300'>violation</span> if the attack proves more leakage than "
    "PrivPlan claims;</li>"
    "<li><b>ε_lb ≤ ε_tight ≤ ε_claimed</b> as bars: what the attack proves (with its "
    "confidence), the exact ε of the pair where the densities are known, and the claim "
    "(unbounded when the mechanism claims no finite bound);</li>"
    "<li><b>the attack's ROC curve</b> against the limit the claim allows, and <b>the worst "
    "pair</b> found.</li></ul>"
    "<p>Every audit is recorded in the project (and its report); nothing is released and "
    "the ledger is not touched.</p>")


# --------------------------------------------------------------------------- pure helpers
def available(mechanism: str) -> bool:
    """True if ``core.audit`` can audit ``mechanism`` in this build (never raises)."""
    try:
        return mechanism in MECHANISMS and _core_available(mechanism)
    except Exception:  # noqa: BLE001 - a broken module is "not available", said in the UI
        return False


def _display_verdict(s: Mapping[str, Any]) -> str:
    if s.get("verdict") == "violation":
        return "violation"
    return "unbounded" if not math.isfinite(claimed_epsilon(s)) else "consistent"


def verdict_text(s: Mapping[str, Any]) -> str:
    """The banner's text (HTML) for a summary."""
    lb = float(s["epsilon_lb"])
    conf = f"{100 * float(s.get('confidence', 0.95)):g} %"
    claimed = claimed_epsilon(s)
    tight = s.get("epsilon_tight")
    delta = float(s.get("delta_claimed", 0.0) or 0.0)
    kind = _display_verdict(s)
    if kind == "violation":
        alarm = f"{100 * (1 - float(s.get('confidence', 0.95))):.3g} %"
        text = (f"<b>✖ VIOLATION</b> — the attack proves ε ≥ ε_lb = <b>{fmt_eps(lb)}</b> "
                f"({conf} confidence), above the claimed ε = {fmt_eps(claimed)} (δ = "
                f"{delta:.3g}): the stated guarantee does not hold (the chance that an "
                f"honest mechanism shows this is at most {alarm}).")
    elif kind == "unbounded":
        why = html.escape(str(s.get("epsilon_claimed_reason") or "no finite bound"))
        text = (f"<b>● CONSISTENT — nothing finite is claimed</b>: ε is unbounded ({why}), so "
                f"no attack can contradict the claim; the attack shows an observer learns at "
                f"least ε_lb = <b>{fmt_eps(lb)}</b> ({conf} confidence).")
    else:
        text = (f"<b>✔ CONSISTENT</b> — the attack's ε_lb = <b>{fmt_eps(lb)}</b> ({conf} "
                f"confidence) does not exceed the claimed ε = <b>{fmt_eps(claimed)}</b> "
                f"(δ = {delta:.3g})")
        text += (f"; exact ε_tight = {fmt_eps(float(tight))}." if tight is not None
                 else "; ε_tight unknown (no output densities).")
    if tight is not None and math.isfinite(claimed) and \
            float(tight) > claimed * (1 + 1e-9) + 1e-12:
        text += (f"<br><b style='color:{ERROR_COLOUR}'>⚠ ε_tight = {fmt_eps(float(tight))} "
                 f"exceeds the claim: the exact computation says the claim is false for the "
                 f"pair {html.escape(_pair_short(s.get('tight_pair') or s.get('pair')))}."
                 "</b>")
    return text


def _pair_short(pair: Any) -> str:
    if isinstance(pair, Mapping):
        d = pair.get("description")
        if d:
            return str(d)
    return str(pair)


def _value_text(v: Any) -> str:
    if isinstance(v, float):
        return fmt_eps(v, 6) if math.isinf(v) else f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_value_text(x) for x in v[:12])
        return f"[{inner}{', …' if len(v) > 12 else ''}]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}: {_value_text(x)}" for k, x in v.items()) + "}"
    return "–" if v is None else str(v)


def _kv_rows(d: Mapping[str, Any]) -> str:
    return "".join(f"<tr><td style='color:#555; padding-right:8px'>{html.escape(str(k))}</td>"
                   f"<td>{html.escape(_value_text(v))}</td></tr>" for k, v in d.items())


def randomness_text(mode: str, seed: Any) -> str:
    if mode == "release":
        return "release mode (OS-seeded, release code path)"
    return f"seeded experiment (seed {seed})"


def stamp_html(req: Mapping[str, Any], s: Mapping[str, Any], record_id: str | None) -> str:
    """The line under the results: what was audited, how, and where it is recorded."""
    mech = str(s.get("mechanism") or req.get("mechanism") or "")
    title = s.get("label") or MECHANISM_CHOICES.get(mech, (mech,))[0]
    params = s.get("parameters") or req.get("params") or {}
    shown = ", ".join(f"{_LABELS.get(k) or (PARAMETERS[k].label if k in PARAMETERS else k)}"
                      f" = {_value_text(v)}" for k, v in params.items()
                      if not isinstance(v, (list, dict)))
    where = (f" · recorded as <b>{html.escape(record_id)}</b>" if record_id is not None
             else " · not recorded")
    return (f"<b>{html.escape(str(title))}</b> · {html.escape(shown)} · "
            f"N = {int(s.get('samples', req.get('samples') or 0)):,} per side · "
            f"{html.escape(randomness_text(str(s.get('mode')), s.get('seed')))} · "
            f"{100 * float(s.get('confidence', 0.95)):g} % confidence · "
            f"{float(s.get('elapsed_s', 0.0)):.1f} s{where}")


def details_html(s: Mapping[str, Any]) -> str:
    """The side panel: the worst pair, the claim against the audit, and the notes."""
    pair = s.get("pair")
    parts = ["<h4 style='margin:2px 0'>Worst pair found</h4>"]
    if isinstance(pair, Mapping):
        d = pair.get("description")
        if d:
            parts.append(f"<p style='margin:2px 0'>{html.escape(str(d))}</p>")
        parts.append("<table>" + _kv_rows({k: v for k, v in pair.items()
                                           if k != "description"}) + "</table>")
    else:
        parts.append(f"<p>{html.escape(_value_text(pair))}</p>")
    tp = s.get("tight_pair")
    if tp is not None and tp != pair:
        parts.append(f"<p style='margin:2px 0; color:#555'>largest ε_tight on: "
                     f"{html.escape(_pair_short(tp))}</p>")
    claimed = claimed_epsilon(s)
    att = s.get("attack") or {}
    rows = {"mode": randomness_text(str(s.get("mode")), s.get("seed")),
            "ε_claimed": fmt_eps(claimed) + (
                f" — {s.get('epsilon_claimed_reason')}" if not math.isfinite(claimed)
                else ""),
            "δ_claimed": f"{float(s.get('delta_claimed', 0.0) or 0.0):.3g}",
            "ε_tight": fmt_eps(None if s.get("epsilon_tight") is None
                               else float(s["epsilon_tight"]))
            + (f" — {s.get('epsilon_tight_method')}" if s.get("epsilon_tight_method")
               else f" — {s.get('epsilon_tight_reason') or 'unknown'}"
               if s.get("epsilon_tight") is None else ""),
            "ε_lb": f"{fmt_eps(float(s['epsilon_lb']))} at "
                    f"{100 * float(s.get('confidence', 0.95)):g} % confidence",
            "attack": (f"{att.get('kind', '')}, features {att.get('features', '')}; FPR "
                       f"{float(att['fpr']):.4g} (≤ {float(att['fpr_upper']):.4g}), FNR "
                       f"{float(att['fnr']):.4g} (≤ {float(att['fnr_upper']):.4g}) on "
                       f"{att.get('samples_evaluated')} per side"
                       if att.get("fpr") is not None and att.get("fpr_upper") is not None
                       else "–"),
            "adjacency": s.get("adjacency", "")}
    parts.append("<h4 style='margin:6px 0 2px 0'>Claim and audit</h4><table>"
                 + _kv_rows(rows) + "</table>")
    notes = s.get("notes") or []
    if notes:
        parts.append("<h4 style='margin:6px 0 2px 0'>Notes</h4><ul style='margin:0'>"
                     + "".join(f"<li>{html.escape(str(n))}</li>" for n in notes)
                     + "</ul>")
    return "<div style='font-size:9pt'>" + "".join(parts) + "</div>"
