"""`/subscriptions/mine/devices`: list, create, get, update, delete, tags, suggestions,
clusters.

Endpoints are plain `def`: FastAPI runs them in its threadpool, so SQL never blocks the loop.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Query, Response

from ...schema.common import (
    ListEnvelope,
    Tag,
    TagSuggestions,
    deprecated_value,
)
from ...schema.devices import (
    DEVICE_SORT_CRITERIA,
    Device,
    DeviceClusters,
    DeviceCreate,
    DeviceFilter,
    DevicePage,
    DevicesTagRequest,
    DeviceUpdate,
    HealthState,
    IdRef,
    TagAction,
    TagActionResult,
)
from ..accounts import ADMIN_NODE, Account
from ..auth import AppServices, ClientBodies, DeviceReader, DeviceWriter
from ..errors import (
    BAD_PAGING,
    DUPLICATE,
    UNKNOWN_REFERENCE,
    ApiError,
    bad_request,
    forbidden,
)
from ..store import devices as store
from ..store import subscription as subscription_store
from ..store.clock import network_now, now_ms
from ._common import (
    PageParams,
    add_next_cursor,
    current_for_update,
    decode_cursor,
    list_answer,
    parse_sort,
    query_model,
    wire_json,
)
from ._common import app_server_ids as _app_server_ids
from ._common import check_domains as _check_domains
from ._common import visible_device_uid as _visible_uid
from ._fleet_routes import FleetEntity, add_clusters_route, add_tag_suggestions_route
from ._router import RecordedRouter

if TYPE_CHECKING:
    # The device models' store and schema (the catalogs under them) are imported when a
    # device is created or its model changed, not before the first screen (issue 8).
    from ...schema.device_profiles import DeviceProfile

router = RecordedRouter(
    prefix="/subscriptions/mine/devices", tags=["devices"], dependencies=[ClientBodies]
)

DEFAULT_SORT = ("creationDate", False)


class DeviceTags(ListEnvelope[Tag]):
    pass


# --- query parameters -----------------------------------------------------------------------


# The filter dependencies are `async`: pure parsing, on the event loop (a plain `def` would
# cost each request one more hop through the thread pool).
def _filter(**values: Any) -> DeviceFilter:
    return query_model(DeviceFilter, values)


async def base_filter(
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
    domain: Annotated[list[str] | None, Query()] = None,
) -> DeviceFilter:
    return _filter(**locals())


BaseFilter = Annotated[DeviceFilter, Depends(base_filter)]


async def list_filter(
    base: BaseFilter,
    minLat: Annotated[float | None, Query(ge=-90, le=90)] = None,
    minLon: Annotated[float | None, Query(ge=-180, le=180)] = None,
    maxLat: Annotated[float | None, Query(ge=-90, le=90)] = None,
    maxLon: Annotated[float | None, Query(ge=-180, le=180)] = None,
) -> DeviceFilter:
    box = {"minLat": minLat, "minLon": minLon, "maxLat": maxLat, "maxLon": maxLon}
    return base.model_copy(update=box)


ListFilter = Annotated[DeviceFilter, Depends(list_filter)]


# --- helpers --------------------------------------------------------------------------------


def _check_ref(conn: sqlite3.Connection, table: str, sub: int, ref: str, field: str) -> None:
    if store.ref_id(conn, table, sub, ref) is None:
        raise bad_request(f"{field}: unknown ID {ref}", UNKNOWN_REFERENCE)


def _routing_profile_id(conn: sqlite3.Connection, sub: int, uid: int, ref: str) -> int:
    """The routing profile `ref` for device `uid`: 400 when the subscription has no such
    profile (unknown reference) or when its connectivity is not the device's (invalid)."""
    profile = store.routing_profile(conn, sub, ref)
    if profile is None:
        raise bad_request(f"appServersRoutingProfile: unknown ID {ref}", UNKNOWN_REFERENCE)
    problem = store.routing_profile_mismatch(profile, store.connectivity_of(conn, uid))
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
    refusal = store.hsm_refusal(conn, sub, body)
    if refusal:
        raise bad_request(refusal)


