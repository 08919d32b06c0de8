"""Edits made offline, kept in order until the platform has them: SQLite in WAL mode, one
file per profile and account (`paths.field_dir`), so a crash or a restart loses none.

An edit is the fields it changes (`changes`, as the platform's PUT takes them) and what they
were before it (`base`, as the console showed them). Its `state`:

- queued: not sent yet;
- sending: about to be sent, or sent without the answer recorded (a crash between the two):
  `sync` then re-reads the item instead of sending it again blindly;
- sent: the platform has it (`outcome` says how);
- conflict: the platform's item changed since the snapshot; `platform` holds its values,
  and the user chooses (`sync.resolve`);
- kept: the user kept the platform's values; failed: refused by the platform (`outcome`).

No secret is ever in an edit: only names, tags and positions are queued."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...private_files import private_dir

QUEUED, SENDING, SENT, CONFLICT, KEPT, FAILED = (
    "queued",
    "sending",
    "sent",
    "conflict",
    "kept",
    "failed",
)
PENDING = (QUEUED, SENDING)
STATE_WORDS = {
    QUEUED: "Waiting for a connection",
    SENDING: "Sending…",
    SENT: "Sent",
    CONFLICT: "Conflict: choose a value",
    KEPT: "Kept the platform's value",
    FAILED: "Refused",
}

SCHEMA = """
CREATE TABLE IF NOT EXISTS edits (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    label TEXT NOT NULL,
    changes TEXT NOT NULL,
    base TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    outcome TEXT NOT NULL DEFAULT '',
    platform TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL);
"""


@dataclass
class Edit:
    seq: int
    kind: str  # "devices"
    path: str  # the item's path below the API's base, e.g. /subscriptions/mine/devices/e01
    label: str  # what the user reads: "Bastille 12 (0018B2000000A001)"
    changes: dict[str, Any]
    base: dict[str, Any]
    state: str = QUEUED
    outcome: str = ""
    platform: dict[str, Any] | None = field(default=None)

    @property
    def pending(self) -> bool:
        return self.state in PENDING


class EditQueue:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        private_dir(self.path.parent)
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        # FULL: an edit said to be queued, or a send said to be done, survives a power cut.
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.executescript(SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def add(
        self, kind: str, path: str, label: str, changes: dict[str, Any], base: dict[str, Any]
    ) -> Edit:
        now = time.time()
        cursor = self.conn.execute(
            "INSERT INTO edits (kind, path, label, changes, base, created, updated)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (kind, path, label, json.dumps(changes), json.dumps(base), now, now),
        )
        assert cursor.lastrowid is not None
        return Edit(cursor.lastrowid, kind, path, label, changes, base)

    def mark(
        self, seq: int, state: str, outcome: str = "", platform: dict[str, Any] | None = None
    ) -> None:
        self.conn.execute(
            "UPDATE edits SET state = ?, outcome = ?, platform = ?, updated = ? WHERE seq = ?",
            (state, outcome, json.dumps(platform) if platform is not None else None,
             time.time(), seq),
        )  # fmt: skip

    def edits(self, *states: str) -> list[Edit]:
        """In the order they were made; only those in `states` when given."""
        sql = "SELECT seq, kind, path, label, changes, base, state, outcome, platform FROM edits"
        args: tuple[str, ...] = ()
        if states:
            sql += f" WHERE state IN ({', '.join('?' * len(states))})"
            args = states
        return self._read(sql + " ORDER BY seq", args)

    def _read(self, sql: str, args: tuple[Any, ...]) -> list[Edit]:
        rows = self.conn.execute(sql, args).fetchall()
        return [
            Edit(
                s, k, p, label, json.loads(c), json.loads(b), st, o, json.loads(pl) if pl else None
            )
            for s, k, p, label, c, b, st, o, pl in rows
        ]

    def get(self, seq: int) -> Edit | None:
        found = self._read(
            "SELECT seq, kind, path, label, changes, base, state, outcome, platform FROM edits"
            " WHERE seq = ?",
            (seq,),
        )
        return found[0] if found else None

    def pending_count(self) -> int:
        row = self.conn.execute(
            "SELECT count(*) FROM edits WHERE state IN (?, ?, ?)", (*PENDING, CONFLICT)
        ).fetchone()
        return int(row[0])

    def clear_done(self) -> None:
        """Forget what the platform has (sent) or the user settled (kept, failed)."""
        self.conn.execute("DELETE FROM edits WHERE state IN (?, ?, ?)", (SENT, KEPT, FAILED))
