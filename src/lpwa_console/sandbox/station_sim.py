"""The living radio network of base stations, one part of the simulator's step.

- Every station reports every 5 minutes at its own phase (`report_phases`: neighbouring
  uids report in the same second, so their rows share pages; `station_runtime.next_report`,
  an index: a step reads only the stations due): CPU, RAM and disk drift (radio.drift), the
  backhaul round trip, min/max records, and an hourly sample in `station_hours` (a week
  kept). Now and then (about once a fortnight) its backhaul drops for 1-20 minutes.
- Connection: a station away (an outage, or a command that takes it down: reboot, restart,
  upgrade ...) is DISC with alarm 102 raised per its alarm102 thresholds, cleared when it is
  back; alarm 103 follows the silence of its uplinks per alarm103 (none without thresholds);
  104-108 and 111 (failed beacons) the percentages of Document 2 §6 (radio.USAGE_RULES);
  station_trouble.py gives one station in 40 each trouble, so every alarm happens.
- Commands (`station_commands`) move PENDING -> PROCESSING -> an outcome with the delays
  and failure rates of radio.TIMINGS, and change the station as they complete.
- Receptions: the devices heard in the step are heard by the stations around them (3 x 3
  grid cells), RSSI/SNR by distance; the best three are kept per device, in its row
  (`StationStepReport.receptions`, sandbox/receptions.py) with its RSSI/SNR, its best
  station's (`StationStepReport.best`), both written by the device simulator; a station's
  `station_devices` entries change only when it joins or leaves a device's set. The
  stations' traffic is counted per hour.

Everything is a function of the seed and the clock: the same steps give the same database.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..schema.durations import parse_duration
from . import radio
from . import receptions as heard_by
from . import station_trouble as trouble
from .links import mix as _mix
from .links import unit as _unit
from .station_traffic import PendingTraffic
from .store import station_alarms as alarm_store
from .store import station_ops

HOUR_MS = 3_600_000
HOURS_PER_KEY = 1 << 24  # hours since 1970 stay below this until the year 3883
KEEP_MS = 7 * 24 * HOUR_MS
REPORT_MS = station_ops.REPORT_EVERY_MS
OUTAGE_CHANCE = 1 / 4000  # per report: about one outage a fortnight
GRID_REFRESH_MS = 600_000
BACKFILL_MAX_STATIONS, BACKFILL_MAX_DEVICES = 2_000, 100_000
# Stations given their runtime row (first report, disk) per call of `_new_stations`.
NEW_STATIONS_AT_ONCE = 2_000
CONNECTION_ALARM, NO_UPLINK_ALARM, BEACON_ALARM = 102, 103, 111
BEACON_RULE = radio.USAGE_RULES[BEACON_ALARM]
USAGE_WINDOWS = {104: ("crc", 4 * HOUR_MS), 105: ("dropped", HOUR_MS), 106: ("cpu", HOUR_MS),
                 107: ("ram", HOUR_MS), 108: ("disk", HOUR_MS)}  # fmt: skip
REPORT_BLOCK, REPORT_STRIDE = 16, 137
SPANS = frozenset(span for _what, span in USAGE_WINDOWS.values())
Uplink = tuple[int, float, float, int]  # device uid, lat, lon, time of its last uplink


def report_phases(seed: int, uids: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """When (ms into the 5-minute cycle) each station reports. Stations of a block of
    neighbouring uids report in the same second, each at its own millisecond: their rows share
    database pages, so a step writes a few pages for them rather than one each. The blocks
    are spread evenly over the cycle (a stride prime to its seconds)."""
    seconds = REPORT_MS // 1000
    second = (uids // REPORT_BLOCK * REPORT_STRIDE + seed) % seconds
    millis = radio.hash64(seed, uids, 1) % np.uint64(1000)
    return second * 1000 + millis.astype(np.int64)


def thresholds(text: str | None) -> list[tuple[int, int]]:
    """(severity, ms) of a station's alarm102/alarm103 JSON thresholds."""
    out = []
    try:
        for t in json.loads(text or "[]"):
            span = parse_duration(t["duration"])
            out.append((int(t["severity"]), int(span.total_seconds() * 1000)))
    except (ValueError, KeyError, TypeError):
        return []
    return out


@dataclass
class StationStepReport:
    reports: int = 0
    commands: int = 0
    receptions: int = 0
    raised: set[tuple[int, int]] = field(default_factory=set)  # (bs_uid, code)
    cleared: set[tuple[int, int]] = field(default_factory=set)
    best: dict[int, tuple[float, float]] = field(default_factory=dict)  # device: RSSI, SNR
    # device: its stations, packed (receptions.pack), for its row
    heard_by: dict[int, str] = field(default_factory=dict)


