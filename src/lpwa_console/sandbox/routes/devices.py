"""`/subscriptions/mine/devices`: list, create, get, update, tags, suggestions, clusters.

Endpoints are plain `def`: FastAPI runs them in its threadpool, so SQL never blocks the loop.
"""

from __future__ import annotations

import base64
import sqlite3
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from ...schema.common import (
    ListEnvelope,
    Tag,
    TagSuggestions,
    deprecated_value,
    parse_identifier,
)
from ...schema.devices import (
    DEVICE_SORT_CRITERIA,
    Device,
    DeviceBrief,
    DeviceClusters,
    DeviceCreate,
    DeviceFilter,
    DevicesTagRequest,
    DeviceUpdate,
    HealthState,
    TagAction,
    TagActionResult,
)
from ...schema.domains import Domain, domain_matches
from ..accounts import ADMIN_NODE, Account
from ..auth import AppServices, ClientBodies, DeviceReader, DeviceWriter
from ..errors import (
    BAD_PAGING,
    DUPLICATE,
    OUT_OF_DOMAIN,
    UNKNOWN_REFERENCE,
    ApiError,
    bad_request,
    forbidden,
    not_found,
)
from ..params import PageIndex
from ..store import devices as store
from ..store import subscription as subscription_store

router = APIRouter(
    prefix="/subscriptions/mine/devices", tags=["devices"], dependencies=[ClientBodies]
)

MIN_PAGE, DEFAULT_PAGE, MAX_PAGE = 10, 100, 1000


class DevicePage(ListEnvelope[DeviceBrief]):
    pass


class DeviceTags(ListEnvelope[Tag]):
    pass


# --- query parameters -----------------------------------------------------------------------


