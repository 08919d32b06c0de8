"""The operator's operations (Document 2 §4.1): the provisioning queue (`prov_queue`, filled
by the triggers of db.py step `_V_OPERATIONS` for devices, stations and HSM groups, and by
`enqueue` for profiles), the command queue (the stations' `station_commands`), SIM cards and
the operator's device list (every subscription's devices), and HSM groups platform-wide.

Queue items are read newest first by default; every list is one indexed page (LIMIT size + 1)
and a count only on a full first page.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from ...schema.operations import prov_action_allowed
from .. import km_crypto
from . import clock
from . import key_manager as km_store
from .sql import Where, marks, prefix, select_page
from .sql import count as count_rows

# The subsystem takes an item this long after it is queued (the triggers draw 1.5-4.5 s).
TAKE_MS = 2_000


def _order(descending: bool) -> str:
    return "id DESC" if descending else "id"


# --- provisioning queue ---------------------------------------------------------------------


def enqueue(
    conn: sqlite3.Connection,
    type_: str,
    action: str,
    entity_id: str,
    *,
    sub_system: str = "LRC",
    entity_uid: int | None = None,
    subscription_id: int | None = None,
    partner_uid: int | None = None,
    now_ms: int | None = None,
) -> int:
    """Queue one provisioning request (for what no trigger sees: device and base station
    profiles, RF regions, routing profiles ...; a catalog import calls it once per profile,
    inside its own transaction). Returns the item's UID."""
    if not prov_action_allowed(type_, action):
        raise ValueError(f"{type_} items are not {action}")
    now = now_ms if now_ms is not None else clock.now_ms()
    cur = conn.execute(
        "INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id,"
        " subscription_id, partner_uid, created, done_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (type_, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, now,
         now + TAKE_MS),
    )  # fmt: skip
    return int(cur.lastrowid or 0)


def prov_where(sub_system: str | None, type_: str | None) -> Where:
    w = Where()
    if sub_system:
        w.add("q.sub_system = ?", sub_system)
    if type_:
        w.add("q.type = ?", type_)
    return w


def prov_page(
    conn: sqlite3.Connection, where: Where, *, descending: bool, offset: int, limit: int,
    base: str, now_ms: int | None = None,
) -> tuple[list[dict[str, Any]], bool]:  # fmt: skip
    page = select_page(
        conn,
        "SELECT q.*, s.ref AS sub_ref, p.ref AS partner_ref FROM prov_queue q"
        " LEFT JOIN subscriptions s ON s.id = q.subscription_id"
        " LEFT JOIN partners p ON p.uid = q.partner_uid",
        where,
        "q." + _order(descending),
        offset=offset,
        limit=limit,
    )
    now = now_ms if now_ms is not None else clock.now_ms()
    return [_prov_item(r, base, now) for r in page.rows], page.more


def prov_count(conn: sqlite3.Connection, where: Where) -> int:
    return count_rows(conn, "prov_queue q", where)


def prov_item(
    conn: sqlite3.Connection, uid: int, base: str, now_ms: int | None = None
) -> dict[str, Any] | None:
    w = Where()
    w.add("q.id = ?", uid)
    items, _ = prov_page(conn, w, descending=True, offset=0, limit=1, base=base, now_ms=now_ms)
    return items[0] if items else None


def _prov_item(row: sqlite3.Row, base: str, now: int) -> dict[str, Any]:
    done = row["done_at"] <= now
    item: dict[str, Any] = {
        "UID": str(row["id"]),
        "type": row["type"],
        "action": row["action"],
        "subSystem": row["sub_system"],
        "state": "DONE" if done else "PENDING",
        "creationTimestamp": row["created"],
        "lastUpdateTimestamp": row["done_at"] if done else row["created"],
        "entityID": row["entity_id"],
        "entityUID": None if row["entity_uid"] is None else str(row["entity_uid"]),
        "subscriberID": row["sub_ref"],
        "partnerID": row["partner_ref"],
        "href": f"{base}/provqueues/{row['id']}",
    }
    return {k: v for k, v in item.items() if v is not None}


