"""What stations report: `/partners/{partnerUid}/bss/{bsUid}/sys/...` (CPU, RAM, disk and their
histories), `rfcell/indicators`, `rfcell/servedDevices`, `wans/indicators` and
`wans/ints/{intUid}` with its `roundTrips`. The station has one disk (0) and one backhaul
interface (0); other indexes are not found. Not available on a Basic Station (the reference)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Query

from ...schema import station_monitoring as wire
from ...schema.frames import DEFAULT_STEP
from ..auth import AppServices, ClientBodies
from ..errors import bad_request, not_found
from ..store import station_monitoring as store
from ..store import station_ops
from ..store import stations as station_store
from ..store.clock import network_now
from ._common import PageParams
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


@router.get("/sys/cpu", response_model=wire.CpuRecord, response_model_exclude_none=True)
def cpu(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return store.record(conn, _station(conn, scope, bsUid), "cpu")


@router.get("/sys/ram", response_model=wire.RamRecord, response_model_exclude_none=True)
def ram(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return store.record(conn, _station(conn, scope, bsUid), "ram")


@router.get(
    "/sys/disks/{diskIndex}", response_model=wire.DiskRecord, response_model_exclude_none=True
)
def disk(bsUid: str, diskIndex: int, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = _station(conn, scope, bsUid)
    _disk(diskIndex)
    return store.record(conn, uid, "disk")


def _history(
    svc: AppServices, scope: PartnerScope, bs_uid: str, what: str,
    begin: datetime | None, duration: str | None, step: str,
) -> dict[str, Any]:  # fmt: skip
    conn = svc.db.conn()
    uid = _station(conn, scope, bs_uid)
    window = aggregation_window(conn, begin, duration, step, default_span_ms=WEEK_MS)
    return {
        "briefs": store.history(conn, uid, what, window.start, window.end, window.step),
        "now": window.now,
    }


@router.get("/sys/cpu/histories", response_model=wire.CpuHistory)
def cpu_history(
    bsUid: str, scope: PartnerReader, svc: AppServices, begin: datetime | None = None,
    duration: str | None = None, step: Step = DEFAULT_STEP, timezone: str = "UTC",
) -> dict[str, Any]:  # fmt: skip
    return _history(svc, scope, bsUid, "cpu", begin, duration, step)


@router.get("/sys/ram/histories", response_model=wire.RamHistory)
def ram_history(
    bsUid: str, scope: PartnerReader, svc: AppServices, begin: datetime | None = None,
    duration: str | None = None, step: Step = DEFAULT_STEP, timezone: str = "UTC",
) -> dict[str, Any]:  # fmt: skip
    return _history(svc, scope, bsUid, "ram", begin, duration, step)


@router.get("/sys/disks/{diskIndex}/histories", response_model=wire.DiskHistory)
def disk_history(
    bsUid: str, diskIndex: int, scope: PartnerReader, svc: AppServices,
    begin: datetime | None = None, duration: str | None = None, step: Step = DEFAULT_STEP,
    timezone: str = "UTC",
) -> dict[str, Any]:  # fmt: skip
    _disk(diskIndex)
    return _history(svc, scope, bsUid, "disk", begin, duration, step)


@router.get("/rfcell/indicators", response_model=wire.Indicators, response_model_exclude_none=True)
def rfcell_indicators(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return store.indicators(conn, _station(conn, scope, bsUid), "rfcell", frame_clock(conn))


@router.get("/wans/indicators", response_model=wire.Indicators, response_model_exclude_none=True)
def wan_indicators(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return store.indicators(conn, _station(conn, scope, bsUid), "wan", frame_clock(conn))


def _interface(index: int) -> None:
    if index != 0:
        raise not_found(f"interface {index} not found (the station has interface 0)")


@router.get(
    "/wans/ints/{intUid}", response_model=wire.BackhaulInterface, response_model_exclude_none=True
)
def interface(bsUid: str, intUid: int, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = _station(conn, scope, bsUid)
    _interface(intUid)
    return store.interface(conn, uid, frame_clock(conn))


def frame_clock(conn: Any) -> int:
    return network_now(conn)


@router.get("/wans/ints/{intUid}/roundTrips", response_model=wire.RoundTrips)
def round_trips(
    bsUid: str, intUid: int, scope: PartnerReader, svc: AppServices,
    begin: datetime | None = None, duration: str | None = None, step: Step = DEFAULT_STEP,
    timezone: str = "UTC",
) -> dict[str, Any]:  # fmt: skip
    _interface(intUid)
    return _history(svc, scope, bsUid, "rtt", begin, duration, step)


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
