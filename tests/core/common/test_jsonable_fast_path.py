"""jsonable's fast path (a list of plain values copied as it is) gives what the element-by-
element walk gives, on random nested values with numpy scalars and arrays, ±∞ and NaN."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from core.common.jsonable import UNBOUNDED, _is_bad, _scalar, _why, jsonable


def walk(obj):
    """The element-by-element walk jsonable did before its fast path (the reference)."""
    obj = _scalar(obj)
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    if isinstance(obj, dict):
        out, reasons = {}, {}
        for key, value in obj.items():
            value = _scalar(value)
            if isinstance(value, np.ndarray):
                value = value.tolist()
            if _is_bad(value):
                out[key] = None
                reasons[f"{key}_reason"] = _why(float(value))
            elif isinstance(value, (list, tuple)) and any(_is_bad(_scalar(v)) for v in value):
                vals = [_scalar(v) for v in value]
                out[key] = [None if _is_bad(v) else walk(v) for v in vals]
                reasons[f"{key}_reason"] = [_why(float(v)) if _is_bad(v) else None
                                            for v in vals]
            else:
                out[key] = walk(value)
        for rk, rv in reasons.items():
            if out.get(rk) is None:
                out[rk] = rv
        return out
    if isinstance(obj, (list, tuple)):
        return [None if _is_bad(_scalar(v)) else walk(v) for v in obj]
    if _is_bad(obj):
        return None
    return obj


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20), st.text(max_size=3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True).map(np.float64),
    st.integers(-100, 100).map(np.int64), st.booleans().map(np.bool_))
arrays = st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4).map(np.array)
values = st.recursive(st.one_of(scalars, arrays), lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.sampled_from(["a", "b", "c_reason", "d"]), inner, max_size=4)),
    max_leaves=20)


def _same(a, b) -> bool:
    return json.dumps(a, allow_nan=False, sort_keys=True) == json.dumps(
        b, allow_nan=False, sort_keys=True) and type(a) is type(b)


@given(values)
def test_the_fast_path_gives_the_walks_result(value):
    assert _same(jsonable(value), walk(value))


def test_a_list_of_plain_values_is_a_copy_and_a_non_finite_one_is_not_plain():
    xs = [1, 2.5, "x", None, True]
    out = jsonable(xs)
    assert out == xs and out is not xs
    assert jsonable([1.0, math.inf, float("nan")]) == [1.0, None, None]
    assert jsonable({"v": [1.0, -math.inf]}) == {"v": [1.0, None],
                                                  "v_reason": [None, UNBOUNDED]}


@given(values)
def test_a_digest_is_that_of_the_walked_value(value):
    """snapshot.digest skips jsonable when the value is strict JSON already: the text hashed
    is the same either way."""
    import hashlib

    from core.project.snapshot import digest

    try:
        text = json.dumps(walk(value), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"), allow_nan=False, default=str)
    except TypeError:  # keys of mixed types cannot be sorted: both ways refuse
        try:
            digest(value)
        except TypeError:
            return
        raise AssertionError("digest took what the walk refuses") from None
    assert digest(value) == hashlib.sha256(text.encode("utf-8")).hexdigest()
