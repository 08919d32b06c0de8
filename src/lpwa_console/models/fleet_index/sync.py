"""Filling and refreshing the index over the API client: `SyncThread.run()` on an asyncio
loop of its own, with its own client signed in with the same credentials and its own
connection. The console runs it in a process of its own (`child`, started by
`process.SyncProcess`), or in a thread (`SyncThread.start()`: tests that inject faults into
the client); either way the console's loop only receives progress.

A full pass walks what the account may see: application servers and multicast groups by
page index (a few), base stations by lrrID cursor, devices by DevEUI cursor, 1,000 a page
(the platform's largest). Each page and the cursor after it are written in one transaction,
so a pass stopped (paused, the console closed, a crash) goes on after the last page written.
A pass marks what it saw; at its end, what it did not see is deleted (gone on the platform).

A refresh asks only what the list API can tell cheaply (it has no "changed since" filter):
  - devices and stations created since the newest one known (sort=creationDate desc),
  - devices with an uplink since the last refresh (sort=lastUpTimestamp desc; health, last
    uplink), stations likewise by lastUpFrameDate,
  - the counts (with those first pages): fewer on the platform than here means deletions,
    more than the new ones explain means changes we cannot see: both start a full pass,
  - multicast groups and application servers again in full (a page or two).
Renames, tags and positions changed outside this console, and health changes without an
uplink, are only seen by a full pass, made every `full_every_s` (6 h by default). Edits made
in this console are written at once by `FleetIndex.follow_*`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...api.errors import APIError, NotFoundError, PermissionDeniedError
from ...api.resources.devices import BASE as DEVICES_PATH
from ..errors import user_message
from .items import wire_app_server, wire_device, wire_multicast, wire_station
from .progress import (
    DEFAULT_SETTINGS,
    MAX_REFRESH_PAGES,
    RefreshCost,
    SyncProgress,
    SyncSettings,
    SyncState,
)
from .store import IndexItem, IndexStore, Kind, now_ms
from .wire import read_page

if TYPE_CHECKING:
    from ...api import LpwaClient

log = logging.getLogger(__name__)

PASS_ORDER: tuple[Kind, ...] = ("app_server", "multicast", "station", "device")
INDEXING = "search"  # pass.kind once every kind is walked and the search indexes are built
Report = Callable[[SyncProgress], None]


class SyncThread:
    """Fills, then refreshes every `refresh_every_s`, until stopped. `pause()` stops after
    the page being written (remembered in the file: a restart stays paused). `on_cost`
    hears what each refresh asked."""

    def __init__(
        self,
        path: Path,
        make_client: Callable[[], LpwaClient],
        report: Report,
        settings: SyncSettings = DEFAULT_SETTINGS,
        on_cost: Callable[[RefreshCost], None] | None = None,
    ) -> None:
        self.path, self.make_client, self.report = path, make_client, report
        self.settings, self.on_cost = settings, on_cost
        self.page_size = settings.page_size
        self._stop, self._paused, self._wake = (
            threading.Event(),
            threading.Event(),
            threading.Event(),
        )
        # A refresh asked for (or a full pass found due) while one ran: not lost to the
        # wait's clearing of `_wake`.
        self._due = threading.Event()
        self._thread = threading.Thread(target=self.run, name="fleet-index-sync", daemon=True)
        self.last_cost = RefreshCost()

    def start(self) -> None:
        """Run in a thread of this process (the child process calls `run` instead)."""
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def abandon(self) -> None:
        """At quit: a daemon thread still writing ends with the process."""

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def join(self, timeout: float = 10.0) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout)

    def pause(self) -> None:
        self._paused.set()

    def resume(self) -> None:
        self._paused.clear()
        self._wake.set()

    def refresh_now(self) -> None:
        self._due.set()
        self._wake.set()

    @property
    def paused(self) -> bool:
        return self._paused.is_set()

    # --- the thread ---------------------------------------------------------------------

    def run(self) -> None:
        """Sync until `stop()`, in the calling thread."""
        try:
            asyncio.run(self._run())
        except Exception:  # the file could not be opened (its folder deleted...): say so
            log.warning("fleet index sync stopped", exc_info=True)
            self.report(SyncProgress("failed", message="Fleet index: could not be opened"))

    async def _run(self) -> None:
        store = IndexStore(self.path)
        try:
            if store.get("paused") == "1":
                self._paused.set()
            # What the file holds already (a restart): searches may use it at once.
            self._say(store, "paused" if self._paused.is_set() else "ready")
            client = self.make_client()
            try:
                await self._loop(store, client)
            finally:
                await client.aclose()
        finally:
            store.close()

    async def _loop(self, store: IndexStore, client: LpwaClient) -> None:
        while not self._stop.is_set():
            try:
                await self._wait_unpaused(store)
                if self._stop.is_set():
                    return
                full_at = int(store.get("pass.at", "0"))
                due = (now_ms() - full_at) / 1000 > self.settings.full_every_s
                if store.get("pass.kind") or store.get("built") != "1" or due:
                    await self._full_pass(store, client)
                else:
                    await self._refresh(store, client)
            except _Stopped:
                return
            except _Paused:
                continue
            except APIError as exc:
                self._say(store, "failed", message=f"Fleet index: {user_message(exc)}")
            except (sqlite3.Error, OSError, ValueError, KeyError) as exc:
                # A damaged answer or file: said, logged, tried again at the next refresh.
                log.warning("fleet index sync failed", exc_info=True)
                self._say(store, "failed", message=f"Fleet index: {exc}")
            # Cleared, then looked at: a stop or a refresh asked for before the clearing
            # is seen here, one after it ends the wait.
            self._wake.clear()
            if not self._stop.is_set() and not self._due.is_set():
                self._wake.wait(self.settings.refresh_every_s)
            self._due.clear()

    async def _wait_unpaused(self, store: IndexStore) -> None:
        if not self._paused.is_set():
            if store.get("paused") == "1":
                store.set_many({"paused": "0"})
            return
        store.set_many({"paused": "1"})
        self._say(store, "paused")
        while self._paused.is_set() and not self._stop.is_set():
            await asyncio.to_thread(self._wake.wait, 0.5)
            self._wake.clear()
        if not self._paused.is_set():  # resumed (stopped while paused: still paused)
            store.set_many({"paused": "0"})

    def _check(self) -> None:
        if self._stop.is_set():
            raise _Stopped
        if self._paused.is_set():
            raise _Paused

    def _say(
        self, store: IndexStore, state: SyncState, done: int | None = None, **more: Any
    ) -> None:
        """Report; `done` given during a walk (counting a million rows each page would not
        be cheap)."""
        if done is None:
            counts = store.counts()
            done = counts.get("device", 0) + counts.get("station", 0)
        total = int(store.get("total.device", "0") or 0) + int(store.get("total.station", "0") or 0)
        self.report(
            SyncProgress(
                state,
                done=done,
                total=total,
                built=store.get("built") == "1",
                refreshed_at=int(store.get("refreshed_at", "0") or 0),
                **more,
            )
        )

    # --- a full pass --------------------------------------------------------------------

    async def _full_pass(self, store: IndexStore, client: LpwaClient) -> None:
        kind = store.get("pass.kind")
        if not kind:  # a new pass (else: go on with the one stopped)
            number = int(store.get("pass", "0")) + 1
            store.set_many(
                {"pass": str(number), "pass.kind": PASS_ORDER[0], "pass.cursor": "",
                 "pass.started": str(now_ms())}
            )  # fmt: skip
        number = int(store.get("pass"))
        state: SyncState = "filling" if store.get("built") != "1" else "refreshing"
        if state == "filling" and not store.bulk:
            await asyncio.to_thread(store.begin_bulk)
        walk_from = store.get("pass.kind")
        kinds = PASS_ORDER[PASS_ORDER.index(walk_from) :] if walk_from in PASS_ORDER else ()
        for kind in kinds:
            self._say(store, state, kind=kind)
            await self._walk(store, client, kind, number, state)
            # In short transactions: the console's edits get in between.
            await asyncio.to_thread(store.sweep, kind, number)
            following = PASS_ORDER.index(kind) + 1
            after: str = PASS_ORDER[following] if following < len(PASS_ORDER) else ""
            if not after and store.bulk:
                after = INDEXING  # a stop meanwhile goes on with the search indexes
            store.set_many({"pass.kind": after, "pass.cursor": ""})
        if store.bulk:  # the first fill loaded: the search indexes built over its rows
            self._say(store, state, message="Indexing the fleet for search")
            await asyncio.to_thread(store.end_bulk, self._check)
        started = store.get("pass.started", str(now_ms()))
        store.set_many({"built": "1", "pass.at": started, "refreshed_at": started, "pass.kind": ""})
        self._say(store, "ready")

    async def _walk(
        self, store: IndexStore, client: LpwaClient, kind: Kind, number: int, state: SyncState
    ) -> None:
        """One kind, page after page, each written (with the cursor after it) while the next
        is asked for. The store is touched by one thread at a time: the writing thread
        between `ensure_future` and `await writing`, this one otherwise."""
        convert = CONVERT[kind]
        sort = CURSOR_SORT.get(kind)  # None: a few pages by index
        cursor: str | None = store.get("pass.cursor") or None
        index = 1
        counts = store.counts()  # once: then counted as written
        done = counts.get("device", 0) + counts.get("station", 0)
        totals = {k: int(store.get(f"total.{k}", "0") or 0) for k in ("device", "station")}
        built = store.get("built") == "1"
        refreshed_at = int(store.get("refreshed_at", "0") or 0)
        writing: asyncio.Future[None] | None = None

        def ask(at: str | None, page_index: int) -> asyncio.Future[bytes]:
            query = PageQuery(kind, self.page_size, page_index, at, sort)
            return asyncio.ensure_future(fetch_raw(client, query))

        pending = ask(cursor, index)
        try:
            while True:
                self._check()
                try:
                    answer = await pending
                except (PermissionDeniedError, NotFoundError):
                    return  # the account may not see this kind: nothing of it to index
                # By cursor the next page is asked for while this one is read, with the
                # cursor read from the answer's end; by index, once this one said "more".
                ahead = peek_cursor(answer) if sort else None
                if ahead is not None:
                    pending = ask(ahead, 1)
                page = await asyncio.to_thread(parse_page, answer)
                following = page.next_cursor if sort else None
                if following != ahead:  # not where it was looked for
                    if ahead is not None:
                        pending.cancel()
                    if following:
                        pending = ask(following, 1)
                if not sort and page.more and page.briefs:
                    pending = ask(None, index + 1)
                values = {}
                if cursor is None and index == 1 and page.count is not None:
                    values[f"total.{kind}"] = str(page.count)
                    totals[kind] = page.count
                items = await asyncio.to_thread(_convert_all, convert, page.briefs)
                cursor = following
                index += 1
                last = not page.briefs or (not cursor if sort else not page.more)
                if writing is not None:
                    await writing
                values["pass.cursor"] = cursor or ""
                writing = asyncio.ensure_future(
                    asyncio.to_thread(store.write_page, items, full_pass=number, state=values)
                )
                if last:
                    return
                if kind in ("device", "station"):
                    done += len(items)
                    total = totals["device"] + totals["station"]
                    self.report(SyncProgress(state, kind, done, total, built, refreshed_at))
        finally:
            if not pending.done():
                pending.cancel()
            if writing is not None:
                await writing

    # --- a refresh ----------------------------------------------------------------------

    async def _refresh(self, store: IndexStore, client: LpwaClient) -> None:
        started, t0 = now_ms(), time.perf_counter()
        cost = RefreshCost()
        self._say(store, "ready", kind=None)
        since = int(store.get("refreshed_at", "0") or 0)
        big: tuple[Kind, ...] = ("device", "station")
        for kind in big:
            self._check()
            total = await self._newest(store, client, kind, cost)
            await self._recent(store, client, kind, since, cost)
            have = store.counts().get(kind, 0)
            if total is not None and total != have:
                cost.reasons.append(f"{kind}s: {total} on the platform, {have} here")
                cost.full_pass = True
            if total is not None:
                store.set_many({f"total.{kind}": str(total)})
        small: tuple[Kind, ...] = ("app_server", "multicast")
        for kind in small:
            await self._small_pass(store, client, kind, cost)
        cost.seconds = time.perf_counter() - t0
        self.last_cost = cost
        if self.on_cost is not None:
            self.on_cost(cost)
        values = {"refresh.cost": json.dumps(cost.__dict__)}
        if cost.full_pass:
            values["pass.at"] = "0"  # due now
        else:
            values["refreshed_at"] = str(started)
        store.set_many(values)
        self._say(store, "ready")
        if cost.full_pass:
            self._due.set()

    async def _newest(
        self, store: IndexStore, client: LpwaClient, kind: Kind, cost: RefreshCost
    ) -> int | None:
        """Items created since the newest one here; returns the platform's count."""
        newest = store.max_of(kind, "created") or 0
        total, _all = await self._newest_first(store, client, kind, "creationDate", newest, cost)
        return total

    async def _recent(
        self, store: IndexStore, client: LpwaClient, kind: Kind, since: int, cost: RefreshCost
    ) -> None:
        """Items with an uplink since the last refresh (their health and last uplink)."""
        column = "lastUpTimestamp" if kind == "device" else "lastUpFrameDate"
        _total, complete = await self._newest_first(store, client, kind, column, since - 1, cost)
        if not complete:
            cost.reasons.append(f"more than {MAX_REFRESH_PAGES} pages of {kind} uplinks")
            cost.full_pass = True

    async def _newest_first(
        self,
        store: IndexStore,
        client: LpwaClient,
        kind: Kind,
        column: str,
        after: int,
        cost: RefreshCost,
    ) -> tuple[int | None, bool]:
        """The items whose `column` is past `after`, newest first, page after page until
        one has older ones: written; returns (the platform's count, all of them seen)."""
        convert = CONVERT[kind]
        total: int | None = None
        for index in range(1, MAX_REFRESH_PAGES + 1):
            self._check()
            query = PageQuery(kind, self.page_size, index, sort=column, descending=True)
            page = await fetch_page(client, query)
            cost.requests += 1
            if index == 1:
                total = page.count
            fresh = [convert(b) for b in page.briefs if (b.get(column) or 0) > after]
            if fresh:
                await asyncio.to_thread(store.write_page, fresh)
                cost.items += len(fresh)
            if len(fresh) < len(page.briefs) or not page.more:
                return total, True
        return total, False

    async def _small_pass(
        self, store: IndexStore, client: LpwaClient, kind: Kind, cost: RefreshCost
    ) -> None:
        convert = CONVERT[kind]
        seen: list[IndexItem] = []
        for index in range(1, MAX_REFRESH_PAGES + 1):
            try:
                page = await fetch_page(client, PageQuery(kind, self.page_size, index))
            except (PermissionDeniedError, NotFoundError):
                return
            cost.requests += 1
            seen += [convert(b) for b in page.briefs]
            if not page.more or not page.briefs:
                break
        number = int(store.get("pass", "0"))
        await asyncio.to_thread(store.write_page, seen, full_pass=number)
        await asyncio.to_thread(store.sweep, kind, number)


