"""Alarms of devices ('D') and multicast groups ('M'), and the alarm counters they feed.

`alarmUid` is the row id as 16 hex digits, so sorting by alarmUid is sorting by the integer
primary key (every list index ends with it implicitly). A device's `alarm1..alarm6` count its
un-acknowledged alarms by state and `alarm_level` is the highest such state (0 when none):
every change of an alarm goes through this module, which keeps them up to date.

The `level` column keeps the highest severity an alarm reached (1..6, so a cleared alarm still
tells how bad it got); the wire's `level` is that severity on the reference's 0..5 scale
(severity - 1). Lists follow the reference contract: sorted by update time, newest first,
unless asked otherwise; `state` and `acked` sorts break ties by update time, newest first;
`devEUI` is a prefix; `from` bounds the creation time and `to` the last update.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...schema.domains import DomainRestrictions
from .domains import DEVICE_DOMAINS, GROUP_DOMAINS, add_domain_filter, restriction
from .filters import Where, device_restriction_sql
from .sql import any_prefix

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


@dataclass
class AlarmQuery:
    """The filters of an alarm list (already validated by the route). `equal`: the state
    exactly, else that state or above. `peak`: the highest severity reached (`level` column)
    at least this, as the alarm histories filter it."""

    state: int | None = None
    equal: bool = False
    peak: int | None = None
    cleared_only: bool = False
    acked: bool | None = None
    alarm_id: int | None = None
    alarm_uid: str | None = None
    eui: Sequence[str] = ()
    domain: Sequence[str] = ()
    created_from: int | None = None
    updated_to: int | None = None


def _owner_restriction(kind: str, restrictions: DomainRestrictions | None) -> tuple[str, list[Any]]:
    if kind == "D":  # a device alarm carries its device's domain set (migration 10)
        return device_restriction_sql(restrictions, "a.domain_set")
    return group_restriction_sql(restrictions)


def group_restriction_sql(restrictions: DomainRestrictions | None) -> tuple[str, list[Any]]:
    """The same rules for multicast groups (their domains in `multicast_group_domains`)."""
    return restriction(restrictions, GROUP_DOMAINS, "a.group_uid")


def where(
    subscription_id: int,
    kind: str,
    q: AlarmQuery,
    restrictions: DomainRestrictions | None,
    *,
    owner: int | None = None,
) -> Where:
    w = Where()
    w.add("a.subscription_id = ?", subscription_id)
    w.add("a.kind = ?", kind)
    owner_col = "a.device_uid" if kind == "D" else "a.group_uid"
    if owner is not None:
        w.add(f"{owner_col} = ?", owner)
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
    table = "devices" if kind == "D" else "multicast_groups"
    key = "uid"
    if q.eui:  # prefixes (any of them)
        tests, params = any_prefix("eui", [e.strip().upper() for e in q.eui])
        w.add(
            f"{owner_col} IN (SELECT {key} FROM {table} WHERE subscription_id = ? AND {tests})",
            subscription_id,
            *params,
        )
    for domain in q.domain:
        add_domain_filter(
            w, subscription_id, domain, DEVICE_DOMAINS if kind == "D" else GROUP_DOMAINS, owner_col
        )
    sql, params = _owner_restriction(kind, restrictions)
    if params:
        w.add(sql, *params)
    return w


def page(
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
        # Ties of equal update time by alarmUid in the criterion's direction: what an index
        # scan of (criterion, updated) gives (migration 7).
        order_by = f"{column} {order}, a.updated DESC, a.id {order}"
    else:
        order_by = f"{column} {order}, a.id {order}"
    rows = conn.execute(
        f"SELECT a.* FROM alarms a WHERE {' AND '.join(clauses)} ORDER BY {order_by}"
        " LIMIT ? OFFSET ?",
        [*params, limit + 1, offset],
    ).fetchall()
    return rows[:limit], len(rows) > limit


def count(conn: sqlite3.Connection, w: Where) -> int:
    return int(
        conn.execute(f"SELECT count(*) FROM alarms a WHERE {w.sql()}", w.params).fetchone()[0]
    )


def wire_level(peak: int) -> int:
    """The highest severity reached (1..6) on the reference's 0..5 `level` scale."""
    return min(max(peak - 1, 0), 5)


def href(row: sqlite3.Row) -> str:
    """The alarm's own path, below its device or multicast group."""
    if row["kind"] == "D":
        return f"/subscriptions/mine/devices/{row['device_uid']}/alarms/{alarm_uid(row['id'])}"
    return f"/subscriptions/mine/multicastGroups/{row['group_uid']}/alarms/{alarm_uid(row['id'])}"


