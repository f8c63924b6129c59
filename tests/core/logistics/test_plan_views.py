"""``plan``'s text output keeps the evaluator's view apart from the release.

The executed route (intermediate agents' real bases) and its exact length are computed on the
true maps by the experimenter; the planner's agents never exchange them, and "route lengths
are never released". The text labels that block as the evaluator's view; the rest of the
output names no intermediate agent's base and no exact length.
"""

from __future__ import annotations

import io
import json
import re

from core.cli.main import run_cli
from core.logistics.io import load_map

MAP = "assets/examples/fig41.map.json"
ARGV = ["plan", MAP, "--origin", "a1", "--goal-agent", "f", "--epsilon", "1", "--seed", "1"]


def _run(*extra: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert run_cli(ARGV + list(extra), out, err) == 0, err.getvalue()
    return out.getvalue()


def test_text_release_view_names_no_private_base_and_no_length():
    world = load_map(MAP)
    js = json.loads(_run("--json"))
    assert js["success"]
    text = _run()
    head, sep, tail = text.partition("evaluator's view")
    assert sep, "the evaluator's view must be labelled"
    label = tail.splitlines()[0]
    assert "not released" in label and "privacy" in label
    # what the origin agent may name: its own bases (the task input) and the public centers
    private = {b for a in world.agents if a != "a" for b in world.bases[a]}
    words = set(re.findall(r"[A-Za-z0-9_]+", head))
    assert not words & private, sorted(words & private)
    assert f"{js['length']:g}" not in re.findall(r"[0-9.]+", head)
    # the evaluator's block has the route and the exact lengths, labelled
    assert " ".join(js["route"]) in tail and f"length {js['length']:g}" in tail
    # the release view still says what the plan is: the public centers
    assert " -> ".join(js["centers"]) in head


def test_json_marks_the_evaluator_keys():
    js = json.loads(_run("--json"))
    assert set(js["evaluator_keys"]) >= {"route", "length", "shortest_length", "stretch",
                                         "segments"}
    assert "not released" in js["evaluator_view"]
