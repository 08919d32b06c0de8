"""`--time-first-rows`: the milliseconds from launch to each step of a start as the user's
(bench/first_start.py), and the CPU each process used, on one JSON line."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from ..console import Console
from ..ui.pane import pane_of
from .connecting import connect_opened


async def time_first_rows(console: Console, launched_at: float | None) -> int:
    """The steps up to the first device rows painted; the console is already opening its
    profile, as on any start."""
    t0 = launched_at if launched_at is not None else time.perf_counter()
    steps: dict[str, float] = {}

    def mark(name: str) -> None:
        steps.setdefault(name, round((time.perf_counter() - t0) * 1000, 1))

    mark("window_shown")
    console.embedded.phase.connect(lambda phase: mark(f"sandbox_{phase}"))
    console.embedded.ready.connect(lambda _info: mark("sandbox_ready"))
    result: dict[str, Any] = {"ok": False}
    try:
        await connect_opened(console)
        mark("connected")
        devices = pane_of(console.panes["devices"])
        if devices is not None:
            await devices.first_page()
        mark("first_rows")
        result["cpu_ms"] = cpu_ms(console)
        result["ok"] = True
    except Exception as exc:
        result["error"] = str(exc) or type(exc).__name__
    result["ms"] = steps
    print(json.dumps(result), flush=True)
    return 0 if result["ok"] else 1


def cpu_ms(console: Console) -> dict[str, int]:
    """The CPU time (user + system, ms) each process has used so far: the console's, and the
    embedded sandbox's where the system says (Linux's /proc). On a busy machine the time
    from launch varies with the other work; these do much less."""
    out = {"console": round(time.process_time() * 1000)}
    pid = console.embedded.process_id
    if pid is not None:
        try:
            # After the command's name: state is field 3, utime 14, stime 15 (in clock ticks).
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])
            out["sandbox"] = round(ticks * 1000 / os.sysconf("SC_CLK_TCK"))
        except (OSError, ValueError, IndexError, AttributeError):
            pass  # not Linux, or the process is gone
    return out
