"""Bearer tokens (`tokens`): kept in SQLite so they outlive a restart, as their SHA-256
only (a copy of the database signs no one in; a token is random, so a hash is enough)."""

from __future__ import annotations

import sqlite3

from ..db.sealing import token_hash


def save(
    conn: sqlite3.Connection, token: str, account_id: int, expires_at: float, now: float
) -> None:
    """Keep a new token, forgetting those expired by `now`."""
    conn.execute("DELETE FROM tokens WHERE expires_at < ?", (now,))
    conn.execute("INSERT INTO tokens VALUES (?, ?, ?)", (token_hash(token), account_id, expires_at))


def find(conn: sqlite3.Connection, token: str) -> tuple[int, float] | None:
    """(account id, expiry) of a token, None when unknown."""
    row = conn.execute(
        "SELECT account_id, expires_at FROM tokens WHERE token = ?", (token_hash(token),)
    ).fetchone()
    return None if row is None else (int(row[0]), float(row[1]))
