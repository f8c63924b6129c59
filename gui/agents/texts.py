"""Words of the Private agents workspace: tooltips, info panel, result HTML, table cells."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from gui.shell.style import fmt_value as _f  # one formatter for every result text

__all__ = ["TOOLTIPS", "INFO_HTML", "SWEEP_COLUMNS", "COMARL_COLUMNS", "sweep_cells",
           "drl_html", "comarl_html", "converged_cell", "convergence_html"]

TOOLTIPS = {
    "map": "The grid world: the project's grids (drawn here) or the 12x11 stand-in for the "
           "thesis's example map, whose cells are not in the source (A19).",
    "size": "Rows and columns of a new random map.",
    "new": "Add a random map under the constraints (border walls, one-cell-thick walls, "
           "connected free cells; start and goal far apart) to the project.",
    "defense": "DP-DRL obfuscates one of the eight observed cells per step, chosen by the "
               "exponential mechanism. Strict: a fixed ε and S = N − 1 (a valid choice). "
               "Thesis: ε and S computed from the private data (faithful, not a valid DP "
               "parameter).",
    "epsilon": "ε of each bit choice (strict preset). Smaller: the flipped bit is closer to "
               "uniform. It does not make the released observation DP for the map (one bit is "
               "changed, seven are true).",
    "episodes": "Training episodes (each up to 200 steps).",
    "attack": "After training, a genetic algorithm searches maps that satisfy the constraints "
              "for the one the trained policy fits best (Pan et al.).",
    "generations": "Generations of the GA (population 100).",
    "mode": "Seeded experiment: reproducible. Release: fresh randomness and the bit choices "
            "from OpenDP's exponential mechanism.",
    "sweep": "No defense, ε = 1, 0.7, 0.4, 0.1 and the thesis's dynamic ε on this map and "
             "seed, each attacked (takes a few minutes on 9x9).",
    "agents": "Agents N ≥ 2. With N = 2 secure summation reveals the partner's message.",
    "dp": "DP-SGD on each agent's Q-table: clipped per-transition updates, Gaussian noise on "
          "every entry, Poisson sampling of the replay window; ε per transition from "
          "dp-accounting with the window of Theorem 4.2, under replace-one (the buffer has a "
          "fixed size, so neighbouring runs differ by a replaced transition).",
    "sigma": "Noise multiplier σ (1.4539 with B = 1024, q = 1/32: ε = 5.03 per table under "
             "replace-one; the dissertation's 2.90 at δ = 1024^-1.1 is its add/remove-one "
             "reading).",
    "window": "Replay window B: each transition is used in at most B noisy steps.",
}

INFO_HTML = (
    "<b>Private learning agents</b>"
    "<p><b>DP-DRL</b> (Shen's thesis ch. 5): an agent that learns to navigate memorises the "
    "map; the attacker recovers it from the trained policy (GRR: all cells, NRR: the cells it "
    "did not know). DP-DRL flips one observed cell per step, chosen by the exponential "
    "mechanism. The choice is ε-DP; the released observation is <i>not</i> DP for the map "
    "(seven of eight bits stay true), so PrivPlan prints the map's ε as unbounded and "
    "measures the defense with the attack.</p>"
    "<p><b>PE-VDN</b> (dissertation ch. 4): agents train a value-decomposition team; the "
    "coupling term is a sum over agents, computed by secure summation so no agent sees "
    "another's message — only the sum. With two agents, the sum minus your own message is "
    "your partner's. DP-SGD on the tables protects each agent's transitions; the secure sums "
    "are not covered.</p>")

SWEEP_COLUMNS = ["Defense", "GRR", "NRR", "NRR of a random map", "Initial reward",
                 "Initial steps", "Final reward", "Final steps", "Final success",
                 "Converged", "DP-DRL µs/step", "DRL µs/step"]
COMARL_COLUMNS = ["Agent", "Can compute", "DP"]




def converged_cell(r: Mapping[str, Any]) -> str:
    """"yes" / "NO" with the evaluation's success share; "—" for a record made before
    convergence was recorded."""
    c = r.get("converged")
    if c is None:
        return "—"
    conv = r.get("convergence") or {}
    share = conv.get("eval_success", r.get("eval_success"))
    return ("yes" if c else "NO") + ("" if share is None else f" ({share:.0%})")


def convergence_html(s: Mapping[str, Any]) -> str:
    """One paragraph: did the run converge, by which criterion."""
    if s.get("converged") is None:
        return ""
    conv = s.get("convergence") or {}
    verdict = ("<b>converged</b>" if s["converged"] else
               "<b style='color:#b00'>did not converge</b> — its NRR measures a training "
               "failure as much as the defense")
    share = conv.get("eval_success")
    return (f"<p>{verdict}: {'' if share is None else f'{share:.0%} of '}"
            f"{conv.get('eval_episodes', '?')} greedy evaluation episodes reached the goal "
            f"within {conv.get('step_limit', '?')} steps (2 × the shortest path, "
            f"{conv.get('shortest_path', '?')}).</p>")


def sweep_cells(rows: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Tables 5.1/5.3-shaped rows as text."""
    out = []
    for r in rows:
        ob = r.get("obfuscation_s_per_step")
        out.append([str(r.get("label")), f"{100 * r['grr']:.1f} %", f"{100 * r['nrr']:.1f} %",
                    f"{100 * r['baseline_nrr']:.1f} %", _f(r.get("reward_initial")),
                    _f(r.get("steps_initial"), ".1f"), _f(r.get("reward_final")),
                    _f(r.get("steps_final"), ".1f"), _f(r.get("success_final"), ".2f"),
                    converged_cell(r),
                    "N/A" if ob is None else f"{ob * 1e6:.1f}",
                    _f((r.get("time_per_step_s") or 0) * 1e6, ".1f")])
    return out


