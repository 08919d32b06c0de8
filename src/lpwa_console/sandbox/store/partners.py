"""Network partners (SQL only): lookup by UID, `id:sub:`/`id:sup:` and account, the wire
shape, settings, grants, and the station credit transactions."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..network_ids import NET_ID
from .sql import update_versioned

PARTNERS_HREF = "/partners"


def get(conn: sqlite3.Connection, uid: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM partners WHERE uid = ?", (uid,)
    ).fetchone()
    return row


def find(conn: sqlite3.Connection, kind: str, ref: str) -> int | None:
    """The partner of `kind` (SUBSCRIBER or SUPPLIER) with this ID."""
    row = conn.execute(
        "SELECT uid FROM partners WHERE type = ? AND ref = ?", (kind, ref)
    ).fetchone()
    return None if row is None else int(row[0])


def of_subscription(conn: sqlite3.Connection, subscription_id: int) -> int | None:
    row = conn.execute(
        "SELECT uid FROM partners WHERE subscription_id = ? ORDER BY uid LIMIT 1",
        (subscription_id,),
    ).fetchone()
    return None if row is None else int(row[0])


def uids(conn: sqlite3.Connection, offset: int, limit: int) -> tuple[list[int], bool]:
    rows = conn.execute(
        "SELECT uid FROM partners ORDER BY uid LIMIT ? OFFSET ?", (limit + 1, offset)
    ).fetchall()
    return [r[0] for r in rows[:limit]], len(rows) > limit


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM partners").fetchone()[0])


def used(conn: sqlite3.Connection, uid: int) -> int:
    return int(
        conn.execute("SELECT count(*) FROM stations WHERE partner_uid = ?", (uid,)).fetchone()[0]
    )


def subscription_of(conn: sqlite3.Connection, uid: int) -> int | None:
    row = get(conn, uid)
    return None if row is None or row["subscription_id"] is None else int(row["subscription_id"])


def answer(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    """The partner as answered (without the caller's own permissions, which the route adds)."""
    row = get(conn, uid)
    assert row is not None
    out: dict[str, Any] = {
        "partner": {"ID": row["ref"], "name": row["name"]},
        "type": row["type"],
        "href": f"{PARTNERS_HREF}/{uid}",
        "totalBaseStationsUsed": used(conn, uid),
        "showTagSuggestionsWhenDomainRestrictions": bool(row["show_tag_suggestions"]),
        "creationTimestamp": row["creation_ts"],
        "state": {"value": row["state"], "timestamp": row["state_ts"]},
        # What the reference requires too: the affiliated connectivity supplier (the partner
        # itself in the sandbox), the operator's NetID for stations, the security a station
        # gets when its creation names none (stores.stations.create), no license option.
        "supplier": {"ID": row["ref"], "name": row["name"]},
        "operator": {"baseStationsNetID": NET_ID},
        "defaultBsSecurity": "DISABLE",
        "options": {"license": "DEACTIVATED"},
        "occContext": {
            "version": row["version"],
            "lastUpdate": row["last_update"] or row["creation_ts"],
            "who": row["who"] or row["name"],
        },
    }
    if row["total_granted"] is not None:
        out["totalBaseStationsGranted"] = row["total_granted"]
    if row["alarm_state_notifications"] is not None:
        out["alarmStateNotifications"] = row["alarm_state_notifications"]
    return out


def create(
    conn: sqlite3.Connection,
    kind: str,
    ref: str,
    name: str,
    *,
    now: int,
    granted: int | None = None,
    subscription_id: int | None = None,
) -> int:
    cur = conn.execute(
        "INSERT INTO partners (type, ref, name, subscription_id, total_granted, creation_ts,"
        " state_ts) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (kind, ref, name, subscription_id, granted, now, now),
    )
    return int(cur.lastrowid or 0)


def update(
    conn: sqlite3.Connection, uid: int, values: dict[str, Any], *, now: int, who: str
) -> None:
    """Changes the settings and moves the occContext on (version, last update, who)."""
    update_versioned(conn, "partners", "uid", uid, values, now=now, who=who)


def show_tag_suggestions(conn: sqlite3.Connection, uid: int) -> bool:
    row = get(conn, uid)
    return bool(row["show_tag_suggestions"]) if row else True


def link_accounts(conn: sqlite3.Connection, uid: int, *, subscription_id: int) -> None:
    """The accounts of the subscription act for partner `uid` (a subscriber partner)."""
    conn.execute(
        "UPDATE accounts SET partner_uid = ? WHERE subscription_id = ? AND partner_uid IS NULL",
        (uid, subscription_id),
    )


# --- station credit transactions --------------------------------------------------------------


def record_credit(
    conn: sqlite3.Connection,
    uid: int,
    kind: str,
    amount: int,
    *,
    now: int,
    who: str,
    lrr_id: str | None = None,
) -> None:
    """A credit movement; `balance` is what is left of the grant after it (None: no limit)."""
    row = get(conn, uid)
    granted = None if row is None else row["total_granted"]
    balance = None if granted is None else granted - used(conn, uid)
    conn.execute(
        "INSERT INTO station_credit_transactions (partner_uid, ts, type, amount, balance,"
        " lrr_id, who) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (uid, now, kind, amount, balance, lrr_id, who),
    )


def credits(
    conn: sqlite3.Connection, uid: int, offset: int, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    rows = conn.execute(
        "SELECT id, ts, type, amount, balance, lrr_id, who FROM station_credit_transactions"
        " WHERE partner_uid = ? ORDER BY id DESC LIMIT ? OFFSET ?",
        (uid, limit + 1, offset),
    ).fetchall()
    items = [
        {k: v for k, v in zip(
            ("ID", "timestamp", "type", "amount", "balance", "lrrID", "who"), r, strict=True
        ) if v is not None}
        for r in rows[:limit]
    ]  # fmt: skip
    return items, len(rows) > limit


def credit_count(conn: sqlite3.Connection, uid: int) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM station_credit_transactions WHERE partner_uid = ?", (uid,)
        ).fetchone()[0]
    )


def subscription_by_ref(conn: sqlite3.Connection, ref: str) -> int | None:
    """The subscription whose subscriber ID is `ref` (a subscriber partner's own)."""
    row = conn.execute("SELECT id FROM subscriptions WHERE ref = ?", (ref,)).fetchone()
    return None if row is None else int(row[0])
