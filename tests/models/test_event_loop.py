"""The console's asyncio loop (models/event_loop.py): asyncio's callbacks behind one Qt
timer, in order, on time, and a cancelled timer costs nothing once swept."""

from __future__ import annotations

import asyncio
from typing import Any

from lpwa_console.models.event_loop import COMPACT_OVER, ConsoleEventLoop, HeapTimer


def test_callbacks_run_in_order_and_timers_when_due(qloop: Any, qtbot: Any) -> None:
    assert isinstance(qloop, ConsoleEventLoop)
    ran: list[str] = []
    qloop.call_later(0.05, ran.append, "later")
    qloop.call_soon(ran.append, "soon 1")
    qloop.call_soon(ran.append, "soon 2")
    cancelled = qloop.call_later(0.01, ran.append, "cancelled")
    cancelled.cancel()
    qtbot.waitUntil(lambda: "later" in ran, timeout=5000)
    qtbot.wait(50)
    assert ran == ["soon 1", "soon 2", "later"]


def test_a_coroutine_with_timeouts_and_sleeps_completes(qloop: Any, qtbot: Any) -> None:
    async def work() -> int:
        total = 0
        for n in range(20):
            async with asyncio.timeout(30):  # each one a timer, cancelled at once
                await asyncio.sleep(0.001)
                total += n
        return total

    task = qloop.create_task(work())
    qtbot.waitUntil(task.done, timeout=10_000)
    assert task.result() == sum(range(20))


def test_cancelled_timers_are_swept_not_kept(qloop: Any, qtbot: Any) -> None:
    """What every finished HTTP request leaves: its timeouts, cancelled; qasync kept a Qt
    timer for each until its deadline."""
    timer = qloop._timer
    assert isinstance(timer, HeapTimer)
    handles = [qloop.call_later(60, lambda: None) for _ in range(COMPACT_OVER * 2)]
    for handle in handles:
        handle.cancel()
    fired: list[bool] = []
    qloop.call_soon(fired.append, True)
    qtbot.waitUntil(lambda: bool(fired), timeout=5000)
    assert timer.pending < COMPACT_OVER
