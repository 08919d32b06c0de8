"""One map layer of clusters, the recipe the device and base station layers share.

The platform groups the items of a bounding box into clusters (it takes no zoom level, so
every pan or zoom asks again). Requests wait until the view has been still for a moment
(debounced), and a newer request makes an older one stale: it is cancelled, and an answer
that still arrives is dropped, so the clusters shown always belong to the last box asked for.
A layer also finds where all its items are (`fit_all`) and lists the items of a cluster too
tight to split (`list_members`). A subclass says which endpoint it asks (`_ask_clusters`,
`_ask_members`), how a cluster's box and a listed item read, and its summary.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ..api import LpwaClient
from ..schema.devices import DeviceCluster
from .client_view_model import ClientViewModel
from .latest import Latest
from .tasks import TaskRunner

log = logging.getLogger(__name__)

DEBOUNCE_MS = 200
MAX_FAN = 40  # items fanned out around a place they share: more are listed in words


@dataclass(frozen=True)
class Member:
    """One item of a cluster whose items share a place (fanned out around it)."""

    kind: str  # "device" or "station"
    ident: str  # EUI or LRR ID
    name: str


@dataclass(frozen=True)
class GeoBox:
    """A latitude/longitude box, as the cluster endpoints take it."""

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


Ask = Coroutine[Any, Any, Any]


class ClusterLayerViewModel(ClientViewModel):
    """Clusters of the layer's items in the visible box, following the session.

    `clusters`, `total` (items in the box) and `answered_box` describe the last answer;
    `clusters_changed` says they changed (a new answer, or cleared for another session).
    """

    clusters_changed = Signal()
    loading_changed = Signal(bool)
    error = Signal(str)  # a request failed: in words
    client_changed = Signal(bool)  # has a client (none: the account has no such items)
    extent_found = Signal(object)  # GeoBox | None: where the items are (`fit_all`)
    members_ready = Signal(object, object, int)  # list[Member], GeoBox, how many in all

    # The task names the activity panel shows (a subclass names its items).
    clusters_task = "Clusters"
    extent_task = "Where the items are"
    members_task = "Items at one place"

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runner, client, parent)
        self.enabled = True  # the map's toggle of this layer
        self.box: GeoBox | None = None
        self.clusters: list[Any] = []
        self.total = 0
        self.answered_box: GeoBox | None = None
        self.error_message = ""
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

    # --- what a layer says --------------------------------------------------------------

    def _ask_clusters(self, client: LpwaClient, box: GeoBox) -> Ask:
        """The request for the clusters of `box` (an answer with `count` and `clusters`)."""
        raise NotImplementedError

    def _ask_members(self, client: LpwaClient, box: GeoBox, size: int) -> Ask:
        """The request for one list page of the items inside `box`."""
        raise NotImplementedError

    def member(self, brief: Any) -> Member:
        raise NotImplementedError

    def cluster_box(self, cluster: Any) -> GeoBox:
        raise NotImplementedError

    def _new_session(self) -> None:
        """What a subclass starts again for another session (or none)."""

    # --- state --------------------------------------------------------------------------

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
        self._new_session()
        self.client_changed.emit(client is not None)
        if client is not None and self.box is not None:
            self._request()
        self._update_loading()

    def set_enabled(self, enabled: bool) -> None:
        """The layer's toggle: off asks nothing and shows nothing."""
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
        box, generation = self.box, self._latest.ticket
        self.requests += 1
        self._task = self.runner.run(
            self.clusters_task,
            self._ask_clusters(self.client, box),
            on_done=lambda answer: self._answered(generation, box, answer),
            on_error=lambda _exc, message: self._failed(generation, message),
            quiet=True,
        )
        self._update_loading()

    def _answered(self, generation: int, box: GeoBox, answer: Any) -> None:
        if not self._latest.is_current(generation):
            log.debug("dropped a stale cluster answer for %s", box)
            return
        self._task = None
        self.error_message = ""
        clusters = list(answer.clusters)
        total = answer.count or sum(c.count for c in clusters)
        if self.first_clusters_ms is None:
            self.first_clusters_ms = (time.perf_counter() - self._t0) * 1000
        self._set_answer(box, clusters, total)
        self._update_loading()

    def _failed(self, generation: int, message: str) -> None:
        if not self._latest.is_current(generation):
            return
        self._task = None
        self.error_message = message or "no answer"
        self._update_loading()
        self.error.emit(self.error_message)

    def _set_answer(self, box: GeoBox | None, clusters: list[Any], total: int) -> None:
        self.answered_box = box
        self.clusters = list(clusters)
        self.total = total
        self.clusters_changed.emit()

    # --- where the items are ------------------------------------------------------------

    def fit_all(self) -> None:
        """Find the box holding every item of the layer (`extent_found`)."""
        self._cancel_extent()
        if self.client is None:
            return
        generation = self._latest_extent.ticket

        def done(answer: Any) -> None:
            if not self._latest_extent.is_current(generation):
                return
            self._extent_task = None
            self._update_loading()
            self.extent_found.emit(GeoBox.around(self.cluster_box(c) for c in answer.clusters))

        def failed(_exc: BaseException, message: str) -> None:
            if not self._latest_extent.is_current(generation):
                return
            self._extent_task = None
            self.error_message = message or "no answer"
            self._update_loading()
            self.error.emit(self.error_message)

        self._extent_task = self.runner.run(
            self.extent_task,
            self._ask_clusters(self.client, GeoBox.world()),
            on_done=done,
            on_error=failed,
            quiet=True,
        )
        self._update_loading()

    def _cancel_extent(self) -> None:
        self._latest_extent.advance()
        if self._extent_task is not None:
            self.runner.cancel(self._extent_task)
            self._extent_task = None

    # --- the items of one place ---------------------------------------------------------

    def list_members(self, box: GeoBox) -> None:
        """The items of a cluster too tight to split (one list page of the box), as
        `members_ready` (fanned out around their place)."""
        self._cancel_members()
        if self.client is None:
            return
        box, generation = box.clamped(), self._latest_members.ticket

        def done(page: Any) -> None:
            if self._latest_members.is_current(generation):
                self._members_task = None
                members = [self.member(brief) for brief in page.briefs]
                self.members_ready.emit(members, box, page.count or len(members))

        def failed(_exc: BaseException, message: str) -> None:
            if self._latest_members.is_current(generation):
                self._members_task = None
                self.error.emit(message)

        self._members_task = self.runner.run(
            self.members_task,
            self._ask_members(self.client, box, MAX_FAN),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def _cancel_members(self) -> None:
        self._latest_members.advance()
        if self._members_task is not None:
            self.runner.cancel(self._members_task)
            self._members_task = None

    def close(self) -> None:
        """Stop asking (the pane is going)."""
        self._cancel_members()
        self._cancel()
        self._cancel_extent()
        self._update_loading()
