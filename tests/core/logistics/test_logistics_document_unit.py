"""Unit tests of core.logistics.document.MapEntry: an immutable, validated project map."""

from __future__ import annotations

import json

import pytest

from core.common.errors import InputError
from core.logistics.document import MapEntry
from core.logistics.edits import checked, set_length, set_name
from core.logistics.examples import fig41
from core.logistics.io import map_to_dict


def fig_dict(map_id: str = "map-1") -> dict:
    return {"id": map_id, **map_to_dict(fig41())}


def test_round_trip_and_equality():
    e = MapEntry.from_dict(fig_dict())
    d = e.to_dict()
    assert list(d)[0] == "id" and d["id"] == "map-1"
    assert MapEntry.from_dict(d) == e
    assert MapEntry.from_dict(json.loads(json.dumps(d))) == e


def test_entry_from_world_matches_entry_from_dict():
    assert MapEntry("map-1", fig41()) == MapEntry.from_dict(fig_dict())


def test_data_is_canonical_whatever_the_input_order():
    d = fig_dict()
    d["nodes"].reverse()
    d["edges"].reverse()
    assert MapEntry.from_dict(d).to_dict() == checked(fig_dict())


def test_to_dict_is_a_fresh_copy():
    e = MapEntry.from_dict(fig_dict())
    d = e.to_dict()
    d["nodes"][0]["id"] = "changed"
    d["graph"]["name"] = "changed"
    assert e.to_dict()["nodes"][0]["id"] != "changed"
    assert e.label != "changed"


def test_constructor_copies_its_data():
    data = map_to_dict(fig41())
    e = MapEntry("m", fig41(), data)
    data["graph"]["name"] = "mutated later"
    assert e.label == "fig41 (reconstruction of thesis Fig 4.1)"


def test_constructor_drops_an_id_inside_data():
    e = MapEntry("m-2", fig41(), {"id": "other", **map_to_dict(fig41())})
    assert e.to_dict()["id"] == "m-2" and e.id == "m-2"


def test_label_falls_back_to_id():
    d = set_name(fig_dict("map-9"), "")
    assert MapEntry.from_dict(d).label == "map-9"
    assert MapEntry.from_dict(set_name(fig_dict(), "Ω-Karte")).label == "Ω-Karte"


def test_different_ids_or_data_are_not_equal():
    a = MapEntry.from_dict(fig_dict("map-1"))
    assert a != MapEntry.from_dict(fig_dict("map-2"))
    assert a != MapEntry.from_dict(set_length(fig_dict("map-1"), "a1", "a2", 41))
    assert (a == "map-1") is False


def test_unhashable():
    with pytest.raises(TypeError):
        hash(MapEntry.from_dict(fig_dict()))


def test_repr_names_id_and_label():
    r = repr(MapEntry.from_dict(fig_dict()))
    assert r.startswith("MapEntry(id='map-1', label='fig41")


@pytest.mark.parametrize("bad", [None, [], "map", 5])
def test_not_an_object(bad):
    with pytest.raises(InputError) as ei:
        MapEntry.from_dict(bad)
    assert ei.value.field == "maps"


@pytest.mark.parametrize("bad_id", [None, "", 3, ["m"]])
def test_bad_id(bad_id):
    d = fig_dict()
    d["id"] = bad_id
    with pytest.raises(InputError) as ei:
        MapEntry.from_dict(d)
    assert ei.value.field == "maps"
    with pytest.raises(InputError) as ei:
        MapEntry(bad_id, fig41())
    assert ei.value.field == "maps"


def test_errors_name_the_map_and_its_field():
    d = set_length(fig_dict("map-3"), "a1", "a2", 1.0)
    d["edges"][0]["length"] = -1
    with pytest.raises(InputError) as ei:
        MapEntry.from_dict(d)
    e0 = d["edges"][0]
    assert ei.value.field in (f"maps[map-3].edge {e0['source']}-{e0['target']}",
                              f"maps[map-3].edge {e0['target']}-{e0['source']}")


def test_error_without_field_names_the_map_only():
    d = fig_dict("map-4")
    d["graph"]["version"] = 9
    with pytest.raises(InputError) as ei:
        MapEntry.from_dict(d)
    assert ei.value.field == "maps[map-4].graph.version"
    d = fig_dict("map-5")
    d["directed"] = True
    with pytest.raises(InputError) as ei:
        MapEntry.from_dict(d)
    assert ei.value.field == "maps[map-5].map"


def test_world_is_the_validated_map():
    e = MapEntry.from_dict(fig_dict())
    assert e.world.agents == fig41().agents
    assert e.world.n_bases == 29 and len(e.world.tasks) == 2
