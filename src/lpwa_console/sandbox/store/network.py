"""Network resources of a subscription: cellular network contexts, AS transport keys, HSM
groups (with their exchange key) and network subscriptions."""

from __future__ import annotations

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


def network_subscriptions(conn: sqlite3.Connection, sub: int) -> list[tuple[int, dict[str, Any]]]:
    return [
        (row_id, {**json.loads(body), "href": f"{MINE}/networkSubscriptions/{row_id}"})
        for row_id, body in conn.execute(
            "SELECT id, body FROM network_subscriptions WHERE subscription_id = ? ORDER BY ref",
            (sub,),
        )
    ]
