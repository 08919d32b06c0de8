"""The map pane: the devices as the platform's clusters over an offline world basemap.

The scene is in Web Mercator, in degree-like units: x is the longitude, y the Mercator
northing scaled to degrees (the world is the square -180..180 both ways) and negated so north
is up. Cluster markers ignore the view's transformation, so they keep their size in pixels
while the land scales. The view tells the view-model which box is visible; the view-model
answers with clusters (debounced, stale answers dropped).

The pane (toolbar, layers, state) is here; the view that pans, zooms and lays the markers out
is map_view.py's, the markers (clusters, the focus, a fan-out) and the basemap map_items.py's.
Their public names are imported from here too.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...models.device_map import DeviceMapViewModel, GeoBox, Member
from ...models.pane_access import NO_DATA_WORDS
from ...models.rights import AccountRights
from ...models.station_map import StationMapViewModel
from ...models.tiles import TileKey, TileLayerViewModel, tiles_for_rect, zoom_for_scale
from ..connections import SignalConnections
from ..first_page import FIRST_PAGE_TIMEOUT_S
from ..layouts import PANE, fill
from ..map_place import STATION, MapPlace
from ..navigator import Location
from ..pane import Pane
from ..widgets.pane_parts import PaneMessage, TableOrEmpty, busy_bar, tab_order
from .map_items import (
    FAN_RADIUS_PX,
    FAN_SPLIT_PX,
    FAN_Z,
    FOCUS_Z,
    SINGLE_RADIUS,
    ClusterItem,
    FanItem,
    FocusItem,
    basemap,
    cluster_radius,
    cluster_tooltip,
    fan_offsets,
    overlapping_groups,
)
from .map_parts import project, unproject
from .map_tiles import BasemapButton
from .map_view import (
    DOUBLE_CLICK_ZOOM,
    EARTH_M_PER_DEGREE,
    FIT_PADDING,
    KEY_PAN,
    KEY_ZOOM,
    MAX_SCALE,
    MIN_FIT_SPAN,
    SCALE_BAR_PX,
    WHEEL_STEP,
    WORLD,
    MapView,
    box_rect,
    nice_length,
)

__all__ = [
    "DOUBLE_CLICK_ZOOM",
    "EARTH_M_PER_DEGREE",
    "FAN_RADIUS_PX",
    "FAN_SPLIT_PX",
    "FAN_Z",
    "FIT_PADDING",
    "FOCUS_Z",
    "KEY_PAN",
    "KEY_ZOOM",
    "MAX_SCALE",
    "MIN_FIT_SPAN",
    "SCALE_BAR_PX",
    "SINGLE_RADIUS",
    "WHEEL_STEP",
    "WORLD",
    "ClusterItem",
    "DeviceMapPane",
    "FanItem",
    "FocusItem",
    "MapView",
    "basemap",
    "box_rect",
    "cluster_radius",
    "cluster_tooltip",
    "fan_offsets",
    "nice_length",
    "overlapping_groups",
    "project",
    "unproject",
]

if TYPE_CHECKING:
    from .station_layer import StationLayer


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
        layout = fill(QVBoxLayout(self), bar, self.message, (self.stack, 1), margins=PANE)
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
