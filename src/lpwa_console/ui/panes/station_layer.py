"""The base station layer of the map pane: the platform's clusters of stations drawn as
squares (a single station in its connection state's colour), a toggle, a station's detail
from its square (double-click), and Shift+drag to send a command to the stations of a box."""

from __future__ import annotations

import math
from typing import Protocol

from PySide6.QtCore import QPointF, QRectF, SignalInstance
from PySide6.QtGui import QAction, QBrush, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QGraphicsItem,
    QHBoxLayout,
    QStyleOptionGraphicsItem,
    QToolButton,
    QWidget,
)

from ...models.cluster_layer import GeoBox, Member
from ...models.rights import AccountRights
from ...models.station_command_catalogue import StationRef
from ...models.station_map import StationMapViewModel, cluster_box, cluster_point
from ...models.stations import CONNECTION_WORDS
from ...schema.stations import BaseStationCluster
from ..connections import SignalConnections
from ..dialogs.station_commands import open_station_command
from ..navigator import Location
from ..widgets.pane_parts import PaneMessage
from .map_parts import CountLabel, MapColors, compact_count, project

# Connection state -> colour (light, dark): green connected, red disconnected, grey never.
STATE_COLORS = {
    "CNX": ("#2e7d32", "#81c784"),
    "DISC": ("#c62828", "#ef5350"),
    "NEVERCNX": ("#757575", "#bdbdbd"),
    "UNKNOWN": ("#757575", "#bdbdbd"),
}
CLUSTER_COLOR = ("#5d4037", "#8d6e63")  # stations, apart from the devices' blue
POLE = 6.0  # px between a station's place and its square


def station_half_size(count: int) -> float:
    return 6.0 if count <= 1 else 9.0 + 4.5 * math.log10(count)


def station_tooltip(cluster: BaseStationCluster) -> str:
    item = cluster.item
    if cluster.count == 1 and item is not None:
        state = CONNECTION_WORDS.get(item.cnxState, item.cnxState)
        return f"{item.name} ({item.lrrID})\n{state}\nDouble-click to open"
    return f"{cluster.count:,} base stations\nDouble-click to zoom in"


