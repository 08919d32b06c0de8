"""What stations report, as the monitoring endpoints read it: min/max records since the last
reset (`station_runtime`), hourly samples (`station_hours`: health, round trips and radio
traffic) aggregated to the caller's step, counters, and the devices a station heard
(`station_devices`, with each device's receptions in its row: sandbox/receptions.py)."""

from __future__ import annotations

import json
import math
import sqlite3
from typing import Any

from .. import receptions as heard_by
from ..station_trouble import BEACON_PERIOD_MS, beacons_sent
from . import station_ops
from .stations import backhaul_address

HOUR_MS = 3_600_000
KEEP_HOURS_MS = 7 * 24 * HOUR_MS  # station_hours keeps a week per station


def record(conn: sqlite3.Connection, uid: int, what: str) -> dict[str, Any]:
    """sys/cpu, sys/ram, sys/disks/0: lowest and highest since recordedSince."""
    r = station_ops.runtime(conn, uid)
    label = {"cpu": "CPU", "ram": "RAM", "disk": "Disk"}[what]
    out: dict[str, Any] = {"recordedSince": r["recorded_since"] or 0}
    for edge in ("min", "max"):
        value = r.get(f"{what}_{edge}")
        if value is not None:
            out[f"{edge}{label}"] = {"value": value, "recordedDate": r[f"{what}_{edge}_ts"]}
    return out


