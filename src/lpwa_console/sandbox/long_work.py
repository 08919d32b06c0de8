"""Long work (imports, catalog installs) off the request thread.

`serve` runs requests on one thread (cli.REQUEST_THREADS): a 10-second import there held
every other client's read for 10 seconds. `off_request` runs the work on a worker thread
of its own lane (its own SQLite connection: `Database.conn` is per thread) while the route
awaits it on the event loop, so the request thread keeps serving; the two take turns on
the GIL every few milliseconds. Long jobs share one lane (LONG_WORK_THREADS): two imports
at once would only queue on SQLite's write lock anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import Request

T = TypeVar("T")
LONG_WORK_THREADS = 1


def _lane(request: Request) -> CapacityLimiter:
    state = request.app.state
    lane: CapacityLimiter | None = getattr(state, "long_work_lane", None)
    if lane is None:  # made on the event loop, as anyio wants
        lane = state.long_work_lane = CapacityLimiter(LONG_WORK_THREADS)
    return lane


async def off_request(request: Request, work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` on the long-work lane, awaited without holding a request thread."""
    return await anyio.to_thread.run_sync(work, *args, limiter=_lane(request))


def let_requests_in() -> None:
    """Hand the GIL over for a moment (called every few rows by long work): a request
    takes and drops the GIL at each SQLite call and socket write, and each time it would
    otherwise wait up to the interpreter's switch interval (5 ms) for the long work to
    let go of it; tens of such waits made a 20 ms read 500 ms."""
    time.sleep(0)
