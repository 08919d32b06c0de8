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
)
from ...schema.common import ListEnvelope
from ..accounts import Account
from ..auth import AppServices, ClientBodies, DeviceReader, DeviceWriter, Services
from ..errors import BAD_PAGING, bad_request, not_found
from ..store import alarms as store
from ..store.clock import now_ms
from ..store.filters import Where
from ._alarm_queries import StateFilters, TimeSpan, epoch_ms, scoped_query_for
from ._common import (
    PageParams,
    Paging,
    decode_cursor,
    encode_cursor,
    list_answer,
    parse_sort,
    visible_device_uid,
    visible_group_uid,
)
from ._router import RecordedRouter

router = RecordedRouter(prefix="/subscriptions/mine", tags=["alarms"], dependencies=[ClientBodies])

DEFAULT_SORT = ("updateTimestamp", True)


async def device_owners(
    devEUI: Annotated[list[str] | None, Query()] = None,
    domain: Annotated[list[str] | None, Query()] = None,
) -> dict[str, Any]:
    return {"eui": devEUI or (), "domain": domain or ()}


async def alarm_query(
    states: StateFilters,
    owners: Annotated[dict[str, Any], Depends(device_owners)],
    span: TimeSpan,
) -> store.AlarmQuery:
    return store.AlarmQuery(**states, **owners, **span)


scoped_query = scoped_query_for(store.AlarmQuery)


async def history_query(
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
        eui=devEUI or (), created_from=epoch_ms(from_), updated_to=epoch_ms(to),
    )  # fmt: skip


# The query dependencies are `async`: pure parsing, on the event loop, where a plain `def`
# would cost each request one more hop through the thread pool.
AlarmQuery = Annotated[store.AlarmQuery, Depends(alarm_query)]
ScopedQuery = Annotated[store.AlarmQuery, Depends(scoped_query)]
HistoryQuery = Annotated[store.AlarmQuery, Depends(history_query)]


def alarm_cursor(row: int) -> str:
    return encode_cursor(store.alarm_uid(row))


def cursor_row(cursor: str) -> int:
    """The alarm row a `pageAfter` cursor names; 400 when it is not one of ours."""
    found = store.row_id(decode_cursor(cursor))
    if found is None:
        raise bad_request("pageAfter: not a cursor this server issued", BAD_PAGING)
    return found


def _list(
    conn: sqlite3.Connection,
    kind: str,
    account: Account,
    q: store.AlarmQuery,
    *,
    paging: Paging,
    sort: str | None,
    page_after: str | None,
    owner_key: str,
) -> dict[str, Any]:
    assert account.subscription_id is not None
    criterion, descending = parse_sort(sort, ALARM_SORT_CRITERIA, DEFAULT_SORT)
    after = None
    if page_after:
        if criterion != CURSOR_SORT:
            raise bad_request("pageAfter: cursor pages need sort=alarmUid", BAD_PAGING)
        after = cursor_row(page_after)
    w = store.where(account.subscription_id, kind, q, account.restrictions)
    rows, more = store.page(
        conn,
        w,
        sort=criterion,
        descending=descending,
        offset=0 if after is not None else paging.offset,
        limit=paging.size,
        after_id=after,
    )
    column = "device_uid" if kind == "D" else "group_uid"
    owners = store.owners(conn, kind, (r[column] for r in rows))
    items = []
    for row in rows:
        item = store.brief(row)
        item[owner_key] = owners.get(row[column], {"EUI": "", "domains": []})
        items.append(item)
    out = list_answer(
        items, more, first=after is None and paging.first, count=lambda: store.count(conn, w)
    )
    if sort and criterion == CURSOR_SORT and more and rows:
        out["cursors"] = {"last": alarm_cursor(rows[-1]["id"])}
    return out


def _listed(account: Account, kind: str, uids: list[str]) -> Where:
    """The caller's visible alarms among `uids`."""
    assert account.subscription_id is not None
    w = store.where(account.subscription_id, kind, store.AlarmQuery(), account.restrictions)
    return store.among(w, uids)


