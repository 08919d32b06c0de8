"""Traffic history: `/devices/{deviceUid}/frames/aggregated` and the deprecated `/frames`.

The time windows (`begin`, `duration`, `step`) are read by routes/_windows.py, which the
multicast groups' histories share.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from ...schema.frames import DEFAULT_STEP, DeviceFrames, FramesAggregation
from ..auth import AppServices, ClientBodies, DeviceReader
from ..store import frames as store
from ..store import station_monitoring as station_monitoring_store
from ._common import visible_device_uid
from ._windows import aggregation_window, raw_window

router = APIRouter(
    prefix="/subscriptions/mine/devices", tags=["traffic"], dependencies=[ClientBodies]
)

MAX_FRAMES = 1000


@router.get(
    "/{deviceUid}/frames/aggregated",
    response_model=FramesAggregation,
    response_model_exclude_none=True,
)
def frames_aggregated(
    deviceUid: str,
    account: DeviceReader,
    svc: AppServices,
    begin: datetime | None = None,
    duration: str | None = None,
    step: str = DEFAULT_STEP,
    type: Annotated[list[int] | None, Query()] = None,
    timezone: str | None = None,
    lrrID: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_device_uid(conn, account, deviceUid)
    window = aggregation_window(conn, begin, duration, step)  # default: 24 steps
    buckets = store.aggregated(conn, uid, window.start, window.end, window.step)
    wanted = set(type or (0, 1, 4))
    for b in buckets:
        if 0 not in wanted:
            b["up"] = {}
        if 1 not in wanted:
            b["dw"] = {}
    return {"briefs": buckets, "now": window.now}


@router.get(
    "/{deviceUid}/frames",
    response_model=DeviceFrames,
    response_model_exclude_none=True,
    deprecated=True,
    summary="Frames of a device (deprecated: use /frames/aggregated)",
)
def device_frames(
    deviceUid: str,
    account: DeviceReader,
    svc: AppServices,
    response: Response,
    begin: datetime | None = None,
    duration: str | None = None,
    type: Annotated[list[int] | None, Query()] = None,
    lrrID: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_device_uid(conn, account, deviceUid)
    window = raw_window(conn, begin, duration, 24 * store.HOUR_MS)
    response.headers["Deprecation"] = "true"
    items = store.frames(conn, uid, window.start, window.end, set(type or (0, 1)), MAX_FRAMES)
    lrrs = [{"lrrID": lrr["ID"]} for lrr in station_monitoring_store.device_lrrs(conn, uid)]
    return {"briefs": items, "lrrs": lrrs, "now": window.now}
