"""The living network: a deterministic simulator of device and multicast traffic and alarms.

Simulated time runs `speed` times faster than real time when the simulator runs in its
thread (`start`), or advances exactly as told by `step(simulated_seconds)` (tests). For a
given seed, the same steps give the same database.

- Every device that is not silent sends an uplink every `period` (15 min .. 6 h, fixed per
  device and seed) at a fixed phase, around its link's RSSI and SNR (`links`), at the SF the
  ADR settled it on (one higher now and then): lastUpTimestamp, SF, RSSI, SNR (its average
  reported in steps of half a dB) and health follow, and
  hourly traffic buckets (`frame_buckets`, read by /frames/aggregated) grow; every 8th uplink
  is answered by a downlink. Silent devices (the demo's never-heard, suspended and
  no-uplink devices, and any device `set_silent`) send nothing.
- The no-uplink alarm 004 is raised per device thresholds (`alarm004`, default WARNING after
  P2D, MAJOR after P4D), escalated as silence goes on, and cleared (state 1) when traffic
  resumes. The device goes RF_CNX_ERROR while raised.
- Multicast groups send a downlink every hour; a failed delivery (one hour in ten, decided
  by the seed) raises a MINOR delivery alarm, cleared by the next successful hour.
- Alarm counters (alarm1..alarm6, alarmLevel) are refreshed for everything touched.

The clock is kept in `sim_state` so a restarted sandbox continues where it stopped. When a
device sends is a function of the seed and its uid alone, so the schedule is not stored: it is
made in memory on the first step (`DeviceSchedule`, a timing wheel: a step finds the devices
due in it by binary searches) and follows the devices created since. A step writes only what
changes: a device row once (after the stations around it heard the uplink), and only the
indexed columns whose values change.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..schema.durations import parse_duration
from . import links, radio
from .db import Database
from .links import mix as _mix
from .station_sim import StationSimulator, StationStepReport
from .store import alarms as alarm_store
from .store import km_devices as km_store
from .store import kpis as kpi_store

log = logging.getLogger("lpwa_console.sandbox.simulator")

HOUR_MS = 3_600_000
NO_UPLINK_ALARM_ID = 4
MULTICAST_DELIVERY_ALARM_ID = 21
PERIODS_MS = np.array([m * 60_000 for m in links.PERIODS_MIN], dtype=np.int64)
MERGE_RECENT = 20_000  # devices added since the schedule was sorted, checked one by one
DOWNLINK_EVERY = 8
DEFAULT_THRESHOLDS = ((3, 2 * 24 * HOUR_MS), (5, 4 * 24 * HOUR_MS))
MIN_THRESHOLD_MS = HOUR_MS  # thresholds are at least PT1H
SILENT_HEALTH = ("INIT", "SUSPENDED", "RF_CNX_ERROR")
# Now and then an uplink goes one SF above the one ADR settled the device on (a retry).
SF_BACKOFF_CHANCE = 0.05
# avgSNR: an exponential average over about the last ten uplinks, reported again when it has
# moved by at least this much (an indexed column rewritten at every uplink cost a scattered
# index page each, for a change no one reads).
SNR_MEAN_WEIGHT = 0.1
SNR_REPORT_STEP_DB = 0.5


Ints = npt.NDArray[np.int64]


def adr_sf(snr_db: npt.NDArray[np.float64]) -> Ints:
    """`links.adr_sf` of many links at once."""
    sf = np.full(len(snr_db), 12, dtype=np.int64)
    for value, floor in reversed(links.SF_FLOOR_DB):  # the lowest SF that fits wins
        sf[snr_db - links.ADR_MARGIN_DB >= floor] = value
    return sf


def reported_average(reported: float | None, mean: float) -> float:
    """The average SNR a device shows: the running mean, once it is this far from the last."""
    if reported is None or abs(mean - reported) >= SNR_REPORT_STEP_DB:
        return round(mean, 1)
    return reported


class Checkpointer:
    """Copies the write-ahead log into the database in a thread of its own, woken after each
    step. A step writes thousands of scattered pages; with SQLite's automatic checkpoint the
    commit that crosses 1000 pages copies them all and syncs the file, inside the step (and
    inside a request, when a request's commit crosses it). The stepping connection turns the
    automatic checkpoint off while this runs; a passive checkpoint blocks no reader or writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cpu_s = 0.0  # CPU time spent checkpointing (the benchmark reports it)
        self.runs = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)

        def run() -> None:
            try:
                while True:
                    self._wake.wait()
                    self._wake.clear()
                    started = time.thread_time()
                    try:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    except sqlite3.Error:  # busy or closing: the next step wakes it again
                        log.debug("checkpoint skipped", exc_info=True)
                    self.cpu_s += time.thread_time() - started
                    self.runs += 1
                    if self._stop.is_set():  # (after a last copy)
                        return
            finally:
                conn.close()

        self._thread = threading.Thread(target=run, name="sandbox-checkpointer", daemon=True)
        self._thread.start()

    def poke(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=30)
        self._thread = None