def drl_html(kind: str, s: Mapping[str, Any], run_id: str | None) -> str:
    """The summary of a training (or of a comparison)."""
    stamp = ("seeded experiment (seed " + str(s.get("seed")) + ")" if s.get("seed") is not None
             else "release mode")
    if kind == "drl-table":
        return (f"<h3>DP-DRL comparison</h3><p>{len(s.get('rows', []))} agents trained and "
                f"attacked on the same map; recorded as {run_id}.</p><p>The map-level ε of "
                "every DP-DRL row is unbounded (the released observation keeps seven true "
                "bits); the table measures what the defense achieves against the attack.</p>")
    what = ("DP-DRL (" + str(s.get("preset")) + ")" if s.get("defense") == "dpdrl"
            else "no defense")
    parts = [f"<h3>{html.escape(str(s.get('map')))} — {what}</h3>",
             f"<p>final stage: reward <b>{_f(s.get('reward_final'))}</b>, steps "
             f"<b>{_f(s.get('steps_final'), '.1f')}</b>, success "
             f"{_f(s.get('success_final'), '.2f')}</p>", convergence_html(s)]
    if s.get("grr") is not None:
        parts.append(f"<p>map recovery: GRR <b>{100 * s['grr']:.1f} %</b>, NRR "
                     f"<b>{100 * s['nrr']:.1f} %</b> (a random valid map: "
                     f"{100 * s['baseline_nrr']:.1f} %)</p>")
    if s.get("defense") == "dpdrl":
        eps = s.get("epsilon_per_step")
        parts.append("<p>ε per step (which bit is flipped): "
                     + (f"{eps:g}" if eps is not None else
                        f"data-dependent, mean {_f(s.get('epsilon_mean_used'))} (thesis preset)")
                     + f"; {s.get('obfuscated_steps')} obfuscated steps"
                     + (f"; the choice's largest probability averaged "
                        f"{s['choice_p_max_mean']:.3f} (uniform: 0.125)"
                        if s.get("choice_p_max_mean") is not None else "") + ".</p>")
    parts.append("<p><b>ε for the map: unbounded</b> — "
                 + html.escape(str(s.get("epsilon_total_reason"))) + "</p>")
    parts.append(f"<p style='color:#555'>{stamp}" + (f"; recorded as {run_id}" if run_id
                                                     else "") + "</p>")
    notes = [n for n in s.get("notes") or [] if n != s.get("epsilon_total_reason")]
    if notes:
        parts.append("<ul>" + "".join(f"<li>{html.escape(str(n))}</li>" for n in notes)
                     + "</ul>")
    return "".join(parts)


def comarl_html(s: Mapping[str, Any], run_id: str | None) -> str:
    """The summary of a PE-VDN training."""
    eps = s.get("epsilon")
    parts = [f"<h3>PE-VDN, {s.get('agents')} agents</h3>",
             f"<p><b>Learning</b> — mean team return per episode over the last 10 % of "
             f"episodes: PE-VDN <b>{_f(s.get('team_return'))}</b>, plain VDN "
             f"{_f(s.get('central_team_return'))}. Two separate trainings from the same seed: "
             "their exploration parts at the first tiny rounding difference, so these two "
             "differ by chance, not because secure summation learns worse.</p>",
             f"<p><b>Secure summation vs central</b> — at every update of the PE-VDN training, "
             "the coupling term A from the agents' secure sum against A computed centrally "
             "on the same tables: largest |A<sub>PE</sub> − A<sub>central</sub>| = "
             f"{_f(s.get('pe_vs_central_max_diff'), '.2e')}, the fixed-point encoding error "
             f"(proven below {_f(s.get('pe_vs_central_bound'), '.0e')}).</p>",
             f"<p>time {_f(s.get('seconds'), '.2f')} s vs {_f(s.get('central_seconds'), '.2f')}"
             f" s for plain VDN: overhead ×{_f(s.get('overhead'), '.2f')}</p>",
             "<p>" + ("ε: unbounded — " + html.escape(str(s.get("epsilon_reason")))
                      if eps is None else
                      f"(ε, δ) = ({eps:.4g}, {s.get('delta'):.3g}) per <b>transition</b> "
                      "(one replay-buffer entry), <b>replace-one</b> (the buffer has a fixed "
                      "size), all tables released (one table alone: ε = "
                      f"{_f(s.get('epsilon_per_table'), '.4g')}); DP-SGD, dp-accounting PLD, "
                      "Theorem 4.2 window") + "</p>"]
    ep = s.get("episode")
    if isinstance(ep, dict):
        parts.append(f"<p>one episode (≤ {ep.get('group')} transitions), by group privacy: "
                     + ("unbounded — " + html.escape(str(ep.get("epsilon_reason")))
                        if ep.get("epsilon") is None else
                        f"(ε, δ) = ({_f(ep.get('epsilon'), '.4g')}, "
                        f"{_f(ep.get('delta'), '.3g')})") + "</p>")
    th = s.get("thesis_reading")
    if isinstance(th, dict) and th.get("epsilon") is not None:
        parts.append(f"<p style='color:#555'>thesis reading (add/remove-one, RDP; not a "
                     f"guarantee): ε = {_f(th.get('epsilon'), '.4g')}</p>")
    parts.append("<ul>" + "".join(f"<li>{html.escape(str(n))}</li>"
                                  for n in s.get("notes") or []) + "</ul>")
    if run_id:
        parts.append(f"<p style='color:#555'>recorded as {run_id}</p>")
    return "".join(parts)
