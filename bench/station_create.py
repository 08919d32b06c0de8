"""New base station benchmark: on a sandbox of N stations (100,000 by default), from Create to
the new station shown (the POST's answer in the detail), and to its row selected in the list
(the list reloaded, count and all; the new station is on the last page by creation date,
which is fetched), and the partner's count read again. Prints p50 and worst of K creations
and the worst event-loop stall while they ran (10 ms heartbeat).

Usage: PYTHONPATH=src python bench/station_create.py [--stations N] [--db PATH] [--runs K]
The database is bench/out/stations-N.db as bench/stations_pane.py seeds it; give --db a copy
to keep that one as it is (each run adds stations).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import Heartbeat, run_on_qt_loop, signed_in_client, wait_for
from _sandbox import OUT, Server, percentile
from stations_pane import ensure_stations

MODEL = {"ID": "KERLINK_WIRNET_ISTATION"}


async def create_stations(server: Server, runs: int) -> dict[str, Any]:
    from lpwa_console.models.partners import PartnerViewModel
    from lpwa_console.models.stations import StationsViewModel
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.panes.stations import StationsPane

    client = await signed_in_client(server)
    runner = TaskRunner()
    vm = StationsViewModel(runner)
    partner = PartnerViewModel(runner)
    pane = StationsPane(vm, partner=partner)
    pane.resize(1280, 720)
    pane.show()
    partner.set_client(client)
    vm.set_client(client)
    await wait_for(lambda: vm.first_page_ms is not None and partner.partner is not None)
    beat = Heartbeat()
    shown: list[float] = []
    selected: list[float] = []
    counted: list[float] = []
    stalls: list[float] = []
    for _ in range(runs):
        assert partner.partner is not None
        used = partner.partner.totalBaseStationsUsed
        lrr = f"{random.randrange(0x20000000, 0xEFFFFFFF):08X}"
        created: list[float] = []
        vm.created.connect(lambda _s, c=created: c.append(time.perf_counter()))
        beat.start()
        started = time.perf_counter()
        assert vm.create({"model": MODEL, "lrrID": lrr})
        await wait_for(lambda c=created: bool(c))
        shown.append((created[0] - started) * 1000)

        def row_selected(lrr: str = lrr) -> bool:
            rows = pane.selected_rows()
            item = vm.model.item(rows[0]) if len(rows) == 1 else None
            return item is not None and item.lrrID == lrr

        await wait_for(row_selected, timeout=30)
        selected.append((time.perf_counter() - started) * 1000)
        await wait_for(
            lambda u=used: (
                partner.partner is not None and partner.partner.totalBaseStationsUsed == u + 1
            )
        )
        counted.append((time.perf_counter() - started) * 1000)
        stalls.append(beat.worst_ms)
    beat.stop()
    rows = vm.model.rowCount()
    pane.close()
    await client.aclose()
    return {
        "shown": shown,
        "selected": selected,
        "counted": counted,
        "stall": max(stalls),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stations", type=int, default=100_000)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    db = args.db or OUT / f"stations-{args.stations}.db"
    seeded = ensure_stations(db, args.stations)
    if seeded is not None:
        print(f"seed: {args.stations:,} stations in {seeded:.1f} s")
    server = Server(db)
    try:
        result = run_on_qt_loop(lambda: create_stations(server, args.runs))
    finally:
        server.stop()
    print(f"stations listed after: {result['rows']:,}")
    for key, words in (
        ("shown", "Create to the new station in the detail"),
        ("selected", "Create to its row selected (list reloaded, last page fetched)"),
        ("counted", "Create to the partner's count read again"),
    ):
        values = result[key]
        print(f"{words}: p50 {percentile(values, 50):.0f} ms, worst {max(values):.0f} ms")
    print(f"worst event-loop stall meanwhile: {result['stall']:.0f} ms")


if __name__ == "__main__":
    main()
