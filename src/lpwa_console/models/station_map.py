"""The base station layer of the map: the platform's clusters of stations in the visible box
(`GET /partners/mine/bss/clusters`) through the shared cluster layer
(models/cluster_layer.py), and the stations inside a box the user drew, as command targets."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal

from ..api import LpwaClient
from ..schema.stations import BaseStationBrief, BaseStationCluster, BaseStationFilter
from .cluster_layer import Ask, ClusterLayerViewModel, GeoBox, Member
from .station_command_catalogue import StationRef
from .stations import station_ref

MAX_BOX_STATIONS = 1000  # one page: a bulk command is for a selection, not a continent


def cluster_box(cluster: BaseStationCluster) -> GeoBox:
    sw, ne = cluster.bbox.get("southwest", {}), cluster.bbox.get("northeast", {})
    return GeoBox(sw.get("lat", 0.0), sw.get("lng", 0.0), ne.get("lat", 0.0), ne.get("lng", 0.0))


def cluster_point(cluster: BaseStationCluster) -> tuple[float, float]:
    return cluster.location.get("lat", 0.0), cluster.location.get("lng", 0.0)


def in_box(box: GeoBox) -> BaseStationFilter:
    return BaseStationFilter(
        minLat=box.min_lat, minLon=box.min_lon, maxLat=box.max_lat, maxLon=box.max_lon
    )


class StationMapViewModel(ClusterLayerViewModel):
    """Clusters of the stations in the visible box; `select_box` lists the stations of a
    drawn box as command targets."""

    selection_ready = Signal(object, object)  # list[StationRef], GeoBox
    selection_failed = Signal(str)

    clusters_task = "Base station clusters"
    extent_task = "Where the base stations are"
    members_task = "Base stations at one place"

    _select_task: int | None = None

    def _ask_clusters(self, client: LpwaClient, box: GeoBox) -> Ask:
        return client.stations.clusters(box.min_lat, box.min_lon, box.max_lat, box.max_lon)

    def _ask_members(self, client: LpwaClient, box: GeoBox, size: int) -> Ask:
        return client.stations.list(1, size, filters=in_box(box))

    def member(self, brief: BaseStationBrief) -> Member:
        return Member("station", brief.lrrID, brief.name or brief.lrrID)

    def cluster_box(self, cluster: BaseStationCluster) -> GeoBox:
        return cluster_box(cluster)

    # --- box selection ------------------------------------------------------------------

    def select_box(self, box: GeoBox) -> None:
        """The stations inside this box (at most one page), as `selection_ready`."""
        self._cancel_select()
        if self.client is None:
            return
        box = box.clamped()

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
            self.client.stations.list(1, MAX_BOX_STATIONS, filters=in_box(box)),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def _cancel_select(self) -> None:
        if self._select_task is not None:
            self.runner.cancel(self._select_task)
            self._select_task = None

    def summary(self) -> str:
        if not self.enabled or self.client is None or self.answered_box is None:
            return ""
        n = self.total
        return f"{n:,} base station{'' if n == 1 else 's'} in view"

    def close(self) -> None:
        self._cancel_select()
        super().close()
