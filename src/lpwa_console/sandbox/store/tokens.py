"""Bearer tokens (`tokens`): kept in SQLite so they outlive a restart."""

from __future__ import annotations

import sqlite3


def save(
    conn: sqlite3.Connection, token: str, account_id: int, expires_at: float, now: float
) -> None:
    """Keep a new token, forgetting those expired by `now`."""
    conn.execute("DELETE FROM tokens WHERE expires_at < ?", (now,))
    conn.execute("INSERT INTO tokens VALUES (?, ?, ?)", (token, account_id, expires_at))


def find(conn: sqlite3.Connection, token: str) -> tuple[int, float] | None:
    """(account id, expiry) of a token, None when unknown."""
    row = conn.execute(
        "SELECT account_id, expires_at FROM tokens WHERE token = ?", (token,)
    ).fetchone()
    return None if row is None else (int(row[0]), float(row[1]))
