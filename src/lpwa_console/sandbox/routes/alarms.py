"""Alarms of devices (`/devices/alarms`, `/devices/{deviceUid}/alarms`) and of multicast
groups (`/multicastGroups/alarms`, `/multicastGroups/{multicastGroupUid}/alarms`).

As the reference contract has them:

- Collections sort by `sort=<criterion>,<asc|desc>`, by update time newest first by default
  (`state` and `acked` break ties that way too); `pageAfter` is a cursor (base64 of an
  alarmUid, so it ends with '=') accepted only with sort=alarmUid. `cursors.last` comes only
  when sorted by alarmUid and a next page exists, `count` only with the first page.
- A collection's `state` filter follows `stateFiltering`: EQUAL_OR_UPPER (the default: `state=1`
  is every alarm) or EQUAL. One owner's `state` has no strategy: 1 is the CLEARED alarms only,
  2..6 that severity or above. `devEUI` is a prefix (repeatable: any of them).
- One owner's alarms come newest update first.
- The deprecated histories are the cleared alarms, filtered by the highest severity they
  reached (`state` 3..6), newest first.

Acknowledging records the account's name as `ackedInfo`.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Response

from ...schema.alarms import (
    ALARM_SORT_CRITERIA,
    CURSOR_SORT,
    AlarmPage,
    AlarmsAck,
    DeviceAlarmPage,
    MulticastAlarmPage,
    StateFiltering,
)
from ...schema.common import ListEnvelope
from ..accounts import Account
from ..auth import AppServices, ClientBodies, DeviceReader, DeviceWriter
from ..errors import BAD_PAGING, bad_request, not_found
from ..params import PageIndex
from ..store import alarms as store
from ..store import multicast as group_store
from ..store.devices import now_ms
from ..store.filters import Where
from .devices import _visible_uid

router = APIRouter(prefix="/subscriptions/mine", tags=["alarms"], dependencies=[ClientBodies])

MIN_PAGE, DEFAULT_PAGE, MAX_PAGE = 10, 100, 1000
DEFAULT_SORT = ("updateTimestamp", True)


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
        updated_to=_ms(to),
    )


def scoped_query(
    state: Annotated[int | None, Query(ge=1, le=6)] = None,
    acked: bool | None = None,
    ID: Annotated[int | None, Query(ge=0)] = None,
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
) -> store.AlarmQuery:
    """The filters of one device's (or group's) alarms: `state=1` is the CLEARED ones only,
    2..6 that severity or above."""
    return store.AlarmQuery(
        state=state, equal=state == 1, acked=acked, alarm_id=ID, created_from=_ms(from_),
        updated_to=_ms(to),
    )  # fmt: skip


def history_query(
    state: Annotated[int | None, Query(ge=3, le=6)] = None,
    acked: bool | None = None,
    ID: Annotated[int | None, Query(ge=0)] = None,
    alarmUid: str | None = None,
    devEUI: Annotated[list[str] | None, Query()] = None,
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
) -> store.AlarmQuery:
    """The filters of the alarm histories: cleared alarms whose highest severity was at
    least `state`."""
    return store.AlarmQuery(
        peak=state, cleared_only=True, acked=acked, alarm_id=ID, alarm_uid=alarmUid,
        eui=devEUI or (), created_from=_ms(from_), updated_to=_ms(to),
    )  # fmt: skip


AlarmQuery = Annotated[store.AlarmQuery, Depends(alarm_query)]
ScopedQuery = Annotated[store.AlarmQuery, Depends(scoped_query)]
HistoryQuery = Annotated[store.AlarmQuery, Depends(history_query)]


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
    except ValueError:  # binascii.Error, UnicodeDecodeError, non-ASCII text
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
    # One JSON parameter, not one per id: SQLite caps the number of variables.
    w.add("a.id IN (SELECT value FROM json_each(?))", json.dumps(ids))
    return w


def _scoped(account: Account, kind: str, owner: int, q: store.AlarmQuery) -> Where:
    """The caller's alarms of one owner."""
    assert account.subscription_id is not None
    return store.where(account.subscription_id, kind, q, account.restrictions, owner=owner)


def _owner_page(conn: sqlite3.Connection, w: Where, index: int, size: int) -> dict[str, Any]:
    size = min(max(size, MIN_PAGE), MAX_PAGE)
    rows, more = store.page(
        conn, w, sort="updateTimestamp", descending=True, offset=(index - 1) * size, limit=size
    )
    out: dict[str, Any] = {"briefs": [store.brief(r) for r in rows], "more": more}
    if index == 1:
        out["count"] = len(rows) if not more else store.count(conn, w)
    return out


def _ack_counted(conn: sqlite3.Connection, w: Where, kind: str, who: str) -> int:
    n = store.count(conn, _unacked(w))
    owners = store.ack(conn, w, who, now_ms())
    store.refresh_counters(conn, kind, owners)
    return n


def _unacked(w: Where) -> Where:
    copy = Where(list(w.clauses), list(w.params))
    copy.add("a.acked = 0")
    return copy


# --- the routes of one kind of owner --------------------------------------------------------


