"""One write transaction on a connection in autocommit mode (`isolation_level=None`), as
the database and the token file beside it both open theirs."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE (concurrent writers queue, not deadlock), COMMIT when the block ends,
    ROLLBACK when it raises (KeyboardInterrupt too)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
