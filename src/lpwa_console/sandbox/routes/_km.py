"""What the key manager's route modules share: the KM subscription behind a
`kmSubscriptionUid` (UID, `id:sub:` + subscriber ID, `id:` + subscriber ID, or `mine`) and the
KM device behind a device identifier (UID or `e` + upper-case EUI)."""

from __future__ import annotations

import sqlite3
from typing import Annotated

from fastapi import Depends

from ...schema.common import parse_identifier
from ...schema.domains import DomainRestrictions
from ..accounts import Account
from ..auth import AppServices
from ..errors import not_found
from ..store import key_manager as key_store
from ..store import km_devices as device_store
from ._common import PathScope


def km_subscription(conn: sqlite3.Connection, account: Account, km_subscription_uid: str) -> int:
    """The caller's subscription when the identifier names it; 404 otherwise (another
    subscription's key manager is not visible)."""
    own = account.subscription_id
    assert own is not None
    ident = parse_identifier(km_subscription_uid)
    found: int | None = None
    if ident.kind == "mine":
        found = own
    elif ident.kind == "uid":
        found = ident.uid
    elif ident.kind in ("sub", "id"):
        found = key_store.subscription_uid_of_ref(conn, ident.value)
    if found != own:
        raise not_found(f"key manager subscription {km_subscription_uid} not found")
    return own


def km_device_uid(
    conn: sqlite3.Connection, sub: int, device: str, restrictions: DomainRestrictions | None
) -> int:
    """The UID behind a device identifier (UID, or `e` + EUI in upper case); 404 otherwise,
    and when its EUI is a network device outside the caller's domains
    (`km_devices.reach_sql`)."""
    ident = parse_identifier(device, allow_eui=True)
    uid = None
    if ident.kind == "uid":
        uid = device_store.find_uid(conn, sub, uid=ident.uid)
    elif ident.kind == "eui" and len(ident.value) == 16:
        uid = device_store.find_uid(conn, sub, eui=ident.value)
    hidden = (
        uid is not None
        and restrictions is not None
        and not device_store.within_reach(conn, sub, device_store.eui_of(conn, uid), restrictions)
    )
    if uid is None or hidden:
        raise not_found(f"device {device} not found")
    return uid


def check_km_eui(
    conn: sqlite3.Connection, sub: int, eui: str, restrictions: DomainRestrictions | None
) -> None:
    """404 for an EUI (to create or claim) whose network device is outside the caller's
    domains: the same answer as for a KM device that does not exist."""
    if not device_store.within_reach(conn, sub, eui, restrictions):
        raise not_found(f"device e{eui.upper()} not found")


class KmPath(PathScope):
    """`{kmSubscriptionUid}`: `uid(conn, account)` is the caller's subscription when it names
    it (`km_subscription`)."""

    def uid(self, conn: sqlite3.Connection, account: Account) -> int:
        return km_subscription(conn, account, self.text)


async def km_path(kmSubscriptionUid: str, svc: AppServices) -> KmPath:
    return KmPath(kmSubscriptionUid, svc)


OfKm = Annotated[KmPath, Depends(km_path)]