class _Stopped(Exception):
    pass


class _Paused(Exception):
    pass


@dataclass
class WirePage:
    """A list page as read by `wire.read_page`: the briefs stay JSON objects (dicts)."""

    briefs: list[dict[str, Any]]
    count: int | None
    more: bool
    next_cursor: str | None


def list_path(kind: Kind) -> str:
    """The list's path, as the API client's resources name it (imported when first walked:
    the multicast and application server schemas are not needed at start)."""
    if kind == "device":
        return DEVICES_PATH
    if kind == "station":
        from ...api.resources.partners import MINE, partner_path

        return f"{partner_path(MINE)}/bss"
    if kind == "multicast":
        from ...api.resources.multicast import BASE as MULTICAST_PATH

        return MULTICAST_PATH
    from ...api.resources.app_servers import BASE as APP_SERVERS_PATH

    return APP_SERVERS_PATH


CONVERT: dict[Kind, Callable[[dict[str, Any]], IndexItem]] = {
    "device": wire_device,
    "station": wire_station,
    "multicast": wire_multicast,
    "app_server": wire_app_server,
}
CURSOR_SORT: dict[Kind, str] = {"device": "EUI", "station": "lrrID"}


@dataclass(frozen=True)
class PageQuery:
    """One list page: by page index, or after a cursor (the sort's last key seen)."""

    kind: Kind
    size: int
    index: int = 1
    cursor: str | None = None
    sort: str | None = None
    descending: bool = False

    def params(self) -> list[tuple[str, str]]:
        params = [("pageIndex", str(self.index)), ("pageSize", str(self.size))]
        if self.sort:
            params.append(("sort", f"{self.sort},{'desc' if self.descending else 'asc'}"))
        if self.cursor:
            params.append(("pageAfter", self.cursor))
        return params