class StationItem(QGraphicsItem):
    """One cluster of stations: a square whose size says how many; one station is a small
    square in its connection state's colour."""

    def __init__(self, cluster: BaseStationCluster, colors: MapColors) -> None:
        super().__init__()
        self.cluster = cluster
        self.colors = colors
        self.half = station_half_size(cluster.count)
        self.label = compact_count(cluster.count) if cluster.count > 1 else ""
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        lat, lon = cluster_point(cluster)
        self.setPos(project(lat, lon))
        self.setToolTip(station_tooltip(cluster))
        self.setZValue(20 + 1 / (1 + cluster.count))
        self.count_label: CountLabel | None = None
        if self.label:
            size = max(9, min(13, int(self.half * 0.8)))
            self.count_label = CountLabel(self.pos(), self.square(), self.label, size)

    def lrr_id(self) -> str:
        item = self.cluster.item
        return item.lrrID if self.cluster.count == 1 and item is not None else ""

    def box(self) -> GeoBox:
        return cluster_box(self.cluster)

    def fill(self) -> QColor:
        dark = 1 if self.colors.dark else 0
        item = self.cluster.item
        if self.cluster.count == 1 and item is not None:
            return QColor(STATE_COLORS.get(item.cnxState, STATE_COLORS["UNKNOWN"])[dark])
        return QColor(CLUSTER_COLOR[dark])

    def square(self) -> QRectF:
        """The square, up and right of the place it stands for (a flag on a short pole), so
        that a town's device cluster under it stays readable."""
        h = self.half
        return QRectF(POLE, -POLE - 2 * h, 2 * h, 2 * h)

    def boundingRect(self) -> QRectF:
        return self.square().united(QRectF(-3, -3, 6, 6)).adjusted(-1.5, -1.5, 1.5, 1.5)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.square().adjusted(-2, -2, 2, 2))
        return path

    def paint(
        self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = self.fill()
        square = self.square()
        painter.setPen(QPen(fill, 1.0))
        painter.drawLine(QPointF(0, 0), square.bottomLeft())
        painter.setBrush(QBrush(fill))
        painter.setPen(QPen(self.colors.outline, 1.5))
        painter.drawRoundedRect(square, 2.5, 2.5)
        # The count is its own item (`count_label`), above every layer's markers.


class MapView(Protocol):
    """What the layer needs of the map's view (`device_map.MapView`)."""

    # Read-only properties: a protocol's plain attribute would have to match exactly.
    @property
    def box_changed(self) -> SignalInstance: ...  # GeoBox | None: the visible box moved

    @property
    def station_activated(self) -> SignalInstance: ...  # str: a one-station square opened

    @property
    def box_selected(self) -> SignalInstance: ...  # GeoBox: drawn with Shift+drag

    @property
    def colors(self) -> MapColors: ...

    @property
    def box_mode_changed(self) -> SignalInstance: ...  # bool: box selection armed

    def set_box_mode(self, on: bool) -> None: ...

    def visible_box(self) -> GeoBox | None: ...

    def set_station_items(self, items: list[QGraphicsItem]) -> None: ...


class MapPane(Protocol):
    """What the layer needs of the pane that holds it (`device_map.DeviceMapPane`): the
    layer is made by that pane, so it knows the pane only by this."""

    @property
    def view(self) -> MapView: ...

    @property
    def bar(self) -> QHBoxLayout: ...

    @property
    def navigate(self) -> SignalInstance: ...

    @property
    def connections(self) -> SignalConnections: ...

    @property
    def message(self) -> PaneMessage: ...

    @property
    def rights(self) -> AccountRights | None: ...

    def as_widget(self) -> QWidget: ...  # the parent of the command dialog

    def isVisible(self) -> bool: ...

    def refresh_status(self) -> None: ...

    def stations_client_changed(self, has_client: bool) -> None: ...

    def extent_found(self, box: GeoBox | None) -> None: ...

    def members_ready(self, members: list[Member], box: GeoBox, total: int) -> None: ...


class StationLayer:
    """Binds a `StationMapViewModel` to a map pane."""

    def __init__(self, pane: MapPane, vm: StationMapViewModel) -> None:
        self.pane, self.vm, self.view = pane, vm, pane.view
        self.dialog: QDialog | None = None  # the last command dialog opened
        self.toggle = QCheckBox("Base stations")
        self.toggle.setObjectName("mapStationsLayer")
        self.toggle.setChecked(vm.enabled)
        self.toggle.setToolTip(
            "Show the base stations (squares: green connected, red disconnected)."
            " Shift+drag a box to send a command to its stations."
        )
        pane.bar.insertWidget(1, self.toggle)
        # One action for the toolbar button and the map's right-click menu: the next drag
        # on the map draws a box (Shift+drag does it at any time).
        self.select_action = QAction("Select stations in a box", pane.as_widget())
        self.select_action.setObjectName("mapSelectBox")
        self.select_action.setCheckable(True)
        self.select_action.setToolTip(
            "Drag a box on the map to send a command to its base stations"
            " (or Shift+drag at any time; Esc cancels)"
        )
        self.select_action.toggled.connect(self.view.set_box_mode)
        self.view.box_mode_changed.connect(self.select_action.setChecked)
        self.select_button = QToolButton()
        self.select_button.setObjectName("mapSelectBoxButton")
        self.select_button.setDefaultAction(self.select_action)
        pane.bar.insertWidget(2, self.select_button)
        self.toggle.toggled.connect(self._toggled)
        self.view.box_changed.connect(self._box_changed)
        self.view.station_activated.connect(
            lambda lrr: pane.navigate.emit(Location("stations", lrr))
        )
        self.view.box_selected.connect(self._box_selected)
        pane.connections.connect_all(
            (vm.clusters_changed, self._clusters_changed),
            (vm.selection_ready, self._selection_ready),
            (vm.selection_failed, self._selection_failed),
            (vm.error, lambda m: pane.message.show_message(f"Base stations: {m}")),
            (vm.client_changed, pane.stations_client_changed),
            (vm.extent_found, pane.extent_found),
            (vm.members_ready, pane.members_ready),
        )

    def _toggled(self, on: bool) -> None:
        self.vm.set_enabled(on)
        if on:
            self.vm.set_box(self.view.visible_box(), now=True)

    def _box_changed(self, box: GeoBox | None) -> None:
        if self.pane.isVisible():
            self.vm.set_box(box)

    def shown(self) -> None:
        self.vm.set_box(self.view.visible_box())

    def _clusters_changed(self) -> None:
        colors = self.view.colors
        items: list[QGraphicsItem] = [StationItem(c, colors) for c in self.vm.clusters]
        self.view.set_station_items(items)
        self.pane.refresh_status()

    def _box_selected(self, box: GeoBox) -> None:
        if not self.vm.enabled:
            self.pane.message.show_message("Turn the base station layer on to select stations")
            return
        self.vm.select_box(box)

    def _selection_failed(self, message: str) -> None:
        self.pane.message.show_message(f"Could not list the stations of the box: {message}")

    def _selection_ready(self, stations: list[StationRef], _box: GeoBox) -> None:
        if not stations:
            self.pane.message.show_message("No base station in that box")
            return
        self.dialog = open_station_command(
            self.pane.as_widget(),
            self.vm.client,
            stations,
            None,
            rights=self.pane.rights,
            runner=self.vm.runner,
        )