class DeviceSchedule:
    """Every device sends at `phase + k * period` (`Simulator._period`): per period, the
    phases sorted with their devices, so the devices due in (t0, t1] are one or two slices
    found by binary search; devices added since the last sort are checked one by one until
    there are MERGE_RECENT of them. A deleted device stays (the step finds no row for it):
    a new device that gets its uid again sends as it would have."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.known = 0  # the highest uid scheduled
        self._all: Ints = np.zeros(0, dtype=np.int64)  # every uid scheduled, sorted
        self._by_period: dict[int, tuple[Ints, Ints]] = {}  # period -> (phases, uids)
        self._recent: list[Ints] = []

    def __len__(self) -> int:
        return len(self._all) + sum(len(r) for r in self._recent)

    def timing(self, uids: Ints) -> tuple[Ints, Ints]:
        """(period, phase) in ms of each uid: the same as `Simulator._period`."""
        h = radio.hash64(self.seed, uids)
        period = PERIODS_MS[(h % np.uint64(len(links.PERIODS_MIN))).astype(np.int64)]
        phase = ((h >> np.uint64(16)) % period.astype(np.uint64)).astype(np.int64)
        return period, phase

    def add(self, uids: Ints) -> None:
        """Schedule these uids (those scheduled already are skipped)."""
        uids = np.unique(np.asarray(uids, dtype=np.int64))
        if not len(uids):
            return
        uids = uids[~self.contains(uids)]
        if not len(uids):
            return
        self.known = max(self.known, int(uids[-1]))
        self._recent.append(uids)
        if sum(len(r) for r in self._recent) >= MERGE_RECENT or not len(self._all):
            self._merge()

    def contains(self, uids: Ints) -> npt.NDArray[np.bool_]:
        found = np.zeros(len(uids), dtype=bool)
        for sorted_uids in [self._all, *self._recent]:
            if len(sorted_uids):
                at = np.minimum(np.searchsorted(sorted_uids, uids), len(sorted_uids) - 1)
                found |= sorted_uids[at] == uids
        return found

    def _merge(self) -> None:
        self._all = np.unique(np.concatenate([self._all, *self._recent]))
        self._recent = []
        period, phase = self.timing(self._all)
        self._by_period = {}
        for p in np.unique(period).tolist():
            mine = period == p
            order = np.argsort(phase[mine], kind="stable")
            self._by_period[p] = (phase[mine][order], self._all[mine][order])

    def due(self, t0: int, t1: int) -> Ints:
        """The uids (sorted) with an uplink in (t0, t1]."""
        parts: list[Ints] = []
        for period, (phases, uids) in self._by_period.items():
            if t1 - t0 >= period:
                parts.append(uids)
                continue
            a, b = t0 % period, t1 % period
            i = int(np.searchsorted(phases, a, side="right"))
            j = int(np.searchsorted(phases, b, side="right"))
            if a < b:
                parts.append(uids[i:j])
            else:  # (a, period) and [0, b]
                parts += [uids[i:], uids[:j]]
        for recent in self._recent:
            periods, phases = self.timing(recent)
            parts.append(recent[(t1 - phases) // periods > (t0 - phases) // periods])
        if not parts:
            return np.zeros(0, dtype=np.int64)
        return np.sort(np.concatenate(parts))


@dataclass(slots=True)
class DeviceUplinks:
    """What a step's uplinks change on a device, written once the stations heard them."""

    uid: int
    ts: int
    rssi: float
    snr: float | None
    sf: int | None
    avg_snr: float | None
    last_dw: int | None
    old_sf: int | None
    old_avg_snr: float | None
    old_health: str | None
    snr_mean: float | None  # the exact running average (`avg_snr` is what is reported)


