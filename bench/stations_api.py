"""Base stations at scale (issue 9, figures): the sandbox over HTTP, on loopback.

Seeds N base stations (100,000 by default) into bench/out/stations-N.db (kept, so later runs
skip the seeding), serves it, and prints per role (the unrestricted `subscriber` and the
domain-restricted `partner-restricted`; both act for the demo subscription's partner):
  p50/p99 of the first page of `/partners/mine/bss` (default sort, by lrrID, by name, a
  health filter), of its alarms, counters and tag suggestions;
  p50/p99 of `/bss/clusters` over several viewports (the world, Europe, France, Paris).
Targets (issue 9): first rows <= 100 ms p50 for every role; clusters <= 300 ms.
Figures only: no pass/fail.

Usage: PYTHONPATH=src python bench/stations_api.py [--stations N] [--samples K]
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import bearer_headers
from _sandbox import OUT, Server, percentile

ROLES = ["subscriber", "partner-restricted"]
BSS = "/partners/mine/bss"
LISTS: list[tuple[str, str, dict[str, Any]]] = [
    ("stations (first page)", BSS, {"pageSize": 100}),
    ("stations by lrrID", BSS, {"pageSize": 100, "sort": "lrrID,asc"}),
    ("stations by name", BSS, {"pageSize": 100, "sort": "name,asc"}),
    ("stations health ACTIVE", BSS, {"pageSize": 100, "healthState": "ACTIVE"}),
    ("stations tag=rooftop", BSS, {"pageSize": 100, "tag": "rooftop"}),
    ("station alarms", f"{BSS}/alarms", {"pageSize": 100}),
    ("station counters", f"{BSS}/counters", {}),
    ("tag suggestions", f"{BSS}/tags/suggestions", {"query": "r"}),
]
BOXES: list[tuple[str, float, float, float, float]] = [
    ("world", -90, -180, 90, 180),
    ("Europe", 35, -12, 60, 25),
    ("France", 42, -5, 51.5, 8.5),
    ("Paris", 48.77, 2.23, 48.94, 2.48),
    ("Paris cut", 48.80, 2.20, 48.90, 2.36),
]


def station_count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM stations").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def ensure_stations(db: Path, stations: int) -> float | None:
    have = station_count(db)
    if have >= stations:
        return None
    db.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "lpwa_console.sandbox", "seed", "--db", str(db), "--devices", "0",
         "--stations", str(stations - have)],
        check=True,
    )  # fmt: skip
    return time.perf_counter() - started


def timed(http: httpx.Client, url: str, headers: dict[str, str], params: dict[str, Any],
          samples: int) -> tuple[list[float], int]:  # fmt: skip
    http.get(url, headers=headers, params=params)  # warm-up
    times: list[float] = []
    status = 200
    for _ in range(samples):
        started = time.perf_counter()
        response = http.get(url, headers=headers, params=params)
        times.append((time.perf_counter() - started) * 1000)
        status = response.status_code
    return times, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=15)
    args = parser.parse_args()
    db = OUT / f"stations-{args.stations}.db"
    seeded = ensure_stations(db, args.stations)
    if seeded is not None:
        print(f"seeded {args.stations} stations in {seeded:.1f} s")
    server = Server(db, "--seed", "0")
    try:
        with httpx.Client(timeout=60) as http:
            print(f"{station_count(db)} stations, {args.samples} samples each (ms)")
            for role in ROLES:
                headers = bearer_headers(http, server, role)
                print(f"\n== {role}")
                for label, path, params in LISTS:
                    times, status = timed(
                        http, server.base_url + path, headers, params, args.samples
                    )
                    if status != 200:
                        print(f"  {label:<28} HTTP {status}")
                        continue
                    print(f"  {label:<28} p50 {percentile(times, 50):7.1f}"
                          f"  p99 {percentile(times, 99):7.1f}")  # fmt: skip
                for label, min_lat, min_lon, max_lat, max_lon in BOXES:
                    box = {"minLat": min_lat, "minLon": min_lon, "maxLat": max_lat,
                           "maxLon": max_lon}  # fmt: skip
                    times, status = timed(
                        http, server.base_url + f"{BSS}/clusters", headers, box, args.samples
                    )
                    print(f"  clusters {label:<19} p50 {percentile(times, 50):7.1f}"
                          f"  p99 {percentile(times, 99):7.1f}"
                          + ("" if status == 200 else f"  HTTP {status}"))  # fmt: skip
    finally:
        server.stop()


if __name__ == "__main__":
    main()
