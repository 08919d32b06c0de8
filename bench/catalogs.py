"""Operator catalogs benchmark (issue 11): a catalog of 5,000 device profiles in 4 languages.

Makes the catalog file here (not in the demo: the demo catalog stays small), then on a new
sandbox database (no demo devices), through the console's view-model and pane:
- the import of the file with the pane's progress bar (target: 10 s or less), and how many
  times the bar moved;
- from giving the pane its client to the first rows painted (target: 500 ms or less);
- from picking another language to the rows repainted in it (target: 200 ms or less);
- the worst event-loop stall of each phase (10 ms heartbeat).

Usage: PYTHONPATH=src python bench/catalogs.py [--profiles N] [--runs K]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import Heartbeat, paint_watch, run_on_qt_loop, wait_for
from _sandbox import Server, percentile

LANGUAGES = {"fr": "Capteur", "de": "Sensor", "es": "Sensor"}
BANDS = ["eu868", "us915", "as923", "in865", "au915"]


def catalog_file(profiles: int, version: str) -> dict[str, Any]:
    vendors = [
        {"ID": f"bench-vendor-{v}", "commercialName": f"Bench vendor {v}",
         "commercialDescription": "Benchmark devices", "loraVendorID": f"0x9{v:03d}",
         "locals": {lang: {"commercialDescription": f"{word} {v}"}
                    for lang, word in LANGUAGES.items()}}
        for v in range(50)
    ]  # fmt: skip
    items = []
    for i in range(profiles):
        minor = (4, 5, 6, 10)[i % 4]
        band = BANDS[i % len(BANDS)]
        item: dict[str, Any] = {
            "ID": f"BENCH/profile-{i:05d}",
            "commercialName": f"Bench sensor {i:05d}",
            "commercialDescription": "A benchmark device profile",
            "vendorID": f"bench-vendor-{i % 50}",
            "macMinorVersion": minor,
            "regionalParameterVersion": "E" if minor == 6 else "A",
            "defaultIsmBands": [band],
            "loraProfileIDs": [f"0x9{i:07d}"],
            "macMaxTxEIRP": [14.0, 16.0],
            "locals": {
                lang: {"commercialName": f"{word} {i:05d} ({lang})"}
                for lang, word in LANGUAGES.items()
            },
        }
        if band == "as923":
            item["uplinkDwellTime"] = 1
        items.append(item)
    return {
        "format": "lpwa-catalog/1", "catalog": "deviceProfiles", "version": version,
        "languages": ["en", *LANGUAGES], "vendors": vendors, "profiles": items,
    }  # fmt: skip


def _bench_row(model: Any) -> int:
    for row in range(min(model.rowCount(), 200)):
        item = model.item(row)
        if item is not None and item.ID.startswith("BENCH/"):
            return row
    return -1


async def run(server: Server, path: Path, do_import: bool) -> dict[str, Any]:
    from lpwa_console.api import Credentials, LpwaClient
    from lpwa_console.models.catalogs import CatalogsViewModel
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.panes.catalogs import CatalogsPane

    account = server.account("operator")
    client = LpwaClient(
        server.base_url,
        Credentials(server.token_url, account["client_id"], account["client_secret"]),
    )
    await client.catalogs.operator()  # signed in: the figures are the pane's, not the token's
    vm = CatalogsViewModel(TaskRunner())
    pane = CatalogsPane(vm)
    pane.resize(1280, 720)
    pane.show()
    table = pane.tables["deviceProfiles"]
    watch = paint_watch()
    table.viewport().installEventFilter(watch)
    await asyncio.sleep(0.2)
    beat = Heartbeat()
    model = vm.models["deviceProfiles"]
    landed: list[float] = []
    model.rowsInserted.connect(lambda *_: landed.append(time.perf_counter()))
    model.dataChanged.connect(lambda *_: landed.append(time.perf_counter()))
    model.modelReset.connect(lambda *_: landed.append(time.perf_counter()))
    out: dict[str, Any] = {}

    beat.start()
    opened = time.perf_counter()
    vm.set_client(client)

    def first_name() -> str:
        item = model.item(0)
        return str(item.commercialName) if item is not None else ""

    await wait_for(
        lambda: first_name() != "" and watch.last_paint > landed[-1] if landed else False
    )
    out["first_rows_ms"] = (watch.last_paint - opened) * 1000
    out["open_stall"] = beat.worst_ms
    await wait_for(lambda: vm.language == "en" and bool(vm.installed), timeout=30)

    if do_import:
        await asyncio.sleep(0.2)
        moves: list[int] = []
        pane.progress.valueChanged.connect(moves.append)
        done: list[Any] = []
        failed: list[str] = []
        vm.import_done.connect(done.append)
        vm.import_failed.connect(failed.append)
        vm.import_needs_force.connect(lambda *_a: failed.append("same version"))
        beat.start()
        started = time.perf_counter()
        pane.import_file(path)
        await wait_for(lambda: bool(done or failed), timeout=120)
        if failed:
            raise RuntimeError(f"import failed: {failed[0]}")
        out["import_s"] = time.perf_counter() - started
        out["import_stall"] = beat.worst_ms
        out["progress_moves"] = len(moves)
        out["imported"] = done[0].imported
        await wait_for(lambda: first_name().startswith("Bench") or first_name() != "", timeout=30)

    await wait_for(lambda: model.item(0) is not None and model.count_known, timeout=30)
    out["rows"] = model.rowCount()
    # The first bench profile (the demo's come first by ID), at the top of the view.
    await wait_for(lambda: _bench_row(model) >= 0, timeout=30)
    watched = _bench_row(model)
    table.scrollTo(model.index(watched, 0), table.ScrollHint.PositionAtTop)
    switches = []
    stalls = []
    for lang in ("fr", "de", "es", "en"):
        await asyncio.sleep(0.3)
        landed.clear()
        beat.start()
        picked = time.perf_counter()
        pane.language_combo.setCurrentIndex(pane.language_combo.findData(lang))
        suffix = f"({lang})" if lang != "en" else ""

        def repainted(suffix: str = suffix) -> bool:
            item = model.item(watched)
            if item is None or not landed or watch.last_paint <= landed[-1]:
                return False
            name = str(item.commercialName)
            return name.endswith(suffix) if suffix else not name.endswith(")")

        await wait_for(repainted)
        switches.append((watch.last_paint - picked) * 1000)
        stalls.append(beat.worst_ms)
    out["switch_ms"] = switches
    out["switch_stall"] = max(stalls)
    beat.stop()
    pane.close()
    await client.aclose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profiles", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="lpwa-bench-catalogs-"))
    path = folder / "catalog.json"
    made = time.perf_counter()
    path.write_text(json.dumps(catalog_file(args.profiles, "2030.1")))
    size_mb = path.stat().st_size / 2**20
    print(f"catalog file: {args.profiles:,} profiles in 4 languages, {size_mb:.1f} MB"
          f" (made in {time.perf_counter() - made:.1f} s)")  # fmt: skip
    server = Server(folder / "sandbox.db", "--seed", "0")
    try:
        runs = [run_on_qt_loop(lambda i=i: run(server, path, i == 0)) for i in range(args.runs)]
    finally:
        server.stop()
    first = runs[0]
    print(
        f"import of {first['imported']:,} profiles through the pane: {first['import_s']:.1f} s"
        f" (target 10 s), progress bar moved {first['progress_moves']} times,"
        f" worst stall {first['import_stall']:.0f} ms"
    )
    print(f"profiles listed after the import: {runs[-1]['rows']:,}")
    opens = [r["first_rows_ms"] for r in runs[1:]] or [first["first_rows_ms"]]
    print(
        f"open pane to first rows painted (catalog of {runs[-1]['rows']:,}):"
        f" p50 {percentile(opens, 50):.0f} ms, worst {max(opens):.0f} ms (target 500 ms)"
    )
    switches = [ms for r in runs[1:] or runs for ms in r["switch_ms"]]
    print(
        f"language switch to rows repainted: p50 {percentile(switches, 50):.0f} ms,"
        f" worst {max(switches):.0f} ms over {len(switches)} switches (target 200 ms)"
    )
    print(
        "worst event-loop stall: open"
        f" {max(r['open_stall'] for r in runs):.0f} ms, language switch"
        f" {max(r['switch_stall'] for r in runs):.0f} ms"
    )


if __name__ == "__main__":
    main()
