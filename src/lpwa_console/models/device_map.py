"""The device map's view-model: the visible bounding box in, the platform's clusters out
(`GET /devices/clusters`, Document 1 §4.1, at most 64 clusters a box), through the shared
cluster layer (models/cluster_layer.py); the devices' own part: the map's device filters and
how many devices have no position."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Signal

from ..api import LpwaClient
from ..schema.common import BoundingBox, Coordinates, ListEnvelope
from ..schema.devices import (
    Connectivity,
    DeviceBrief,
    DeviceCluster,
    DeviceClusters,
    DeviceFilter,
)
from .cluster_layer import Ask, ClusterLayerViewModel, GeoBox, Member
from .latest import Latest

__all__ = ["DeviceMapViewModel", "GeoBox", "Member", "merged"]

# The cluster endpoint accepts these device filters (Document 1 §4.1); others are not sent.
CLUSTER_FILTERS = ("appServerID", "connectivity")


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


class DeviceMapViewModel(ClusterLayerViewModel):
    """Clusters of the devices in the visible box, following the session and the map's
    device filters; `unplaced`: how many of them have no position."""

    filters_changed = Signal()
    unplaced_changed = Signal()  # how many devices have no position (`unplaced`)

    clusters_task = "Device clusters"
    extent_task = "Where the devices are"
    members_task = "Devices at one place"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """As ClusterLayerViewModel's."""
        super().__init__(*args, **kwargs)
        self.filters = DeviceFilter()
        # Devices matching the filters that no cluster holds (no position), once known.
        self.unplaced: int | None = None
        self._unplaced_task: int | None = None
        self._latest_unplaced = Latest()

    @property
    def connectivity(self) -> Connectivity | None:
        return self.filters.connectivity

    # --- the layer's requests -----------------------------------------------------------

    def _ask_clusters(self, client: LpwaClient, box: GeoBox) -> Ask:
        return client.devices.clusters(
            box.min_lat, box.min_lon, box.max_lat, box.max_lon, filters=self.filters
        )

    def _ask_members(self, client: LpwaClient, box: GeoBox, size: int) -> Ask:
        """With the map's filters."""
        filters = self.filters.model_copy(
            update={
                "minLat": box.min_lat,
                "minLon": box.min_lon,
                "maxLat": box.max_lat,
                "maxLon": box.max_lon,
            }
        )
        return client.devices.list(1, size, filters=filters)

    def member(self, brief: DeviceBrief) -> Member:
        return Member("device", brief.EUI, brief.name or brief.EUI)

    def cluster_box(self, cluster: DeviceCluster) -> GeoBox:
        return GeoBox.of_cluster(cluster)

    def _new_session(self) -> None:
        self.count_unplaced()

    # --- filters ------------------------------------------------------------------------

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

    # --- devices without a position -----------------------------------------------------

    def count_unplaced(self) -> None:
        """How many devices matching the filters have no position: the list's count minus
        what the world's clusters hold (`unplaced`, None until known)."""
        self._cancel_unplaced()
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

    def _cancel_unplaced(self) -> None:
        self._latest_unplaced.advance()
        if self._unplaced_task is not None:
            self.runner.cancel(self._unplaced_task)
            self._unplaced_task = None

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

    def close(self) -> None:
        """Stop asking (the pane is going)."""
        self._cancel_unplaced()
        super().close()


def _unplaced(placed: DeviceClusters, listed: ListEnvelope[DeviceBrief]) -> int | None:
    if listed.count is None:
        return None
    return max(0, listed.count - (placed.count or sum(c.count for c in placed.clusters)))