def brief(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "alarmUid": alarm_uid(row["id"]),
        "href": href(row),
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


def owners(conn: sqlite3.Connection, kind: str, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """EUI, name and domains of the devices (or groups) `ids`."""
    ids = list(set(ids))
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    table, links, col = (
        ("devices", "device_domains", "device_uid")
        if kind == "D"
        else ("multicast_groups", "multicast_group_domains", "group_uid")
    )
    out = {
        r[0]: {"EUI": r[1], "name": r[2], "domains": []}
        for r in conn.execute(f"SELECT uid, eui, name FROM {table} WHERE uid IN ({marks})", ids)
    }
    for uid, grp, name in conn.execute(
        f"SELECT l.{col}, dm.grp, dm.name FROM {links} l JOIN domains dm ON dm.id = l.domain_id"
        f" WHERE l.{col} IN ({marks}) ORDER BY dm.grp",
        ids,
    ):
        if uid in out:
            out[uid]["domains"].append({"name": name, "group": {"name": grp}})
    return out


# --- changes --------------------------------------------------------------------------------


def insert(
    conn: sqlite3.Connection,
    *,
    subscription_id: int,
    kind: str,
    owner: int,
    alarm_id: int,
    state: int,
    ts: int,
    add_info: str | None = None,
) -> int:
    column = "device_uid" if kind == "D" else "group_uid"
    cur = conn.execute(
        f"INSERT INTO alarms (subscription_id, kind, {column}, alarm_id, state, level, created,"
        " updated, add_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (subscription_id, kind, owner, alarm_id, state, state, ts, ts, add_info),
    )
    return int(cur.lastrowid or 0)


def set_state(conn: sqlite3.Connection, row: int, state: int, ts: int) -> None:
    """Escalate or clear an alarm: a new occurrence, un-acknowledged again."""
    conn.execute(
        "UPDATE alarms SET state = ?, level = max(level, ?), occurrence = occurrence + 1,"
        " updated = ?, acked = 0, acked_info = NULL, acked_ts = NULL WHERE id = ?",
        (state, state, ts, row),
    )


def ack(conn: sqlite3.Connection, w: Where, who: str, ts: int) -> list[int]:
    """Acknowledge the un-acknowledged alarms matching `w`; returns their owners."""
    rows = conn.execute(
        f"SELECT a.id, coalesce(a.device_uid, a.group_uid) FROM alarms a"
        f" WHERE {w.sql()} AND a.acked = 0",
        w.params,
    ).fetchall()
    conn.executemany(
        "UPDATE alarms SET acked = 1, acked_info = ?, acked_ts = ? WHERE id = ?",
        [(who, ts, r[0]) for r in rows],
    )
    return list({r[1] for r in rows})


def refresh_counters(conn: sqlite3.Connection, kind: str, owners_: Iterable[int] | None) -> None:
    """Recompute alarm1..alarm6 and alarm_level of these devices/groups (None: all)."""
    table, col = ("devices", "device_uid") if kind == "D" else ("multicast_groups", "group_uid")
    counts: dict[int, list[int]] = defaultdict(lambda: [0] * 6)
    rows: list[Any] = []
    if owners_ is None:
        targets = None
        rows = conn.execute(
            f"SELECT {col}, state, count(*) FROM alarms WHERE kind = ? AND acked = 0"
            f" GROUP BY {col}, state",
            (kind,),
        ).fetchall()
    else:
        targets = list(set(owners_))
        if not targets:
            return
        for i in range(0, len(targets), 500):
            chunk = targets[i : i + 500]
            rows += conn.execute(
                f"SELECT {col}, state, count(*) FROM alarms"
                f" WHERE {col} IN ({', '.join('?' * len(chunk))}) AND acked = 0"
                f" GROUP BY {col}, state",
                chunk,
            ).fetchall()
    for owner, state, n in rows:
        if 1 <= state <= 6:
            counts[owner][state - 1] = n
    set_sql = ", ".join(f"alarm{i} = ?" for i in range(1, 7)) + ", alarm_level = ?"
    if targets is None:
        conn.execute(
            f"UPDATE {table} SET alarm1 = 0, alarm2 = 0, alarm3 = 0, alarm4 = 0, alarm5 = 0,"
            " alarm6 = 0, alarm_level = 0 WHERE alarm_level != 0 OR alarm1 + alarm2 + alarm3"
            " + alarm4 + alarm5 + alarm6 != 0"
        )
        targets = list(counts)
    conn.executemany(
        f"UPDATE {table} SET {set_sql} WHERE uid = ?",
        [(*counts[o], _level(counts[o]), o) for o in targets],
    )


def _level(counts: list[int]) -> int:
    return max((i + 1 for i, n in enumerate(counts) if n), default=0)


def open_alarm(
    conn: sqlite3.Connection, kind: str, owner: int, alarm_id: int
) -> sqlite3.Row | None:
    """The latest raised (not cleared) alarm `alarm_id` of an owner."""
    col = "device_uid" if kind == "D" else "group_uid"
    return conn.execute(  # type: ignore[no-any-return]
        f"SELECT * FROM alarms WHERE {col} = ? AND alarm_id = ? AND state > 1"
        " ORDER BY id DESC LIMIT 1",
        (owner, alarm_id),
    ).fetchone()


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
