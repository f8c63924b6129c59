"""More unit tests of model files: the ``*.mdp.json`` / ``*.mdp.npz`` formats
(core.mdp.files) and the Storm DRN / PRISM explicit formats (core.mdp.interop): the text
helpers, edge-case round trips (one state, unicode names, holes in action sets, exact
probabilities such as 1/3), the release metadata, and errors naming their field or file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.files import load_mdp, mdp_from_dict, mdp_to_dict, npz_headers, read_release, save_mdp
from core.mdp.interop import import_model, read_prism, write_prism
from core.mdp.interop.common import (
    choice_name,
    horizon_and_discount,
    identifier,
    number_text,
    number_texts,
    parse_probability,
    unlabelled,
)
from core.mdp.interop.drn import read_drn, write_drn
from core.mdp.model import MDP

# ------------------------------------------------------------------------------ text helpers


@pytest.mark.parametrize("x, text", [
    (0.0, "0"), (3.0, "3"), (-7.0, "-7"), (0.1, "0.1"), (1 / 3, repr(1 / 3)),
    (2.0**53, repr(2.0**53)), (1e300, "1e+300"), (5e-324, "5e-324"), (math.inf, "inf"),
    (-math.inf, "-inf"),
])
def test_number_text_is_short_and_exact(x: float, text: str) -> None:
    assert number_text(x) == text
    assert float(text) == x


def test_number_text_of_nan_reads_back_as_nan() -> None:
    assert math.isnan(float(number_text(math.nan)))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                          st.integers(-2**60, 2**60).map(float)), min_size=1, max_size=20))
def test_number_texts_read_back_exactly_and_equal_number_text(values: list[float]) -> None:
    arr = np.array(values)
    texts = number_texts(arr)
    assert [float(t) for t in texts] == values
    assert texts == [number_text(x) for x in values]


def test_number_texts_with_non_finite_values_take_the_scalar_path() -> None:
    assert number_texts(np.array([1.0, math.inf, 0.5])) == ["1", "inf", "0.5"]


@pytest.mark.parametrize("text, value", [
    ("0.5", 0.5), (".5", 0.5), ("5.6e-6", 5.6e-6), ("1/3", 1 / 3), (" 2 / 4 ", 0.5),
    ("0/7", 0.0), ("1", 1.0), ("123456789012345678901/123456789012345678901", 1.0),
])
def test_parse_probability_reads_decimals_and_fractions(text: str, value: float) -> None:
    assert parse_probability(text) == value


@pytest.mark.parametrize("text", ["1/0", "inf", "-inf", "nan", "abc", "1/2/3", "", "½"])
def test_parse_probability_refuses_with_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_probability(text)


@pytest.mark.parametrize("name, ident", [
    ("go", "go"), ("_x1", "_x1"), ("go left", "go_left"), ("9lives", "_9lives"), ("", "_"),
    ("é", "_"), ("a-b.c", "a_b_c"), ("Ünïcode", "_n_code"),
])
def test_identifier_makes_prism_identifiers(name: str, ident: str) -> None:
    out = identifier(name)
    assert out == ident
    assert identifier(out) == out  # idempotent


def test_choice_names_and_unlabelled() -> None:
    assert choice_name(4) == "choice 4"
    assert unlabelled(choice_name(4), 4)
    assert not unlabelled(choice_name(4), 3)
    assert not unlabelled("choice x", 0) and not unlabelled("choice 1 ", 1)
    assert not unlabelled("go", 0)


def test_horizon_and_discount_defaults() -> None:
    assert horizon_and_discount(5, None) == (5, 1.0, "")
    assert horizon_and_discount(5, 0.9) == (5, 0.9, "")
    assert horizon_and_discount(None, 0.8) == (None, 0.8, "")
    h, d, note = horizon_and_discount(None, None)
    assert h is None and 0 < d < 1 and f"{d}" in note and "--horizon" in note


def test_import_of_a_drn_beside_other_files_names_the_argument(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        import_model([str(tmp_path / "m.drn"), str(tmp_path / "m.lab")])
    assert exc.value.field == "FILE"


# ------------------------------------------------------------------------------ models


def _unicode_model(horizon: int | None = None) -> MDP:
    P = np.zeros((3, 2, 3))
    P[0, 0] = [1 / 3, 1 / 3, 1 / 3]
    P[0, 1] = [0.0, 0.1, 0.9]
    P[1, 0, 2] = 1.0
    P[2, 0, 2] = 1.0
    mask = np.array([[True, True], [True, False], [True, False]])
    return MDP(P=P, R=np.array([[1.5, -2.0], [0.0, 0.0], [1e-300, 0.0]]),
               R_T=np.array([0.0, 0.0, 4.0]), mask=mask, horizon=horizon,
               discount=0.9 if horizon is None else 1.0, initial_state=1,
               state_names=["départ", "milieu ∞", "終わり"],
               action_names=[["aller", "rester"], ["aller", ""], ["fin", ""]],
               name="Ünïcode", layout={"départ": (0.0, 1.5), "終わり": (-2.0, 1e6)})


@pytest.mark.parametrize("suffix", [".mdp.json", ".mdp.npz"])
def test_unicode_model_round_trips_with_layout_and_exact_numbers(tmp_path: Path,
                                                                 suffix: str) -> None:
    m = _unicode_model()
    path = tmp_path / ("modèle" + suffix)
    save_mdp(m, path)
    back = load_mdp(path)
    # an NPZ keeps no name (the file's stem is taken) and no layout (JSON only)
    assert back.replace(name=m.name) == m
    assert back.P[0, 0, 1] == 1 / 3 and back.R[2, 0] == 1e-300  # bit-exact
    assert back.state_names == m.state_names and back.initial_state == 1
    if suffix == ".mdp.npz":
        assert back.name == "modèle" and back.layout is None
    else:
        assert back.layout == {"départ": (0.0, 1.5), "終わり": (-2.0, 1e6)}
        assert back.name == "Ünïcode"


@pytest.mark.parametrize("suffix", [".mdp.json", ".mdp.npz"])
def test_one_state_model_round_trips(tmp_path: Path, suffix: str) -> None:
    m = MDP(P=np.ones((1, 1, 1)), R=np.array([[2.0]]), R_T=np.zeros(1), horizon=None,
            discount=0.1 + 0.2)
    save_mdp(m, tmp_path / ("one" + suffix))
    back = load_mdp(tmp_path / ("one" + suffix))
    assert back.replace(name="") == m and back.discount == 0.1 + 0.2


def test_json_dict_of_a_model_is_plain_json_and_reads_back() -> None:
    m = _unicode_model(horizon=4)
    d = mdp_to_dict(m)
    text = json.dumps(d, allow_nan=False, ensure_ascii=False)
    again = mdp_from_dict(json.loads(text))
    assert again == m
    # sparse: zero probabilities and zero rewards are not written
    assert "départ" not in d["transitions"]["départ"]["rester"]
    assert d["rewards"] == {"départ": {"aller": 1.5, "rester": -2.0}, "終わり": {"fin": 1e-300}}
    assert d["terminal_rewards"] == {"終わり": 4.0}
    assert d["horizon"] == 4 and d["initial_state"] == "milieu ∞"


@pytest.mark.parametrize("change, field", [
    ({"format": "other"}, "format"), ({"version": 0}, "version"), ({"version": True}, "version"),
    ({"version": 10**9}, "version"), ({"layout": {"départ": [1.0]}}, "layout.départ"),
    ({"layout": {"départ": [1.0, math.nan]}}, "layout.départ"),
    ({"layout": {"départ": ["x", 1.0]}}, "layout.départ"), ({"layout": [1, 2]}, "layout"),
    ({"terminal_rewards": {"終わり": "4"}}, "terminal_rewards.終わり"),
    ({"rewards": {"départ": {"aller": math.inf}}}, "rewards.départ.aller"),
    ({"horizon": 2.5}, "horizon"), ({"discount": "0.9"}, "discount"),
])
def test_dict_errors_name_their_field(change: dict, field: str) -> None:
    d = mdp_to_dict(_unicode_model())
    d.update(change)
    with pytest.raises(InputError) as exc:
        mdp_from_dict(d)
    assert exc.value.field == field


def test_initial_state_may_be_an_index_or_a_name() -> None:
    d = mdp_to_dict(_unicode_model())
    d["initial_state"] = 2
    assert mdp_from_dict(d).initial_state == 2
    d["initial_state"] = "départ"
    assert mdp_from_dict(d).initial_state == 0
    for bad in (3, -1, True, "nowhere"):
        d["initial_state"] = bad
        with pytest.raises(InputError) as exc:
            mdp_from_dict(d)
        assert exc.value.field == "initial_state"


@pytest.mark.parametrize("suffix", [".mdp.json", ".mdp.npz"])
def test_release_metadata_round_trips_and_non_finite_numbers_become_null(
        tmp_path: Path, suffix: str) -> None:
    m = _unicode_model()
    path = tmp_path / ("r" + suffix)
    save_mdp(m, path)
    assert read_release(path) is None
    save_mdp(m, path, release={"epsilon": math.inf, "k": 10.0, "note": "ünï"})
    rel = read_release(path)
    assert rel is not None and rel["k"] == 10.0 and rel["note"] == "ünï"
    assert rel["epsilon"] is None and "epsilon_reason" in rel
    assert load_mdp(path).replace(name=m.name) == m  # the metadata does not change the model


def test_unknown_suffix_and_damaged_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        load_mdp(tmp_path / "m.txt")
    assert exc.value.file == str(tmp_path / "m.txt")
    bad = tmp_path / "m.mdp.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InputError) as exc:
        read_release(bad)
    assert exc.value.file == str(bad)
    with pytest.raises(InputError) as exc:
        load_mdp(bad)
    assert exc.value.file == str(bad)
    js = tmp_path / "m.mdp.json"
    js.write_text(json.dumps({"release": [1, 2]}))
    with pytest.raises(InputError) as exc:
        read_release(js)
    assert exc.value.field == "release" and exc.value.file == str(js)


def test_npz_headers_list_shapes_without_loading(tmp_path: Path) -> None:
    m = _unicode_model(horizon=3)
    path = tmp_path / "m.mdp.npz"
    save_mdp(m, path)
    heads = npz_headers(path)
    shape, dtype = heads["R"]
    assert shape == (3, 2) and dtype == np.float64
    assert heads["R_T"][0] == (3,)
    assert "horizon" in heads


# --------------------------------------------------------------------------- DRN and PRISM


def _prism_files(stem: Path) -> list[str]:
    return sorted(str(p) for p in stem.parent.iterdir() if p.name.startswith(stem.name + "."))


@pytest.mark.parametrize("fmt", ["drn", "prism"])
def test_one_state_model_round_trips_through_the_model_checkers_formats(tmp_path: Path,
                                                                        fmt: str) -> None:
    m = MDP(P=np.ones((1, 1, 1)), R=np.array([[0.25]]), R_T=np.zeros(1), horizon=None,
            discount=0.5)
    stem = tmp_path / "one"
    if fmt == "drn":
        files, warnings = write_drn(m, stem)
        back = read_drn(files[0], discount=0.5).mdp
    else:
        files, warnings = write_prism(m, stem)
        back = read_prism(files, discount=0.5).mdp
    assert warnings == []
    assert back.n_states == 1 and back.P[0, 0, 0] == 1.0 and back.R[0, 0] == 0.25
    assert back.discount == 0.5 and back.horizon is None


@pytest.mark.parametrize("fmt", ["drn", "prism"])
def test_exact_probabilities_and_masked_actions_survive(tmp_path: Path, fmt: str) -> None:
    m = _unicode_model(horizon=2)
    stem = tmp_path / "u"
    if fmt == "drn":
        files, warnings = write_drn(m, stem)
        back = read_drn(files[0], horizon=2).mdp
    else:
        files, warnings = write_prism(m, stem)
        back = read_prism(files, horizon=2).mdp
    assert np.array_equal(back.P, m.P)  # 1/3 and 0.1 bit for bit
    assert np.array_equal(back.mask, m.mask)
    assert np.array_equal(back.R, m.R) and np.array_equal(back.R_T, m.R_T)
    assert back.initial_state == 1
    # "aller" and "rester" are identifiers; "fin" too: nothing renamed
    assert not any("identifiers" in w for w in warnings)
    assert back.action_names.name(0, 1) == "rester"


def test_prism_export_renames_non_identifier_actions_with_a_warning(tmp_path: Path) -> None:
    m = _unicode_model().replace(action_names=[["à gauche", "9"], ["x", ""], ["y", ""]])
    files, warnings = write_prism(m, tmp_path / "w")
    (w,) = [w for w in warnings if "identifiers" in w]
    assert w.startswith("2 action name(s)") and "'à gauche'" in w
    back = read_prism(files, discount=0.9).mdp
    assert back.action_names.name(0, 0) == "__gauche"
    assert back.action_names.name(0, 1) == "_9"


def test_drn_header_and_body_are_storms_shape(tmp_path: Path) -> None:
    m = _unicode_model(horizon=2)
    (path,), _ = write_drn(m, tmp_path / "m")
    text = Path(path).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert [ln for ln in lines if not ln.startswith("//")][0] == "@type: MDP"
    assert lines[lines.index("@nr_states") + 1] == "3"
    assert lines[lines.index("@nr_choices") + 1] == "4"
    assert any(line.startswith("state 1") and "init" in line for line in lines)
    assert "\t\t0 : " + repr(1 / 3) in lines


@pytest.mark.parametrize("fmt", ["drn", "prism"])
def test_reading_with_a_horizon_and_a_discount(tmp_path: Path, fmt: str) -> None:
    m = _unicode_model()
    stem = tmp_path / "hd"
    if fmt == "drn":
        files, _ = write_drn(m, stem)
        back = read_drn(files[0], horizon=5, discount=0.5).mdp
        default = read_drn(files[0])
    else:
        files, _ = write_prism(m, stem)
        back = read_prism(files, horizon=5, discount=0.5).mdp
        default = read_prism(files)
    assert back.horizon == 5 and back.discount == 0.5
    assert default.mdp.horizon is None and 0 < default.mdp.discount < 1
    assert any("--horizon" in w for w in default.warnings)
    assert default.n_choices == 4


def test_drn_errors_name_the_file(tmp_path: Path) -> None:
    p = tmp_path / "bad.drn"
    p.write_text("@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n"
                 "2\n@model\nstate 0 init\n\taction go\n\t\t1 : 0.5\nstate 1\n"
                 "\taction stay\n\t\t1 : 1\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_drn(p)
    assert exc.value.file is not None and "bad.drn" in str(exc.value)
    q = tmp_path / "ctmc.drn"
    q.write_text("@type: CTMC\n@parameters\n\n@nr_states\n1\n@model\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_drn(q)
    assert "ctmc.drn" in str(exc.value)
