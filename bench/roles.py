"""Every role at a million devices (issue 7 §3): the sandbox over HTTP, on loopback.

Prints, per demo role (subscriber, subscriber-restricted, subscriber-viewer):
  p50/p99, and the sandbox's CPU time per request (a busy machine inflates it less than the
  wall clock), of the first page of every list (devices, alarms, multicast groups,
  application servers, network resources...) and of single GETs (a device, its tags, its
  alarms, a group, a server...), on the N-device database (1,000,000 by default);
  the same for clusters (at most 8 x 8 map tiles) over several boxes, the world included;
  the first page of the device alarm list under each sort the platform offers;
then, on the C-device database (50,000 by default), the throughput (requests per second) and
p99 of 1 client against 20 concurrent clients, each asking the first page of devices;
and the time the import of 10,000 CSV rows takes on a new sandbox.
An answer other than 200 prints its status instead of figures (a role without the right).
Figures only: no pass/fail.

Usage: ./dev bench roles [--devices N] [--concurrency-devices C] [--samples K] [--skip-import]
The databases are kept in bench/out/ so later runs skip the seeding.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import bearer_headers
from _sandbox import OUT, Server, ensure_seeded, percentile
from lpwa_console.schema.device_import import column_index, write_import_csv

ROLES = ["subscriber", "subscriber-restricted", "subscriber-viewer"]
MINE = "/subscriptions/mine"
# (label, path, params): the first pages.
LISTS: list[tuple[str, str, dict[str, Any]]] = [
    ("devices", "/devices", {"pageSize": 100}),
    ("devices by name", "/devices", {"pageSize": 100, "sort": "name,asc"}),
    ("devices tag=water", "/devices", {"pageSize": 100, "tag": "water"}),
    ("devices health RF_CNX_ERROR", "/devices", {"pageSize": 100, "healthState": "RF_CNX_ERROR"}),
    ("device alarms", "/devices/alarms", {"pageSize": 100}),
    ("alarm histories", "/devices/alarms/histories", {"pageSize": 100}),
    ("multicast alarms", "/multicastGroups/alarms", {"pageSize": 100}),
    ("tag suggestions", "/devices/tags/suggestions", {"query": "b"}),
    ("multicast groups", "/multicastGroups", {"pageSize": 100}),
    ("app servers", "/appServers", {}),
    ("network contexts", "/cellularNetworkContexts", {}),
    ("AS transport keys", "/asTransportKeys", {}),
    ("HSM groups", "/hsmGroups", {}),
    ("network subscriptions", "/networkSubscriptions", {}),
]
ALARM_SORTS = ["alarmUid,asc", "alarmUid,desc", "state,desc", "acked,asc"]
# (label, minLat, minLon, maxLat, maxLon)
BOXES: list[tuple[str, float, float, float, float]] = [
    ("world", -90, -180, 90, 180),
    ("Europe", 35, -12, 60, 25),
    ("France", 42, -5, 51.5, 8.5),
    ("Paris", 48.77, 2.23, 48.94, 2.48),
    ("Paris centre", 48.84, 2.32, 48.87, 2.37),
    ("Paris cut", 48.80, 2.20, 48.90, 2.36),
    ("empty (Atlantic)", 30, -40, 40, -30),
]


class Probe:
    """Timed GETs as one role."""

    def __init__(self, http: httpx.Client, server: Server, role: str) -> None:
        self.http = http
        self.base = server.base_url + MINE
        self.headers = bearer_headers(http, server, role)
        self.server = psutil.Process(server.process.pid)

    def get(self, path: str, params: dict[str, Any] | None = None) -> tuple[float, httpx.Response]:
        started = time.perf_counter()
        response = self.http.get(self.base + path, params=params or {}, headers=self.headers)
        return (time.perf_counter() - started) * 1000, response

    def measure(self, path: str, params: dict[str, Any] | None, samples: int) -> str:
        _, first = self.get(path, params)  # warm: caches, statements
        if first.status_code != 200:
            return f"status {first.status_code}"
        cpu = sum(self.server.cpu_times()[:2])
        times = [self.get(path, params)[0] for _ in range(samples)]
        cpu_ms = (sum(self.server.cpu_times()[:2]) - cpu) * 1000 / samples
        return (
            f"p50 {percentile(times, 50):7.1f} ms  p99 {percentile(times, 99):7.1f} ms"
            f"  server CPU {cpu_ms:6.1f} ms"
        )


def first_id(probe: Probe, path: str, key: str) -> str | None:
    _, response = probe.get(path, {"pageSize": 10})
    if response.status_code != 200:
        return None
    briefs = response.json().get("briefs") or []
    if not briefs:
        return None
    first = briefs[0]
    if key in first and key != "href":
        return str(first[key])
    return str(first["href"]).rsplit("/", 1)[-1]


def role_figures(server: Server, role: str, samples: int) -> None:
    print(f"\n== {role} ==")
    with httpx.Client(timeout=120) as http:
        probe = Probe(http, server, role)
        rows: list[tuple[str, str]] = []
        for label, path, params in LISTS:
            rows.append((f"list  {label}", probe.measure(path, params, samples)))
        for sort in ALARM_SORTS:
            params = {"pageSize": 100, "sort": sort}
            rows.append((f"list  device alarms {sort}", probe.measure("/devices/alarms", params, samples)))  # fmt: skip
        rows.append(("list  device alarms unacked", probe.measure("/devices/alarms", {"pageSize": 100, "acked": "false", "sort": "alarmUid,desc"}, samples)))  # fmt: skip
        singles: list[tuple[str, str]] = [("subscription", "")]
        device = first_id(probe, "/devices", "ref")
        if device:
            singles += [
                ("device", f"/devices/{device}"),
                ("device tags", f"/devices/{device}/tags"),
                ("device alarms (one device)", f"/devices/{device}/alarms"),
                ("device frames", f"/devices/{device}/frames"),
            ]
        group = first_id(probe, "/multicastGroups", "ref")
        if group:
            singles.append(("multicast group", f"/multicastGroups/{group}"))
        for label, path, key in [
            ("app server", "/appServers", "href"),
            ("network context", "/cellularNetworkContexts", "ID"),
            ("AS transport key", "/asTransportKeys", "ID"),
            ("network subscription", "/networkSubscriptions", "ID"),
        ]:
            ident = first_id(probe, path, key)
            if ident:
                singles.append((label, f"{path}/{ident}"))
        for label, path in singles:
            rows.append((f"get   {label}", probe.measure(path, None, samples)))
        for label, *box in BOXES:
            params = dict(zip(("minLat", "minLon", "maxLat", "maxLon"), box, strict=True))
            rows.append((f"clusters {label}", probe.measure("/devices/clusters", params, samples)))
        width = max(len(label) for label, _ in rows)
        for label, text in rows:
            print(f"  {label:<{width}}  {text}")


def throughput(
    server: Server, clients: int, seconds: float
) -> tuple[float, float, float, int, float]:
    """(requests per second, p50 ms, p99 ms, errors, server CPU ms per request) of `clients`
    threads each asking the first page of devices as the subscriber, back to back, for
    `seconds`. The CPU figure holds on a busy machine, where the rate does not."""
    with httpx.Client(timeout=60) as http:
        headers = bearer_headers(http, server)
    url = f"{server.base_url}{MINE}/devices"
    times: list[float] = []
    errors = 0
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)
    stop = threading.Event()

    def client() -> None:
        nonlocal errors
        with httpx.Client(timeout=60, headers=headers) as http:
            http.get(url, params={"pageSize": 100})  # connect and warm
            start.wait()
            while not stop.is_set():
                began = time.perf_counter()
                response = http.get(url, params={"pageSize": 100})
                elapsed = (time.perf_counter() - began) * 1000
                with lock:
                    if stop.is_set():
                        return
                    times.append(elapsed)
                    errors += response.status_code != 200

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    process = psutil.Process(server.process.pid)
    start.wait()
    began, cpu = time.perf_counter(), sum(process.cpu_times()[:2])
    time.sleep(seconds)
    with lock:
        stop.set()
        wall = time.perf_counter() - began
        cpu = sum(process.cpu_times()[:2]) - cpu
        done = list(times)
    for thread in threads:
        thread.join(timeout=60)
    return (
        len(done) / wall, statistics.median(done), percentile(done, 99), errors,
        cpu * 1000 / max(1, len(done)),
    )  # fmt: skip


def import_figure(rows: int) -> float:
    """Seconds to import `rows` CSV creation lines into a new sandbox."""

    def line(i: int) -> list[str]:
        values = {
            "B": f"70B3D5E7{i:08X}", "D": "itron-cyble-lw", "E": "70B3D57ED0000000",
            "F": "2B7E151628AED2A6ABF7158809CF4F3C", "K": f"Bulk meter {i}",
            "AB": "bulk,water", "AC": "Site:France/Paris", "T": "as-metering",
        }  # fmt: skip
        out = [""] * (max(column_index(k) for k in values) + 1)
        out[0] = "CREATE_OTAA"
        for letter, value in values.items():
            out[column_index(letter)] = value
        return out

    text = write_import_csv([line(i) for i in range(rows)])
    with tempfile.TemporaryDirectory(dir=OUT) as folder:
        server = Server(Path(folder) / "import.db", "--seed", "0")
        try:
            with httpx.Client(timeout=600) as http:
                headers = bearer_headers(http, server)
                started = time.perf_counter()
                response = http.post(
                    f"{server.base_url}{MINE}/devices/import",
                    headers=headers,
                    files={"csv": ("d.csv", text, "text/csv")},
                )
                seconds = time.perf_counter() - started
                response.raise_for_status()
                if response.content:
                    raise RuntimeError(f"the import refused lines: {response.text[:300]}")
        finally:
            server.stop()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--concurrency-devices", type=int, default=50_000)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=8.0, help="per throughput run")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--skip-import", action="store_true")
    parser.add_argument("--only", choices=["roles", "concurrency", "import"], default=None)
    parser.add_argument("--db", type=Path, default=None, help="instead of bench/out/devices-N.db")
    parser.add_argument("--concurrency-db", type=Path, default=None)
    args = parser.parse_args()

    if args.only in (None, "roles"):
        db = args.db or OUT / f"devices-{args.devices}.db"
        seeded = ensure_seeded(db, args.devices)
        if seeded is not None:
            print(f"seed: {args.devices:,} devices in {seeded:.1f} s")
        server = Server(db)
        try:
            print(f"sandbox on {db.name}: {args.samples} samples per figure")
            for role in ROLES:
                role_figures(server, role, args.samples)
        finally:
            server.stop()

    if args.only in (None, "concurrency"):
        db = args.concurrency_db or OUT / f"devices-{args.concurrency_devices}.db"
        seeded = ensure_seeded(db, args.concurrency_devices)
        if seeded is not None:
            print(f"seed: {args.concurrency_devices:,} devices in {seeded:.1f} s")
        server = Server(db)
        try:
            print(f"\n== concurrency on {db.name}: first page of devices, subscriber ==")
            for clients in (1, args.clients):
                rate, p50, p99, errors, cpu_ms = throughput(server, clients, args.seconds)
                print(
                    f"  {clients:>2} client(s): {rate:6.1f} req/s  p50 {p50:6.1f} ms"
                    f"  p99 {p99:6.1f} ms  errors {errors}  server CPU {cpu_ms:5.1f} ms/request"
                )
        finally:
            server.stop()

    if args.only == "import" or (args.only is None and not args.skip_import):
        seconds = import_figure(10_000)
        print(f"\nimport of 10,000 CSV rows into a new sandbox: {seconds:.2f} s")


if __name__ == "__main__":
    main()
