"""Applications and platform users (the application scope, Document 1 §4.5): every SQL
statement of `/applications/{applicationUid}`."""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any


def find_application(
    conn: sqlite3.Connection, *, uid: int | None = None, ref: str | None = None
) -> dict[str, Any] | None:
    """The application by UID or ID, wire-shaped (without href), or None."""
    if uid is not None:
        row = conn.execute("SELECT * FROM applications WHERE uid = ?", (uid,)).fetchone()
    else:
        row = conn.execute("SELECT * FROM applications WHERE ref = ?", (ref,)).fetchone()
    if row is None:
        return None
    out = {"UID": row["uid"], "ID": row["ref"], "name": row["name"]}
    for key, column in (("description", "description"), ("publisher", "publisher")):
        if row[column] is not None:
            out[key] = row[column]
    return out


def create_application(
    conn: sqlite3.Connection, ref: str, name: str, description: str, publisher: str, now: int
) -> int:
    cur = conn.execute(
        "INSERT INTO applications (ref, name, description, publisher, created)"
        " VALUES (?, ?, ?, ?, ?)",
        (ref, name, description, publisher, now),
    )
    return int(cur.lastrowid or 0)


_USER = (
    "SELECT u.uid, u.account_id, u.platform_id, u.oidc_sub, u.email, a.name, a.role,"
    " a.subscription_id, s.ref AS subscription_ref"
    " FROM users u JOIN accounts a ON a.id = u.account_id"
    " LEFT JOIN subscriptions s ON s.id = a.subscription_id"
)


def find_user(
    conn: sqlite3.Connection,
    *,
    uid: int | None = None,
    platform_id: str | None = None,
    oidc_sub: str | None = None,
    account_id: int | None = None,
) -> sqlite3.Row | None:
    """A user by exactly one of UID, platform ID, OpenID sub or account."""
    if uid is not None:
        where, value = "u.uid = ?", str(uid)
    elif platform_id is not None:
        where, value = "u.platform_id = ?", platform_id
    elif oidc_sub is not None:
        where, value = "u.oidc_sub = ?", oidc_sub
    else:
        where, value = "u.account_id = ?", str(account_id)
    row: sqlite3.Row | None = conn.execute(f"{_USER} WHERE {where}", (value,)).fetchone()
    return row


def user_answer(row: sqlite3.Row) -> dict[str, Any]:
    """The user as answered (without href)."""
    out: dict[str, Any] = {
        "UID": row["uid"],
        "platformID": row["platform_id"],
        "oidcSub": row["oidc_sub"],
        "name": row["name"],
        "role": row["role"],
    }
    if row["email"]:
        out["email"] = row["email"]
    if row["subscription_ref"] is not None:
        out["subscriptionID"] = row["subscription_ref"]
    return out


def partner(conn: sqlite3.Connection, partner_uid: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT uid, type, ref, name FROM partners WHERE uid = ?", (partner_uid,)
    ).fetchone()
    return row


def subscription(conn: sqlite3.Connection, subscription_id: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT id, ref, name FROM subscriptions WHERE id = ?", (subscription_id,)
    ).fetchone()
    return row


def create_missing_users(conn: sqlite3.Connection, now: int, domain: str) -> int:
    """A platform user for every account without one: platform ID `usr-` + 8 random hex
    digits, a random UUID as OpenID sub, an e-mail address at `domain`. Returns how many."""
    missing = conn.execute(
        "SELECT id, client_id FROM accounts WHERE id NOT IN (SELECT account_id FROM users)"
        " ORDER BY id"
    ).fetchall()
    conn.executemany(
        "INSERT INTO users (account_id, platform_id, oidc_sub, email, created)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (row["id"], f"usr-{uuid.uuid4().hex[:8]}", str(uuid.uuid4()),
             f"{row['client_id']}@{domain}", now)
            for row in missing
        ],
    )  # fmt: skip
    return len(missing)
