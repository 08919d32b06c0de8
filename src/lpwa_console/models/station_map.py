"""The base station layer of the map: the platform's clusters of stations in the visible box
(`GET /partners/mine/bss/clusters`), and the stations inside a box the user drew, as command
targets. Requests wait for the view to settle; a newer box makes an older answer stale."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ..api import LpwaClient
from ..schema.stations import BaseStationBrief, BaseStationCluster, BaseStationFilter
from .device_map import MAX_FAN, GeoBox, Member
from .latest import Latest
from .station_commands import StationRef
from .stations import station_ref
from .tasks import TaskRunner

log = logging.getLogger(__name__)

DEBOUNCE_MS = 200
MAX_BOX_STATIONS = 1000  # one page: a bulk command is for a selection, not a continent


def cluster_box(cluster: BaseStationCluster) -> GeoBox:
    sw, ne = cluster.bbox.get("southwest", {}), cluster.bbox.get("northeast", {})
    return GeoBox(sw.get("lat", 0.0), sw.get("lng", 0.0), ne.get("lat", 0.0), ne.get("lng", 0.0))


def cluster_point(cluster: BaseStationCluster) -> tuple[float, float]:
    return cluster.location.get("lat", 0.0), cluster.location.get("lng", 0.0)


class StationMapViewModel(QObject):
    clusters_changed = Signal()
    error = Signal(str)
    selection_ready = Signal(object, object)  # list[StationRef], GeoBox
    selection_failed = Signal(str)
    members_ready = Signal(object, object, int)  # list[Member], GeoBox, how many in all
    client_changed = Signal(bool)  # has a client (none: the account has no stations)
    extent_found = Signal(object)  # GeoBox | None: where the stations are (`fit_all`)

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client
        self.enabled = True
        self.box: GeoBox | None = None
        self.clusters: list[BaseStationCluster] = []
        self.total = 0
        self.answered_box: GeoBox | None = None
        self.error_message = ""
        self.requests = 0
        self._latest = Latest()
        self._task: int | None = None
        self._select_task: int | None = None
        self._members_task: int | None = None
        self._extent_task: int | None = None
        self._latest_extent = Latest()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(debounce_ms)
        self.timer.timeout.connect(self._request)

    @property
    def has_client(self) -> bool:
        return self.client is not None

    @property
    def settled(self) -> bool:
        return not self.timer.isActive() and self._task is None and self._extent_task is None

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self._cancel()
        self._cancel_extent()
        self._set_answer(None, [], 0)
        self.error_message = ""
        self.client_changed.emit(client is not None)
        if client is not None and self.box is not None:
            self._request()

    def set_enabled(self, enabled: bool) -> None:
        """The layer toggle: off asks nothing and shows nothing."""
        self.enabled = enabled
        if enabled:
            self.refresh()
        else:
            self._cancel()
            self._set_answer(None, [], 0)

    def set_box(self, box: GeoBox | None, *, now: bool = False) -> None:
        box = box.clamped() if box is not None else None
        if box == self.box and not now:
            return
        self.box = box
        if now:
            self._request()
        else:
            self.timer.start()

    def refresh(self) -> None:
        self.timer.stop()
        self._request()

    def _cancel(self) -> None:
        self._latest.advance()
        self.timer.stop()
        if self._task is not None:
            self.runner.cancel(self._task)
            self._task = None

    def _request(self) -> None:
        self._cancel()
        box, client = self.box, self.client
        if not self.enabled or client is None or box is None or box.empty:
            return
        generation = self._latest.ticket
        self.requests += 1
        self._task = self.runner.run(
            "Base station clusters",
            client.stations.clusters(box.min_lat, box.min_lon, box.max_lat, box.max_lon),
            on_done=lambda answer: self._answered(generation, box, answer),
            on_error=lambda _exc, message: self._failed(generation, message),
            quiet=True,
        )

    def _answered(self, generation: int, box: GeoBox, answer: Any) -> None:
        if not self._latest.is_current(generation):
            return
        self._task = None
        self.error_message = ""
        clusters = list(answer.clusters)
        self._set_answer(box, clusters, answer.count or sum(c.count for c in clusters))

    def _failed(self, generation: int, message: str) -> None:
        if not self._latest.is_current(generation):
            return
        self._task = None
        self.error_message = message or "no answer"
        self.error.emit(self.error_message)

    def _set_answer(
        self, box: GeoBox | None, clusters: list[BaseStationCluster], total: int
    ) -> None:
        self.answered_box = box
        self.clusters = clusters
        self.total = total
        self.clusters_changed.emit()

    # --- where the stations are -------------------------------------------------------

    def fit_all(self) -> None:
        """Find the box holding every station (`extent_found`): the map of an account with
        stations and no devices (a network partner) fits them."""
        self._cancel_extent()
        client = self.client
        if client is None:
            return
        world, generation = GeoBox.world(), self._latest_extent.ticket

        def done(answer: Any) -> None:
            if self._latest_extent.is_current(generation):
                self._extent_task = None
                self.extent_found.emit(GeoBox.around(cluster_box(c) for c in answer.clusters))

        def failed(_exc: BaseException, message: str) -> None:
            if self._latest_extent.is_current(generation):
                self._extent_task = None
                self.error_message = message or "no answer"
                self.error.emit(self.error_message)

        self._extent_task = self.runner.run(
            "Where the base stations are",
            client.stations.clusters(world.min_lat, world.min_lon, world.max_lat, world.max_lon),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def _cancel_extent(self) -> None:
        self._latest_extent.advance()
        if self._extent_task is not None:
            self.runner.cancel(self._extent_task)
            self._extent_task = None

    # --- box selection ------------------------------------------------------------------

    def list_members(self, box: GeoBox) -> None:
        """The stations of a cluster too tight to split, as `members_ready` (fanned out
        around their place)."""
        if self._members_task is not None:
            self.runner.cancel(self._members_task)
            self._members_task = None
        if self.client is None:
            return
        box = box.clamped()
        filters = BaseStationFilter(
            minLat=box.min_lat, minLon=box.min_lon, maxLat=box.max_lat, maxLon=box.max_lon
        )

        def done(page: Any) -> None:
            self._members_task = None
            briefs: list[BaseStationBrief] = list(page.briefs)
            members = [Member("station", s.lrrID, s.name or s.lrrID) for s in briefs]
            self.members_ready.emit(members, box, page.count or len(members))

        def failed(_exc: BaseException, message: str) -> None:
            self._members_task = None
            self.error.emit(message)

        self._members_task = self.runner.run(
            "Base stations at one place",
            self.client.stations.list(1, MAX_FAN, filters=filters),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def select_box(self, box: GeoBox) -> None:
        """The stations inside this box (at most one page), as `selection_ready`."""
        if self._select_task is not None:
            self.runner.cancel(self._select_task)
            self._select_task = None
        if self.client is None:
            return
        box = box.clamped()
        filters = BaseStationFilter(
            minLat=box.min_lat, minLon=box.min_lon, maxLat=box.max_lat, maxLon=box.max_lon
        )

        def done(page: Any) -> None:
            self._select_task = None
            briefs: list[BaseStationBrief] = list(page.briefs)
            refs: list[StationRef] = [station_ref(s) for s in briefs]
            self.selection_ready.emit(refs, box)

        def failed(_exc: BaseException, message: str) -> None:
            self._select_task = None
            self.selection_failed.emit(message)

        self._select_task = self.runner.run(
            "Base stations in the box",
            self.client.stations.list(1, MAX_BOX_STATIONS, filters=filters),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def summary(self) -> str:
        if not self.enabled or self.client is None or self.answered_box is None:
            return ""
        n = self.total
        return f"{n:,} base station{'' if n == 1 else 's'} in view"

    def close(self) -> None:
        self._cancel()
        self._cancel_extent()
        if self._members_task is not None:
            self.runner.cancel(self._members_task)
            self._members_task = None
        if self._select_task is not None:
            self.runner.cancel(self._select_task)
            self._select_task = None
