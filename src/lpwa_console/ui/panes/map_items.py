"""What the map (map_view.py) draws on its scene: the offline world basemap, a cluster of
devices, the device or station shown (the focus) and the devices of a cluster too tight to
split, fanned out around it. The markers keep their size in pixels at every zoom."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterable
from functools import cache
from importlib import resources

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from ...models.device_map import Member, merged
from ...schema.common import Severity
from ...schema.devices import DeviceCluster
from ..map_place import STATION, MapPlace
from .map_parts import CountLabel, MapColors, compact_count, project

SINGLE_RADIUS = 5.0


# --- basemap ------------------------------------------------------------------------------


def _path(lines: Iterable[list[float]], *, closed: bool) -> QPainterPath:
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.OddEvenFill)
    for flat in lines:
        path.moveTo(project(flat[1], flat[0]))
        for i in range(2, len(flat), 2):
            path.lineTo(project(flat[i + 1], flat[i]))
        if closed:
            path.closeSubpath()
    return path


@cache
def basemap() -> tuple[QPainterPath, QPainterPath]:
    """Land polygons and country borders (Natural Earth 1:110m, see basemap/README.md),
    projected once."""
    text = (resources.files("lpwa_console.ui") / "basemap" / "land.json").read_text("utf-8")
    data = json.loads(text)
    return _path(data["land"], closed=True), _path(data["borders"], closed=False)


def cluster_radius(count: int) -> float:
    """Pixels: a dot for one device, then growing with the logarithm of the count."""
    return SINGLE_RADIUS if count <= 1 else 9.0 + 5.0 * math.log10(count)


def cluster_tooltip(cluster: DeviceCluster) -> str:
    item = cluster.item
    if cluster.count == 1 and item is not None:
        lines = [item.name or item.EUI, item.EUI]
        if item.alarmLevel:
            with contextlib.suppress(ValueError):
                lines.append(f"Alarm: {Severity(item.alarmLevel).label}")
        lines.append("Double-click to open")
        return "\n".join(lines)
    return f"{cluster.count:,} device{'' if cluster.count == 1 else 's'}\nDouble-click to zoom in"


def overlapping_groups(clusters: list[DeviceCluster], scale: float) -> list[list[DeviceCluster]]:
    """The clusters whose markers would overlap at this scale (pixels per scene unit), in
    groups to draw as one; the platform's grid cells can split a town in two."""
    groups = [[c] for c in sorted(clusters, key=lambda c: -c.count)]

    def marker(group: list[DeviceCluster]) -> tuple[QPointF, float]:
        one = merged(group)
        return project(one.location.lat, one.location.lng) * scale, cluster_radius(one.count)

    markers = [marker(g) for g in groups]
    i = 0
    while i < len(groups):
        (pi, ri), hit = markers[i], -1
        for j in range(i + 1, len(groups)):
            pj, rj = markers[j]
            d = pi - pj
            if math.hypot(d.x(), d.y()) < ri + rj:
                hit = j
                break
        if hit < 0:
            i += 1
            continue
        groups[i] += groups.pop(hit)
        markers.pop(hit)
        markers[i] = marker(groups[i])
        i = 0  # a bigger marker may now touch one already passed
    return groups


class ClusterItem(QGraphicsItem):
    """One cluster: a disc whose size says how many devices, with the count inside; one
    device is a small dot (in its alarm's severity colour)."""

    def __init__(self, cluster: DeviceCluster, colors: MapColors) -> None:
        super().__init__()
        self.cluster = cluster
        self.radius = cluster_radius(cluster.count)
        self.label = compact_count(cluster.count) if cluster.count > 1 else ""
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPos(project(cluster.location.lat, cluster.location.lng))
        self.setToolTip(cluster_tooltip(cluster))
        self.setZValue(10 + 1 / (1 + cluster.count))  # small ones on top of big ones
        self.count_label: CountLabel | None = None
        if self.label:
            size = max(9, min(13, int(self.radius * 0.8)))
            self.count_label = CountLabel(self.pos(), self.boundingRect(), self.label, size)
        self.set_colors(colors)

    @property
    def level(self) -> int:
        item = self.cluster.item
        return item.alarmLevel if item is not None and self.cluster.count == 1 else 0

    def set_colors(self, colors: MapColors) -> None:
        if self.cluster.count > 1:
            self.fill = colors.cluster
        else:
            self.fill = colors.severity(self.level) if self.level else colors.device
        self.text_color = colors.cluster_text
        self.outline = colors.outline
        if self.count_label is not None:
            self.count_label.color = QColor(self.text_color)
            self.count_label.update()
        self.update()

    def boundingRect(self) -> QRectF:
        r = self.radius + 1.5
        return QRectF(-r, -r, 2 * r, 2 * r)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        r = max(self.radius, 7.0)  # a dot is easier to hit than it looks
        path.addEllipse(QPointF(0, 0), r, r)
        return path

    def paint(
        self,
        painter: QPainter,
        _option: QStyleOptionGraphicsItem,
        _widget: QWidget | None = None,
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(self.outline, 1.5))
        painter.setBrush(QBrush(self.fill))
        painter.drawEllipse(QPointF(0, 0), self.radius, self.radius)
        # The count is its own item (`count_label`), above every layer's markers.


