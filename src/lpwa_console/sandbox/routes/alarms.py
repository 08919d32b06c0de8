"""Alarms of devices (`/devices/alarms`, `/devices/{deviceUid}/alarms`) and of multicast
groups (`/multicastGroups/alarms`, `/multicastGroups/{multicastGroupUid}/alarms`).

Lists sort by `sort=<criterion>,<asc|desc>` (default creationTimestamp,desc); `pageAfter` is a
cursor (base64 of an alarmUid, so it ends with '=') accepted only with sort=alarmUid.
`cursors.last` comes only when sorted by alarmUid and a next page exists, `count` only with
the first page. Acknowledging records the account's name as `ackedInfo`.
"""

from __future__ import annotations

import base64
import binascii
import sqlite3
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response

from ...schema.alarms import (
    ALARM_SORT_CRITERIA,
    CURSOR_SORT,
    AlarmPage,
    AlarmsAck,
    DeviceAlarmPage,
    MulticastAlarmPage,
    StateFiltering,
)
from ..accounts import Account
from ..auth import AppServices, DeviceReader, DeviceWriter
from ..errors import BAD_PAGING, bad_request
from ..store import alarms as store
from ..store import multicast as group_store
from ..store.devices import now_ms
from ..store.filters import Where
from .devices import _visible_uid

router = APIRouter(prefix="/subscriptions/mine", tags=["alarms"])

MIN_PAGE, DEFAULT_PAGE, MAX_PAGE = 10, 100, 1000
DEFAULT_SORT = ("creationTimestamp", True)


def _ms(value: datetime | None) -> int | None:
    return None if value is None else int(value.timestamp() * 1000)


def alarm_query(
    state: Annotated[int | None, Query(ge=1, le=6)] = None,
    stateFiltering: StateFiltering | None = None,
    acked: bool | None = None,
    ID: Annotated[int | None, Query(ge=0)] = None,
    alarmUid: str | None = None,
    devEUI: Annotated[list[str] | None, Query()] = None,
    domain: Annotated[list[str] | None, Query()] = None,
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
) -> store.AlarmQuery:
    return store.AlarmQuery(
        state=state,
        equal=stateFiltering == "EQUAL",
        acked=acked,
        alarm_id=ID,
        alarm_uid=alarmUid,
        eui=devEUI or (),
        domain=domain or (),
        created_from=_ms(from_),
        created_to=_ms(to),
    )


def scoped_query(
    state: Annotated[int | None, Query(ge=1, le=6)] = None,
    acked: bool | None = None,
    ID: Annotated[int | None, Query(ge=0)] = None,
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
) -> store.AlarmQuery:
    """The filters of one device's (or group's) alarms."""
    return store.AlarmQuery(
        state=state, acked=acked, alarm_id=ID, created_from=_ms(from_), created_to=_ms(to)
    )


AlarmQuery = Annotated[store.AlarmQuery, Depends(alarm_query)]
ScopedQuery = Annotated[store.AlarmQuery, Depends(scoped_query)]


def _sort(text: str | None) -> tuple[str, bool]:
    if not text:
        return DEFAULT_SORT
    criterion, _, order = text.partition(",")
    order = order.strip().lower() or "asc"
    if criterion not in ALARM_SORT_CRITERIA or order not in ("asc", "desc"):
        raise bad_request(
            f"sort: expected <criterion>,<asc|desc> with a criterion among "
            f"{', '.join(ALARM_SORT_CRITERIA)}",
            BAD_PAGING,
        )
    return criterion, order == "desc"


def encode_cursor(row: int) -> str:
    return base64.b64encode(store.alarm_uid(row).encode()).decode()


def decode_cursor(cursor: str) -> int:
    try:
        found = store.row_id(base64.b64decode(cursor.replace(" ", "+"), validate=True).decode())
    except (binascii.Error, UnicodeDecodeError):
        found = None
    if found is None:
        raise bad_request("pageAfter: not a cursor this server issued", BAD_PAGING)
    return found