class StationSimulator:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._grid = radio.StationGrid([])
        self._grid_key: tuple[int, int] | None = None
        self._grid_at = -GRID_REFRESH_MS
        self._away: set[int] = set()
        self._away_mask: npt.NDArray[np.bool_] | None = None  # by station uid, made when asked
        self._thresholds: dict[str | None, list[tuple[int, int]]] = {}
        self._traffic = PendingTraffic()

    # --- per-station character ----------------------------------------------------------

    def levels(self, uid: int) -> tuple[float, float, float]:
        """The CPU, RAM and disk levels the station's load drifts around (a few run hot)."""
        cpu, ram, disk = self.levels_of(np.array([uid], dtype=np.int64))
        return cpu[0], ram[0], disk[0]

    def levels_of(self, uids: npt.NDArray[np.int64]) -> tuple[list[float], ...]:
        """`levels` of many stations at once: (CPU levels, RAM levels, disk levels)."""
        s = self.seed

        def level(hot_die: int, kind: int, hot: float, base: float, span: float) -> Any:
            normal = base + span * radio.hash_units(s, uids, hot_die + 1)
            return np.where(trouble.troubled(uids, kind), hot, normal).tolist()

        # The hot ones: one station in 40 each (station_trouble).
        return (
            level(11, trouble.HOT_CPU, 93.0, 10, 50),
            level(13, trouble.HOT_RAM, 95.0, 25, 45),
            level(15, trouble.HOT_DISK, 94.0, 15, 50),
        )

    def _thr(self, text: str | None) -> list[tuple[int, int]]:
        if text not in self._thresholds:
            self._thresholds[text] = thresholds(text)
        return self._thresholds[text]

    # --- the step ---------------------------------------------------------------------------

    def step(
        self, conn: sqlite3.Connection, t0: int, t1: int, heard: list[Uplink]
    ) -> StationStepReport:
        """`heard`: (device uid, lat, lon, time) of the last uplink of each device heard in
        the step that has a position."""
        report = StationStepReport()
        self._new_stations(conn, t0)
        self._commands(conn, t1, report)
        self._reports(conn, t1, report)
        if heard:
            self._receptions(conn, t1, heard, report)
        return report

    def _new_stations(self, conn: sqlite3.Connection, t0: int) -> None:
        known = conn.execute("SELECT value FROM sim_state WHERE key = 'known_bs_uid'").fetchone()
        last = int(known[0]) if known else 0
        top = conn.execute("SELECT max(uid) FROM stations").fetchone()[0]
        if top is None or top <= last:
            return
        # At most NEW_STATIONS_AT_ONCE a step: a seeded network's 100,000 stations get
        # theirs over the first minute, not in one step holding the write lock for seconds.
        rows = conn.execute(
            "SELECT uid, last_reboot, cnx_state FROM stations WHERE uid > ? AND uid NOT IN"
            " (SELECT bs_uid FROM station_runtime WHERE bs_uid > ?) ORDER BY uid LIMIT ?",
            (last, last, NEW_STATIONS_AT_ONCE),
        ).fetchall()
        if len(rows) == NEW_STATIONS_AT_ONCE:
            top = rows[-1][0]  # the rest at the next step
        new = []
        uids = np.array([row[0] for row in rows], dtype=np.int64)
        phases = report_phases(self.seed, uids)
        disks = self.levels_of(uids)[2]
        for (uid, last_reboot, cnx), phase, disk_level in zip(
            rows, phases.tolist(), disks, strict=True
        ):
            # The first report at the station's own phase of the 5 minutes, as all after it.
            first = phase + ((t0 - phase) // REPORT_MS + 1) * REPORT_MS
            disk = round(disk_level)
            booted = last_reboot if last_reboot is not None else t0 - phase * 97
            # One found disconnected (the demo's) stays away for 1 to 6 hours more.
            away = t0 + HOUR_MS + phase * 60 if cnx == "DISC" else None
            new.append((uid, first, t0, disk, booted, away))
        conn.executemany(
            "INSERT OR IGNORE INTO station_runtime (bs_uid, next_report, recorded_since, disk,"
            " last_system_reboot, outage_until) VALUES (?, ?, ?, ?, ?, ?)",
            new,
        )
        conn.execute("INSERT OR REPLACE INTO sim_state VALUES ('known_bs_uid', ?)", (str(top),))

    # --- the demo's past day -----------------------------------------------------------------

    def backfill(self, conn: sqlite3.Connection, now_ms: int, hours: int = 24) -> int:
        """Give the stations a past (`hours` of 5-minute reports ending at `now_ms`) and the
        demo devices their receiving stations, so a new demo shows health charts, served
        devices and RF probe traffic before the simulator has run. Returns the stations."""
        start = now_ms - hours * HOUR_MS
        self._new_stations(conn, start)
        (stations_n,) = conn.execute("SELECT count(*) FROM stations").fetchone()
        (devices_n,) = conn.execute("SELECT count(*) FROM devices").fetchone()
        if stations_n > BACKFILL_MAX_STATIONS or devices_n > BACKFILL_MAX_DEVICES:
            return 0  # a big seeded network gets its history from the simulator as it runs
        self.hear_all(conn, now_ms)
        # Their traffic of the past day, counted by the stations that heard them.
        conn.execute(
            "INSERT INTO station_hours (bs_uid, ts, up, up_size, dw, dw_size)"
            # (the stations are the list's items 1, 5 and 9; item 1 is the best)
            " SELECT r.value, f.ts, sum(f.up), sum(f.up_size), sum(f.dw * (r.key = 1)),"
            " sum(f.dw_size * (r.key = 1)) FROM frame_buckets f"
            " JOIN devices d ON d.uid = f.device_uid, json_each(d.receptions) r"
            " WHERE r.key % 4 = 1 AND f.ts >= ? GROUP BY r.value, f.ts ORDER BY 1, 2"
            " ON CONFLICT (bs_uid, ts) DO UPDATE SET up = up + excluded.up,"
            " up_size = up_size + excluded.up_size, dw = dw + excluded.dw,"
            " dw_size = dw_size + excluded.dw_size",
            (start - start % HOUR_MS,),
        )
        stations = conn.execute(
            "SELECT uid, cnx_state FROM stations WHERE state = 'ACTIVE'"
        ).fetchall()
        times = np.arange(start - start % REPORT_MS + REPORT_MS, now_ms, REPORT_MS, dtype=np.int64)
        for uid, cnx in stations:
            if cnx != "CNX":
                continue
            self._backfill_station(conn, uid, times)
        return len(stations)

    def hear_all(self, conn: sqlite3.Connection, now_ms: int, chunk: int = 50_000) -> int:
        """Every device with a position that has sent gets the stations that heard its last
        uplink, with their RSSI/SNR, as the simulator gives them at each uplink: a new or
        seeded network shows its stations' served devices at once. Returns the devices
        heard."""
        cursor = conn.cursor()
        cursor.row_factory = None
        done = after = 0
        while rows := cursor.execute(
            "SELECT uid, lat, lon, last_up FROM devices WHERE uid > ? AND last_up IS NOT NULL"
            " AND lat IS NOT NULL AND lon IS NOT NULL ORDER BY uid LIMIT ?",
            (after, chunk),
        ).fetchall():
            after = rows[-1][0]
            got = StationStepReport()
            self._receptions(conn, now_ms, rows, got)
            conn.executemany(
                "UPDATE devices SET last_rssi = ?, last_snr = ?, receptions = ? WHERE uid = ?",
                [(rssi, snr, got.heard_by[uid], uid) for uid, (rssi, snr) in got.best.items()],
            )
            done += len(got.best)
        self.flush(conn)
        return done

    def _backfill_station(self, conn: sqlite3.Connection, uid: int, times: Any) -> None:
        levels = self.levels(uid)
        series = []
        for k, (level, pull, spread) in enumerate(
            zip(levels, (0.1, 0.1, 0.05), (4, 2, 1), strict=True)
        ):
            units = radio.hash_units(self.seed, uid, times, 41 + k).tolist()
            value, values = level, []
            for u in units:
                value = radio.drift(value, level, u, pull=pull, spread=spread)
                values.append(round(value))
            series.append(values)
        rtt = (20 + 60 * radio.hash_units(self.seed, uid, 44)
               + 15 * radio.hash_units(self.seed, uid, times, 45)).round().astype(int).tolist()  # fmt: skip
        hours: dict[int, list[int]] = {}
        for i, ts in enumerate(times.tolist()):
            cpu, ram, disk = series[0][i], series[1][i], series[2][i]
            h = hours.setdefault(ts - ts % HOUR_MS, [0] * 11)
            for j, v in enumerate((1, cpu, cpu * cpu, ram, disk, rtt[i], rtt[i] * rtt[i])):
                h[(0, 1, 2, 4, 6, 8, 9)[j]] += v
            h[3], h[5], h[7], h[10] = (
                max(h[3], cpu),
                max(h[5], ram),
                max(h[7], disk),
                max(h[10], rtt[i]),
            )
        conn.executemany(
            "INSERT INTO station_hours (bs_uid, ts, n, cpu_sum, cpu_sq, cpu_max, ram_sum,"
            " ram_max, disk_sum, disk_max, rtt_sum, rtt_sq, rtt_max)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (bs_uid, ts) DO UPDATE SET n = excluded.n, cpu_sum = excluded.cpu_sum,"
            " cpu_sq = excluded.cpu_sq, cpu_max = excluded.cpu_max, ram_sum = excluded.ram_sum,"
            " ram_max = excluded.ram_max, disk_sum = excluded.disk_sum,"
            " disk_max = excluded.disk_max, rtt_sum = excluded.rtt_sum,"
            " rtt_sq = excluded.rtt_sq, rtt_max = excluded.rtt_max",
            [(uid, ts, *h) for ts, h in hours.items()],
        )
        ts_list = times.tolist()

        def edge(values: list[int], pick: Any) -> tuple[int, int]:
            i = pick(range(len(values)), key=values.__getitem__)
            return values[i], ts_list[i]

        cpus, rams, disks = series
        conn.execute(
            "UPDATE station_runtime SET recorded_since = ?, disk = ?, cpu_min = ?, cpu_min_ts = ?,"
            " cpu_max = ?, cpu_max_ts = ?, ram_min = ?, ram_min_ts = ?, ram_max = ?,"
            " ram_max_ts = ?, disk_min = ?, disk_min_ts = ?, disk_max = ?, disk_max_ts = ?,"
            " rtt_max = ?, rtt_max_ts = ? WHERE bs_uid = ?",
            (ts_list[0], disks[-1], *edge(cpus, min), *edge(cpus, max), *edge(rams, min),
             *edge(rams, max), *edge(disks, min), *edge(disks, max), *edge(rtt, max), uid),
        )  # fmt: skip
        conn.execute(
            "UPDATE stations SET cpu = ?, ram = ?, last_report = ? WHERE uid = ?",
            (cpus[-1], rams[-1], ts_list[-1], uid),
        )

    # --- commands ---------------------------------------------------------------------------

    def _commands(self, conn: sqlite3.Connection, t1: int, report: StationStepReport) -> None:
        for cmd in station_ops.due_commands(conn, t1):
            uid = cmd["bs_uid"]
            connected = cmd["cnx_state"] == "CNX"
            roll = _unit(self.seed, cmd["id"], 23)
            if (
                cmd["command"] == "restore"
                and cmd["status"] == "PROCESSING"
                and station_ops.runtime(conn, uid)["backup_version"] is None
            ):
                roll = 0.0  # nothing to restore: it fails
            step = radio.advance_command(
                cmd["command"], cmd["status"], cmd["requested"], cmd["due"], t1, connected,
                roll, cmd["run_ms"],
            )  # fmt: skip
            if step is None:
                continue
            report.commands += 1
            text = None
            if step.status == radio.PROCESSING:
                data = self._start(conn, cmd, step.at_ms)
                station_ops.set_command(
                    conn, cmd["id"], step.status, step.at_ms, step.due_ms, data=data
                )
                continue
            if step.status == radio.COMPLETED:
                text = self._complete(conn, cmd, step.at_ms, report)
            elif step.status == radio.ERR_EXEC:
                text = radio.FAILURE_TEXT.get(cmd["command"], "the station reported an error")
                self._failed(conn, cmd, step.at_ms, report)
            elif step.status == radio.ERR_NOSTART:
                text = "the base station did not take the command (not connected)"
            else:
                text = "no completion report from the base station"
            status = step.status
            if status == radio.COMPLETED and text is not None and text.startswith("!"):
                status, text = radio.ERR_EXEC, text[1:]
            station_ops.set_command(conn, cmd["id"], status, step.at_ms, None, text)

    def _start(self, conn: sqlite3.Connection, cmd: dict[str, Any], at: int) -> str | None:
        """A command the station takes: a reboot-like one takes it away; a scan starts."""
        uid, name = cmd["bs_uid"], cmd["command"]
        timing = radio.TIMINGS[name]
        if timing.offline_ms:
            station_ops.set_runtime(conn, uid, at, offline_until=at + timing.offline_ms)
            self._disconnect(conn, uid, at)
        if name == "scanRadio":
            station_ops.set_runtime(conn, uid, at, rf_scan_state=1)
        if name in ("openSsh", "openTerminal"):
            port = 20_000 + _mix(self.seed, cmd["id"]) % 10_000
            station_ops.set_runtime(conn, uid, at, ssh_port=port)
            return str(port)
        return None

    def _disconnect(self, conn: sqlite3.Connection, uid: int, at: int) -> None:
        conn.execute(
            "UPDATE stations SET cnx_state = 'DISC', cnx_since = ?,"
            " health_state = 'BACKHAUL_CNX_ERROR' WHERE uid = ? AND cnx_state = 'CNX'",
            (at, uid),
        )
        self._count(conn, uid, "wan", "disc")
        self._away.add(uid)
        self._mark_away(uid, True)
        # Look again when alarm 102 is due.
        conn.execute(
            "UPDATE station_runtime SET next_report = min(next_report, ?) WHERE bs_uid = ?",
            (at + 1000, uid),
        )

    def _connect(
        self, conn: sqlite3.Connection, uid: int, at: int, report: StationStepReport
    ) -> None:
        changed = conn.execute(
            "UPDATE stations SET cnx_state = 'CNX', cnx_since = ?, health_state = 'ACTIVE'"
            " WHERE uid = ? AND cnx_state != 'CNX' AND state = 'ACTIVE'",
            (at, uid),
        ).rowcount
        if uid in self._away:
            self._away.discard(uid)
            self._mark_away(uid, False)
        if changed:
            self._count(conn, uid, "wan", "cnx")
            alarm_store.clear_alarm(conn, uid, CONNECTION_ALARM, at)
            report.cleared.add((uid, CONNECTION_ALARM))

    def _count(self, conn: sqlite3.Connection, uid: int, kind: str, ident: str) -> None:
        counters = json.loads(station_ops.runtime(conn, uid)["counters"] or "{}")
        entry = counters.setdefault(kind, {}).setdefault(ident, [0])
        entry[0] += 1
        conn.execute(
            "UPDATE station_runtime SET counters = ? WHERE bs_uid = ?", (json.dumps(counters), uid)
        )

    def _complete(
        self, conn: sqlite3.Connection, cmd: dict[str, Any], at: int, report: StationStepReport
    ) -> str | None:
        """Apply a command's effect; a text starting with "!" turns it into a failure."""
        uid, name = cmd["bs_uid"], cmd["command"]
        params = json.loads(cmd["params"] or "{}")
        s = station_ops.station(conn, uid)
        r = station_ops.runtime(conn, uid)
        put = station_ops.set_runtime
        if radio.TIMINGS[name].offline_ms:
            put(conn, uid, at, offline_until=None)
            self._connect(conn, uid, at, report)
            self._count(conn, uid, "rfcell", "cok")
        if name == "reboot":
            station_ops.set_station(conn, uid, last_reboot=at)
            put(conn, uid, at, last_system_reboot=at, ssh_port=None, rf_scan_state=0)
        elif name in ("restart", "restore"):
            station_ops.set_station(conn, uid, last_reboot=at)
        elif name == "upgrade":
            station_ops.set_station(conn, uid, sw_version=params.get("version"), last_reboot=at)
        elif name == "backup":
            put(conn, uid, at, backup_version=s["sw_version"], backup_date=at)
        elif name == "rfcStart":
            put(conn, uid, at, rfcell_state=2)
        elif name == "rfcStop":
            put(conn, uid, at, rfcell_state=0)
        elif name == "rfcDownlinkStop":
            put(conn, uid, at, rfcell_state=1)
        elif name == "scanRadio":
            put(conn, uid, at, rf_scan_state=0)
            return "radio scan report available on the station"
        elif name == "cancelRadioScan":
            scan = station_ops.running_command(conn, uid, "scanRadio")
            if scan is None or r["rf_scan_state"] == 0:
                return "!no radio scan in progress"
            station_ops.set_command(conn, scan["id"], radio.ERR_EXEC, at, None, "cancelled")
            put(conn, uid, at, rf_scan_state=0)
        elif name == "closeSsh":
            put(conn, uid, at, ssh_port=None)
        elif name == "updateAntennasGainAndLoss":
            put(conn, uid, at, chains=json.dumps(params.get("chains", [])))
        elif name == "updateFineTimestampKeys":
            put(conn, uid, at, fpga_keys=json.dumps(params.get("fpgaBoards", [])))
        elif name == "updateLocation":
            put(conn, uid, at, location_type=params.get("locationType", 1))
            if params.get("locationType") == 1:
                station_ops.set_station(
                    conn, uid, lat=params["adminLat"], lon=params["adminLon"],
                    alt=params.get("adminAlt", s["alt"]),
                )  # fmt: skip
                self._grid_at = -GRID_REFRESH_MS  # it moved: rebuild the grid
        elif name == "updateLog":
            put(conn, uid, at, trace_level=params["traceLevel"], trace_since=at)
        elif name == "updateRfRegion":
            same = s["rf_region_id"] == params["rfRegionID"]
            station_ops.set_station(conn, uid, rf_region_id=params["rfRegionID"])
            put(conn, uid, at, rf_region_version=r["rf_region_version"] + 1 if same else 1)
        elif name == "changeSupportPassword":
            put(conn, uid, at, support_pw_changed=at)
        return None

    def _failed(
        self, conn: sqlite3.Connection, cmd: dict[str, Any], at: int, report: StationStepReport
    ) -> None:
        uid, name = cmd["bs_uid"], cmd["command"]
        if radio.TIMINGS[name].offline_ms:  # it comes back on its previous software
            station_ops.set_runtime(conn, uid, at, offline_until=None)
            self._connect(conn, uid, at, report)
        if name == "changeSupportPassword":
            station_ops.set_runtime(conn, uid, at, support_pw_hash=None)

    # --- health reports ---------------------------------------------------------------------

    def _reports(self, conn: sqlite3.Connection, t1: int, report: StationStepReport) -> None:
        due = _tuples(
            conn,
            "SELECT r.bs_uid, r.next_report, r.offline_until, r.outage_until, r.disk,"
            " r.cpu_min, r.cpu_max, r.ram_min, r.ram_max, r.disk_min, r.disk_max, r.rtt_max,"
            " s.cpu, s.ram, s.cnx_state, s.cnx_since, s.state, s.alarm102, s.alarm103, s.last_up,"
            " r.beacon, s.gps_receiver FROM station_runtime r JOIN stations s ON s.uid = r.bs_uid"
            " WHERE r.next_report <= ? ORDER BY r.next_report",
            (t1,),
        )
        if not due:
            return
        uids = [row[0] for row in due]
        due_uid = np.array(uids, dtype=np.int64)
        # What they heard since they last reported: written with the report's own rows (one
        # write a station rather than two), and read by the usage alarms as if written.
        traffic, ups = self._traffic.take(due_uid)
        # What the troubled stations hear and send beyond the devices (station_trouble).
        extra = [trouble.background_traffic(row[0], row[1]) for row in due
                 if row[14] == "CNX" and row[16] == "ACTIVE"]  # fmt: skip
        traffic = trouble.merge_traffic(traffic + [row for row in extra if row is not None])
        heard_at = {uid: t for t, uid in ups}
        open_alarms: dict[int, dict[int, int]] = defaultdict(dict)
        for uid, code, state in _tuples(
            conn,
            "SELECT bs_uid, alarm_id, state FROM station_alarms WHERE bs_uid IN"
            " (SELECT value FROM json_each(?)) AND state > 1",
            (json.dumps(uids),),
        ):
            open_alarms[uid][code] = state
        runtime_updates = []
        station_updates = []
        hours = []
        # The dice of every due report at once (vectorised: a _unit call costs microseconds).
        due_ts = np.array([row[1] for row in due], dtype=np.int64)
        dice = {k: radio.hash_units(self.seed, due_uid, due_ts, k).tolist()
                for k in (29, 31, 41, 42, 43, 45)}  # fmt: skip
        base_rtt = radio.hash_units(self.seed, due_uid, 44).tolist()
        phase_of = report_phases(self.seed, due_uid)
        phases = phase_of.tolist()
        # When each report counts from: one missed for longer (the sandbox was stopped) is not
        # replayed, the latest counts.
        late = t1 - due_ts > REPORT_MS
        report_ts = np.where(late, t1 - (t1 - phase_of) % REPORT_MS, due_ts)
        usage = self._usage_checks(conn, t1, due_uid, report_ts, open_alarms, traffic)
        cpu_levels, ram_levels, disk_levels = self.levels_of(due_uid)
        # The loads' next values, all at once (the same walk as radio.drift).
        new_cpus = _drifted([r[12] for r in due], cpu_levels, dice[41], 0.1, 4.0)
        new_rams = _drifted([r[13] for r in due], ram_levels, dice[42], 0.1, 2.0)
        new_disks = _drifted([r[4] for r in due], disk_levels, dice[43], 0.05, 1.0)
        rtts = np.rint(20 + 60 * np.array(base_rtt) + 15 * np.array(dice[45])).astype(np.int64)
        rtt_list = rtts.tolist()
        flaky = trouble.troubled(due_uid, trouble.FLAKY_BACKHAUL)
        outage_chance = np.where(flaky, trouble.FLAKY_OUTAGE_CHANCE, OUTAGE_CHANCE).tolist()
        for i, row in enumerate(due):
            (uid, ts, offline_until, outage_until, _disk, cpu_min, cpu_max, ram_min, ram_max,
             disk_min, disk_max, _rtt_max, _cpu, _ram, cnx, cnx_since, state, a102, a103,
             last_up, beacon, gps) = row  # fmt: skip
            report.reports += 1
            # Reports come at the station's own phase of the 5 minutes (spread evenly). One
            # missed for longer (the sandbox was stopped) is not replayed: the latest counts.
            phase = phases[i]
            if t1 - ts > REPORT_MS:
                ts = t1 - (t1 - phase) % REPORT_MS
            regular = phase + ((ts - phase) // REPORT_MS + 1) * REPORT_MS
            if state != "ACTIVE":
                runtime_updates.append(_runtime_row(uid, regular, None, None))
                continue
            if (
                cnx == "CNX"
                and not (outage_until and outage_until > ts)
                and dice[29][i] < outage_chance[i]
            ):
                outage_until = ts + 60_000 + int(dice[31][i] * 19 * 60_000)
            away_until = max(offline_until or 0, outage_until or 0)
            alarms = open_alarms.get(uid, {})
            if away_until > ts:
                if cnx == "CNX":
                    self._disconnect(conn, uid, ts)
                    cnx_since = ts
                elapsed = ts - (cnx_since or ts)
                rules = self._thr(a102)
                severity = radio.crossed_severity(elapsed, rules)
                if severity is not None and alarms.get(CONNECTION_ALARM) != severity:
                    alarm_store.raise_alarm(conn, uid, CONNECTION_ALARM, severity, None, ts)
                    report.raised.add((uid, CONNECTION_ALARM))
                later = [
                    (cnx_since or ts) + span
                    for _sev, span in rules
                    if (cnx_since or ts) + span > ts
                ]
                wake = min([regular, away_until, *later])
                runtime_updates.append(_runtime_row(uid, wake, offline_until, outage_until))
                continue
            if cnx != "CNX":
                self._connect(conn, uid, ts, report)
            if outage_until and outage_until <= ts:
                outage_until = None
            if CONNECTION_ALARM in alarms and cnx == "CNX":
                alarm_store.clear_alarm(conn, uid, CONNECTION_ALARM, ts)
                report.cleared.add((uid, CONNECTION_ALARM))
            # Load drift.
            new_cpu, new_ram, new_disk, rtt = new_cpus[i], new_rams[i], new_disks[i], rtt_list[i]
            hour = ts - ts % HOUR_MS
            hours.append((uid, hour, new_cpu, new_cpu * new_cpu, new_ram, new_disk, rtt, rtt * rtt))
            station_updates.append((new_cpu, new_ram, ts, uid))
            runtime_updates.append((
                regular, offline_until, outage_until, new_disk,
                *_edge(cpu_min, cpu_max, new_cpu, ts), *_edge(ram_min, ram_max, new_ram, ts),
                *_edge(disk_min, disk_max, new_disk, ts), rtt, rtt, ts, uid,
            ))  # fmt: skip
            if hour != (ts - REPORT_MS) - (ts - REPORT_MS) % HOUR_MS:
                conn.execute(
                    "DELETE FROM station_hours WHERE bs_uid = ? AND ts < ?", (uid, hour - KEEP_MS)
                )
            for code, up, percent in usage.get(i, ()):
                if up:
                    rule = radio.USAGE_RULES[code]
                    alarm_store.raise_alarm(
                        conn, uid, code, rule.severity, radio.add_info2(percent), ts
                    )
                    report.raised.add((uid, code))
                else:
                    alarm_store.clear_alarm(conn, uid, code, ts)
                    report.cleared.add((uid, code))
            # Alarm 103: silence of the uplinks, per alarm103 only (Document 2 §2.4: no
            # default); without thresholds an open one clears.
            quiet = ts - max(last_up or 0, heard_at.get(uid, 0), cnx_since or 0)
            severity = radio.crossed_severity(quiet, self._thr(a103))
            if severity is not None and alarms.get(NO_UPLINK_ALARM) != severity:
                alarm_store.raise_alarm(conn, uid, NO_UPLINK_ALARM, severity, None, ts)
                report.raised.add((uid, NO_UPLINK_ALARM))
            elif severity is None and NO_UPLINK_ALARM in alarms:
                alarm_store.clear_alarm(conn, uid, NO_UPLINK_ALARM, ts)
                report.cleared.add((uid, NO_UPLINK_ALARM))
            # Alarm 111: the share of beacons that failed, while beacons are on.
            failed = 100 * trouble.beacon_failure_share(uid, gps) if beacon else 0.0
            verdict = radio.usage_verdict(BEACON_RULE, failed, BEACON_ALARM in alarms)
            if verdict:
                alarm_store.raise_alarm(conn, uid, BEACON_ALARM, BEACON_RULE.severity,
                                        radio.add_info2(failed), ts)  # fmt: skip
                report.raised.add((uid, BEACON_ALARM))
            elif verdict is False:
                alarm_store.clear_alarm(conn, uid, BEACON_ALARM, ts)
                report.cleared.add((uid, BEACON_ALARM))
        # The hour's sample with the traffic of that hour; the traffic of other hours (the
        # report crossed an hour) and of stations that did not report their health, alone.
        counts_of = {(row[0], row[1]): row[2:] for row in traffic}
        none = (0,) * 6
        conn.executemany(
            "INSERT INTO station_hours (bs_uid, ts, n, cpu_sum, cpu_sq, cpu_max, ram_sum,"
            " ram_max, disk_sum, disk_max, rtt_sum, rtt_sq, rtt_max, up, up_size, up_crc, dw,"
            " dw_size, dw_dropped) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (bs_uid, ts) DO UPDATE SET n = n + 1,"
            " cpu_sum = cpu_sum + excluded.cpu_sum, cpu_sq = cpu_sq + excluded.cpu_sq,"
            " cpu_max = max(cpu_max, excluded.cpu_max), ram_sum = ram_sum + excluded.ram_sum,"
            " ram_max = max(ram_max, excluded.ram_max), disk_sum = disk_sum + excluded.disk_sum,"
            " disk_max = max(disk_max, excluded.disk_max), rtt_sum = rtt_sum + excluded.rtt_sum,"
            " rtt_sq = rtt_sq + excluded.rtt_sq, rtt_max = max(rtt_max, excluded.rtt_max),"
            " up = up + excluded.up, up_size = up_size + excluded.up_size,"
            " up_crc = up_crc + excluded.up_crc, dw = dw + excluded.dw,"
            " dw_size = dw_size + excluded.dw_size, dw_dropped = dw_dropped + excluded.dw_dropped",
            [(u, h, c, c2, c, r, r, d, d, t, t2, t, *counts_of.pop((u, h), none))
             for u, h, c, c2, r, d, t, t2 in hours],
        )  # fmt: skip
        _write_traffic(conn, [(u, h, *counts) for (u, h), counts in counts_of.items()])
        # Their latest uplink heard with the health figures: one write a station.
        conn.executemany(
            "UPDATE stations SET cpu = ?, ram = ?, last_report = ?,"
            " last_up = max(coalesce(last_up, 0), ?) WHERE uid = ?",
            [(c, r, ts, heard_at.pop(uid), uid) for c, r, ts, uid in station_updates
             if uid in heard_at],
        )  # fmt: skip
        conn.executemany(  # (last_up untouched: its index entry would be written again)
            "UPDATE stations SET cpu = ?, ram = ?, last_report = ? WHERE uid = ?",
            [row for row in station_updates if row[3] not in heard_at],
        )
        conn.executemany(
            "UPDATE stations SET last_up = max(coalesce(last_up, 0), ?) WHERE uid = ?",
            [(t, uid) for uid, t in heard_at.items()],
        )
        conn.executemany(
            "UPDATE station_runtime SET next_report = ?, offline_until = ?, outage_until = ?"
            " WHERE bs_uid = ?",
            [r for r in runtime_updates if len(r) == 4],
        )
        conn.executemany(
            "UPDATE station_runtime SET next_report = ?, offline_until = ?, outage_until = ?,"
            " disk = ?, cpu_min = coalesce(?, cpu_min), cpu_min_ts = coalesce(?, cpu_min_ts),"
            " cpu_max = coalesce(?, cpu_max), cpu_max_ts = coalesce(?, cpu_max_ts),"
            " ram_min = coalesce(?, ram_min), ram_min_ts = coalesce(?, ram_min_ts),"
            " ram_max = coalesce(?, ram_max), ram_max_ts = coalesce(?, ram_max_ts),"
            " disk_min = coalesce(?, disk_min), disk_min_ts = coalesce(?, disk_min_ts),"
            " disk_max = coalesce(?, disk_max), disk_max_ts = coalesce(?, disk_max_ts),"
            " rtt_max = max(coalesce(rtt_max, 0), ?),"
            " rtt_max_ts = CASE WHEN ? > coalesce(rtt_max, 0) THEN ? ELSE rtt_max_ts END"
            " WHERE bs_uid = ?",
            [r for r in runtime_updates if len(r) != 4],
        )

    def _usage_checks(
        self,
        conn: sqlite3.Connection,
        t1: int,
        uids: npt.NDArray[np.int64],
        report_ts: npt.NDArray[np.int64],
        open_alarms: dict[int, dict[int, int]],
        traffic: list[tuple[int, ...]],
    ) -> dict[int, list[tuple[int, bool, float]]]:
        """Alarms 104-108 of the due reports from their hourly samples (Document 2 §6:
        addInfo2 is the percentage), all at once: {report's index: [(code, raise (else
        clear), percent)]}. A report's own samples are not in the table yet: the last hour
        is the samples before it; the `traffic` they heard since they last reported (not
        written yet either) is."""
        n = len(uids)
        since = t1 - t1 % HOUR_MS - 5 * HOUR_MS
        rows = _tuples(
            conn,
            "SELECT bs_uid, ts, n, cpu_sum, ram_sum, disk_sum, up, up_crc, dw, dw_dropped"
            " FROM station_hours WHERE bs_uid IN (SELECT value FROM json_each(?)) AND ts >= ?",
            (json.dumps(uids.tolist()), since),
        )
        rows += [(u, h, 0, 0, 0, 0, up, crc, dw, dropped)
                 for u, h, up, _size, crc, dw, _dw_size, dropped in traffic if h >= since]  # fmt: skip
        if not rows:
            return {}
        table = np.array(rows, dtype=np.int64)
        index_of = {uid: i for i, uid in enumerate(uids.tolist())}
        which = np.array([index_of[u] for u in table[:, 0].tolist()], dtype=np.int64)
        column = dict(
            zip(
                ("n", "cpu", "ram", "disk", "up", "crc", "dw", "dropped"),
                table[:, 2:].T,
                strict=True,
            )
        )
        # Each window's sums: the samples of the hours that overlap it.
        sums: dict[int, dict[str, npt.NDArray[np.float64]]] = {}
        for span in SPANS:
            inside = table[:, 1] + HOUR_MS > report_ts[which] - span
            at = which[inside]
            sums[span] = {"rows": np.bincount(at, minlength=n).astype(np.float64)} | {
                name: np.bincount(at, weights=values[inside], minlength=n)
                for name, values in column.items()
            }
        raised = {code: np.zeros(n, dtype=bool) for code in USAGE_WINDOWS}
        for uid, codes in open_alarms.items():
            for code in codes:
                if code in raised:
                    raised[code][index_of[uid]] = True
        out: dict[int, list[tuple[int, bool, float]]] = {}
        with np.errstate(divide="ignore", invalid="ignore"):
            for code, (what, span) in USAGE_WINDOWS.items():
                got = sums[span]
                if what in ("cpu", "ram", "disk"):
                    percent = np.where(got["n"] > 0, got[what] / got["n"], np.nan)
                else:
                    total, part = (
                        (got["up"], got["crc"]) if what == "crc" else (got["dw"], got["dropped"])
                    )
                    # A percentage of a handful of frames says nothing.
                    percent = np.where(total >= 20, 100.0 * part / total, np.nan)
                percent = np.where(got["rows"] > 0, percent, np.nan)
                rule = radio.USAGE_RULES[code]
                up = ~raised[code] & (percent >= rule.raise_at)
                down = raised[code] & (percent < rule.clear_below)
                for i in np.flatnonzero(up | down).tolist():
                    out.setdefault(i, []).append((code, bool(up[i]), float(percent[i])))
        return out

    # --- receptions ---------------------------------------------------------------------------

    def _load_grid(self, conn: sqlite3.Connection, t1: int) -> None:
        # max(uid) is one index probe (count(*) read 100k rows each step): a new station is
        # seen at once, a moved or deleted one at the next refresh.
        key = (0, conn.execute("SELECT coalesce(max(uid), 0) FROM stations").fetchone()[0])
        if key == self._grid_key and t1 - self._grid_at < GRID_REFRESH_MS:
            return
        stations = []
        away = set()
        for uid, lat, lon, cnx in conn.execute(
            # (a station in RF error hears nothing: its alarm 103 follows)
            "SELECT uid, lat, lon, cnx_state FROM stations WHERE lat IS NOT NULL"
            " AND lon IS NOT NULL AND state = 'ACTIVE' AND health_state != 'RF_ERROR'"
        ):
            stations.append((uid, lat, lon))
            if cnx != "CNX":
                away.add(uid)
        grid = self._grid
        same = len(grid) == len(stations) and (
            grid.uid.tolist() == [s[0] for s in stations]
            and grid.lat.tolist() == [s[1] for s in stations]
            and grid.lon.tolist() == [s[2] for s in stations]
        )
        if not same:  # (the same stations keep the grid, and the cells it knows)
            self._grid = radio.StationGrid(stations)
        self._grid_key, self._grid_at = (key[0], key[1]), t1
        self._away, self._away_mask = away, None

    def _receptions(
        self, conn: sqlite3.Connection, t1: int, heard: list[Uplink], report: StationStepReport
    ) -> None:
        self._load_grid(conn, t1)
        grid = self._grid
        if not len(grid):
            return
        # One row per (device, candidate station); the rule runs on them all at once.
        near = [grid.near_index(lat, lon) for _dev, lat, lon, _ts in heard]
        counts = np.array([len(n) for n in near], dtype=np.int64)
        if not counts.sum():
            return
        rows = np.concatenate(near)
        dev = np.repeat(np.array([h[0] for h in heard], dtype=np.int64), counts)
        ts_all = np.repeat(np.array([h[3] for h in heard], dtype=np.int64), counts)
        lat = np.repeat(np.array([h[1] for h in heard], dtype=np.float64), counts)
        lon = np.repeat(np.array([h[2] for h in heard], dtype=np.float64), counts)
        # Only the candidates within reach (a few in a hundred of the cells' stations).
        reach = radio.within_reach(lat, lon, grid.lat[rows], grid.lon[rows])
        rows, dev, ts_all, lat, lon = rows[reach], dev[reach], ts_all[reach], lat[reach], lon[reach]
        st = grid.uid[rows]
        if self._away:
            up = ~self._away_of(st)
            rows, dev, ts_all, st = rows[up], dev[up], ts_all[up], st[up]
            lat, lon = lat[up], lon[up]
            if not len(st):
                return
        seed = self.seed
        # Fading: a stable part per link and a part per uplink.
        fading = 0.7 * (2 * radio.hash_units(seed, dev, st, 61) - 1) + 0.3 * (
            2 * radio.hash_units(seed, dev, st, ts_all, 62) - 1
        )
        got = radio.best_receptions(dev, lat, lon, st, grid.lat[rows], grid.lon[rows], fading)
        g_dev, g_rank, g_st, g_rssi, g_snr, g_esp = got
        if not len(g_dev):
            return
        ts_of = dict(zip([h[0] for h in heard], [h[3] for h in heard], strict=True))
        g_ts = np.array([ts_of[d] for d in g_dev.tolist()], dtype=np.int64)
        report.receptions += len(g_dev)
        # Each reception: its size, a CRC failure at the station's rate; the best station
        # answers every 8th uplink, dropping some at its rate.
        size = 12 + (radio.hash_units(seed, g_dev, g_ts, 63) * 40).astype(np.int64)
        crc_rate = np.where(trouble.troubled(g_st, trouble.NOISY), 0.35,
                            0.02 + 0.06 * radio.hash_units(seed, g_st, 18))  # fmt: skip
        crc = radio.hash_units(seed, g_dev, g_st, g_ts, 51) < crc_rate
        answered = (g_rank == 1) & (radio.hash_units(seed, g_dev, g_ts, 52) < 1 / DOWNLINK_EVERY)
        drop_rate = np.where(
            trouble.troubled(g_st, trouble.OVERLOADED), trouble.OVERLOAD_DROP, 0.01
        )
        dropped = answered & (radio.hash_units(seed, g_dev, g_ts, 53) < drop_rate)
        hour = g_ts - g_ts % HOUR_MS
        kept = list(
            zip(g_dev.tolist(), g_rank.tolist(), g_st.tolist(), g_ts.tolist(), g_rssi.tolist(),
                g_snr.tolist(), g_esp.tolist(), strict=True)
        )  # fmt: skip
        report.best.update((d, (rssi, snr)) for d, rank, _s, _t, rssi, snr, _e in kept if rank == 1)
        self._write_receptions(conn, kept, report)
        # The stations' traffic per hour, kept until they report.
        # (station, hour) as one integer: a 1-D unique is much cheaper than a 2-D one.
        keys, inverse = np.unique(g_st * HOURS_PER_KEY + hour // HOUR_MS, return_inverse=True)
        inverse = inverse.reshape(-1)
        n = len(keys)
        counts = np.stack(
            [np.bincount(inverse, weights=w, minlength=n) for w in
             (None, size, crc, answered, 8 * answered, dropped)], axis=1,
        ).astype(np.int64)  # fmt: skip
        latest = np.full(n, 0, dtype=np.int64)
        np.maximum.at(latest, inverse, g_ts)
        older = self._traffic.add(
            keys // HOURS_PER_KEY, keys % HOURS_PER_KEY * HOUR_MS, counts, latest
        )
        if older:
            _write_traffic(conn, older)

    def _mark_away(self, uid: int, away: bool) -> None:
        mask = self._away_mask
        if mask is not None:
            if uid < len(mask):
                mask[uid] = away
            elif away:
                self._away_mask = None  # (made again, larger, when next asked)

    def _away_of(self, uids: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Which of these stations are away (not connected)."""
        mask = self._away_mask
        top = int(np.max(uids, initial=0))
        if mask is None or len(mask) <= top:  # (kept up to date by _mark_away meanwhile)
            mask = np.zeros(max(top, max(self._away, default=0)) + 1, dtype=bool)
            mask[np.fromiter(self._away, dtype=np.int64, count=len(self._away))] = True
            self._away_mask = mask
        return mask[uids]

    def _write_receptions(
        self, conn: sqlite3.Connection, kept: list[tuple[Any, ...]], report: StationStepReport
    ) -> None:
        """Each device's stations (device, rank, station, ts, rssi, snr, esp; by device, best
        first) packed for its row (`report.heard_by`); `station_devices` gets the stations
        that joined or left a device's set."""
        if not kept:
            return
        # Runs of one device: where the device changes (kept is grouped by device).
        devices = [row[0] for row in kept]
        starts = [i for i in range(len(devices)) if i == 0 or devices[i] != devices[i - 1]]
        bounds = zip(starts, [*starts[1:], len(kept)], strict=True)
        before = dict(
            _tuples(
                conn,
                "SELECT uid, receptions FROM devices WHERE uid IN (SELECT value FROM json_each(?))",
                (json.dumps([devices[i] for i in starts]),),
            )
        )
        left, joined = [], []
        out = report.heard_by
        for a, b in bounds:
            d, ts = kept[a][0], kept[a][3]
            heard = [(row[2], row[4], row[5], row[6]) for row in kept[a:b]]
            was = heard_by.stations_of(before.get(d))
            now = {h[0] for h in heard}
            if now != was:
                left += [(bs, d) for bs in was - now]
                joined += [(bs, d) for bs in now - was]
            out[d] = heard_by.pack(ts, heard)
        left.sort()
        joined.sort()
        conn.executemany("DELETE FROM station_devices WHERE bs_uid = ? AND device_uid = ?", left)
        conn.executemany("INSERT OR IGNORE INTO station_devices VALUES (?, ?)", joined)

    def flush(self, conn: sqlite3.Connection, uids: list[int] | None = None) -> None:
        """Write the pending traffic and last uplinks (of `uids`, else of every station)."""
        traffic, ups = self._traffic.take(None if uids is None else np.array(uids, dtype=np.int64))
        conn.executemany(
            "UPDATE stations SET last_up = max(coalesce(last_up, 0), ?) WHERE uid = ?", ups
        )
        _write_traffic(conn, traffic)


def _write_traffic(conn: sqlite3.Connection, rows: list[tuple[int, ...]]) -> None:
    """Add (station, hour, the 6 counts) to the stations' hourly samples; a station deleted
    meanwhile is skipped (its hours would dangle)."""
    conn.executemany(
        "INSERT INTO station_hours (bs_uid, ts, up, up_size, up_crc, dw, dw_size, dw_dropped)"
        " SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS"
        " (SELECT 1 FROM stations WHERE uid = ?)"
        " ON CONFLICT (bs_uid, ts) DO UPDATE SET"
        " up = up + excluded.up, up_size = up_size + excluded.up_size,"
        " up_crc = up_crc + excluded.up_crc, dw = dw + excluded.dw,"
        " dw_size = dw_size + excluded.dw_size, dw_dropped = dw_dropped + excluded.dw_dropped",
        [(*row, row[0]) for row in rows],
    )


DOWNLINK_EVERY = 8  # every 8th uplink is answered (the device simulator's rate)


def _tuples(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Rows as plain tuples (a step reads thousands: sqlite3.Row costs more to unpack)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()


def _runtime_row(
    uid: int, wake: int, offline_until: int | None, outage_until: int | None
) -> tuple[int, int | None, int | None, int]:
    return (wake, offline_until, outage_until, uid)


def _drifted(
    previous: list[Any], levels: list[float], units: list[float], pull: float, spread: float
) -> list[int]:
    """`round(radio.drift(...))` of many values at once; a value never read starts at its
    level."""
    level = np.array(levels, dtype=np.float64)
    value = np.array(
        [lv if v is None else v for v, lv in zip(previous, levels, strict=True)], dtype=np.float64
    )
    value = value + pull * (level - value) + spread * (2 * np.array(units) - 1)
    return [int(v) for v in np.rint(np.clip(value, 0.0, 100.0)).tolist()]


def _edge(low: int | None, high: int | None, value: int, ts: int) -> tuple[int | None, ...]:
    """(new min, when, new max, when): None where the record stands."""
    new_low = value if low is None or value < low else None
    new_high = value if high is None or value > high else None
    return (new_low, None if new_low is None else ts, new_high, None if new_high is None else ts)
