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


def ensure_seeded(db: Path, devices: int) -> float | None:
    """Seed up to `devices`; returns the seconds the seeding took, or None if already there."""
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
        ],
        check=True,
    )
    return time.perf_counter() - started


class Server:
    def __init__(self, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lpwa_console.sandbox", "serve", "--db", str(db), "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        info = json.loads(self.process.stdout.readline())
        self.base_url: str = info["base_url"]
        self.token_url: str = info["token_url"]
        out = subprocess.run(
            [sys.executable, "-m", "lpwa_console.sandbox", "accounts", "--db", str(db), "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        self.accounts: list[dict[str, Any]] = json.loads(out.stdout)

    def account(self, role: str = "subscriber") -> dict[str, Any]:
        return next(a for a in self.accounts if a["role"] == role)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]
