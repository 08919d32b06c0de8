"""Traffic history: `/devices/{deviceUid}/frames/aggregated` and the deprecated `/frames`.

`aggregation_window` turns `begin`, `duration` and `step` into the buckets' window; the
multicast groups' `/frames/aggregated` (routes/multicast.py) use it too.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from ...schema.durations import parse_duration
from ...schema.frames import DEFAULT_STEP, DeviceFrames, FramesAggregation, normalise_step
from ..auth import AppServices, ClientBodies, DeviceReader
from ..errors import bad_request
from ..store import frames as store
from ..store.devices import now_ms
from .devices import _visible_uid

router = APIRouter(
    prefix="/subscriptions/mine/devices", tags=["traffic"], dependencies=[ClientBodies]
)

MAX_BUCKETS = 10_000
MAX_FRAMES = 1000


def _ms(span: timedelta) -> int:
    return int(span.total_seconds() * 1000)


def _span(duration: str | None, default: int) -> int:
    try:
        span = _ms(parse_duration(duration)) if duration else default
    except ValueError:
        raise bad_request("duration: expected an ISO 8601 duration such as P1D") from None
    if span <= 0:
        raise bad_request("duration: must be positive")
    return span


def _begin_ms(begin: datetime | None) -> int | None:
    return None if begin is None else int(begin.timestamp() * 1000)


@dataclass(frozen=True)
class Window:
    """Buckets of `step` ms from `start` (included) to `end` (excluded); `now` is the
    network's clock."""

    start: int
    end: int
    step: int
    now: int


def aggregation_window(
    conn: sqlite3.Connection,
    begin: datetime | None,
    duration: str | None,
    step: str,
    *,
    default_span_ms: int | None = None,
) -> Window:
    """The window of an aggregated history. Without `begin`: the `duration` up to now, on
    step boundaries (its last bucket holds now). Without `duration`: `default_span_ms`, or
    24 steps. 400 on a bad step or duration, or too many buckets."""
    try:
        step_ms = _ms(parse_duration(normalise_step(step)))
    except ValueError as exc:
        raise bad_request(f"step: {exc}") from None
    now = store.clock(conn, now_ms())
    span = _span(duration, default_span_ms if default_span_ms is not None else 24 * step_ms)
    start = _begin_ms(begin)
    if start is None:
        end = now - now % step_ms + step_ms
        start = end - -(-span // step_ms) * step_ms
    else:
        end = start + span
    if (end - start) // step_ms > MAX_BUCKETS:
        raise bad_request(f"step: at most {MAX_BUCKETS} buckets per request")
    return Window(start, end, step_ms, now)


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
    uid = _visible_uid(conn, account, deviceUid)
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
    uid = _visible_uid(conn, account, deviceUid)
    now = store.clock(conn, now_ms())
    span = _span(duration, 24 * store.HOUR_MS)
    start = _begin_ms(begin)
    start = now - span if start is None else start
    end = start + span
    response.headers["Deprecation"] = "true"
    items = store.frames(conn, uid, start, end, set(type or (0, 1)), MAX_FRAMES)
    return {"briefs": items, "lrrs": [], "now": now}
