"""The map pane: the devices as the platform's clusters over an offline world basemap.

The scene is in Web Mercator, in degree-like units: x is the longitude, y the Mercator
northing scaled to degrees (the world is the square -180..180 both ways) and negated so north
is up. Cluster markers ignore the view's transformation, so they keep their size in pixels
while the land scales. The view tells the view-model which box is visible; the view-model
answers with clusters (debounced, stale answers dropped).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QCloseEvent,
    QColor,
    QContextMenuEvent,
    QFont,
    QFontMetricsF,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QResizeEvent,
    QShowEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QStyleOptionGraphicsItem,
    QVBoxLayout,
    QWidget,
)

from ...models.device_map import DeviceMapViewModel, GeoBox, Member, merged
from ...models.pane_access import NO_DATA_WORDS
from ...models.rights import AccountRights
from ...models.station_map import StationMapViewModel
from ...models.tiles import TileKey, TileLayerViewModel, tiles_for_rect, zoom_for_scale
from ...schema.common import Severity
from ...schema.devices import DeviceCluster
from ..connections import SignalConnections
from ..first_page import FIRST_PAGE_TIMEOUT_S
from ..map_place import DEVICE, STATION, MapPlace
from ..navigator import Location
from ..pane import Pane
from ..widgets.pane_parts import PaneMessage, TableOrEmpty, busy_bar, tab_order
from .map_parts import CountLabel, MapColors, compact_count, project, unproject
from .map_tiles import BasemapButton, TileLayerItem

if TYPE_CHECKING:
    from .station_layer import StationLayer

WORLD = QRectF(-180.0, -180.0, 360.0, 360.0)
MAX_SCALE = 200_000.0  # pixels per degree of longitude: about half a metre a pixel
MIN_FIT_SPAN = 0.02  # degrees: fitting one device does not zoom to the street
FIT_PADDING = 0.15  # of the box, on each side
WHEEL_STEP = 1.25  # zoom factor of one wheel notch
KEY_ZOOM = 1.5
KEY_PAN = 0.2  # of the viewport
DOUBLE_CLICK_ZOOM = 3.0
SINGLE_RADIUS = 5.0
EARTH_M_PER_DEGREE = 111_319.49  # along the equator (WGS 84)
SCALE_BAR_PX = 100  # about this long


# --- projection ---------------------------------------------------------------------------


def nice_length(metres: float) -> float:
    """The largest 1, 2 or 5 times a power of ten not above `metres`."""
    if metres <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(metres))
    return max(m * power for m in (1, 2, 5) if m * power <= metres)


def box_rect(box: GeoBox) -> QRectF:
    """The scene rectangle of a latitude/longitude box."""
    return QRectF(project(box.max_lat, box.min_lon), project(box.min_lat, box.max_lon))


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


# --- the view -----------------------------------------------------------------------------


class MapView(QGraphicsView):
    """Pan (drag, arrows), zoom (wheel around the cursor, +/-), double-click a cluster to
    zoom into it. `box_changed` carries the visible latitude/longitude box."""

    box_changed = Signal(object)  # GeoBox | None
    device_activated = Signal(str)  # the EUI of a one-device marker double-clicked
    station_activated = Signal(str)  # the LRR ID of a one-station marker double-clicked
    box_selected = Signal(object)  # GeoBox: drawn with Shift+drag (or in box mode)
    box_mode_changed = Signal(bool)  # box selection armed or not
    menu_requested = Signal(QPoint)  # right-click: viewport position
    fan_requested = Signal(str, object, QPointF)  # kind, GeoBox, scene point: list its items
    clusters_laid_out = Signal()  # markers drawn anew (new clusters, or a new scale)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.map_scene = QGraphicsScene(self)
        self.map_scene.setSceneRect(WORLD)
        self.setScene(self.map_scene)
        self.setObjectName("deviceMap")
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        land, borders = basemap()
        self.sea = QGraphicsRectItem(WORLD)
        self.sea.setZValue(-2)
        self.land = QGraphicsPathItem(land)
        self.land.setZValue(0)
        self.borders = QGraphicsPathItem(borders)
        self.borders.setZValue(1)
        self.tiles = TileLayerItem()
        for item in (self.sea, self.land, self.tiles, self.borders):
            self.map_scene.addItem(item)
        self.cluster_items: list[ClusterItem] = []
        self.clusters: list[DeviceCluster] = []  # as answered; drawn merged where they touch
        self._layout_scale = 0.0
        self.colors = MapColors(self.palette())
        self.fit_target: GeoBox | None = GeoBox.world()  # kept fitted until the user moves
        self._emitting = True
        self.station_items: list[QGraphicsItem] = []
        self.box_mode = False  # the next left drag draws a box (as Shift+drag does)
        self.focus_item: FocusItem | None = None  # the device or station shown / picked
        self.fan_items: list[FanItem] = []  # the items of a place, drawn apart around it
        self._press_pos: QPointF | None = None  # a left press not yet released (a click?)
        self._band_start: QPointF | None = None  # viewport point where a box was started
        self.attribution = ""  # the basemap's credit, drawn over it
        self.notice = ""  # why the basemap is not drawn
        self.apply_colors()

    # --- colours and clusters -----------------------------------------------------------

    def apply_colors(self) -> None:
        self.colors = colors = MapColors(self.palette())
        self.setBackgroundBrush(colors.outside)
        self.sea.setBrush(colors.sea)
        self.sea.setPen(Qt.PenStyle.NoPen)
        coast = QPen(colors.coast, 1)
        coast.setCosmetic(True)
        self.land.setPen(coast)
        self.land.setBrush(colors.land)
        border = QPen(colors.border, 1, Qt.PenStyle.DashLine)
        border.setCosmetic(True)
        self.borders.setPen(border)
        for item in self.cluster_items:
            item.set_colors(colors)
        for station in self.station_items:
            station.update()
        marks: list[FanItem | FocusItem] = [*self.fan_items]
        if self.focus_item is not None:
            marks.append(self.focus_item)
        for mark in marks:
            mark.colors = colors
            mark.update()

    def set_station_items(self, items: list[QGraphicsItem]) -> None:
        """The base station layer's markers (made by the pane), drawn above the devices."""
        for item in self.station_items:
            self._remove_marker(item)
        self.station_items = items
        for item in items:
            self._add_marker(item)
        self._name_focus()

    def _add_marker(self, item: QGraphicsItem) -> None:
        """A marker and its count (drawn above every layer's markers)."""
        self.map_scene.addItem(item)
        label = getattr(item, "count_label", None)
        if label is not None:
            self.map_scene.addItem(label)

    def _remove_marker(self, item: QGraphicsItem) -> None:
        self.map_scene.removeItem(item)
        label = getattr(item, "count_label", None)
        if label is not None:
            self.map_scene.removeItem(label)

    def set_box_mode(self, on: bool) -> None:
        """Arm (or disarm) box selection: the next left drag draws a box."""
        if on != self.box_mode:
            self.box_mode = on
            self.viewport().setCursor(
                Qt.CursorShape.CrossCursor if on else Qt.CursorShape.OpenHandCursor
            )
            self.box_mode_changed.emit(on)

    def _finish_box(self, end: QPointF) -> None:
        """The box from the press point to the release point (Qt's rubber band signal lags
        a move behind, so its last box was not where the button was let go)."""
        start, self._band_start = self._band_start, None
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.set_box_mode(False)
        if start is None:
            return
        first, second = (
            unproject(self.mapToScene(start.toPoint())),
            unproject(self.mapToScene(end.toPoint())),
        )
        box = GeoBox(
            min(first[0], second[0]),
            min(first[1], second[1]),
            max(first[0], second[0]),
            max(first[1], second[1]),
        )
        if not box.empty:
            self.box_selected.emit(box.clamped())

    def set_clusters(self, clusters: list[DeviceCluster]) -> None:
        self.clusters = list(clusters)
        self._layout_clusters()

    def _layout_clusters(self) -> None:
        """One marker per group of clusters that would overlap at the current scale."""
        self._layout_scale = scale = self.scale_factor
        for item in self.cluster_items:
            self._remove_marker(item)
        groups = overlapping_groups(self.clusters, scale)
        self.cluster_items = [ClusterItem(merged(g), self.colors) for g in groups]
        for item in self.cluster_items:
            self._add_marker(item)
        self._name_focus()
        self.clusters_laid_out.emit()

    # --- the item shown, and items sharing a place -----------------------------------

    def set_focus(self, place: MapPlace | None, name: str = "") -> None:
        """Mark the device or station at this place as the one shown (None: no more)."""
        if self.focus_item is not None:
            self.map_scene.removeItem(self.focus_item)
            self.focus_item = None
        if place is not None and place.kind:
            self.focus_item = FocusItem(place, name, self.colors)
            self.map_scene.addItem(self.focus_item)
            self._name_focus()

    def _name_focus(self) -> None:
        """The focus's name, from a marker of that very device or station once drawn."""
        focus = self.focus_item
        if focus is None:
            return
        ident = focus.place.ident
        if focus.place.kind == STATION:
            for marker in self.station_items:
                item = getattr(marker, "cluster", None)
                brief = getattr(item, "item", None)
                if brief is not None and brief.lrrID == ident and brief.name:
                    focus.set_name(brief.name)
            return
        for cluster in self.clusters:
            if cluster.count == 1 and cluster.item is not None and ident == cluster.item.EUI:
                focus.set_name(cluster.item.name or ident)

    def activate_focus(self) -> bool:
        focus = self.focus_item
        if focus is None:
            return False
        if focus.place.kind == STATION:
            self.station_activated.emit(focus.place.ident)
        else:
            self.device_activated.emit(focus.place.ident)
        return True

    def open_cluster(self, kind: str, box: GeoBox, where: QPointF) -> None:
        """A click on a cluster: zoom to its box, closer each time; items that share a
        place (they would still overlap at the deepest zoom) are fanned out instead."""
        rect = box_rect(box)
        tight = max(rect.width(), rect.height()) * MAX_SCALE < FAN_SPLIT_PX
        if tight or self.scale_factor >= MAX_SCALE / 1.01:
            self.fan_requested.emit(kind, box, QPointF(where))
            return
        self.mark_moved()
        size = self.viewport().size()
        pad = 1 + 2 * FIT_PADDING
        fitted = min(
            size.width() / max(rect.width() * pad, 1e-9),
            size.height() / max(rect.height() * pad, 1e-9),
        )
        # Always closer (a box as wide as the view would not split anything).
        self.set_view(max(fitted, self.scale_factor * DOUBLE_CLICK_ZOOM / 1.5), rect.center())

    def fan_out(self, where: QPointF, members: list[Member]) -> None:
        """Draw these items (sharing the place `where`) apart on a circle around it."""
        self.clear_fan()
        self.fan_items = [
            FanItem(member, where, offset, self.colors)
            for member, offset in zip(members, fan_offsets(len(members)), strict=True)
        ]
        for item in self.fan_items:
            self.map_scene.addItem(item)

    def clear_fan(self) -> None:
        for item in self.fan_items:
            self.map_scene.removeItem(item)
        self.fan_items = []

    def fan_at(self, pos: QPoint) -> FanItem | None:
        for item in self.items(pos):
            if isinstance(item, FanItem):
                return item
        return None

    def _click(self, pos: QPoint) -> None:
        """A left click (no drag): pick a device or station, or open a cluster."""
        fan = self.fan_at(pos)
        if fan is not None:
            lat, lon = unproject(fan.pos())
            member = fan.member
            self.set_focus(MapPlace(lat, lon, member.kind, member.ident), member.name)
            return
        if self.focus_item is not None and self.focus_item in self.items(pos):
            return
        station = self.station_at(pos)
        if station is not None:
            lrr_id = station.lrr_id()
            lat, lon = unproject(station.pos())
            if lrr_id:
                self.set_focus(MapPlace(lat, lon, STATION, lrr_id))
            else:
                self.open_cluster(STATION, station.box(), station.pos())
            return
        item = self.cluster_at(pos)
        if item is None:
            self.clear_fan()
            return
        device = item.cluster.item if item.cluster.count == 1 else None
        if device is not None:
            lat, lon = unproject(item.pos())
            self.set_focus(MapPlace(lat, lon, DEVICE, device.EUI), device.name)
        else:
            self.open_cluster(DEVICE, GeoBox.of_cluster(item.cluster), item.pos())

    def station_at(self, pos: QPoint) -> Any:
        """The base station marker under this viewport position, if any."""
        for item in self.items(pos):
            if item in self.station_items:
                return item
        return None

    def cluster_at(self, pos: QPoint) -> ClusterItem | None:
        """The cluster under this viewport position (the smallest when they overlap)."""
        for item in self.items(pos):
            if isinstance(item, ClusterItem):
                return item
        return None

    # --- where we look ------------------------------------------------------------------

    @property
    def scale_factor(self) -> float:
        return self.transform().m11()

    def min_scale(self) -> float:
        """The whole world fits the viewport, no less."""
        size = self.viewport().size()
        return max(1e-3, min(size.width(), size.height()) / WORLD.width())

    def center(self) -> QPointF:
        return self.mapToScene(self.viewport().rect()).boundingRect().center()

    def set_view(self, scale: float, center: QPointF) -> None:
        scale = max(self.min_scale(), min(MAX_SCALE, scale))
        self._emitting = False
        try:
            self.setTransform(QTransform.fromScale(scale, scale))
            self.centerOn(center)
        finally:
            self._emitting = True
        if scale != self._layout_scale:
            self.clear_fan()  # drawn for one scale: the items may split now
        if self.clusters and scale != self._layout_scale:
            self._layout_clusters()
        self._changed()

    def visible_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def visible_box(self) -> GeoBox | None:
        """The latitude/longitude box in view (clipped to the world); None when empty."""
        rect = self.visible_rect().intersected(WORLD)
        if rect.isEmpty():
            return None
        max_lat, min_lon = unproject(rect.topLeft())
        min_lat, max_lon = unproject(rect.bottomRight())
        eps = 1.5 / self.scale_factor  # a pixel and a half: the view rounds to pixels
        if rect.top() <= WORLD.top() + eps:
            max_lat = 90.0  # the edge of the map: the devices beyond it too
        if rect.bottom() >= WORLD.bottom() - eps:
            min_lat = -90.0
        return GeoBox(min_lat, min_lon, max_lat, max_lon).clamped()

    def fit_box(self, box: GeoBox | None, *, keep: bool = True) -> None:
        """Show this box (the world for None), padded; `keep` re-fits on resize until the
        user moves the map."""
        box = box or GeoBox.world()
        self.fit_target = box if keep else None
        rect = box_rect(box)
        if box == GeoBox.world():
            rect = WORLD
        elif rect.width() > 0 and rect.height() > 0:
            rect = rect.intersected(WORLD)
        # else: one device (a box of no size): QRectF.intersected would give a null rect at
        # (0, 0) and fit the map to the Gulf of Guinea; the padding below gives it a size.
        pad_x = max(rect.width() * FIT_PADDING, (MIN_FIT_SPAN - rect.width()) / 2, 0)
        pad_y = max(rect.height() * FIT_PADDING, (MIN_FIT_SPAN - rect.height()) / 2, 0)
        if box == GeoBox.world():
            pad_x = pad_y = 0
        rect = rect.adjusted(-pad_x, -pad_y, pad_x, pad_y)
        size = self.viewport().size()
        scale = min(size.width() / rect.width(), size.height() / rect.height())
        self.set_view(scale, rect.center())

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom by `factor`, keeping the scene point under `anchor` (viewport pixels; the
        centre by default) where it is."""
        viewport = QPointF(self.viewport().rect().center())
        anchor = anchor if anchor is not None else viewport
        before = self.mapToScene(anchor.toPoint())
        scale = max(self.min_scale(), min(MAX_SCALE, self.scale_factor * factor))
        center = before + (viewport - anchor) / scale
        self.set_view(scale, center)

    def pan_by(self, dx: float, dy: float) -> None:
        """Move the view by this many viewport pixels."""
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() + round(dx))
        v.setValue(v.value() + round(dy))

    def zoom_into(self, item: ClusterItem) -> None:
        """Open a device cluster as a click does."""
        self.open_cluster(DEVICE, GeoBox.of_cluster(item.cluster), item.pos())

    def set_overlay(self, attribution: str, notice: str) -> None:
        """The basemap's credit (bottom right) and why it is not drawn (top), on the map."""
        if (attribution, notice) != (self.attribution, self.notice):
            self.attribution, self.notice = attribution, notice
            self.viewport().update()

    def _plate(self, painter: QPainter, rect: QRectF) -> None:
        """A translucent plate in the window colour: text stays readable over any tile."""
        plate = QColor(self.colors.outside)
        plate.setAlphaF(0.8)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(plate)
        painter.drawRoundedRect(rect, 3, 3)

    def drawForeground(self, painter: QPainter, _rect: QRectF | QRect) -> None:
        """A scale bar in the bottom left corner (the land says little close up), the
        basemap's attribution in the bottom right, a notice at the top."""
        lat, _lon = unproject(self.center())
        metres_per_px = EARTH_M_PER_DEGREE * math.cos(math.radians(lat)) / self.scale_factor
        length_m = nice_length(metres_per_px * SCALE_BAR_PX)
        width = length_m / metres_per_px
        label = f"{length_m / 1000:g} km" if length_m >= 1000 else f"{length_m:g} m"
        viewport = QRectF(self.viewport().rect())
        x, y = 12.0, viewport.height() - 12.0
        painter.save()
        painter.resetTransform()
        metrics = painter.fontMetrics()
        text_h = metrics.height()
        label_w = metrics.horizontalAdvance(label)
        self._plate(
            painter, QRectF(x - 6, y - text_h - 10, max(width, label_w + 8) + 12, text_h + 16)
        )
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(QPen(self.colors.scale_text, 2))
        painter.drawLine(QPointF(x, y), QPointF(x + width, y))
        painter.drawLine(QPointF(x, y - 4), QPointF(x, y))
        painter.drawLine(QPointF(x + width, y - 4), QPointF(x + width, y))
        painter.drawText(QPointF(x + 4, y - 6), label)
        if self.attribution:
            w = metrics.horizontalAdvance(self.attribution) + 10
            box = QRectF(viewport.right() - w - 2, viewport.bottom() - text_h - 6, w, text_h + 4)
            self._plate(painter, box)
            painter.setPen(self.colors.scale_text)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.attribution)
        if self.notice:
            room = QRectF(viewport.adjusted(24, 10, -24, 0))
            flags = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap
            found = metrics.boundingRect(room.toRect(), int(flags), self.notice)
            box = QRectF(found).adjusted(-10, -6, 10, 6)
            self._plate(painter, box)
            painter.setPen(self.colors.scale_text)
            painter.drawText(QRectF(found), int(flags), self.notice)
        painter.restore()

    def mark_moved(self) -> None:
        """The user moved the map: a resize no longer re-fits it."""
        self.fit_target = None

    def _changed(self) -> None:
        if self._emitting:
            self.box_changed.emit(self.visible_box())

    # --- events -------------------------------------------------------------------------

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self._changed()

    def resizeEvent(self, event: QResizeEvent) -> None:
        center = self.center() if event.oldSize().isValid() else None
        super().resizeEvent(event)
        if self.fit_target is not None or center is None:
            self.fit_box(self.fit_target)
        else:
            self.set_view(self.scale_factor, center)

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if not steps:
            event.ignore()
            return
        self.mark_moved()
        self.zoom_by(WHEEL_STEP**steps, event.position())
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        size = self.viewport().size()
        step_x, step_y = size.width() * KEY_PAN, size.height() * KEY_PAN
        actions = {
            Qt.Key.Key_Plus: lambda: self.zoom_by(KEY_ZOOM),
            Qt.Key.Key_Equal: lambda: self.zoom_by(KEY_ZOOM),
            Qt.Key.Key_Minus: lambda: self.zoom_by(1 / KEY_ZOOM),
            Qt.Key.Key_Left: lambda: self.pan_by(-step_x, 0),
            Qt.Key.Key_Right: lambda: self.pan_by(step_x, 0),
            Qt.Key.Key_Up: lambda: self.pan_by(0, -step_y),
            Qt.Key.Key_Down: lambda: self.pan_by(0, step_y),
        }
        if key == Qt.Key.Key_Escape and self.box_mode:
            self.set_box_mode(False)
            event.accept()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.activate_focus():
            event.accept()
            return
        action = actions.get(Qt.Key(key))
        if action is None:
            super().keyPressEvent(event)
            return
        self.mark_moved()
        action()
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            if shift or self.box_mode:
                # Shift+drag (or the armed "Select in a box") draws a box: its base
                # stations can receive a command.
                self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
                self._band_start = QPointF(event.position())
            else:
                self._press_pos = QPointF(event.position())  # a click, unless it drags
                self.mark_moved()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() != Qt.MouseButton.LeftButton:
            return
        press, self._press_pos = self._press_pos, None
        if self._band_start is not None:
            self._finish_box(QPointF(event.position()))
        elif press is not None:
            moved = (QPointF(event.position()) - press).manhattanLength()
            if moved < QApplication.startDragDistance():
                self._click(event.position().toPoint())

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self.menu_requested.emit(event.pos())
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mouseDoubleClickEvent(event)
            return
        pos = event.position().toPoint()
        event.accept()
        fan = self.fan_at(pos)
        if fan is not None:
            signal = self.station_activated if fan.member.kind == STATION else self.device_activated
            signal.emit(fan.member.ident)
            return
        if self.focus_item is not None and self.focus_item in self.items(pos):
            self.activate_focus()
            return
        # A cluster's first click opened it; the second opens it further (closer still).
        station = self.station_at(pos)
        if station is not None:
            if station.lrr_id():
                self.station_activated.emit(station.lrr_id())
            else:
                self.open_cluster(STATION, station.box(), station.pos())
            return
        item = self.cluster_at(pos)
        device = item.cluster.item if item is not None and item.cluster.count == 1 else None
        if device is not None:
            self.device_activated.emit(device.EUI)
        elif item is not None:
            self.zoom_into(item)
        else:
            self.mark_moved()
            self.zoom_by(2.0, event.position())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self.apply_colors()


