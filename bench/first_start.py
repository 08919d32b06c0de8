"""First start benchmark (issue 8): from launching `lpwa-console` to the first device rows
painted, on the embedded sandbox.

Each run starts the real console as a child process, offscreen, with `--data-dir` in a
temporary folder and the diagnostic option `--time-first-rows` (it prints one JSON line of
the milliseconds from its launch to each step, then quits). The time is measured here, from
spawning the process to reading that line, so it includes the interpreter's own start.
Byte code is written and used as an installed console's would be, even where the
environment says PYTHONDONTWRITEBYTECODE (a first run, not counted, writes it).

  new:   a new data folder (the sandbox creates its database and demo network)
  warm:  a data folder that has its database already (made by a run before, not counted)

Prints p50/min/max in seconds for both, the console's own step times (p50) so the slow
step is plain to see, and the CPU time (p50) each process used up to the first rows (the
sandbox's where /proc tells it): on a busy machine the times from launch vary with the other
work, these much less. Targets: warm <= 1.5 s, new <= 3 s (on a quiet 2-core machine).

Usage: ./dev bench first_start [--runs N] [--bundle dist/lpwa-console/lpwa-console]
(with --bundle: warm starts of the bundle and of the source, alternated, and their ratio)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TIMEOUT_S = 120


SOURCE = [sys.executable, "-m", "lpwa_console"]


def console_command(program: list[str], data_dir: Path) -> list[str]:
    return [*program, "--data-dir", str(data_dir), "--time-first-rows"]


Run = tuple[float, dict[str, float], dict[str, float]]  # seconds, steps, CPU ms


def one_run(data_dir: Path, program: list[str] = SOURCE) -> Run:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    # An installed console has its byte code compiled (pip does it): without it every start
    # compiles ~100 modules again (~0.5 s each for the console and the sandbox).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.perf_counter()
    process = subprocess.Popen(
        console_command(program, data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    try:
        line = process.stdout.readline()
        seconds = time.perf_counter() - t0
        process.wait(TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    try:
        result: dict[str, Any] = json.loads(line)
    except ValueError:
        raise SystemExit(f"first_start: the console printed no timing line: {line!r}") from None
    if not result.get("ok"):
        raise SystemExit(f"first_start: the console failed: {result.get('error')}")
    return seconds, dict(result["ms"]), dict(result.get("cpu_ms", {}))


def summary(name: str, runs: list[Run], target: float) -> None:
    seconds = [s for s, _, _ in runs]
    p50 = statistics.median(seconds)
    verdict = "ok" if p50 <= target else "over target"
    print(
        f"{name:<5} launch to first rows: p50 {p50:.2f} s, min {min(seconds):.2f} s,"
        f" max {max(seconds):.2f} s over {len(seconds)} runs (target <= {target:g} s: {verdict})"
    )
    steps: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for _, marks, used in runs:
        for step, ms in marks.items():
            steps.setdefault(step, []).append(ms)
        for process, ms in used.items():
            cpu.setdefault(process, []).append(ms)
    ordered = sorted(steps.items(), key=lambda item: statistics.median(item[1]))
    print(
        "      steps (p50, ms from launch): "
        + ", ".join(f"{step} {statistics.median(values):.0f}" for step, values in ordered)
    )
    if cpu:
        print(
            "      CPU to first rows (p50, ms): "
            + ", ".join(f"{p} {statistics.median(v):.0f}" for p, v in cpu.items())
        )


def compare_bundle(bundle: Path, runs: int) -> None:
    """Warm starts of the packaged console and of the source checkout, alternated in one run
    so that both meet the same machine: the bundle's p50 over the source's."""
    times: dict[str, list[Run]] = {"source": [], "bundle": []}
    programs = {"source": SOURCE, "bundle": [str(bundle)]}
    root = Path(tempfile.mkdtemp(prefix="lpwa-first-start-"))
    try:
        for name, program in programs.items():
            one_run(root / name, program)  # the database and byte code: not counted
        for _ in range(runs):
            for name, program in programs.items():
                times[name].append(one_run(root / name, program))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for name, runs_of in times.items():
        summary(name, runs_of, 1.5)
    ratio = statistics.median(s for s, _, _ in times["bundle"]) / statistics.median(
        s for s, _, _ in times["source"]
    )
    print(f"bundle / source, warm start p50: {ratio:.2f}x (target <= 1.2x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each kind (default 5)")
    parser.add_argument(
        "--bundle",
        type=Path,
        help="a packaged console (dist/lpwa-console/lpwa-console): its warm start beside the "
        "source checkout's",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start")
    if args.bundle is not None:
        compare_bundle(args.bundle, args.runs)
        return
    new: list[Run] = []
    warm: list[Run] = []
    root = Path(tempfile.mkdtemp(prefix="lpwa-first-start-"))
    try:
        one_run(root / "compile")  # writes the byte code a first run needs: not counted
        for index in range(args.runs):
            folder = root / f"run-{index}"
            new.append(one_run(folder))
            warm.append(one_run(folder))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    summary("new", new, 3.0)
    summary("warm", warm, 1.5)


if __name__ == "__main__":
    main()
