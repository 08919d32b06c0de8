"""Base stations pane benchmark (issue 9): a sandbox of N stations (100,000 by default).

Prints, one line each: seed time (when the database had to be seeded), the time from
giving the pane its client to the first rows painted (target: 500 ms or less), the same
after a sort by name, the worst event-loop stall of each phase (10 ms heartbeat), and the time
from picking a row to its detail shown. Run it a few times: the first run seeds.

Usage: PYTHONPATH=src python bench/stations_pane.py [--stations N] [--db PATH] [--runs K]
The database is kept in bench/out/ (gitignored) so later runs skip the seeding.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import Heartbeat, paint_watch, run_on_qt_loop, signed_in_client, wait_for
from _sandbox import OUT, Server, percentile

STACKS = "--stacks" in sys.argv  # sample the UI thread's stack during stalls


def station_count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM stations").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def ensure_stations(db: Path, stations: int) -> float | None:
    """Seed up to `stations` with the sandbox's `seed --stations`; the seconds it took."""
    have = station_count(db)
    if have >= stations:
        return None
    db.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    command = [sys.executable, "-m", "lpwa_console.sandbox", "seed", "--db", str(db)]
    subprocess.run([*command, "--devices", "0", "--stations", str(stations - have)], check=True)
    return time.perf_counter() - started


async def open_pane(server: Server) -> dict[str, Any]:
    from PySide6.QtCore import Qt

    from lpwa_console.models.stations import StationsViewModel
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.panes.stations import StationsPane

    client = await signed_in_client(server)
    vm = StationsViewModel(TaskRunner())
    pane = StationsPane(vm)
    pane.resize(1280, 720)
    pane.show()
    watch = paint_watch()
    pane.table.viewport().installEventFilter(watch)
    await asyncio.sleep(0.2)
    beat = Heartbeat(stacks=STACKS)
    beat.start()
    landed: list[float] = []
    vm.model.rowsInserted.connect(lambda *_: landed.append(time.perf_counter()))

    opened = time.perf_counter()
    vm.set_client(client)
    await wait_for(lambda: bool(landed) and watch.last_paint > landed[-1])
    first_rows_ms = (watch.last_paint - opened) * 1000
    rows = vm.model.rowCount()
    phases = {"open": (beat.worst_ms, beat.worst_busy_ms)}
    await asyncio.sleep(0.2)
    beat.start()

    landed.clear()
    sorted_at = time.perf_counter()
    pane.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    await wait_for(lambda: bool(landed) and watch.last_paint > landed[-1])
    sorted_ms = (watch.last_paint - sorted_at) * 1000
    phases["sort"] = (beat.worst_ms, beat.worst_busy_ms)
    await asyncio.sleep(0.2)
    beat.start()

    picked = time.perf_counter()
    pane.table.selectRow(3)
    await wait_for(lambda: vm.detail is not None)
    detail_ms = (time.perf_counter() - picked) * 1000
    await asyncio.sleep(0.1)
    phases["detail"] = (beat.worst_ms, beat.worst_busy_ms)
    if STACKS:
        print(beat.top_stacks())
    beat.stop()
    pane.close()
    await client.aclose()
    return {
        "rows": rows,
        "first_rows_ms": first_rows_ms,
        "sorted_ms": sorted_ms,
        "detail_ms": detail_ms,
        "phases": phases,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stations", type=int, default=100_000)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--stacks", action="store_true", help="show what stalls the loop")
    args = parser.parse_args()
    db = args.db or OUT / f"stations-{args.stations}.db"
    seeded = ensure_stations(db, args.stations)
    if seeded is not None:
        print(f"seed: {args.stations:,} stations in {seeded:.1f} s")
    server = Server(db)
    try:
        runs = [run_on_qt_loop(lambda: open_pane(server)) for _ in range(args.runs)]
    finally:
        server.stop()
    first = [r["first_rows_ms"] for r in runs]
    print(f"stations listed: {runs[0]['rows']:,}")
    print(
        f"open pane to first rows painted: p50 {percentile(first, 50):.0f} ms, "
        f"worst {max(first):.0f} ms (target 500 ms)"
    )
    sort = [r["sorted_ms"] for r in runs]
    print(f"sort by name to rows painted: p50 {percentile(sort, 50):.0f} ms")
    print(
        f"row picked to detail shown: p50 {percentile([r['detail_ms'] for r in runs], 50):.0f} ms"
    )
    for phase in ("open", "sort", "detail"):
        stall = max(r["phases"][phase][0] for r in runs)
        busy = max(r["phases"][phase][1] for r in runs)
        print(
            f"worst event-loop stall while {phase}: {stall:.0f} ms"
            f" (most UI-thread CPU between two beats: {busy:.0f} ms)"
        )


if __name__ == "__main__":
    main()
