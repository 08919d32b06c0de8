"""Measuring helpers for the benchmarks that drive the console: a qasync loop on an offscreen
QApplication, a 10 ms heartbeat that sees the worst event-loop stall, a paint watch, resident
memory, a signed-in client, and timed HTTP requests with a bearer token.

Qt is imported lazily (inside functions and class factories) so that server-only parts of a
benchmark do not pay for it, and QT_QPA_PLATFORM is set to offscreen before the first import.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import psutil

if TYPE_CHECKING:
    from _sandbox import Server
    from lpwa_console.api import LpwaClient

T = TypeVar("T")

_PROCESS = psutil.Process()


def rss_mb() -> float:
    """Resident memory of this process, in MiB."""
    return float(_PROCESS.memory_info().rss) / 2**20


# --- HTTP, outside the console -------------------------------------------------------------


def bearer_headers(http: httpx.Client, server: Server, role: str = "subscriber") -> dict[str, str]:
    """A token for one of the sandbox's demo accounts, as an Authorization header."""
    account = server.account(role)
    response = http.post(
        server.token_url,
        data={
            "grant_type": "client_credentials",
            "client_id": account["client_id"],
            "client_secret": account["client_secret"],
        },
    )
    response.raise_for_status()
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


def timed_get(
    http: httpx.Client, url: str, params: Mapping[str, str | int], headers: Mapping[str, str]
) -> tuple[float, Any]:
    """(milliseconds, JSON body) of one GET."""
    started = time.perf_counter()
    response = http.get(url, params=params, headers=headers)
    response.raise_for_status()
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, response.json()


# --- the console's loop ---------------------------------------------------------------------


def run_on_qt_loop(main: Callable[[], Awaitable[T]]) -> T:
    """Run `main()` on a qasync loop over an offscreen QApplication, as the console does."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    QApplication.setQuitOnLastWindowClosed(False)  # as the console: closing a dialog ends nothing
    from lpwa_console.models.event_loop import ConsoleEventLoop
    from lpwa_console.ui.idle_gc import IdleCollector

    IdleCollector(app)  # as the console: full collections wait for idle moments
    loop = ConsoleEventLoop(app)  # the console's loop
    asyncio.set_event_loop(loop)
    with loop:
        result: T = loop.run_until_complete(main())
    return result


async def signed_in_client(server: Server, role: str = "subscriber") -> LpwaClient:
    """The console's client on the sandbox, signed in already (a figure is the pane's, not
    the token's)."""
    from lpwa_console.api import Credentials, LpwaClient

    account = server.account(role)
    client = LpwaClient(
        server.base_url,
        Credentials(server.token_url, account["client_id"], account["client_secret"]),
    )
    await client.subscription.get()
    return client