@dataclass(frozen=True)
class Owners:
    """A kind of alarm owner (devices, multicast groups) as its alarm routes see it."""

    kind: str  # the alarms' `kind` column: "D" or "M"
    path: str  # the owners' collection below /subscriptions/mine
    uid_param: str  # the path parameter naming one owner (UID or e + EUI)
    visible_uid: Callable[[sqlite3.Connection, Account, str], int]  # its UID, or 404
    owner_key: str  # the field of a collection item that carries its owner
    page_model: type[ListEnvelope[Any]]  # the collection's response model
    noun: str  # in the route names: device_alarms, ack_one_device_alarm...


DEVICES = Owners("D", "/devices", "deviceUid", _visible_uid, "device", DeviceAlarmPage, "device")
GROUPS = Owners(
    "M", "/multicastGroups", "multicastGroupUid", group_store.visible_uid, "multicastGroup",
    MulticastAlarmPage, "group",
)  # fmt: skip


def add_owner_routes(router: APIRouter, owners: Owners) -> None:
    """The alarm routes of one kind of owner, on `router`: list and acknowledge the
    collection's alarms ({path}/alarms), one owner's ({path}/{uid}/alarms) and one alarm
    ({path}/{uid}/alarms/{alarmUid}/ack). Route names (operation IDs) follow `owners.noun`."""
    kind, noun = owners.kind, owners.noun
    one = f"{owners.path}/{{{owners.uid_param}}}/alarms"

    def collection_alarms(
        account: DeviceReader,
        svc: AppServices,
        q: AlarmQuery,
        pageIndex: PageIndex = 1,
        pageSize: int = DEFAULT_PAGE,
        sort: str | None = None,
        pageAfter: str | None = None,
    ) -> dict[str, Any]:
        return _list(
            svc.db.conn(), kind, account, q, page_index=pageIndex, page_size=pageSize,
            sort=sort, page_after=pageAfter, owner_key=owners.owner_key,
        )  # fmt: skip

    def ack_collection_alarms(
        body: AlarmsAck, account: DeviceWriter, svc: AppServices
    ) -> dict[str, Any]:
        with svc.db.write() as conn:
            w = _listed(account, kind, body.alarmUids)
            return {"count": _ack_counted(conn, w, kind, account.name)}

    # The owner's path parameter keeps its name (`deviceUid`...) through an alias: a default
    # value, since `from __future__ import annotations` leaves annotations unevaluated.
    def one_owner_alarms(
        *,
        owner: str = Path(alias=owners.uid_param),
        account: DeviceReader,
        svc: AppServices,
        q: ScopedQuery,
        pageIndex: PageIndex = 1,
        pageSize: int = DEFAULT_PAGE,
    ) -> dict[str, Any]:
        conn = svc.db.conn()
        w = _scoped(account, kind, owners.visible_uid(conn, account, owner), q)
        return _owner_page(conn, w, pageIndex, pageSize)

    def ack_one_owner_alarms(
        *,
        owner: str = Path(alias=owners.uid_param),
        account: DeviceWriter,
        svc: AppServices,
        q: ScopedQuery,
    ) -> dict[str, Any]:
        with svc.db.write() as conn:
            w = _scoped(account, kind, owners.visible_uid(conn, account, owner), q)
            return {"count": _ack_counted(conn, w, kind, account.name)}

    def ack_one_owner_alarm(
        *,
        owner: str = Path(alias=owners.uid_param),
        alarmUid: str,
        account: DeviceWriter,
        svc: AppServices,
    ) -> dict[str, Any]:
        q = store.AlarmQuery(alarm_uid=alarmUid)
        with svc.db.write() as conn:
            w = _scoped(account, kind, owners.visible_uid(conn, account, owner), q)
            if store.count(conn, w) == 0:  # not this owner's (or no such alarm)
                raise not_found(f"alarm {alarmUid} not found")
            return {"count": _ack_counted(conn, w, kind, account.name)}

    router.add_api_route(
        f"{owners.path}/alarms", collection_alarms, methods=["GET"], name=f"{noun}_alarms",
        response_model=owners.page_model, response_model_exclude_none=True,
    )  # fmt: skip
    router.add_api_route(
        f"{owners.path}/alarms/ack", ack_collection_alarms, methods=["POST"],
        name=f"ack_{noun}_alarms",
    )  # fmt: skip
    router.add_api_route(
        one, one_owner_alarms, methods=["GET"], name=f"one_{noun}_alarms",
        response_model=AlarmPage, response_model_exclude_none=True,
    )  # fmt: skip
    router.add_api_route(
        f"{one}/ack", ack_one_owner_alarms, methods=["POST"], name=f"ack_one_{noun}_alarms"
    )
    router.add_api_route(
        f"{one}/{{alarmUid}}/ack", ack_one_owner_alarm, methods=["POST"],
        name=f"ack_one_{noun}_alarm",
    )  # fmt: skip


add_owner_routes(router, DEVICES)
add_owner_routes(router, GROUPS)


# --- devices only ---------------------------------------------------------------------------


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
    q: HistoryQuery,
    response: Response,
    pageIndex: PageIndex = 1,
    pageSize: int = DEFAULT_PAGE,
) -> dict[str, Any]:
    response.headers["Deprecation"] = "true"
    return _list(
        svc.db.conn(), DEVICES.kind, account, q, page_index=pageIndex, page_size=pageSize,
        sort=None, page_after=None, owner_key=DEVICES.owner_key,
    )  # fmt: skip