FOCUS_Z = 60.0  # the device or station shown: above every marker and count
FAN_Z = 55.0
FAN_SPLIT_PX = 24  # a cluster narrower than this at the deepest zoom cannot split: fan out
FAN_RADIUS_PX = 40.0


class FocusItem(QGraphicsItem):
    """The device or station "Show on map" went to (or a click picked): a ring in the
    highlight colour with its name, above every marker, at its very place, so it is never
    lost inside a cluster."""

    def __init__(self, place: MapPlace, name: str, colors: MapColors) -> None:
        super().__init__()
        self.place, self.colors = place, colors
        self.name = name or place.ident
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPos(project(place.lat, place.lon))
        self.setZValue(FOCUS_Z)
        self._tooltip()

    def _tooltip(self) -> None:
        what = "base station" if self.place.kind == STATION else "device"
        self.setToolTip(f"{self.name}\nThe {what} shown\nDouble-click or Enter to open")

    def set_name(self, name: str) -> None:
        if name and name != self.name:
            self.prepareGeometryChange()
            self.name = name
            self._tooltip()

    def _label_rect(self) -> QRectF:
        metrics = QFontMetricsF(QFont())
        height = metrics.height()
        return QRectF(14, -height / 2 - 2, metrics.horizontalAdvance(self.name) + 10, height + 4)

    def boundingRect(self) -> QRectF:
        return QRectF(-13, -13, 26, 26).united(self._label_rect()).adjusted(-2, -2, 2, 2)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addEllipse(QPointF(0, 0), 11, 11)
        return path

    def paint(
        self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        ring = QColor(self.colors.device)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(self.colors.outline, 5))
        painter.drawEllipse(QPointF(0, 0), 10, 10)
        painter.setPen(QPen(ring, 3))
        painter.drawEllipse(QPointF(0, 0), 10, 10)
        painter.setPen(QPen(self.colors.outline, 1.5))
        painter.setBrush(ring)
        painter.drawEllipse(QPointF(0, 0), SINGLE_RADIUS, SINGLE_RADIUS)
        label = self._label_rect()
        plate = QColor(self.colors.outside)
        plate.setAlphaF(0.85)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(plate)
        painter.drawRoundedRect(label, 3, 3)
        painter.setPen(self.colors.scale_text)
        painter.setFont(QFont())
        painter.drawText(label, Qt.AlignmentFlag.AlignCenter, self.name)


class FanItem(QGraphicsItem):
    """One of several items sharing a place, drawn apart on a circle around it with a line
    to the place (a click picks it, a double-click opens it)."""

    def __init__(self, member: Member, place: QPointF, offset: QPointF, colors: MapColors) -> None:
        super().__init__()
        self.member, self.offset, self.colors = member, QPointF(offset), colors
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPos(place)
        self.setZValue(FAN_Z)
        self.setToolTip(f"{member.name}\n{member.ident}\nDouble-click to open")

    def boundingRect(self) -> QRectF:
        return QRectF(QPointF(0, 0), self.offset).normalized().adjusted(-9, -9, 9, 9)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addEllipse(self.offset, 8, 8)
        return path

    def paint(
        self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = self.colors.device
        painter.setPen(QPen(fill, 1))
        painter.drawLine(QPointF(0, 0), self.offset)
        painter.setPen(QPen(self.colors.outline, 1.5))
        painter.setBrush(fill)
        if self.member.kind == STATION:
            painter.drawRoundedRect(QRectF(self.offset - QPointF(6, 6), QSizeF(12, 12)), 2, 2)
        else:
            painter.drawEllipse(self.offset, 6, 6)


def fan_offsets(n: int) -> list[QPointF]:
    """Pixel offsets of n items on a circle around their place, wider for more items."""
    radius = max(FAN_RADIUS_PX, n * 20 / (2 * math.pi))
    return [
        QPointF(
            radius * math.cos(2 * math.pi * i / n - math.pi / 2),
            radius * math.sin(2 * math.pi * i / n - math.pi / 2),
        )
        for i in range(n)
    ]
