"""The key manager's subscription and keys (Document 1 §2.7, §4.4): the KM subscription, AS
keys (RFC_3394 only for a key an HSM group generated), HSM groups, public exchange keys,
AppKey and NwkKey generation, and `/kmCustomers`. Devices: routes/km_devices.py."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...schema.common import parse_identifier
from ...schema.key_manager import (
    GeneratedKeys,
    KeyGenRequest,
    KmAsKey,
    KmAsKeyCreate,
    KmAsKeyPage,
    KmAsKeyUpdate,
    KmCustomerPage,
    KmHsmGroupPage,
    KmPublicExchangeKeys,
    KmSubscription,
)
from .. import km_crypto
from ..auth import AppServices, ClientBodies, SubscriptionReader, SubscriptionWriter
from ..errors import DUPLICATE, ApiError, not_found, refuse_changed
from ..params import DeprecatedForce
from ..store import key_manager as store
from ..store.clock import now_ms
from ._common import PageParams, list_answer
from ._km import km_subscription
from ._router import RecordedRouter

router = RecordedRouter(tags=["key manager"], dependencies=[ClientBodies])
KM = "/kmSubscriptions/{kmSubscriptionUid}"
PERMISSION_LETTERS = ("x", "a", "ra", "rc", "s1")


@router.get("/kmCustomers", response_model=KmCustomerPage, response_model_exclude_none=True)
def km_customers(
    account: SubscriptionReader, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    """The subscriptions whose keys the caller manages (its own), with its permissions;
    paged as every list is."""
    assert account.subscription_id is not None
    found = store.subscription(svc.db.conn(), account.subscription_id)
    assert found is not None
    granted = [p for p in account.permissions if p in PERMISSION_LETTERS]
    item = {
        "ID": found["ID"], "name": found["name"], "kmSubscriptionUid": account.subscription_id,
        "href": found["href"], "subscription": {"grantedPermissions": granted},
    }  # fmt: skip
    rows = [item]
    return paging.answer(paging.of(rows), lambda: len(rows))


@router.get(KM, response_model=KmSubscription, response_model_exclude_none=True)
def get_km_subscription(
    kmSubscriptionUid: str, account: SubscriptionReader, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    found = store.subscription(conn, km_subscription(conn, account, kmSubscriptionUid))
    assert found is not None
    return found


@router.get(f"{KM}/hsmGroups", response_model=KmHsmGroupPage, response_model_exclude_none=True)
def km_hsm_groups(
    kmSubscriptionUid: str, account: SubscriptionReader, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    sub = km_subscription(conn, account, kmSubscriptionUid)
    items, more = store.hsm_groups(conn, sub, paging.offset, paging.size)
    return list_answer(
        items, more, first=paging.first, count=lambda: store.hsm_groups_count(conn, sub)
    )


@router.get(
    f"{KM}/publicExchangeKey",
    response_model=KmPublicExchangeKeys,
    response_model_exclude_none=True,
)
def km_public_exchange_keys(
    kmSubscriptionUid: str,
    account: SubscriptionReader,
    svc: AppServices,
    hsmGroupID: str | None = None,
) -> dict[str, Any]:
    """The platform's exchange key and each HSM group's (with `hsmGroupID`: that group's)."""
    conn = svc.db.conn()
    sub = km_subscription(conn, account, kmSubscriptionUid)
    keys = store.public_exchange_keys(conn, sub, hsmGroupID)
    if hsmGroupID is not None and not keys:
        raise not_found(f"no public exchange key for HSM group {hsmGroupID}")
    return {"briefs": keys}


def _generate(count: int) -> dict[str, Any]:
    return {"keys": [km_crypto.new_aes_key() for _ in range(count)]}


@router.post(f"{KM}/appKeyGen", status_code=201, response_model=GeneratedKeys)
def app_key_gen(
    kmSubscriptionUid: str, body: KeyGenRequest, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    """`count` random AppKeys (AES-128), generated here and not kept."""
    km_subscription(svc.db.conn(), account, kmSubscriptionUid)
    return _generate(body.count)


@router.post(f"{KM}/nwkKeyGen", status_code=201, response_model=GeneratedKeys)
def nwk_key_gen(
    kmSubscriptionUid: str, body: KeyGenRequest, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    """`count` random NwkKeys (AES-128), generated here and not kept."""
    km_subscription(svc.db.conn(), account, kmSubscriptionUid)
    return _generate(body.count)


# --- AS keys -------------------------------------------------------------------------------------


@router.get(f"{KM}/asKeys", response_model=KmAsKeyPage, response_model_exclude_none=True)
def list_as_keys(
    kmSubscriptionUid: str, account: SubscriptionReader, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    sub = km_subscription(conn, account, kmSubscriptionUid)
    items, more = store.as_keys(conn, sub, paging.offset, paging.size)
    return list_answer(
        items, more, first=paging.first, count=lambda: store.as_keys_count(conn, sub)
    )


@router.post(
    f"{KM}/asKeys",
    status_code=201,
    response_model=KmAsKey,
    response_model_exclude_none=True,
    responses={409: {"description": "An AS key with this ID exists"}},
)
def create_as_key(
    kmSubscriptionUid: str, body: KmAsKeyCreate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        sub = km_subscription(conn, account, kmSubscriptionUid)
        if store.as_key_exists(conn, sub, body.ID):
            raise ApiError(409, DUPLICATE, f"ID: an AS key {body.ID} already exists")
        uid = store.create_as_key(conn, sub, body, now_ms())
    found = store.find_as_key(svc.db.conn(), sub, uid=uid)
    assert found is not None
    return found


def _as_key(conn: sqlite3.Connection, sub: int, as_key_uid: str) -> dict[str, Any]:
    ident = parse_identifier(as_key_uid)
    found = None
    if ident.kind == "uid":
        found = store.find_as_key(conn, sub, uid=ident.uid)
    elif ident.kind == "id":
        found = store.find_as_key(conn, sub, ref=ident.value)
    if found is None:
        raise not_found(f"AS key {as_key_uid} not found")
    return found


@router.get(f"{KM}/asKeys/{{asKeyUid}}", response_model=KmAsKey, response_model_exclude_none=True)
def get_as_key(
    kmSubscriptionUid: str, asKeyUid: str, account: SubscriptionReader, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    return _as_key(conn, km_subscription(conn, account, kmSubscriptionUid), asKeyUid)


@router.put(f"{KM}/asKeys/{{asKeyUid}}", response_model=KmAsKey, response_model_exclude_none=True)
def update_as_key(
    kmSubscriptionUid: str,
    asKeyUid: str,
    body: KmAsKeyUpdate,
    account: SubscriptionWriter,
    svc: AppServices,
    force: DeprecatedForce = None,
) -> dict[str, Any]:
    with svc.db.write() as conn:
        sub = km_subscription(conn, account, kmSubscriptionUid)
        current = _as_key(conn, sub, asKeyUid)
        refuse_changed(current, body.fixed_values())
        store.update_as_key(conn, current["UID"], current, body, now_ms())
    return _as_key(svc.db.conn(), sub, str(current["UID"]))
