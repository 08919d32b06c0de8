"""The key manager's subscription and keys (Document 1 §2.7, §4.4): the KM subscription, AS
keys (RFC_3394 only for a key an HSM group generated), HSM groups, public exchange keys,
AppKey and NwkKey generation, and `/kmCustomers`. Devices: routes/km_devices.py."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...schema import key_manager as wire
from ...schema.common import parse_identifier
from .. import km_crypto
from ..accounts import Account
from ..auth import AppServices, ClientBodies, SubscriptionReader, SubscriptionWriter
from ..errors import DUPLICATE, ApiError, not_found, refuse_changed
from ..params import DeprecatedForce
from ..store import key_manager as store
from ..store.clock import now_ms
from ._common import PageParams
from ._km import KmPath, OfKm
from ._router import RecordedRouter

router = RecordedRouter(tags=["key manager"], dependencies=[ClientBodies])
KM = "/kmSubscriptions/{kmSubscriptionUid}"
PERMISSION_LETTERS = ("x", "a", "ra", "rc", "s1")


@router.reads("/kmCustomers", wire.KmCustomerPage)
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
    return paging.answer(paging.of_rows(rows), lambda: len(rows))


@router.reads(KM, wire.KmSubscription)
def get_km_subscription(km: OfKm, account: SubscriptionReader) -> dict[str, Any]:
    conn = km.conn()
    found = store.subscription(conn, km.uid(conn, account))
    assert found is not None
    return found


@router.reads(f"{KM}/hsmGroups", wire.KmHsmGroupPage)
def km_hsm_groups(km: OfKm, account: SubscriptionReader, paging: PageParams) -> dict[str, Any]:
    conn = km.conn()
    return paging.of(store.hsm_groups, store.hsm_groups_count, conn, km.uid(conn, account))


@router.reads(f"{KM}/publicExchangeKey", wire.KmPublicExchangeKeys)
def km_public_exchange_keys(
    km: OfKm,
    account: SubscriptionReader,
    hsmGroupID: str | None = None,
) -> dict[str, Any]:
    """The platform's exchange key and each HSM group's (with `hsmGroupID`: that group's)."""
    conn = km.conn()
    sub = km.uid(conn, account)
    keys = store.public_exchange_keys(conn, sub, hsmGroupID)
    if hsmGroupID is not None and not keys:
        raise not_found(f"no public exchange key for HSM group {hsmGroupID}")
    return {"briefs": keys}


def _generate(km: KmPath, account: Account, count: int) -> dict[str, Any]:
    km.uid(km.conn(), account)
    return {"keys": [km_crypto.new_aes_key() for _ in range(count)]}


@router.post(f"{KM}/appKeyGen", status_code=201, response_model=wire.GeneratedKeys)
def app_key_gen(km: OfKm, body: wire.KeyGenRequest, account: SubscriptionWriter) -> dict[str, Any]:
    """`count` random AppKeys (AES-128), generated here and not kept."""
    return _generate(km, account, body.count)


@router.post(f"{KM}/nwkKeyGen", status_code=201, response_model=wire.GeneratedKeys)
def nwk_key_gen(km: OfKm, body: wire.KeyGenRequest, account: SubscriptionWriter) -> dict[str, Any]:
    """`count` random NwkKeys (AES-128), generated here and not kept."""
    return _generate(km, account, body.count)


# --- AS keys -------------------------------------------------------------------------------------


@router.reads(f"{KM}/asKeys", wire.KmAsKeyPage)
def list_as_keys(km: OfKm, account: SubscriptionReader, paging: PageParams) -> dict[str, Any]:
    conn = km.conn()
    return paging.of(store.as_keys, store.as_keys_count, conn, km.uid(conn, account))


@router.creates(
    f"{KM}/asKeys", wire.KmAsKey, responses={409: {"description": "An AS key with this ID exists"}}
)
def create_as_key(
    km: OfKm, body: wire.KmAsKeyCreate, account: SubscriptionWriter
) -> dict[str, Any]:
    with km.write() as conn:
        sub = km.uid(conn, account)
        if store.as_key_exists(conn, sub, body.ID):
            raise ApiError(409, DUPLICATE, f"ID: an AS key {body.ID} already exists")
        uid = store.create_as_key(conn, sub, body, now_ms())
    found = store.find_as_key(km.conn(), sub, uid=uid)
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


@router.reads(f"{KM}/asKeys/{{asKeyUid}}", wire.KmAsKey)
def get_as_key(km: OfKm, asKeyUid: str, account: SubscriptionReader) -> dict[str, Any]:
    conn = km.conn()
    return _as_key(conn, km.uid(conn, account), asKeyUid)


@router.replaces(f"{KM}/asKeys/{{asKeyUid}}", wire.KmAsKey)
def update_as_key(
    km: OfKm,
    asKeyUid: str,
    body: wire.KmAsKeyUpdate,
    account: SubscriptionWriter,
    force: DeprecatedForce = None,
) -> dict[str, Any]:
    with km.write() as conn:
        sub = km.uid(conn, account)
        current = _as_key(conn, sub, asKeyUid)
        refuse_changed(current, body.fixed_values())
        store.update_as_key(conn, current["UID"], current, body, now_ms())
    return _as_key(km.conn(), sub, str(current["UID"]))
