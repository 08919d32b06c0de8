"""Helpers for benchmarks: a seeded sandbox database kept between runs, and a server process."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"


def device_count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM devices").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def ensure_seeded(db: Path, devices: int, *, stations: int | None = None) -> float | None:
    """Seed up to `devices` (and `stations`, else the seed's one in a hundred devices);
    returns the seconds the seeding took, or None if already there."""
    have = device_count(db)
    if have >= devices:
        return None
    db.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "lpwa_console.sandbox",
            "seed",
            "--db",
            str(db),
            "--devices",
            str(devices - have),
            *(() if stations is None else ("--stations", str(stations))),
        ],
        check=True,
    )
    return time.perf_counter() - started


class Server:
    """`lpwa-sandbox serve` on a free loopback port; `extra` are more serve options (e.g.
    "--seed", "0" for a new database without demo devices). It stops with this process."""

    def __init__(
        self, db: Path, *extra: str, python: str = sys.executable,
        env: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        """`python` and `env` run another tree's code (a side-by-side bench: its PYTHONPATH
        in `env`)."""
        self.db = db
        self.process = subprocess.Popen(
            [
                python, "-m", "lpwa_console.sandbox", "serve", "--db", str(db),
                "--port", "0", "--exit-with-stdin", *extra,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=20)
            raise RuntimeError(f"the sandbox did not start on {db} (its errors are above)")
        info = json.loads(line)
        self.base_url: str = info["base_url"]
        self.token_url: str = info["token_url"]
        out = subprocess.run(
            [python, "-m", "lpwa_console.sandbox", "accounts", "--db", str(db), "--json"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        self.accounts: list[dict[str, Any]] = json.loads(out.stdout)

    def account(self, role: str = "subscriber") -> dict[str, Any]:
        return next(a for a in self.accounts if a["role"] == role)

    def stop(self) -> None:
        """Close its stdin (it exits on EOF, as the console stops its embedded sandbox), then
        terminate it if it is still there. (SIGTERM alone, with --exit-with-stdin, ends in
        "Fatal Python error: _enter_buffered_busy" from the stdin watcher at shutdown.)"""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait(timeout=20)
        if self.process.stdout is not None:
            self.process.stdout.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]
