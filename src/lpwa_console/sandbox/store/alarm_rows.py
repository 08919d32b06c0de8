"""What device, multicast-group and station alarms share: one row per raised alarm (a
change of severity is a new occurrence of the same row, un-acknowledged again), its public
`alarmUid`, the filters on the row's own columns, the sorted page, the count, the
acknowledgement and the wire brief. Each kind of alarm is an `AlarmTable`: where its rows
live and which column names their owner (store/alarms.py, store/station_alarms.py).

`alarmUid` is the row id as 16 hexadecimal digits, so its sort is the primary key's. The
`level` column keeps the highest severity an alarm reached (1..6); the wire's `level` is
that severity on the reference's 0..5 scale.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .sql import Where

SORT_COLUMNS = {
    "alarmUid": "a.id",
    "state": "a.state",
    "acked": "a.acked",
    "creationTimestamp": "a.created",
    "updateTimestamp": "a.updated",
}
# Criteria whose ties are ordered by update time, newest first (the reference's rule).
THEN_UPDATED = frozenset({"state", "acked"})


def alarm_uid(row_id: int) -> str:
    return f"{row_id:016x}"


def row_id(uid: str) -> int | None:
    try:
        value = int(uid, 16)
    except ValueError:
        return None
    # Row IDs are SQLite's 64-bit signed integers: FFFF... names no row.
    return value if len(uid) == 16 and 0 < value < 2**63 else None


def wire_level(peak: int) -> int:
    """The highest severity reached (1..6) on the reference's 0..5 `level` scale."""
    return min(max(peak - 1, 0), 5)


@dataclass
class AlarmRowQuery:
    """The filters on an alarm row's own columns (validated by the route). `equal`: the
    state exactly, else that state or above; `peak`: the highest severity reached (`level`)
    at least this, as the alarm histories filter it; `cleared_only`: the histories."""

    state: int | None = None
    equal: bool = False
    peak: int | None = None
    cleared_only: bool = False
    acked: bool | None = None
    alarm_id: int | None = None
    alarm_uid: str | None = None
    domain: Sequence[str] = ()
    created_from: int | None = None
    updated_to: int | None = None


def add_row_filters(w: Where, q: AlarmRowQuery) -> None:
    """`w` narrowed by the filters of `q` on the alarm row (alias `a`)."""
    if q.state is not None:
        w.add("a.state = ?" if q.equal else "a.state >= ?", q.state)
    if q.cleared_only:
        w.add("a.state = 1")
    if q.peak is not None:
        w.add("a.level >= ?", q.peak)
    if q.acked is not None:
        w.add("a.acked = ?", int(q.acked))
    if q.alarm_id is not None:
        w.add("a.alarm_id = ?", q.alarm_id)
    if q.alarm_uid is not None:
        w.add("a.id = ?", row_id(q.alarm_uid) or -1)
    if q.created_from is not None:
        w.add("a.created >= ?", q.created_from)
    if q.updated_to is not None:
        w.add("a.updated <= ?", q.updated_to)


def among(w: Where, alarm_uids: Sequence[str]) -> Where:
    """`w` narrowed to the alarms `alarm_uids` (those that are not ours match nothing)."""
    ids = [i for i in (row_id(u) for u in alarm_uids) if i is not None] or [-1]
    narrowed = Where(list(w.clauses), list(w.params))
    # One JSON parameter, not one per id: SQLite caps the number of variables.
    narrowed.add("a.id IN (SELECT value FROM json_each(?))", json.dumps(ids))
    return narrowed


def unacked(w: Where) -> Where:
    """`w` narrowed to the alarms not acknowledged yet."""
    narrowed = Where(list(w.clauses), list(w.params))
    narrowed.add("a.acked = 0")
    return narrowed


def brief_fields(row: sqlite3.Row, href: str) -> dict[str, Any]:
    """The fields of an alarm brief every kind of alarm has; `href`: the alarm's own path."""
    return {
        "alarmUid": alarm_uid(row["id"]),
        "href": href,
        "ID": row["alarm_id"],
        "state": row["state"],
        "level": wire_level(row["level"]),
        "occurrence": row["occurrence"],
        "acked": bool(row["acked"]),
        "ackedInfo": row["acked_info"],
        "ackedTimestamp": row["acked_ts"],
        "creationTimestamp": row["created"],
        "updateTimestamp": row["updated"],
        "addInfo": row["add_info"],
    }


@dataclass(frozen=True)
class AlarmTable:
    """Where one kind of alarm lives: its table, and the SQL naming a row's owner."""

    table: str  # alarms, station_alarms
    owner: str  # the row's owner, of the row's columns: bs_uid, coalesce(device_uid, ...)

    def page(
        self,
        conn: sqlite3.Connection,
        w: Where,
        *,
        sort: str,
        descending: bool,
        offset: int,
        limit: int,
        after_id: int | None = None,
    ) -> tuple[list[sqlite3.Row], bool]:
        """A page of rows (one more is read to know whether a next page exists)."""
        column = SORT_COLUMNS[sort]
        order = "DESC" if descending else "ASC"
        clauses, params = [w.sql()], list(w.params)
        if after_id is not None:
            clauses.append("a.id < ?" if descending else "a.id > ?")
            params.append(after_id)
        if column == "a.id":
            order_by = f"a.id {order}"
        elif sort in THEN_UPDATED:
            # Ties of equal update time by alarmUid in the criterion's direction: what an
            # index scan of (criterion, updated) gives (migration 7).
            order_by = f"{column} {order}, a.updated DESC, a.id {order}"
        else:
            order_by = f"{column} {order}, a.id {order}"
        rows = conn.execute(
            f"SELECT a.* FROM {self.table} a WHERE {' AND '.join(clauses)} ORDER BY {order_by}"
            " LIMIT ? OFFSET ?",
            [*params, limit + 1, offset],
        ).fetchall()
        return rows[:limit], len(rows) > limit

    def count(self, conn: sqlite3.Connection, w: Where) -> int:
        row = conn.execute(f"SELECT count(*) FROM {self.table} a WHERE {w.sql()}", w.params)
        return int(row.fetchone()[0])

    def latest_open(
        self, conn: sqlite3.Connection, owner: int, alarm_id: int
    ) -> sqlite3.Row | None:
        """The latest raised (not cleared) alarm `alarm_id` of an owner."""
        row: sqlite3.Row | None = conn.execute(
            f"SELECT * FROM {self.table} WHERE {self.owner} = ? AND alarm_id = ? AND state > 1"
            " ORDER BY id DESC LIMIT 1",
            (owner, alarm_id),
        ).fetchone()
        return row

    def acknowledge(self, conn: sqlite3.Connection, w: Where, who: str, ts: int) -> list[int]:
        """Acknowledge the un-acknowledged alarms matching `w`; returns their owners, one
        per alarm (the caller refreshes the owners' counters)."""
        rows = conn.execute(
            f"SELECT a.id, {self.owner} FROM {self.table} a WHERE {w.sql()} AND a.acked = 0",
            w.params,
        ).fetchall()
        conn.executemany(
            f"UPDATE {self.table} SET acked = 1, acked_info = ?, acked_ts = ? WHERE id = ?",
            [(who, ts, r[0]) for r in rows],
        )
        return [r[1] for r in rows]
