"""core.advising.records: the summary and ledger entries of an advising run."""

from __future__ import annotations

import json
import math

from core.advising.framework import run_advising
from core.advising.presets import preset
from core.advising.records import (
    advising_dataset,
    randomness_text,
    rounded_json,
    single_ledger_entries,
    single_summary,
)


def test_single_run_summary_and_ledger_cover_every_release():
    s = preset("exp2", strategy="dp")
    res = run_advising(s, rng=5)
    summary = rounded_json(single_summary(res))
    json.dumps(summary, allow_nan=False)
    entries = single_ledger_entries(res, source="run-1")
    noisy = {e.dataset: e.count for e in entries if math.isfinite(e.epsilon)}
    for a in res.accounting.agents:  # every noisy release of every teacher is counted
        assert noisy.get(advising_dataset(s.name, a.agent), 0) == a.releases
    assert all(e.source == "run-1" and e.mode == res.mode for e in entries)


def test_rounded_json_and_randomness_words():
    assert rounded_json({"a": float("inf"), "b": [1.23456789, 2]}) == {"a": None,
                                                                       "b": [1.23457, 2]}
    assert "release mode" in randomness_text("release", None)
    assert "seeds 3–5" in randomness_text("experiment", None, seeds=[3, 4, 5])
