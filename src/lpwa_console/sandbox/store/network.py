"""Network resources of a subscription: cellular network contexts, AS transport keys, HSM
groups (with their exchange key) and network subscriptions."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...schema.domains import DomainRestrictions
from ...schema.network import (
    AsTransportKeyCreate,
    CellularNetworkContextCreate,
    CellularNetworkContextUpdate,
)
from .filters import device_restriction_sql
from .sql import Where, select_page
from .sql import count as count_rows

MINE = "/subscriptions/mine"

# Lists are in ID order; each returns (items, more) for one page and has a count.
ListPage = tuple[list[dict[str, Any]], bool]


def _page(
    conn: sqlite3.Connection,
    source: str,
    w: Where,
    offset: int,
    limit: int,
    shape: Callable[[sqlite3.Row], dict[str, Any]],
) -> ListPage:
    found = select_page(conn, f"SELECT * FROM {source}", w, "ref", offset=offset, limit=limit)
    return [shape(r) for r in found.rows], found.more


def _of(sub: int) -> Where:
    w = Where()
    w.add("subscription_id = ?", sub)
    return w


# --- cellular network contexts ----------------------------------------------------------------


def context(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "ID": row["ref"],
        "name": row["name"],
        "href": f"{MINE}/cellularNetworkContexts/{row['ref']}",
        "apn": row["apn"],
        "plmnID": row["plmn_id"],
        "ipVersion": row["ip_version"],
        "description": row["description"],
    }


def contexts_page(conn: sqlite3.Connection, sub: int, offset: int, limit: int) -> ListPage:
    return _page(conn, "network_contexts", _of(sub), offset, limit, context)


def contexts_count(conn: sqlite3.Connection, sub: int) -> int:
    return count_rows(conn, "network_contexts", _of(sub))


def find_context(conn: sqlite3.Connection, sub: int, ref: str) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT * FROM network_contexts WHERE subscription_id = ? AND ref = ?", (sub, ref)
    ).fetchone()
    return None if row is None else context(row)


def create_context(conn: sqlite3.Connection, sub: int, body: CellularNetworkContextCreate) -> None:
    conn.execute(
        "INSERT INTO network_contexts (subscription_id, ref, name, apn, plmn_id, ip_version,"
        " description) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (sub, body.ID, body.name, body.apn, body.plmnID, body.ipVersion, body.description),
    )


_CONTEXT_COLUMNS = {"name": "name", "apn": "apn", "plmnID": "plmn_id",
                    "ipVersion": "ip_version", "description": "description"}  # fmt: skip


def update_context(
    conn: sqlite3.Connection, sub: int, ref: str, body: CellularNetworkContextUpdate
) -> None:
    """Set the fields given in `body` (the caller refused a null name)."""
    given = body.model_fields_set
    values = {c: getattr(body, f) for f, c in _CONTEXT_COLUMNS.items() if f in given}
    if values:
        conn.execute(
            f"UPDATE network_contexts SET {', '.join(f'{c} = ?' for c in values)}"
            " WHERE subscription_id = ? AND ref = ?",
            [*values.values(), sub, ref],
        )


# --- AS transport keys ------------------------------------------------------------------------


def key(row: sqlite3.Row) -> dict[str, Any]:
    return {"ID": row["ref"], "name": row["name"], "href": f"{MINE}/asTransportKeys/{row['ref']}"}


def keys_page(conn: sqlite3.Connection, sub: int, offset: int, limit: int) -> ListPage:
    return _page(conn, "as_transport_keys", _of(sub), offset, limit, key)


def keys_count(conn: sqlite3.Connection, sub: int) -> int:
    return count_rows(conn, "as_transport_keys", _of(sub))


def find_key(conn: sqlite3.Connection, sub: int, ref: str) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT * FROM as_transport_keys WHERE subscription_id = ? AND ref = ?", (sub, ref)
    ).fetchone()
    return None if row is None else key(row)


def create_key(conn: sqlite3.Connection, sub: int, body: AsTransportKeyCreate) -> None:
    conn.execute(
        "INSERT INTO as_transport_keys (subscription_id, ref, name) VALUES (?, ?, ?)",
        (sub, body.ID, body.name),
    )


def rename_key(conn: sqlite3.Connection, sub: int, ref: str, name: str) -> None:
    conn.execute(
        "UPDATE as_transport_keys SET name = ? WHERE subscription_id = ? AND ref = ?",
        (name, sub, ref),
    )


# --- deleting what devices may use ------------------------------------------------------------

# What a device (and a routing profile, for keys) points to: table -> the devices' column.
DEVICE_COLUMNS = {"network_contexts": "network_context_id", "as_transport_keys": "as_transport_key"}


@dataclass(frozen=True)
class Usage:
    """Who uses a resource: the caller's visible devices, the others, and routing profiles
    (which belong to no domain). Messages count only what the caller can see."""

    visible: int
    hidden: int
    profiles: int = 0

    @property
    def total(self) -> int:
        return self.visible + self.hidden + self.profiles

    def words(self) -> str:
        parts = []
        if self.visible:
            parts.append(f"{self.visible} device{'s' if self.visible != 1 else ''}")
        if self.hidden:
            parts.append("devices outside your domains")
        if self.profiles:
            parts.append(f"{self.profiles} routing profile{'s' if self.profiles != 1 else ''}")
        return " and ".join(parts)


def usage(
    conn: sqlite3.Connection,
    sub: int,
    column: str,
    ref: str,
    restrictions: DomainRestrictions | None = None,
) -> Usage:
    """How many devices (visible to `restrictions`, and not) and, for keys, routing profiles
    use `ref` in `column`."""
    visible_sql, params = device_restriction_sql(restrictions)
    total, visible = conn.execute(
        f"SELECT count(*), coalesce(sum({visible_sql}), 0) FROM devices d"
        f" WHERE d.subscription_id = ? AND d.{column} = ?",
        [*params, sub, ref],
    ).fetchone()
    profiles = 0
    if column == "as_transport_key":
        profiles = conn.execute(
            "SELECT count(*) FROM routing_profiles WHERE subscription_id = ? AND"
            " as_transport_key = ?",
            (sub, ref),
        ).fetchone()[0]
    return Usage(int(visible), int(total) - int(visible), int(profiles))


def delete_unused(
    conn: sqlite3.Connection,
    sub: int,
    table: str,
    ref: str,
    restrictions: DomainRestrictions | None = None,
) -> Usage:
    """Delete `ref` from `table` (network_contexts or as_transport_keys) unless something
    uses it; returns its users (none: deleted)."""
    used = usage(conn, sub, DEVICE_COLUMNS[table], ref, restrictions)
    if not used.total:
        conn.execute(f"DELETE FROM {table} WHERE subscription_id = ? AND ref = ?", (sub, ref))
    return used


# --- HSM groups -------------------------------------------------------------------------------


def hsm_group(row: sqlite3.Row) -> dict[str, Any]:
    return {"ID": row["ref"], "name": row["name"], "hsmExchangeKeyVersion": hsm_key_version(row),
            "href": f"{MINE}/hsmGroups/{row['ref']}"}  # fmt: skip


def hsm_groups_page(conn: sqlite3.Connection, sub: int, offset: int, limit: int) -> ListPage:
    return _page(conn, "hsm_groups", _of(sub), offset, limit, hsm_group)


def hsm_groups_count(conn: sqlite3.Connection, sub: int) -> int:
    return count_rows(conn, "hsm_groups", _of(sub))


def find_hsm_group(conn: sqlite3.Connection, sub: int, ref: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM hsm_groups WHERE subscription_id = ? AND ref = ?", (sub, ref)
    ).fetchone()
    return row


def hsm_key_version(row: sqlite3.Row) -> str | None:
    """The version of an HSM group's exchange key, as its `hsmExchangeKeyVersion` and the
    `kid` of its public key say it."""
    version = row["exchange_key_version"]
    return None if version is None else f"{row['ref']}-v{version}"


def hsm_key(row: sqlite3.Row) -> dict[str, str] | None:
    """The JWK of an HSM group's exchange key (None when it has none)."""
    version = hsm_key_version(row)
    if version is None or not row["exchange_key_n"]:
        return None
    return {"kid": version, "kty": "RSA", "n": row["exchange_key_n"], "e": row["exchange_key_e"]}


