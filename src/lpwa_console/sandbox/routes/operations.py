"""The operator's operations (Document 2 §4.1), under `/admins/operators/{operatorUid}`
(`mine`, the UID 1 or `id:` + the operator's ID): HSM groups, the provisioning queue
(`subSystem` filter), the command queue, SIM cards and devices (`imei` exact,
`lorawanDebug`). Lists page by `pageIndex`/`pageSize` with `count` on the first page; the
queues sort by `creationTimestamp` (`sort=creationTimestamp,asc|desc`, newest first by
default)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query
from fastapi.responses import Response

from ...schema import operations as wire
from ...schema.common import parse_identifier
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
from ..store.sql import Where
from ._common import PageParams, Paging, PathScope, list_answer, parse_sort, wire_json
from ._partners import check_operator
from ._router import RecordedRouter

PREFIX = "/admins/operators/{operatorUid}"
router = RecordedRouter(prefix=PREFIX, tags=["operator"], dependencies=[ClientBodies])
Code = Annotated[str | None, Query(max_length=64, pattern=r"^[A-Z0-9_]+$")]


class OperatorPath(PathScope):
    """`{operatorUid}`: `conn()` and `write()` check it first (404 unless it names the
    sandbox's operator)."""

    @property
    def base(self) -> str:
        """The operator's path as the client wrote it, for the items' `href`."""
        return f"/admins/operators/{self.text}"

    def conn(self) -> sqlite3.Connection:
        check_operator(self.text)
        return self.svc.db.conn()

    def write(self) -> AbstractContextManager[sqlite3.Connection]:
        check_operator(self.text)
        return self.svc.db.write()


async def operator_path(
    operatorUid: str, account: OperatorAccount, svc: AppServices
) -> OperatorPath:
    return OperatorPath(operatorUid, svc)


OfOperator = Annotated[OperatorPath, Depends(operator_path)]
Sort = Annotated[str | None, Query(max_length=64)]


def _event_uid(text: str, what: str) -> int:
    ident = parse_identifier(text)
    if ident.kind != "uid":
        raise not_found(f"{what} {text} not found")
    return ident.uid


@dataclass(frozen=True)
class Queue:
    """The provisioning or the command queue: a page newest first unless
    `sort=creationTimestamp,asc`, an item by its event UID."""

    what: str
    page: Callable[..., tuple[list[dict[str, Any]], bool]]
    count: Callable[[sqlite3.Connection, Where], int]
    item: Callable[[sqlite3.Connection, int, str], dict[str, Any] | None]

    def answer(
        self, op: OperatorPath, conn: sqlite3.Connection, where: Where, paging: Paging,
        sort: str | None,
    ) -> Response:  # fmt: skip
        descending = parse_sort(sort, wire.QUEUE_SORT_CRITERIA, ("creationTimestamp", True))[1]
        items, more = self.page(
            conn, where, descending=descending, offset=paging.offset, limit=paging.size,
            base=op.base,
        )  # fmt: skip
        count = lambda: self.count(conn, where)  # noqa: E731
        return wire_json(list_answer(items, more, first=paging.first, count=count))

    def find(self, op: OperatorPath, event_uid: str) -> dict[str, Any]:
        item = self.item(op.conn(), _event_uid(event_uid, self.what), op.base)
        if item is None:
            raise not_found(f"{self.what} {event_uid} not found")
        return item


PROVISIONING = Queue("provisioning item", store.prov_page, store.prov_count, store.prov_item)
COMMANDS = Queue("command", store.cmd_page, store.cmd_count, store.cmd_item)


# --- provisioning queue ---------------------------------------------------------------------


@router.reads("/provqueues", wire.ProvisioningQueuePage)
def provisioning_queue(
    op: OfOperator, paging: PageParams, subSystem: wire.SubSystem | None = None,
    type: wire.ProvType | None = None, sort: Sort = None,
) -> Any:  # fmt: skip
    """Newest first unless `sort=creationTimestamp,asc`."""
    conn = op.conn()
    return PROVISIONING.answer(op, conn, store.prov_where(subSystem, type), paging, sort)


@router.reads("/provqueues/{eventUid}", wire.ProvisioningQueueItem)
def provisioning_item(op: OfOperator, eventUid: str) -> dict[str, Any]:
    return PROVISIONING.find(op, eventUid)


# --- command queue ----------------------------------------------------------------------------


@router.reads("/cmdqueues", wire.CommandQueuePage)
def command_queue(
    op: OfOperator, paging: PageParams, type: Code = None, state: Code = None,
    lrrID: Annotated[str | None, Query(max_length=8)] = None, sort: Sort = None,
) -> Any:  # fmt: skip
    """Every base station administration command, newest first unless
    `sort=creationTimestamp,asc`; `type` (lastCmdType), `state` (lastCmdStatus) and `lrrID`
    filter it."""
    conn = op.conn()
    parse_sort(sort, wire.QUEUE_SORT_CRITERIA, ("creationTimestamp", True))  # 400 before lrrID
    lrr = None
    if lrrID:
        try:
            lrr = normalise_lrr_id(lrrID)
        except ValueError as exc:
            raise bad_request(f"lrrID: {exc}") from None
    return COMMANDS.answer(op, conn, store.cmd_where(type, state, lrr), paging, sort)


@router.reads("/cmdqueues/{eventUid}", wire.CommandQueueItem)
def command_item(op: OfOperator, eventUid: str) -> dict[str, Any]:
    return COMMANDS.find(op, eventUid)


# --- SIM cards and devices ------------------------------------------------------------------


@router.reads("/sims", wire.SimCardPage)
def sim_cards(
    op: OfOperator, paging: PageParams,
    imsi: Annotated[str | None, Query(max_length=15, pattern=r"^[0-9]+$")] = None,
) -> dict[str, Any]:  # fmt: skip
    """The SIM cards of the cellular devices, by IMSI; `imsi` is a prefix."""
    conn = op.conn()
    where = store.sim_where(imsi)
    items, more = store.sim_page(conn, where, offset=paging.offset, limit=paging.size)
    return list_answer(items, more, first=paging.first, count=lambda: store.sim_count(conn, where))


@router.reads("/devices", wire.OperatorDevicePage)
def devices(
    op: OfOperator, paging: PageParams, imei: Annotated[str | None, Query(max_length=15)] = None,
    lorawanDebug: bool | None = None, devEUI: Annotated[str | None, Query(max_length=16)] = None,
) -> Any:  # fmt: skip
    """Every subscription's devices by UID. `imei`: 14 or 15 digits, matched on the first 14
    (what the items carry); `lorawanDebug=true`: only devices in LoRaWAN debugging;
    `devEUI` (ours): exact."""
    conn = op.conn()
    if imei and not (imei.isdigit() and 14 <= len(imei) <= 15):
        raise bad_request("imei: an IMEI is 14 or 15 digits")
    if devEUI and not (len(devEUI) == 16 and all(c in "0123456789abcdefABCDEF" for c in devEUI)):
        raise bad_request("devEUI: a DevEUI is 16 hexadecimal digits")
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


def _hsm_answer(conn: Any, uid: int, op: OperatorPath) -> dict[str, Any]:
    item = store.hsm_group(conn, uid, op.base)
    if item is None:
        raise not_found(f"HSM group {uid} not found")
    return item


@router.reads("/hsmGroups", wire.OperatorHsmGroupPage)
def hsm_groups(op: OfOperator, paging: PageParams) -> dict[str, Any]:
    conn = op.conn()
    items, more = store.hsm_page(conn, offset=paging.offset, limit=paging.size, base=op.base)
    return list_answer(items, more, first=paging.first, count=lambda: store.hsm_count(conn))


@router.creates(
    "/hsmGroups", wire.OperatorHsmGroup,
    responses={409: {"description": "The subscription has an HSM group of this ID, or a key"
                                    " version is taken"}},
)  # fmt: skip
def create_hsm_group(op: OfOperator, body: wire.OperatorHsmGroupCreate) -> dict[str, Any]:
    with op.write() as conn:
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
    return _hsm_answer(op.conn(), uid, op)


@router.reads("/hsmGroups/{hsmGroupUid}", wire.OperatorHsmGroup)
def get_hsm_group(op: OfOperator, hsmGroupUid: str) -> dict[str, Any]:
    conn = op.conn()
    return _hsm_answer(conn, _hsm_uid(conn, hsmGroupUid), op)


@router.replaces("/hsmGroups/{hsmGroupUid}", wire.OperatorHsmGroup)
def update_hsm_group(
    op: OfOperator, hsmGroupUid: str, body: wire.OperatorHsmGroupUpdate
) -> dict[str, Any]:
    """The name; `hsmNwkKeyVersion`: one of the group's versions becomes current again, a new
    one is generated. The ID cannot change."""
    with op.write() as conn:
        uid = _hsm_uid(conn, hsmGroupUid)
        current = _hsm_answer(conn, uid, op)
        refuse_changed(current, body.fixed_values(), null_keeps=True)
        version = body.hsmNwkKeyVersion
        if version is not None:
            owner = store.key_version_owner(conn, version)
            if owner is not None and (owner[0] != uid or owner[1] != "NWK"):
                raise ApiError(
                    409, DUPLICATE, f"hsmNwkKeyVersion: key version {version} is another key's"
                )
        store.update_hsm_group(conn, uid, body.name, version, now_ms())
    return _hsm_answer(op.conn(), uid, op)