# --- command queue ----------------------------------------------------------------------------


def cmd_where(type_: str | None, state: str | None, lrr_id: str | None) -> Where:
    w = Where()
    if type_:
        w.add("c.cmd_type = ?", type_)
    if state:
        w.add("c.status = ?", state)
    if lrr_id:
        w.add("c.bs_uid = (SELECT uid FROM stations WHERE lrr_id = ?)", lrr_id)
    return w


def cmd_page(
    conn: sqlite3.Connection, where: Where, *, descending: bool, offset: int, limit: int,
    base: str,
) -> tuple[list[dict[str, Any]], bool]:  # fmt: skip
    page = select_page(
        conn,
        "SELECT c.*, s.lrr_id, p.ref AS partner_ref FROM station_commands c"
        " JOIN stations s ON s.uid = c.bs_uid LEFT JOIN partners p ON p.uid = s.partner_uid",
        where,
        "c." + _order(descending),
        offset=offset,
        limit=limit,
    )
    return [_cmd_item(r, base) for r in page.rows], page.more


def cmd_count(conn: sqlite3.Connection, where: Where) -> int:
    return count_rows(conn, "station_commands c", where)


def cmd_item(conn: sqlite3.Connection, uid: int, base: str) -> dict[str, Any] | None:
    w = Where()
    w.add("c.id = ?", uid)
    items, _ = cmd_page(conn, w, descending=True, offset=0, limit=1, base=base)
    return items[0] if items else None


def _cmd_item(row: sqlite3.Row, base: str) -> dict[str, Any]:
    item: dict[str, Any] = {
        "UID": str(row["id"]),
        "type": row["cmd_type"],
        "command": row["command"],
        "state": row["status"],
        "creationTimestamp": row["requested"],
        "startTimestamp": row["started"],
        "endTimestamp": row["completed"],
        "lrrID": row["lrr_id"],
        "baseStationUID": str(row["bs_uid"]),
        "partnerID": row["partner_ref"],
        "data": row["data"],
        "completionData": row["completion_data"],
        "who": row["who"],
        "href": f"{base}/cmdqueues/{row['id']}",
    }
    return {k: v for k, v in item.items() if v is not None}


# --- SIM cards and devices ------------------------------------------------------------------


def sim_where(imsi: str | None) -> Where:
    w = Where()
    w.add("d.imsi IS NOT NULL")
    if imsi:
        w.add_test(prefix("d.imsi", imsi))
    return w


