"""The radio network's physics and rules, as pure functions the simulator applies.

- Link budget: a device's uplink (14 dBm, 868 MHz) loses a log-distance path loss on its way
  to a station (exponent 3.5, a town); the station hears it when the RSSI is above the
  LoRa sensitivity, with an SNR against a -117 dBm noise floor (125 kHz). A per-link fading
  term (seeded) makes neighbours differ.
- Load: CPU, RAM and disk usage drift as a mean-reverting walk around a per-station level.
- Alarms: 102 (disconnected) and 103 (no uplink) by the durations of the station's
  thresholds; 104-108 and 111 by the percentages of Document 2 §6 against fixed platform thresholds
  with hysteresis (raised at `raise_at`, cleared below `clear_below`).
- Commands: each kind has a start delay, a run time and a failure rate; a command waits
  while the station is disconnected and fails ERR_NOSTART after 10 minutes, and one still
  running 10 minutes after its end while the station is unreachable ends ERR_NOEND.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

# --- link budget --------------------------------------------------------------------------------

TX_POWER_DBM = 14.0
ANTENNA_GAIN_DBI = 2.0
PL_1M_DB = 31.2  # free space at 1 m, 868 MHz
PATH_LOSS_EXPONENT = 3.5
NOISE_FLOOR_DBM = -117.0
SENSITIVITY_DBM = -137.0  # SF12, 125 kHz
FADING_DB = 6.0  # spread of the per-link fading
EARTH_RADIUS_M = 6_371_000.0
MAX_RANK = 3


def path_loss_db(distance_m: float) -> float:
    return PL_1M_DB + 10 * PATH_LOSS_EXPONENT * math.log10(max(distance_m, 1.0))


def rssi_dbm(distance_m: float, fading: float = 0.0, gain_dbi: float = ANTENNA_GAIN_DBI) -> float:
    """RSSI at the station; `fading` in [-1, 1] scales FADING_DB."""
    return TX_POWER_DBM + gain_dbi - path_loss_db(distance_m) + FADING_DB * fading


def snr_db(rssi: float) -> float:
    """LoRa demodulates below the noise floor: SNR from -20 to +10 dB."""
    return max(-20.0, min(10.0, rssi - NOISE_FLOOR_DBM))


def esp_dbm(rssi: float, snr: float) -> float:
    """Estimated signal power: RSSI + SNR - 10 log10(1 + 10^(SNR/10))."""
    return rssi + snr - 10 * math.log10(1 + 10 ** (snr / 10))


def heard(rssi: float) -> bool:
    return rssi >= SENSITIVITY_DBM


def reach_m() -> float:
    """The farthest distance a station hears a device at (best fading)."""
    budget = TX_POWER_DBM + ANTENNA_GAIN_DBI + FADING_DB - PL_1M_DB - SENSITIVITY_DBM
    return float(10 ** (budget / (10 * PATH_LOSS_EXPONENT)))


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Equirectangular approximation: exact enough within a few kilometres."""
    x = math.radians(lon2 - lon1) * math.cos(math.radians((lat1 + lat2) / 2))
    y = math.radians(lat2 - lat1)
    return EARTH_RADIUS_M * math.hypot(x, y)


@dataclass(frozen=True, slots=True)
class Reception:
    bs_uid: int
    rssi: float
    snr: float
    esp: float


def receptions(
    lat: float, lon: float, stations: list[tuple[int, float, float]], fading: list[float]
) -> list[Reception]:
    """Which of `stations` (uid, lat, lon) hear an uplink sent at (lat, lon), best first
    (highest SNR, then RSSI), at most MAX_RANK. `fading[i]` in [-1, 1] per station."""
    out = []
    for (uid, s_lat, s_lon), fade in zip(stations, fading, strict=True):
        rssi = rssi_dbm(distance_m(lat, lon, s_lat, s_lon), fade)
        if heard(rssi):
            snr = snr_db(rssi)
            out.append(Reception(uid, round(rssi, 1), round(snr, 1), round(esp_dbm(rssi, snr), 1)))
    out.sort(key=lambda r: (-r.snr, -r.rssi, r.bs_uid))
    return out[:MAX_RANK]


Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S31, _S29, _S11 = np.uint64(31), np.uint64(29), np.uint64(11)