def _filter(**values: Any) -> DeviceFilter:
    try:
        return DeviceFilter(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        errors = [dict(e) | {"loc": ("query", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors) from None


def base_filter(
    query: str | None = None,
    name: str | None = None,
    devEUI: Annotated[list[str] | None, Query()] = None,
    tag: Annotated[list[str] | None, Query()] = None,
    appServerID: Annotated[list[str] | None, Query()] = None,
    asTransportKeyID: str | None = None,
    connectivity: Annotated[str | None, Query(pattern="^(LORAWAN|CELLULAR)$")] = None,
    networkContextID: str | None = None,
    simID: str | None = None,
    imei: str | None = None,
    healthState: Annotated[list[HealthState] | None, Query()] = None,
    alarmLevel: Annotated[int | None, Query(ge=1, le=6)] = None,
    domain: str | None = None,
) -> DeviceFilter:
    return _filter(**locals())


BaseFilter = Annotated[DeviceFilter, Depends(base_filter)]


def list_filter(
    base: BaseFilter,
    minLat: Annotated[float | None, Query(ge=-90, le=90)] = None,
    minLon: Annotated[float | None, Query(ge=-180, le=180)] = None,
    maxLat: Annotated[float | None, Query(ge=-90, le=90)] = None,
    maxLon: Annotated[float | None, Query(ge=-180, le=180)] = None,
) -> DeviceFilter:
    box = {"minLat": minLat, "minLon": minLon, "maxLat": maxLat, "maxLon": maxLon}
    return base.model_copy(update=box)


ListFilter = Annotated[DeviceFilter, Depends(list_filter)]


def _sort(text: str | None) -> tuple[str, bool]:
    if not text:
        return "creationDate", False
    criterion, _, order = text.partition(",")
    order = order.strip().lower() or "asc"
    if criterion not in DEVICE_SORT_CRITERIA or order not in ("asc", "desc"):
        raise bad_request(
            f"sort: expected <criterion>,<asc|desc> with a criterion among "
            f"{', '.join(DEVICE_SORT_CRITERIA)}",
            BAD_PAGING,
        )
    return criterion, order == "desc"


def encode_cursor(eui: str) -> str:
    return base64.b64encode(eui.encode()).decode()


def decode_cursor(cursor: str) -> str:
    try:
        # A client that forgot to encode '+' sends a space.
        return base64.b64decode(cursor.replace(" ", "+"), validate=True).decode()
    except ValueError:  # binascii.Error, UnicodeDecodeError, non-ASCII text
        raise bad_request("pageAfter: not a cursor this server issued", BAD_PAGING) from None


# --- helpers --------------------------------------------------------------------------------


def _visible_uid(conn: sqlite3.Connection, account: Account, device_uid: str) -> int:
    """The UID behind `deviceUid` (UID or e + EUI), or 404 when absent or out of domains."""
    assert account.subscription_id is not None
    ident = parse_identifier(device_uid, allow_eui=True)
    uid = None
    if ident.kind == "uid":
        uid = store.find_uid(conn, account.subscription_id, uid=ident.uid)
    elif ident.kind == "eui":
        uid = store.find_uid(conn, account.subscription_id, eui=ident.value)
    if uid is None or not domain_matches(store.domains_of(conn, uid), account.restrictions):
        raise not_found(f"device {device_uid} not found")
    return uid


def _check_domains(account: Account, domains: list[Domain] | None) -> list[tuple[str, str]]:
    pairs = [(d.group.name, d.name) for d in domains or []]
    if not domain_matches(pairs, account.restrictions):
        raise forbidden("domains: outside the domains you are restricted to", OUT_OF_DOMAIN)
    return pairs


def _app_server_ids(conn: sqlite3.Connection, sub: int, refs: list[str]) -> list[int]:
    ids = []
    for ref in refs:
        found = store.ref_id(conn, "app_servers", sub, ref)
        if found is None:
            raise bad_request(f"appServers: unknown application server {ref}", UNKNOWN_REFERENCE)
        ids.append(found)
    return ids


def _check_ref(conn: sqlite3.Connection, table: str, sub: int, ref: str, field: str) -> None:
    if store.ref_id(conn, table, sub, ref) is None:
        raise bad_request(f"{field}: unknown ID {ref}", UNKNOWN_REFERENCE)


def _routing_profile_id(conn: sqlite3.Connection, sub: int, uid: int, ref: str) -> int:
    """The routing profile `ref` for device `uid`: 400 when the subscription has no such
    profile (unknown reference) or when its connectivity is not the device's (invalid)."""
    profile = store.routing_profile(conn, sub, ref)
    if profile is None:
        raise bad_request(f"appServersRoutingProfile: unknown ID {ref}", UNKNOWN_REFERENCE)
    connectivity = conn.execute(
        "SELECT connectivity FROM devices WHERE uid = ?", (uid,)
    ).fetchone()[0]
    problem = store.routing_profile_mismatch(profile, connectivity)
    if problem:
        raise bad_request(problem)
    return profile.id


def _check_references(
    conn: sqlite3.Connection, sub: int, body: DeviceCreate | DeviceUpdate
) -> None:
    """400 (unknown reference) naming the field when the network context or HSM group set
    is not one of the subscription's."""
    problems = store.unknown_references(conn, sub, body)
    if problems:
        raise bad_request("; ".join(problems), UNKNOWN_REFERENCE)


def _deprecated(model: Any, field: str) -> Any:
    return deprecated_value(model, field)


def _device(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    return store.briefs(conn, [uid], full=True)[0]


# --- list -----------------------------------------------------------------------------------


@router.get("", response_model=DevicePage, response_model_exclude_none=True)
def list_devices(
    account: DeviceReader,
    svc: AppServices,
    filters: ListFilter,
    pageIndex: PageIndex = 1,
    pageSize: int = DEFAULT_PAGE,
    sort: str | None = None,
    pageAfter: str | None = None,
) -> dict[str, Any]:
    assert account.subscription_id is not None
    size = min(max(pageSize, MIN_PAGE), MAX_PAGE)
    criterion, descending = _sort(sort if sort or pageAfter is None else "EUI,asc")
    after = None
    if pageAfter:
        if criterion != "EUI":
            raise bad_request("pageAfter: cursor pages need sort=EUI", BAD_PAGING)
        after = decode_cursor(pageAfter)
    conn = svc.db.conn()
    where = store.where_for(account.subscription_id, filters, account.restrictions)
    page = store.list_uids(
        conn,
        where,
        sort=criterion,
        descending=descending,
        offset=0 if pageAfter else (pageIndex - 1) * size,
        limit=size,
        after_eui=after,
    )
    items = store.briefs(conn, page.uids)
    out: dict[str, Any] = {"briefs": items, "more": page.more}
    first_page = not pageAfter and pageIndex == 1
    if first_page:
        out["count"] = (
            len(items) if not page.more else store.count(conn, where)
        )  # a short first page is its own count
    if criterion == "EUI" and page.more and items:
        out["cursors"] = {"last": encode_cursor(items[-1]["EUI"])}
    return out


# --- collection-level routes (declared before /{deviceUid}) ---------------------------------


@router.get("/clusters", response_model=DeviceClusters, response_model_exclude_none=True)
def device_clusters(
    account: DeviceReader,
    svc: AppServices,
    filters: BaseFilter,
    minLat: Annotated[float, Query(ge=-90, le=90)],
    minLon: Annotated[float, Query(ge=-180, le=180)],
    maxLat: Annotated[float, Query(ge=-90, le=90)],
    maxLon: Annotated[float, Query(ge=-180, le=180)],
) -> dict[str, Any]:
    assert account.subscription_id is not None
    if minLat > maxLat or minLon > maxLon:
        raise bad_request("minLat: the bounding box needs minLat <= maxLat and minLon <= maxLon")
    where = store.where_for(account.subscription_id, filters, account.restrictions)
    total, clusters = store.clusters(svc.db.conn(), where, (minLat, minLon, maxLat, maxLon))
    return {"count": total, "clusters": clusters}


@router.get("/tags/suggestions", response_model=TagSuggestions, response_model_exclude_none=True)
def tag_suggestions(
    account: DeviceReader,
    svc: AppServices,
    query: str = "",
    exclude: Annotated[list[str] | None, Query()] = None,
) -> dict[str, Any]:
    assert account.subscription_id is not None
    conn = svc.db.conn()
    if account.restricted and not subscription_store.show_tag_suggestions(
        conn, account.subscription_id
    ):
        return {"briefs": [], "query": query}
    names = store.tag_suggestions(conn, account.subscription_id, query, exclude or [])
    return {"briefs": [{"name": n} for n in names], "query": query}


@router.post("/tags", response_model=TagActionResult, response_model_exclude_none=True)
def tag_devices(
    body: DevicesTagRequest,
    account: DeviceWriter,
    svc: AppServices,
    action: Annotated[TagAction | None, Query()] = None,
) -> dict[str, Any]:
    assert account.subscription_id is not None
    # The body's action wins; an older client may send it as a query parameter instead.
    effective = body.action if "action" in body.model_fields_set or action is None else action
    euis = list(dict.fromkeys(e.strip().upper() for e in body.devEUIs))
    where = store.where_for(account.subscription_id, DeviceFilter(), account.restrictions)
    with svc.db.write() as conn:
        uids = store.uids_by_eui(conn, where, euis)
        tid = store.tag_id(conn, account.subscription_id, body.name, create=effective == "TAG")
        changed = 0 if tid is None else store.tag_devices(conn, tid, uids, effective == "UNTAG")
    return {"count": changed}


@router.post(
    "",
    status_code=201,
    response_model=Device,
    response_model_exclude_none=True,
    responses={409: {"description": "A device with this EUI exists"}},
)
def create_device(body: DeviceCreate, account: DeviceWriter, svc: AppServices) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    domains = _check_domains(account, body.domains)
    with svc.db.write() as conn:
        if store.eui_exists(conn, sub, body.EUI):
            raise ApiError(409, DUPLICATE, f"EUI: a device with EUI {body.EUI} already exists")
        model = None
        if body.model is not None:
            model = store.model_id(conn, body.model.ID)
            if model is None:
                raise bad_request(f"model: unknown device model {body.model.ID}", UNKNOWN_REFERENCE)
        if body.asTransportKey is not None:
            _check_ref(conn, "as_transport_keys", sub, body.asTransportKey.ID, "asTransportKey")
        _check_references(conn, sub, body)
        servers = _app_server_ids(conn, sub, [s.ID for s in body.appServers or []])
        uid = store.create(
            conn,
            sub,
            body,
            now=store.now_ms(),
            model_id=model,
            domains=domains,
            app_servers=servers,
        )
    return _device(svc.db.conn(), uid)


# --- one device -----------------------------------------------------------------------------


@router.get("/{deviceUid}", response_model=Device, response_model_exclude_none=True)
def get_device(deviceUid: str, account: DeviceReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return _device(conn, _visible_uid(conn, account, deviceUid))


@router.put("/{deviceUid}", response_model=Device, response_model_exclude_none=True)
def update_device(
    deviceUid: str, body: DeviceUpdate, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    given = body.model_fields_set
    if "appServersRoutingProfile" in given and not account.can(ADMIN_NODE):
        raise forbidden(
            f"appServersRoutingProfile: cannot be updated without {ADMIN_NODE}"
            " (LPWA_MGR::WRITE_NODE is not enough)"
        )
    domains = _check_domains(account, body.domains) if "domains" in given else None
    with svc.db.write() as conn:
        uid = _visible_uid(conn, account, deviceUid)
        _check_references(conn, sub, body)
        values: dict[str, Any] = {}
        if "name" in given:
            values["name"] = (
                body.name
                or conn.execute("SELECT eui FROM devices WHERE uid = ?", (uid,)).fetchone()[0]
            )
        values |= store.updated_columns(body)
        if "markerID" in given:
            values["marker_id"] = _deprecated(body, "markerID")
        if "asTransportKey" in given:
            if body.asTransportKey is not None:
                _check_ref(conn, "as_transport_keys", sub, body.asTransportKey.ID, "asTransportKey")
            values["as_transport_key"] = body.asTransportKey.ID if body.asTransportKey else None
        if "appServersRoutingProfile" in given:
            values["routing_profile_id"] = (
                None
                if body.appServersRoutingProfile is None
                else _routing_profile_id(conn, sub, uid, body.appServersRoutingProfile.ID)
            )
        store.update_columns(conn, uid, values)
        if "tags" in given:
            store.set_tags(conn, sub, uid, [t.name for t in body.tags or []])
        if domains is not None:
            store.set_domains(conn, sub, uid, domains)
        if "appServers" in given:
            store.set_app_servers(
                conn, uid, _app_server_ids(conn, sub, [s.ID for s in body.appServers or []])
            )
    return _device(svc.db.conn(), uid)


@router.get(
    "/{deviceUid}/tags",
    response_model=DeviceTags,
    response_model_exclude_none=True,
    deprecated=True,
    summary="Tags of a device (deprecated: read `tags` of GET device)",
)
def device_tags(
    deviceUid: str, account: DeviceReader, svc: AppServices, response: Response
) -> dict[str, Any]:
    conn = svc.db.conn()
    tags = _device(conn, _visible_uid(conn, account, deviceUid))["tags"]
    response.headers["Deprecation"] = "true"
    return {"briefs": tags, "count": len(tags), "more": False}