async def fetch_raw(client: LpwaClient, query: PageQuery) -> bytes:
    """One page through the client (its token, retries and errors), unread."""
    response = await client.request("GET", list_path(query.kind), params=query.params())
    return response.content


async def fetch_page(client: LpwaClient, query: PageQuery) -> WirePage:
    """One page, read item by item (off the loop's thread)."""
    return await asyncio.to_thread(parse_page, await fetch_raw(client, query))


def _convert_all(
    convert: Callable[[dict[str, Any]], IndexItem], briefs: list[dict[str, Any]]
) -> list[IndexItem]:
    return [convert(brief) for brief in briefs]


def parse_page(content: bytes) -> WirePage:
    data = read_page(content)
    cursors = data.get("cursors") or {}
    return WirePage(
        list(data.get("briefs") or []),
        data.get("count"),
        bool(data.get("more")),
        cursors.get("last") if isinstance(cursors, dict) else None,
    )


_CURSOR = re.compile(rb'"cursors"\s*:\s*\{\s*"last"\s*:\s*"([^"\\]+)"')


def peek_cursor(content: bytes) -> str | None:
    """The next page's cursor, read from the end of the answer (where the platform puts
    it) without reading the rest: the next page is asked for while this one is read."""
    found = _CURSOR.search(content, max(0, len(content) - 400))
    return found.group(1).decode() if found else None