def hash64(*columns: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Deterministic 64-bit hashes of integer columns (splitmix64 steps, vectorised): the
    same numbers as the simulators' scalar `_mix`."""
    arrays = [np.asarray(c).astype(np.uint64) for c in columns]
    x = np.full(np.broadcast(*arrays).shape, _GOLDEN, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for v in arrays:
            x = (x ^ v) * _M1
            x ^= x >> _S31
            x = x * _M2
            x ^= x >> _S29
    return x


def hash_units(*columns: npt.ArrayLike) -> Floats:
    """Deterministic numbers in [0, 1) from integer columns: the simulator's dice, the same
    for the same inputs."""
    return (hash64(*columns) >> _S11).astype(np.float64) / float(1 << 53)


def within_reach(lat: Floats, lon: Floats, s_lat: Floats, s_lon: Floats) -> npt.NDArray[np.bool_]:
    """Which (device, station) pairs are close enough for the station to hear the device at
    all (`reach_m`), by the same distance `best_receptions` works out."""
    x = np.radians(s_lon - lon) * np.cos(np.radians((lat + s_lat) / 2))
    y = np.radians(s_lat - lat)
    reach = reach_m() / EARTH_RADIUS_M
    return np.asarray(x * x + y * y <= reach * reach)


def _best_first(dev: Ints, st: Ints, rssi: Floats, snr: Floats) -> Ints:
    """The order by device, then SNR and RSSI (highest first), then station: one sort of one
    integer key (a four-key lexsort took two thirds of `best_receptions`)."""
    if not len(dev):
        return np.zeros(0, dtype=np.int64)
    device: Ints
    if (dev[1:] >= dev[:-1]).all():  # grouped by device already (as a step's pairs are)
        device = np.concatenate(([0], np.cumsum(dev[1:] != dev[:-1])))
    else:
        device = np.unique(dev, return_inverse=True)[1].reshape(-1)
    snr_rank = 100 - np.rint(snr * 10).astype(np.int64)  # 0 .. 300: SNR 10 .. -20 dB
    rssi_rank = 400 - np.rint(rssi * 10).astype(np.int64)  # RSSI 40 .. -300 dBm
    stations = int(np.max(st)) + 1
    if (
        int(np.min(rssi_rank)) < 0
        or int(np.max(rssi_rank)) >= 4096
        or (int(np.max(device)) + 1) * 301 * 4096 * stations >= 1 << 62
    ):
        return np.lexsort((st, -rssi, -snr, dev))  # (values the key has no room for)
    key = ((device * 301 + snr_rank) * 4096 + rssi_rank) * stations + st
    return np.argsort(key, kind="stable")


def best_receptions(
    dev: Ints, lat: Floats, lon: Floats, st: Ints, s_lat: Floats, s_lon: Floats, fading: Floats
) -> tuple[Ints, Ints, Ints, Floats, Floats, Floats]:
    """`receptions` for many (device, station) candidate pairs at once: (device, rank,
    station, rssi, snr, esp) of the pairs heard, the best MAX_RANK per device, best first."""
    x = np.radians(s_lon - lon) * np.cos(np.radians((lat + s_lat) / 2))
    y = np.radians(s_lat - lat)
    dist = EARTH_RADIUS_M * np.hypot(x, y)
    rssi = (
        TX_POWER_DBM + ANTENNA_GAIN_DBI - PL_1M_DB
        - 10 * PATH_LOSS_EXPONENT * np.log10(np.maximum(dist, 1.0)) + FADING_DB * fading
    )  # fmt: skip
    keep = rssi >= SENSITIVITY_DBM
    dev, st, rssi = dev[keep], st[keep], rssi[keep]
    snr = np.clip(rssi - NOISE_FLOOR_DBM, -20.0, 10.0)
    esp = rssi + snr - 10 * np.log10(1 + 10 ** (snr / 10))
    rssi, snr, esp = np.round(rssi, 1), np.round(snr, 1), np.round(esp, 1)
    order = _best_first(dev, st, rssi, snr)
    dev, st, rssi, snr, esp = dev[order], st[order], rssi[order], snr[order], esp[order]
    index = np.arange(len(dev))
    first = np.r_[True, dev[1:] != dev[:-1]] if len(dev) else np.zeros(0, dtype=bool)
    rank = index - np.maximum.accumulate(np.where(first, index, 0)) + 1
    top = rank <= MAX_RANK
    return dev[top], rank[top], st[top], rssi[top], snr[top], esp[top]


# Finding the stations near a point: a coarse grid whose 3 x 3 cells around a device hold
# every station that can hear it (a cell is wider than `reach_m()` up to 60 degrees of
# latitude); where those hold many stations (a dense city), a fine grid searched ring by ring
# from the device's cell keeps the nearest few, since only the best three are kept anyway.
CELL_DEG = 0.1
FINE_DEG = 0.005
DENSE = 48  # more stations than this around a device: search the fine grid
NEAREST = 12  # how many stations a ring search gathers at least


def cell_of(lat: float, lon: float) -> tuple[int, int]:
    return (math.floor(lat / CELL_DEG), math.floor(lon / CELL_DEG))


def neighbour_cells(lat: float, lon: float) -> list[tuple[int, int]]:
    """The coarse cells whose stations may hear a device at (lat, lon)."""
    r, c = cell_of(lat, lon)
    return [(r + i, c + j) for i in (-1, 0, 1) for j in (-1, 0, 1)]


Station = tuple[int, float, float]


class StationGrid:
    """Stations (uid, lat, lon) by coarse and fine cell; `uid`, `lat` and `lon` hold them as
    columns, and `near_index` gives rows of those columns."""

    def __init__(self, stations: list[Station]) -> None:
        # Cells hold rows of the columns (ints concatenate fast; a ring search joins many).
        self.coarse: dict[tuple[int, int], list[int]] = {}
        self.fine: dict[tuple[int, int], list[int]] = {}
        for row, s in enumerate(stations):
            self.coarse.setdefault(cell_of(s[1], s[2]), []).append(row)
            key = (math.floor(s[1] / FINE_DEG), math.floor(s[2] / FINE_DEG))
            self.fine.setdefault(key, []).append(row)
        self.uid: Ints = np.array([s[0] for s in stations], dtype=np.int64)
        self.lat: Floats = np.array([s[1] for s in stations], dtype=np.float64)
        self.lon: Floats = np.array([s[2] for s in stations], dtype=np.float64)
        self._around: dict[tuple[int, int], Ints] = {}
        self._index: dict[tuple[int, int, int, int], Ints] = {}
        self._rings = int(reach_m() / (FINE_DEG * 111_000 * 0.5)) + 1

    def __len__(self) -> int:
        return len(self.uid)

    def near(self, lat: float, lon: float) -> list[Station]:
        """The stations that may hear a device at (lat, lon): all of them around it, or the
        nearest NEAREST or so where it is dense."""
        rows = self.near_index(lat, lon).tolist()
        uid, s_lat, s_lon = self.uid.tolist(), self.lat.tolist(), self.lon.tolist()
        return [(uid[i], s_lat[i], s_lon[i]) for i in rows]

    def near_index(self, lat: float, lon: float) -> Ints:
        """`near` as rows of the `uid`, `lat` and `lon` columns (kept per coarse and fine
        cell: every point of one has the same stations near it)."""
        coarse = cell_of(lat, lon)
        r0, c0 = math.floor(lat / FINE_DEG), math.floor(lon / FINE_DEG)
        key = (*coarse, r0, c0)
        found = self._index.get(key)
        if found is not None:
            return found
        around = self._around.get(coarse)
        if around is None:
            r, c = coarse
            cells = self.coarse
            around = np.array(
                [
                    row
                    for i in (-1, 0, 1)
                    for j in (-1, 0, 1)
                    for row in cells.get((r + i, c + j), ())
                ],
                dtype=np.int64,
            )
            self._around[coarse] = around
        if len(around) <= DENSE:
            found = around
        else:
            fine = self.fine
            rows = list(fine.get((r0, c0), ()))
            for ring in range(1, self._rings + 1):
                if len(rows) >= NEAREST:
                    break
                for i in range(-ring, ring + 1):
                    step = 1 if abs(i) == ring else 2 * ring
                    for j in range(-ring, ring + 1, step):
                        rows += fine.get((r0 + i, c0 + j), ())
            found = np.array(rows, dtype=np.int64)
        self._index[key] = found
        return found


# --- load drift -------------------------------------------------------------------------------


def drift(
    previous: float, level: float, unit: float, pull: float = 0.1, spread: float = 4.0
) -> float:
    """One step of a mean-reverting walk: towards `level`, plus noise from `unit` in [0, 1)."""
    value = previous + pull * (level - previous) + spread * (2 * unit - 1)
    return max(0.0, min(100.0, value))


# --- alarm thresholds ---------------------------------------------------------------------------

CRITICAL, MAJOR, MINOR, WARNING, INDETERMINATE = 6, 5, 4, 3, 2


def crossed_severity(elapsed_ms: int, thresholds: list[tuple[int, int]]) -> int | None:
    """The highest severity whose duration `elapsed_ms` reached; thresholds are (severity,
    duration ms). None when none is reached."""
    reached = [sev for sev, span in thresholds if elapsed_ms >= span]
    return max(reached) if reached else None


@dataclass(frozen=True, slots=True)
class UsageRule:
    """An alarm on a percentage: raised with `severity` at `raise_at` %, cleared below
    `clear_below` % (the gap keeps it from flapping)."""

    code: int
    raise_at: float
    clear_below: float
    severity: int


USAGE_RULES: dict[int, UsageRule] = {
    104: UsageRule(104, 30.0, 20.0, MAJOR),  # invalid uplink CRC, last 4 hours
    105: UsageRule(105, 10.0, 5.0, MAJOR),  # dropped downlinks, last hour
    106: UsageRule(106, 90.0, 80.0, MAJOR),  # CPU, average of the last hour
    107: UsageRule(107, 90.0, 80.0, MAJOR),  # RAM
    108: UsageRule(108, 90.0, 85.0, MAJOR),  # file system
    111: UsageRule(111, 10.0, 5.0, MAJOR),  # failed beacons, last hour (beacons on)
}


def usage_verdict(rule: UsageRule, percent: float, raised: bool) -> bool | None:
    """True: raise; False: clear; None: leave as it is."""
    if not raised and percent >= rule.raise_at:
        return True
    if raised and percent < rule.clear_below:
        return False
    return None


def add_info2(percent: float) -> str:
    """alarm addInfo2: the percentage as the platform writes it."""
    return f"{round(percent)}"


# --- commands -----------------------------------------------------------------------------------

SECOND = 1000
MINUTE = 60 * SECOND
NOSTART_AFTER_MS = 10 * MINUTE
NOEND_AFTER_MS = 10 * MINUTE


@dataclass(frozen=True, slots=True)
class CommandTiming:
    start_ms: int  # from the request to the station taking it (when connected)
    run_ms: int  # from taking it to its outcome
    failure_rate: float = 0.0
    offline_ms: int = 0  # the station disconnects for this long from the start (reboots)


TIMINGS: dict[str, CommandTiming] = {
    "backup": CommandTiming(2 * SECOND, 20 * SECOND),
    "cancelRadioScan": CommandTiming(2 * SECOND, 3 * SECOND),
    "closeSsh": CommandTiming(2 * SECOND, 3 * SECOND),
    "downloadLrrVersion": CommandTiming(2 * SECOND, 2 * MINUTE, 0.05),
    "openSsh": CommandTiming(2 * SECOND, 5 * SECOND),
    "openTerminal": CommandTiming(2 * SECOND, 5 * SECOND),
    "reboot": CommandTiming(2 * SECOND, 2 * MINUTE, 0.0, 2 * MINUTE),
    "restart": CommandTiming(2 * SECOND, 45 * SECOND, 0.0, 45 * SECOND),
    "restore": CommandTiming(2 * SECOND, 60 * SECOND, 0.05, 45 * SECOND),
    "rfcDownlinkStop": CommandTiming(2 * SECOND, 3 * SECOND),
    "rfcStart": CommandTiming(2 * SECOND, 5 * SECOND),
    "rfcStop": CommandTiming(2 * SECOND, 3 * SECOND),
    "scanRadio": CommandTiming(2 * SECOND, 6 * MINUTE),
    "updateAntennasGainAndLoss": CommandTiming(2 * SECOND, 5 * SECOND),
    "updateFineTimestampKeys": CommandTiming(2 * SECOND, 5 * SECOND),
    "updateLocation": CommandTiming(2 * SECOND, 10 * SECOND),
    "updateLog": CommandTiming(2 * SECOND, 3 * SECOND),
    "updateRfRegion": CommandTiming(2 * SECOND, 40 * SECOND, 0.05, 30 * SECOND),
    "upgrade": CommandTiming(2 * SECOND, 5 * MINUTE, 0.2, 90 * SECOND),
    "changeSupportPassword": CommandTiming(2 * SECOND, 5 * SECOND),
}

PENDING, PROCESSING, COMPLETED = "PENDING", "PROCESSING", "COMPLETED"
ERR_NOSTART, ERR_EXEC, ERR_NOEND = "ERR_NOSTART", "ERR_EXEC", "ERR_NOEND"


def scan_run_ms(start_mhz: float | None, stop_mhz: float | None, step_khz: float | None) -> int:
    """A radio scan takes minutes: 6 by default, longer for many frequencies (0.1 s each)."""
    base = TIMINGS["scanRadio"].run_ms
    if start_mhz is None or stop_mhz is None or not step_khz:
        return base
    points = int((stop_mhz - start_mhz) * 1000 / step_khz) + 1
    return max(2 * MINUTE, min(60 * MINUTE, points * 100))


@dataclass(frozen=True, slots=True)
class Transition:
    status: str
    at_ms: int
    due_ms: int | None  # when to look at the command again; None once finished


def advance_command(
    command: str,
    status: str,
    requested_ms: int,
    due_ms: int,
    now_ms: int,
    connected: bool,
    roll: float,
    run_ms: int | None = None,
) -> Transition | None:
    """The command's next step at `now_ms` (the step's end), or None when nothing changes
    yet. `due_ms` is when it was due to move; `roll` in [0, 1) decides a failure."""
    if due_ms > now_ms:
        return None
    timing = TIMINGS[command]
    if status == PENDING:
        if connected:
            return Transition(PROCESSING, due_ms, due_ms + (run_ms or timing.run_ms))
        if now_ms - requested_ms >= NOSTART_AFTER_MS:
            return Transition(ERR_NOSTART, requested_ms + NOSTART_AFTER_MS, None)
        return None  # waits for the station
    if status == PROCESSING:
        if connected or timing.offline_ms:
            failed = roll < timing.failure_rate
            return Transition(ERR_EXEC if failed else COMPLETED, due_ms, None)
        if now_ms - due_ms >= NOEND_AFTER_MS:
            return Transition(ERR_NOEND, due_ms + NOEND_AFTER_MS, None)
        return None
    return None


FAILURE_TEXT = {
    "upgrade": "package verification failed: checksum mismatch, previous version kept",
    "downloadLrrVersion": "download interrupted: repository unreachable",
    "restore": "no usable backup on the station",
    "updateRfRegion": "RF region refused by the radio board",
}
