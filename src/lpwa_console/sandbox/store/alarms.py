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

import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...schema.domains import DomainRestrictions
from .alarm_rows import SORT_COLUMNS as SORT_COLUMNS
from .alarm_rows import AlarmRowQuery, AlarmTable, add_row_filters, brief_fields
from .alarm_rows import alarm_uid as alarm_uid
from .alarm_rows import among as among
from .alarm_rows import row_id as row_id
from .alarm_rows import unacked as unacked
from .alarm_rows import wire_level as wire_level
from .domains import DEVICE_DOMAINS, GROUP_DOMAINS, add_domain_filter, restriction
from .filters import Where, device_restriction_sql
from .sql import any_prefix

# Device ('D') and group ('M') alarms share one table; the kind's column names the owner.
OWNER_COLUMNS = {"D": "device_uid", "M": "group_uid"}
ALARMS = AlarmTable("alarms", "coalesce(device_uid, group_uid)")
_BY_KIND = {kind: AlarmTable("alarms", column) for kind, column in OWNER_COLUMNS.items()}


@dataclass
class AlarmQuery(AlarmRowQuery):
    """The filters of a device or group alarm list; `eui`: prefixes of the owners' EUIs."""

    eui: Sequence[str] = ()


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
    owner_col = f"a.{OWNER_COLUMNS[kind]}"
    if owner is not None:
        w.add(f"{owner_col} = ?", owner)
    add_row_filters(w, q)
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
    w.restrict(_owner_restriction(kind, restrictions))
    return w


# A sorted page of rows, and the count (store/alarm_rows.py).
page = ALARMS.page
count = ALARMS.count


def href(row: sqlite3.Row) -> str:
    """The alarm's own path, below its device or multicast group."""
    if row["kind"] == "D":
        return f"/subscriptions/mine/devices/{row['device_uid']}/alarms/{alarm_uid(row['id'])}"
    return f"/subscriptions/mine/multicastGroups/{row['group_uid']}/alarms/{alarm_uid(row['id'])}"


def brief(row: sqlite3.Row) -> dict[str, Any]:
    return brief_fields(row, href(row))


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
    column = OWNER_COLUMNS[kind]
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
    return list(set(ALARMS.acknowledge(conn, w, who, ts)))


def refresh_counters(conn: sqlite3.Connection, kind: str, owners_: Iterable[int] | None) -> None:
    """Recompute alarm1..alarm6 and alarm_level of these devices/groups (None: all)."""
    table = "devices" if kind == "D" else "multicast_groups"
    col = OWNER_COLUMNS[kind]
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
    return _BY_KIND[kind].latest_open(conn, owner, alarm_id)
