"""Base stations of a network partner: `/partners/{partnerUid}/bss` (Document 2 §4.3).

List (the reference's filters; `pageAfter` only with the lrrID sort; `count` on the first
page), create (201; the partner's grant enforced), read, update, clusters, counters, tags and
their suggestions, and domains. Stations outside the caller's domain restrictions are
invisible (lists, counts, clusters) or not found (one station).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Any

from fastapi import Depends, Query, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from ...schema.stations import (
    BS_CURSOR_SORT,
    BS_SORT_CRITERIA,
    BaseStation,
    BaseStationClusters,
    BaseStationCounters,
    BaseStationCreate,
    BaseStationFilter,
    BaseStationPage,
    BaseStationUpdate,
    BsHealthState,
    SecurityState,
    StationsDomainsRequest,
    StationsTagRequest,
    StationTag,
    StationTagCreate,
    StationTagResult,
    StationTags,
    StationTagSuggestions,
    TagAction,
)
from ..auth import AppServices, ClientBodies
from ..errors import (
    BAD_PAGING,
    DUPLICATE,
    GRANT_REACHED,
    STATION_ANY_CASE,
    UNKNOWN_REFERENCE,
    ApiError,
    bad_request,
    not_found,
)
from ..store import partners as partner_store
from ..store import station_clusters as cluster_store
from ..store import station_ops as ops_store
from ..store import stations as store
from ..store.clock import network_now
from ._common import (
    PageParams,
    add_next_cursor,
    check_kept_inside,
    current_for_update,
    decode_cursor,
    list_answer,
    parse_sort,
)
from ._fleet_routes import FleetEntity, add_clusters_route, add_tag_suggestions_route
from ._partners import (
    PartnerReader,
    PartnerScope,
    PartnerWriter,
    check_station_domains,
    visible_station_uid,
)
from ._router import RecordedRouter

router = RecordedRouter(
    prefix="/partners/{partnerUid}/bss", tags=["base stations"], dependencies=[ClientBodies]
)
DEFAULT_SORT = ("creationDate", False)


def _now(conn: sqlite3.Connection) -> int:
    return network_now(conn)


# --- query parameters -----------------------------------------------------------------------


async def station_filter(
    name: str | None = None,
    LRRID: Annotated[list[str] | None, Query()] = None,
    version: str | None = None,
    customVersion: str | None = None,
    rebootFrom: str | None = None,
    minRC: int | None = None,
    alarmLevel: Annotated[int | None, Query(ge=1, le=6)] = None,
    LRRUUID: str | None = None,
    healthState: Annotated[list[BsHealthState] | None, Query()] = None,
    query: str | None = None,
    tag: Annotated[list[str] | None, Query()] = None,
    domain: Annotated[list[str] | None, Query()] = None,
    rfRegionID: Annotated[list[str] | None, Query()] = None,
    bsSecurityState: SecurityState | None = None,
    appServerID: Annotated[list[str] | None, Query()] = None,
) -> BaseStationFilter:
    try:
        return BaseStationFilter(**{k: v for k, v in locals().items() if v is not None})
    except ValidationError as exc:
        errors = [dict(e) | {"loc": ("query", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors) from None


StationFilter = Annotated[BaseStationFilter, Depends(station_filter)]


def _reboot_from(f: BaseStationFilter) -> int | None:
    if not f.rebootFrom:
        return None
    try:
        when = datetime.fromisoformat(f.rebootFrom.replace("Z", "+00:00"))
    except ValueError:
        raise bad_request("rebootFrom: an ISO 8601 date-time, e.g. 2024-05-01T00:00:00Z") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        return int(when.timestamp() * 1000)
    except (OverflowError, ValueError, OSError):
        raise bad_request("rebootFrom: out of range") from None


def _where(conn: sqlite3.Connection, scope: PartnerScope, f: BaseStationFilter) -> Any:
    return store.where(
        conn, scope.uid, f, scope.restrictions, now=_now(conn), reboot_from=_reboot_from(f)
    )


def _station(conn: sqlite3.Connection, uid: int, scope: PartnerScope) -> dict[str, Any]:
    item = store.briefs(conn, [uid], full=True, base=scope.station_base)[0]
    # The hardware description, settings and support password (bs-ops's station_ops).
    item |= ops_store.hardware(conn, uid, item["model"].get("softwareType"))
    return item | {"now": _now(conn)}


# --- list and create ----------------------------------------------------------------------------


@router.get("", response_model=BaseStationPage, response_model_exclude_none=True)
def list_stations(
    scope: PartnerReader,
    svc: AppServices,
    filters: StationFilter,
    paging: PageParams,
    minLat: Annotated[float | None, Query(ge=-90, le=90)] = None,
    minLon: Annotated[float | None, Query(ge=-180, le=180)] = None,
    maxLat: Annotated[float | None, Query(ge=-90, le=90)] = None,
    maxLon: Annotated[float | None, Query(ge=-180, le=180)] = None,
    sort: str | None = None,
    pageAfter: str | None = None,
) -> dict[str, Any]:
    criterion, descending = parse_sort(sort, BS_SORT_CRITERIA, DEFAULT_SORT)
    after = None
    if pageAfter is not None:
        if criterion != BS_CURSOR_SORT:
            raise bad_request("pageAfter: a cursor works only when sorting by lrrID", BAD_PAGING)
        after = decode_cursor(pageAfter)
    f = filters.model_copy(
        update={"minLat": minLat, "minLon": minLon, "maxLat": maxLat, "maxLon": maxLon}
    )
    conn = svc.db.conn()
    w = _where(conn, scope, f)
    uids, more = store.page(conn, w, criterion, descending, paging.offset, paging.size, after=after)
    items = store.briefs(conn, uids, base=scope.station_base)
    count = (
        (lambda: store.total(conn, scope.uid, scope.restrictions))
        if f.is_empty()
        else (lambda: store.count(conn, w))
    )
    out = list_answer(items, more, first=after is None and paging.first, count=count)
    if criterion == BS_CURSOR_SORT:
        add_next_cursor(out, items, more, "lrrID")
    return out | {"now": _now(conn)}


@router.post(
    "",
    status_code=201,
    response_model=BaseStation,
    response_model_exclude_none=True,
    responses={409: {"description": "A base station with this lrrID exists"}},
)
def create_station(
    body: BaseStationCreate, scope: PartnerWriter, svc: AppServices
) -> dict[str, Any]:
    pairs = [(d.group.name, d.name) for d in body.domains or []]
    check_station_domains(scope, pairs)
    with svc.db.write() as conn:
        if store.station_model(conn, body.model.ID) is None:  # the operator's catalog
            raise bad_request(
                f"model: unknown base station model {body.model.ID}", UNKNOWN_REFERENCE
            )
        partner = partner_store.get(conn, scope.uid)
        assert partner is not None
        granted = partner["total_granted"]
        if granted is not None and store.used(conn, scope.uid) >= granted:
            raise ApiError(
                403,
                GRANT_REACHED,
                f"totalBaseStationsGranted: the partner may have {granted} base stations"
                " and has them all",
            )
        if body.lrrID is not None:
            if store.lrr_id_exists(conn, body.lrrID):
                raise ApiError(
                    409, DUPLICATE, f"lrrID: a base station with lrrID {body.lrrID} exists"
                )
            lrr_id = body.lrrID
        else:
            lrr_id = store.allocate_lrr_id(conn)
        now = _now(conn)
        uid = store.create(
            conn, scope.uid, body, lrr_id=lrr_id, now=now, who=scope.who, domains=pairs,
            subscription_id=scope.subscription_id,
        )  # fmt: skip
        partner_store.record_credit(
            conn, scope.uid, "STATION_CREATED", -1, now=now, who=scope.who, lrr_id=lrr_id
        )
    return _station(svc.db.conn(), uid, scope)


# --- collection-level routes (before /{bsUid}) -------------------------------------------------


STATIONS = FleetEntity(
    noun="station",
    reader=PartnerReader,
    filters=StationFilter,
    clusters_model=BaseStationClusters,
    suggestions_model=StationTagSuggestions,
    clusters=lambda conn, scope, filters, bounds: cluster_store.clusters(
        conn,
        scope.uid,
        _where(conn, scope, filters),
        scope.restrictions,
        bounds,
        filtered=not filters.is_empty(),
        base=scope.station_base,
    ),
    shows_suggestions=lambda conn, scope: partner_store.show_tag_suggestions(conn, scope.uid),
    suggestions=lambda conn, scope, query, exclude: store.tag_suggestions(
        conn, scope.uid, query, exclude
    ),
)
add_clusters_route(router, STATIONS)


@router.get("/counters", response_model=BaseStationCounters, response_model_exclude_none=True)
def station_counters(scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    counts = store.health_counts(svc.db.conn(), scope.uid, scope.restrictions)
    briefs = [{"healthState": state, "count": n} for state, n in sorted(counts.items())]
    return {"briefs": briefs, "totalCount": sum(counts.values())}


@router.post("/domains", status_code=204)
def station_domains(
    body: StationsDomainsRequest, scope: PartnerWriter, svc: AppServices
) -> Response:
    """Add domains (each replacing the station's domain of the same group) and remove
    domains; a domain a station does not have is no error. A restricted caller's stations
    must match its restrictions before and after."""
    added = [(d.group.name, d.name) for d in body.addedDomains]
    removed = {(d.group.name, d.name) for d in body.removedDomains}
    check_station_domains(scope, added, field="addedDomains")
    if scope.subscription_id is None:
        raise bad_request("LRRIDs: only a subscriber partner's stations have domains")
    with svc.db.write() as conn:
        w = _where(conn, scope, BaseStationFilter())
        uids = store.uids_by_lrr_id(conn, w, body.LRRIDs)
        if len(uids) < len(set(body.LRRIDs)):
            raise not_found("LRRIDs: some of these base stations were not found")
        for uid in uids:
            kept = [
                (g, n)
                for g, n in store.domains_of(conn, uid)
                if (g, n) not in removed and g not in {a[0] for a in added}
            ]
            after = sorted(set(kept + added))
            check_station_domains(scope, after, field="removedDomains")
            check_kept_inside(
                scope.restrictions, store.domains_of(conn, uid), after, field="removedDomains"
            )
            store.set_domains(conn, scope.subscription_id, uid, after)
    return Response(status_code=204)


@router.post("/tags", response_model=StationTagResult, response_model_exclude_none=True)
def tag_stations(
    body: StationsTagRequest,
    scope: PartnerWriter,
    svc: AppServices,
    filters: StationFilter,
    paging: PageParams,
    action: Annotated[TagAction | None, Query()] = None,
    sort: str | None = None,
) -> dict[str, Any]:
    """TAG or UNTAG the stations of `LRRIDs`, or without them one page of those the query
    selects. UNTAG of a tag that does not exist is 200 (nothing changes)."""
    effective = body.action or action or "TAG"
    criterion, descending = parse_sort(sort, BS_SORT_CRITERIA, DEFAULT_SORT)
    with svc.db.write() as conn:
        w = _where(conn, scope, filters)
        if body.LRRIDs is not None:
            uids = store.uids_by_lrr_id(conn, w, body.LRRIDs)
        else:
            uids, _ = store.page(conn, w, criterion, descending, paging.offset, paging.size)
        # A TAG that reaches no visible station creates no tag (it would show in suggestions).
        create = effective == "TAG" and bool(uids)
        tid = store.tag_id(
            conn, scope.uid, body.name, create=create,
            multicast_visibility=body.multicastVisibility if create else None,
        )  # fmt: skip
        changed = (
            0 if tid is None else store.tag_stations(conn, tid, uids, untag=effective == "UNTAG")
        )
        shown = store.tag_row(conn, tid) if tid is not None else {"name": body.name}
    return shown | {"count": changed}


add_tag_suggestions_route(router, STATIONS)


# --- one station ---------------------------------------------------------------------------------


@router.get("/{bsUid}", response_model=BaseStation, response_model_exclude_none=True)
def get_station(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return _station(conn, visible_station_uid(conn, scope, bsUid), scope)


@router.put("/{bsUid}", response_model=BaseStation, response_model_exclude_none=True)
def update_station(
    bsUid: str, body: BaseStationUpdate, scope: PartnerWriter, svc: AppServices
) -> dict[str, Any]:
    given = body.model_fields_set
    pairs = [(d.group.name, d.name) for d in body.domains or []] if "domains" in given else None
    if pairs is not None:
        check_station_domains(scope, pairs)
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        current_for_update(
            conn, uid, scope.restrictions, pairs, store.domains_of,
            partial(_station, scope=scope), body.fixed_values(), any_case=STATION_ANY_CASE,
        )  # fmt: skip
        store.update(
            conn, uid, body, now=_now(conn), who=scope.who, domains=pairs,
            subscription_id=scope.subscription_id,
        )  # fmt: skip
    return _station(svc.db.conn(), uid, scope)


@router.get("/{bsUid}/tags", response_model=StationTags, response_model_exclude_none=True)
def station_tags(bsUid: str, scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return {
        "briefs": store.station_tags(
            conn, visible_station_uid(conn, scope, bsUid), scope.station_base
        ),
        "more": False,
    }


@router.post(
    "/{bsUid}/tags", status_code=201, response_model=StationTag, response_model_exclude_none=True
)
def add_station_tag(
    bsUid: str, body: StationTagCreate, scope: PartnerWriter, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        tid = store.tag_id(
            conn, scope.uid, body.name, create=True, multicast_visibility=body.multicastVisibility
        )
        assert tid is not None
        store.tag_stations(conn, tid, [uid], untag=False)
        return store.tag_row(conn, tid) | {"href": store.tag_href(uid, tid, scope.station_base)}


def _station_tag(conn: sqlite3.Connection, uid: int, tagUid: str) -> int:
    tid = int(tagUid) if tagUid.isdigit() and len(tagUid) < 19 else -1
    if tid < 0 or not store.station_has_tag(conn, uid, tid):
        raise not_found(f"tag {tagUid} not found on this base station")
    return tid


@router.put("/{bsUid}/tags/{tagUid}", response_model=StationTag, response_model_exclude_none=True)
def update_station_tag(
    bsUid: str, tagUid: str, body: StationTagCreate, scope: PartnerWriter, svc: AppServices
) -> dict[str, Any]:
    """Rename (re-tag the station with the new name) or change the multicast visibility."""
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        tid = _station_tag(conn, uid, tagUid)
        new = store.tag_id(
            conn, scope.uid, body.name, create=True, multicast_visibility=body.multicastVisibility
        )
        assert new is not None
        if new != tid:
            store.tag_stations(conn, tid, [uid], untag=True)
            store.tag_stations(conn, new, [uid], untag=False)
        return store.tag_row(conn, new) | {"href": store.tag_href(uid, new, scope.station_base)}


@router.delete("/{bsUid}/tags/{tagUid}", status_code=204)
def delete_station_tag(bsUid: str, tagUid: str, scope: PartnerWriter, svc: AppServices) -> Response:
    with svc.db.write() as conn:
        uid = visible_station_uid(conn, scope, bsUid)
        store.tag_stations(conn, _station_tag(conn, uid, tagUid), [uid], untag=True)
    return Response(status_code=204)
