"""Alarms of base stations (SQL only): raised and cleared by the simulator, listed,
acknowledged, and the alarm counters of each station (alarm1..alarm6, alarm_level: its
un-acknowledged alarms by state, as devices have).

One row per occurrence of a raised alarm: a change of severity is a new occurrence of the
same row (un-acknowledged again); clearing sets state 1 and `cleared`. A station raising the
same code again after a clear gets a new row, so cleared rows are the history.
`alarmUid` is the row id as 16 hexadecimal digits, so its sort is the primary key's.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...schema.domains import DomainRestrictions
from .sql import Where, any_prefix, marks
from .stations import BASE_HREF, restriction_sql

SORT_COLUMNS = {
    "alarmUid": "a.id",
    "state": "a.state",
    "acked": "a.acked",
    "creationTimestamp": "a.created",
    "updateTimestamp": "a.updated",
}
THEN_UPDATED = frozenset({"state", "acked"})


def alarm_uid(row_id: int) -> str:
    return f"{row_id:016x}"


def row_id(uid: str) -> int | None:
    try:
        value = int(uid, 16)
    except ValueError:
        return None
    return value if len(uid) == 16 and 0 < value < 2**63 else None


# --- raised and cleared (the simulator's entry points) -------------------------------------------


def _open(conn: sqlite3.Connection, bs_uid: int, code: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM station_alarms WHERE bs_uid = ? AND alarm_id = ? AND state > 1"
        " ORDER BY id DESC LIMIT 1",
        (bs_uid, code),
    ).fetchone()
    return row


def raise_alarm(
    conn: sqlite3.Connection,
    bs_uid: int,
    code: int,
    severity: int,
    add_info2: str | None,
    now_ms: int,
) -> None:
    """Raise alarm `code` on a station at `severity` (2..6). Raised already at that severity:
    only `addInfo2` follows; at another one: a new occurrence, un-acknowledged again."""
    severity = min(max(int(severity), 2), 6)
    current = _open(conn, bs_uid, code)
    if current is None:
        partner = conn.execute(
            "SELECT partner_uid FROM stations WHERE uid = ?", (bs_uid,)
        ).fetchone()
        if partner is None:
            return
        conn.execute(
            "INSERT INTO station_alarms (partner_uid, bs_uid, alarm_id, state, level, created,"
            " updated, add_info, add_info2) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (partner[0], bs_uid, code, severity, severity, now_ms, now_ms, None, add_info2),
        )
    elif current["state"] != severity:
        conn.execute(
            "UPDATE station_alarms SET state = ?, level = max(level, ?), occurrence ="
            " occurrence + 1, updated = ?, acked = 0, acked_info = NULL, acked_ts = NULL,"
            " add_info2 = ? WHERE id = ?",
            (severity, severity, now_ms, add_info2, current["id"]),
        )
    elif add_info2 != current["add_info2"]:
        conn.execute(
            "UPDATE station_alarms SET add_info2 = ? WHERE id = ?", (add_info2, current["id"])
        )
        return
    else:
        return
    refresh_counters(conn, [bs_uid])


def clear_alarm(conn: sqlite3.Connection, bs_uid: int, code: int, now_ms: int) -> None:
    """Clear alarm `code` of a station (nothing when it is not raised): state 1, a new
    occurrence to acknowledge; the row stays as history."""
    current = _open(conn, bs_uid, code)
    if current is None:
        return
    conn.execute(
        "UPDATE station_alarms SET state = 1, occurrence = occurrence + 1, updated = ?,"
        " cleared = ?, acked = 0, acked_info = NULL, acked_ts = NULL WHERE id = ?",
        (now_ms, now_ms, current["id"]),
    )
    refresh_counters(conn, [bs_uid])


def refresh_counters(conn: sqlite3.Connection, stations: Iterable[int] | None) -> None:
    """alarm1..alarm6 and alarm_level of these stations (None: all) from their alarms."""
    targets = None if stations is None else sorted(set(stations))
    if targets is not None and not targets:
        return
    counts: dict[int, list[int]] = {}
    if targets is None:
        conn.execute(
            "UPDATE stations SET alarm1 = 0, alarm2 = 0, alarm3 = 0, alarm4 = 0, alarm5 = 0,"
            " alarm6 = 0, alarm_level = 0 WHERE alarm_level <> 0 OR alarm1 + alarm2 + alarm3"
            " + alarm4 + alarm5 + alarm6 <> 0"
        )
        rows = conn.execute(
            "SELECT bs_uid, state, count(*) FROM station_alarms WHERE acked = 0"
            " GROUP BY bs_uid, state"
        ).fetchall()
    else:
        counts = {t: [0] * 6 for t in targets}
        rows = conn.execute(
            "SELECT bs_uid, state, count(*) FROM station_alarms WHERE acked = 0 AND bs_uid IN"
            " (SELECT value FROM json_each(?)) GROUP BY bs_uid, state",
            (json.dumps(targets),),
        ).fetchall()
    for uid, state, n in rows:
        counts.setdefault(uid, [0] * 6)[state - 1] = n
    conn.executemany(
        "UPDATE stations SET alarm1 = ?, alarm2 = ?, alarm3 = ?, alarm4 = ?, alarm5 = ?,"
        " alarm6 = ?, alarm_level = ? WHERE uid = ?",
        [
            (*c, max((i + 1 for i, n in enumerate(c) if n), default=0), uid)
            for uid, c in counts.items()
        ],
    )


# --- lists -----------------------------------------------------------------------------------


@dataclass
class StationAlarmQuery:
    """The filters of an alarm list (validated by the route). `equal`: the state exactly,
    else that state or above; `peak`: the highest severity reached at least this;
    `cleared_only`: the histories."""

    state: int | None = None
    equal: bool = False
    peak: int | None = None
    cleared_only: bool = False
    acked: bool | None = None
    alarm_id: int | None = None
    alarm_uid: str | None = None
    lrr_ids: Sequence[str] = ()
    domain: Sequence[str] = ()
    created_from: int | None = None
    updated_to: int | None = None


def where(
    partner_uid: int,
    q: StationAlarmQuery,
    restrictions: DomainRestrictions | None,
    *,
    station: int | None = None,
) -> Where:
    w = Where()
    w.add("a.partner_uid = ?", partner_uid)
    if station is not None:
        w.add("a.bs_uid = ?", station)
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
    if q.lrr_ids:
        tests, params = any_prefix("lrr_id", [v.strip().upper() for v in q.lrr_ids])
        w.add(
            f"a.bs_uid IN (SELECT uid FROM stations WHERE partner_uid = ? AND {tests})",
            partner_uid,
            *params,
        )
    groups: dict[str, list[str]] = {}
    for value in q.domain:
        group, _, name = value.partition(":")
        groups.setdefault(group, []).append(name)
    for group, names in groups.items():
        w.add(
            "a.bs_uid IN (SELECT station_uid FROM station_domains WHERE domain_id IN"
            f" (SELECT id FROM domains WHERE grp = ? AND name IN ({marks(names)})))",
            group,
            *names,
        )
    sql, params = restriction_sql(restrictions, "a.domain_set")
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
    column = SORT_COLUMNS[sort]
    order = "DESC" if descending else "ASC"
    clauses, params = [w.sql()], list(w.params)
    if after_id is not None:
        clauses.append("a.id < ?" if descending else "a.id > ?")
        params.append(after_id)
    if column == "a.id":
        order_by = f"a.id {order}"
    elif sort in THEN_UPDATED:
        order_by = f"{column} {order}, a.updated DESC, a.id {order}"
    else:
        order_by = f"{column} {order}, a.id {order}"
    rows = conn.execute(
        f"SELECT a.* FROM station_alarms a WHERE {' AND '.join(clauses)} ORDER BY {order_by}"
        " LIMIT ? OFFSET ?",
        [*params, limit + 1, offset],
    ).fetchall()
    return rows[:limit], len(rows) > limit


def history_page(
    conn: sqlite3.Connection, w: Where, *, offset: int, limit: int
) -> tuple[list[sqlite3.Row], bool]:
    """Cleared alarms, latest clearance first."""
    rows = conn.execute(
        f"SELECT a.* FROM station_alarms a WHERE {w.sql()} ORDER BY a.cleared DESC, a.id DESC"
        " LIMIT ? OFFSET ?",
        [*w.params, limit + 1, offset],
    ).fetchall()
    return rows[:limit], len(rows) > limit


def count(conn: sqlite3.Connection, w: Where) -> int:
    row = conn.execute(f"SELECT count(*) FROM station_alarms a WHERE {w.sql()}", w.params)
    return int(row.fetchone()[0])


def state_counts(conn: sqlite3.Connection, w: Where) -> dict[int, int]:
    rows = conn.execute(
        f"SELECT a.state, count(*) FROM station_alarms a WHERE {w.sql()} GROUP BY a.state",
        w.params,
    )
    return {int(s): int(n) for s, n in rows}


def brief(row: sqlite3.Row) -> dict[str, Any]:
    out = {
        "alarmUid": alarm_uid(row["id"]),
        "href": f"{BASE_HREF}/{row['bs_uid']}/alarms/{alarm_uid(row['id'])}",
        "ID": row["alarm_id"],
        "state": row["state"],
        "level": min(max(row["level"] - 1, 0), 5),
        "occurrence": row["occurrence"],
        "acked": bool(row["acked"]),
        "ackedInfo": row["acked_info"],
        "ackedTimestamp": row["acked_ts"],
        "creationTimestamp": row["created"],
        "updateTimestamp": row["updated"],
        "addInfo": row["add_info"],
        "addInfo2": row["add_info2"],
    }
    return {k: v for k, v in out.items() if v is not None}


def stations_of(conn: sqlite3.Connection, uids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """lrrID, name and domains of the stations `uids` (the `bs` of collection briefs)."""
    ids = sorted(set(uids))
    if not ids:
        return {}
    m = marks(ids)
    out = {
        r[0]: {"lrrID": r[1], "name": r[2], "domains": []}
        for r in conn.execute(f"SELECT uid, lrr_id, name FROM stations WHERE uid IN ({m})", ids)
    }
    for uid, grp, name in conn.execute(
        "SELECT l.station_uid, dm.grp, dm.name FROM station_domains l JOIN domains dm"
        f" ON dm.id = l.domain_id WHERE l.station_uid IN ({m}) ORDER BY dm.grp",
        ids,
    ):
        out[uid]["domains"].append({"name": name, "group": {"name": grp}})
    return out


def ack(conn: sqlite3.Connection, w: Where, who: str, ts: int) -> int:
    """Acknowledge the un-acknowledged alarms matching `w`; returns how many."""
    rows = conn.execute(
        f"SELECT a.id, a.bs_uid FROM station_alarms a WHERE {w.sql()} AND a.acked = 0", w.params
    ).fetchall()
    conn.executemany(
        "UPDATE station_alarms SET acked = 1, acked_info = ?, acked_ts = ? WHERE id = ?",
        [(who, ts, r[0]) for r in rows],
    )
    refresh_counters(conn, [r[1] for r in rows])
    return len(rows)


def among(w: Where, alarm_uids: Sequence[str]) -> Where:
    ids = [i for i in (row_id(u) for u in alarm_uids) if i is not None] or [-1]
    narrowed = Where(list(w.clauses), list(w.params))
    narrowed.add("a.id IN (SELECT value FROM json_each(?))", json.dumps(ids))
    return narrowed
