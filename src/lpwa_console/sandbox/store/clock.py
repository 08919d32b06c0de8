"""The sandbox's time, in epoch milliseconds: the wall clock, and the network's (the
simulator's clock when a sped-up simulation runs ahead of the wall clock)."""

from __future__ import annotations

import sqlite3
import time


def now_ms() -> int:
    return int(time.time() * 1000)


def network_now(conn: sqlite3.Connection) -> int:
    """The network's now: the simulator's clock when it ran ahead of real time, which the
    devices' and stations' timestamps follow."""
    row = conn.execute("SELECT value FROM sim_state WHERE key = 'clock_ms'").fetchone()
    real = now_ms()
    return max(real, int(row[0])) if row else real
