"""Alarms of base stations: `/partners/{partnerUid}/bss/alarms` and `/bss/{bsUid}/alarms`
(Document 2 §4.3, §6), as the device alarms have them (routes/alarms.py):

- `/bss/alarms` sorts by `state`, `acked` or `alarmUid` (and update time, newest first, by
  default); `pageAfter` only when sorted by alarmUid, `cursors.last` then, `count` on the
  first page; `state` follows `stateFiltering`; `lrrID` is a prefix (repeatable).
- Histories are the cleared alarms, latest clearance first, `state` (3..6) the highest
  severity they reached. `GET /bss/alarms/histories` is deprecated.
- One station's `state`: 1 the cleared ones only, 2..6 that severity or above.
Stations outside the caller's domains: their alarms are not seen, counted or acknowledged.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, Query, Response

from ...schema.alarms import ALARM_SORT_CRITERIA, CURSOR_SORT, AlarmsAck
from ...schema.station_alarms import StationAlarmPage, StationAlarmStateDistributions
from ..auth import AppServices, ClientBodies
from ..errors import BAD_PAGING, bad_request, not_found
from ..store import station_alarms as store
from ..store.clock import network_now
from ..store.sql import Where
from ._alarm_queries import StateFilters, TimeSpan, epoch_ms, scoped_query_for
from ._common import PageParams, Paging, decode_cursor, encode_cursor, list_answer, parse_sort
from ._partners import PartnerReader, PartnerScope, PartnerWriter, visible_station_uid
from ._router import RecordedRouter

router = RecordedRouter(
    prefix="/partners/{partnerUid}/bss", tags=["base station alarms"], dependencies=[ClientBodies]
)
DEFAULT_SORT = ("updateTimestamp", True)


async def station_owners(
    lrrID: Annotated[list[str] | None, Query()] = None,
    domain: Annotated[list[str] | None, Query()] = None,
) -> dict[str, Any]:
    return {"lrr_ids": lrrID or (), "domain": domain or ()}


async def alarm_query(
    states: StateFilters,
    owners: Annotated[dict[str, Any], Depends(station_owners)],
    span: TimeSpan,
) -> store.StationAlarmQuery:
    # Checked here, once every parameter is valid (a 422 comes before this 400).
    for value in owners["domain"]:
        group, sep, name = value.partition(":")
        if not (group and sep and name):
            raise bad_request(f"domain: {value!r} is not group:name (e.g. Site:France/Caen)")
    return store.StationAlarmQuery(**states, **owners, **span)


async def history_query(
    state: Annotated[int | None, Query(ge=3, le=6)] = None,
    acked: bool | None = None,
    ID: Annotated[int | None, Query(ge=0)] = None,
    alarmUid: str | None = None,
    index: str | None = None,
    lrrID: Annotated[list[str] | None, Query()] = None,
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
) -> store.StationAlarmQuery:
    """`index` is accepted: station alarms have none, so it matches nothing but the empty."""
    return store.StationAlarmQuery(
        peak=state, cleared_only=True, acked=acked, alarm_id=ID if not index else -1,
        alarm_uid=alarmUid, lrr_ids=lrrID or (), created_from=epoch_ms(from_), updated_to=epoch_ms(to),
    )  # fmt: skip


scoped_query = scoped_query_for(store.StationAlarmQuery)


AlarmQuery = Annotated[store.StationAlarmQuery, Depends(alarm_query)]
HistoryQuery = Annotated[store.StationAlarmQuery, Depends(history_query)]
ScopedQuery = Annotated[store.StationAlarmQuery, Depends(scoped_query)]


def _items(
    conn: sqlite3.Connection, rows: list[sqlite3.Row], *, with_bs: bool, base: str
) -> list[Any]:
    """`base`: where the caller finds the stations (`PartnerScope.station_base`)."""
    stations = store.stations_of(conn, (r["bs_uid"] for r in rows)) if with_bs else {}
    items = []
    for row in rows:
        item = store.brief(row, base)
        if with_bs:
            item["bs"] = stations.get(row["bs_uid"], {"lrrID": "", "domains": []})
        items.append(item)
    return items


def _list(
    conn: sqlite3.Connection,
    w: Where,
    paging: Paging,
    sort: str | None,
    page_after: str | None,
    *,
    with_bs: bool,
    base: str,
) -> dict[str, Any]:
    criterion, descending = parse_sort(sort, ALARM_SORT_CRITERIA, DEFAULT_SORT)
    after = None
    if page_after:
        if criterion != CURSOR_SORT:
            raise bad_request("pageAfter: cursor pages need sort=alarmUid", BAD_PAGING)
        after = store.row_id(decode_cursor(page_after))
        if after is None:
            raise bad_request("pageAfter: not a cursor this server issued", BAD_PAGING)
    rows, more = store.page(
        conn, w, sort=criterion, descending=descending,
        offset=0 if after is not None else paging.offset, limit=paging.size, after_id=after,
    )  # fmt: skip
    out = list_answer(
        _items(conn, rows, with_bs=with_bs, base=base),
        more,
        first=after is None and paging.first,
        count=lambda: store.count(conn, w),
    )
    if criterion == CURSOR_SORT and more and rows:
        out["cursors"] = {"last": encode_cursor(store.alarm_uid(rows[-1]["id"]))}
    return out


def _histories(
    conn: sqlite3.Connection, w: Where, paging: Paging, *, with_bs: bool, base: str
) -> dict[str, Any]:
    rows, more = store.history_page(conn, w, offset=paging.offset, limit=paging.size)
    return list_answer(
        _items(conn, rows, with_bs=with_bs, base=base),
        more,
        first=paging.first,
        count=lambda: store.count(conn, w),
    )


def _now(conn: sqlite3.Connection) -> int:
    return network_now(conn)


# --- every station ---------------------------------------------------------------------------


@router.get("/alarms", response_model=StationAlarmPage, response_model_exclude_none=True)
def list_alarms(
    scope: PartnerReader,
    svc: AppServices,
    q: AlarmQuery,
    paging: PageParams,
    sort: str | None = None,
    pageAfter: str | None = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> dict[str, Any]:
    """`limit` caps the number of results (the page size, here)."""
    if limit is not None:
        paging = Paging(paging.index, min(paging.size, limit))
    w = store.where(scope.uid, q, scope.restrictions)
    return _list(svc.db.conn(), w, paging, sort, pageAfter, with_bs=True, base=scope.station_base)


@router.get(
    "/alarms/histories",
    response_model=StationAlarmPage,
    response_model_exclude_none=True,
    deprecated=True,
)
def alarm_histories(
    scope: PartnerReader, svc: AppServices, q: HistoryQuery, paging: PageParams
) -> dict[str, Any]:
    w = store.where(scope.uid, q, scope.restrictions)
    return _histories(svc.db.conn(), w, paging, with_bs=True, base=scope.station_base)


@router.post("/alarms/ack", status_code=204)
def ack_alarms(body: AlarmsAck, scope: PartnerWriter, svc: AppServices) -> Response:
    """Acknowledge these alarms; those the caller cannot see are left alone."""
    with svc.db.write() as conn:
        w = store.among(store.where(scope.uid, store.StationAlarmQuery(), scope.restrictions),
                        body.alarmUids)  # fmt: skip
        store.ack(conn, w, scope.who, _now(conn))
    return Response(status_code=204)


@router.get(
    "/alarms/stateDistributions",
    response_model=StationAlarmStateDistributions,
    response_model_exclude_none=True,
)
def state_distributions(
    scope: PartnerReader,
    svc: AppServices,
    state: Annotated[int | None, Query(ge=1, le=6)] = None,
    acked: bool | None = None,
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
) -> dict[str, Any]:
    q = store.StationAlarmQuery(
        state=state, acked=acked, created_from=epoch_ms(from_), updated_to=epoch_ms(to)
    )
    counts = store.state_counts(svc.db.conn(), store.where(scope.uid, q, scope.restrictions))
    briefs = [{"state": s, "count": n} for s, n in sorted(counts.items(), reverse=True)]
    return {"briefs": briefs, "totalCount": sum(counts.values())}


# --- one station -----------------------------------------------------------------------------


def _station_where(
    conn: sqlite3.Connection, scope: PartnerScope, bs_uid: str, q: store.StationAlarmQuery
) -> Where:
    uid = visible_station_uid(conn, scope, bs_uid)
    return store.where(scope.uid, q, scope.restrictions, station=uid)


@router.get("/{bsUid}/alarms", response_model=StationAlarmPage, response_model_exclude_none=True)
def station_alarms(
    bsUid: str, scope: PartnerReader, svc: AppServices, q: ScopedQuery, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    w = _station_where(conn, scope, bsUid, q)
    return _list(conn, w, paging, None, None, with_bs=False, base=scope.station_base)


@router.get(
    "/{bsUid}/alarms/histories",
    response_model=StationAlarmPage,
    response_model_exclude_none=True,
)
def station_alarm_histories(
    bsUid: str, scope: PartnerReader, svc: AppServices, q: HistoryQuery, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    w = _station_where(conn, scope, bsUid, q)
    return _histories(conn, w, paging, with_bs=False, base=scope.station_base)


@router.post("/{bsUid}/alarms/ack", status_code=201)
def ack_station_alarms(
    bsUid: str,
    scope: PartnerWriter,
    svc: AppServices,
    state: Annotated[int | None, Query(ge=1, le=6)] = None,
    ID: Annotated[int | None, Query(ge=0)] = None,
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
    kpiAlgo: str | None = None,
) -> Response:
    """Acknowledge the station's alarms the filters select (`kpiAlgo` is accepted and not
    modelled)."""
    q = store.StationAlarmQuery(
        state=state,
        equal=state == 1,
        alarm_id=ID,
        created_from=epoch_ms(from_),
        updated_to=epoch_ms(to),
    )
    with svc.db.write() as conn:
        store.ack(conn, _station_where(conn, scope, bsUid, q), scope.who, _now(conn))
    return Response(status_code=201)


@router.post("/{bsUid}/alarms/{alarmUid}/ack", status_code=201)
def ack_station_alarm(
    bsUid: str, alarmUid: str, scope: PartnerWriter, svc: AppServices
) -> Response:
    with svc.db.write() as conn:
        w = _station_where(conn, scope, bsUid, store.StationAlarmQuery())
        one = store.among(w, [alarmUid])
        if store.count(conn, one) == 0:
            raise not_found(f"alarm {alarmUid} not found on this base station")
        store.ack(conn, one, scope.who, _now(conn))
    return Response(status_code=201)