async def wait_for(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll `predicate` every 2 ms on the loop; TimeoutError after `timeout` seconds."""
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("benchmark step did not finish in time")
        await asyncio.sleep(0.002)


class Heartbeat:
    """A 10 ms QTimer: the worst lateness of a beat is the worst event-loop stall.

    Stalls over `log_over_ms` are kept as (perf_counter at the late beat, ms) to tell phases
    apart. `worst_cpu_ms` is the CPU time the UI thread used between the two beats around the
    worst stall: near the stall itself, the loop was busy (work to find); far below it, the
    thread was waiting (for the GIL, or for a core on a loaded machine). `worst_busy_ms` is
    the most CPU the UI thread used between two beats: the worst stall its own work would
    make on an idle machine; `worst_busy_gc_ms` the part of it the cyclic garbage collector
    took (on the UI thread). With `stacks=True` a
    watchdog thread samples the UI thread's Python stack while a beat is late, to see what
    holds the loop (see `top_stacks`)."""

    INTERVAL_MS = 10

    def __init__(self, *, log_over_ms: float = 30.0, stacks: bool = False) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.worst_ms = 0.0
        self.worst_at = 0.0
        self.worst_cpu_ms = 0.0
        self.worst_busy_ms = 0.0
        self.worst_busy_gc_ms = 0.0
        self._gc_ms = 0.0
        self._gc_started = 0.0
        self.log_over_ms = log_over_ms
        self.stalls: list[tuple[float, float]] = []
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(self.INTERVAL_MS)
        self.timer.timeout.connect(self._beat)
        self._stacks = stacks
        self.samples: Counter[str] = Counter()
        self._watchdog: threading.Thread | None = None
        self._stop = threading.Event()
        self._ui_thread = threading.get_ident()

    def _beat(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        late = (now - self._last) * 1000 - self.INTERVAL_MS
        if late > self.worst_ms:
            self.worst_ms, self.worst_at = late, now
            self.worst_cpu_ms = (cpu - self._last_cpu) * 1000
        busy = (cpu - self._last_cpu) * 1000
        if busy > self.worst_busy_ms:
            self.worst_busy_ms, self.worst_busy_gc_ms = busy, self._gc_ms
        self._gc_ms = 0.0
        if late > self.log_over_ms:
            self.stalls.append((now, late))
        self._last, self._last_cpu = now, cpu

    def start(self) -> None:
        """(Re)start measuring: the worst stall so far is forgotten."""
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self.worst_ms = self.worst_cpu_ms = self.worst_busy_ms = self.worst_busy_gc_ms = 0.0
        self._gc_ms = 0.0
        if self._gc_callback not in gc.callbacks:
            gc.callbacks.append(self._gc_callback)
        self.timer.start()
        if self._stacks and self._watchdog is None:
            self._watchdog = threading.Thread(target=self._watch, name="stall-watch", daemon=True)
            self._watchdog.start()

    def stop(self) -> None:
        self.timer.stop()
        self._stop.set()
        if self._gc_callback in gc.callbacks:
            gc.callbacks.remove(self._gc_callback)

    def _gc_callback(self, phase: str, _info: dict[str, Any]) -> None:
        if threading.get_ident() != self._ui_thread:
            return
        if phase == "start":
            self._gc_started = time.thread_time()
        else:
            self._gc_ms += (time.thread_time() - self._gc_started) * 1000

    def worst_between(self, start: float, end: float) -> float:
        """The worst stall logged (over `log_over_ms`) whose late beat came in [start, end]."""
        return max((ms for at, ms in self.stalls if start <= at <= end), default=0.0)

    def _watch(self) -> None:
        threshold = (self.INTERVAL_MS + 20) / 1000
        while not self._stop.wait(0.005):
            if time.perf_counter() - self._last < threshold:
                continue
            frame = sys._current_frames().get(self._ui_thread)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)[-8:]
            self.samples[
                " <- ".join(
                    f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in reversed(stack)
                )
            ] += 1

    def top_stacks(self, n: int = 8) -> list[tuple[str, int]]:
        return self.samples.most_common(n)


def paint_watch() -> Any:
    """An event filter recording when a widget (a table's viewport) last painted:
    `watch = paint_watch(); viewport.installEventFilter(watch); watch.last_paint`."""
    from PySide6.QtCore import QEvent, QObject

    class PaintWatch(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.last_paint = 0.0
            self.paints = 0

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                self.last_paint = time.perf_counter()
                self.paints += 1
            return False

    return PaintWatch()


class RssPeak:
    """Samples resident memory every 50 ms on the loop; `peak_mb` is the highest seen."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.peak_mb = rss_mb()
        self.timer = QTimer()
        self.timer.setInterval(50)
        self.timer.timeout.connect(self.sample)

    def sample(self) -> None:
        self.peak_mb = max(self.peak_mb, rss_mb())

    def start(self) -> None:
        self.peak_mb = rss_mb()
        self.timer.start()

    def stop(self) -> None:
        self.sample()
        self.timer.stop()


class CpuShare:
    """CPU used during a phase by a process (the sandbox) and by the whole machine, to tell a
    stall from waiting for a core: `with CpuShare(pid) as share: ...; share.text()`, or
    start() and stop()."""

    def __init__(self, pid: int) -> None:
        self._process = psutil.Process(pid)
        self.process_s = 0.0
        self.machine_busy = 0.0
        self.wall_s = 0.0

    def start(self) -> CpuShare:
        times = self._process.cpu_times()
        self._process_start = times.user + times.system
        psutil.cpu_percent()  # starts the machine-wide measure
        self._wall_start = time.perf_counter()
        return self

    def stop(self) -> None:
        times = self._process.cpu_times()
        self.process_s = times.user + times.system - self._process_start
        self.machine_busy = psutil.cpu_percent()
        self.wall_s = time.perf_counter() - self._wall_start

    def __enter__(self) -> CpuShare:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def text(self) -> str:
        return (
            f"the sandbox used {self.process_s:.1f} s of CPU in {self.wall_s:.1f} s,"
            f" the machine's {psutil.cpu_count()} cores were {self.machine_busy:.0f}% busy"
        )


def as_user(widget: Any) -> None:
    """Send the mouse move a user's scroll comes with, so the console sees input (its idle
    garbage collector waits for a pause in input, as it would for a real user)."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    point = QPointF(5, 5)
    move = QMouseEvent(
        QEvent.Type.MouseMove, point, point, Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    QApplication.sendEvent(widget, move)