@dataclass
class StepReport:
    start_ms: int
    end_ms: int
    uplinks: int = 0
    downlinks: int = 0
    raised: int = 0
    escalated: int = 0
    cleared: int = 0
    touched: set[int] = field(default_factory=set)
    heard: set[int] = field(default_factory=set)  # devices that sent uplinks
    stations: StationStepReport | None = None


class Simulator:
    def __init__(
        self, db: Database, *, seed: int = 1, speed: float = 1.0, start_ms: int | None = None
    ) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.db = db
        self.seed = seed
        self.speed = speed
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._thresholds: dict[str | None, list[tuple[int, int]]] = {}
        self._seen_configs: set[str | None] = set()
        self.stations = StationSimulator(seed)
        self.schedule: DeviceSchedule | None = None  # made on the first step
        self.checkpointer = Checkpointer(db.path)
        with db.write() as conn:
            state = dict(conn.execute("SELECT key, value FROM sim_state").fetchall())
            if "initialized" not in state:
                # The demo's silent devices stay silent.
                conn.execute(
                    "INSERT OR IGNORE INTO sim_silent SELECT uid FROM devices"
                    f" WHERE health IN ({', '.join('?' * len(SILENT_HEALTH))})",
                    SILENT_HEALTH,
                )
                conn.execute("INSERT INTO sim_state VALUES ('initialized', '1')")
            stored = int(state["clock_ms"]) if "clock_ms" in state else None
            real = int(time.time() * 1000)
            self.now_ms = start_ms if start_ms is not None else max(stored or real, real)
            self._save_clock(conn)

    # --- control ----------------------------------------------------------------------------

    def set_silent(self, device_uid: int, silent: bool = True) -> None:
        """Make a device stop (or resume) sending uplinks."""
        with self.db.write() as conn:
            if silent:
                conn.execute("INSERT OR IGNORE INTO sim_silent VALUES (?)", (device_uid,))
            else:
                conn.execute("DELETE FROM sim_silent WHERE device_uid = ?", (device_uid,))

    def start(self, tick_s: float = 1.0) -> None:
        """Run in a daemon thread: every `tick_s` real seconds, `tick_s * speed` simulated."""
        if self._thread is not None:
            return
        self._stop.clear()

        def run() -> None:
            last = time.monotonic()
            while not self._stop.wait(tick_s):
                now = time.monotonic()
                try:
                    self.step((now - last) * self.speed)
                except Exception:  # keep the network alive; the log tells
                    log.exception("simulator step failed")
                last = now

        self.checkpointer.start()
        self._thread = threading.Thread(target=run, name="sandbox-simulator", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        with self._lock, self.db.write() as conn:
            self.stations.flush(conn)  # the stations' traffic counted since their last report
        self.checkpointer.stop()

    # --- one step ---------------------------------------------------------------------------

    def step(self, simulated_seconds: float) -> StepReport:
        """Advance the simulated clock and apply everything that happened meanwhile."""
        background = self.checkpointer.running
        with self._lock, self.db.write() as conn:
            # Off while the checkpointer runs (else SQLite's default, 1000 pages).
            conn.execute(f"PRAGMA wal_autocheckpoint={0 if background else 1000}")
            start = self.now_ms
            end = start + max(0, int(simulated_seconds * 1000))
            report = StepReport(start, end)
            if end > start:
                sent, located = self._uplinks(conn, report)
                # The stations around hear the uplinks (after their commands and reports);
                # the device rows are written then, once, with their best station's RSSI/SNR.
                report.stations = self.stations.step(conn, start, end, located)
                self._write_devices(conn, sent, report.stations, end)
                self._no_uplink_alarms(conn, report)
                self._multicast(conn, report)
                alarm_store.refresh_counters(conn, "D", report.touched)
                kpi_store.record_due(conn, end)  # the dashboard's history, every 5 minutes
            self.now_ms = end
            self._save_clock(conn)
        if background:
            self.checkpointer.poke()
        return report

    def _save_clock(self, conn: sqlite3.Connection) -> None:
        conn.execute("INSERT OR REPLACE INTO sim_state VALUES ('clock_ms', ?)", (str(self.now_ms),))

    def _period(self, uid: int) -> tuple[int, int]:
        return links.uplink_timing(self.seed, uid)

    def _schedule_new_devices(self, conn: sqlite3.Connection) -> DeviceSchedule:
        """The schedule, made on the first step from every device, then given the devices
        created since the last step: past the highest uid scheduled, and those that got the
        uid of a deleted device (noted by a trigger in `sim_new` as they are created)."""
        schedule = self.schedule
        if schedule is None:
            schedule = self.schedule = DeviceSchedule(self.seed)
            cursor = conn.cursor()
            cursor.row_factory = None
            cursor.execute("SELECT uid FROM devices")
            schedule.add(np.fromiter((r[0] for r in cursor), dtype=np.int64))
        else:
            new = conn.execute(
                "SELECT uid FROM devices WHERE uid > ?", (schedule.known,)
            ).fetchall()
            if new:
                schedule.add(np.array([r[0] for r in new], dtype=np.int64))
        if conn.execute("SELECT EXISTS (SELECT 1 FROM sim_new)").fetchone()[0]:
            reused = conn.execute("SELECT device_uid FROM sim_new").fetchall()
            schedule.add(np.array([r[0] for r in reused], dtype=np.int64))
            conn.execute("DELETE FROM sim_new")
        known = conn.execute("SELECT value FROM sim_state WHERE key = 'known_uid'").fetchone()
        if known is None or int(known[0]) < schedule.known:  # the trigger of sim_new reads it
            conn.execute(
                "INSERT OR REPLACE INTO sim_state VALUES ('known_uid', ?)", (str(schedule.known),)
            )
        return schedule

    def _uplinks(
        self, conn: sqlite3.Connection, report: StepReport
    ) -> tuple[list[DeviceUplinks], list[tuple[int, float, float, int]]]:
        """The uplinks of the devices due in the step, all at once: their traffic buckets
        are written; returns what changes on each device (written by `_write_devices`) and
        (uid, lat, lon, time of the last uplink) of those with a position, for the stations."""
        c = conn
        t0, t1 = report.start_ms, report.end_ms
        schedule = self._schedule_new_devices(c)
        due = schedule.due(t0, t1)
        if not len(due):
            return [], []
        rows = c.execute(
            "SELECT uid, connectivity, avg_snr, last_sf, health, lat, lon,"
            " uid IN (SELECT device_uid FROM sim_silent), snr_mean FROM devices"
            " WHERE uid IN (SELECT value FROM json_each(?)) ORDER BY uid",
            (json.dumps(due.tolist()),),
        ).fetchall()  # a deleted device has no row: it is skipped
        rows = [r for r in rows if not r[7]]
        if not rows:
            return [], []
        seed = self.seed
        uid = np.array([r[0] for r in rows], dtype=np.int64)
        period, phase = schedule.timing(uid)
        first = (t0 - phase) // period + 1
        last = (t1 - phase) // period
        keep = last >= first  # (always, for a device found due)
        if not keep.all():
            rows = [r for r, kept in zip(rows, keep.tolist(), strict=True) if kept]
            uid, period, phase, first, last = (x[keep] for x in (uid, period, phase, first, last))
            if not rows:
                return [], []
        count = last - first + 1
        total = int(count.sum())
        # One row per uplink: the device (its index in `rows`) and its number k.
        which = np.repeat(np.arange(len(rows)), count)
        starts = np.cumsum(count) - count
        k = first[which] + np.arange(total) - starts[which]
        u = uid[which]
        ts = phase[which] + k * period[which]
        base_rssi = links.RSSI_BASE + links.RSSI_SPAN * radio.hash_units(seed, uid, links.RSSI_DIE)
        base_snr = links.SNR_BASE + links.SNR_SPAN * radio.hash_units(seed, uid, links.SNR_DIE)
        rssi = np.round(base_rssi[which] + 8 * (radio.hash_units(seed, u, k, 3) - 0.5), 1)
        snr = np.round(base_snr[which] + 4 * (radio.hash_units(seed, u, k, 4) - 0.5), 1)
        size = 12 + (radio.hash64(seed, u, k) % np.uint64(40)).astype(np.int64)
        down = k % DOWNLINK_EVERY == 0
        report.uplinks += total
        report.downlinks += int(down.sum())
        # Hourly buckets: the uplinks of a device are in time order, so a bucket is a run.
        hour = ts - ts % HOUR_MS
        at = np.flatnonzero(np.r_[True, (u[1:] != u[:-1]) | (hour[1:] != hour[:-1])])
        dws = np.add.reduceat(down.astype(np.int64), at)
        c.executemany(
            "INSERT INTO frame_buckets VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (device_uid, ts) DO UPDATE SET up = up + excluded.up,"
            " up_size = up_size + excluded.up_size, dw = dw + excluded.dw,"
            " dw_size = dw_size + excluded.dw_size, rssi_sum = rssi_sum + excluded.rssi_sum,"
            " snr_sum = snr_sum + excluded.snr_sum",
            zip(u[at].tolist(), hour[at].tolist(), np.diff(np.r_[at, total]).tolist(),
                np.add.reduceat(size, at).tolist(), dws.tolist(), (8 * dws).tolist(),
                np.add.reduceat(rssi, at).tolist(), np.add.reduceat(snr, at).tolist(),
                strict=True),
        )  # fmt: skip
        # Each device's last uplink, its SF, and its last answered one.
        end = starts + count - 1
        last_dw = np.maximum.reduceat(np.where(down, ts + 1000, -1), starts)
        sf = adr_sf(base_snr) + (radio.hash_units(seed, uid, last, 5) < SF_BACKOFF_CHANCE)
        sf = np.minimum(sf, 12)
        out: list[DeviceUplinks] = []
        located: list[tuple[int, float, float, int]] = []
        for row, t, r, s_, f, dw in zip(
            rows, ts[end].tolist(), rssi[end].tolist(), snr[end].tolist(), sf.tolist(),
            last_dw.tolist(), strict=True,
        ):  # fmt: skip
            d_uid, connectivity, avg_snr, old_sf, health, lat, lon, _silent, mean = row
            lora = connectivity == "LORAWAN"
            if lora:
                was = avg_snr if mean is None else mean  # (a device made before the mean)
                mean = s_ if was is None else SNR_MEAN_WEIGHT * s_ + (1 - SNR_MEAN_WEIGHT) * was
                avg = reported_average(avg_snr, mean)
            else:
                mean = avg = None
            out.append(
                DeviceUplinks(
                    d_uid, t, r, s_ if lora else None, f if lora else None, avg,
                    dw if dw >= 0 else None, old_sf, avg_snr, health, mean,
                )
            )  # fmt: skip
            report.heard.add(d_uid)
            if lat is not None and lon is not None:
                located.append((d_uid, lat, lon, t))
        return out, located

    def _write_devices(
        self,
        conn: sqlite3.Connection,
        sent: list[DeviceUplinks],
        stations: StationStepReport,
        t1: int,
    ) -> None:
        """One UPDATE per device that sent, setting the indexed columns (SF, average SNR,
        last downlink, health) only where they change: an index entry is rewritten whenever
        its column is set, even to the same value. A device the stations heard gets their
        RSSI/SNR (its best station's) and its list of them."""
        best, heard_by = stations.best, stations.heard_by
        groups: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
        for d in sent:
            rssi, snr = best.get(d.uid, (d.rssi, d.snr))
            columns: tuple[str, ...] = ("last_up", "last_rssi", "last_snr", "snr_mean")
            values: list[Any] = [d.ts, rssi, snr, d.snr_mean]
            packed = heard_by.get(d.uid)
            if packed is not None:
                columns += ("receptions",)
                values.append(packed)
            if d.sf != d.old_sf:
                columns += ("last_sf",)
                values.append(d.sf)
            if d.avg_snr != d.old_avg_snr:
                columns += ("avg_snr",)
                values.append(d.avg_snr)
            if d.last_dw is not None:
                columns += ("last_dw",)
                values.append(d.last_dw)
            if d.old_health != "ACTIVE":
                columns += ("health",)
                values.append("ACTIVE")
            values.append(d.uid)
            groups.setdefault(columns, []).append(tuple(values))
        for columns, rows in groups.items():
            assignments = ", ".join(f"{column} = ?" for column in columns)
            conn.executemany(f"UPDATE devices SET {assignments} WHERE uid = ?", rows)
        # A commissioned key-manager device that is heard has joined: ACTIVATED.
        if sent:
            km_store.activate_joined(conn, [d.uid for d in sent], t1)

    def thresholds(self, text: str | None) -> list[tuple[int, int]]:
        """(level, silence ms) of the enabled thresholds, shortest first."""
        if text not in self._thresholds:
            out: list[tuple[int, int]] = []
            try:
                for t in json.loads(text) if text else []:
                    if t.get("status", "ENABLE") == "ENABLE":
                        span: timedelta = parse_duration(t["duration"])
                        out.append((int(t["level"]), int(span.total_seconds() * 1000)))
            except (ValueError, KeyError, TypeError):
                out = []
            self._thresholds[text] = (
                sorted(out, key=lambda x: x[1]) if text else list(DEFAULT_THRESHOLDS)
            )
        return self._thresholds[text]

    def _candidates(
        self, conn: sqlite3.Connection, report: StepReport
    ) -> list[tuple[int, int, int, str | None]]:
        """The devices whose alarm 004 may change in this step: those whose silence crosses
        one of their thresholds in it, those heard while the alarm is open (it clears), those
        whose thresholds were just edited, and, for a threshold set seen for the first time,
        every device silent past it (a catch-up after a restart)."""
        t0, t1 = report.start_ms, report.end_ms
        select = (
            "SELECT uid, subscription_id, last_up, alarm004 FROM devices"
            " WHERE last_up IS NOT NULL AND health != 'SUSPENDED' AND "
        )
        # The leading subscription_id lets SQLite range-scan its (subscription, last_up) index.
        in_subs = "subscription_id IN (SELECT id FROM subscriptions)"
        found: dict[int, tuple[int, int, int, str | None]] = {}

        def add(where: str, params: tuple[object, ...]) -> None:
            for row in conn.execute(select + where, params):
                found[row[0]] = tuple(row)

        custom = conn.execute("SELECT DISTINCT alarm004 FROM devices WHERE alarm004 IS NOT NULL")
        for config in [None, *(r[0] for r in custom)]:
            same = "alarm004 IS NULL" if config is None else "alarm004 = ?"
            mine: tuple[object, ...] = () if config is None else (config,)
            spans = [span for _level, span in self.thresholds(config)]
            if config not in self._seen_configs:
                self._seen_configs.add(config)
                if spans:
                    add(f"{in_subs} AND last_up <= ? AND {same}", (t1 - min(spans), *mine))
                continue
            for span in spans:
                window = (t0 - span, t1 - span, *mine)
                add(f"{in_subs} AND last_up > ? AND last_up <= ? AND {same}", window)
        if report.heard:
            add(
                "uid IN (SELECT device_uid FROM alarms WHERE device_uid IN"
                " (SELECT value FROM json_each(?)) AND alarm_id = ? AND state > 1)",
                (json.dumps(sorted(report.heard)), NO_UPLINK_ALARM_ID),
            )
        add("uid IN (SELECT device_uid FROM sim_recheck)", ())
        conn.execute("DELETE FROM sim_recheck")
        return [found[uid] for uid in sorted(found)]

    def _no_uplink_alarms(self, conn: sqlite3.Connection, report: StepReport) -> None:
        c = conn
        t1 = report.end_ms
        for uid, sub, last_up, config in self._candidates(c, report):
            silence = t1 - last_up
            crossed = [
                (lvl, last_up + span) for lvl, span in self.thresholds(config) if span <= silence
            ]
            current = alarm_store.open_alarm(c, "D", uid, NO_UPLINK_ALARM_ID)
            if not crossed:
                if current is not None:  # traffic resumed
                    alarm_store.set_state(c, current["id"], 1, max(last_up, current["updated"]))
                    report.cleared += 1
                    report.touched.add(uid)
                continue
            state = current["state"] if current is not None else 0
            row = current["id"] if current is not None else None
            for level, ts in crossed:
                if level <= state:
                    continue
                if row is None:
                    row = alarm_store.insert(
                        c, subscription_id=sub, kind="D", owner=uid,
                        alarm_id=NO_UPLINK_ALARM_ID, state=level, ts=ts,
                    )  # fmt: skip
                    report.raised += 1
                else:
                    alarm_store.set_state(c, row, level, ts)
                    report.escalated += 1
                state = level
                report.touched.add(uid)
            if uid in report.touched:
                c.execute("UPDATE devices SET health = 'RF_CNX_ERROR' WHERE uid = ?", (uid,))

    def _multicast(self, conn: sqlite3.Connection, report: StepReport) -> None:
        c = conn
        groups = c.execute("SELECT uid, subscription_id FROM multicast_groups").fetchall()
        if not groups:
            return
        first = report.start_ms // HOUR_MS + 1
        last = report.end_ms // HOUR_MS
        touched = set()
        for uid, sub in groups:
            found = alarm_store.open_alarm(c, "M", uid, MULTICAST_DELIVERY_ALARM_ID)
            current: int | None = None if found is None else int(found["id"])
            sent = 0
            for hour in range(first, last + 1):
                ts = hour * HOUR_MS
                failed = _mix(self.seed, uid, hour, 7) % 10 == 0
                report.downlinks += 1
                sent += 1
                if failed and current is None:
                    row = alarm_store.insert(
                        c, subscription_id=sub, kind="M", owner=uid,
                        alarm_id=MULTICAST_DELIVERY_ALARM_ID, state=4, ts=ts,
                        add_info="multicast delivery failed on some base stations",
                    )  # fmt: skip
                    current = row
                    touched.add(uid)
                elif not failed and current is not None:
                    alarm_store.set_state(c, current, 1, ts)
                    current = None
                    touched.add(uid)
            if sent:
                c.execute(
                    "UPDATE multicast_groups SET last_dw = ?, first_dw = coalesce(first_dw, ?),"
                    " last_fcnt_dn = coalesce(last_fcnt_dn, 0) + ? WHERE uid = ?",
                    (last * HOUR_MS, first * HOUR_MS, sent, uid),
                )
        alarm_store.refresh_counters(c, "M", touched)
