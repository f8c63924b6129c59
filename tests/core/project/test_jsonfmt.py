"""core.project.jsonfmt.dumps: the project file's layout is compact where it fits, indented
where it does not, and always the same JSON as json.dumps (finite numbers only)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.project.jsonfmt import dumps

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                                                          allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=5),
    max_leaves=30)


@given(json_values, st.integers(min_value=1, max_value=120), st.integers(0, 4))
def test_dumps_round_trips_and_collapses_what_fits(value: Any, width: int, indent: int) -> None:
    text = dumps(value, indent=indent, width=width)
    assert json.loads(text) == value
    flat = json.dumps(value, ensure_ascii=False)
    if len(flat) <= width or not isinstance(value, (dict, list)) or not value:
        assert text == flat
    else:  # broken at the outer level: one member per line, indented one level
        lines = text.split("\n")
        assert lines[0] in ("{", "[") and lines[-1] in ("}", "]")
        assert all(line.startswith(" " * indent) for line in lines[1:-1])


def test_small_values_stay_on_one_line() -> None:
    assert dumps({"a": [1, 2], "b": {"c": None}}) == '{"a": [1, 2], "b": {"c": null}}'
    assert dumps([]) == "[]" and dumps({}) == "{}"


def test_a_long_value_is_broken_at_its_outer_level_only() -> None:
    value = {"rows": [[0.25, 0.75], [0.5, 0.5]], "name": "x" * 20}
    text = dumps(value, width=30)
    assert text.splitlines() == [
        "{",
        '  "rows": [[0.25, 0.75], [0.5, 0.5]],',
        '  "name": "xxxxxxxxxxxxxxxxxxxx"',
        "}",
    ]
    assert dumps(value, width=30, indent=4).splitlines()[1].startswith('    "rows"')


def test_keys_are_strings_and_text_is_not_escaped() -> None:
    assert dumps({1: "ε ≤ 1"}) == '{"1": "ε ≤ 1"}'
    long = dumps({1: ["ε" * 10, "δ" * 10]}, width=10)
    assert '"1": [' in long and "εεεε" in long


@pytest.mark.parametrize("bad", [math.nan, math.inf, [1.0, -math.inf], {"a": math.nan}])
def test_non_finite_numbers_are_refused(bad: Any) -> None:
    with pytest.raises(ValueError):
        dumps(bad)
