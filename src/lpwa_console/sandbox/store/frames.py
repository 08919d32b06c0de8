"""Hourly traffic buckets of devices (`frame_buckets`), filled by the demo and the simulator."""

from __future__ import annotations

import math
import sqlite3
from typing import Any

HOUR_MS = 3_600_000


def aggregated(
    conn: sqlite3.Connection, device_uid: int, begin: int, end: int, step: int
) -> list[dict[str, Any]]:
    """One bucket per `step` ms from `begin` to `end`; hourly rows go to the bucket holding
    their start (a step under an hour shows each hour in one of its buckets)."""
    count = max(0, -(-(end - begin) // step))
    out: list[dict[str, Any]] = [
        {"timestamp": begin + i * step, "up": [0, 0], "dw": [0, 0], "rssi": 0.0, "snr": 0.0}
        for i in range(count)
    ]
    for ts, up, up_size, dw, dw_size, rssi, snr in conn.execute(
        "SELECT ts, up, up_size, dw, dw_size, rssi_sum, snr_sum FROM frame_buckets"
        " WHERE device_uid = ? AND ts >= ? AND ts < ? ORDER BY ts",
        (device_uid, begin - begin % HOUR_MS, end),
    ):
        index = max(0, (ts - begin) // step)
        if index >= count:
            continue
        b = out[index]
        b["up"][0] += up
        b["up"][1] += up_size
        b["dw"][0] += dw
        b["dw"][1] += dw_size
        b["rssi"] += rssi
        b["snr"] += snr
    return [_bucket(b) for b in out]


def _bucket(b: dict[str, Any]) -> dict[str, Any]:
    up, up_size = b["up"]
    dw, dw_size = b["dw"]
    item: dict[str, Any] = {
        "timestamp": b["timestamp"],
        "up": {"count": up, "size": up_size, "countOnTime": up, "sizeOnTime": up_size},
        "dw": {"count": dw, "size": dw_size, "countSent": dw, "sizeSent": dw_size},
    }
    # The simulated network loses no uplink (every frame counts on time): no PER. A slot
    # without uplinks has no mean; the reference requires the means, so they read 0 there,
    # beside its uplink count of 0.
    rssi, snr = (b["rssi"] / up, b["snr"] / up) if up else (0.0, 0.0)
    item["rssiMean"] = round(rssi, 1)
    item["snrMean"] = round(snr, 1)
    item["espMean"] = round(esp(rssi, snr), 1) if up else 0.0
    item["instantPerMean"] = 0.0
    return item


def esp(rssi: float, snr: float) -> float:
    """Estimated signal power (dBm) of a frame heard at `rssi` with `snr`."""
    return rssi + snr - 10 * math.log10(1 + 10 ** (snr / 10))


def frames(
    conn: sqlite3.Connection, device_uid: int, begin: int, end: int, types: set[int], limit: int
) -> list[dict[str, Any]]:
    """Individual frames rebuilt from the buckets (spread evenly over each hour), newest first."""
    out: list[dict[str, Any]] = []
    for ts, up, up_size, dw, dw_size, rssi, snr in conn.execute(
        "SELECT ts, up, up_size, dw, dw_size, rssi_sum, snr_sum FROM frame_buckets"
        " WHERE device_uid = ? AND ts >= ? AND ts < ? ORDER BY ts DESC",
        (device_uid, begin - begin % HOUR_MS, end),
    ):
        hour: list[dict[str, Any]] = []
        if 0 in types:
            for i in range(up):
                hour.append(
                    {"type": 0, "timestamp": ts + (i + 1) * HOUR_MS // (up + 1),
                     "size": up_size // up, "rssi": round(rssi / up, 1), "snr": round(snr / up, 1)}
                )  # fmt: skip
        if 1 in types:
            for i in range(dw):
                hour.append(
                    {"type": 1, "timestamp": ts + (i + 1) * HOUR_MS // (dw + 1) + 1000,
                     "size": dw_size // dw}
                )  # fmt: skip
        hour = [f for f in hour if begin <= f["timestamp"] < end]
        out += sorted(hour, key=lambda f: -f["timestamp"])
        if len(out) >= limit:
            return out[:limit]
    return out
