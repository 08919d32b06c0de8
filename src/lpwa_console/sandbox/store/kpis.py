"""The operator's dashboard KPIs (SQL only): what each KPI measures, computed from the
simulated network's own tables, and the samples that make its history.

A KPI's value at a time is computed, never stored as a constant: device and key-manager
counts from `devices` and `km_devices` (those created by then, in their current state),
traffic rates from the hourly `frame_buckets`, active alarms from `alarms` and
`station_alarms`, station availability and load from `stations` (now) and `station_hours`
(the past). `kpi_samples` keeps the values the simulator records every few simulated
minutes (`record_due`) and the hourly past a new demo gets once the sandbox listens
(`backfill`, with the traffic history); `last_values` reads them and adds the value
computed at the request's time as the newest point.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

HOUR_MS = 3_600_000
SAMPLE_MS = 5 * 60_000  # a live sample every 5 simulated minutes
KEEP_MS = 8 * 24 * HOUR_MS  # samples older than this are pruned
BACKFILL_HOURS = 72  # the demo's traffic history: three days

# --- the catalogue --------------------------------------------------------------------------


def _m(
    name: str, label: str, unit: str, color: str, style: str = "SOLID", dim: str | None = None
) -> dict[str, Any]:
    metric = {"name": name, "label": label, "unit": unit, "colorId": color, "lineStyle": style}
    return metric | ({"keyDimension": dim} if dim else {})


DEVICE_HEALTH = {"active": "ACTIVE", "init": "INIT", "rfError": "RF_CNX_ERROR",
                 "suspended": "SUSPENDED"}  # fmt: skip
KM_STATES = {"preCommissioned": "PRE_COMMISSIONED", "generic": "GENERIC",
             "commissioned": "COMMISSIONED", "activated": "ACTIVATED"}  # fmt: skip
SEVERITIES = {"critical": 6, "major": 5, "minor": 4, "warning": 3, "indeterminate": 2}


def _kpi(
    ref: str, name: str, description: str, durations: list[str], *metrics: dict[str, Any]
) -> dict[str, Any]:
    return {"ID": ref, "name": name, "description": description, "metrics": list(metrics),
            "lastValues": {"durations": durations}}  # fmt: skip


# One KPI a paragraph, one metric a line: (name, label, unit, colour, line style, dimension).
# fmt: off
KPIS: dict[str, dict[str, Any]] = {kpi["ID"]: kpi for kpi in (
    _kpi("devices", "Devices by state and connectivity",
         "Devices of every subscription: by health state, by connectivity, and"
         " those that sent an uplink in the last complete hour.",
         ["PT6H", "P1D", "P3D"],
         _m("active", "Active", "devices", "green"),
         _m("init", "Never heard", "devices", "grey", "DOTTED"),
         _m("rfError", "Radio connection lost", "devices", "red", "DASHED"),
         _m("suspended", "Suspended", "devices", "brown", "DASH_DOT"),
         _m("lorawan", "LoRaWAN devices", "devices", "blue"),
         _m("cellular", "Cellular devices", "devices", "orange"),
         _m("communicating", "Sent an uplink in the hour", "devices", "purple", "DASHED")),
    _kpi("traffic", "Uplink and downlink rates",
         "Frames per hour over the last complete hour, and uplinks per hour"
         " of the devices routed to each application server.",
         ["PT6H", "P1D", "P3D"],
         _m("uplinks", "Uplinks", "frames/h", "blue"),
         _m("downlinks", "Downlinks", "frames/h", "orange", "DASHED"),
         _m("appServerUplinks.*", "Uplinks by application server", "frames/h", "cyan",
            "DOTTED", "appServer")),
    _kpi("alarms", "Active alarms by severity",
         "Device, multicast group and base station alarms not cleared.",
         ["P1D", "P3D"],
         _m("critical", "Critical", "alarms", "red"),
         _m("major", "Major", "alarms", "orange"),
         _m("minor", "Minor", "alarms", "olive", "DASHED"),
         _m("warning", "Warning", "alarms", "cyan", "DOTTED"),
         _m("indeterminate", "Indeterminate", "alarms", "grey", "DASH_DOT")),
    _kpi("stations", "Base station availability and load",
         "Share of active base stations connected, their average CPU load,"
         " and the availability in each RF region and of each network partner.",
         ["PT6H", "P1D"],
         _m("availability", "Availability", "%", "green"),
         _m("load", "Average CPU load", "%", "red", "DASHED"),
         _m("regionAvailability.*", "Availability by RF region", "%", "blue", "DOTTED",
            "rfRegion"),
         _m("partnerAvailability.*", "Availability by partner", "%", "purple", "DASH_DOT",
            "partner")),
    _kpi("keyManager", "Key manager devices by state",
         "Devices of the key manager subscriptions, by state.",
         ["P1D", "P3D", "P7D"],
         _m("preCommissioned", "Pre-commissioned", "devices", "grey", "DOTTED"),
         _m("generic", "Generic", "devices", "blue", "DASHED"),
         _m("commissioned", "Commissioned", "devices", "orange"),
         _m("activated", "Activated", "devices", "green")),
)}
# fmt: on
DIMENSIONS = ("appServer", "partner", "rfRegion")


def kpi(uid: str) -> dict[str, Any] | None:
    return KPIS.get(uid)


def dimension_elements(conn: sqlite3.Connection, dimension: str) -> list[dict[str, str]] | None:
    """The elements of a dimension (`ID`: what a wildcard key ends with), None when the
    dimension is unknown."""
    if dimension == "appServer":
        rows = conn.execute("SELECT DISTINCT ref, name FROM app_servers ORDER BY ref").fetchall()
    elif dimension == "partner":
        rows = conn.execute("SELECT CAST(uid AS TEXT), name FROM partners ORDER BY uid").fetchall()
    elif dimension == "rfRegion":
        rows = conn.execute(
            "SELECT DISTINCT rf_region_id, rf_region_id FROM stations"
            " WHERE rf_region_id IS NOT NULL ORDER BY 1"
        ).fetchall()
    else:
        return None
    return [{"ID": ref, "name": name} for ref, name in rows]


# --- values at one time ---------------------------------------------------------------------


def _hour(ms: int) -> int:
    return ms - ms % HOUR_MS


def _percent(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 2) if whole else 0.0


def snapshot(conn: sqlite3.Connection, uid: str, at: int) -> dict[str, float]:
    """The KPI's values at `at` (ms): the network as it is, the rates of the last complete
    hour before `at`."""
    values: dict[str, float] = {}
    if uid == "devices":
        values = dict.fromkeys([*DEVICE_HEALTH, "lorawan", "cellular", "communicating"], 0.0)
        by_health = {v: k for k, v in DEVICE_HEALTH.items()}
        for conn_kind, health, n in conn.execute(
            "SELECT connectivity, health, count(*) FROM devices WHERE creation_date <= ?"
            " GROUP BY 1, 2",
            (at,),
        ):
            if health in by_health:
                values[by_health[health]] += n
            key = "lorawan" if conn_kind == "LORAWAN" else "cellular"
            values[key] += n
        values["communicating"] = _hour_totals(conn, _hour(at) - HOUR_MS)[2]
    elif uid == "traffic":
        hour = _hour(at) - HOUR_MS
        totals, per_server = _hourly_frames(conn, hour, hour)
        up, dw, _heard = totals.get(hour, (0, 0, 0))
        values = {"uplinks": float(up), "downlinks": float(dw)}
        for ref, by_hour in per_server.items():
            values[f"appServerUplinks.{ref}"] = float(by_hour.get(hour, 0))
    elif uid == "alarms":
        values = dict.fromkeys(SEVERITIES, 0.0)
        by_level = {v: k for k, v in SEVERITIES.items()}
        for state, n in conn.execute(
            "SELECT state, count(*) FROM alarms WHERE state > 1 AND created <= ? GROUP BY 1"
            " UNION ALL SELECT state, count(*) FROM station_alarms WHERE state > 1"
            " AND created <= ? GROUP BY 1",
            (at, at),
        ):
            if state in by_level:
                values[by_level[state]] += n
    elif uid == "stations":
        values = _station_snapshot(conn, at)
    elif uid == "keyManager":
        values = dict.fromkeys(KM_STATES, 0.0)
        by_state = {v: k for k, v in KM_STATES.items()}
        for state, n in conn.execute(
            "SELECT state, count(*) FROM km_devices WHERE created <= ? GROUP BY 1", (at,)
        ):
            values[by_state[state]] += n
    return {key: float(value) for key, value in values.items()}


# frame_buckets is keyed by device, then hour: an hour across every device is a scan (`+ts`
# keeps SQLite off any index on ts), summed here rather than through a GROUP BY.
def _hour_totals(conn: sqlite3.Connection, hour: int) -> tuple[int, int, int]:
    """Uplinks, downlinks and devices heard in the hour starting at `hour`."""
    up, dw, heard = conn.execute(
        "SELECT coalesce(sum(up), 0), coalesce(sum(dw), 0), coalesce(sum(up > 0), 0)"
        " FROM frame_buckets WHERE +ts = ?",
        (hour,),
    ).fetchone()
    return int(up), int(dw), int(heard)


def _hourly_frames(
    conn: sqlite3.Connection, first_hour: int, last_hour: int
) -> tuple[dict[int, list[int]], dict[str, dict[int, int]]]:
    """Per hour [uplinks, downlinks, devices heard], and per app server ID the uplinks per
    hour of its devices, over the hours from `first_hour` to `last_hour`."""
    servers: dict[int, list[str]] = defaultdict(list)
    for device, ref in conn.execute(
        "SELECT d.device_uid, a.ref FROM device_app_servers d"
        " JOIN app_servers a ON a.id = d.app_server_id"
    ):
        servers[device].append(ref)
    totals: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    per_server: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for device, ts, up, dw in conn.execute(
        "SELECT device_uid, ts, up, dw FROM frame_buckets WHERE +ts BETWEEN ? AND ?",
        (first_hour, last_hour),
    ):
        total = totals[ts]
        total[0] += up
        total[1] += dw
        total[2] += up > 0
        for ref in servers.get(device, ()):
            per_server[ref][ts] += up
    return totals, per_server


def _station_snapshot(conn: sqlite3.Connection, at: int) -> dict[str, float]:
    total = connected = 0
    load_sum = load_n = 0
    regions: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    partners: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for partner, region, cnx, cpu in conn.execute(
        "SELECT partner_uid, rf_region_id, cnx_state = 'CNX', cpu FROM stations"
        " WHERE state = 'ACTIVE' AND creation_date <= ?",
        (at,),
    ):
        total += 1
        connected += cnx
        if cnx and cpu is not None:
            load_sum += cpu
            load_n += 1
        for bucket in ([regions[region]] if region else []) + [partners[str(partner)]]:
            bucket[0] += cnx
            bucket[1] += 1
    values = {
        "availability": _percent(connected, total),
        "load": round(load_sum / load_n, 2) if load_n else 0.0,
    }
    for key, (up, n) in regions.items():
        values[f"regionAvailability.{key}"] = _percent(up, n)
    for key, (up, n) in partners.items():
        values[f"partnerAvailability.{key}"] = _percent(up, n)
    return values


# --- samples --------------------------------------------------------------------------------


def _insert(conn: sqlite3.Connection, rows: Iterable[tuple[str, int, str, float]]) -> None:
    conn.executemany("INSERT OR REPLACE INTO kpi_samples VALUES (?, ?, ?, ?)", rows)


def record(conn: sqlite3.Connection, at: int) -> None:
    """Sample every KPI at `at`; samples older than KEEP_MS go."""
    for uid in KPIS:
        _insert(conn, [(uid, at, key, value) for key, value in snapshot(conn, uid, at).items()])
    conn.execute("DELETE FROM kpi_samples WHERE ts < ?", (at - KEEP_MS,))


def last_sample(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT max(ts) FROM kpi_samples WHERE kpi = 'devices'").fetchone()
    return None if row[0] is None else int(row[0])


def record_due(conn: sqlite3.Connection, at: int) -> bool:
    """Sample when the newest sample is SAMPLE_MS old or more (the simulator's steps)."""
    last = last_sample(conn)
    if last is not None and at - last < SAMPLE_MS:
        return False
    record(conn, at)
    return True


def series(conn: sqlite3.Connection, uid: str, since: int) -> dict[str, list[tuple[int, float]]]:
    """The recorded samples of a KPI from `since` on, by key, oldest first."""
    out: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for ts, key, value in conn.execute(
        "SELECT ts, key, value FROM kpi_samples WHERE kpi = ? AND ts >= ? ORDER BY ts",
        (uid, since),
    ):
        out[key].append((ts, value))
    return dict(out)


# --- the past of a new demo -----------------------------------------------------------------


def backfill(conn: sqlite3.Connection, now: int, hours: int = BACKFILL_HOURS) -> int:
    """Hourly samples of the past `hours` before `now`, computed from the tables' own
    history (creation times, hourly frame and station buckets, alarm times). Returns the
    samples written."""
    first = _hour(now) - hours * HOUR_MS
    stamps = [first + i * HOUR_MS for i in range(1, hours + 1)]  # each: the hour before it
    rows: list[tuple[str, int, str, float]] = []
    rows += _backfill_counts(conn, "devices", stamps)
    rows += _backfill_counts(conn, "keyManager", stamps)
    rows += _backfill_traffic(conn, stamps)
    rows += _backfill_alarms(conn, stamps)
    rows += _backfill_stations(conn, stamps)
    # Samples the simulator took before this history existed read an empty past (a
    # traffic KPI of 0): they go, the next ones are taken on the history.
    conn.execute("DELETE FROM kpi_samples WHERE ts > ?", (first,))
    _insert(conn, rows)
    return len(rows)


def _cumulative(created: list[tuple[str, int, int]], stamps: list[int]) -> dict[str, list[float]]:
    """From (key, creation hour, count): per key, how many existed at each stamp."""
    out: dict[str, list[float]] = {}
    for key, hour, n in created:
        counts = out.setdefault(key, [0.0] * len(stamps))
        for i, stamp in enumerate(stamps):
            if hour < stamp:
                counts[i] += n
    return out


def _backfill_counts(
    conn: sqlite3.Connection, uid: str, stamps: list[int]
) -> list[tuple[str, int, str, float]]:
    created: list[tuple[str, int, int]] = []
    if uid == "devices":
        by_health = {v: k for k, v in DEVICE_HEALTH.items()}
        for kind, health, hour, n in conn.execute(
            "SELECT connectivity, health, creation_date - creation_date % ?, count(*)"
            " FROM devices GROUP BY 1, 2, 3",
            (HOUR_MS,),
        ):
            if health in by_health:
                created.append((by_health[health], hour, n))
            created.append(("lorawan" if kind == "LORAWAN" else "cellular", hour, n))
        keys = [*DEVICE_HEALTH, "lorawan", "cellular"]
    else:
        by_state = {v: k for k, v in KM_STATES.items()}
        for state, hour, n in conn.execute(
            "SELECT state, created - created % ?, count(*) FROM km_devices GROUP BY 1, 2",
            (HOUR_MS,),
        ):
            created.append((by_state[state], hour, n))
        keys = list(KM_STATES)
    counts = _cumulative(created, stamps)
    rows = [
        (uid, stamp, key, counts.get(key, [0.0] * len(stamps))[i])
        for key in keys
        for i, stamp in enumerate(stamps)
    ]
    return rows


def _backfill_traffic(
    conn: sqlite3.Connection, stamps: list[int]
) -> list[tuple[str, int, str, float]]:
    """Frames per hour, in all and per application server, and the devices heard in each
    hour (a device KPI): one pass over the hours' buckets."""
    hours, per_server = _hourly_frames(conn, stamps[0] - HOUR_MS, stamps[-1] - HOUR_MS)
    rows: list[tuple[str, int, str, float]] = []
    for stamp in stamps:
        up, dw, heard = hours.get(stamp - HOUR_MS, (0, 0, 0))
        rows.append(("traffic", stamp, "uplinks", float(up)))
        rows.append(("traffic", stamp, "downlinks", float(dw)))
        rows.append(("devices", stamp, "communicating", float(heard)))
    for ref, by_hour in per_server.items():
        rows += [
            ("traffic", s, f"appServerUplinks.{ref}", float(by_hour.get(s - HOUR_MS, 0)))
            for s in stamps
        ]
    return rows


def _backfill_alarms(
    conn: sqlite3.Connection, stamps: list[int]
) -> list[tuple[str, int, str, float]]:
    """An alarm counts from its creation until its clearing (its last update, for a device
    alarm cleared), at its current severity (the highest reached, once cleared)."""
    counts = {key: [0.0] * len(stamps) for key in SEVERITIES}
    by_level = {v: k for k, v in SEVERITIES.items()}
    for state, level, created, ended in conn.execute(
        "SELECT state, level, created, CASE WHEN state = 1 THEN updated END FROM alarms"
        " WHERE state > 1 OR updated >= ?"
        " UNION ALL SELECT state, level, created, CASE WHEN state = 1"
        " THEN coalesce(cleared, updated) END FROM station_alarms WHERE state > 1 OR updated >= ?",
        (stamps[0], stamps[0]),
    ):
        key = by_level.get(state if state > 1 else level)
        if key is None:
            continue
        for i, stamp in enumerate(stamps):
            if created <= stamp and (ended is None or ended > stamp):
                counts[key][i] += 1
    return [("alarms", s, key, counts[key][i]) for key in SEVERITIES for i, s in enumerate(stamps)]


def _backfill_stations(
    conn: sqlite3.Connection, stamps: list[int]
) -> list[tuple[str, int, str, float]]:
    """Availability: the stations that reported in the hour among the active ones created by
    then; load: their average CPU over the hour's reports."""
    low, high = stamps[0] - HOUR_MS, stamps[-1] - HOUR_MS
    stations = conn.execute(
        "SELECT uid, partner_uid, rf_region_id, creation_date FROM stations WHERE state = 'ACTIVE'"
    ).fetchall()
    reported: dict[int, set[int]] = defaultdict(set)
    cpu: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for bs, ts, n, cpu_sum in conn.execute(
        "SELECT bs_uid, ts, n, cpu_sum FROM station_hours WHERE ts BETWEEN ? AND ? AND n > 0",
        (low, high),
    ):
        reported[ts].add(bs)
        cpu[ts][0] += cpu_sum
        cpu[ts][1] += n
    if not reported:
        return []  # no station history (a big seeded network): the simulator makes it
    rows: list[tuple[str, int, str, float]] = []
    for stamp in stamps:
        hour = stamp - HOUR_MS
        here = [s for s in stations if s[3] <= stamp]
        up = reported.get(hour, set())
        rows.append(
            ("stations", stamp, "availability", _percent(sum(s[0] in up for s in here), len(here)))
        )
        total, n = cpu.get(hour, [0, 0])
        rows.append(("stations", stamp, "load", round(total / n, 2) if n else 0.0))
        groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for uid, partner, region, _ in here:
            for key in ([f"regionAvailability.{region}"] if region else []) + [
                f"partnerAvailability.{partner}"
            ]:
                groups[key][0] += uid in up
                groups[key][1] += 1
        rows += [("stations", stamp, key, _percent(a, b)) for key, (a, b) in groups.items()]
    return rows
