"""One 1-second step of the living network at 100,000 base stations and 1,000,000 devices.

The database (bench/out/radio_simulator.db, kept between runs) is seeded once through the
sandbox's `seed` command: devices, stations, and each device's receptions by the stations
around it, the state of a network that has run for hours (a database seeded before the seed
gave receptions gets them here). The first steps
schedule every device and station (a one-off after a restart); then each 1-second step is
timed: device uplinks, their receptions by the stations around them, station health reports,
commands, alarms. Steps start once a second, as in the sandbox (its simulator thread steps
every second): steps run back to back would never let the checkpointer finish, so the
write-ahead log would grow without end (580 MB after a minute) and every page read would
search it, which never happens in the sandbox. Prints one JSON line (target: p50 <= 100 ms), with the CPU time of the step
(thread time: less noisy than the wall clock on a shared machine), the CPU time of the
checkpointer thread that copies the steps' pages into the database beside them, and the
load average.

    PYTHONPATH=src python bench/radio_simulator.py [--devices N] [--stations N] [--steps N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _sandbox import OUT, ensure_seeded
from lpwa_console.sandbox.db import Database
from lpwa_console.sandbox.db.sealing import key_path
from lpwa_console.sandbox.demo_stations import seed_more_stations
from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.sandbox.station_sim import StationSimulator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--stations", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=60, help="steps timed (one a second)")
    parser.add_argument("--db", type=Path, default=OUT / "radio_simulator.db")
    parser.add_argument(
        "--copy",
        type=Path,
        help="run on a fresh copy of --db made here, from the clock stored in it: every run"
        " simulates the same seconds from the same state",
    )
    args = parser.parse_args()

    seeded_devices_s = ensure_seeded(args.db, args.devices, stations=args.stations)
    if args.copy is not None:
        shutil.copyfile(args.db, args.copy)
        # The sealing key file goes with it (the keys the database holds open only with it).
        shutil.copyfile(key_path(args.db), key_path(args.copy))
        args.db = args.copy
    db = Database(args.db)
    have = db.conn().execute("SELECT count(*) FROM stations").fetchone()[0]
    seeded_stations_s = None
    if have < args.stations:
        started = time.perf_counter()
        seed_more_stations(db, args.stations - have, now=int(time.time() * 1000))
        seeded_stations_s = round(time.perf_counter() - started, 1)
    heard_s = None
    if not db.conn().execute("SELECT EXISTS (SELECT 1 FROM station_devices)").fetchone()[0]:
        started = time.perf_counter()
        with db.write() as conn:
            now = int(db.conn().execute("SELECT max(last_up) FROM devices").fetchone()[0] or 0)
            StationSimulator(1).hear_all(conn, now)
        heard_s = round(time.perf_counter() - started, 1)
    # A sandbox starts on a checkpointed database: the seeding's or a migration's log is not
    # the steps' to copy.
    db.conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    devices = db.conn().execute("SELECT count(*) FROM devices").fetchone()[0]
    stations = db.conn().execute("SELECT count(*) FROM stations").fetchone()[0]

    start_ms = None
    if args.copy is not None:
        row = db.conn().execute("SELECT value FROM sim_state WHERE key = 'clock_ms'").fetchone()
        start_ms = None if row is None else int(row[0])
    sim = Simulator(db, seed=1, start_ms=start_ms)
    sim.checkpointer.start()  # as `Simulator.start` does in the sandbox
    started = time.perf_counter()
    for _ in range(3):  # schedules every device and station once
        sim.step(1.0)
    warm_up_s = time.perf_counter() - started

    checkpoint_cpu_s = sim.checkpointer.cpu_s
    times: list[float] = []
    cpu: list[float] = []
    uplinks = receptions = reports = commands = 0
    last_start = time.perf_counter()
    for _ in range(args.steps):
        time.sleep(max(0.0, last_start + 1.0 - time.perf_counter()))  # the sandbox's cadence
        last_start = time.perf_counter()
        started, started_cpu = last_start, time.thread_time()
        report = sim.step(1.0)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        uplinks += report.uplinks
        if report.stations is not None:
            receptions += report.stations.receptions
            reports += report.stations.reports
            commands += report.stations.commands
    wal = args.db.with_name(args.db.name + "-wal")
    wal_mb = round(wal.stat().st_size / 1e6, 1) if wal.exists() else 0.0
    sim.checkpointer.stop()
    checkpoint_cpu_s = sim.checkpointer.cpu_s - checkpoint_cpu_s
    db.close()
    times.sort()
    cpu.sort()
    print(
        json.dumps(
            {
                "bench": "radio_simulator_step_1s",
                "devices": devices,
                "stations": stations,
                "steps": args.steps,
                "p50_ms": round(statistics.median(times), 1),
                "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
                "max_ms": round(times[-1], 1),
                "cpu_p50_ms": round(statistics.median(cpu), 1),
                "cpu_p95_ms": round(cpu[int(0.95 * (len(cpu) - 1))], 1),
                "checkpoint_cpu_ms_per_step": round(1000 * checkpoint_cpu_s / args.steps, 1),
                "wal_mb_at_end": wal_mb,
                "load_average": [round(x, 2) for x in os.getloadavg()],
                "uplinks_per_step": round(uplinks / args.steps, 1),
                "receptions_per_step": round(receptions / args.steps, 1),
                "station_reports_per_step": round(reports / args.steps, 1),
                "warm_up_s": round(warm_up_s, 1),
                "seeded_devices_s": None
                if seeded_devices_s is None
                else round(seeded_devices_s, 1),
                "seeded_stations_s": seeded_stations_s,
                "devices_heard_s": heard_s,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
