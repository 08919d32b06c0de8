"""The map's view (`MapView`): the scene in Web Mercator degrees (device_map.py's docstring),
panned and zoomed by wheel, keys and mouse, with the clusters laid out, a fan-out, the focus,
a box drawn to select, the scale bar and the tiles' attribution; it tells the pane which box
is visible and which marker was clicked."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPen,
    QResizeEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

from ...models.device_map import GeoBox, Member, merged
from ...schema.devices import DeviceCluster
from ..map_place import DEVICE, STATION, MapPlace
from .map_items import (
    FAN_SPLIT_PX,
    ClusterItem,
    FanItem,
    FocusItem,
    basemap,
    fan_offsets,
    overlapping_groups,
)
from .map_parts import MapColors, project, unproject
from .map_tiles import TileLayerItem

WORLD = QRectF(-180.0, -180.0, 360.0, 360.0)
MAX_SCALE = 200_000.0  # pixels per degree of longitude: about half a metre a pixel
MIN_FIT_SPAN = 0.02  # degrees: fitting one device does not zoom to the street
FIT_PADDING = 0.15  # of the box, on each side
WHEEL_STEP = 1.25  # zoom factor of one wheel notch
KEY_ZOOM = 1.5
KEY_PAN = 0.2  # of the viewport
DOUBLE_CLICK_ZOOM = 3.0
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
