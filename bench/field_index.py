"""Fleet index benchmark (issue 23 §1-2): the local index of a big sandbox, built over HTTP.

Prints one JSON line:
  build_s: sign-in to the index ready (every device and station written), from the sandbox
    over HTTP by the sync's own process as the console runs it (`build_cpu_sync_s` its CPU,
    `sync_nice` its priority), with `worst_stall_ms` the worst lateness of a 10 ms QTimer heartbeat on the
    console's Qt loop meanwhile (and `worst_busy_ms`, the most CPU the UI thread used
    between two beats); `worst_stall_loading_ms` / `worst_stall_indexing_ms` split it between
    loading the rows and building the search indexes at the end of the first fill
    (`indexing_s` long), `stalls_over_50ms` how many beats were that late;
  search_p50_ms / search_p95_ms: keystroke to ranked results in the palette's search
    view-model (fragments from the middle of names, DevEUIs' last digits, IMEIs, lrrIDs);
  refresh: what one refresh asked (requests, items written, seconds) after the build, and
    full_pass_requests, what a full pass costs (deletions, renames made elsewhere);
  index_mb: the index file's size.

Usage: ./dev bench field_index [--devices N] [--stations N] [--data DIR] [--searches K]
                                [--reuse-index] [--stacks]
The sandbox database is kept in DIR (default bench/out/) so later runs skip the seeding;
the index is built anew in DIR/field-index-N/ each run, unless --reuse-index (then only
the searches and the refresh are measured, on the index an earlier run built).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import CpuShare, Heartbeat, run_on_qt_loop, wait_for
from _sandbox import OUT, Server, ensure_seeded, percentile


def fragments(db: Path, count: int) -> list[str]:
    """What a field engineer types: a word from the middle of a name, a DevEUI's last six
    digits, an IMEI's last seven, a station's lrrID fragment."""
    import sqlite3

    rng = random.Random(23)
    out: list[str] = []
    with sqlite3.connect(db) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM items WHERE kind='device' AND name != '' ORDER BY random() LIMIT ?", (count,))]  # fmt: skip
        euis = [r[0] for r in conn.execute("SELECT ident FROM items WHERE kind='device' ORDER BY random() LIMIT ?", (count,))]  # fmt: skip
        lrrs = [r[0] for r in conn.execute("SELECT ident FROM items WHERE kind='station' ORDER BY random() LIMIT ?", (count,))]  # fmt: skip
    for n in range(count):
        choice = n % 3
        if choice == 0 and names:
            words = names[n % len(names)].split()
            word = words[len(words) // 2] if len(words) > 1 else words[0]
            start = rng.randint(0, max(0, len(word) - 4))
            out.append(word[start : start + rng.randint(4, 8)])
        elif choice == 1 and euis:
            out.append(euis[n % len(euis)][-6:])
        elif lrrs:
            out.append(lrrs[n % len(lrrs)][2:7])
    return out


async def measure(
    server: Server, folder: Path, searches: int, reuse: bool, stacks: bool = False
) -> dict[str, Any]:
    from lpwa_console.api import Credentials
    from lpwa_console.models.fleet_index.index import FleetIndex
    from lpwa_console.models.fleet_index.progress import SyncSettings
    from lpwa_console.models.fleet_index.protocol import SignIn
    from lpwa_console.models.palette import DeviceSearchViewModel
    from lpwa_console.models.tasks import TaskRunner

    account = server.account("subscriber")

    # As the console signs in its sync: in a process of its own (models/fleet_index/process).
    credentials = Credentials(server.token_url, account["client_id"], account["client_secret"])
    sign_in = SignIn(server.base_url, credentials)

    index = FleetIndex(folder, settings=SyncSettings(refresh_every_s=3600))
    beat = Heartbeat(log_over_ms=30, stacks=stacks)
    beat.start()
    share = CpuShare(server.process.pid).start()
    console_cpu = time.process_time()
    ui_cpu = time.thread_time()
    t0 = time.perf_counter()
    indexing_at: list[float] = []  # when the fill's rows were in and the search step began

    def note_step(progress: Any) -> None:
        if progress.message and not indexing_at and progress.state == "filling":
            indexing_at.append(time.perf_counter())

    index.progress_changed.connect(note_step)
    index.open("bench", "subscriber", sign_in)
    sync_pid = index.sync_process_id
    assert sync_pid is not None, "the sync runs in a process of its own"
    sync_process = psutil.Process(sync_pid)
    await wait_for(lambda: index.ready and index.progress.state == "ready", timeout=3600)
    build_s = time.perf_counter() - t0
    sync_times = sync_process.cpu_times()  # (a new process: all of it is the build's)
    sync_nice = sync_process.nice()
    if reuse:
        await asyncio.sleep(5)  # the first refresh of a reopened index, not measured
    share.stop()
    console_cpu = time.process_time() - console_cpu
    ui_cpu = time.thread_time() - ui_cpu
    build_stall, build_busy = beat.worst_ms, beat.worst_busy_ms
    for stack, count in beat.top_stacks(6) if stacks else ():
        print(f"build: {count} samples of the UI thread held at\n{stack}", file=sys.stderr)
    build_stalls = [(at - t0, ms) for at, ms in beat.stalls]
    step_at = indexing_at[0] - t0 if indexing_at else build_s
    phases = {
        # the worst stall while rows were loaded, then while the search indexes were built
        "worst_stall_loading_ms": max((ms for at, ms in build_stalls if at < step_at), default=0),
        "worst_stall_indexing_ms": max((ms for at, ms in build_stalls if at >= step_at), default=0),
        "stalls_over_50ms": sum(ms > 50 for _at, ms in build_stalls),
        "indexing_s": round(build_s - step_at, 1),
    }
    assert index.path is not None
    counts = {"devices": 0, "stations": 0}
    import sqlite3

    with sqlite3.connect(index.path) as conn:
        for kind, n in conn.execute("SELECT kind, count(*) FROM items GROUP BY kind"):
            counts[{"device": "devices", "station": "stations"}.get(kind, kind)] = n
    typed = fragments(index.path, searches)

    runner = TaskRunner()
    search = DeviceSearchViewModel(runner)
    search.index = index
    times: list[float] = []
    found = 0
    beat.start()
    for text in typed:
        results: list[Any] = []
        search.results_changed.connect(results.append)
        started = time.perf_counter()
        search.search(text)
        await wait_for(lambda got=results: bool(got))
        times.append((time.perf_counter() - started) * 1000)
        found += bool(results[-1])
        search.results_changed.disconnect(results.append)
    search_stall = beat.worst_ms

    refresh_t0 = time.perf_counter()
    before = index.refresh_cost()
    index.refresh_now()
    await wait_for(lambda: index.refresh_cost() is not before, timeout=600)
    cost = index.refresh_cost()
    refresh_s = time.perf_counter() - refresh_t0
    beat.stop()
    index_mb = round(index.path.stat().st_size / 2**20, 1) if index.path else None
    await index.aclose()
    return {
        **counts,
        "build_s": round(build_s, 1),
        # CPU seconds used meanwhile: on a shared 2-core machine the wall time is bounded
        # by the busier process's CPU time only when the machine is otherwise idle.
        "build_cpu_console_s": round(console_cpu, 1),
        "build_cpu_ui_thread_s": round(ui_cpu, 1),
        "build_cpu_sandbox_s": round(share.process_s, 1),
        # The sync's process (models/fleet_index/child.py), at a lower priority.
        "build_cpu_sync_s": round(sync_times.user + sync_times.system, 1),
        "sync_nice": sync_nice,
        "machine_busy_pct": round(share.machine_busy),
        "worst_stall_ms": round(build_stall, 1),
        "worst_busy_ms": round(build_busy, 1),
        **{k: round(v, 1) if isinstance(v, float) else v for k, v in phases.items()},
        "search_p50_ms": round(percentile(times, 50), 1),
        "search_p95_ms": round(percentile(times, 95), 1),
        "searches": len(times),
        "searches_with_results": found,
        "search_worst_stall_ms": round(search_stall, 1),
        "refresh": {
            "requests": cost.requests,
            "items": cost.items,
            "seconds": round(cost.seconds, 2),
            "wall_s": round(refresh_s, 2),
            "full_pass_needed": cost.full_pass,
        },
        "full_pass_requests": -(-counts["devices"] // 1000) + -(-counts["stations"] // 1000),
        "index_mb": index_mb,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--stations", type=int, default=100_000)
    parser.add_argument("--data", type=Path, default=OUT)
    parser.add_argument("--searches", type=int, default=60)
    parser.add_argument("--reuse-index", action="store_true")
    parser.add_argument("--stacks", action="store_true", help="what holds the UI thread")
    args = parser.parse_args()
    db = args.data / f"field-index-{args.devices}.db"
    seeded = ensure_seeded(db, args.devices, stations=args.stations)
    server = Server(db)
    try:
        folder = args.data / f"field-index-{args.devices}"
        if not args.reuse_index:
            shutil.rmtree(folder, ignore_errors=True)
        figures = run_on_qt_loop(
            lambda: measure(server, folder, args.searches, args.reuse_index, args.stacks)
        )
        if args.reuse_index:
            figures = {
                k: v
                for k, v in figures.items()
                if not k.startswith(("build", "worst", "stalls", "indexing"))
            }
    finally:
        server.stop()
    if seeded is not None:
        figures["seed_s"] = round(seeded, 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
