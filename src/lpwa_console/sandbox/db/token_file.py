"""Bearer tokens in a SQLite file of their own beside the database (`<database>.tokens`).

Sign-in inserts a token; in the main file that insert waited for SQLite's one write lock
behind a whole import (up to 10,000 rows, seconds). A second file has its own lock, so
sign-in never waits behind the fleet's writes, and tokens still outlive a restart.

The file is owner-only as the database is and keeps each token's SHA-256 only, with the
account's id and client id: an account id may be given again after an account is deleted,
so a token counts only while both still match (a token left behind by a crash between the
two files' writes signs no one in). A new database starts with no tokens: whatever an older
file beside it held is dropped. Tokens kept in the main file by older versions (its
`tokens` table, hashed by the secrets step) are moved here once, after the migrations;
that table stays, empty.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .private import SIDECARS, make_private
from .transaction import immediate

SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,          -- SHA-256 of the bearer token, hex
    account_id INTEGER NOT NULL,
    client_id TEXT NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tokens_by_client ON tokens (client_id);
PRAGMA user_version = 1;
"""


def token_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".tokens")


class TokenFile:
    """One connection to the token file, shared by every thread under a lock: each use is
    one indexed row (microseconds), so a lock costs less than a connection per thread."""

    def __init__(self, path: Path, *, fresh: bool) -> None:
        self.path = path
        if fresh:
            # A new database: tokens of a database that was here before must not sign in.
            for stale in (path, *(path.with_name(path.name + s) for s in SIDECARS)):
                stale.unlink(missing_ok=True)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        with self._lock:
            self._connection().executescript(f"BEGIN IMMEDIATE;\n{SCHEMA}\nCOMMIT;")

    def _connection(self) -> sqlite3.Connection:
        # Opened on first use, again after `close` (as `Database.conn` reopens).
        if self._conn is None:
            make_private(self.path)
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._conn = conn
        return self._conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._connection()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, immediate(self._connection()) as conn:
            yield conn

    def adopt(self, main: sqlite3.Connection) -> int:
        """Move the tokens an older version kept in the main file here; the number moved.
        Copied first (a token already here is kept), then deleted there: a crash between
        the two leaves them in both, and the next start moves them again."""
        has_table = main.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tokens'"
        ).fetchone()
        if has_table is None or main.execute("SELECT 1 FROM tokens LIMIT 1").fetchone() is None:
            return 0
        rows = main.execute(
            "SELECT t.token, t.account_id, a.client_id, t.expires_at"
            " FROM tokens t JOIN accounts a ON a.id = t.account_id"
        ).fetchall()
        with self.write() as conn:
            conn.executemany("INSERT OR IGNORE INTO tokens VALUES (?, ?, ?, ?)", rows)
        main.execute("BEGIN IMMEDIATE")
        main.execute("DELETE FROM tokens")
        main.execute("COMMIT")
        return len(rows)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
