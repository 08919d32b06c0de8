"""The console's asyncio loop: qasync's, with one Qt timer for all of asyncio's callbacks.

qasync (0.28) gives every `call_soon` and `call_later` a Qt timer of its own, started and
killed on the UI thread, and each start and kill walks the thread's list of timers. A
cancelled asyncio timer (every finished HTTP request cancels its timeouts) keeps its Qt
timer until its deadline, so a sustained run of requests leaves thousands registered, and
every callback then pays for the walk: sending 500 offline edits back stalled the UI every
second by 60-120 ms, most of it in `QObject::killTimer` (py-spy, bench/field_offline.py).
Here callbacks wait in a queue and a heap, as in asyncio's own loop, behind one QTimer.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import time
from collections import deque
from typing import Any

import qasync
from PySide6.QtCore import QObject, Qt, QTimer

COMPACT_OVER = 512  # timers in the heap before the cancelled ones are swept out


class HeapTimer(QObject):
    """What qasync's loop asks of its `_timer`: `add_callback(handle, delay)`, `stop()`,
    `set_debug(enabled)`. The ready callbacks run in order, a batch per timer event (those
    added meanwhile wait for the next event, so Qt's own events come between)."""

    def __init__(self) -> None:
        super().__init__()
        self._ready: deque[asyncio.Handle] = deque()
        self._heap: list[tuple[float, int, asyncio.Handle]] = []
        self._order = itertools.count()
        self._stopped = False
        self._armed_for: float | None = None  # the deadline the QTimer is set for
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._fire)

    def add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        if self._stopped:
            return handle
        now = time.monotonic()
        if delay <= 0:
            self._ready.append(handle)
            self._arm(now, now)
        else:
            when = now + delay
            heapq.heappush(self._heap, (when, next(self._order), handle))
            self._arm(when, now)
        return handle

    def stop(self) -> None:
        self._stopped = True
        self._timer.stop()
        self._ready.clear()
        self._heap.clear()

    def set_debug(self, enabled: bool) -> None:
        """(qasync's debug timing of each callback is not kept: asyncio's own debug mode
        still reports slow callbacks through the loop.)"""

    @property
    def pending(self) -> int:
        """Callbacks waiting, cancelled ones included (for tests)."""
        return len(self._ready) + len(self._heap)

    def _arm(self, when: float, now: float) -> None:
        if self._armed_for is not None and self._armed_for <= when and self._timer.isActive():
            return  # set for sooner already
        self._armed_for = when
        self._timer.start(max(0, math.ceil((when - now) * 1000)))

    def _fire(self) -> None:
        self._armed_for = None
        if self._stopped:
            return
        now = time.monotonic()
        heap = self._heap
        while heap and heap[0][0] <= now:
            self._ready.append(heapq.heappop(heap)[2])
        try:
            for _ in range(len(self._ready)):
                handle = self._ready.popleft()
                if not handle._cancelled:
                    handle._run()  # (its errors go to the loop's exception handler)
        finally:  # what `_run` lets through (KeyboardInterrupt) leaves the rest armed
            self._after_batch()

    def _after_batch(self) -> None:
        if self._stopped:  # (the loop closed by one of the callbacks)
            return
        heap = self._heap
        if len(heap) > COMPACT_OVER:
            live = [entry for entry in heap if not entry[2]._cancelled]
            if len(live) < len(heap) // 2:
                heapq.heapify(live)
                self._heap = heap = live
        now = time.monotonic()
        if self._ready:
            self._arm(now, now)
        elif heap:
            self._arm(heap[0][0], now)


class ConsoleEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """qasync's loop with `HeapTimer` in place of its timer per callback."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer = HeapTimer()
