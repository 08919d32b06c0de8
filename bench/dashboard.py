"""Dashboard benchmark (issue 10): "a KPI chart of 1,000,000 points: <= 16 ms a frame while
panning; a dashboard refresh with the worst UI stall <= 50 ms".

1. Panning: the dashboard's own KPI chart (`KpiChart`, clip-to-view and peak downsampling)
   given one series of 1,000,000 points (one a second, ~11.6 days) in a solid and a dashed
   pen, on an offscreen widget. Each frame moves the visible window (a day, then the whole
   range) by a step with `setXRange` and lets Qt paint it (`processEvents`; each frame is
   checked to have painted the plot); prints the ms per frame, p50 and p95, and the
   `setData` time.
2. Refresh: a real sandbox (`serve --simulate`, the demo network with its history) and the
   console's dashboard pane signed in as the operator on a qasync loop; the pane refreshes
   every KPI N times in a row (each: the five `lastValues` requests over HTTP, then the
   curves' `setData`) while a 10 ms heartbeat measures the worst event-loop stall. Prints
   the refresh times (p50, p95) and the worst stall.

Usage: ./dev bench dashboard [--points N] [--frames N] [--refreshes N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import Heartbeat, paint_watch, run_on_qt_loop, wait_for
from _sandbox import Server, percentile


def _kpi_chart(points: int, style: str) -> tuple[Any, float]:
    """A KpiChart with one series of `points` points; returns it and setData's ms."""
    from lpwa_console.models.dashboard import DashboardViewModel, Series
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.schema.dashboard import Kpi
    from lpwa_console.ui.panes.dashboard import KpiChart

    kpi = Kpi.model_validate(
        {
            "ID": "bench",
            "name": "One million points",
            "metrics": [{"name": "v", "colorId": "blue", "lineStyle": style, "unit": "frames/h"}],
            "lastValues": {"durations": ["P30D"]},
        }
    )
    vm = DashboardViewModel(TaskRunner())
    vm.kpis = [kpi]
    start = 1_700_000_000.0
    times = [start + i for i in range(points)]
    # A noisy daily wave: peaks for the downsampling to keep.
    values = [
        500 + 400 * ((i % 86400) / 86400) + (i * 7919 % 97) * (1 if i % 3 else -1)
        for i in range(points)
    ]
    vm.series["bench"] = [Series("v", "Value", "#1f77b4", style, "frames/h", times, values)]
    chart = KpiChart(vm, kpi)
    chart.resize(1200, 360)
    chart.show()
    started = time.perf_counter()
    chart.update_series()
    set_ms = (time.perf_counter() - started) * 1000
    chart.plot.getPlotItem().getViewBox().disableAutoRange()
    return chart, set_ms


def pan_frames(points: int, frames: int, style: str) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    assert app is not None
    chart, set_ms = _kpi_chart(points, style)
    plot = chart.plot
    watch = paint_watch()
    plot.viewport().installEventFilter(watch)
    first, last = 1_700_000_000.0, 1_700_000_000.0 + points - 1
    out: dict[str, Any] = {"set_ms": set_ms}
    for name, width in (("day", 86_400.0), ("week", 7 * 86_400.0), ("all", last - first)):
        step = (last - first - width) / frames if width < last - first else width / frames
        x0 = first
        plot.setXRange(x0, x0 + width, padding=0)
        app.processEvents()  # the first paint (caches, fonts) is not a pan frame
        times: list[float] = []
        cpu: list[float] = []
        painted = watch.paints
        for i in range(frames):
            x0 = first + (i * step if width < last - first else (i % 20 - 10) * step)
            started, started_cpu = time.perf_counter(), time.thread_time()
            plot.setXRange(x0, x0 + width, padding=0)
            app.processEvents()  # the paint the move asks for, as a user's drag gets it
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
        paints = watch.paints - painted
        if paints < frames * 0.95:
            raise SystemExit(f"only {paints} paints for {frames} frames")
        out[name] = (
            percentile(times, 50), percentile(times, 95), max(times), paints,
            percentile(cpu, 50), percentile(cpu, 95),
        )  # fmt: skip
    chart.close()
    chart.deleteLater()
    app.processEvents()
    return out


