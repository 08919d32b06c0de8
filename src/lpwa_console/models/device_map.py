"""The device map's view-model: the visible bounding box in, the platform's clusters out.

The platform groups the devices of a bounding box into at most 64 clusters
(`GET /devices/clusters`, Document 1 §4.1); it takes no zoom level, so every pan or zoom asks
again. Requests wait until the view has been still for a moment (debounced), and a newer
request makes an older one stale: it is cancelled, and an answer that still arrives is
dropped, so the clusters shown always belong to the last box asked for.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from ..api import LpwaClient
from ..schema.common import BoundingBox, Coordinates, ListEnvelope
from ..schema.devices import (
    Connectivity,
    DeviceBrief,
    DeviceCluster,
    DeviceClusters,
    DeviceFilter,
    DevicePage,
)
from .latest import Latest
from .tasks import TaskRunner

log = logging.getLogger(__name__)

DEBOUNCE_MS = 200
# The cluster endpoint accepts these device filters (Document 1 §4.1); others are not sent.
CLUSTER_FILTERS = ("appServerID", "connectivity")
MAX_FAN = 40  # devices fanned out around a place they share: more are listed in words


@dataclass(frozen=True)
class Member:
    """One item of a cluster whose items share a place (fanned out around it)."""

    kind: str  # "device" or "station"
    ident: str  # EUI or LRR ID
    name: str


@dataclass(frozen=True)
class GeoBox:
    """A latitude/longitude box, as the cluster endpoint takes it."""

    min_lat: float
    min_lon: float
    max_lat: float
    max_lon: float

    @classmethod
    def world(cls) -> GeoBox:
        return cls(-90.0, -180.0, 90.0, 180.0)

    @classmethod
    def around(cls, boxes: Iterable[GeoBox]) -> GeoBox | None:
        """The smallest box holding all of these (None for none)."""
        items = list(boxes)
        if not items:
            return None
        return cls(
            min(b.min_lat for b in items),
            min(b.min_lon for b in items),
            max(b.max_lat for b in items),
            max(b.max_lon for b in items),
        )

    @classmethod
    def of_cluster(cls, cluster: DeviceCluster) -> GeoBox:
        sw, ne = cluster.bbox.southwest, cluster.bbox.northeast
        return cls(sw.lat, sw.lng, ne.lat, ne.lng)

    def clamped(self) -> GeoBox:
        """Inside the valid ranges (the endpoint refuses anything else), rounded to 1e-6."""

        def clamp(value: float, low: float, high: float) -> float:
            return round(min(max(value, low), high), 6)

        min_lat, max_lat = clamp(self.min_lat, -90, 90), clamp(self.max_lat, -90, 90)
        min_lon, max_lon = clamp(self.min_lon, -180, 180), clamp(self.max_lon, -180, 180)
        return GeoBox(min_lat, min_lon, max(min_lat, max_lat), max(min_lon, max_lon))

    @property
    def empty(self) -> bool:
        return self.max_lat <= self.min_lat or self.max_lon <= self.min_lon


def merged(clusters: list[DeviceCluster]) -> DeviceCluster:
    """Several clusters as one (a view merges those whose markers would overlap): the counts
    added, the centre weighted by them, the boxes joined."""
    if len(clusters) == 1:
        return clusters[0]
    count = sum(c.count for c in clusters)
    box = GeoBox.around(GeoBox.of_cluster(c) for c in clusters)
    assert box is not None
    return DeviceCluster(
        count=count,
        location=Coordinates(
            lat=sum(c.location.lat * c.count for c in clusters) / count,
            lng=sum(c.location.lng * c.count for c in clusters) / count,
        ),
        bbox=BoundingBox(
            northeast=Coordinates(lat=box.max_lat, lng=box.max_lon),
            southwest=Coordinates(lat=box.min_lat, lng=box.min_lon),
        ),
    )


class DeviceMapViewModel(QObject):
    """Clusters of the devices in the visible box, following the session.

    `clusters`, `total` (devices in the box) and `answered_box` describe the last answer;
    `clusters_changed` says they changed (a new answer, or cleared for another session).
    """

    clusters_changed = Signal()
    loading_changed = Signal(bool)
    error = Signal(str)  # a request failed: in words
    client_changed = Signal(bool)  # has a client
    extent_found = Signal(object)  # GeoBox | None: where the devices are (`fit_all`)
    filters_changed = Signal()
    unplaced_changed = Signal()  # how many devices have no position (`unplaced`)
    members_ready = Signal(object, object, int)  # list[Member], GeoBox, how many in all

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
        self.filters = DeviceFilter()
        self.enabled = True  # the map's device layer toggle
        self.box: GeoBox | None = None
        self.clusters: list[DeviceCluster] = []
        self.total = 0
        self.answered_box: GeoBox | None = None
        self.error_message = ""
        # Devices matching the filters that no cluster holds (no position), once known.
        self.unplaced: int | None = None
        self._unplaced_task: int | None = None
        self._latest_unplaced = Latest()
        self.first_clusters_ms: float | None = None  # since the client was set
        self.requests = 0  # sent, for tests and the self-test
        self._t0 = time.perf_counter()
        self._latest = Latest()
        self._task: int | None = None
        self._extent_task: int | None = None
        self._latest_extent = Latest()
        self._loading = False
        self._members_task: int | None = None
        self._latest_members = Latest()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(debounce_ms)
        self.timer.timeout.connect(self._request)

    # --- state --------------------------------------------------------------------------

    @property
    def has_client(self) -> bool:
        return self.client is not None

    @property
    def loading(self) -> bool:
        """A request is waiting for the view to settle or for its answer."""
        return self.timer.isActive() or self._task is not None or self._extent_task is not None

    @property
    def settled(self) -> bool:
        """The clusters shown answer the box asked for (or that failed), nothing pending."""
        return not self.loading and (
            self.client is None or not self.enabled or self.box is None or self.box.empty
            or bool(self.error_message) or self.answered_box == self.box
        )  # fmt: skip

    @property
    def connectivity(self) -> Connectivity | None:
        return self.filters.connectivity

    def _update_loading(self) -> None:
        loading = self.loading
        if loading != self._loading:
            self._loading = loading
            self.loading_changed.emit(loading)

    # --- inputs -------------------------------------------------------------------------

    def set_client(self, client: LpwaClient | None) -> None:
        """A new session (or none): what was shown belongs to the old one."""
        self.client = client
        self._cancel()
        self._cancel_extent()
        self.first_clusters_ms = None
        self._t0 = time.perf_counter()
        self._set_answer(None, [], 0)
        self.error_message = ""
        self.count_unplaced()
        self.client_changed.emit(client is not None)
        if client is not None and self.box is not None:
            self._request()
        self._update_loading()

    def set_enabled(self, enabled: bool) -> None:
        """The device layer's toggle: off asks nothing and shows nothing."""
        if enabled == self.enabled:
            return
        self.enabled = enabled
        if enabled:
            self.refresh()
        else:
            self._cancel()
            self._set_answer(None, [], 0)
            self._update_loading()

    def set_box(self, box: GeoBox | None, *, now: bool = False) -> None:
        """The visible box; asked once the view has been still for the debounce interval
        (at once with `now`). The same box again asks nothing."""
        box = box.clamped() if box is not None else None
        if box == self.box and not now:
            return
        self.box = box
        if now:
            self.timer.stop()
            self._request()
        else:
            self.timer.start()
        self._update_loading()

    def set_filters(self, filters: DeviceFilter) -> None:
        """Device filters; only those the cluster endpoint accepts are kept."""
        kept = DeviceFilter.model_validate(
            {k: v for k, v in filters.model_dump().items() if k in CLUSTER_FILTERS}
        )
        if kept == self.filters:
            return
        self.filters = kept
        self.filters_changed.emit()
        self.count_unplaced()
        self.refresh()

    def set_connectivity(self, connectivity: Connectivity | None) -> None:
        self.set_filters(self.filters.model_copy(update={"connectivity": connectivity}))

    def refresh(self) -> None:
        """Ask again for the current box, now."""
        self.timer.stop()
        self._request()
        self._update_loading()

    # --- requests -----------------------------------------------------------------------

    def _cancel(self) -> None:
        self._latest.advance()  # whatever is in flight is stale from now on
        self.timer.stop()
        if self._task is not None:
            self.runner.cancel(self._task)
            self._task = None

    def _request(self) -> None:
        self._cancel()
        if not self.enabled or self.client is None or self.box is None or self.box.empty:
            self._update_loading()
            return
        box, generation, client = self.box, self._latest.ticket, self.client
        self.requests += 1
        self._task = self.runner.run(
            "Device clusters",
            client.devices.clusters(
                box.min_lat, box.min_lon, box.max_lat, box.max_lon, filters=self.filters
            ),
            on_done=lambda answer: self._answered(generation, box, answer),
            on_error=lambda _exc, message: self._failed(generation, message),
            quiet=True,
        )
        self._update_loading()

    def _answered(self, generation: int, box: GeoBox, answer: DeviceClusters) -> None:
        if not self._latest.is_current(generation):
            log.debug("dropped a stale cluster answer for %s", box)
            return
        self._task = None
        self.error_message = ""
        total = answer.count or sum(c.count for c in answer.clusters)
        if self.first_clusters_ms is None:
            self.first_clusters_ms = (time.perf_counter() - self._t0) * 1000
        self._set_answer(box, answer.clusters, total)
        self._update_loading()

    def _failed(self, generation: int, message: str) -> None:
        if not self._latest.is_current(generation):
            return
        self._task = None
        self.error_message = message or "no answer"
        self._update_loading()
        self.error.emit(self.error_message)

    def _set_answer(self, box: GeoBox | None, clusters: list[DeviceCluster], total: int) -> None:
        self.answered_box = box
        self.clusters = list(clusters)
        self.total = total
        self.clusters_changed.emit()

    # --- where the devices are ----------------------------------------------------------

    def fit_all(self) -> None:
        """Find the box holding every device that matches the filters (`extent_found`)."""
        self._cancel_extent()
        if self.client is None:
            return
        world, generation = GeoBox.world(), self._latest_extent.ticket

        def done(answer: DeviceClusters) -> None:
            if not self._latest_extent.is_current(generation):
                return
            self._extent_task = None
            self._update_loading()
            self.extent_found.emit(GeoBox.around(GeoBox.of_cluster(c) for c in answer.clusters))

        def failed(_exc: BaseException, message: str) -> None:
            if not self._latest_extent.is_current(generation):
                return
            self._extent_task = None
            self.error_message = message or "no answer"
            self._update_loading()
            self.error.emit(self.error_message)

        self._extent_task = self.runner.run(
            "Where the devices are",
            self.client.devices.clusters(
                world.min_lat, world.min_lon, world.max_lat, world.max_lon, filters=self.filters
            ),
            on_done=done,
            on_error=failed,
            quiet=True,
        )
        self._update_loading()

    def count_unplaced(self) -> None:
        """How many devices matching the filters have no position: the list's count minus
        what the world's clusters hold (`unplaced`, None until known)."""
        self._latest_unplaced.advance()
        if self._unplaced_task is not None:
            self.runner.cancel(self._unplaced_task)
            self._unplaced_task = None
        self._set_unplaced(None)
        client = self.client
        if client is None:
            return
        world, generation, filters = GeoBox.world(), self._latest_unplaced.ticket, self.filters

        async def count() -> int | None:
            listing = client.devices.list(1, 10, filters=filters)  # first: nothing left unawaited
            placing = client.devices.clusters(
                world.min_lat, world.min_lon, world.max_lat, world.max_lon, filters=filters
            )
            placed, listed = await asyncio.gather(placing, listing)
            return _unplaced(placed, listed)

        def done(result: int | None) -> None:
            if self._latest_unplaced.is_current(generation):
                self._unplaced_task = None
                self._set_unplaced(result)

        def failed(_exc: BaseException, _message: str) -> None:
            if self._latest_unplaced.is_current(generation):
                self._unplaced_task = None  # not known: nothing said

        self._unplaced_task = self.runner.run(
            "Devices without a position", count(), on_done=done, on_error=failed, quiet=True
        )

    def _set_unplaced(self, count: int | None) -> None:
        if count != self.unplaced:
            self.unplaced = count
            self.unplaced_changed.emit()

    def _cancel_extent(self) -> None:
        self._latest_extent.advance()
        if self._extent_task is not None:
            self.runner.cancel(self._extent_task)
            self._extent_task = None

    # --- summary ------------------------------------------------------------------------

    def summary(self, shown: int | None = None) -> str:
        """ "N devices in M clusters in view" (M: `shown`, the markers a view draws, by
        default the clusters of the answer), or why there is nothing."""
        if self.client is None:
            return "Not connected"
        if not self.enabled:
            return ""
        if self.answered_box is None:
            return "Loading…" if self.loading else ""
        n, m = self.total, len(self.clusters) if shown is None else shown
        devices = f"{n:,} device{'' if n == 1 else 's'}"
        clusters = f"{m:,} cluster{'' if m == 1 else 's'}"
        return f"{devices} in {clusters} in view"

    def list_members(self, box: GeoBox) -> None:
        """The devices of a cluster too tight to split (one list page with the box filter
        and the map's filters), as `members_ready`."""
        generation = self._latest_members.advance()
        if self._members_task is not None:
            self.runner.cancel(self._members_task)
            self._members_task = None
        if self.client is None:
            return
        box = box.clamped()
        filters = self.filters.model_copy(
            update={
                "minLat": box.min_lat,
                "minLon": box.min_lon,
                "maxLat": box.max_lat,
                "maxLon": box.max_lon,
            }
        )

        def done(page: DevicePage) -> None:
            if self._latest_members.is_current(generation):
                self._members_task = None
                members = [Member("device", d.EUI, d.name or d.EUI) for d in page.briefs]
                self.members_ready.emit(members, box, page.count or len(members))

        def failed(_exc: BaseException, message: str) -> None:
            if self._latest_members.is_current(generation):
                self._members_task = None
                self.error.emit(message)

        self._members_task = self.runner.run(
            "Devices at one place",
            self.client.devices.list(1, MAX_FAN, filters=filters),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def close(self) -> None:
        """Stop asking (the pane is going)."""
        self._latest_members.advance()
        if self._members_task is not None:
            self.runner.cancel(self._members_task)
            self._members_task = None
        self._cancel()
        self._cancel_extent()
        self._latest_unplaced.advance()
        if self._unplaced_task is not None:
            self.runner.cancel(self._unplaced_task)
            self._unplaced_task = None
        self._update_loading()


def _unplaced(placed: DeviceClusters, listed: ListEnvelope[DeviceBrief]) -> int | None:
    if listed.count is None:
        return None
    return max(0, listed.count - (placed.count or sum(c.count for c in placed.clusters)))
