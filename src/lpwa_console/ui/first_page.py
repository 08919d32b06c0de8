"""Waiting for what a pane asked for, for the diagnostics (`Pane.first_page`): a signal, a
list model's first page. On the event loop, never blocking it."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import SignalInstance

if TYPE_CHECKING:
    from ..models.paged_table import PagedTableModel

FIRST_PAGE_TIMEOUT_S = 10.0


async def wait_signal(signal: SignalInstance, timeout: float) -> tuple[Any, ...]:
    """The arguments of the signal's next emission (asyncio.TimeoutError after `timeout`)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[Any, ...]] = loop.create_future()

    def fire(*args: Any) -> None:
        if not future.done():
            future.set_result(args)

    signal.connect(fire)
    try:
        return await asyncio.wait_for(future, timeout)
    finally:
        signal.disconnect(fire)


async def first_page_of(name: str, model: PagedTableModel[Any]) -> dict[str, Any]:
    """Wait until a list model has its first page (or its error, raised as `name: ...`, or
    the reason the platform does not offer it: then that is the answer)."""
    t0 = time.perf_counter()
    if model.not_offered_reason:
        return {"not_offered": model.not_offered_reason}
    if 0 not in model.loaded_pages():
        error = asyncio.ensure_future(wait_signal(model.error, FIRST_PAGE_TIMEOUT_S))
        page = asyncio.ensure_future(wait_signal(model.first_page_loaded, FIRST_PAGE_TIMEOUT_S))
        lacking = asyncio.ensure_future(wait_signal(model.not_offered, FIRST_PAGE_TIMEOUT_S))
        done, pending = await asyncio.wait(
            {error, page, lacking},
            timeout=FIRST_PAGE_TIMEOUT_S,
            return_when=asyncio.FIRST_COMPLETED,
        )
        for task in pending:
            task.cancel()
        if error in done:
            raise RuntimeError(f"{name}: {error.result()[0]}")
        if lacking in done:
            return {"not_offered": lacking.result()[0]}
        if page not in done and 0 not in model.loaded_pages():
            raise RuntimeError(f"{name}: no first page after {FIRST_PAGE_TIMEOUT_S:.0f} s")
    return {"first_page_ms": round((time.perf_counter() - t0) * 1000, 1), "rows": model.rowCount()}
