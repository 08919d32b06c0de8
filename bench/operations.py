"""Operations benchmark (issue 11): the operator's provisioning queue at 100,000 items.

Prints, one line each: the first page's time in the sandbox's store (SQL and shaping, in
process), over HTTP (the server's answer as a client sees it on loopback: newest first, with
the count; and filtered by a subsystem), the operations pane's time from being given its
client to the first rows painted (the operator check, then the queue's first page), and a live
refresh of the rows shown (the pane re-reads them every 3 s).

Usage: PYTHONPATH=src python bench/operations.py [--items N] [--db PATH] [--runs K]
The database is kept in bench/out/ (gitignored) so later runs skip the filling.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import bearer_headers, paint_watch, run_on_qt_loop, timed_get, wait_for
from _sandbox import OUT, Server, percentile

OPS = "/admins/operators/mine"


def queue_size(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM prov_queue").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def ensure_queue(db: Path, items: int) -> float | None:
    """A demo database whose provisioning queue holds `items` (devices, stations, profiles
    across the subsystems, as the triggers write them); the seconds it took, None if there."""
    have = queue_size(db)
    if have >= items:
        return None
    from lpwa_console.sandbox import demo
    from lpwa_console.sandbox.settings import SandboxSettings

    db.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    demo.prepare(SandboxSettings(db_path=db), history=False).close()
    have = queue_size(db)
    now = int(time.time() * 1000)
    kinds = [("DEVICE", "UPDATE", "LRC"), ("DEVICE", "ACTIVATION", "LRC"),
             ("DEVICE", "ACTIVATION", "HSS_SPR"), ("DEVICE", "ACTIVATION", "PGW"),
             ("BASE_STATION", "UPDATE", "LRC"), ("DEVICE_PROFILE", "CREATION", "LRC"),
             ("ROUTING_PROFILE", "UPDATE", "SPR")]  # fmt: skip
    rows = [
        (
            *kinds[i % 7],
            i,
            f"{i:016X}",
            1,
            None,
            now - (items - i) * 1000,
            now - (items - i) * 1000 + 2000,
        )
        for i in range(items - have)
    ]
    with sqlite3.connect(db) as conn:
        conn.executemany(
            "INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id,"
            " subscription_id, partner_uid, created, done_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    return time.perf_counter() - started


def store_ms(db: Path, runs: int) -> tuple[float, float]:
    """The store's first page (100 items and the count), in process: p50 and worst."""
    from lpwa_console.sandbox.store import operations as store

    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        where = store.prov_where(None, None)
        items, more = store.prov_page(conn, where, descending=True, offset=0, limit=100, base="")
        assert len(items) == 100 and more
        store.prov_count(conn, where)
        times.append((time.perf_counter() - started) * 1000)
    conn.close()
    return percentile(times, 50), max(times)


def http_ms(server: Server, runs: int, **params: Any) -> tuple[float, float, int]:
    with httpx.Client() as http:
        headers = bearer_headers(http, server, "operator")
        url = f"{server.base_url}{OPS}/provqueues"
        timed_get(http, url, {"pageSize": 100, **params}, headers)  # warm
        times, count = [], 0
        for _ in range(runs):
            ms, body = timed_get(http, url, {"pageSize": 100, **params}, headers)
            times.append(ms)
            count = body["count"]
    return percentile(times, 50), max(times), count


async def open_pane(server: Server) -> dict[str, Any]:
    from lpwa_console.api import Credentials, LpwaClient
    from lpwa_console.models.operations import OperationsAccess, operations_view_models
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.panes.operations import OperationsPane

    account = server.account("operator")
    client = LpwaClient(
        server.base_url,
        Credentials(server.token_url, account["client_id"], account["client_secret"]),
    )
    await client.operations.hsm_groups(1, 10)  # signed in: the figure is the pane's
    runner = TaskRunner()
    vms = operations_view_models(runner)
    access = OperationsAccess(runner)
    pane = OperationsPane(vms, access, refresh_ms=3_600_000)  # refreshes timed below
    pane.resize(1280, 720)
    pane.show()
    watch = paint_watch()
    view = pane.current_view()
    view.viewport().installEventFilter(watch)
    await asyncio.sleep(0.2)
    landed: list[float] = []
    vm = vms[0]
    vm.model.rowsInserted.connect(lambda *_: landed.append(time.perf_counter()))

    opened = time.perf_counter()
    for each in vms:
        each.set_client(client)
    access.set_client(client)
    access.check()
    await wait_for(lambda: bool(landed) and watch.last_paint > landed[-1])
    first_rows_ms = (watch.last_paint - opened) * 1000
    rows = vm.model.rowCount()

    await asyncio.sleep(0.2)
    refreshed: list[float] = []
    vm.refreshed.connect(lambda: refreshed.append(time.perf_counter()))  # type: ignore[attr-defined]
    started = time.perf_counter()
    assert pane.refresh_visible()
    await wait_for(lambda: bool(refreshed))
    refresh_ms = (refreshed[-1] - started) * 1000
    pane.close()
    runner.cancel_all()
    await client.aclose()
    return {"rows": rows, "first_rows_ms": first_rows_ms, "refresh_ms": refresh_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    db = args.db or OUT / f"operations-{args.items}.db"
    filled = ensure_queue(db, args.items)
    if filled is not None:
        print(f"fill: {queue_size(db):,} queue items in {filled:.1f} s")
    p50, worst = store_ms(db, args.runs * 4)
    print(f"store, first page of 100 + count: p50 {p50:.1f} ms, worst {worst:.1f} ms")
    server = Server(db)
    try:
        p50, worst, count = http_ms(server, args.runs * 4)
        print(f"server (HTTP), first page newest first, count {count:,}: p50 {p50:.1f} ms,"
              f" worst {worst:.1f} ms")  # fmt: skip
        p50, worst, count = http_ms(server, args.runs * 4, subSystem="PGW")
        print(f"server (HTTP), first page subSystem=PGW, count {count:,}: p50 {p50:.1f} ms,"
              f" worst {worst:.1f} ms")  # fmt: skip
        runs = [run_on_qt_loop(lambda: open_pane(server)) for _ in range(args.runs)]
    finally:
        server.stop()
    first = [r["first_rows_ms"] for r in runs]
    print(f"pane: {runs[0]['rows']:,} rows; given its client to first rows painted:"
          f" p50 {percentile(first, 50):.0f} ms, worst {max(first):.0f} ms")  # fmt: skip
    refresh = [r["refresh_ms"] for r in runs]
    print(f"pane: live refresh of the rows shown: p50 {percentile(refresh, 50):.0f} ms,"
          f" worst {max(refresh):.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
