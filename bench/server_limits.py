"""What hostile uploads cost the sandbox (issue 21 §3), over HTTP on 127.0.0.1 only.

One sandbox (the default demo, kept in bench/out/) gets, one after the other: a 64 MB CSV
of bad lines (device import), the same for the key manager, a gzip bomb as a catalog file
(509 KB unpacking to 512 MB), a 20 MB JSON body holding a 19-digit number, and a 10,000-row
valid device import (long work). For each: the server's peak resident memory above its
level before, the request's time and status, and the p50/p99 of the reads that READERS
other clients made meanwhile (first page of devices, one after the other each), and the
p50/max of one more client's sign-ins (the token endpoint, every 100 ms) meanwhile.

Prints one JSON line. Usage: ./dev bench server_limits [--csv-mb 64] [--readers 4]
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import bearer_headers
from _sandbox import OUT, Server, percentile

DB = OUT / "server_limits.db"


class PeakRss:
    """The server's resident memory, sampled every 10 ms on a thread."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak = self.base = self.rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def rss(self) -> int:
        return int(self.process.memory_info().rss)

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self.rss())

    def __enter__(self) -> PeakRss:
        self.base = self.peak = self.rss()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


class Readers:
    """`n` clients reading the first page of devices in a loop, each its latencies."""

    def __init__(self, server: Server, n: int) -> None:
        self.server, self.n = server, n
        self.times: list[float] = []
        self.errors = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(n)]

    def _run(self) -> None:
        with httpx.Client(timeout=60) as http:
            headers = bearer_headers(http, self.server)
            url = self.server.base_url + "/subscriptions/mine/devices"
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    http.get(url, params={"pageSize": 20}, headers=headers).raise_for_status()
                except httpx.HTTPError:
                    self.errors += 1
                    continue
                self.times.append((time.perf_counter() - started) * 1000)

    def __enter__(self) -> Readers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


class SignIns:
    """One client signing in (the token endpoint) every 100 ms, its latencies; failures
    (a 500 "database is locked", a timeout) are counted."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.times: list[float] = []
        self.errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(timeout=60) as http:
            while not self._stop.wait(0.1):
                started = time.perf_counter()
                try:
                    bearer_headers(http, self.server)
                except httpx.HTTPError:
                    self.errors += 1
                    continue
                self.times.append((time.perf_counter() - started) * 1000)

    def __enter__(self) -> SignIns:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def _phase(
    server: Server, readers: int, send: Callable[[httpx.Client, dict[str, str]], httpx.Response]
) -> dict[str, Any]:
    with httpx.Client(timeout=600) as http:
        operator = bearer_headers(http, server, "operator")
        subscriber = bearer_headers(http, server)
        with (
            PeakRss(server.process.pid) as rss,
            Readers(server, readers) as reads,
            SignIns(server) as sign_ins,
        ):
            time.sleep(0.5)  # the readers' steady state first
            started = time.perf_counter()
            response = send(http, {"operator": operator["Authorization"],
                                   "subscriber": subscriber["Authorization"]})  # fmt: skip
            seconds = time.perf_counter() - started
            time.sleep(0.2)
    return {
        "status": response.status_code,
        "seconds": round(seconds, 2),
        "peakRssGrowthMB": round((rss.peak - rss.base) / 2**20, 1),
        "readsDuring": len(reads.times),
        "readP50ms": round(percentile(reads.times, 50), 1),
        "readP99ms": round(percentile(reads.times, 99), 1),
        "readErrors": reads.errors,
        "signIns": len(sign_ins.times),
        "signInP50ms": round(percentile(sign_ins.times, 50), 1),
        "signInMaxMs": round(max(sign_ins.times, default=0.0), 1),
        "signInErrors": sign_ins.errors,
        "answer": response.text[:120],
    }


def _history_made(db: Path) -> None:
    """Until the demo history (made in the background after a start) is there: the phases
    measure uploads, not it."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with sqlite3.connect(db) as conn:
            done = {r[0] for r in conn.execute("SELECT name FROM demo_parts")}
        if "kpi-history" in done:
            return
        time.sleep(0.5)


def _bad_csv(megabytes: int) -> bytes:
    out = io.BytesIO()
    line = 0
    while out.tell() + 100 < megabytes * 2**20:  # (the import takes up to 64 MB)
        out.write(f"NOPE,{line:016X},{'x' * 60}\r\n".encode())
        line += 1
    return out.getvalue()


def _bomb(unpacked_mb: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    zeros = b"\x00" * 2**20
    return b"".join(packer.compress(zeros) for _ in range(unpacked_mb)) + packer.flush()


def _valid_csv(rows: int) -> bytes:
    return "".join(
        f"CREATE_OTAA,70B3D5E7C{i:07X},,itron-cyble-lw,70B3D57ED0000000,"
        f"2B7E151628AED2A6ABF7158809CF4F3C,,,,,Bench {i}\r\n"
        for i in range(rows)
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv-mb", type=int, default=64)
    parser.add_argument("--readers", type=int, default=4)
    args = parser.parse_args()
    DB.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):  # a fresh demo: the valid import's EUIs are new
        Path(str(DB) + suffix).unlink(missing_ok=True)
    server = Server(DB)
    try:
        _history_made(DB)
        api = server.base_url
        bad = _bad_csv(args.csv_mb)
        bomb = _bomb(512)
        json_body = b'{"name": "big", "occContext": {"extra": [12345678901234567890, "'
        json_body += b"x" * (20 * 2**20) + b'"]}}'
        valid = _valid_csv(10_000)
        with httpx.Client(timeout=60) as http:
            h = bearer_headers(http, server)
            device = http.get(api + "/subscriptions/mine/devices", headers=h).json()["briefs"]
        uid = device[0]["ref"]

        def files(data: bytes) -> dict[str, Any]:
            return {"csv": ("bench.csv", data, "text/csv")}

        phases: dict[str, Callable[[httpx.Client, dict[str, str]], httpx.Response]] = {
            "csvBadLinesDevices": lambda http, a: http.post(
                api + "/subscriptions/mine/devices/import",
                files=files(bad), headers={"Authorization": a["subscriber"]}),
            "csvBadLinesKeyManager": lambda http, a: http.post(
                api + "/kmSubscriptions/mine/devices/import",
                files=files(bad), headers={"Authorization": a["subscriber"]}),
            "gzipBomb": lambda http, a: http.post(
                api + "/admins/operators/mine/deviceProfiles/catalog",
                content=bomb, headers={"Authorization": a["operator"]}),
            "json20MB": lambda http, a: http.put(
                api + f"/subscriptions/mine/devices/{uid}", content=json_body,
                headers={"Authorization": a["subscriber"], "Content-Type": "application/json"}),
            "validImport10k": lambda http, a: http.post(
                api + "/subscriptions/mine/devices/import",
                files=files(valid), headers={"Authorization": a["subscriber"]}),
        }  # fmt: skip
        figures: dict[str, Any] = {
            "csvMB": round(len(bad) / 2**20, 1),
            "gzipBombKB": round(len(bomb) / 1024),
            "gzipBombUnpackedMB": 512,
            "jsonMB": round(len(json_body) / 2**20, 1),
            "readers": args.readers,
            "cpus": psutil.cpu_count(),
            "loadAverage1m": round(psutil.getloadavg()[0], 2),
        }
        for name, send in phases.items():
            figures[name] = _phase(server, args.readers, send)
        figures["serverRssMB"] = round(psutil.Process(server.process.pid).memory_info().rss / 2**20)
    finally:
        server.stop()
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
