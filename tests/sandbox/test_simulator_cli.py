"""`serve --simulate`: the living network runs in the background of a real server."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from .test_cli import _start


def _clock(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM sim_state WHERE key = 'clock_ms'").fetchone()
    return int(row[0]) if row else 0


def test_serve_simulate_advances_the_network(tmp_path: Path) -> None:
    db = tmp_path / "sim.db"
    args = ("--exit-with-stdin", "--simulate", "--speed", "36000", "--sim-seed", "5")
    process, _ = _start(db, *args)
    try:
        # The simulator starts once every route is in, a moment after the ready line.
        while not _clock(db):
            time.sleep(0.05)
        first = _clock(db)
        # An hour of simulated time: about 0.1 s here, however long a loaded machine needs
        # (pytest-timeout bounds the wait).
        while _clock(db) - first < 3_600_000:
            time.sleep(0.1)
    finally:
        assert process.stdin is not None
        process.stdin.close()  # its end stops the sandbox, on every OS (no SIGTERM)
        process.wait(timeout=15)
    assert process.returncode == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM frame_buckets").fetchone()[0] > 0