async def refresh_run(server: Server, refreshes: int, stacks: bool) -> dict[str, Any]:
    from lpwa_console.api import Credentials, LpwaClient
    from lpwa_console.models.dashboard import DashboardViewModel
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.schema.dashboard import DASHBOARD_KPIS
    from lpwa_console.ui.panes.dashboard import DashboardPane

    account = server.account("operator")
    client = LpwaClient(
        server.base_url,
        Credentials(server.token_url, account["client_id"], account["client_secret"]),
    )
    # The demo's history is made a moment after the sandbox listens: wait for its hours.
    deadline = time.perf_counter() + 120
    while True:
        values = await client.dashboard.last_values("traffic", "P3D")
        if len(values.series[0].values) > 24 or time.perf_counter() > deadline:
            break
        await asyncio.sleep(0.5)
    runner = TaskRunner()
    vm = DashboardViewModel(runner)
    pane = DashboardPane(vm)
    pane.resize(1280, 900)
    pane.show()
    vm.set_client(client)
    await wait_for(
        lambda: (
            len(vm.series) == len(DASHBOARD_KPIS) and all(c.curves for c in pane.charts.values())
        ),
        timeout=60,
    )
    vm.set_auto_refresh(False)
    await asyncio.sleep(0.3)
    points = sum(len(s.values) for series in vm.series.values() for s in series)
    curves = sum(len(c.curves) for c in pane.charts.values())
    beat = Heartbeat(log_over_ms=0, stacks=stacks)
    beat.start()
    started_all = time.perf_counter()
    durations: list[float] = []
    for _ in range(refreshes):
        before = vm.refreshes
        started = time.perf_counter()
        assert vm.refresh()
        await wait_for(lambda before=before: vm.refreshes > before, timeout=60)  # type: ignore[misc]
        durations.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.05)
    ended = time.perf_counter()
    beat.stop()
    failure = vm.failure
    pane.close()
    pane.deleteLater()
    await client.aclose()
    return {
        "durations": durations,
        "stall_ms": beat.worst_between(started_all, ended),
        "worst_busy_ms": beat.worst_busy_ms,
        "points": points,
        "curves": curves,
        "failure": failure,
        "stacks": beat.top_stacks(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--refreshes", type=int, default=20)
    parser.add_argument("--skip-pan", action="store_true", help="only the refresh")
    parser.add_argument("--skip-refresh", action="store_true", help="only the panning")
    parser.add_argument(
        "--stall-stacks", action="store_true", help="print where the UI thread stalled"
    )
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    async def panning() -> dict[str, Any]:
        return {style: pan_frames(args.points, args.frames, style) for style in ("SOLID", "DASHED")}

    pans = {} if args.skip_pan else run_on_qt_loop(panning)
    for style, fig in pans.items():
        print(
            f"KPI chart, {args.points:,} points, {style.lower()} 1 px pen: setData {fig['set_ms']:.0f} ms"
        )
        for name, words in (
            ("day", "a day in view"),
            ("week", "a week in view"),
            ("all", "all in view, moved back and forth"),
        ):
            p50, p95, worst, paints, cpu50, cpu95 = fig[name]
            print(
                f"  panning, {words}: {p50:.1f} ms a frame p50, {p95:.1f} ms p95,"
                f" worst {worst:.1f} ms ({args.frames} frames, {paints} paints; target <= 16);"
                f" UI-thread CPU {cpu50:.1f} ms p50, {cpu95:.1f} ms p95"
            )
    if args.skip_refresh:
        return
    with tempfile.TemporaryDirectory(prefix="lpwa-dashboard-bench-") as tmp:
        server = Server(Path(tmp) / "sandbox.db", "--simulate")
        try:
            fig = run_on_qt_loop(lambda: refresh_run(server, args.refreshes, args.stall_stacks))
        finally:
            server.stop()
    d = fig["durations"]
    print(
        f"dashboard refresh (5 KPIs, {fig['curves']} curves, {fig['points']:,} points, real"
        f" sandbox simulating): {percentile(d, 50):.0f} ms p50, {percentile(d, 95):.0f} ms p95"
        f" ({len(d)} refreshes)"
    )
    print(
        f"worst event-loop stall during the refreshes: {fig['stall_ms']:.0f} ms (target <= 50);"
        f" most UI-thread CPU between two beats {fig['worst_busy_ms']:.0f} ms"
    )
    for stack, samples in fig["stacks"]:
        print(f"  stalled in ({samples} samples of 5 ms): {stack}")
    if fig["failure"]:
        print(f"a refresh failed: {fig['failure']}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
