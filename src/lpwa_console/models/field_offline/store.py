"""The snapshot of a region: the platform's own answers, kept in SQLite.

`responses` holds answers to GETs as the platform gave them, keyed by path and query
(`response_key`): the subscription, each device's and station's detail. `items` holds the
members of the lists the offline transport pages, sorts and filters itself (devices,
stations, device alarms), each its list item as the platform gave it. `meta` says when and
what was taken. Offline edits change the stored answers too (`apply_edit`), so the console
shows what the user changed; what the platform had is in the edit queue's `base`.

A snapshot is written to a new file and moved over the old one when complete
(`SnapshotWriter`): a cancelled or failed one leaves the last good snapshot as it was."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ...private_files import private_dir

DEVICES, STATIONS, DEVICE_ALARMS = "devices", "stations", "device_alarms"
# A detail's position fields as its list item names them (a device's administrative
# position, a station's last known one).
LISTED_AS = {
    "adminLat": "lat", "adminLon": "lon",
    "lastGeoLat": "lat", "lastGeoLon": "lon", "lastGeoAlt": "alt",
}  # fmt: skip

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    kind TEXT NOT NULL, id TEXT NOT NULL, owner TEXT NOT NULL DEFAULT '',
    seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, id));
"""


def response_key(path: str, params: Iterable[tuple[str, str]] = ()) -> str:
    """A GET's key: its path, and its query in a fixed order (the same request asked with
    its parameters in another order is the same answer)."""
    query = "&".join(f"{k}={v}" for k, v in sorted(params))
    return f"{path}?{query}" if query else path


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(SCHEMA)
    return conn


class SnapshotWriter:
    """Fills a new snapshot file beside `path`; `commit()` puts it in place."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        private_dir(self.path.parent)
        self.partial = self.path.with_name(self.path.name + ".partial")
        for leftover in (self.partial, *_sidecars(self.partial)):
            leftover.unlink(missing_ok=True)
        self.conn = connect(self.partial)
        self.conn.execute("BEGIN")
        self._seq = 0

    def put_response(self, key: str, body: bytes) -> None:
        self.conn.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, body))

    def put_responses(self, rows: Sequence[tuple[str, bytes]]) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?)", rows)

    def put_items(self, kind: str, rows: Sequence[tuple[str, str, dict[str, Any]]]) -> None:
        """(id, owner, list item) rows, in the platform's order."""
        values = []
        for item_id, owner, body in rows:
            self._seq += 1
            values.append((kind, item_id, owner, self._seq, json.dumps(body)))
        self.conn.executemany("INSERT OR REPLACE INTO items VALUES (?, ?, ?, ?, ?)", values)

    def set_meta(self, **values: Any) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [(k, json.dumps(v)) for k, v in values.items()],
        )

    def commit(self) -> None:
        self.set_meta(taken_at=time.time())
        self.conn.execute("COMMIT")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.close()
        os.replace(self.partial, self.path)
        for sidecar in _sidecars(self.partial):
            sidecar.unlink(missing_ok=True)

    def discard(self) -> None:
        self.conn.close()
        for leftover in (self.partial, *_sidecars(self.partial)):
            leftover.unlink(missing_ok=True)


def _sidecars(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


class SnapshotStore:
    """A snapshot opened for browsing offline."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.conn = connect(self.path)
        self._items: dict[str, list[dict[str, Any]]] = {}
        self.version = 0  # counts the offline edits shown: what was derived from items is old

    @staticmethod
    def exists(path: Path) -> bool:
        return Path(path).is_file()

    def close(self) -> None:
        self.conn.close()

    def meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    @property
    def taken_at(self) -> float | None:
        value = self.meta("taken_at")
        return float(value) if value is not None else None

    def response(self, key: str) -> bytes | None:
        row = self.conn.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        return bytes(row[0]) if row else None

    def items(self, kind: str) -> list[dict[str, Any]]:
        """The list items of this kind in the platform's order (read once, then kept)."""
        cached = self._items.get(kind)
        if cached is None:
            rows = self.conn.execute(
                "SELECT body FROM items WHERE kind = ? ORDER BY seq", (kind,)
            ).fetchall()
            # One parse of them all: a third faster than one per item (offline first rows).
            cached = self._items[kind] = json.loads("[" + ",".join(r[0] for r in rows) + "]")
        return cached

    def count(self, kind: str) -> int:
        row = self.conn.execute("SELECT count(*) FROM items WHERE kind = ?", (kind,)).fetchone()
        return int(row[0])

    def item(self, kind: str, item_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT body FROM items WHERE kind = ? AND id = ?", (kind, item_id)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def apply_edit(self, kind: str, ident: str, detail_key: str, changes: dict[str, Any]) -> Any:
        """Show an offline edit: the item's stored detail and list item take the new values.
        The detail as it is now (None when the snapshot does not hold it)."""
        body = self.response(detail_key)
        detail = json.loads(body) if body else None
        if detail is not None:
            detail.update(changes)
        # The list shows the item where it was put (its list item's lat/lon/alt).
        listed = {LISTED_AS.get(k, k): v for k, v in changes.items()}
        brief = self.item(kind, ident)
        self.conn.execute("BEGIN")
        if detail is not None:
            self.put(detail_key, detail)
        if brief is not None:
            brief.update(listed)
            self.conn.execute(
                "UPDATE items SET body = ? WHERE kind = ? AND id = ?",
                (json.dumps(brief), kind, ident),
            )
            for cached in self._items.get(kind, []):
                if item_id(kind, cached) == ident:
                    cached.update(listed)
        self.conn.execute("COMMIT")
        self.version += 1
        return detail

    def put(self, key: str, value: Any) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, json.dumps(value).encode())
        )


def item_id(kind: str, body: dict[str, Any]) -> str:
    """How an item of this kind is addressed in a path: a device by `ref` (or `e` + EUI), a
    station by `i` + lrrID, an alarm by its UID."""
    if kind == DEVICES:
        return str(body.get("ref") or f"e{body['EUI']}")
    if kind == STATIONS:
        return f"i{str(body['lrrID']).upper()}"
    return str(body["alarmUid"])
