"""Background work: coroutines run as asyncio tasks on the qasync loop, reported by signal."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from .errors import UserQuestion, user_message

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class TaskInfo:
    id: int
    name: str
    started: float = field(default_factory=time.monotonic)
    task: asyncio.Task[Any] | None = None

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started


@dataclass(frozen=True)
class TaskFailure:
    id: int
    name: str
    message: str
    when: float


class TaskRunner(QObject):
    """Starts coroutines, keeps the running ones and the recent failures.

    Signals carry the task id and its name; `failed` carries a sentence built from the typed
    API error, never a traceback.
    """

    started = Signal(int, str)  # id, name
    finished = Signal(int, str)  # id, name (success or cancel)
    failed = Signal(int, str, str)  # id, name, message
    busy_changed = Signal(bool)

    MAX_FAILURES = 50

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ids = itertools.count(1)
        self._running: dict[int, TaskInfo] = {}
        self.failures: list[TaskFailure] = []

    @property
    def running(self) -> list[TaskInfo]:
        return list(self._running.values())

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def run(
        self,
        name: str,
        coro: Coroutine[Any, Any, T],
        *,
        on_done: Callable[[T], None] | None = None,
        on_error: Callable[[BaseException, str], None] | None = None,
        quiet: bool = False,
    ) -> int:
        """Start `coro`; `on_done(result)` or `on_error(exc, message)` runs on the loop after.

        `quiet` tasks (e.g. one table page) still count as running but their failure is
        only reported through `on_error` and `failed`, not kept in the failure list.
        """
        task_id = next(self._ids)
        info = TaskInfo(task_id, name)
        wrapped = self._wrap(info, coro, on_done, on_error, quiet)
        try:
            task = asyncio.ensure_future(wrapped)
        except RuntimeError:
            # A Qt event after the loop has gone (the window closing at quit, a test's
            # teardown): nothing can run it; closed, so it is not "never awaited".
            log.debug("no event loop for %r: not started", name)
            wrapped.close()
            coro.close()
            return task_id
        was_busy = self.busy
        self._running[task_id] = info
        info.task = task
        info.task.add_done_callback(lambda _t: self._cancelled_before_start(info, coro))
        self.started.emit(task_id, name)
        if not was_busy:
            self.busy_changed.emit(True)
        return task_id

    async def _wrap(
        self,
        info: TaskInfo,
        coro: Coroutine[Any, Any, T],
        on_done: Callable[[T], None] | None,
        on_error: Callable[[BaseException, str], None] | None,
        quiet: bool,
    ) -> None:
        try:
            result = await coro
        except asyncio.CancelledError:
            self._end(info)
            self.finished.emit(info.id, info.name)
            raise
        except Exception as exc:  # every failure becomes a signal, the loop keeps going
            message = user_message(exc)
            log.info("task %r failed: %s", info.name, message)
            self._end(info)
            if not quiet and not isinstance(exc, UserQuestion):
                self.failures.append(TaskFailure(info.id, info.name, message, time.time()))
                del self.failures[: -self.MAX_FAILURES]
            self.failed.emit(info.id, info.name, message)
            if on_error is not None:
                on_error(exc, message)
            return
        self._end(info)
        self.finished.emit(info.id, info.name)
        if on_done is not None:
            on_done(result)

    async def track(self, name: str, awaitable: Awaitable[T], *, quiet: bool = True) -> T:
        """Await inside the current task, listed as running meanwhile (e.g. one table page).

        Errors are signalled and re-raised to the caller, who owns them.
        """
        info = TaskInfo(next(self._ids), name, task=None)
        was_busy = self.busy
        self._running[info.id] = info
        self.started.emit(info.id, name)
        if not was_busy:
            self.busy_changed.emit(True)
        try:
            result = await awaitable
        except asyncio.CancelledError:
            self._end(info)
            self.finished.emit(info.id, name)
            raise
        except Exception as exc:
            message = user_message(exc)
            self._end(info)
            if not quiet and not isinstance(exc, UserQuestion):
                self.failures.append(TaskFailure(info.id, name, message, time.time()))
            self.failed.emit(info.id, name, message)
            raise
        self._end(info)
        self.finished.emit(info.id, name)
        return result

    def _cancelled_before_start(self, info: TaskInfo, coro: Coroutine[Any, Any, Any]) -> None:
        # A task cancelled before its first step never ran _wrap: clean up here.
        if info.id in self._running:
            coro.close()
            self._end(info)
            self.finished.emit(info.id, info.name)

    def _end(self, info: TaskInfo) -> None:
        self._running.pop(info.id, None)
        if not self._running:
            self.busy_changed.emit(False)

    def cancel(self, task_id: int) -> bool:
        info = self._running.get(task_id)
        if info is None or info.task is None:
            return False
        return info.task.cancel()

    def cancel_all(self) -> None:
        for info in list(self._running.values()):
            if info.task is not None:
                info.task.cancel()

    def report(self, name: str, message: str) -> None:
        """A failure no task raised (e.g. the sandbox process stopped), listed with the
        others so the activity panel shows it."""
        failure = TaskFailure(next(self._ids), name, message, time.time())
        self.failures.append(failure)
        del self.failures[: -self.MAX_FAILURES]
        self.failed.emit(failure.id, name, message)

    def clear_failures(self) -> None:
        self.failures.clear()

    async def wait_idle(self) -> None:
        """For tests and shutdown: until no task runs."""
        while self._running:
            tasks = [i.task for i in self._running.values() if i.task is not None]
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
            else:
                await asyncio.sleep(0.01)


def deliver(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """Hand a worker thread's outcome to the task awaiting `future` (on the loop's thread,
    through `call_soon_threadsafe`); nothing when that task gave up (cancelled)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` in a daemon thread; the loop stays free meanwhile. (Not the loop's
    executor: qasync's thread pool outlives the tests and warns when Qt tears it down.)"""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    threading.Thread(
        target=run_for, args=(loop, future, fn, *args), name="lpwa-worker", daemon=True
    ).start()
    return await future


def run_for(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], fn: Callable[..., Any], *args: Any
) -> None:
    """In a worker thread: run `fn(*args)` and hand its result (or error) to `future`, a
    future of `loop` awaited there."""
    try:
        outcome: tuple[Any, BaseException | None] = (fn(*args), None)
    except BaseException as exc:  # handed to the awaiting task
        outcome = (None, exc)
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
        loop.call_soon_threadsafe(deliver, future, *outcome)