def _buckets(
    conn: sqlite3.Connection, uid: int, start: int, end: int, step: int, columns: str
) -> list[tuple[int, list[tuple[Any, ...]]]]:
    """The hourly rows of [start, end) grouped per bucket of `step` ms (empty buckets too)."""
    count = max(0, -(-(end - start) // step))
    groups: list[tuple[int, list[tuple[Any, ...]]]] = [(start + i * step, []) for i in range(count)]
    for row in conn.execute(
        f"SELECT ts, {columns} FROM station_hours WHERE bs_uid = ? AND ts >= ? AND ts < ?"
        " ORDER BY ts",
        (uid, start - start % HOUR_MS, end),
    ):
        index = max(0, (row[0] - start) // step)
        if index < count:
            groups[index][1].append(tuple(row[1:]))
    return groups


def _mean_dev(n: int, total: int, squares: int) -> tuple[int, int]:
    if not n:
        return 0, 0
    mean = total / n
    return round(mean), round(math.sqrt(max(0.0, squares / n - mean * mean)))


def history(
    conn: sqlite3.Connection, uid: int, what: str, start: int, end: int, step: int
) -> list[dict[str, Any]]:
    """sys/*/histories and wans/ints/*/roundTrips: one sample per step with reports in it."""
    out = []
    if what in ("cpu", "rtt"):
        for ts, rows in _buckets(
            conn, uid, start, end, step, f"n, {what}_sum, {what}_sq, {what}_max"
        ):
            n = sum(r[0] for r in rows)
            if not n:
                continue
            mean, dev = _mean_dev(n, sum(r[1] for r in rows), sum(r[2] for r in rows))
            peak = max(r[3] for r in rows)
            if what == "cpu":
                out.append({"timestamp": ts, "avgCPU": mean, "devCPU": dev, "maxCPU": peak})
            else:
                out.append({"timestamp": ts, "avgRT": mean, "devRT": dev, "maxRT": peak})
        return out
    label = {"ram": "RAM", "disk": "Disk"}[what]
    for ts, rows in _buckets(conn, uid, start, end, step, f"n, {what}_sum, {what}_max"):
        n = sum(r[0] for r in rows)
        if n:
            out.append({"timestamp": ts, f"avg{label}": round(sum(r[1] for r in rows) / n),
                        f"max{label}": max(r[2] for r in rows)})  # fmt: skip
    return out


def traffic(
    conn: sqlite3.Connection, uid: int, start: int, end: int, step: int
) -> list[dict[str, Any]]:
    """rfProbe/frames: uplinks heard and downlinks sent per step."""
    out = []
    for ts, rows in _buckets(conn, uid, start, end, step, "up, up_size, dw, dw_size, dw_dropped"):
        up, up_size, dw, dw_size, dropped = (sum(r[i] for r in rows) for i in range(5))
        size_each = dw_size // dw if dw else 0
        out.append({
            "timestamp": ts,
            "up": {"count": up, "size": up_size, "countOnTime": up, "sizeOnTime": up_size,
                   "countLate": 0, "sizeLate": 0},
            "dw": {"count": dw, "size": dw_size, "countSent": dw - dropped,
                   "sizeSent": dw_size - dropped * size_each, "countFailed": dropped,
                   "sizeFailed": dropped * size_each},
        })  # fmt: skip
    return out


def window_percent(
    conn: sqlite3.Connection, uid: int, what: str, since_ms: int
) -> tuple[float, int] | None:
    """(percentage, samples) of the hours from `since_ms` for the usage alarms: the mean of
    cpu/ram/disk, or invalid CRC uplinks (`crc`) or dropped downlinks (`dropped`) in %."""
    if what in ("cpu", "ram", "disk"):
        sql = f"SELECT sum(n), sum({what}_sum) FROM station_hours"
    elif what == "crc":
        sql = "SELECT sum(up), sum(up_crc) FROM station_hours"
    else:
        sql = "SELECT sum(dw), sum(dw_dropped) FROM station_hours"
    total, part = conn.execute(
        f"{sql} WHERE bs_uid = ? AND ts >= ?", (uid, since_ms - since_ms % HOUR_MS)
    ).fetchone()
    if not total:
        return None
    if what in ("cpu", "ram", "disk"):
        return part / total, total
    return 100.0 * part / total, total


def indicators(conn: sqlite3.Connection, uid: int, kind: str, now_ms: int) -> dict[str, Any]:
    """rfcell/indicators or wans/indicators since recordedSince: the radio counters from the
    hourly traffic, the start and link counts the simulator kept."""
    r = station_ops.runtime(conn, uid)
    since = r["recorded_since"] or now_ms
    counted = json.loads(r["counters"] or "{}")
    row = conn.execute(
        "SELECT sum(up), sum(up_crc), sum(dw), sum(dw_dropped), sum(n), sum(rtt_sum)"
        " FROM station_hours WHERE bs_uid = ? AND ts >= ?",
        (uid, since - since % HOUR_MS),
    ).fetchone()
    up, crc, dw, dropped, n, rtt = (v or 0 for v in row)
    if kind == "rfcell":
        beacons = (now_ms - since) // BEACON_PERIOD_MS if r["beacon"] else 0
        gps = conn.execute("SELECT gps_receiver FROM stations WHERE uid = ?", (uid,)).fetchone()
        sent = beacons_sent(uid, gps[0] if gps else None, beacons)
        values = {
            "urcv": up, "ucrc": crc, "usz": 0, "udly": 0, "uder": 0, "unwf": 0,
            "dsnd": dw - dropped, "dwai": 0, "dbsy": dropped,
            "cok": 1 + counted.get("rfcell", {}).get("cok", [0])[0], "cerr": 0, "conf": 0,
            "clnk": counted.get("wan", {}).get("disc", [0])[0], "breq": beacons, "bsnd": sent,
        }  # fmt: skip
    else:
        wan = counted.get("wan", {})
        values = {"cnx": wan.get("cnx", [0])[0], "disc": wan.get("disc", [0])[0],
                  "rtt": round(rtt / n) if n else 0}  # fmt: skip
    return {"recordedSince": since, "inds": [{"ID": k, "current": v} for k, v in values.items()]}


def interface(conn: sqlite3.Connection, uid: int, now_ms: int) -> dict[str, Any]:
    """wans/ints/0: the Ethernet backhaul's records."""
    r = station_ops.runtime(conn, uid)
    since = r["recorded_since"] or now_ms
    row = conn.execute(
        "SELECT sum(n), sum(rtt_sum), sum(rtt_sq), sum(up_size), sum(dw_size)"
        " FROM station_hours WHERE bs_uid = ? AND ts >= ?",
        (uid, since - since % HOUR_MS),
    ).fetchone()
    n, rtt_sum, rtt_sq, up_size, dw_size = (v or 0 for v in row)
    mean, dev = _mean_dev(n, rtt_sum, rtt_sq)
    seconds = max(1, (now_ms - since) // 1000)
    # Backhaul bytes: each radio frame travels with ~150 bytes of protocol around it.
    tx_kb = (up_size + 150 * n) / 1000
    rx_kb = (dw_size + 120 * n) / 1000
    out: dict[str, Any] = {
        "recordedSince": since, "address": backhaul_address(uid),
        "activity": seconds, "averageLatency": mean, "deviationLatency": dev,
        "averageTxTraffic": round(tx_kb * 8000 / seconds), "averageRxTraffic": round(rx_kb * 8000 / seconds),
        "totalTxTraffic": round(tx_kb, 3), "totalRxTraffic": round(rx_kb, 3),
    }  # fmt: skip
    if r["rtt_max"] is not None:
        out["maxLatency"] = {"value": r["rtt_max"], "recordedDate": r["rtt_max_ts"]}
    return out


def served_devices(
    conn: sqlite3.Connection,
    uid: int,
    *,
    since_ms: int,
    ranks: list[int],
    with_location: bool,
    visible_sub: int | None,
    descending: bool,
    offset: int,
    limit: int,
) -> tuple[list[dict[str, Any]], bool, int, list[dict[str, Any]]]:
    """The devices whose last uplink this station heard since `since_ms`: (items, more,
    count, the stations involved). Name and href only for the partner's own subscription
    (`visible_sub`). A station serves tens of devices, a few thousand at most: their rows
    are read by the station's entries and filtered here."""
    where = "uid IN (SELECT device_uid FROM station_devices WHERE bs_uid = ?)"
    if with_location:
        where += " AND lat IS NOT NULL AND lon IS NOT NULL"
    found = []
    for row in conn.execute(
        "SELECT uid, eui, nw_address, name, subscription_id, lat, lon, receptions"
        f" FROM devices WHERE {where}",
        (uid,),
    ):
        ts, heard = heard_by.unpack(row[7])
        rank = next((i for i, h in enumerate(heard, 1) if h[0] == uid), None)
        if ts is None or ts < since_ms or rank not in ranks:
            continue
        found.append((ts, row, heard[rank - 1], heard[0][0]))
    found.sort(key=lambda f: f[1][0])  # (ties by device)
    found.sort(key=lambda f: f[0], reverse=descending)
    page = found[offset : offset + limit]
    best_uids = sorted({f[3] for f in page} | {uid})
    stations = {
        s_uid: (lrr_id, lat, lon)
        for s_uid, lrr_id, lat, lon in conn.execute(
            "SELECT uid, lrr_id, lat, lon FROM stations WHERE uid IN"
            f" ({', '.join('?' * len(best_uids))})",
            best_uids,
        )
    }
    items = []
    for ts, (dev_uid, eui, addr, name, sub, lat, lon, _r), (_bs, rssi, snr, esp), best in page:
        item: dict[str, Any] = {"devEUI": eui, "devAddr": addr or "", "lastUpTimestamp": ts,
                                "lrrID": stations.get(best, ("",))[0], "rssi": rssi,
                                "snr": snr, "esp": esp}  # fmt: skip
        if sub == visible_sub:
            item |= {"name": name, "href": f"/subscriptions/mine/devices/{dev_uid}"}
        if lat is not None and lon is not None:
            item["loc"] = {"lat": lat, "lon": lon}
        items.append(item)
    lrrs = []
    for s_uid, (lrr_id, lat, lon) in sorted(stations.items(), key=lambda kv: kv[1][0]):
        entry: dict[str, Any] = {"lrrID": lrr_id, "href": f"/partners/mine/bss/{s_uid}"}
        if lat is not None and lon is not None:
            entry["loc"] = {"lat": lat, "lon": lon}
        lrrs.append(entry)
    return items, len(found) > offset + limit, len(found), lrrs


def device_lrrs(conn: sqlite3.Connection, device_uid: int) -> list[dict[str, Any]]:
    """The stations that heard the device's last uplink, best first (a device's `LRRs`)."""
    row = conn.execute("SELECT receptions FROM devices WHERE uid = ?", (device_uid,)).fetchone()
    _ts, heard = heard_by.unpack(row[0] if row else None)
    if not heard:
        return []
    uids = [h[0] for h in heard]
    stations = {
        s_uid: (lrr_id, lat, lon)
        for s_uid, lrr_id, lat, lon in conn.execute(
            f"SELECT uid, lrr_id, lat, lon FROM stations WHERE uid IN ({', '.join('?' * len(uids))})",
            uids,
        )
    }
    out = []
    for bs, rssi, snr, esp in heard:
        if bs not in stations:  # (a station deleted since)
            continue
        lrr_id, lat, lon = stations[bs]
        item: dict[str, Any] = {"ID": lrr_id, "RSSI": rssi, "SNR": snr, "ESP": esp}
        if lat is not None and lon is not None:
            item |= {"lat": lat, "lon": lon}
        out.append(item)
    return out
