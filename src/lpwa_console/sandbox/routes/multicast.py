"""`/subscriptions/mine/multicastGroups` (Document 1 §2.4, §4.2): list, create, get, update,
delete, base station tag suggestions, the downlink history (`/frames/aggregated` of all groups
or one, and the deprecated raw `/frames` they replace). Alarms: routes/alarms.py.

The downlink histories cover the last P7D unless `duration` says otherwise (the reference's
default); the all-groups ones take `appServerID` (exact: the groups directly associated with
that server). Aggregated buckets come oldest first, as a device's do.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, Query, Response

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
from ..errors import DUPLICATE, ApiError
from ..store import multicast as store
from ..store import subscription as subscription_store
from ..store.clock import now_ms
from ._common import (
    PageParams,
    app_server_ids,
    check_domains,
    current_for_update,
    list_answer,
    parse_sort,
    query_model,
    visible_group_uid,
)
from ._router import RecordedRouter
from ._windows import aggregation_window, raw_window

router = RecordedRouter(
    prefix="/subscriptions/mine", tags=["multicast groups"], dependencies=[ClientBodies]
)
GROUPS = "/multicastGroups"
GROUP = f"{GROUPS}/{{multicastGroupUid}}"
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
    return query_model(MulticastGroupFilter, locals())


GroupFilter = Annotated[MulticastGroupFilter, Depends(group_filter)]


def _group(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    return store.briefs(conn, [uid], full=True)[0] | {"now": now_ms()}


def _suggestions(account: Account, svc: Any, query: str, *, groups_only: bool) -> dict[str, Any]:
    conn = svc.db.conn()
    if account.restricted and not subscription_store.show_tag_suggestions(conn, account.sub):
        return {"briefs": [], "query": query}
    items = store.bs_tag_suggestions(conn, account.sub, query, groups_only=groups_only)
    return {"briefs": items, "query": query}


@router.reads(GROUPS, MulticastGroupPage)
def list_groups(
    account: DeviceReader,
    svc: AppServices,
    filters: GroupFilter,
    paging: PageParams,
    sort: str | None = None,
) -> dict[str, Any]:
    criterion, descending = parse_sort(sort, MULTICAST_SORT_CRITERIA, DEFAULT_SORT)
    conn = svc.db.conn()
    w = store.where(account.sub, filters, account.restrictions)
    uids, more = store.page(conn, w, criterion, descending, paging.offset, paging.size)
    out = list_answer(
        store.briefs(conn, uids), more, first=paging.first, count=lambda: store.count(conn, w)
    )
    return out | {"now": now_ms()}


@router.reads(f"{GROUPS}/bss/tags/suggestions", BsTagSuggestions)
def group_bs_tag_suggestions(
    account: DeviceReader, svc: AppServices, query: str = ""
) -> dict[str, Any]:
    return _suggestions(account, svc, query, groups_only=True)


@router.reads("/managedCustomerNetwork/bss/tags/suggestions", BsTagSuggestions)
def network_bs_tag_suggestions(
    account: DeviceReader, svc: AppServices, query: str = ""
) -> dict[str, Any]:
    return _suggestions(account, svc, query, groups_only=False)


def _all_visible(conn: sqlite3.Connection, account: Account, app_server: str | None) -> list[int]:
    """The groups the caller sees (those directly associated with `app_server` if given)."""
    f = MulticastGroupFilter(appServerID=[app_server] if app_server else [])
    return store.all_uids(conn, store.where(account.sub, f, account.restrictions))


@dataclass(frozen=True)
class FramesQuery:
    """The raw history's query: `begin`, `duration`, and `overflow` (given, even empty:
    only frames with the overflow indicator, never here)."""

    begin: datetime | None
    duration: str | None
    overflow: str | None

    def answer(self, conn: sqlite3.Connection, uids: list[int]) -> dict[str, Any]:
        window = raw_window(conn, self.begin, self.duration, HISTORY_SPAN_MS)
        only_overflow = self.overflow is not None and self.overflow.lower() != "false"
        if only_overflow:
            return {"briefs": [], "now": window.now}
        items = store.downlinks(conn, uids, window.start, window.end, MAX_FRAMES)
        return {"briefs": items, "now": window.now}


@dataclass(frozen=True)
class AggregationQuery:
    """The aggregated history's query: `begin`, `duration`, `step` (`timezone` accepted)."""

    begin: datetime | None
    duration: str | None
    step: str

    def answer(self, conn: sqlite3.Connection, uids: list[int]) -> dict[str, Any]:
        window = aggregation_window(
            conn, self.begin, self.duration, self.step, default_span_ms=HISTORY_SPAN_MS
        )
        return {
            "briefs": store.aggregated_downlinks(conn, uids, window.start, window.end, window.step),
            "ratioRangeDefinitions": store.ratio_range_definitions(),
            "now": window.now,
        }


