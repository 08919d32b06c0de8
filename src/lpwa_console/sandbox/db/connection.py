"""SQLite access: WAL, foreign keys, one connection per thread, migrated on open.

The file holds hashes of client secrets and sealed keys (`sealing.py`, whose key
file lies beside it): it is made readable by its owner only, and
a database this version cannot safely write (newer schema, read-only) is refused up front.
Bearer tokens live in a file of their own beside it (`token_file.py`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .migrations import MIGRATIONS, migrate
from .private import PRIVATE_DIR, make_private
from .sealing import Sealer, key_path, load_key
from .steps_platform import V_SECRETS_AT_REST
from .token_file import TokenFile, token_path
from .transaction import immediate


def _open(path: Path, sealer: Sealer) -> sqlite3.Connection:
    # isolation_level=None: we open transactions ourselves (BEGIN IMMEDIATE for writes).
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    conn.row_factory = sqlite3.Row
    sealer.register(conn)  # seal/unseal/token_hash/demo_secret, before any migration step
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA cache_size=-65536")  # 64 MB: the hot indexes of 1M devices fit
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA mmap_size=1073741824")
    return conn


class DatabaseRefused(Exception):
    """This file cannot be served; the message says why in plain words."""


def check_writable(path: Path) -> None:
    """Refuse a database the sandbox could read but not keep: SQLite also writes its
    journal files beside it, so the folder must be writable too."""
    folder = path.parent
    if path.is_dir():
        raise DatabaseRefused(f"{path} is a folder, not a database file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DatabaseRefused(
            f"The folder {folder} is not writable: the sandbox keeps its database there"
        )
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise DatabaseRefused(f"The database {path} is read-only: the sandbox needs to write it")


def check_version(conn: sqlite3.Connection, path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise DatabaseRefused(
            f"The database {path} was made by a newer version of the sandbox (schema"
            f" {version}, this version knows up to {len(MIGRATIONS)}): use a newer LPWA"
            " Console, or another database file"
        )


# The first schema whose keys are sealed (migration V_SECRETS_AT_REST).
SEALED_SINCE = MIGRATIONS.index(V_SECRETS_AT_REST) + 1


def _refuse_without_key(conn: sqlite3.Connection, path: Path) -> None:
    """A database sealed with a key file that is no longer beside it: a new key would open
    none of its keys and change its demo secrets, so it is refused (the new key file made
    for it is removed) rather than half working."""
    if conn.execute("PRAGMA user_version").fetchone()[0] >= SEALED_SINCE:
        key_path(path).unlink(missing_ok=True)
        raise DatabaseRefused(
            f"The key file {key_path(path)} of the database {path} is missing: the database"
            " keeps its keys sealed with it. Put it back beside the database, or use another"
            " database file"
        )


class Database:
    """Connections to one SQLite file: one per thread, closed together."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        # Told (seconds held, rows changed) after each write transaction: tests measure how
        # long background work holds the write lock without timing it themselves.
        self.write_observer: Callable[[float, int], None] | None = None
        self._sealer: Sealer | None = None
        if not self.path.parent.exists():
            try:
                self.path.parent.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise DatabaseRefused(
                    f"The folder {self.path.parent} cannot be created: {reason}"
                ) from exc
        check_writable(self.path)
        try:
            make_private(self.path)
            had_key = key_path(self.path).exists()
            conn = self.conn()
            check_version(conn, self.path)
            if not had_key:
                _refuse_without_key(conn, self.path)
            self.migrations_run = migrate(conn)
            # New: every step ran, i.e. the file started at version 0.
            self.created = self.migrations_run == len(MIGRATIONS)
            # Bearer tokens: a file of their own, so sign-in never waits for this one's lock.
            self.tokens = TokenFile(token_path(self.path), fresh=self.created)
            self.tokens.adopt(conn)
        except (sqlite3.DatabaseError, ValueError) as exc:  # ValueError: a damaged key file
            self.close()
            raise DatabaseRefused(f"The database {self.path} cannot be used: {exc}") from exc
        except DatabaseRefused:
            self.close()
            raise

    def conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self._sealer is None:
                self._sealer = Sealer(load_key(self.path))
            conn = _open(self.path, self._sealer)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: BEGIN IMMEDIATE so concurrent writers queue, not deadlock."""
        observer = self.write_observer
        with immediate(self.conn()) as conn:
            if observer is not None:
                started, changes = time.perf_counter(), conn.total_changes
            yield conn
        if observer is not None:
            observer(time.perf_counter() - started, conn.total_changes - changes)

    def close(self) -> None:
        tokens: TokenFile | None = getattr(self, "tokens", None)
        if tokens is not None:
            tokens.close()
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()
