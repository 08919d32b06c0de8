"""Network resources of a subscription: cellular network contexts, AS transport keys, HSM
groups (with their exchange key) and network subscriptions."""

from __future__ import annotations

import base64
import json
import sqlite3
from typing import Any

MINE = "/subscriptions/mine"


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


def contexts(conn: sqlite3.Connection, sub: int, ref: str | None = None) -> list[sqlite3.Row]:
    sql = "SELECT * FROM network_contexts WHERE subscription_id = ?"
    params: list[Any] = [sub]
    if ref is not None:
        sql += " AND ref = ?"
        params.append(ref)
    return conn.execute(sql + " ORDER BY ref", params).fetchall()


def keys(conn: sqlite3.Connection, sub: int, ref: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT ref, name FROM as_transport_keys WHERE subscription_id = ?"
    params: list[Any] = [sub]
    if ref is not None:
        sql += " AND ref = ?"
        params.append(ref)
    return [
        {"ID": r, "name": n, "href": f"{MINE}/asTransportKeys/{r}"}
        for r, n in conn.execute(sql + " ORDER BY ref", params)
    ]


def usage(conn: sqlite3.Connection, sub: int, column: str, ref: str) -> int:
    """How many devices (and routing profiles, for keys) use `ref` in `column`."""
    n = conn.execute(
        f"SELECT count(*) FROM devices WHERE subscription_id = ? AND {column} = ?", (sub, ref)
    ).fetchone()[0]
    if column == "as_transport_key":
        n += conn.execute(
            "SELECT count(*) FROM routing_profiles WHERE subscription_id = ? AND"
            " as_transport_key = ?",
            (sub, ref),
        ).fetchone()[0]
    return int(n)


def hsm_groups(conn: sqlite3.Connection, sub: int) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT * FROM hsm_groups WHERE subscription_id = ? ORDER BY ref", (sub,)
    ).fetchall()


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


def network_subscriptions(conn: sqlite3.Connection, sub: int) -> list[tuple[int, dict[str, Any]]]:
    return [
        (row_id, {**json.loads(body), "href": f"{MINE}/networkSubscriptions/{row_id}"})
        for row_id, body in conn.execute(
            "SELECT id, body FROM network_subscriptions WHERE subscription_id = ? ORDER BY ref",
            (sub,),
        )
    ]
