"""The domain's names and icons on the map canvas (air and rover maps, thesis §4.7).

:func:`decorate_domain` runs after :class:`gui.logistics.map_view.MapCanvas` drew a map.
For a map whose ``graph.domain`` is ``air`` or ``rover`` it

* marks every node with the domain's glyph (:attr:`core.logistics.domains.DomainProfile.icons`:
  ✈ airports and boundary airports, ⚑ refuelling airports; ◆ rover locations, ✚ targets,
  ⇄ hand-over locations), as a child of the node so it follows a drag;
* words the node tooltips in the domain's vocabulary (airport, boundary airport, area
  controller; location, target, hand-over location, rover);
* adds a legend above the drawing with the domain's public parameter (the fuel range, the
  samples' half-life).

A logistics map is left exactly as drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QGraphicsSimpleTextItem

__all__ = ["decorate_domain", "domain_of", "node_words"]

ICON_ROLE = 0x1001  # QGraphicsItem.data key marking a domain icon (tests find them by it)


def domain_of(d: Mapping[str, Any] | None) -> str:
    """The domain named in map dict ``d`` (``logistics`` if none)."""
    g = (d or {}).get("graph") or {}
    dom = g.get("domain", "logistics") if isinstance(g, Mapping) else "logistics"
    return dom if isinstance(dom, str) else "logistics"


def node_words(domain: str, n: Mapping[str, Any]) -> str:
    """The first tooltip line of node dict ``n`` in ``domain``'s words."""
    from core.logistics.domains import profile

    prof = profile(domain)
    v = prof.vocabulary
    nid = n.get("id")
    if n.get("kind") == "center":
        ags = ", ".join(str(a) for a in n.get("agents", ()))
        return f"{v.center} {nid} — public; shared by the {v.agents} {ags}"
    what = prof.label("base", n.get("role"))
    extra = " (its targets are private facts too)" if n.get("role") == "target" else ""
    return (f"{what} {nid} of {v.agent} {n.get('agent')} — private: only {n.get('agent')} "
            f"knows it exists{extra}")


def _icon(domain: str, n: Mapping[str, Any]) -> str:
    from core.logistics.domains import profile

    icons = profile(domain).icons
    if n.get("kind") == "center":
        return icons["center"]
    return icons.get(str(n.get("role")), icons["base"])


def _legend(domain: str, d: Mapping[str, Any]) -> str:
    from core.logistics.domains import profile

    prof = profile(domain)
    v, ic = prof.vocabulary, prof.icons
    params = (d.get("graph") or {}).get("domain_params") or {}
    if domain == "air":
        rng = params.get("fuel_range")
        return (f"{prof.title} (thesis {prof.section}): {ic['base']} {v.base} (private) · "
                f"{ic['center']} on a square: {v.center} (public) · {ic['stop']} refuelling "
                f"airport · fuel range {rng:g} km per {v.route}")
    hl = params.get("half_life")
    return (f"{prof.title} (thesis {prof.section}): {ic['base']} {v.base} · {ic['target']} "
            f"target (both private) · {ic['center']} {v.center} (public, two {v.agents}) · "
            f"samples lose half their value every {hl:g} {v.unit} driven")


def decorate_domain(canvas: Any, d: Mapping[str, Any] | None) -> None:
    """Icons, tooltips and a legend for an air or rover map drawn on ``canvas``.

    Parameters
    ----------
    canvas : MapCanvas
        The canvas that has just drawn ``d`` (its ``node_items`` are current).
    d : Mapping or None
        The map dict.
    """
    from gui.logistics.map_view import BASE_RADIUS, CENTER_HALF, TextItem

    domain = domain_of(d)
    if d is None or domain not in ("air", "rover"):
        return
    font = QFont()
    font.setPointSizeF(9.0)
    for n in d.get("nodes", ()):
        item = canvas.node_items.get(str(n.get("id")))
        if item is None:
            continue
        tip = item.toolTip()
        rest = tip[tip.index("\n"):] if "\n" in tip else ""
        item.setToolTip(node_words(domain, n) + rest)
        glyph = QGraphicsSimpleTextItem(_icon(domain, n), item)
        glyph.setFont(font)
        glyph.setBrush(QBrush(QColor("#1A1A1A")))
        glyph.setData(ICON_ROLE, "icon")
        r = glyph.boundingRect()
        dy = -CENTER_HALF - r.height() + 1 if n.get("kind") == "center" else -r.height() / 2
        glyph.setPos(-r.width() / 2, dy)
        glyph.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
    rect = canvas.drawing_rect()
    legend = TextItem(_legend(domain, d), point_size=8.0, priority=3)
    legend.setData(ICON_ROLE, "legend")
    legend.setZValue(20)
    canvas.graphics_scene.addItem(legend)
    legend.setPos(rect.left(), rect.top() - legend.boundingRect().height() - 2 * BASE_RADIUS)
