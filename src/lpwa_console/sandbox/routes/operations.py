"""The operator's operations (Document 2 §4.1), under `/admins/operators/{operatorUid}`
(`mine`, the UID 1 or `id:` + the operator's ID): HSM groups, the provisioning queue
(`subSystem` filter), the command queue, SIM cards and devices (`imei` exact,
`lorawanDebug`). Lists page by `pageIndex`/`pageSize` with `count` on the first page; the
queues sort by `creationTimestamp` (`sort=creationTimestamp,asc|desc`, newest first by
default)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query

from ...schema.common import parse_identifier
from ...schema.operations import (
    QUEUE_SORT_CRITERIA,
    CommandQueueItem,
    CommandQueuePage,
    OperatorDevicePage,
    OperatorHsmGroup,
    OperatorHsmGroupCreate,
    OperatorHsmGroupPage,
    OperatorHsmGroupUpdate,
    ProvisioningQueueItem,
    ProvisioningQueuePage,
    ProvType,
    SimCardPage,
    SubSystem,
)
from ...schema.stations import normalise_lrr_id
from ..auth import AppServices, ClientBodies, OperatorAccount
from ..errors import (
    DUPLICATE,
    UNKNOWN_REFERENCE,
    ApiError,
    bad_request,
    not_found,
    refuse_changed,
)
from ..store import operations as store
from ..store import subscription as subscription_store
from ..store.clock import now_ms
from ._common import PageParams, list_answer, parse_sort, wire_json
from ._partners import check_operator
from ._router import RecordedRouter

PREFIX = "/admins/operators/{operatorUid}"
router = RecordedRouter(prefix=PREFIX, tags=["operator"], dependencies=[ClientBodies])
Code = Annotated[str | None, Query(max_length=64, pattern=r"^[A-Z0-9_]+$")]


def _base(operator_uid: str) -> str:
    return f"/admins/operators/{operator_uid}"


def _event_uid(text: str, what: str) -> int:
    ident = parse_identifier(text)
    if ident.kind != "uid":
        raise not_found(f"{what} {text} not found")
    return ident.uid


def _descending(sort: str | None) -> bool:
    return parse_sort(sort, QUEUE_SORT_CRITERIA, ("creationTimestamp", True))[1]


# --- provisioning queue ---------------------------------------------------------------------


@router.get("/provqueues", response_model=ProvisioningQueuePage, response_model_exclude_none=True)
def provisioning_queue(
    operatorUid: str,
    account: OperatorAccount,
    svc: AppServices,
    paging: PageParams,
    subSystem: SubSystem | None = None,
    type: ProvType | None = None,
    sort: Annotated[str | None, Query(max_length=64)] = None,
) -> Any:
    """Newest first unless `sort=creationTimestamp,asc`."""
    check_operator(operatorUid)
    descending = _descending(sort)
    conn = svc.db.conn()
    where = store.prov_where(subSystem, type)
    items, more = store.prov_page(
        conn, where, descending=descending, offset=paging.offset, limit=paging.size,
        base=_base(operatorUid),
    )  # fmt: skip
    answer = list_answer(
        items, more, first=paging.first, count=lambda: store.prov_count(conn, where)
    )
    return wire_json(answer)


@router.get(
    "/provqueues/{eventUid}", response_model=ProvisioningQueueItem, response_model_exclude_none=True
)
def provisioning_item(
    operatorUid: str, eventUid: str, account: OperatorAccount, svc: AppServices
) -> dict[str, Any]:
    check_operator(operatorUid)
    item = store.prov_item(
        svc.db.conn(), _event_uid(eventUid, "provisioning item"), _base(operatorUid)
    )
    if item is None:
        raise not_found(f"provisioning item {eventUid} not found")
    return item


# --- command queue ----------------------------------------------------------------------------


@router.get("/cmdqueues", response_model=CommandQueuePage, response_model_exclude_none=True)
def command_queue(
    operatorUid: str,
    account: OperatorAccount,
    svc: AppServices,
    paging: PageParams,
    type: Code = None,
    state: Code = None,
    lrrID: Annotated[str | None, Query(max_length=8)] = None,
    sort: Annotated[str | None, Query(max_length=64)] = None,
) -> Any:
    """Every base station administration command, newest first unless
    `sort=creationTimestamp,asc`; `type` (lastCmdType), `state` (lastCmdStatus) and `lrrID`
    filter it."""
    check_operator(operatorUid)
    descending = _descending(sort)
    lrr = None
    if lrrID:
        try:
            lrr = normalise_lrr_id(lrrID)
        except ValueError as exc:
            raise bad_request(f"lrrID: {exc}") from None
    conn = svc.db.conn()
    where = store.cmd_where(type, state, lrr)
    items, more = store.cmd_page(
        conn, where, descending=descending, offset=paging.offset, limit=paging.size,
        base=_base(operatorUid),
    )  # fmt: skip
    answer = list_answer(
        items, more, first=paging.first, count=lambda: store.cmd_count(conn, where)
    )
    return wire_json(answer)


@router.get(
    "/cmdqueues/{eventUid}", response_model=CommandQueueItem, response_model_exclude_none=True
)
def command_item(
    operatorUid: str, eventUid: str, account: OperatorAccount, svc: AppServices
) -> dict[str, Any]:
    check_operator(operatorUid)
    item = store.cmd_item(svc.db.conn(), _event_uid(eventUid, "command"), _base(operatorUid))
    if item is None:
        raise not_found(f"command {eventUid} not found")
    return item


# --- SIM cards and devices ------------------------------------------------------------------


@router.get("/sims", response_model=SimCardPage, response_model_exclude_none=True)
def sim_cards(
    operatorUid: str,
    account: OperatorAccount,
    svc: AppServices,
    paging: PageParams,
    imsi: Annotated[str | None, Query(max_length=15, pattern=r"^[0-9]+$")] = None,
) -> dict[str, Any]:
    """The SIM cards of the cellular devices, by IMSI; `imsi` is a prefix."""
    check_operator(operatorUid)
    conn = svc.db.conn()
    where = store.sim_where(imsi)
    items, more = store.sim_page(conn, where, offset=paging.offset, limit=paging.size)
    return list_answer(items, more, first=paging.first, count=lambda: store.sim_count(conn, where))


@router.get("/devices", response_model=OperatorDevicePage, response_model_exclude_none=True)
def devices(
    operatorUid: str,
    account: OperatorAccount,
    svc: AppServices,
    paging: PageParams,
    imei: Annotated[str | None, Query(max_length=15)] = None,
    lorawanDebug: bool | None = None,
    devEUI: Annotated[str | None, Query(max_length=16)] = None,
) -> Any:
    """Every subscription's devices by UID. `imei`: 14 or 15 digits, matched on the first 14
    (what the items carry); `lorawanDebug=true`: only devices in LoRaWAN debugging;
    `devEUI` (ours): exact."""
    check_operator(operatorUid)
    if imei and not (imei.isdigit() and 14 <= len(imei) <= 15):
        raise bad_request("imei: an IMEI is 14 or 15 digits")
    if devEUI and not (len(devEUI) == 16 and all(c in "0123456789abcdefABCDEF" for c in devEUI)):
        raise bad_request("devEUI: a DevEUI is 16 hexadecimal digits")
    conn = svc.db.conn()
    where = store.device_where(imei, lorawanDebug, devEUI)
    items, more = store.device_page(conn, where, offset=paging.offset, limit=paging.size)
    count = lambda: store.device_count(conn, where)  # noqa: E731
    return wire_json(list_answer(items, more, first=paging.first, count=count))


# --- HSM groups -------------------------------------------------------------------------------


def _hsm_uid(conn: Any, text: str) -> int:
    """`{hsmGroupUid}`: the UID, or `id:` + the group's ID when one group has it."""
    ident = parse_identifier(text)
    if ident.kind == "uid":
        return ident.uid
    if ident.kind == "id":
        uids = store.hsm_uids_by_ref(conn, ident.value)
        if len(uids) == 1:
            return uids[0]
        if len(uids) > 1:
            raise bad_request(f"hsmGroupUid: several groups have the ID {ident.value}; use a UID")
    raise not_found(f"HSM group {text} not found")


