"""The index's query thread: searches and the console's own edits run there, on a connection
of their own, so the UI thread never waits for SQLite (WAL: reads go on while a fill writes).
Results come back to the asking asyncio loop (the console's qasync loop)."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..tasks import run_for
from .store import IndexStore

T = TypeVar("T")
Job = tuple[Callable[[IndexStore], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


class QueryThread:
    """One daemon thread owning one `IndexStore`; `await call(fn)` runs `fn(store)` there."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="fleet-index", daemon=True)
        self._thread.start()

    async def call(self, fn: Callable[[IndexStore], T]) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, loop, future))
        return await future

    def close(self) -> None:
        """Finish the jobs asked for, then close the connection (without waiting here)."""
        self._jobs.put(None)

    def join(self, timeout: float = 10.0) -> None:
        self._thread.join(timeout)

    def _serve(self) -> None:
        store: IndexStore | None = None
        try:
            store = IndexStore(self.path)
        except Exception as exc:  # every job then fails with it
            opened: BaseException | None = exc
        else:
            opened = None
        while (job := self._jobs.get()) is not None:
            fn, loop, future = job
            run_for(loop, future, _with_store, store, opened, fn)
        if store is not None:
            store.close()


def _with_store(
    store: IndexStore | None, opened: BaseException | None, fn: Callable[[IndexStore], T]
) -> T:
    if store is None:
        assert opened is not None
        raise opened
    return fn(store)