def sim_page(
    conn: sqlite3.Connection, where: Where, *, offset: int, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    page = select_page(
        conn,
        "SELECT d.uid, d.imsi, d.iccid, d.eui, d.last_imei, d.name, d.creation_date,"
        " s.ref AS sub_ref FROM devices d INDEXED BY ix_devices_imsi_any"
        " JOIN subscriptions s ON s.id = d.subscription_id",
        where,
        "d.imsi, d.uid",
        offset=offset,
        limit=limit,
    )
    items = []
    for r in page.rows:
        item = {
            "IMSI": r["imsi"],
            "ICCID": r["iccid"],
            "IMEI": r["last_imei"],
            "deviceUID": str(r["uid"]),
            "deviceName": r["name"],
            "subscriberID": r["sub_ref"],
            "creationTimestamp": r["creation_date"],
        }
        items.append({k: v for k, v in item.items() if v is not None})
    return items, page.more


def sim_count(conn: sqlite3.Connection, where: Where) -> int:
    return count_rows(conn, "devices d INDEXED BY ix_devices_imsi_any", where)


def device_where(imei: str | None, debug: bool | None, dev_eui: str | None) -> Where:
    w = Where()
    if imei:
        # The list carries the first 14 digits (§2.2): a 15th given is the check digit.
        w.add("d.connectivity = 'CELLULAR'")
        w.add_test(prefix("d.last_imei", imei[:14]))
    if debug is True:
        w.add("d.lorawan_debug = 1")
    elif debug is False:
        w.add("d.lorawan_debug = 0")
    if dev_eui:
        w.add("d.eui = ?", dev_eui.upper())
    return w


def device_page(
    conn: sqlite3.Connection, where: Where, *, offset: int, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    page = select_page(
        conn,
        "SELECT d.uid, d.eui, d.name, d.connectivity, d.nw_address, d.last_imei,"
        " d.lorawan_debug, d.lorawan_debug_since, s.ref AS sub_ref FROM devices d"
        " JOIN subscriptions s ON s.id = d.subscription_id",
        where,
        "d.uid",
        offset=offset,
        limit=limit,
    )
    return [_device(r) for r in page.rows], page.more


def device_count(conn: sqlite3.Connection, where: Where) -> int:
    return count_rows(conn, "devices d", where)


def _iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def _device(r: sqlite3.Row) -> dict[str, Any]:
    cellular = r["connectivity"] == "CELLULAR"
    imei = r["last_imei"] or (r["eui"] if cellular else None)
    item: dict[str, Any] = {
        "UID": str(r["uid"]),
        "devEUI": None if cellular else r["eui"],
        "imei": imei[:14] if cellular and imei else None,
        "connectivity": r["connectivity"],
        "devAddr": r["nw_address"],
        "name": r["name"],
        "subscriberID": r["sub_ref"],
        "lorawanDebug": bool(r["lorawan_debug"]),
        "lorawanDebugSince": _iso(r["lorawan_debug_since"]),
    }
    return {k: v for k, v in item.items() if v is not None}


def set_lorawan_debug(conn: sqlite3.Connection, uids: list[int], on: bool, now_ms: int) -> int:
    """Turn LoRaWAN debugging on or off for these LoRaWAN devices; returns how many changed."""
    cur = conn.execute(
        "UPDATE devices SET lorawan_debug = ?, lorawan_debug_since = ?"
        f" WHERE uid IN ({marks(uids)}) AND connectivity = 'LORAWAN' AND lorawan_debug IS NOT ?",
        [int(on), now_ms, *uids, int(on)],
    )
    return cur.rowcount


# --- HSM groups -------------------------------------------------------------------------------

_HSM_SELECT = (
    "SELECT g.id, g.ref, g.name, g.exchange_key_version, s.ref AS sub_ref,"
    " (SELECT version FROM hsm_keys k WHERE k.hsm_group_id = g.id AND kind = 'APP'"
    "  ORDER BY created DESC, version DESC LIMIT 1) AS app_version,"
    " (SELECT version FROM hsm_keys k WHERE k.hsm_group_id = g.id AND kind = 'NWK'"
    "  ORDER BY created DESC, version DESC LIMIT 1) AS nwk_version"
    " FROM hsm_groups g JOIN subscriptions s ON s.id = g.subscription_id"
)


def hsm_page(
    conn: sqlite3.Connection, *, offset: int, limit: int, base: str
) -> tuple[list[dict[str, Any]], bool]:
    page = select_page(conn, _HSM_SELECT, Where(), "g.id", offset=offset, limit=limit)
    return [_hsm(r, base) for r in page.rows], page.more


def hsm_count(conn: sqlite3.Connection) -> int:
    return count_rows(conn, "hsm_groups g", Where())


def hsm_group(conn: sqlite3.Connection, uid: int, base: str) -> dict[str, Any] | None:
    w = Where()
    w.add("g.id = ?", uid)
    page = select_page(conn, _HSM_SELECT, w, "g.id", offset=0, limit=1)
    return _hsm(page.rows[0], base) if page.rows else None


def hsm_uids_by_ref(conn: sqlite3.Connection, ref: str) -> list[int]:
    return [r[0] for r in conn.execute("SELECT id FROM hsm_groups WHERE ref = ?", (ref,))]


def _hsm(r: sqlite3.Row, base: str) -> dict[str, Any]:
    item: dict[str, Any] = {
        "UID": str(r["id"]),
        "ID": r["ref"],
        "name": r["name"],
        "subscriberID": r["sub_ref"],
        "hsmNwkKeyVersion": r["nwk_version"],
        "hsmAppKeyVersion": r["app_version"],
        "hsmExchangeKeyVersion": (
            None if r["exchange_key_version"] is None else str(r["exchange_key_version"])
        ),
        "href": f"{base}/hsmGroups/{r['id']}",
    }
    return {k: v for k, v in item.items() if v is not None}


def hsm_group_exists(conn: sqlite3.Connection, sub: int, ref: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM hsm_groups WHERE subscription_id = ? AND ref = ?", (sub, ref)
    ).fetchone()
    return row is not None


def subscription_by_ref(conn: sqlite3.Connection, ref: str) -> int | None:
    row = conn.execute("SELECT id FROM subscriptions WHERE ref = ?", (ref,)).fetchone()
    return None if row is None else int(row[0])


def key_version_owner(conn: sqlite3.Connection, version: str) -> tuple[int, str] | None:
    """(group, kind) of an HSM key version (versions are platform-wide), None if unused."""
    row = conn.execute(
        "SELECT hsm_group_id, kind FROM hsm_keys WHERE version = ?", (version,)
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def create_hsm_group(
    conn: sqlite3.Connection, sub: int, ref: str, name: str, nwk_version: str | None, now: int
) -> int:
    """A new group with its first AES keys (`<ref>-app-v1`, the network key under
    `nwk_version` or `<ref>-nwk-v1`) and its RSA exchange key, made by the HSM (the sandbox)."""
    cur = conn.execute(
        "INSERT INTO hsm_groups (subscription_id, ref, name, exchange_key_version)"
        " VALUES (?, ?, ?, 1)",
        (sub, ref, name),
    )
    gid = int(cur.lastrowid or 0)
    conn.executemany(
        "INSERT INTO hsm_keys VALUES (?, ?, ?, seal(?), ?)",
        [
            (f"{ref}-app-v1", gid, "APP", km_crypto.new_aes_key(), now),
            (nwk_version or f"{ref}-nwk-v1", gid, "NWK", km_crypto.new_aes_key(), now),
        ],
    )
    km_store.ensure_exchange_keys(conn, now)
    return gid


def update_hsm_group(
    conn: sqlite3.Connection, gid: int, name: str | None, nwk_version: str | None, now: int
) -> None:
    """A new name; a network key version: the group's own becomes current again, a new one is
    generated (the caller checked it is not another group's). One UPDATE item is queued
    when anything changed (issue 21: one per row had made three)."""
    changed = False
    if name is not None:
        changed = bool(
            conn.execute(
                "UPDATE hsm_groups SET name = ? WHERE id = ? AND name IS NOT ?", (name, gid, name)
            ).rowcount
        )
    if nwk_version is not None:
        changed = _set_nwk_version(conn, gid, nwk_version, now) or changed
    if changed:
        ref, sub = conn.execute(
            "SELECT ref, subscription_id FROM hsm_groups WHERE id = ?", (gid,)
        ).fetchone()
        enqueue(conn, "HSM_GROUP", "UPDATE", ref, entity_uid=gid, subscription_id=sub, now_ms=now)


def _set_nwk_version(conn: sqlite3.Connection, gid: int, nwk_version: str, now: int) -> bool:
    """Make `nwk_version` the group's current network key; True when that changed it."""
    owner = key_version_owner(conn, nwk_version)
    if owner is None:
        conn.execute(
            "INSERT INTO hsm_keys VALUES (?, ?, 'NWK', seal(?), ?)",
            (nwk_version, gid, km_crypto.new_aes_key(), now),
        )
        return True
    current = conn.execute(
        "SELECT version FROM hsm_keys WHERE hsm_group_id = ? AND kind = 'NWK'"
        " ORDER BY created DESC, version DESC LIMIT 1",
        (gid,),
    ).fetchone()
    if current is not None and current[0] != nwk_version:
        latest = conn.execute(
            "SELECT max(created) FROM hsm_keys WHERE hsm_group_id = ?", (gid,)
        ).fetchone()[0]
        conn.execute(
            "UPDATE hsm_keys SET created = ? WHERE version = ?",
            (max(now, (latest or 0) + 1), nwk_version),
        )
        return True
    return False
