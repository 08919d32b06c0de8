"""The troubles some base stations of the living network have, so that every station alarm
of Document 2 §6 happens (issue 21: the demo shows every alarm code within its first
simulated day, whatever its size).

One station in TROUBLE_EVERY of each kind, by UID alone (not by dice: a small network has
them too, and the monitoring indicators read the same rule without the simulator's seed):

- flaky backhaul: it loses its backhaul about every two hours (FLAKY_OUTAGE_CHANCE a
  report) rather than once a fortnight (alarm 102);
- hot CPU, RAM or file system: its load drifts around 93-95 % (alarms 106, 107, 108);
- noisy site: besides a high CRC failure rate of the devices' uplinks, it hears interference,
  NOISE_FRAMES_PER_REPORT frames with an invalid CRC every 5 minutes (alarm 104);
- overloaded RF cell: besides the simulated devices' answers it carries a background
  downlink load (class C and multicast devices the demo does not simulate),
  BACKGROUND_DOWNLINKS_PER_REPORT frames every 5 minutes, OVERLOAD_DROP of them dropped
  (alarm 105);
- bad GPS antenna: with beacon transmission on, BAD_GPS_BEACON_FAILURES of its beacons fail
  (alarm 111). A station without a GPS receiver fails every beacon: a Class B beacon needs
  GPS time.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

TROUBLE_EVERY = 40
# The UID remainder (mod TROUBLE_EVERY) of each kind of troubled station.
HOT_CPU, HOT_RAM, HOT_DISK, NOISY, OVERLOADED, BAD_GPS, FLAKY_BACKHAUL = 5, 13, 21, 29, 37, 9, 17
FLAKY_OUTAGE_CHANCE = 1 / 24
NOISE_FRAMES_PER_REPORT = 6  # 72 an hour
BACKGROUND_DOWNLINKS_PER_REPORT = 10  # 120 an hour
OVERLOAD_DROP = 0.15
BEACON_PERIOD_MS = 128_000  # LoRaWAN Class B
BAD_GPS_BEACON_FAILURES = 0.4
HOUR_MS = 3_600_000

Ints = npt.NDArray[np.int64]
# (station, hour, up, up_size, up_crc, dw, dw_size, dw_dropped): station_traffic's rows.
TrafficRow = tuple[int, ...]


def troubled(uids: npt.ArrayLike, kind: int) -> npt.NDArray[np.bool_]:
    """Which of these stations have this kind of trouble."""
    return np.asarray(np.asarray(uids, dtype=np.int64) % TROUBLE_EVERY == kind)


def background_traffic(uid: int, report_ms: int) -> TrafficRow | None:
    """What a troubled station hears and sends beyond the simulated devices in the 5 minutes
    before its report, as a row of hourly traffic; None for an untroubled one."""
    kind = uid % TROUBLE_EVERY
    hour = report_ms - report_ms % HOUR_MS
    if kind == NOISY:
        n = NOISE_FRAMES_PER_REPORT
        return (uid, hour, n, 20 * n, n, 0, 0, 0)
    if kind == OVERLOADED:
        n = BACKGROUND_DOWNLINKS_PER_REPORT
        # The drops alternate 1 and 2 a report: 15 % over an hour, exactly.
        dropped = 1 + (report_ms // 300_000) % 2
        return (uid, hour, 0, 0, 0, n, 8 * n, dropped)
    return None


def merge_traffic(rows: list[TrafficRow]) -> list[TrafficRow]:
    """One row per (station, hour), the counts added (a dict of them keeps one)."""
    merged: dict[tuple[int, int], list[int]] = {}
    for station, hour, *counts in rows:
        got = merged.setdefault((station, hour), [0] * len(counts))
        for i, value in enumerate(counts):
            got[i] += value
    return [(station, hour, *counts) for (station, hour), counts in merged.items()]


def beacon_failure_share(uid: int, gps_receiver: str | None) -> float:
    """The share of its beacons a station fails to send (0..1), when beacons are on."""
    if gps_receiver == "ABSENT":
        return 1.0
    return BAD_GPS_BEACON_FAILURES if uid % TROUBLE_EVERY == BAD_GPS else 0.0


def beacons_sent(uid: int, gps_receiver: str | None, requested: int) -> int:
    """Of `requested` beacons, how many went out (the RF cell's `bsnd` beside `breq`)."""
    return requested - round(requested * beacon_failure_share(uid, gps_receiver))
