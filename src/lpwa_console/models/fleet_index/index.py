"""`FleetIndex`: the console's handle on the local index of the account signed in (one
SQLite file per profile and account under `<data folder>/fleet-index/`). It starts the sync
after sign-in, says its progress, pauses and resumes, searches, follows the console's edits,
and deletes a profile's files with the profile. Every SQLite call runs off the UI thread."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal

from ..tasks import in_thread
from .items import device_item, station_item
from .progress import DEFAULT_SETTINGS, RefreshCost, SyncProgress
from .search import rank, words_of
from .store import KINDS, IndexItem, IndexStore, Kind
from .worker import QueryThread

if TYPE_CHECKING:
    from ...api import LpwaClient
    from .process import SyncRunner
    from .progress import SyncSettings
    from .protocol import SignIn

    # How the sync signs in: a `SignIn` (the sync runs in a process of its own), or a
    # factory of signed-in clients (in a thread of this process: fault injection in tests).
    SyncSource = SignIn | Callable[[], LpwaClient]

log = logging.getLogger(__name__)

FOLDER = "fleet-index"
STALE_AFTER_S = 5 * 60  # results say how old the index is past this
CANDIDATES = 200  # rows per kind of match the ranking looks at


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def index_path(data_dir: Path, profile: str, account: str) -> Path:
    """`<data>/fleet-index/<profile digest>-<account digest>.sqlite`: names in the file
    name would need escaping, and a digest says nothing of the account to a passer-by."""
    return data_dir / FOLDER / f"{_digest(profile)}-{_digest(account)}.sqlite"


def clock_text(ms: int) -> str:
    return time.strftime("%H:%M", time.localtime(ms / 1000))


class FleetIndex(QObject):
    """The index of the account signed in (or none).

    `progress_changed(SyncProgress)` on the UI thread; `ready` once a full pass finished
    (now or in an earlier session); `search(text)` -> ranked `IndexItem`s; `note()` what
    results should say (the index's age, or that search falls back to the API)."""

    progress_changed = Signal(object)  # SyncProgress
    profile_deleted = Signal(str)  # a profile's name: its index files are gone
    _reported = Signal(object, object)  # SyncRunner, SyncProgress: from the sync's thread

    def __init__(
        self,
        data_dir: Path,
        parent: QObject | None = None,
        *,
        settings: SyncSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self.path: Path | None = None
        self.progress = SyncProgress("stopped")
        self._settings = settings  # (page size, how often it refreshes: None, the defaults)
        self._sync: SyncRunner | None = None
        self._source: SyncSource | None = None
        self._queries: QueryThread | None = None
        self._reported.connect(self._on_report, Qt.ConnectionType.QueuedConnection)

    # --- the account's index ------------------------------------------------------------

    def open(self, profile: str, account: str, source: SyncSource) -> None:
        """Start (or go on with) the index of this profile and account; `source` says how
        the sync signs in as the account (`Session.sync_source()`)."""
        self.close()
        self.path = index_path(self.data_dir, profile, account)
        self._queries = QueryThread(self.path)
        self._source = source
        self._start_sync()

    def _start_sync(self) -> None:

        assert self.path is not None and self._source is not None
        settings = self._settings or DEFAULT_SETTINGS
        source = self._source
        sync: SyncRunner
        if callable(source):
            from .sync import SyncThread

            sync = SyncThread(self.path, source, lambda p: self._reported.emit(sync, p), settings)
        else:
            from .process import SyncProcess

            sync = SyncProcess(
                self.path, source, lambda p: self._reported.emit(sync, p), settings, parent=self
            )
        self._sync = sync
        sync.start()

    @property
    def sync_process_id(self) -> int | None:
        """The sync's process ID while it runs in a process of its own."""
        return getattr(self._sync, "process_id", None)

    def close(self) -> None:
        """Stop syncing and searching (signed out, another profile). The file stays."""
        if self._sync is not None:
            self._sync.stop()
            self._sync = None
        self._source = None
        if self._queries is not None:
            self._queries.close()
            self._queries = None
        self.path = None
        self._set_progress(SyncProgress("stopped"))

    async def aclose(self) -> None:
        """At quit: stop, and let the threads finish the page they write."""
        sync, queries = self._sync, self._queries
        self.close()
        for thread in (sync, queries):
            if thread is not None:
                await in_thread(thread.join, 5.0)
        if sync is not None:
            sync.abandon()

    def delete_profile(self, profile: str) -> None:
        """Delete every index of this profile (any account), off the UI thread: its sync
        and searches are stopped first when it is the one open. `profile_deleted` says
        when the files are gone."""
        task = asyncio.ensure_future(self._delete(profile))
        task.add_done_callback(_log_failure)

    async def _delete(self, profile: str) -> None:
        prefix = _digest(profile) + "-"
        if self.path is not None and self.path.name.startswith(prefix):
            sync, queries = self._sync, self._queries
            self.close()
            for thread in (sync, queries):
                if thread is not None:
                    await in_thread(thread.join, 10.0)
        folder = self.data_dir / FOLDER

        def unlink() -> list[Path]:
            gone = sorted(folder.glob(f"{prefix}*"))
            for path in gone:
                path.unlink(missing_ok=True)
            return gone

        gone = await in_thread(unlink)
        log.info("fleet index of profile deleted (%d files)", len(gone))
        self.profile_deleted.emit(profile)

    # --- state --------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self._queries is not None and self.progress.built

    @property
    def paused(self) -> bool:
        return self._sync is not None and self._sync.paused

    def pause(self) -> None:
        if self._sync is not None:
            self._sync.pause()
            self._set_progress(_with_state(self.progress, "paused"))

    def resume(self) -> None:
        if self._restarted():
            return
        if self._sync is not None:
            self._sync.resume()

    def refresh_now(self) -> None:
        """Refresh now; a sync that stopped on its own (its process killed) starts again."""
        if self._restarted():
            return
        if self._sync is not None:
            self._sync.refresh_now()

    def _restarted(self) -> bool:
        if self._sync is None or self._sync.alive or self._source is None:
            return False
        log.info("fleet index: starting its sync again")
        self._start_sync()
        return True

    def refresh_cost(self) -> RefreshCost:
        """What the last refresh asked (a new object after each refresh)."""
        return self._sync.last_cost if self._sync is not None else RefreshCost()

    def note(self) -> str:
        """What a search's results say about where they come from."""
        if not self.ready:
            return "Names and DevEUIs from their start: the fleet index is not ready yet"
        age = time.time() - self.progress.refreshed_at / 1000
        if age > STALE_AFTER_S:
            return f"Fleet index as of {clock_text(self.progress.refreshed_at)}"
        return ""

    def _on_report(self, sync: SyncRunner, progress: SyncProgress) -> None:
        if sync is not self._sync:
            return  # from a sync stopped since (another account, signed out)
        if self._sync.paused and progress.state not in ("paused", "failed"):
            progress = _with_state(progress, "paused")
        self._set_progress(progress)

    def _set_progress(self, progress: SyncProgress) -> None:
        self.progress = progress
        self.progress_changed.emit(progress)

    # --- searching and following edits --------------------------------------------------

    async def search(
        self, text: str, kinds: Sequence[Kind] = ("device", "station"), limit: int = 50
    ) -> list[IndexItem]:
        """The items matching every word typed (any fragment), ranked."""
        queries = self._queries
        words = words_of(text)
        if queries is None or not words:
            return []

        def find(store: IndexStore) -> list[IndexItem]:
            return rank(text, store.candidates(words, kinds, CANDIDATES), limit)

        return await queries.call(find)

    async def keys(self, text: str, kind: Kind, limit: int) -> list[str]:
        """The keys (DevEUIs, lrrIDs) of the best `limit` matches of one kind."""
        return [item.key for item in await self.search(text, (kind,), limit)]

    def follow(self, items: Sequence[IndexItem]) -> None:
        """Write items the console just created or changed (at once, off the UI thread)."""
        self._write(lambda store: store.follow(list(items)))

    def follow_device(self, device: Any) -> None:
        self.follow([device_item(device)])

    def follow_station(self, station: Any) -> None:
        self.follow([station_item(station)])

    def forget(self, kind: Kind, keys: Sequence[str]) -> None:
        """Items the console just deleted."""
        self._write(lambda store: store.delete(kind, list(keys)))

    def _write(self, fn: Callable[[IndexStore], None]) -> None:
        queries = self._queries
        if queries is None:
            return
        task = asyncio.ensure_future(queries.call(fn))
        task.add_done_callback(_log_failure)


def _log_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("fleet index: %s", task.exception())


def _with_state(progress: SyncProgress, state: Any) -> SyncProgress:
    return replace(progress, state=state)


__all__ = ["KINDS", "FleetIndex", "IndexItem", "index_path"]
