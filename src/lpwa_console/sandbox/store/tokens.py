"""Bearer tokens, in the token file (`db/token_file.py`, apart from the main database so
sign-in never waits for its write lock): kept so they outlive a restart, as their SHA-256
only (a copy of the file signs no one in; a token is random, so a hash is enough)."""

from __future__ import annotations

import sqlite3

from ..db.sealing import token_hash


def save(
    conn: sqlite3.Connection,
    token: str,
    account_id: int,
    client_id: str,
    expires_at: float,
    now: float,
) -> None:
    """Keep a new token, forgetting those expired by `now`."""
    conn.execute("DELETE FROM tokens WHERE expires_at < ?", (now,))
    conn.execute(
        "INSERT INTO tokens VALUES (?, ?, ?, ?)",
        (token_hash(token), account_id, client_id, expires_at),
    )


def find(conn: sqlite3.Connection, token: str) -> tuple[int, str, float] | None:
    """(account id, client id, expiry) of a token, None when unknown."""
    row = conn.execute(
        "SELECT account_id, client_id, expires_at FROM tokens WHERE token = ?",
        (token_hash(token),),
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]), float(row[2]))


def forget_client(conn: sqlite3.Connection, client_id: str) -> None:
    """The tokens of a deleted account."""
    conn.execute("DELETE FROM tokens WHERE client_id = ?", (client_id,))
