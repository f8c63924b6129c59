"""The PDF's route figure (pyqtgraph) draws a marker for every location of the map."""

from __future__ import annotations

from gui.report.export import figure_image, figure_plot


def test_the_pdf_route_figure_draws_every_location_as_a_marker(qapp):
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.logistics.planner import PlannerParams
    from core.logistics.release import PlanParameters, plan_release
    from core.project.model import Project
    from core.project.recording import plan_run_record, record_run
    from core.report import build_report

    p = Project(name="routes")
    p.maps.append(MapEntry("map-1", fig41()))
    params = PlanParameters("a2", "f", planner=PlannerParams.preset_params(epsilon=1.0),
                            seed=3)
    rec, entries = plan_run_record(p, plan_release(params, world=p.maps[0].world), params,
                                   map_id="map-1", map_label=p.maps[0].label)
    record_run(p, rec, entries)
    fig = next(f for f in build_report(p).figures() if f.id == f"{rec.id}-route")
    widget = figure_plot(fig)
    try:
        marked = {}
        for item in widget.getPlotItem().listDataItems():
            if item.opts.get("pen") is None and item.opts.get("symbol"):  # markers only
                marked[item.name()] = len(item.getData()[0])
        n = p.maps[0].world.graph.number_of_nodes()
        assert marked["bases"] + marked["logistic centers"] == n
        assert marked["origin a2"] == 1 and any(k.startswith("destination") for k in marked)
    finally:
        widget.deleteLater()
    assert not figure_image(fig).isNull()
