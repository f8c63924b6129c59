"""Report sections of the private agents: DP-DRL, its table, and Co-MARL."""

from __future__ import annotations

from typing import Any

from core.report.model import (
    Figure,
    GridImage,
    KeyValues,
    Paragraph,
    Section,
    Series,
    Table,
    _fmt,
    _mode_text,
    _time,
    reporter,
)

__all__: list[str] = []

#: how a grid map's characters are drawn (``core.gridworld.maps`` rows)
MAP_LEGEND = (("#", "#3b3b3b", "wall"), (".", "#f4f4f4", "free"), ("S", "#2e7d32", "start"),
              ("G", "#c62828", "goal"))


@reporter("drl")
def _drl_section(project: Any, run: Any) -> Section:
    """A DP-DRL training (and its map-recovery attack)."""
    s, p = run.summary, run.params
    agent = " with a DQN" if p.get("agent") == "dqn" else ""
    sec = Section(f"DP-DRL{agent}: {run.target} ({run.id})", id=f"run-{run.id}")
    dp = p.get("defense") == "dpdrl"
    sec.blocks.append(KeyValues((
        ("map", f"{s.get('map')} {'x'.join(str(v) for v in s.get('size', []))}"),
        ("defense", ("DP-DRL, " + str(p.get("preset")) + " preset") if dp else "none"),
        ("randomness", _mode_text(run)),
        ("ε per step (bit choice)", _fmt(s.get("epsilon_per_step")) if dp else "—"),
        ("ε for the map", "unbounded: " + str(s.get("epsilon_total_reason"))),
        ("final stage", f"reward {_fmt(s.get('reward_final'))}, steps "
                        f"{_fmt(s.get('steps_final'))}, success {_fmt(s.get('success_final'))}"),
        ("map recovery", "not run" if s.get("grr") is None else
         f"GRR {_fmt(s.get('grr'))}, NRR {_fmt(s.get('nrr'))} (a random valid map: NRR "
         f"{_fmt(s.get('baseline_nrr'))})"),
        ("created", _time(run.created))), "Training"))
    rewards = s.get("rewards") or []
    if rewards:
        k = max(1, len(rewards) // 100)
        xs = tuple(float(i) for i in range(0, len(rewards), k))
        ys = tuple(float(sum(rewards[i:i + k]) / len(rewards[i:i + k]))
                   for i in range(0, len(rewards), k))
        sec.blocks.append(Figure(f"{run.id}-reward", "Episode reward", "episode", "reward",
                                 (Series("reward", xs, ys),)))
    if s.get("recovered"):
        truth = tuple(str(r) for r in s.get("truth", []) or [])
        got = tuple(str(r) for r in s["recovered"])
        sec.blocks.append(GridImage(
            f"{run.id}-maps", "The map and the attacker's recovery",
            tuple(p for p in (("true map", truth), ("recovered by the attack", got)) if p[1]),
            MAP_LEGEND, caption="Cells the attacker recovers correctly match the true map; "
                                "GRR and NRR above measure how many."))
    for n in s.get("notes") or []:
        sec.blocks.append(Paragraph(str(n)))
    return sec


@reporter("drl-table")
def _drl_table_section(project: Any, run: Any) -> Section:
    """A DP-DRL comparison in the shape of Tables 5.1 and 5.3."""
    s = run.summary
    sec = Section(f"DP-DRL comparison: {run.target} ({run.id})", id=f"run-{run.id}")
    sec.blocks.append(KeyValues((("randomness", _mode_text(run)),
                                 ("ε for the map", "unbounded for every DP-DRL row (the released "
                                                   "observation keeps seven true bits)"),
                                 ("created", _time(run.created))), "Comparison"))
    rows = s.get("rows") or []
    sec.blocks.append(Table(
        ("defense", "GRR", "NRR", "NRR of a random map", "final reward", "final steps",
         "final success"),
        tuple((str(r["label"]), _fmt(r["grr"]), _fmt(r["nrr"]), _fmt(r["baseline_nrr"]),
               _fmt(r["reward_final"]), _fmt(r["steps_final"]), _fmt(r["success_final"]))
              for r in rows), title="Tables 5.1 / 5.3 shape"))
    return sec


def _comarl_extra(s: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The episode-level figure and the thesis reading of a DP PE-VDN run (if recorded)."""
    out: list[tuple[str, str]] = []
    ep = s.get("episode")
    if isinstance(ep, dict):
        out.append((f"episode (≤ {ep.get('group')} transitions)",
                    "unbounded: " + str(ep.get("epsilon_reason")) if ep.get("epsilon") is None
                    else f"({_fmt(ep.get('epsilon'))}, {_fmt(ep.get('delta'), 3)}) by group "
                         "privacy"))
    th = s.get("thesis_reading")
    if isinstance(th, dict) and th.get("epsilon") is not None:
        out.append(("thesis reading", f"ε = {_fmt(th.get('epsilon'))} under add/remove-one "
                                      "with RDP, as the dissertation states it — not a "
                                      "guarantee for the buffer"))
    return tuple(out)


@reporter("comarl")
def _comarl_section(project: Any, run: Any) -> Section:
    """A PE-VDN training: learning, PE-vs-central agreement, (ε, δ), the leakage inspector."""
    s, p = run.summary, run.params
    nets = " with networks" if p.get("agent") == "net" else ""
    sec = Section(f"PE-Co-MARL{nets}: {p.get('agents')} agents ({run.id})", id=f"run-{run.id}")
    eps = s.get("epsilon")
    sec.blocks.append(KeyValues((
        ("randomness", _mode_text(run)),
        ("team return, last 10 % of episodes", f"PE-VDN {_fmt(s.get('team_return'))}, "
                                               f"plain VDN {_fmt(s.get('central_team_return'))}"
                                               " (two trainings: differ by chance)"),
        ("max |A_PE − A_central| (same tables)",
         f"{_fmt(s.get('pe_vs_central_max_diff'), 3)}: secure-sum encoding error (bound "
         f"{_fmt(s.get('pe_vs_central_bound'), 3)})"),
        ("overhead of secure summation", f"×{_fmt(s.get('overhead'))}"),
        ("(ε, δ)", "unbounded: " + str(s.get("epsilon_reason")) if eps is None
         else f"({_fmt(eps)}, {_fmt(s.get('delta'), 3)}) per transition, replace-one "
              "(one entry of the fixed-size replay buffer replaced; Theorem 4.2 window)"),
        *_comarl_extra(s),
        ("created", _time(run.created))), "Training"))
    sec.blocks.append(Table(("agent", "can compute", "DP"), tuple(
        (str(r["agent"]), str(r["learns"]), str(r["dp"])) for r in s.get("leakage") or []),
        title="Leakage inspector"))
    return sec
