"""A plan run's route figure draws the map: its routes in grey, every location as a marker
by its role (bases, logistic centers, the task's origin and destination), the planned route
over them — and has one even when the map stores no positions (laid out as the map editor
draws it, core.logistics.layout_positions)."""

from __future__ import annotations

from core.project.model import Project
from core.report import build_report
from core.report.model import Figure, Series
from core.report.svg import svg_plot


def _plan_project(*, drop_positions: bool = False):
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.logistics.planner import PlannerParams
    from core.logistics.release import PlanParameters, plan_release
    from core.project.recording import plan_run_record, record_run

    world = fig41()
    if drop_positions:
        for _, d in world.graph.nodes(data=True):
            d.pop("pos", None)
    p = Project(name="routes")
    p.maps.append(MapEntry("map-1", world))
    params = PlanParameters("a2", "f", planner=PlannerParams.preset_params(epsilon=1.0),
                            seed=3)
    release = plan_release(params, world=world)
    result = release.result
    rec, entries = plan_run_record(p, release, params, map_id="map-1",
                                   map_label=p.maps[0].label)
    record_run(p, rec, entries)
    fig = next(f for f in build_report(p).figures() if f.id == f"{rec.id}-route")
    return world, result, fig


def _markers(fig: Figure) -> dict[str, Series]:
    return {s.name: s for s in fig.series if s.markers}


def test_the_route_figure_marks_every_location_by_its_role():
    world, result, fig = _plan_project()
    marks = _markers(fig)
    g = world.graph
    bases = [v for v, d in g.nodes(data=True) if d["kind"] == "base"]
    centers = [v for v, d in g.nodes(data=True) if d["kind"] == "center"]
    assert len(marks["bases"].x) == len(bases) and len(marks["logistic centers"].x) == \
        len(centers)
    assert marks["bases"].symbol != marks["logistic centers"].symbol
    # every location's marker sits where the map draws it (y flipped, as on screen)
    drawn = {(x, y) for s in (marks["bases"], marks["logistic centers"])
             for x, y in zip(s.x, s.y)}
    assert drawn == {(float(d["pos"][0]), -float(d["pos"][1])) for _, d in g.nodes(data=True)}
    origin = marks["origin a2"]
    assert (origin.x[0], origin.y[0]) == (g.nodes["a2"]["pos"][0], -g.nodes["a2"]["pos"][1])
    assert f"destination {result.route[-1]}" in marks
    svg = svg_plot(fig)  # the markers are drawn: circles, squares, the ends
    assert svg.count("<rect") >= len(centers) and svg.count("<circle") >= len(bases)


def test_a_map_without_positions_still_gets_its_route_figure():
    world, result, fig = _plan_project(drop_positions=True)
    marks = _markers(fig)
    n = world.graph.number_of_nodes()
    assert sum(len(s.x) for k, s in marks.items() if k in ("bases", "logistic centers")) == n
    points = {(x, y) for s in marks.values() for x, y in zip(s.x, s.y)}
    assert len(points) >= n  # laid out: distinct places, not all at the origin
    assert "laid out automatically" in fig.caption
    routes = fig.series[0]
    assert routes.segments and len(routes.x) == 2 * world.graph.number_of_edges()
