"""Every garbage collection on the UI thread; the full ones while the user is idle.

Only the UI thread collects: CPython collects in whichever thread allocates, and a worker
thread's collection (the fleet index decoding pages, an import) that frees a Qt wrapper
caught in a cycle disconnects its signals there, taking Qt's connection lock and then
waiting for the GIL, while the UI thread holds the GIL and waits for that lock (seen as a
hung test suite, 2026-11-27). So automatic collection is off (`gc.disable`), and the young
generations are collected by a timer on the UI thread (every YOUNG_MS, when enough objects
were made): they stay as cheap and as frequent as CPython's own.

A console holding a few hundred thousand objects (pages of devices and alarms, Qt wrappers)
pays 50-100 ms for a full (oldest generation) collection, and CPython starts one whenever
enough objects survived: during a fast scroll that is a visible stall (measured by the
alarms benchmark). Young collections stay automatic; the full one is moved to a moment with
no user input for a few seconds and no task of the console running (a sync the user
watches is not idle: a 377 ms collection fell in one, bench/field_offline.py), at most once
a minute, or forced after a long busy spell.

What start-up made (modules, classes, the window and its panes: most of the objects, and
alive until the end) is frozen at the first tick, once the event loop runs (`gc.freeze`:
moved out of the collected generations, so a full collection no longer walks them: it was
150-190 ms during a snapshot, docs/architecture.md). The survivors of each full collection
are frozen the same way, so the next one walks only what came since (panes made later, a
snapshot's work); every THAW_EVERY-th full collection unfreezes all first and walks
everything, so a cycle among frozen objects that became garbage is reclaimed then (a delay,
not a leak; an object without a cycle is freed at once, frozen or not).
"""

from __future__ import annotations

import gc
import time
import weakref
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

# Young and middle generations as CPython sets them (small, cheap); oldest: never by count.
THRESHOLDS = (700, 10, 1_000_000)
YOUNG_MS = 100  # the UI thread's young collections: at most this long after the threshold
THAW_EVERY = 10  # full collections: the tenth walks every object again (at most 1 in 10 min)
INPUT_EVENTS = frozenset(
    {
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
        QEvent.Type.KeyPress,
        QEvent.Type.TouchUpdate,
    }
)


class Busy(Protocol):
    @property
    def busy(self) -> bool: ...


class IdleCollector(QObject):
    def __init__(
        self,
        app: QApplication,
        *,
        idle_s: float = 3.0,
        every_s: float = 60.0,
        at_most_s: float = 600.0,
    ) -> None:
        super().__init__(app)
        self.idle_s, self.every_s, self.at_most_s = idle_s, every_s, at_most_s
        self.last_input = time.monotonic()
        self.last_collect = time.monotonic()
        self.collections = 0
        self.frozen = 0  # objects start-up made, frozen at the first tick
        self.working: list[weakref.ref[Busy]] = []  # while one of them is busy: not idle
        self._previous = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        gc.set_threshold(*THRESHOLDS)
        gc.disable()  # no thread collects by itself: the timers below do, on this one
        app.installEventFilter(self)
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        self.young = QTimer(self)
        self.young.setInterval(YOUNG_MS)
        self.young.timeout.connect(self.collect_young)
        self.young.start()

    def collect_young(self) -> None:
        """The young and middle generations, as CPython would have (by the count of
        objects made since), but here on the UI thread."""
        if gc.get_count()[0] >= THRESHOLDS[0]:
            gc.collect(1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in INPUT_EVENTS:
            self.last_input = time.monotonic()
        return False

    def tick(self) -> None:
        if not self.frozen:
            self.freeze_start_up()
        now = time.monotonic()
        since = now - self.last_collect
        idle = now - self.last_input >= self.idle_s and not self.someone_busy()
        if (idle and since >= self.every_s) or since >= self.at_most_s:
            if self.collections % THAW_EVERY == THAW_EVERY - 1:
                gc.unfreeze()  # everything walked: frozen cycles that became garbage go
            gc.collect()
            gc.freeze()  # the survivors: the next full collection walks only what is new
            self.collections += 1
            self.last_collect = time.monotonic()

    def someone_busy(self) -> bool:
        self.working = [ref for ref in self.working if ref() is not None]
        return any(getattr(ref(), "busy", False) for ref in self.working)

    def freeze_start_up(self) -> None:
        """Start-up's objects out of the collections (a list splice: no walk, no stall)."""
        gc.freeze()
        self.frozen = max(gc.get_freeze_count(), 1)

    def uninstall(self) -> None:
        self.timer.stop()
        self.young.stop()
        if self._was_enabled:
            gc.enable()
        if self.frozen:
            gc.unfreeze()  # back in the oldest generation: collected as before
            self.frozen = 0
        gc.set_threshold(*self._previous)
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)


def not_idle_while(app: QObject, worker: Busy) -> None:
    """Full collections also wait while `worker.busy` (the console's task runner), held
    weakly (a console closed is forgotten); the longest wait stays `at_most_s`."""
    for collector in app.findChildren(IdleCollector):
        collector.working.append(weakref.ref(worker))
