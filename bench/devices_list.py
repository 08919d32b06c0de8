"""Device list benchmark (issue 2): a sandbox of N devices (1,000,000 by default).

Prints, one line each:
  seed time (when the database had to be seeded),
  server page latency p50/p99 for the first page (with count) and for deep pages,
  time from opening the devices pane to the first rows painted,
  time to show rows after jumping to the last row,
  worst event-loop stall seen by a 10 ms heartbeat during both and while wandering over 60
  scroll positions, how much of it the UI thread was busy, the most work it did between two
  beats, and the CPU the sandbox and the machine used meanwhile (a 2-core machine shared with
  the sandbox stalls the loop by waiting for a core too),
  resident memory growth of the console process over the whole UI run.

Usage: ./dev bench devices_list [--devices N] [--db PATH] [--samples K]
The database is kept in bench/out/ so later runs skip the seeding.
"""

from __future__ import annotations

import argparse
import asyncio
import random
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


def server_latency(server: Server, samples: int, total: int) -> dict[str, float]:
    with httpx.Client(timeout=60) as http:
        headers = bearer_headers(http, server)
        url = f"{server.base_url}/subscriptions/mine/devices"

        def timed(params: dict[str, str | int]) -> float:
            return timed_get(http, url, params, headers)[0]

        timed({"pageIndex": 1, "pageSize": 100})  # warm the caches once
        first = [timed({"pageIndex": 1, "pageSize": 100}) for _ in range(samples)]
        last_page = max(1, total // 100)
        deep = [
            timed(
                {
                    "pageIndex": random.randint(max(1, last_page - last_page // 100), last_page),
                    "pageSize": 100,
                }
            )
            for _ in range(samples)
        ]
        by_name = [
            timed({"pageIndex": random.randint(1, last_page), "pageSize": 100, "sort": "name,asc"})
            for _ in range(samples)
        ]
    return {
        "first_p50": percentile(first, 50),
        "first_p99": percentile(first, 99),
        "deep_p50": percentile(deep, 50),
        "deep_p99": percentile(deep, 99),
        "name_sorted_random_p50": percentile(by_name, 50),
        "name_sorted_random_p99": percentile(by_name, 99),
    }


async def ui_figures(server: Server) -> dict[str, Any]:
    from lpwa_console.models.devices import DevicesViewModel
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.panes.devices import DevicesPane

    client = await signed_in_client(server)
    runner = TaskRunner()
    vm = DevicesViewModel(runner, None)
    pane = DevicesPane(vm)
    pane.resize(1400, 900)
    pane.show()
    watch = paint_watch()
    pane.table.viewport().installEventFilter(watch)
    model = vm.model
    await asyncio.sleep(0.2)
    rss_before = rss_mb()
    beat = Heartbeat()
    beat.start()

    arrived: dict[int, float] = {}
    model.dataChanged.connect(lambda *_: arrived.setdefault(len(arrived), time.perf_counter()))
    model.rowsInserted.connect(lambda *_: arrived.setdefault(len(arrived), time.perf_counter()))

    def painted_after_rows(since: float) -> bool:
        # Rows arrived after `since`, and the viewport painted after they did.
        landed = [t for t in arrived.values() if t >= since]
        return bool(landed) and watch.last_paint > max(landed)

    opened = time.perf_counter()
    vm.set_client(client)
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
    with CpuShare(server.process.pid) as share:
        for _ in range(60):
            as_user(pane.table.viewport())
            scrollbar.setValue(random.randint(0, scrollbar.maximum()))
            await asyncio.sleep(0.05)
        await wait_for(lambda: not model.loading, timeout=60)
    scroll_stall_ms, scroll_cpu_ms = beat.worst_ms, beat.worst_cpu_ms
    scroll_busy_ms, scroll_gc_ms = beat.worst_busy_ms, beat.worst_busy_gc_ms
    beat.stop()
    rss_growth_mb = rss_mb() - rss_before
    await client.aclose()
    return {
        "rows": float(model.rowCount()),
        "first_rows_painted_ms": first_rows_ms,
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
        "rss_growth_mb": rss_growth_mb,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--samples", type=int, default=50)
    args = parser.parse_args()
    db = args.db or OUT / f"devices-{args.devices}.db"
    seeded = ensure_seeded(db, args.devices)
    if seeded is not None:
        print(f"seed: {args.devices:,} devices in {seeded:.1f} s")
    server = Server(db)
    try:
        lat = server_latency(server, args.samples, args.devices)
        print(
            f"server first page (with count): p50 {lat['first_p50']:.1f} ms, p99 {lat['first_p99']:.1f} ms"
        )
        print(
            f"server deep page (last 1%):     p50 {lat['deep_p50']:.1f} ms, p99 {lat['deep_p99']:.1f} ms"
        )
        print(
            f"server random page by name:     p50 {lat['name_sorted_random_p50']:.1f} ms, "
            f"p99 {lat['name_sorted_random_p99']:.1f} ms"
        )
        ui = run_on_qt_loop(lambda: ui_figures(server))
        print(f"rows in the table: {int(ui['rows']):,}")
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
        print(f"resident memory growth:          {ui['rss_growth_mb']:.0f} MB (target <= 150)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