# --- the pane -----------------------------------------------------------------------------


class DeviceMapPane(Pane):
    title = "Map"

    def __init__(
        self,
        view_model: DeviceMapViewModel,
        tiles: TileLayerViewModel | None = None,
        parent: QWidget | None = None,
        *,
        stations: StationMapViewModel | None = None,
        rights: AccountRights | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        self.rights = rights  # the command dialogs of the station layer check them
        self.tiles_vm = tiles
        self.connectivity = QComboBox()
        self.connectivity.setObjectName("mapConnectivity")
        for label, value in (
            ("All connectivity", None),
            ("LoRaWAN", "LORAWAN"),
            ("Cellular", "CELLULAR"),
        ):
            self.connectivity.addItem(label, value)
        self.zoom_out_button = QPushButton("\N{MINUS SIGN}")
        self.zoom_out_button.setObjectName("mapZoomOut")
        self.zoom_out_button.setToolTip("Zoom out (-)")
        self.zoom_in_button = QPushButton("+")
        self.zoom_in_button.setObjectName("mapZoomIn")
        self.zoom_in_button.setToolTip("Zoom in (+)")
        for button in (self.zoom_out_button, self.zoom_in_button):
            button.setProperty("compact", True)  # one sign: narrow padding (base.qss)
        self.devices_toggle = QCheckBox("Devices")
        self.devices_toggle.setObjectName("mapDevicesLayer")
        self.devices_toggle.setChecked(view_model.enabled)
        self.fit_button = QPushButton("Fit all")
        self.fit_button.setObjectName("mapFitAll")
        self.busy = busy_bar()
        self.status = QLabel()
        self.status.setObjectName("mapStatus")
        # Its text never widens the pane: a longer status (the basemap's offline notice)
        # would resize the map, which asks for the new box, whose answer changes the text...
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.unplaced = QLabel()
        self.unplaced.setObjectName("mapUnplaced")
        self.unplaced.setToolTip(
            "Devices with no position (neither reported nor set by an administrator) "
            "cannot be drawn; find them in the Devices pane"
        )
        bar = QHBoxLayout()
        self.bar = bar
        bar.addWidget(self.devices_toggle)
        bar.addWidget(self.connectivity)
        bar.addStretch(1)
        bar.addWidget(self.busy)
        bar.addWidget(self.zoom_out_button)
        bar.addWidget(self.zoom_in_button)
        bar.addWidget(self.fit_button)
        self.basemap_button = BasemapButton(tiles) if tiles is not None else None
        if self.basemap_button is not None:
            bar.addWidget(self.basemap_button)

        self.view = MapView()
        self.stack = TableOrEmpty(self.view)
        self.empty = self.stack.empty
        self.message = PaneMessage()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(bar)
        layout.addWidget(self.message)
        layout.addWidget(self.stack, 1)
        status = QHBoxLayout()
        status.addWidget(self.status, 1)
        status.addWidget(self.unplaced)
        layout.addLayout(status)

        self._needs_fit = False  # set below, once the layers are known
        self._located = False  # a place was asked for: an automatic fit arriving later yields
        self.connectivity.currentIndexChanged.connect(
            lambda _i: self.vm.set_connectivity(self.connectivity.currentData())
        )
        self.devices_toggle.toggled.connect(self._devices_toggled)
        self.zoom_in_button.clicked.connect(lambda: self._zoom(1.5))
        self.zoom_out_button.clicked.connect(lambda: self._zoom(1 / 1.5))
        self.fit_button.clicked.connect(self.fit_all)
        tab_order(
            self.devices_toggle,
            self.connectivity,
            self.zoom_out_button,
            self.zoom_in_button,
            self.fit_button,
            self.view,
        )
        self.view.box_changed.connect(self._box_changed)
        self.view.menu_requested.connect(self._map_menu)
        self.view.fan_requested.connect(self._fan_requested)
        self._fan_point = QPointF()
        self.view.clusters_laid_out.connect(self._view_changed)
        self.view.device_activated.connect(lambda eui: self.navigate.emit(Location("devices", eui)))
        self._connections = SignalConnections(
            (view_model.clusters_changed, self._clusters_changed),
            (view_model.loading_changed, self._loading_changed),
            (view_model.error, self._error),
            (view_model.client_changed, self._client_changed),
            (view_model.extent_found, self.extent_found),
            (view_model.unplaced_changed, self._update_state),
            (view_model.members_ready, self.members_ready),
        )
        if tiles is not None and self.basemap_button is not None:
            self.basemap_button.message.connect(self.message.show_message)
            self._connections.connect(tiles.tile_ready, self._tile_ready)
            self._connections.connect(tiles.source_changed, self._tile_source_changed)
            self._connections.connect(tiles.status_changed, lambda _t: self._tiles_status())
        self.connections = self._connections
        self.station_layer: StationLayer | None = None
        if stations is not None:
            from .station_layer import StationLayer

            self.station_layer = StationLayer(self, stations)
        self._needs_fit = self.connected
        self._clusters_changed()
        self._tiles_status()

    # --- layers -------------------------------------------------------------------------

    @property
    def shows_devices(self) -> bool:
        """The account has devices (a network partner has none: no device is asked for)."""
        return self.vm.has_client

    @property
    def shows_stations(self) -> bool:
        layer = self.station_layer
        return layer is not None and layer.vm.has_client

    @property
    def connected(self) -> bool:
        """Some layer has a client: the map is the account's."""
        return self.shows_devices or self.shows_stations

    def _devices_toggled(self, on: bool) -> None:
        self.vm.set_enabled(on)
        if on and self.isVisible():
            self.vm.set_box(self.view.visible_box(), now=True)
        self._update_state()

    def _fit(self) -> None:
        """Fit the devices, or the stations for an account without devices (or with the
        device layer off)."""
        layer = self.station_layer
        by_stations = layer is not None and layer.vm.has_client and layer.vm.enabled
        if by_stations and not (self.vm.has_client and self.vm.enabled):
            assert layer is not None
            layer.vm.fit_all()
        else:
            self.vm.fit_all()

    def as_widget(self) -> QWidget:
        return self

    def stations_client_changed(self, _has_client: bool) -> None:
        """The station layer's client changed: for an account without devices it is the
        map's (the device layer's change already fitted the others)."""
        if self.shows_devices:
            self._update_state()
        else:
            self._client_changed(False)

    def refresh_status(self) -> None:
        self._update_state()

    # --- actions ------------------------------------------------------------------------

    def refresh(self) -> None:
        self.vm.refresh()

    async def first_page(self) -> dict[str, Any]:
        """Until the map shows the clusters of its view (or says why it cannot)."""
        vm = self.vm
        t0 = time.perf_counter()
        # An account without devices (a network partner) has its stations' layer only.
        while vm.has_client and vm.enabled and not (vm.settled and vm.answered_box is not None):
            if vm.error_message:
                raise RuntimeError(f"map: {vm.error_message}")
            if time.perf_counter() - t0 > FIRST_PAGE_TIMEOUT_S:
                raise RuntimeError(f"map: no clusters after {FIRST_PAGE_TIMEOUT_S:.0f} s")
            await asyncio.sleep(0.02)
        layer = self.station_layer
        while (
            layer is not None
            and layer.vm.enabled
            and layer.vm.has_client
            and not (layer.vm.settled and layer.vm.answered_box is not None)
        ):
            if time.perf_counter() - t0 > FIRST_PAGE_TIMEOUT_S:
                raise RuntimeError(f"map: no base stations after {FIRST_PAGE_TIMEOUT_S:.0f} s")
            await asyncio.sleep(0.02)
        return {
            "first_clusters_ms": round(vm.first_clusters_ms or 0.0, 1),
            "requests": vm.requests,
            "clusters": len(vm.clusters),
            "devices": vm.total,
            "stations": layer.vm.total if layer is not None else 0,
        }

    async def show_first_item(self) -> None:
        await self.first_page()

    def fit_all(self) -> None:
        self._located = False
        self._fit()

    def open_item(self, item_id: str | None, _section: str | None = None) -> None:
        """The navigator's way in: `item_id` is a place (`MapPlace`: "lat,lon", or with the
        device or station there, as "Show on map" gives it); the map centres on it at street
        level, that device or station picked and drawn on top."""
        place = MapPlace.parse(item_id)
        if place is not None:
            self.show_place(place)

    def current_item(self) -> tuple[str | None, str | None]:
        """For Back: the device or station picked (else the map stays where it is)."""
        focus = self.view.focus_item
        return (focus.place.item() if focus is not None else None), None

    def show_place(self, place: MapPlace) -> None:
        self.view.set_focus(place if place.kind else None)
        self.show_location(place.lat, place.lon)
        self.view.setFocus()  # Enter opens what is shown

    def show_location(self, lat: float, lon: float) -> None:
        """Centre the map on one place at street level (a device's "Show on map")."""
        self._needs_fit = False  # the user asked for this place, not for every device
        self._located = True
        # Kept until the user moves the map: a map never shown yet (a pane made by this very
        # link) gets its real size later, and its first resize fits this place, not the world.
        self.view.fit_box(GeoBox(lat - 0.002, lon - 0.003, lat + 0.002, lon + 0.003))
        if self.isVisible():
            self.vm.set_box(self.view.visible_box(), now=True)

    def map_menu(self, pos: QPoint) -> QMenu:
        """The map's right-click menu at this viewport position."""
        menu = QMenu(self)
        menu.setObjectName("mapMenu")
        view = self.view
        anchor = QPointF(pos)

        def zoom(factor: float) -> None:
            view.mark_moved()
            view.zoom_by(factor, anchor)

        menu.addAction("Zoom in here", lambda: zoom(KEY_ZOOM))
        menu.addAction("Zoom out", lambda: zoom(1 / KEY_ZOOM))
        fit = menu.addAction("Fit all", self.fit_all)
        fit.setEnabled(self.connected)
        if self.station_layer is not None:
            menu.addSeparator()
            menu.addAction(self.station_layer.select_action)
        return menu

    def _map_menu(self, pos: QPoint) -> None:
        self.map_menu(pos).popup(self.view.viewport().mapToGlobal(pos))

    def _fan_requested(self, kind: str, box: GeoBox, where: QPointF) -> None:
        """A cluster whose items share one place: list them, then fan them out."""
        self._fan_point = QPointF(where)
        if kind == STATION:
            if self.station_layer is not None:
                self.station_layer.vm.list_members(box)
        else:
            self.vm.list_members(box)

    def members_ready(self, members: list[Member], box: GeoBox, total: int) -> None:
        del box  # the place is the one clicked
        self.view.fan_out(self._fan_point, members)
        if total > len(members):
            self.message.show_message(
                f"{total:,} items share this place; the first {len(members):,} are drawn around it"
            )

    def _zoom(self, factor: float) -> None:
        self.view.mark_moved()
        self.view.zoom_by(factor)

    # --- signals ------------------------------------------------------------------------

    def _box_changed(self, box: GeoBox | None) -> None:
        if self.isVisible():  # a hidden pane asks nothing (and its size is not real)
            self.vm.set_box(box)
            self.request_tiles()

    # --- tiles --------------------------------------------------------------------------

    def request_tiles(self) -> None:
        """Show the tiles of the view's zoom and ask for those not held yet."""
        source = self.tiles_vm.source if self.tiles_vm is not None else None
        if source is None or self.tiles_vm is None:
            return
        view = self.view
        z = zoom_for_scale(view.scale_factor, source.min_zoom, source.max_zoom)
        rect = view.visible_rect().intersected(WORLD)
        if rect.isEmpty():
            return
        keys = tiles_for_rect(rect.left(), rect.top(), rect.right(), rect.bottom(), z)
        view.tiles.show_keys(z, keys)
        self.tiles_vm.want([k for k in keys if k not in view.tiles])

    def _tile_ready(self, key: TileKey, data: bytes) -> None:
        self.view.tiles.add(key, data)

    def _tiles_status(self) -> None:
        if self.tiles_vm is not None:
            self.view.set_overlay(self.tiles_vm.attribution, self.tiles_vm.notice)
        self._update_state()

    def _tile_source_changed(self) -> None:
        self._tiles_status()
        self.view.tiles.clear()
        if self.isVisible():
            self.request_tiles()
        self._update_state()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.vm.set_box(self.view.visible_box())
        if self.station_layer is not None:
            self.station_layer.shown()
        self.request_tiles()
        if self._needs_fit and self.connected:
            self._needs_fit = False
            self._fit()

    def extent_found(self, box: GeoBox | None) -> None:
        if self._located:
            return  # "Show on map" came after the automatic fit was asked for
        self.view.fit_box(box)
        if self.isVisible():
            self.vm.set_box(self.view.visible_box(), now=True)

    def _client_changed(self, _has_client: bool) -> None:
        self.view.set_clusters([])
        self.view.set_focus(None)  # another account: what was picked is not its own
        self.view.clear_fan()
        connected = self.connected
        self._needs_fit = connected
        self._located = False
        if connected and self.isVisible():
            self._needs_fit = False
            self._fit()
        self._update_state()

    def _clusters_changed(self) -> None:
        self.view.set_clusters(self.vm.clusters)
        self._update_state()

    def _view_changed(self) -> None:
        self._update_state()  # markers may have merged or come apart

    def _loading_changed(self, loading: bool) -> None:
        self.busy.setVisible(loading)
        self._update_state()

    def _error(self, message: str) -> None:
        self.message.show_message(f"Could not load the devices of the map: {message}")
        self._update_state()

    def _update_state(self) -> None:
        devices, connected = self.shows_devices, self.connected
        self.stack.show_empty("" if connected else "Not connected")
        self.fit_button.setEnabled(connected)
        self.connectivity.setEnabled(devices and self.vm.enabled)
        self.devices_toggle.setEnabled(devices)
        # The connectivity filter is the devices': not shown to an account without any.
        self.connectivity.setVisible(devices or not connected)
        if devices or not connected:
            self.devices_toggle.setChecked(self.vm.enabled)
            self.devices_toggle.setToolTip("Show the devices (discs, sized by how many)")
            self.connectivity.setToolTip("")
            self.fit_button.setToolTip("Show every device that matches the filter")
        else:  # stations and no devices: a network partner's map
            self.devices_toggle.blockSignals(True)  # the layer stays on for another account
            self.devices_toggle.setChecked(False)
            self.devices_toggle.blockSignals(False)
            self.devices_toggle.setToolTip(NO_DATA_WORDS["devices"])
            self.connectivity.setToolTip(NO_DATA_WORDS["devices"])
            self.fit_button.setToolTip("Show every base station")
        if self.vm.error_message and devices:
            text = f"Could not load the devices of the map: {self.vm.error_message}"
        else:
            text = self.vm.summary(len(self.view.cluster_items)) if devices else ""
        tiles = self.tiles_vm.status if self.tiles_vm is not None else ""
        layer = self.station_layer
        stations = layer.vm.summary() if layer is not None and connected else ""
        status = "  ·  ".join(t for t in (text, stations, tiles) if t)
        self.status.setText(status)
        self.status.setToolTip(status)  # in full where the pane is too narrow for it
        unplaced = self.vm.unplaced if connected else None
        self.unplaced.setText(
            f"{unplaced:,} device{'' if unplaced == 1 else 's'} without a position"
            if unplaced
            else ""
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        self._connections.disconnect_all()
        self.vm.close()
        if self.station_layer is not None:
            self.station_layer.vm.close()
        if self.tiles_vm is not None:
            self.tiles_vm.close()
        super().closeEvent(event)