def _hsm_answer(conn: Any, uid: int, operator_uid: str) -> dict[str, Any]:
    item = store.hsm_group(conn, uid, _base(operator_uid))
    if item is None:
        raise not_found(f"HSM group {uid} not found")
    return item


@router.get("/hsmGroups", response_model=OperatorHsmGroupPage, response_model_exclude_none=True)
def hsm_groups(
    operatorUid: str, account: OperatorAccount, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    check_operator(operatorUid)
    conn = svc.db.conn()
    items, more = store.hsm_page(
        conn, offset=paging.offset, limit=paging.size, base=_base(operatorUid)
    )
    return list_answer(items, more, first=paging.first, count=lambda: store.hsm_count(conn))


@router.post(
    "/hsmGroups", status_code=201, response_model=OperatorHsmGroup, response_model_exclude_none=True,
    responses={409: {"description": "The subscription has an HSM group of this ID, or a key"
                                    " version is taken"}},
)  # fmt: skip
def create_hsm_group(
    operatorUid: str, body: OperatorHsmGroupCreate, account: OperatorAccount, svc: AppServices
) -> dict[str, Any]:
    check_operator(operatorUid)
    with svc.db.write() as conn:
        sub = store.subscription_by_ref(conn, body.subscriberID)
        if sub is None:
            raise bad_request(
                f"subscriberID: no subscription {body.subscriberID}", UNKNOWN_REFERENCE
            )
        if subscription_store.hsm_deactivated(conn, sub):
            raise bad_request(f"subscriberID: {subscription_store.HSM_DEACTIVATED}")
        if store.hsm_group_exists(conn, sub, body.ID):
            raise ApiError(
                409, DUPLICATE, f"ID: subscription {body.subscriberID} has an HSM group {body.ID}"
            )
        versions = [f"{body.ID}-app-v1", body.hsmNwkKeyVersion or f"{body.ID}-nwk-v1"]
        for version in versions:
            if store.key_version_owner(conn, version) is not None:
                raise ApiError(409, DUPLICATE, f"hsmNwkKeyVersion: key version {version} exists")
        uid = store.create_hsm_group(conn, sub, body.ID, body.name, body.hsmNwkKeyVersion, now_ms())
    return _hsm_answer(svc.db.conn(), uid, operatorUid)


@router.get(
    "/hsmGroups/{hsmGroupUid}", response_model=OperatorHsmGroup, response_model_exclude_none=True
)
def get_hsm_group(
    operatorUid: str, hsmGroupUid: str, account: OperatorAccount, svc: AppServices
) -> dict[str, Any]:
    check_operator(operatorUid)
    conn = svc.db.conn()
    return _hsm_answer(conn, _hsm_uid(conn, hsmGroupUid), operatorUid)


@router.put(
    "/hsmGroups/{hsmGroupUid}", response_model=OperatorHsmGroup, response_model_exclude_none=True
)
def update_hsm_group(
    operatorUid: str,
    hsmGroupUid: str,
    body: OperatorHsmGroupUpdate,
    account: OperatorAccount,
    svc: AppServices,
) -> dict[str, Any]:
    """The name; `hsmNwkKeyVersion`: one of the group's versions becomes current again, a new
    one is generated. The ID cannot change."""
    check_operator(operatorUid)
    with svc.db.write() as conn:
        uid = _hsm_uid(conn, hsmGroupUid)
        current = _hsm_answer(conn, uid, operatorUid)
        refuse_changed(current, body.fixed_values(), null_keeps=True)
        version = body.hsmNwkKeyVersion
        if version is not None:
            owner = store.key_version_owner(conn, version)
            if owner is not None and (owner[0] != uid or owner[1] != "NWK"):
                raise ApiError(
                    409, DUPLICATE, f"hsmNwkKeyVersion: key version {version} is another key's"
                )
        store.update_hsm_group(conn, uid, body.name, version, now_ms())
    return _hsm_answer(svc.db.conn(), uid, operatorUid)
