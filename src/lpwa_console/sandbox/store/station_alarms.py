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
from .alarm_rows import SORT_COLUMNS as SORT_COLUMNS
from .alarm_rows import AlarmRowQuery, AlarmTable, add_row_filters, brief_fields
from .alarm_rows import alarm_uid as alarm_uid
from .alarm_rows import among as among
from .alarm_rows import row_id as row_id
from .sql import Where, any_prefix, marks
from .stations import BASE_HREF, restriction_sql

ALARMS = AlarmTable("station_alarms", "bs_uid")


# --- raised and cleared (the simulator's entry points) -------------------------------------------


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
    current = ALARMS.latest_open(conn, bs_uid, code)
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
    current = ALARMS.latest_open(conn, bs_uid, code)
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
class StationAlarmQuery(AlarmRowQuery):
    """The filters of a station alarm list; `lrr_ids`: prefixes of the stations' LRR IDs."""

    lrr_ids: Sequence[str] = ()


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
    add_row_filters(w, q)
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
    w.restrict(restriction_sql(restrictions, "a.domain_set"))
    return w


# A sorted page of rows, and the count (store/alarm_rows.py).
page = ALARMS.page
count = ALARMS.count


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


def state_counts(conn: sqlite3.Connection, w: Where) -> dict[int, int]:
    rows = conn.execute(
        f"SELECT a.state, count(*) FROM station_alarms a WHERE {w.sql()} GROUP BY a.state",
        w.params,
    )
    return {int(s): int(n) for s, n in rows}


def brief(row: sqlite3.Row, base: str = BASE_HREF) -> dict[str, Any]:
    """`base`: the stations' path the reader follows (`stations.station_base`)."""
    href = f"{base}/{row['bs_uid']}/alarms/{alarm_uid(row['id'])}"
    out = {**brief_fields(row, href), "addInfo2": row["add_info2"]}
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
    stations = ALARMS.acknowledge(conn, w, who, ts)
    refresh_counters(conn, stations)
    return len(stations)