async def frames_query(
    begin: datetime | None = None, duration: str | None = None, overflow: str | None = None
) -> FramesQuery:
    return FramesQuery(begin, duration, overflow)


async def aggregation_query(
    begin: datetime | None = None, duration: str | None = None, step: str = DEFAULT_STEP,
    timezone: str | None = None,
) -> AggregationQuery:  # fmt: skip
    return AggregationQuery(begin, duration, step)


Frames = Annotated[FramesQuery, Depends(frames_query)]
Aggregation = Annotated[AggregationQuery, Depends(aggregation_query)]
RAW_DEPRECATED = "(deprecated: use /frames/aggregated)"


@router.reads(f"{GROUPS}/frames", MulticastFrames, deprecated=True,
              summary=f"Frames of all multicast groups {RAW_DEPRECATED}")  # fmt: skip
def all_group_frames(
    account: DeviceReader, svc: AppServices, response: Response, frames: Frames,
    appServerID: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    conn = svc.db.conn()
    response.headers["Deprecation"] = "true"
    return frames.answer(conn, _all_visible(conn, account, appServerID))


@router.reads(f"{GROUPS}/frames/aggregated", MulticastFramesAggregation,
              summary="Downlink history of all multicast groups, by success ratio")  # fmt: skip
def all_groups_aggregated(
    account: DeviceReader, svc: AppServices, history: Aggregation, appServerID: str | None = None
) -> dict[str, Any]:
    conn = svc.db.conn()
    return history.answer(conn, _all_visible(conn, account, appServerID))


@router.creates(
    GROUPS, MulticastGroup,
    responses={409: {"description": "A multicast group with this EUI exists"}},
)  # fmt: skip
def create_group(
    body: MulticastGroupCreate, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.sub
    domains = check_domains(account, body.domains)
    with svc.db.write() as conn:
        if store.find_uid(conn, sub, eui=body.EUI) is not None:
            raise ApiError(409, DUPLICATE, f"EUI: a multicast group with EUI {body.EUI} exists")
        servers = app_server_ids(conn, sub, [s.ID for s in body.appServers or []], account)
        uid = store.create(
            conn, sub, body, now=now_ms(), who=account.name, domains=domains, servers=servers
        )
    return _group(svc.db.conn(), uid)


@router.reads(GROUP, MulticastGroup)
def get_group(multicastGroupUid: str, account: DeviceReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return _group(conn, visible_group_uid(conn, account, multicastGroupUid))


@router.replaces(GROUP, MulticastGroup)
def update_group(
    multicastGroupUid: str, body: MulticastGroupUpdate, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.sub
    given = body.model_fields_set
    domains = check_domains(account, body.domains) if "domains" in given else None
    with svc.db.write() as conn:
        uid = visible_group_uid(conn, account, multicastGroupUid)
        fixed = body.fixed_values()
        current = current_for_update(conn, uid, account, domains, store.domains_of, _group, fixed)
        servers = None
        if "appServers" in given:
            refs = [s.ID for s in body.appServers or []]
            servers = app_server_ids(conn, sub, refs, account, current)
        store.update(
            conn, sub, uid, body, now=now_ms(), who=account.name, domains=domains, servers=servers
        )
    return _group(svc.db.conn(), uid)


@router.delete(GROUP, status_code=204)
def delete_group(multicastGroupUid: str, account: DeviceWriter, svc: AppServices) -> Response:
    with svc.db.write() as conn:
        store.delete(conn, visible_group_uid(conn, account, multicastGroupUid))
    return Response(status_code=204)


@router.reads(f"{GROUP}/frames", MulticastFrames, deprecated=True,
              summary=f"Frames of a multicast group {RAW_DEPRECATED}")  # fmt: skip
def group_frames(
    multicastGroupUid: str, account: DeviceReader, svc: AppServices, response: Response,
    frames: Frames,
) -> dict[str, Any]:  # fmt: skip
    conn = svc.db.conn()
    uid = visible_group_uid(conn, account, multicastGroupUid)
    response.headers["Deprecation"] = "true"
    return frames.answer(conn, [uid])


@router.reads(f"{GROUP}/frames/aggregated", MulticastFramesAggregation,
              summary="Downlink history of a multicast group, by success ratio")  # fmt: skip
def group_aggregated(
    multicastGroupUid: str, account: DeviceReader, svc: AppServices, history: Aggregation
) -> dict[str, Any]:
    conn = svc.db.conn()
    return history.answer(conn, [visible_group_uid(conn, account, multicastGroupUid)])
