"""The living network: a deterministic simulator of device and multicast traffic and alarms.

Simulated time runs `speed` times faster than real time when the simulator runs in its
thread (`start`), or advances exactly as told by `step(simulated_seconds)` (tests). For a
given seed, the same steps give the same database.

- Every device that is not silent sends an uplink every `period` (15 min .. 6 h, fixed per
  device and seed) at a fixed phase: lastUpTimestamp, SF, RSSI, SNR and health follow, and
  hourly traffic buckets (`frame_buckets`, read by /frames/aggregated) grow; every 8th uplink
  is answered by a downlink. Silent devices (the demo's never-heard, suspended and
  no-uplink devices, and any device `set_silent`) send nothing.
- The no-uplink alarm 004 is raised per device thresholds (`alarm004`, default WARNING after
  P2D, MAJOR after P4D), escalated as silence goes on, and cleared (state 1) when traffic
  resumes. The device goes RF_CNX_ERROR while raised.
- Multicast groups send a downlink every hour; a failed delivery (one hour in ten, decided
  by the seed) raises a MINOR delivery alarm, cleared by the next successful hour.
- Alarm counters (alarm1..alarm6, alarmLevel) are refreshed for everything touched.

The clock is kept in `sim_state` so a restarted sandbox continues where it stopped.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta

from ..schema.durations import parse_duration
from .db import Database
from .station_sim import StationSimulator, StationStepReport
from .store import alarms as alarm_store
from .store import km_devices as km_store
from .store import kpis as kpi_store

log = logging.getLogger("lpwa_console.sandbox.simulator")

HOUR_MS = 3_600_000
NO_UPLINK_ALARM_ID = 4
MULTICAST_DELIVERY_ALARM_ID = 21
PERIODS_MIN = (15, 30, 60, 60, 120, 360)
DOWNLINK_EVERY = 8
DEFAULT_THRESHOLDS = ((3, 2 * 24 * HOUR_MS), (5, 4 * 24 * HOUR_MS))
MIN_THRESHOLD_MS = HOUR_MS  # thresholds are at least PT1H
SILENT_HEALTH = ("INIT", "SUSPENDED", "RF_CNX_ERROR")


def _mix(*values: int) -> int:
    """A cheap deterministic hash of integers (splitmix64 steps)."""
    x = 0x9E3779B97F4A7C15
    for v in values:
        x = (x ^ (v & 0xFFFFFFFFFFFFFFFF)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 31
        x = x * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 29
    return x


def _unit(*values: int) -> float:
    return (_mix(*values) >> 11) / float(1 << 53)


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

        self._thread = threading.Thread(target=run, name="sandbox-simulator", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        with self._lock, self.db.write() as conn:
            self.stations.flush(conn)  # the stations' traffic counted since their last report

    # --- one step ---------------------------------------------------------------------------

    def step(self, simulated_seconds: float) -> StepReport:
        """Advance the simulated clock and apply everything that happened meanwhile."""
        with self._lock, self.db.write() as conn:
            start = self.now_ms
            end = start + max(0, int(simulated_seconds * 1000))
            report = StepReport(start, end)
            if end > start:
                self._uplinks(conn, report)
                self._no_uplink_alarms(conn, report)
                self._multicast(conn, report)
                report.stations = self.stations.step(conn, start, end, report.heard)
                alarm_store.refresh_counters(conn, "D", report.touched)
                kpi_store.record_due(conn, end)  # the dashboard's history, every 5 minutes
            self.now_ms = end
            self._save_clock(conn)
        return report

    def _save_clock(self, conn: sqlite3.Connection) -> None:
        conn.execute("INSERT OR REPLACE INTO sim_state VALUES ('clock_ms', ?)", (str(self.now_ms),))

    def _period(self, uid: int) -> tuple[int, int]:
        h = _mix(self.seed, uid)
        period = PERIODS_MIN[h % len(PERIODS_MIN)] * 60_000
        return period, (h >> 16) % period

    def _schedule_new_devices(self, conn: sqlite3.Connection, after_ms: int) -> None:
        """Give devices created since the last step their first uplink time after `after_ms`."""
        known = conn.execute("SELECT value FROM sim_state WHERE key = 'known_uid'").fetchone()
        last_uid = int(known[0]) if known else 0
        # Past the highest uid seen, plus the uids SQLite gave again after a deletion (noted
        # by a trigger: the schedule of the deleted device went with it).
        rows = conn.execute(
            "SELECT uid FROM devices WHERE uid > ? UNION SELECT device_uid FROM sim_new ORDER BY 1",
            (last_uid,),
        ).fetchall()
        conn.execute("DELETE FROM sim_new")
        if not rows:
            return
        schedule = []
        for (uid,) in rows:
            period, phase = self._period(uid)
            schedule.append((uid, phase + ((after_ms - phase) // period + 1) * period))
        conn.executemany("INSERT OR REPLACE INTO sim_devices VALUES (?, ?)", schedule)
        conn.execute(
            "INSERT OR REPLACE INTO sim_state VALUES ('known_uid', ?)",
            (str(max(last_uid, rows[-1][0])),),
        )

    def _uplinks(self, conn: sqlite3.Connection, report: StepReport) -> None:
        c = conn  # sqlite3.Connection
        t0, t1 = report.start_ms, report.end_ms
        self._schedule_new_devices(c, t0)
        due = c.execute(
            "SELECT s.uid, d.uid IS NULL, d.connectivity, d.avg_snr,"
            " s.uid IN (SELECT device_uid FROM sim_silent)"
            " FROM sim_devices s LEFT JOIN devices d ON d.uid = s.uid WHERE s.next_up <= ?",
            (t1,),
        ).fetchall()
        buckets: dict[tuple[int, int], list[float]] = {}
        updates = []
        gone = []
        schedule = []
        for uid, deleted, connectivity, avg_snr, silent in due:
            if deleted:
                gone.append((uid,))
                continue
            period, phase = self._period(uid)
            first = (t0 - phase) // period + 1
            last = (t1 - phase) // period
            schedule.append((phase + (last + 1) * period, uid))
            if last < first or silent:
                continue
            base_rssi = -120 + 60 * _unit(self.seed, uid, 1)
            base_snr = -12 + 22 * _unit(self.seed, uid, 2)
            lora = connectivity == "LORAWAN"
            sf = rssi = snr = 0.0
            last_dw = None
            for k in range(first, last + 1):
                ts = phase + k * period
                rssi = round(base_rssi + 8 * (_unit(self.seed, uid, k, 3) - 0.5), 1)
                snr = round(base_snr + 4 * (_unit(self.seed, uid, k, 4) - 0.5), 1)
                bucket = buckets.setdefault((uid, ts - ts % HOUR_MS), [0, 0, 0, 0, 0.0, 0.0])
                bucket[0] += 1
                bucket[1] += 12 + _mix(self.seed, uid, k) % 40
                bucket[4] += rssi
                bucket[5] += snr
                report.uplinks += 1
                if k % DOWNLINK_EVERY == 0:
                    bucket[2] += 1
                    bucket[3] += 8
                    last_dw = ts + 1000
                    report.downlinks += 1
            if lora:
                sf = 7 + int(6 * _unit(self.seed, uid, last, 5))
            avg = snr if avg_snr is None else round(0.8 * avg_snr + 0.2 * snr, 1)
            report.heard.add(uid)
            updates.append(
                (ts, int(sf) if lora else None, rssi, snr if lora else None, avg if lora else None,
                 last_dw, uid)
            )  # fmt: skip
        # Rows of devices deleted before this schedule existed (a trigger now forgets them).
        c.executemany("DELETE FROM sim_devices WHERE uid = ?", gone)
        c.executemany("UPDATE sim_devices SET next_up = ? WHERE uid = ?", schedule)
        c.executemany(
            "UPDATE devices SET last_up = ?, last_sf = ?, last_rssi = ?, last_snr = ?,"
            " avg_snr = ?, last_dw = coalesce(?, last_dw), health = 'ACTIVE' WHERE uid = ?",
            updates,
        )
        c.executemany(
            "INSERT INTO frame_buckets VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (device_uid, ts) DO UPDATE SET up = up + excluded.up,"
            " up_size = up_size + excluded.up_size, dw = dw + excluded.dw,"
            " dw_size = dw_size + excluded.dw_size, rssi_sum = rssi_sum + excluded.rssi_sum,"
            " snr_sum = snr_sum + excluded.snr_sum",
            [(uid, ts, *(int(v) for v in b[:4]), b[4], b[5]) for (uid, ts), b in buckets.items()],
        )
        # A commissioned key-manager device that is heard has joined: ACTIVATED.
        km_store.activate_joined(c, [u[-1] for u in updates], t1)

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
