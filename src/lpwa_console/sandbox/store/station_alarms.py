"""Station alarms 102-111 as the simulator raises and clears them (the agreed interface of
issue 9: `raise_alarm`, `clear_alarm`). bs-api's module of the same name (lists, histories,
acknowledgement) supersedes this one at merge; these two functions keep their signatures."""

from __future__ import annotations

import sqlite3


def _refresh(conn: sqlite3.Connection, bs_uid: int) -> None:
    """alarm1..alarm6 (not acknowledged, per state) and alarm_level of the station."""
    counts = dict(
        conn.execute(
            "SELECT state, count(*) FROM station_alarms WHERE bs_uid = ? AND acked = 0"
            " GROUP BY state",
            (bs_uid,),
        ).fetchall()
    )
    level = conn.execute(
        "SELECT coalesce(max(state), 0) FROM station_alarms WHERE bs_uid = ? AND state > 1",
        (bs_uid,),
    ).fetchone()[0]
    conn.execute(
        "UPDATE stations SET alarm1 = ?, alarm2 = ?, alarm3 = ?, alarm4 = ?, alarm5 = ?,"
        " alarm6 = ?, alarm_level = ? WHERE uid = ?",
        (*(counts.get(i, 0) for i in range(1, 7)), level, bs_uid),
    )


def raise_alarm(
    conn: sqlite3.Connection,
    bs_uid: int,
    code: int,
    severity: int,
    add_info2: str | None,
    now_ms: int,
) -> None:
    """Raise alarm `code` at `severity`, or move the open one to it (idempotent)."""
    row = conn.execute(
        "SELECT id, state, add_info2 FROM station_alarms WHERE bs_uid = ? AND alarm_id = ?"
        " AND state > 1 ORDER BY id DESC LIMIT 1",
        (bs_uid, code),
    ).fetchone()
    if row is None:
        conn.execute(
            "INSERT INTO station_alarms (partner_uid, bs_uid, alarm_id, state, level, created,"
            " updated, add_info2) SELECT partner_uid, uid, ?, ?, ?, ?, ?, ? FROM stations"
            " WHERE uid = ?",
            (code, severity, severity, now_ms, now_ms, add_info2, bs_uid),
        )
    elif row[1] != severity or row[2] != add_info2:
        conn.execute(
            "UPDATE station_alarms SET state = ?, level = max(level, ?), updated = ?,"
            " add_info2 = ?, occurrence = occurrence + (state != ?) WHERE id = ?",
            (severity, severity, now_ms, add_info2, severity, row[0]),
        )
    else:
        return
    _refresh(conn, bs_uid)


def clear_alarm(conn: sqlite3.Connection, bs_uid: int, code: int, now_ms: int) -> None:
    """Clear the open alarm `code` of the station, if any (idempotent; its history stays)."""
    changed = conn.execute(
        "UPDATE station_alarms SET state = 1, cleared = ?, updated = ? WHERE bs_uid = ?"
        " AND alarm_id = ? AND state > 1",
        (now_ms, now_ms, bs_uid, code),
    ).rowcount
    if changed:
        _refresh(conn, bs_uid)
