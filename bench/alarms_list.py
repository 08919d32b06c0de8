"""Alarm list benchmark (issue 3): "Alarm list with 100,000 alarms: first rows <= 500 ms,
scrolling as smooth as the device list".

A sandbox of 20,000 devices whose subscription holds N unacknowledged alarms (100,000 by
default; 1% of them multicast group alarms), the alarms pane's default view. Prints, one line
each:
  build time (when the database had to be made),
  server latency p50/p99 of the console's first page (with count), of deep pages by index
  (the last 1%, as a jump to the end asks) and of cursor pages (sort=alarmUid, pageAfter),
  time from opening the alarms pane to the first rows painted,
  time to show rows after jumping to the last row,
  worst event-loop stall seen by a 10 ms heartbeat for each, and while wandering over 60
  scroll positions, how much of it the UI thread was busy, the most work it did between two
  beats, and the CPU the sandbox and the machine used while wandering,
  jumps to rows not loaded yet -> the viewport's rows painted (p50, max),
  one tick of the live refresh (the visible rows and the count re-read in place),
  resident memory growth of the console process over the whole UI run.

Usage: ./dev bench alarms_list [--alarms N] [--db PATH] [--samples K] [--stall-stacks]
The database is kept in bench/out/ so later runs skip building it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import random
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import (
    CpuShare,
    Heartbeat,
    as_user,
    bearer_headers,
    paint_watch,
    rss_mb,
    run_on_qt_loop,
    signed_in_client,
    timed_get,
    wait_for,
)
from _sandbox import OUT, Server, ensure_seeded, percentile

DEVICES = 20_000
MULTICAST_SHARE = 0.01
DAY_MS = 86_400_000
# (weight, alarm ID) of the added device alarms: mostly no uplink (004) and tamper (012).
ALARM_IDS = [(40, 4), (12, 12), (10, 1), (10, 3), (8, 7), (8, 9), (7, 15), (5, 20)]
# (weight, state): cleared but not acknowledged yet, up to critical.
STATES = [(25, 1), (5, 2), (30, 3), (20, 4), (15, 5), (5, 6)]
INFOS = [
    "battery low: 3.1 V",
    "no uplink for 2 days",
    "casing opened",
    "frame counter reset",
    "temperature out of range",
    "multicast delivery failed on some base stations",
]
MULTICAST_DELIVERY_ALARM_ID = 21
JUMPS = 10


def unacked_alarms(db: Path) -> int:
    if not db.exists():
        return 0
    with contextlib.closing(sqlite3.connect(db)) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM alarms WHERE acked = 0").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def ensure_alarms(db: Path, alarms: int) -> float | None:
    """A database of DEVICES devices with `alarms` unacknowledged alarms; returns the seconds
    it took to build, or None when it was there already."""
    if unacked_alarms(db) == alarms:
        return None
    started = time.perf_counter()
    partial = db.with_name(db.name + ".partial")
    for stale in (partial, *(partial.with_name(partial.name + s) for s in ("-wal", "-shm"))):
        stale.unlink(missing_ok=True)
    ensure_seeded(partial, DEVICES)
    add_alarms(partial, alarms)
    shutil.move(partial, db)
    return time.perf_counter() - started


def add_alarms(db: Path, alarms: int, seed: int = 3) -> None:
    """Insert alarms (as the demo's seed_alarms does, through SQL) until `alarms` are
    unacknowledged, then recompute the devices' and groups' counters."""
    from lpwa_console.sandbox import accounts
    from lpwa_console.sandbox.store import alarms as alarm_store

    rng = random.Random(seed)
    now = int(time.time() * 1000)
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        sub = conn.execute(
            "SELECT id FROM subscriptions WHERE ref = ?", (accounts.SUBSCRIPTION_REF,)
        ).fetchone()[0]
        devices = [
            r[0] for r in conn.execute("SELECT uid FROM devices WHERE subscription_id = ?", (sub,))
        ]
        groups = [
            r[0]
            for r in conn.execute(
                "SELECT uid FROM multicast_groups WHERE subscription_id = ?", (sub,)
            )
        ]
        missing = alarms - int(
            conn.execute("SELECT count(*) FROM alarms WHERE acked = 0").fetchone()[0]
        )
        id_weights, ids = zip(*ALARM_IDS, strict=True)
        state_weights, states = zip(*STATES, strict=True)
        rows: list[tuple[object, ...]] = []
        for _ in range(max(missing, 0)):
            created = now - int(rng.random() * 90 * DAY_MS)
            updated = created + int(rng.random() * min(now - created, 5 * DAY_MS))
            state = rng.choices(states, state_weights)[0]
            level = max(state, rng.choices(states, state_weights)[0])
            occurrence = 1 + int(rng.expovariate(0.7))
            info = rng.choice(INFOS) if rng.random() < 0.2 else None
            if groups and rng.random() < MULTICAST_SHARE:
                owner: tuple[int | None, int | None] = (None, rng.choice(groups))
                alarm_id, kind = MULTICAST_DELIVERY_ALARM_ID, "M"
            else:
                owner = (rng.choice(devices), None)
                alarm_id, kind = rng.choices(ids, id_weights)[0], "D"
            rows.append(
                (sub, kind, *owner, alarm_id, state, level, occurrence, created, updated, info)
            )
        rows.sort(key=lambda r: r[8])  # type: ignore[arg-type,return-value]  # by creation
        conn.executemany(
            "INSERT INTO alarms (subscription_id, kind, device_uid, group_uid, alarm_id, state,"
            " level, occurrence, acked, created, updated, add_info)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
            rows,
        )
        alarm_store.refresh_counters(conn, "D", None)
        alarm_store.refresh_counters(conn, "M", None)


def _cursor(row_id: int) -> str:
    """A pageAfter cursor as the sandbox issues them (base64 of the 16-hex-digit alarmUid)."""
    return base64.b64encode(f"{row_id:016x}".encode()).decode()


def server_latency(server: Server, samples: int) -> dict[str, Any]:
    with httpx.Client(timeout=60) as http:
        headers = bearer_headers(http, server)
        url = f"{server.base_url}/subscriptions/mine/devices/alarms"
        # The console's request: its default view (unacknowledged, newest update first).
        console: dict[str, str | int] = {
            "pageSize": 100,
            "sort": "updateTimestamp,desc",
            "acked": "false",
        }

        def timed(params: dict[str, str | int]) -> float:
            return timed_get(http, url, params, headers)[0]

        _, page = timed_get(http, url, {"pageIndex": 1, **console}, headers)  # warm up
        total = int(page["count"])
        first = [timed({"pageIndex": 1, **console}) for _ in range(samples)]
        last_page = max(1, -(-total // 100))
        deep = [
            timed({"pageIndex": random.randint(max(1, last_page - last_page // 100), last_page),
                   **console})
            for _ in range(samples)
        ]  # fmt: skip
        # Cursor pages: the first, the cursor walk from it, then from random alarms.
        by_uid: dict[str, str | int] = {"pageSize": 100, "sort": "alarmUid,desc", "acked": "false"}
        cursor_first, top = timed_get(http, url, by_uid, headers)
        walk: list[float] = []
        cursor = (top.get("cursors") or {}).get("last")
        while cursor is not None and len(walk) < samples:
            ms, body = timed_get(http, url, {**by_uid, "pageAfter": cursor}, headers)
            walk.append(ms)
            cursor = (body.get("cursors") or {}).get("last")
        highest = int(top["briefs"][0]["alarmUid"], 16) if top["briefs"] else 1
        anywhere = [
            timed({**by_uid, "pageAfter": _cursor(random.randint(1, highest))})
            for _ in range(samples)
        ]
    return {
        "count": total,
        "first_p50": percentile(first, 50),
        "first_p99": percentile(first, 99),
        "deep_p50": percentile(deep, 50),
        "deep_p99": percentile(deep, 99),
        "cursor_first_ms": cursor_first,
        "walk_p50": percentile(walk, 50),
        "walk_p99": percentile(walk, 99),
        "walk_pages": len(walk),
        "cursor_p50": percentile(anywhere, 50),
        "cursor_p99": percentile(anywhere, 99),
    }


async def ui_figures(server: Server, stacks: bool) -> dict[str, Any]:
    from PySide6.QtWidgets import QAbstractItemView

    from lpwa_console.models.alarms import AlarmsViewModel
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.panes.alarms import AlarmsPane

    client = await signed_in_client(server)
    runner = TaskRunner()
    vm = AlarmsViewModel(runner)  # as app.build() makes it
    pane = AlarmsPane(vm)
    pane.resize(1400, 900)
    pane.show()
    watch = paint_watch()
    pane.table.viewport().installEventFilter(watch)
    model = vm.model
    # Count the pages the model asks for (the model keeps no log of its own).
    pages_asked: list[int] = []
    start_page = model._start

    def counted(page: int) -> None:
        pages_asked.append(page)
        start_page(page)

    model._start = counted
    await asyncio.sleep(0.2)
    rss_before = rss_mb()
    beat = Heartbeat(stacks=stacks)
    beat.start()

    arrived: dict[int, float] = {}
    model.dataChanged.connect(lambda *_: arrived.setdefault(len(arrived), time.perf_counter()))
    model.rowsInserted.connect(lambda *_: arrived.setdefault(len(arrived), time.perf_counter()))

    def painted_after_rows(since: float) -> bool:
        # Rows arrived after `since`, and the viewport painted after they did.
        landed = [t for t in arrived.values() if t >= since]
        return bool(landed) and watch.last_paint > max(landed)

    opened = time.perf_counter()
    vm.set_client(client)  # as the session does once signed in
    await wait_for(lambda: 0 in model.loaded_pages() and painted_after_rows(opened))
    first_rows_ms = (watch.last_paint - opened) * 1000
    open_stall_ms, open_cpu_ms, open_busy_ms = beat.worst_ms, beat.worst_cpu_ms, beat.worst_busy_ms
    await asyncio.sleep(0.3)
    beat.start()

    last_row = model.rowCount() - 1
    last_page = last_row // model.page_size
    jumped = time.perf_counter()
    as_user(pane.table.viewport())
    pane.table.scrollToBottom()
    await wait_for(lambda: last_page in model.loaded_pages() and painted_after_rows(jumped))
    await wait_for(lambda: not model.loading and painted_after_rows(jumped))
    jump_ms = (watch.last_paint - jumped) * 1000
    jump_stall_ms, jump_cpu_ms, jump_busy_ms = beat.worst_ms, beat.worst_cpu_ms, beat.worst_busy_ms
    beat.start()

    # Wander through the list like a user dragging the scroll bar, to see memory stay flat.
    scrollbar = pane.table.verticalScrollBar()
    requests_before = len(pages_asked)
    with CpuShare(server.process.pid) as share:
        for _ in range(60):
            as_user(pane.table.viewport())
            scrollbar.setValue(random.randint(0, scrollbar.maximum()))
            await asyncio.sleep(0.05)
        await wait_for(lambda: not model.loading, timeout=60)
    await wait_for(lambda: model.item(pane.table.rowAt(0)) is not None, timeout=30)
    scroll_stall_ms, scroll_cpu_ms = beat.worst_ms, beat.worst_cpu_ms
    scroll_busy_ms, scroll_gc_ms = beat.worst_busy_ms, beat.worst_busy_gc_ms
    await asyncio.sleep(0.3)

    # Jumps to rows not loaded yet, one at a time (a user clicking in the scroll bar's
    # groove, then reading): from the jump to the rows of the whole viewport painted.
    viewport = pane.table.viewport()

    def viewport_rows_painted(since: float) -> bool:
        first, last = pane.table.rowAt(0), pane.table.rowAt(viewport.height() - 1)
        last = model.rowCount() - 1 if last < 0 else last
        loaded = model.item(first) is not None and model.item(last) is not None
        return loaded and painted_after_rows(since)

    beat.start()
    jumps: list[float] = []
    while len(jumps) < JUMPS:
        target = random.randrange(model.rowCount())
        if target // model.page_size in model.loaded_pages():
            continue
        started = time.perf_counter()
        as_user(pane.table.viewport())
        pane.table.scrollTo(model.index(target, 0), QAbstractItemView.ScrollHint.PositionAtTop)
        await wait_for(lambda t=started: viewport_rows_painted(t), timeout=60)  # type: ignore[misc]
        jumps.append((watch.last_paint - started) * 1000)
        await asyncio.sleep(0.1)
    jumps_stall_ms, jumps_busy_ms, jumps_gc_ms = (
        beat.worst_ms,
        beat.worst_busy_ms,
        beat.worst_busy_gc_ms,
    )

    # One tick of the live refresh (every 15 s while the pane shows): the visible rows and
    # the count re-read in place, the selection kept.
    pane.table.selectRow(pane.table.rowAt(pane.table.viewport().height() // 2))
    refreshed: list[float] = []
    model.refreshed.connect(lambda: refreshed.append(time.perf_counter()))
    beat.start()
    ticked = time.perf_counter()
    vm.refresh_visible()
    await wait_for(lambda: bool(refreshed) and watch.last_paint > refreshed[0])
    refresh_ms = (watch.last_paint - ticked) * 1000
    refresh_stall_ms, refresh_busy_ms = beat.worst_ms, beat.worst_busy_ms
    beat.stop()
    rss_growth_mb = rss_mb() - rss_before
    shown = pane.count_label.text()
    pane.hide()
    pane.deleteLater()
    await asyncio.sleep(0.05)
    await client.aclose()
    return {
        "rows": model.rowCount(),
        "count_label": shown,
        "first_rows_painted_ms": first_rows_ms,
        "vm_first_page_ms": vm.first_page_ms or float("nan"),
        "jump_to_last_row_ms": jump_ms,
        "open_stall_ms": open_stall_ms,
        "jump_stall_ms": jump_stall_ms,
        "scroll_stall_ms": scroll_stall_ms,
        "open_cpu_ms": open_cpu_ms,
        "jump_cpu_ms": jump_cpu_ms,
        "scroll_cpu_ms": scroll_cpu_ms,
        "open_busy_ms": open_busy_ms,
        "jump_busy_ms": jump_busy_ms,
        "scroll_busy_ms": scroll_busy_ms,
        "scroll_gc_ms": scroll_gc_ms,
        "scroll_share": share.text(),
        "scroll_pages": len(pages_asked) - requests_before,
        "jump_p50_ms": percentile(jumps, 50),
        "jump_max_ms": max(jumps),
        "jumps_stall_ms": jumps_stall_ms,
        "jumps_busy_ms": jumps_busy_ms,
        "jumps_gc_ms": jumps_gc_ms,
        "refresh_ms": refresh_ms,
        "refresh_stall_ms": refresh_stall_ms,
        "refresh_busy_ms": refresh_busy_ms,
        "rss_growth_mb": rss_growth_mb,
        "stacks": beat.top_stacks(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--alarms", type=int, default=100_000, help="unacknowledged alarms")
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument(
        "--stall-stacks",
        action="store_true",
        help="sample the UI thread's Python stack while the loop stalls, print the commonest",
    )
    args = parser.parse_args()
    db = args.db or OUT / f"alarms-{args.alarms}.db"
    built = ensure_alarms(db, args.alarms)
    if built is not None:
        print(
            f"build: {DEVICES:,} devices and {args.alarms:,} unacknowledged alarms in {built:.1f} s"
        )
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        by_kind = dict(conn.execute("SELECT kind, count(*) FROM alarms GROUP BY kind").fetchall())
        acked = conn.execute("SELECT count(*) FROM alarms WHERE acked = 1").fetchone()[0]
    print(
        f"alarms in the database: {by_kind.get('D', 0):,} of devices, {by_kind.get('M', 0):,}"
        f" of multicast groups ({acked:,} of them acknowledged)"
    )
    server = Server(db)
    try:
        lat = server_latency(server, args.samples)
        print(
            f"server first page (with count {lat['count']:,}): p50 {lat['first_p50']:.1f} ms,"
            f" p99 {lat['first_p99']:.1f} ms"
        )
        print(
            f"server deep page by index (last 1%):  p50 {lat['deep_p50']:.1f} ms,"
            f" p99 {lat['deep_p99']:.1f} ms"
        )
        print(
            f"server cursor pages (sort=alarmUid): first {lat['cursor_first_ms']:.1f} ms;"
            f" walking {lat['walk_pages']} pages p50 {lat['walk_p50']:.1f} ms,"
            f" p99 {lat['walk_p99']:.1f} ms; from random alarms p50 {lat['cursor_p50']:.1f} ms,"
            f" p99 {lat['cursor_p99']:.1f} ms"
        )
        ui = run_on_qt_loop(lambda: ui_figures(server, args.stall_stacks))
        print(f"rows in the table: {ui['rows']:,} (the pane says {ui['count_label']!r})")
        print(
            f"open pane -> first rows painted: {ui['first_rows_painted_ms']:.0f} ms (target <= 500)"
        )
        print(
            f"jump to last row -> rows shown:  {ui['jump_to_last_row_ms']:.0f} ms (target <= 1000)"
        )
        print(
            f"worst event-loop stall:          open {ui['open_stall_ms']:.0f} ms, "
            f"jump {ui['jump_stall_ms']:.0f} ms (target <= 50); "
            f"while wandering 60 scroll positions {ui['scroll_stall_ms']:.0f} ms"
            f" ({ui['scroll_pages']} pages fetched)"
        )
        print(
            f"UI thread busy in those worst stalls: open {ui['open_cpu_ms']:.0f} ms,"
            f" jump {ui['jump_cpu_ms']:.0f} ms, wandering {ui['scroll_cpu_ms']:.0f} ms"
            " (CPU time between the two beats; the rest was waiting)"
        )
        print(
            f"most UI-thread work between two beats: open {ui['open_busy_ms']:.0f} ms,"
            f" jump {ui['jump_busy_ms']:.0f} ms, wandering {ui['scroll_busy_ms']:.0f} ms"
            f" ({ui['scroll_gc_ms']:.0f} ms of it garbage collection); ~ the stalls on an idle"
            " machine"
        )
        print(f"while wandering: {ui['scroll_share']}")
        print(
            f"{JUMPS} jumps to rows not loaded -> viewport painted: p50 {ui['jump_p50_ms']:.0f} ms,"
            f" max {ui['jump_max_ms']:.0f} ms; worst stall {ui['jumps_stall_ms']:.0f} ms, most"
            f" UI-thread work between two beats {ui['jumps_busy_ms']:.0f} ms"
            f" ({ui['jumps_gc_ms']:.0f} ms of it garbage collection)"
        )
        print(
            f"live refresh tick -> rows repainted: {ui['refresh_ms']:.0f} ms, worst stall"
            f" {ui['refresh_stall_ms']:.0f} ms; most UI-thread work between two beats"
            f" {ui['refresh_busy_ms']:.0f} ms"
        )
        print(f"resident memory growth:          {ui['rss_growth_mb']:.0f} MB (target <= 150)")
        for stack, samples in ui["stacks"]:
            print(f"  stalled in ({samples} samples of 5 ms): {stack}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