def _scoped(account: Account, kind: str, owner: int, q: store.AlarmQuery) -> Where:
    """The caller's alarms of one owner."""
    assert account.subscription_id is not None
    return store.where(account.subscription_id, kind, q, account.restrictions, owner=owner)


def _owner_page(conn: sqlite3.Connection, w: Where, paging: Paging) -> dict[str, Any]:
    rows, more = store.page(
        conn, w, sort="updateTimestamp", descending=True, offset=paging.offset, limit=paging.size
    )
    items = [store.brief(r) for r in rows]
    return list_answer(items, more, first=paging.first, count=lambda: store.count(conn, w))


def _acked(
    svc: Services, account: Account, kind: str, where: Callable[[sqlite3.Connection], Where]
) -> dict[str, Any]:
    """Acknowledge the alarms `where(conn)` selects, in one write; `count`: those that were
    not acknowledged yet."""
    with svc.db.write() as conn:
        w = where(conn)
        n = store.count(conn, store.unacked(w))
        owners = store.ack(conn, w, account.name, now_ms())
        store.refresh_counters(conn, kind, owners)
        return {"count": n}


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


DEVICES = Owners(
    "D", "/devices", "deviceUid", visible_device_uid, "device", DeviceAlarmPage, "device"
)
GROUPS = Owners(
    "M", "/multicastGroups", "multicastGroupUid", visible_group_uid, "multicastGroup",
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
        paging: PageParams,
        sort: str | None = None,
        pageAfter: str | None = None,
    ) -> dict[str, Any]:
        return _list(
            svc.db.conn(), kind, account, q, paging=paging, sort=sort, page_after=pageAfter,
            owner_key=owners.owner_key,
        )  # fmt: skip

    def ack_collection_alarms(
        body: AlarmsAck, account: DeviceWriter, svc: AppServices
    ) -> dict[str, Any]:
        return _acked(svc, account, kind, lambda _: _listed(account, kind, body.alarmUids))

    # The owner's path parameter keeps its name (`deviceUid`...) through an alias: a default
    # value, since `from __future__ import annotations` leaves annotations unevaluated.
    def one_owner_alarms(
        *,
        owner: str = Path(alias=owners.uid_param),
        account: DeviceReader,
        svc: AppServices,
        q: ScopedQuery,
        paging: PageParams,
    ) -> dict[str, Any]:
        conn = svc.db.conn()
        w = _scoped(account, kind, owners.visible_uid(conn, account, owner), q)
        return _owner_page(conn, w, paging)

    def ack_one_owner_alarms(
        *,
        owner: str = Path(alias=owners.uid_param),
        account: DeviceWriter,
        svc: AppServices,
        q: ScopedQuery,
    ) -> dict[str, Any]:
        return _acked(
            svc, account, kind,
            lambda conn: _scoped(account, kind, owners.visible_uid(conn, account, owner), q),
        )  # fmt: skip

    def ack_one_owner_alarm(
        *,
        owner: str = Path(alias=owners.uid_param),
        alarmUid: str,
        account: DeviceWriter,
        svc: AppServices,
    ) -> dict[str, Any]:
        def the_alarm(conn: sqlite3.Connection) -> Where:
            q = store.AlarmQuery(alarm_uid=alarmUid)
            w = _scoped(account, kind, owners.visible_uid(conn, account, owner), q)
            if store.count(conn, w) == 0:  # not this owner's (or no such alarm)
                raise not_found(f"alarm {alarmUid} not found")
            return w

        return _acked(svc, account, kind, the_alarm)

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
    paging: PageParams,
) -> dict[str, Any]:
    response.headers["Deprecation"] = "true"
    return _list(
        svc.db.conn(), DEVICES.kind, account, q, paging=paging, sort=None, page_after=None,
        owner_key=DEVICES.owner_key,
    )  # fmt: skip
