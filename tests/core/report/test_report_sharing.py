"""The policy-sharing report section states the learning protocol the run used."""

from __future__ import annotations

import pytest

from core.mdp.examples import four_startups
from core.project.model import Project
from core.report.html import build_report
from core.report.model import Figure, KeyValues


def _section(setup):
    from core.project.recording import record_run, sharing_run_record
    from core.sharing.learning import sharing_release
    from core.sharing.records import SharingParameters

    p = Project()
    p.add_mdp(four_startups(), "startups")
    params = SharingParameters("mdp:startups", setup, seeds=2, seed=1)
    res = sharing_release(params, mdp=four_startups())
    rec, entries = sharing_run_record(p, res, params)
    record_run(p, rec, entries)
    return p, rec, next(s for s in build_report(p).sections if s.id == f"run-{rec.id}")


def _items(sec):
    return dict(next(b for b in sec.blocks if isinstance(b, KeyValues)).items)


@pytest.mark.parametrize("protocol, after, protocol_text", [
    ({}, "nothing (the teacher stops)",
     "Exact tabular policy gradient; rewards scaled to max |R|; penalty weighed by "
     "discounted visits; the non-private student imitates π_T itself"),
    ({"after_budget": "random", "gradient": "sampled", "episodes": 3, "reward_scale": "none",
      "penalty_weight": "occupancy", "nonprivate_target": "mixed"},
     "the paper's uniformly random policies",
     "Tabular REINFORCE from 3 roll-outs per iteration (every student explores); raw "
     "rewards; penalty weighed by normalised occupancy; the non-private student imitates "
     "the η-mixed π̃_T"),
])
def test_the_section_names_the_protocol(protocol, after, protocol_text):
    from core.sharing.learning import SharingSetup

    setup = SharingSetup(k0=20, coef=0.9, eta=0.1, delta=0.01, budget=(1e6, 0.9),
                         iterations=3, draws=2000, **protocol)
    _, _, sec = _section(setup)
    items = _items(sec)
    assert items["after the budget"] == after
    assert items["protocol"] == protocol_text
    caption = next(b for b in sec.blocks if isinstance(b, Figure)).caption
    assert caption.startswith(protocol_text.split(";")[0])


def test_an_older_record_without_the_protocol_has_no_protocol_rows():
    from core.sharing.learning import SharingSetup

    setup = SharingSetup(k0=20, coef=0.9, eta=0.1, delta=0.01, budget=(1e6, 0.9),
                         iterations=3, draws=2000)
    p, rec, _ = _section(setup)
    for key in ("after_budget", "reward_scale", "gradient", "episodes", "penalty_weight",
                "nonprivate_target"):
        rec.params.pop(key)
    sec = next(s for s in build_report(p).sections if s.id == f"run-{rec.id}")
    assert not {"after the budget", "protocol"} & set(_items(sec))