def _deprecated(model: Any, field: str) -> Any:
    return deprecated_value(model, field)


def _now(conn: sqlite3.Connection) -> int:
    """The network's time (ms): the simulator's clock, which the device timestamps follow."""
    return network_now(conn)


def _same_routing_profile(current: dict[str, Any], body: DeviceUpdate) -> bool:
    now = (current.get("appServersRoutingProfile") or {}).get("ID")
    sent = body.appServersRoutingProfile.ID if body.appServersRoutingProfile else None
    return bool(now == sent)


def _device(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    return store.briefs(conn, [uid], full=True)[0] | {"now": _now(conn)}


# --- list -----------------------------------------------------------------------------------


@router.get("", response_model=DevicePage, response_model_exclude_none=True)
def list_devices(
    account: DeviceReader,
    svc: AppServices,
    filters: ListFilter,
    paging: PageParams,
    sort: str | None = None,
    pageAfter: str | None = None,
) -> Response:
    assert account.subscription_id is not None
    criterion, descending = parse_sort(
        sort if sort or pageAfter is None else "EUI,asc", DEVICE_SORT_CRITERIA, DEFAULT_SORT
    )
    after = None
    if pageAfter:
        if criterion != "EUI":
            raise bad_request("pageAfter: cursor pages need sort=EUI", BAD_PAGING)
        after = decode_cursor(pageAfter)
    conn = svc.db.conn()
    sub = account.subscription_id
    where = store.where_for(sub, filters, account.restrictions, conn)
    page = store.list_uids(
        conn,
        where,
        sort=criterion,
        descending=descending,
        offset=0 if pageAfter else paging.offset,
        limit=paging.size,
        after_eui=after,
    )
    items = store.briefs(conn, page.uids)
    out = list_answer(
        items,
        page.more,
        first=not pageAfter and paging.first,
        count=lambda: store.filtered_total(conn, sub, filters, account.restrictions, where),
    )
    # ISO 8601 in UTC as pydantic writes it (`Z`, microseconds only when there are some).
    now = datetime.fromtimestamp(_now(conn) / 1000, UTC)
    out["now"] = now.isoformat().replace("+00:00", "Z")
    if criterion == "EUI":
        add_next_cursor(out, items, page.more, "EUI")
    return wire_json(out)


# --- collection-level routes (declared before /{deviceUid}) ---------------------------------


def _subscription(account: Account) -> int:
    assert account.subscription_id is not None
    return account.subscription_id


DEVICES = FleetEntity(
    noun="device",
    reader=DeviceReader,
    filters=BaseFilter,
    clusters_model=DeviceClusters,
    suggestions_model=TagSuggestions,
    clusters=lambda conn, account, filters, bounds: store.clusters(
        conn, _subscription(account), filters, account.restrictions, bounds
    ),
    shows_suggestions=lambda conn, account: subscription_store.show_tag_suggestions(
        conn, _subscription(account)
    ),
    suggestions=lambda conn, account, query, exclude: [
        {"name": n} for n in store.tag_suggestions(conn, _subscription(account), query, exclude)
    ],
)
add_clusters_route(router, DEVICES)
add_tag_suggestions_route(router, DEVICES)


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
        # A TAG that reaches no visible device creates nothing: the name would otherwise
        # appear in every account's suggestions.
        create = effective == "TAG" and bool(uids)
        tid = store.tag_id(conn, account.subscription_id, body.name, create=create)
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
        if store.eui_taken(conn, body.EUI):
            raise ApiError(409, DUPLICATE, f"EUI: a device with EUI {body.EUI} already exists")
        model = None
        if body.model is not None:
            profile = _profile(conn, body.model.ID)
            if profile.connectivity != body.connectivity:
                raise bad_request(
                    f"model: {body.model.ID} is a {profile.connectivity.lower()} model, the"
                    f" device is {body.connectivity.lower()}"
                )
            model = store.model_id(conn, body.model.ID)
        if body.asTransportKey is not None:
            _check_ref(conn, "as_transport_keys", sub, body.asTransportKey.ID, "asTransportKey")
        _check_references(conn, sub, body)
        servers = _app_server_ids(conn, sub, [s.ID for s in body.appServers or []], account)
        uid = store.create(
            conn,
            sub,
            body,
            now=now_ms(),
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


def _profile(conn: sqlite3.Connection, ref: str) -> DeviceProfile:
    from ...schema.device_profiles import DeviceProfile
    from ..store import device_profiles as profile_store

    found = profile_store.profile(conn, ref)
    if found is None:
        raise bad_request(f"model: unknown device model {ref}", UNKNOWN_REFERENCE)
    return DeviceProfile.model_validate(found)


def _changed_model(conn: sqlite3.Connection, uid: int, ref: IdRef | None) -> int | None:
    """The new profile's row id, when the device may move to it: the same connectivity, and
    for LoRaWAN the same MAC layer and a compatible LoRaWAN version (the reference's rule)."""
    if ref is None:
        raise bad_request("model: a device's model can be changed, not removed")
    from ...schema.device_profiles import DeviceProfile, model_change_refusal
    from ..store import device_profiles as profile_store

    new = _profile(conn, ref.ID)
    found = profile_store.device_profile(conn, uid)
    current = None if found is None else DeviceProfile.model_validate(found)
    connectivity = store.connectivity(conn, uid)
    if current is None and new.connectivity != connectivity:
        refusal = f"{new.ID} is a {new.connectivity.lower()} model, the device is not"
    else:
        refusal = model_change_refusal(current, new)
    if refusal:
        raise bad_request(f"model: {refusal}")
    return store.model_id(conn, ref.ID)


@router.put("/{deviceUid}", response_model=Device, response_model_exclude_none=True)
def update_device(
    deviceUid: str, body: DeviceUpdate, account: DeviceWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    given = set(body.model_fields_set)
    domains = _check_domains(account, body.domains) if "domains" in given else None
    with svc.db.write() as conn:
        uid = _visible_uid(conn, account, deviceUid)
        fixed = body.fixed_values()
        current = current_for_update(conn, uid, account, domains, store.domains_of, _device, fixed)
        if "appServersRoutingProfile" in given:
            if _same_routing_profile(current, body):
                given.discard("appServersRoutingProfile")  # sent back as read: no change
            elif not account.can(ADMIN_NODE):
                raise forbidden(
                    f"appServersRoutingProfile: cannot be updated without {ADMIN_NODE}"
                    " (LPWA_MGR::WRITE_NODE is not enough)"
                )
        _check_references(conn, sub, body)
        values: dict[str, Any] = {}
        if "name" in given:
            values["name"] = body.name or store.eui_of(conn, uid)
        values |= store.updated_columns(body)
        if "model" in given:
            values["model_id"] = _changed_model(conn, uid, body.model)
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
            refs = [s.ID for s in body.appServers or []]
            store.set_app_servers(conn, uid, _app_server_ids(conn, sub, refs, account, current))
    return _device(svc.db.conn(), uid)


@router.delete("/{deviceUid}", status_code=204)
def delete_device(
    deviceUid: str,
    account: DeviceWriter,
    svc: AppServices,
    async_: Annotated[bool | None, Query(alias="async")] = None,
) -> Response:
    """Delete a device with its alarms, traffic, tags and simulator schedule. `async` is
    accepted and answered at once (204): the sandbox deletes synchronously."""
    with svc.db.write() as conn:
        store.delete(conn, _visible_uid(conn, account, deviceUid))
    return Response(status_code=204)


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
