"""The demo part "tenants" (issue 21): a second subscription and a second supplier, so that
keeping tenants apart can be tried and tested. Globex Water (subscriber ID 200, option hsm
DEACTIVATED) has its own devices, key manager entries, and a subscriber partner with
stations; its account is `other-subscriber`. Other Sensors Ltd is a supplier with a few
products and a service account; its account is `other-supplier`. A few dozen rows."""

from __future__ import annotations

import json
import sqlite3

from . import demo_km, demo_stations
from .accounts import ADMIN_NODE, READ_NODE, WRITE_NODE, demo_secret_hash
from .store import partners as partner_store
from .store import suppliers as supplier_store

OTHER_SUBSCRIPTION_REF = "200"
OTHER_SUBSCRIPTION_NAME = "Globex Water"
OTHER_SUPPLIER_ID = "other-supplier"
OTHER_DEVICES = 24
OTHER_STATIONS = 8
DAY_MS = 86_400_000


def _account(
    conn: sqlite3.Connection, role: str, name: str, sub: int | None, rights: list[str],
    permissions: list[str],
) -> int:  # fmt: skip
    conn.execute(
        "INSERT OR IGNORE INTO accounts (role, client_id, client_secret, name, subscription_id,"
        " permissions, rights) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (role, role, demo_secret_hash(conn, role), name, sub, json.dumps(permissions),
         json.dumps(rights)),
    )  # fmt: skip
    return int(conn.execute("SELECT id FROM accounts WHERE client_id = ?", (role,)).fetchone()[0])


def other_subscription(conn: sqlite3.Connection, *, now: int) -> int:
    """The second subscription and its administrator account (made once); its id."""
    conn.execute(
        "INSERT OR IGNORE INTO subscriptions (ref, name, hsm, show_tag_suggestions, creation_ts)"
        " VALUES (?, ?, 'DEACTIVATED', 1, ?)",
        (OTHER_SUBSCRIPTION_REF, OTHER_SUBSCRIPTION_NAME, now),
    )
    sub = int(
        conn.execute(
            "SELECT id FROM subscriptions WHERE ref = ?", (OTHER_SUBSCRIPTION_REF,)
        ).fetchone()[0]
    )
    _account(
        conn, "other-subscriber", f"{OTHER_SUBSCRIPTION_NAME} (administrator)", sub,
        [READ_NODE, WRITE_NODE, ADMIN_NODE], ["x", "a", "ra", "rc", "s1"],
    )  # fmt: skip
    return sub


def has_devices(conn: sqlite3.Connection, sub: int) -> bool:
    return (
        conn.execute("SELECT 1 FROM devices WHERE subscription_id = ?", (sub,)).fetchone()
        is not None
    )


def without_hsm(conn: sqlite3.Connection, sub: int) -> None:
    """The option hsm DEACTIVATED holds: the devices' seeding gave the subscription the
    demo's HSM groups (and their key versions, unique platform-wide, would clash)."""
    conn.execute("UPDATE devices SET hsm_group_id = NULL WHERE subscription_id = ?", (sub,))
    conn.execute("DELETE FROM hsm_groups WHERE subscription_id = ?", (sub,))


def seed_rest(conn: sqlite3.Connection, sub: int, *, seed: int, now: int) -> None:
    """After its devices: the key manager, the partner with stations, and the second
    supplier."""
    demo_km.seed_key_manager(conn, sub, seed=seed + 2, now=now)
    partner = partner_store.of_subscription(conn, sub)
    if partner is None:
        partner = partner_store.create(
            conn, "SUBSCRIBER", OTHER_SUBSCRIPTION_REF, OTHER_SUBSCRIPTION_NAME, now=now,
            subscription_id=sub,
        )  # fmt: skip
    partner_store.link_accounts(conn, partner, subscription_id=sub)
    first = int(conn.execute("SELECT coalesce(max(uid), 0) + 1 FROM stations").fetchone()[0])
    who = f"{OTHER_SUBSCRIPTION_NAME} (administrator)"
    demo_stations.seed_stations(conn, partner, OTHER_STATIONS, seed=seed + 3, now=now, who=who)
    demo_stations.seed_station_alarms(conn, first, seed=seed + 3, now=now)
    _other_supplier(conn, now=now)


def _other_supplier(conn: sqlite3.Connection, *, now: int) -> None:
    if conn.execute("SELECT 1 FROM suppliers WHERE id = ?", (OTHER_SUPPLIER_ID,)).fetchone():
        return
    sup = supplier_store.create_supplier(
        conn, OTHER_SUPPLIER_ID, "Other Sensors Ltd", now=now - 90 * DAY_MS,
        email="sales@other-sensors.example", description="Trackers for logistics",
        validation_state="VALIDATED",
    )  # fmt: skip
    account = _account(conn, "other-supplier", "Other Sensors Ltd", None, ["SUPPLIER::ADMIN"], [])
    supplier_store.link_account(conn, account, sup)
    group = supplier_store.create_group(conn, sup, "ops", "Operations", "Accounts of operations")
    supplier_store.create_service_account(
        conn, sup, OTHER_SUPPLIER_ID, "Warehouse robot", "Stock updates", group,
        now=now - 10 * DAY_MS,
    )  # fmt: skip
    for index in range(1, 4):
        supplier_store.create_product(
            conn, sup,
            {"name": f"Pallet tracker PT-{index:02d}", "SKU": f"OS-PT-{index:03d}",
             "validationState": "VALIDATED", "upfrontPrice": 99.0 + index,
             "stock": 10 * index, "status": "IN_STOCK"},
            {}, now=now - (60 - index) * DAY_MS, vendor="abeeway",
        )  # fmt: skip
