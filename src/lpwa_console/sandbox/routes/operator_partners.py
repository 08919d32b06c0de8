"""The operator's view of network partners (Document 2 §4.1), under
`/admins/operators/{operatorUid}`: the partners with their stations used of granted, a new
partner, one partner (PUT: the grant and the name), a partner's station in the operator
view (without alarm103settings, diskConfig, gpsReceiverConfig, lrcConfig and powerConfig),
and the partner's station credit transactions (one per station created, one per grant
change).

The sandbox has one operator: `mine`, its UID 1 or `id:` + OPERATOR_ID.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends

from ...schema.partners import (
    OperatorPartnerUpdate,
    Partner,
    PartnerCreate,
    PartnerPage,
    StationCreditTransactions,
)
from ...schema.stations import BaseStation, BaseStationUpdate
from ..accounts import Account
from ..auth import AppServices, ClientBodies, OperatorAccount
from ..errors import DUPLICATE, STATION_ANY_CASE, ApiError, bad_request, refuse_changed
from ..store import partners as store
from ..store import stations as station_store
from ..store.clock import now_ms
from ._common import PageParams, list_answer
from ._partners import PartnerScope, check_operator, resolve_partner, visible_station_uid
from ._router import RecordedRouter

router = RecordedRouter(
    prefix="/admins/operators/{operatorUid}", tags=["operator"], dependencies=[ClientBodies]
)
# Deleted from a station in the operator view (Document 2 §2.2).
HIDDEN_FROM_OPERATOR = ("alarm103settings", "diskConfig", "gpsReceiverConfig", "lrcConfig",
                        "powerConfig")  # fmt: skip


def _partner(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    return store.answer(conn, uid)


@dataclass(frozen=True)
class PartnerPath:
    """`/partners/{networkPartnerUid}` as the operator names it, resolved by `scope` inside
    the route's read or write (the operator is checked there, after the body's validation)."""

    operator_uid: str
    partner: str
    account: Account

    def scope(self, conn: sqlite3.Connection) -> PartnerScope:
        check_operator(self.operator_uid)
        uid = resolve_partner(conn, self.account, self.partner)
        return PartnerScope(uid, store.subscription_of(conn, uid), self.account)


@dataclass(frozen=True)
class StationPath(PartnerPath):
    """`.../stations/{baseStationUid}` under a `PartnerPath`."""

    station: str


def partner_path(operatorUid: str, networkPartnerUid: str, account: OperatorAccount) -> PartnerPath:
    return PartnerPath(operatorUid, networkPartnerUid, account)


def station_path(
    operatorUid: str, networkPartnerUid: str, baseStationUid: str, account: OperatorAccount
) -> StationPath:
    return StationPath(operatorUid, networkPartnerUid, account, baseStationUid)


# The path parameters keep their order in the OpenAPI document (operator, partner, station).
OperatorPartner = Annotated[PartnerPath, Depends(partner_path)]
OperatorStation = Annotated[StationPath, Depends(station_path)]


@router.reads("/partners", PartnerPage)
def list_partners(
    operatorUid: str, account: OperatorAccount, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    check_operator(operatorUid)
    conn = svc.db.conn()
    uids, more = store.uids(conn, paging.offset, paging.size)
    items = [_partner(conn, uid) for uid in uids]
    return list_answer(items, more, first=paging.first, count=lambda: store.count(conn))


@router.creates("/partners", Partner,
                responses={409: {"description": "A partner with this ID exists, or the"
                                                " subscription is one already"}})  # fmt: skip
def create_partner(
    operatorUid: str, body: PartnerCreate, account: OperatorAccount, svc: AppServices
) -> dict[str, Any]:
    """A subscriber partner whose ID is a subscription's runs that subscription's stations
    (its accounts act for it)."""
    check_operator(operatorUid)
    with svc.db.write() as conn:
        if store.find(conn, body.type, body.ID) is not None:
            raise ApiError(409, DUPLICATE, f"ID: a {body.type.lower()} partner {body.ID} exists")
        sub = store.subscription_by_ref(conn, body.ID) if body.type == "SUBSCRIBER" else None
        if sub is not None and store.of_subscription(conn, sub) is not None:
            raise ApiError(409, DUPLICATE, f"ID: subscription {body.ID} is a partner already")
        now = now_ms()
        uid = store.create(
            conn, body.type, body.ID, body.name, now=now,
            granted=body.totalBaseStationsGranted, subscription_id=sub,
        )  # fmt: skip
        if sub is not None:
            store.link_accounts(conn, uid, subscription_id=sub)
        if body.totalBaseStationsGranted is not None:
            store.record_credit(
                conn, uid, "GRANT_CHANGED", body.totalBaseStationsGranted, now=now,
                who=account.name,
            )  # fmt: skip
    return _partner(svc.db.conn(), uid)


@router.reads("/partners/{networkPartnerUid}", Partner)
def get_partner(path: OperatorPartner, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    return _partner(conn, path.scope(conn).uid)


@router.replaces("/partners/{networkPartnerUid}", Partner)
def update_partner(
    path: OperatorPartner, body: OperatorPartnerUpdate, svc: AppServices
) -> dict[str, Any]:
    """The name and `totalBaseStationsGranted` (null: no limit; below the stations the
    partner has is allowed, it then creates none until it is under)."""
    with svc.db.write() as conn:
        uid = path.scope(conn).uid
        row = store.get(conn, uid)
        assert row is not None
        values: dict[str, Any] = {}
        if "name" in body.model_fields_set and body.name:
            values["name"] = body.name
        if "totalBaseStationsGranted" in body.model_fields_set:
            values["total_granted"] = body.totalBaseStationsGranted
        store.update(conn, uid, values, now=now_ms(), who=path.account.name)
        if "total_granted" in values and values["total_granted"] != row["total_granted"]:
            change = (values["total_granted"] or 0) - (row["total_granted"] or 0)
            store.record_credit(
                conn, uid, "GRANT_CHANGED", change, now=now_ms(), who=path.account.name
            )
    return _partner(svc.db.conn(), uid)


def _operator_view(conn: sqlite3.Connection, uid: int, partner_uid: int) -> dict[str, Any]:
    """The station as the operator reads it: its `href` is the partner interface's path
    with the partner's UID (the operator can follow it; `mine` names no partner for it)."""
    base = station_store.station_base(partner_uid, own=False)
    station = station_store.briefs(conn, [uid], full=True, base=base)[0] | {"now": now_ms()}
    for name in HIDDEN_FROM_OPERATOR:
        station.pop(name, None)
    return station