def _list(
    conn: sqlite3.Connection,
    kind: str,
    account: Account,
    q: store.AlarmQuery,
    *,
    page_index: int,
    page_size: int,
    sort: str | None,
    page_after: str | None,
    owner_key: str,
) -> dict[str, Any]:
    assert account.subscription_id is not None
    size = min(max(page_size, MIN_PAGE), MAX_PAGE)
    criterion, descending = _sort(sort)
    after = None
    if page_after:
        if criterion != CURSOR_SORT:
            raise bad_request("pageAfter: cursor pages need sort=alarmUid", BAD_PAGING)
        after = decode_cursor(page_after)
    w = store.where(account.subscription_id, kind, q, account.restrictions)
    rows, more = store.page(
        conn,
        w,
        sort=criterion,
        descending=descending,
        offset=0 if after is not None else (page_index - 1) * size,
        limit=size,
        after_id=after,
    )
    column = "device_uid" if kind == "D" else "group_uid"
    owners = store.owners(conn, kind, (r[column] for r in rows))
    items = []
    for row in rows:
        item = store.brief(row)
        item[owner_key] = owners.get(row[column], {"EUI": "", "domains": []})
        items.append(item)
    out: dict[str, Any] = {"briefs": items, "more": more}
    if after is None and page_index == 1:
        out["count"] = len(items) if not more else store.count(conn, w)
    if sort and criterion == CURSOR_SORT and more and rows:
        out["cursors"] = {"last": encode_cursor(rows[-1]["id"])}
    return out


def _listed(account: Account, kind: str, uids: list[str]) -> Where:
    """The caller's visible alarms among `uids`."""
    assert account.subscription_id is not None
    ids = [i for i in (store.row_id(u) for u in uids) if i is not None] or [-1]
    w = store.where(account.subscription_id, kind, store.AlarmQuery(), account.restrictions)
    w.add(f"a.id IN ({', '.join('?' * len(ids))})", *ids)
    return w


# --- devices --------------------------------------------------------------------------------


@router.get("/devices/alarms", response_model=DeviceAlarmPage, response_model_exclude_none=True)
def device_alarms(
    account: DeviceReader,
    svc: AppServices,
    q: AlarmQuery,
    pageIndex: Annotated[int, Query(ge=1)] = 1,
    pageSize: int = DEFAULT_PAGE,
    sort: str | None = None,
    pageAfter: str | None = None,
) -> dict[str, Any]:
    return _list(
        svc.db.conn(), "D", account, q, page_index=pageIndex, page_size=pageSize,
        sort=sort, page_after=pageAfter, owner_key="device",
    )  # fmt: skip


@router.get(
    "/devices/alarms/histories",
    response_model=DeviceAlarmPage,
    response_model_exclude_none=True,
    deprecated=True,
    summary="Alarm histories (deprecated: use GET /devices/alarms)",
)
def device_alarm_histories(
    account: DeviceReader,
    svc: AppServices,
    q: AlarmQuery,
    response: Response,
    pageIndex: Annotated[int, Query(ge=1)] = 1,
    pageSize: int = DEFAULT_PAGE,
) -> dict[str, Any]:
    response.headers["Deprecation"] = "true"
    return _list(
        svc.db.conn(), "D", account, q, page_index=pageIndex, page_size=pageSize,
        sort=None, page_after=None, owner_key="device",
    )  # fmt: skip


@router.post("/devices/alarms/ack")
def ack_device_alarms(body: AlarmsAck, account: DeviceWriter, svc: AppServices) -> dict[str, Any]:
    with svc.db.write() as conn:
        return {
            "count": _ack_counted(conn, _listed(account, "D", body.alarmUids), "D", account.name)
        }


def _scoped(
    conn: sqlite3.Connection, kind: str, account: Account, owner: int, q: store.AlarmQuery
) -> Where:
    assert account.subscription_id is not None
    return store.where(account.subscription_id, kind, q, account.restrictions, owner=owner)


@router.get(
    "/devices/{deviceUid}/alarms", response_model=AlarmPage, response_model_exclude_none=True
)
def one_device_alarms(
    deviceUid: str,
    account: DeviceReader,
    svc: AppServices,
    q: ScopedQuery,
    pageIndex: Annotated[int, Query(ge=1)] = 1,
    pageSize: int = DEFAULT_PAGE,
) -> dict[str, Any]:
    conn = svc.db.conn()
    w = _scoped(conn, "D", account, _visible_uid(conn, account, deviceUid), q)
    return _owner_page(conn, w, pageIndex, pageSize)


