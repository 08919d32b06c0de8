"""`/subscriptions/mine/multicastGroups` (Document 1 §2.4, §4.2): list, create, get, update,
delete, base station tag suggestions, the downlink history (`/frames/aggregated` of all groups
or one, and the deprecated raw `/frames` they replace). Alarms: routes/alarms.py.

The downlink histories cover the last P7D unless `duration` says otherwise (the reference's
default); the all-groups ones take `appServerID` (exact: the groups directly associated with
that server). Aggregated buckets come oldest first, as a device's do.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, Query, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from ...schema.frames import DEFAULT_STEP, MulticastFrames, MulticastFramesAggregation
from ...schema.multicast import (
    MULTICAST_SORT_CRITERIA,
    BsTagSuggestions,
    MulticastGroup,
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupPage,
    MulticastGroupUpdate,
)
from ..accounts import Account
from ..auth import AppServices, ClientBodies, DeviceReader, DeviceWriter
from ..errors import DUPLICATE, ApiError, refuse_changed
from ..store import multicast as store
from ..store import subscription as subscription_store
from ..store.clock import now_ms
from ._common import (
    PageParams,
    app_server_ids,
    check_domains,
    check_kept_inside,
    list_answer,
    parse_sort,
    visible_group_uid,
)
from ._router import RecordedRouter
from ._windows import aggregation_window, raw_window

router = RecordedRouter(
    prefix="/subscriptions/mine", tags=["multicast groups"], dependencies=[ClientBodies]
)
GROUPS = "/multicastGroups"
DEFAULT_SORT = ("creationDate", False)
HOUR_MS = 3_600_000
HISTORY_SPAN_MS = 7 * 24 * HOUR_MS  # P7D
MAX_FRAMES = 1000


def group_filter(
    query: str | None = None,
    name: str | None = None,
    devEUI: str | None = None,
    devAddr: str | None = None,
    networkSubscriptionID: str | None = None,
    alarmLevel: Annotated[int | None, Query(ge=1, le=6)] = None,
    appServerID: Annotated[list[str] | None, Query()] = None,
    bsTag: Annotated[list[str] | None, Query()] = None,
    domain: Annotated[list[str] | None, Query()] = None,
) -> MulticastGroupFilter:
    try:
        return MulticastGroupFilter(**{k: v for k, v in locals().items() if v is not None})
    except ValidationError as exc:
        errors = [dict(e) | {"loc": ("query", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors) from None


GroupFilter = Annotated[MulticastGroupFilter, Depends(group_filter)]


def _group(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    return store.briefs(conn, [uid], full=True)[0] | {"now": now_ms()}


def _suggestions(account: Account, svc: Any, query: str, *, groups_only: bool) -> dict[str, Any]:
    assert account.subscription_id is not None
    conn = svc.db.conn()
    if account.restricted and not subscription_store.show_tag_suggestions(
        conn, account.subscription_id
    ):
        return {"briefs": [], "query": query}
    items = store.bs_tag_suggestions(conn, account.subscription_id, query, groups_only=groups_only)
    return {"briefs": items, "query": query}


@router.get(GROUPS, response_model=MulticastGroupPage, response_model_exclude_none=True)
def list_groups(
    account: DeviceReader,
    svc: AppServices,
    filters: GroupFilter,
    paging: PageParams,
    sort: str | None = None,
) -> dict[str, Any]:
    assert account.subscription_id is not None
    criterion, descending = parse_sort(sort, MULTICAST_SORT_CRITERIA, DEFAULT_SORT)
    conn = svc.db.conn()
    w = store.where(account.subscription_id, filters, account.restrictions)
    uids, more = store.page(conn, w, criterion, descending, paging.offset, paging.size)
    out = list_answer(
        store.briefs(conn, uids), more, first=paging.first, count=lambda: store.count(conn, w)
    )
    return out | {"now": now_ms()}


@router.get(
    f"{GROUPS}/bss/tags/suggestions",
    response_model=BsTagSuggestions,
    response_model_exclude_none=True,
)
def group_bs_tag_suggestions(
    account: DeviceReader, svc: AppServices, query: str = ""
) -> dict[str, Any]:
    return _suggestions(account, svc, query, groups_only=True)


@router.get(
    "/managedCustomerNetwork/bss/tags/suggestions",
    response_model=BsTagSuggestions,
    response_model_exclude_none=True,
)
def network_bs_tag_suggestions(
    account: DeviceReader, svc: AppServices, query: str = ""
) -> dict[str, Any]:
    return _suggestions(account, svc, query, groups_only=False)


def _all_visible(conn: sqlite3.Connection, account: Account, app_server: str | None) -> list[int]:
    """The groups the caller sees (those directly associated with `app_server` if given)."""
    assert account.subscription_id is not None
    f = MulticastGroupFilter(appServerID=[app_server] if app_server else [])
    return store.all_uids(conn, store.where(account.subscription_id, f, account.restrictions))


def _raw_frames(
    conn: sqlite3.Connection,
    uids: list[int],
    begin: datetime | None,
    duration: str | None,
    overflow: str | None,
) -> dict[str, Any]:
    window = raw_window(conn, begin, duration, HISTORY_SPAN_MS)
    # `overflow` given (even empty): only frames with the overflow indicator, never here.
    only_overflow = overflow is not None and overflow.lower() != "false"
    items = (
        [] if only_overflow else store.downlinks(conn, uids, window.start, window.end, MAX_FRAMES)
    )
    return {"briefs": items, "now": window.now}


def _aggregated(
    conn: sqlite3.Connection,
    uids: list[int],
    begin: datetime | None,
    duration: str | None,
    step: str,
) -> dict[str, Any]:
    window = aggregation_window(conn, begin, duration, step, default_span_ms=HISTORY_SPAN_MS)
    return {
        "briefs": store.aggregated_downlinks(conn, uids, window.start, window.end, window.step),
        "ratioRangeDefinitions": store.ratio_range_definitions(),
        "now": window.now,
    }


@router.get(
    f"{GROUPS}/frames",
    response_model=MulticastFrames,
    response_model_exclude_none=True,
    deprecated=True,
    summary="Frames of all multicast groups (deprecated: use /frames/aggregated)",
)
def all_group_frames(
    account: DeviceReader,
    svc: AppServices,
    response: Response,
    appServerID: str | None = None,
    begin: datetime | None = None,
    duration: str | None = None,
    overflow: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    response.headers["Deprecation"] = "true"
    return _raw_frames(conn, _all_visible(conn, account, appServerID), begin, duration, overflow)


@router.get(
    f"{GROUPS}/frames/aggregated",
    response_model=MulticastFramesAggregation,
    response_model_exclude_none=True,
    summary="Downlink history of all multicast groups, by success ratio",
)
def all_groups_aggregated(
    account: DeviceReader,
    svc: AppServices,
    appServerID: str | None = None,
    begin: datetime | None = None,
    duration: str | None = None,
    step: str = DEFAULT_STEP,
    timezone: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    return _aggregated(conn, _all_visible(conn, account, appServerID), begin, duration, step)


@router.post(
    GROUPS,
    status_code=201,
    response_model=MulticastGroup,
    response_model_exclude_none=True,
    responses={409: {"description": "A multicast group with this EUI exists"}},
)
def create_group(
    body: MulticastGroupCreate, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    domains = check_domains(account, body.domains)
    with svc.db.write() as conn:
        if store.find_uid(conn, sub, eui=body.EUI) is not None:
            raise ApiError(409, DUPLICATE, f"EUI: a multicast group with EUI {body.EUI} exists")
        servers = app_server_ids(conn, sub, [s.ID for s in body.appServers or []], account)
        uid = store.create(
            conn, sub, body, now=now_ms(), who=account.name, domains=domains, servers=servers
        )
    return _group(svc.db.conn(), uid)


@router.get(
    f"{GROUPS}/{{multicastGroupUid}}",
    response_model=MulticastGroup,
    response_model_exclude_none=True,
)
def get_group(multicastGroupUid: str, account: DeviceReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return _group(conn, visible_group_uid(conn, account, multicastGroupUid))


@router.put(
    f"{GROUPS}/{{multicastGroupUid}}",
    response_model=MulticastGroup,
    response_model_exclude_none=True,
)
def update_group(
    multicastGroupUid: str, body: MulticastGroupUpdate, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    given = body.model_fields_set
    domains = check_domains(account, body.domains) if "domains" in given else None
    with svc.db.write() as conn:
        uid = visible_group_uid(conn, account, multicastGroupUid)
        if domains is not None:
            check_kept_inside(account, store.domains_of(conn, uid), domains)
        current = _group(conn, uid)
        refuse_changed(current, body.fixed_values())
        servers = None
        if "appServers" in given:
            refs = [s.ID for s in body.appServers or []]
            servers = app_server_ids(conn, sub, refs, account, current)
        store.update(
            conn, sub, uid, body, now=now_ms(), who=account.name, domains=domains, servers=servers
        )
    return _group(svc.db.conn(), uid)


@router.delete(f"{GROUPS}/{{multicastGroupUid}}", status_code=204)
def delete_group(multicastGroupUid: str, account: DeviceWriter, svc: AppServices) -> Response:
    with svc.db.write() as conn:
        store.delete(conn, visible_group_uid(conn, account, multicastGroupUid))
    return Response(status_code=204)


@router.get(
    f"{GROUPS}/{{multicastGroupUid}}/frames",
    response_model=MulticastFrames,
    response_model_exclude_none=True,
    deprecated=True,
    summary="Frames of a multicast group (deprecated: use /frames/aggregated)",
)
def group_frames(
    multicastGroupUid: str,
    account: DeviceReader,
    svc: AppServices,
    response: Response,
    begin: datetime | None = None,
    duration: str | None = None,
    overflow: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_group_uid(conn, account, multicastGroupUid)
    response.headers["Deprecation"] = "true"
    return _raw_frames(conn, [uid], begin, duration, overflow)


@router.get(
    f"{GROUPS}/{{multicastGroupUid}}/frames/aggregated",
    response_model=MulticastFramesAggregation,
    response_model_exclude_none=True,
    summary="Downlink history of a multicast group, by success ratio",
)
def group_aggregated(
    multicastGroupUid: str,
    account: DeviceReader,
    svc: AppServices,
    begin: datetime | None = None,
    duration: str | None = None,
    step: str = DEFAULT_STEP,
    timezone: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = visible_group_uid(conn, account, multicastGroupUid)
    return _aggregated(conn, [uid], begin, duration, step)
