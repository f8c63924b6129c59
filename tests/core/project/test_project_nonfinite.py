"""A run record whose summary holds an unbounded ε must save (null + reason), not crash."""

from __future__ import annotations

import json
import math

from core.project.files import dumps_project, project_from_dict
from core.project.model import Project, RunRecord


def test_unbounded_values_in_a_run_record_save_as_null_with_a_reason() -> None:
    project = Project(name="p")
    project.runs.append(RunRecord(id="run-1", kind="plan", target="m",
                                  params={"epsilon": 1.0},
                                  summary={"epsilon_spent": {"a": math.inf, "b": 0.5},
                                           "curve": [1.0, math.nan]},
                                  mode="experiment", seed=1))
    text = dumps_project(project)
    doc = json.loads(text)  # strict JSON: no Infinity / NaN
    summary = doc["project"]["runs"][0]["summary"]
    assert summary["epsilon_spent"] == {"a": None, "b": 0.5,
                                        "a_reason": "no finite bound (unbounded)"}
    assert summary["curve"] == [1.0, None] and summary["curve_reason"][1]
    back = project_from_dict(doc)
    assert back.runs[0].summary["epsilon_spent"]["a"] is None
