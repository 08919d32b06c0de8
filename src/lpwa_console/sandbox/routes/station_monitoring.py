"""What stations report: `/partners/{partnerUid}/bss/{bsUid}/sys/...` (CPU, RAM, disk and their
histories), `rfcell/indicators`, `rfcell/servedDevices`, `wans/indicators` and
`wans/ints/{intUid}` with its `roundTrips`. The station has one disk (0) and one backhaul
interface (0); other indexes are not found. Not available on a Basic Station (the reference)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, Query

from ...schema import station_monitoring as wire
from ...schema.frames import DEFAULT_STEP
from ..auth import AppServices, ClientBodies
from ..errors import bad_request, not_found
from ..store import station_monitoring as store
from ..store import station_ops
from ..store import stations as station_store
from ..store.clock import network_now
from ._common import PageParams, PathScope
from ._partners import PartnerReader, PartnerScope, visible_station_uid
from ._router import RecordedRouter
from ._windows import aggregation_window, span_ms

router = RecordedRouter(prefix="/partners/{partnerUid}/bss/{bsUid}", tags=["base station monitoring"],
                   dependencies=[ClientBodies])  # fmt: skip

DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS
Step = Annotated[str, Query()]


def _station(conn: Any, scope: PartnerScope, bs_uid: str) -> int:
    uid = visible_station_uid(conn, scope, bs_uid)
    model = station_ops.station(conn, uid)["model"]
    if station_store.software_type(conn, model) == "BASIC_STATION_LINUX":
        raise bad_request("model.softwareType: a Basic Station does not report this")
    return uid


def _disk(index: int) -> None:
    if index != 0:
        raise not_found(f"disk {index} not found (the station reports disk 0)")


@dataclass(frozen=True)
class StationPath(PathScope):
    """`{bsUid}`: `opened()` finds it (404, or 400 on a Basic Station) in the partner's scope."""

    scope: PartnerScope

    def opened(self) -> tuple[sqlite3.Connection, int]:
        conn = self.conn()
        return conn, _station(conn, self.scope, self.text)


@dataclass(frozen=True)
class HistoryQuery:
    """A history's `begin`, `duration` and `step` (`timezone` accepted): a week by default."""

    begin: datetime | None
    duration: str | None
    step: str

    def answer(self, station: StationPath, what: str) -> dict[str, Any]:
        conn, uid = station.opened()
        window = aggregation_window(
            conn, self.begin, self.duration, self.step, default_span_ms=WEEK_MS
        )
        return {
            "briefs": store.history(conn, uid, what, window.start, window.end, window.step),
            "now": window.now,
        }


async def station_path(bsUid: str, scope: PartnerReader, svc: AppServices) -> StationPath:
    return StationPath(bsUid, svc, scope)


async def history_query(
    begin: datetime | None = None, duration: str | None = None, step: Step = DEFAULT_STEP,
    timezone: str = "UTC",
) -> HistoryQuery:  # fmt: skip
    return HistoryQuery(begin, duration, step)


OfStation = Annotated[StationPath, Depends(station_path)]
History = Annotated[HistoryQuery, Depends(history_query)]


@router.reads("/sys/cpu", wire.CpuRecord)
def cpu(station: OfStation) -> dict[str, Any]:
    return store.record(*station.opened(), "cpu")


@router.reads("/sys/ram", wire.RamRecord)
def ram(station: OfStation) -> dict[str, Any]:
    return store.record(*station.opened(), "ram")


@router.reads("/sys/disks/{diskIndex}", wire.DiskRecord)
def disk(station: OfStation, diskIndex: int) -> dict[str, Any]:
    conn, uid = station.opened()
    _disk(diskIndex)
    return store.record(conn, uid, "disk")


@router.get("/sys/cpu/histories", response_model=wire.CpuHistory)
def cpu_history(station: OfStation, history: History) -> dict[str, Any]:
    return history.answer(station, "cpu")


@router.get("/sys/ram/histories", response_model=wire.RamHistory)
def ram_history(station: OfStation, history: History) -> dict[str, Any]:
    return history.answer(station, "ram")


@router.get("/sys/disks/{diskIndex}/histories", response_model=wire.DiskHistory)
def disk_history(station: OfStation, diskIndex: int, history: History) -> dict[str, Any]:
    _disk(diskIndex)
    return history.answer(station, "disk")


def frame_clock(conn: Any) -> int:
    return network_now(conn)


def _indicators(station: StationPath, what: str) -> dict[str, Any]:
    conn, uid = station.opened()
    return store.indicators(conn, uid, what, frame_clock(conn))


@router.reads("/rfcell/indicators", wire.Indicators)
def rfcell_indicators(station: OfStation) -> dict[str, Any]:
    return _indicators(station, "rfcell")


@router.reads("/wans/indicators", wire.Indicators)
def wan_indicators(station: OfStation) -> dict[str, Any]:
    return _indicators(station, "wan")


def _interface(index: int) -> None:
    if index != 0:
        raise not_found(f"interface {index} not found (the station has interface 0)")


@router.reads("/wans/ints/{intUid}", wire.BackhaulInterface)
def interface(station: OfStation, intUid: int) -> dict[str, Any]:
    conn, uid = station.opened()
    _interface(intUid)
    return store.interface(conn, uid, frame_clock(conn))


@router.get("/wans/ints/{intUid}/roundTrips", response_model=wire.RoundTrips)
def round_trips(station: OfStation, intUid: int, history: History) -> dict[str, Any]:
    _interface(intUid)
    return history.answer(station, "rtt")


@router.get(
    "/rfcell/servedDevices", response_model=wire.ServedDevices, response_model_exclude_none=True
)
def served_devices(
    bsUid: str,
    scope: PartnerReader,
    svc: AppServices,
    paging: PageParams,
    duration: str = "P1D",
    bsRank: Annotated[list[int] | None, Query()] = None,
    devicesWithLocationOnly: bool = False,
    sort: str = "lastUpTimestamp,desc",
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_station_uid(conn, scope, bsUid)
    ranks = sorted(set(bsRank or (1, 2, 3)))
    if any(not 1 <= r <= 3 for r in ranks):
        raise bad_request("bsRank: 1, 2 or 3")
    attribute, _, order = sort.partition(",")
    if attribute != "lastUpTimestamp" or order.lower() not in ("", "asc", "desc"):
        raise bad_request("sort: lastUpTimestamp,asc or lastUpTimestamp,desc")
    span = span_ms(duration, DAY_MS)
    if span % DAY_MS:
        raise bad_request("duration: a number of days (PxD)")
    now = frame_clock(conn)
    items, more, count, lrrs = store.served_devices(
        conn, uid, since_ms=now - span, ranks=ranks, with_location=devicesWithLocationOnly,
        visible_sub=scope.subscription_id, descending=order.lower() != "asc",
        offset=paging.offset, limit=paging.size,
    )  # fmt: skip
    return {"devices": items, "lrrs": lrrs, "more": more, "count": count}