def _owner_page(conn: sqlite3.Connection, w: Where, index: int, size: int) -> dict[str, Any]:
    size = min(max(size, MIN_PAGE), MAX_PAGE)
    rows, more = store.page(
        conn, w, sort="creationTimestamp", descending=True, offset=(index - 1) * size, limit=size
    )
    out: dict[str, Any] = {"briefs": [store.brief(r) for r in rows], "more": more}
    if index == 1:
        out["count"] = len(rows) if not more else store.count(conn, w)
    return out


@router.post("/devices/{deviceUid}/alarms/ack")
def ack_one_device_alarms(
    deviceUid: str, account: DeviceWriter, svc: AppServices, q: ScopedQuery
) -> dict[str, Any]:
    with svc.db.write() as conn:
        w = _scoped(conn, "D", account, _visible_uid(conn, account, deviceUid), q)
        return {"count": _ack_counted(conn, w, "D", account.name)}


@router.post("/devices/{deviceUid}/alarms/{alarmUid}/ack")
def ack_one_device_alarm(
    deviceUid: str, alarmUid: str, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        w = _scoped(conn, "D", account, _visible_uid(conn, account, deviceUid), store.AlarmQuery())
        w.add("a.id = ?", store.row_id(alarmUid) or -1)
        return {"count": _ack_counted(conn, w, "D", account.name)}


def _ack_counted(conn: sqlite3.Connection, w: Where, kind: str, who: str) -> int:
    n = store.count(conn, _unacked(w))
    owners = store.ack(conn, w, who, now_ms())
    store.refresh_counters(conn, kind, owners)
    return n


def _unacked(w: Where) -> Where:
    copy = Where(list(w.clauses), list(w.params))
    copy.add("a.acked = 0")
    return copy


# --- multicast groups -----------------------------------------------------------------------


@router.get(
    "/multicastGroups/alarms", response_model=MulticastAlarmPage, response_model_exclude_none=True
)
def group_alarms(
    account: DeviceReader,
    svc: AppServices,
    q: AlarmQuery,
    pageIndex: Annotated[int, Query(ge=1)] = 1,
    pageSize: int = DEFAULT_PAGE,
    sort: str | None = None,
    pageAfter: str | None = None,
) -> dict[str, Any]:
    return _list(
        svc.db.conn(), "M", account, q, page_index=pageIndex, page_size=pageSize,
        sort=sort, page_after=pageAfter, owner_key="multicastGroup",
    )  # fmt: skip


@router.post("/multicastGroups/alarms/ack")
def ack_group_alarms(body: AlarmsAck, account: DeviceWriter, svc: AppServices) -> dict[str, Any]:
    with svc.db.write() as conn:
        return {
            "count": _ack_counted(conn, _listed(account, "M", body.alarmUids), "M", account.name)
        }


@router.get(
    "/multicastGroups/{multicastGroupUid}/alarms",
    response_model=AlarmPage,
    response_model_exclude_none=True,
)
def one_group_alarms(
    multicastGroupUid: str,
    account: DeviceReader,
    svc: AppServices,
    q: ScopedQuery,
    pageIndex: Annotated[int, Query(ge=1)] = 1,
    pageSize: int = DEFAULT_PAGE,
) -> dict[str, Any]:
    conn = svc.db.conn()
    group = group_store.visible_uid(conn, account, multicastGroupUid)
    return _owner_page(conn, _scoped(conn, "M", account, group, q), pageIndex, pageSize)


@router.post("/multicastGroups/{multicastGroupUid}/alarms/ack")
def ack_one_group_alarms(
    multicastGroupUid: str, account: DeviceWriter, svc: AppServices, q: ScopedQuery
) -> dict[str, Any]:
    with svc.db.write() as conn:
        group = group_store.visible_uid(conn, account, multicastGroupUid)
        return {
            "count": _ack_counted(conn, _scoped(conn, "M", account, group, q), "M", account.name)
        }


@router.post("/multicastGroups/{multicastGroupUid}/alarms/{alarmUid}/ack")
def ack_one_group_alarm(
    multicastGroupUid: str, alarmUid: str, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        group = group_store.visible_uid(conn, account, multicastGroupUid)
        w = _scoped(conn, "M", account, group, store.AlarmQuery())
        w.add("a.id = ?", store.row_id(alarmUid) or -1)
        return {"count": _ack_counted(conn, w, "M", account.name)}