def _b64url_hex(text: str) -> str:
    """A hexadecimal number as a JWK number: base64url of its big-endian bytes, unpadded."""
    value = int(text, 16)
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def platform_key(conn: sqlite3.Connection) -> dict[str, str]:
    """The platform's current exchange key (the one used when no HSM group is), as a JWK.
    Migration 7 made one for every database."""
    row = conn.execute(
        "SELECT kid, n_hex, e_hex FROM platform_exchange_keys ORDER BY created DESC, kid DESC"
        " LIMIT 1"
    ).fetchone()
    assert row is not None, "migration 7 makes the platform's exchange key"
    return {"kid": row[0], "kty": "RSA", "n": _b64url_hex(row[1]), "e": _b64url_hex(row[2])}


# --- network subscriptions ---------------------------------------------------------------------


def network_subscription(row: sqlite3.Row) -> dict[str, Any]:
    body = json.loads(row["body"])
    # The reference's names of the seed's routing booleans (Document 1 §2.6), both given.
    body["thingParkCloudRouting"] = bool(body.get("platformCloudRouting"))
    body["thingParkKafkaRouting"] = bool(body.get("platformKafkaRouting"))
    return {**body, "href": f"{MINE}/networkSubscriptions/{row['id']}"}


def network_subscription_where(
    sub: int,
    *,
    connectivity: str | None = None,
    communication_type: str | None = None,
    supplier: str | None = None,
    ref: str | None = None,
) -> Where:
    """The list filters, all exact, on the stored NetworkSubscription fields."""
    w = _of(sub)
    for path, value in (("$.connectivity", connectivity),
                        ("$.communicationType", communication_type),
                        ("$.supplier.ID", supplier), ("$.ID", ref)):  # fmt: skip
        if value:
            w.add("json_extract(body, ?) = ?", path, value)
    return w


def network_subscriptions_page(
    conn: sqlite3.Connection, w: Where, offset: int, limit: int
) -> ListPage:
    return _page(conn, "network_subscriptions", w, offset, limit, network_subscription)


def network_subscriptions_count(conn: sqlite3.Connection, w: Where) -> int:
    return count_rows(conn, "network_subscriptions", w)


def find_network_subscription(
    conn: sqlite3.Connection, sub: int, *, uid: int | None = None, ref: str | None = None
) -> dict[str, Any] | None:
    """By UID (its row id) or by ID."""
    test, value = ("id = ?", uid) if uid is not None else ("json_extract(body, '$.ID') = ?", ref)
    row = conn.execute(
        f"SELECT * FROM network_subscriptions WHERE subscription_id = ? AND {test}"
        " ORDER BY ref LIMIT 1",
        (sub, value),
    ).fetchone()
    return None if row is None else network_subscription(row)