@router.reads("/partners/{networkPartnerUid}/stations/{baseStationUid}", BaseStation)
def get_partner_station(path: OperatorStation, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    scope = path.scope(conn)
    return _operator_view(conn, visible_station_uid(conn, scope, path.station), scope.uid)


@router.replaces("/partners/{networkPartnerUid}/stations/{baseStationUid}", BaseStation)
def update_partner_station(
    path: OperatorStation, body: BaseStationUpdate, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        scope = path.scope(conn)
        uid = visible_station_uid(conn, scope, path.station)
        given = body.model_fields_set
        pairs = [(d.group.name, d.name) for d in body.domains or []] if "domains" in given else None
        fixed = body.fixed_values()
        current = station_store.briefs(conn, [uid], full=True)[0]
        refuse_changed(current, fixed, any_case=STATION_ANY_CASE)
        if pairs and scope.subscription_id is None:
            raise bad_request("domains: only a subscriber partner's stations have domains")
        station_store.update(
            conn, uid, body, now=now_ms(), who=path.account.name, domains=pairs,
            subscription_id=scope.subscription_id,
        )  # fmt: skip
    return _operator_view(svc.db.conn(), uid, scope.uid)


@router.reads("/partners/{networkPartnerUid}/stationCreditTransactions", StationCreditTransactions)
def credit_transactions(
    path: OperatorPartner, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    """Newest first."""
    conn = svc.db.conn()
    uid = path.scope(conn).uid
    items, more = store.credits(conn, uid, paging.offset, paging.size)
    return list_answer(items, more, first=paging.first, count=lambda: store.credit_count(conn, uid))
