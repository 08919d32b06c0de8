"""Field mode's one object for the console: which profile's snapshot and queue are open,
whether the session is offline, taking a region offline, and sending the queue back.

The session asks `offline_client(profile)` when the platform cannot be reached; the rights
are told `offline_reason` (models/rights.py: every action that needs the platform is then
disabled with it, by the shared gate); the queue's view reads `queue` and `sync_*`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from PySide6.QtCore import QObject, Signal

from ...api import LpwaClient
from ..tasks import TaskRunner
from .edit_queue import CONFLICT, PENDING, Edit, EditQueue
from .paths import QUEUE_FILE, SNAPSHOT_FILE, TILES_FILE, field_dir
from .store import SnapshotStore

if TYPE_CHECKING:  # the rest is imported when first used: not on every start
    from .take import Estimate, Region, SnapshotTaker


def account_of(profile: Any) -> str:
    """The account a profile signs in as (its client ID; the embedded one's role)."""
    return str(getattr(profile, "client_id", "") or getattr(profile, "role", ""))


def as_of(taken_at: float | None) -> str:
    """ "10:42", or "3 Mar 10:42" for an older day."""
    if taken_at is None:
        return "?"
    then = time.localtime(taken_at)
    if time.strftime("%Y%m%d", then) == time.strftime("%Y%m%d"):
        return time.strftime("%H:%M", then)
    return f"{then.tm_mday} {time.strftime('%b %H:%M', then)}"  # no %-d on Windows


class FieldMode(QObject):
    offline_changed = Signal(bool)
    queue_changed = Signal()  # edits queued or forgotten, a replay started or ended
    edit_done = Signal(object)  # Edit: one edit's outcome (sent, conflict, settled)
    sync_finished = Signal(str)  # what the replay did, in words
    take_progress = Signal(int, int, str)  # done, total, what
    take_finished = Signal(str)  # "" when done, else why not

    def __init__(self, data_dir: Path, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data_dir = Path(data_dir)
        self.runner = runner
        self.folder: Path | None = None
        self.queue: EditQueue | None = None
        self.store: SnapshotStore | None = None
        self.offline = False
        self.offline_text = ""
        self.syncing = False
        self._take_id: int | None = None

    # --- the profile's files -------------------------------------------------------------

    def open_profile(self, profile: Any) -> None:
        """The folder, and the edit queue, of this profile and account."""
        self.leave_offline()
        if self.queue is not None:
            self.queue.close()
        self.folder = field_dir(self.data_dir, str(profile.name), account_of(profile))
        self.queue = EditQueue(self.folder / QUEUE_FILE)
        self.queue_changed.emit()

    def has_snapshot(self) -> bool:
        return self.folder is not None and (self.folder / SNAPSHOT_FILE).is_file()

    @property
    def tiles_path(self) -> Path | None:
        path = self.folder / TILES_FILE if self.folder is not None else None
        return path if path is not None and path.is_file() else None

    def snapshot_time(self) -> float | None:
        if not self.has_snapshot() or self.folder is None:
            return None
        store = SnapshotStore(self.folder / SNAPSHOT_FILE)
        try:
            return store.taken_at
        finally:
            store.close()

    def snapshot_words(self) -> str:
        """ "412 devices and 12 base stations of the tag “north”, as of 10:42"."""
        if not self.has_snapshot() or self.folder is None:
            return "no snapshot"
        store = SnapshotStore(self.folder / SNAPSHOT_FILE)
        try:
            devices, stations = store.meta("devices", 0), store.meta("stations", 0)
            region, taken = store.meta("words", "a region"), as_of(store.taken_at)
        finally:
            store.close()
        return f"{devices:,} devices and {stations:,} base stations of {region}, as of {taken}"

    # --- offline -------------------------------------------------------------------------

    def offline_client(self) -> tuple[LpwaClient, str, str] | None:
        """A client answered from the snapshot, with the account's name and role then;
        None without a snapshot."""
        if not self.has_snapshot() or self.folder is None or self.queue is None:
            return None
        from .offline_edits import OfflineEditor
        from .transport import SnapshotTransport

        store = SnapshotStore(self.folder / SNAPSHOT_FILE)
        base_url = str(store.meta("base_url") or "http://offline.invalid")
        editor = OfflineEditor(store, self.queue)
        transport = SnapshotTransport(store, editor, httpx.URL(base_url).path)
        http = httpx.AsyncClient(transport=transport)
        client = LpwaClient(base_url, None, http=http, max_retries=0)
        self.store = store
        self.offline = True
        self.offline_text = f"Offline, data as of {as_of(store.taken_at)}"
        self.offline_changed.emit(True)
        return client, str(store.meta("account_name") or ""), str(store.meta("role") or "")

    @property
    def offline_reason(self) -> str:
        return (
            f"{self.offline_text}: this needs a connection to the platform" if self.offline else ""
        )

    def leave_offline(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None
        if self.offline:
            self.offline = False
            self.offline_text = ""
            self.offline_changed.emit(False)

    # --- taking a region offline -----------------------------------------------------------

    def taker(self, client: LpwaClient, tile_template: str) -> SnapshotTaker:
        from .take import SnapshotTaker

        assert self.folder is not None
        return SnapshotTaker(client, self.folder, tile_template)

    def take(
        self, taker: SnapshotTaker, region: Region, estimate: Estimate, account: tuple[str, str]
    ) -> None:
        async def run() -> None:
            meta = {"account_name": account[0], "role": account[1]}
            await taker.take(region, estimate, self.take_progress.emit, meta)

        def failed(_exc: BaseException, message: str) -> None:
            self._take_id = None
            self.take_finished.emit(message or "Cancelled: the last snapshot is kept")

        def done(_result: object) -> None:
            self._take_id = None
            self.take_finished.emit("")

        self._take_id = self.runner.run(
            f"Take {region.words} offline", run(), on_done=done, on_error=failed, quiet=True
        )

    def cancel_take(self) -> None:
        if self._take_id is not None:
            self.runner.cancel(self._take_id)
            self._take_id = None
            self.take_finished.emit("Cancelled: the last snapshot is kept")

    # --- sending the queue back ------------------------------------------------------------

    def pending(self) -> int:
        return len(self.queue.edits(*PENDING)) if self.queue is not None else 0

    def sync(self, client: LpwaClient) -> None:
        """Send the waiting edits in order, each outcome told (`edit_done`)."""
        from .sync import replay

        queue = self.queue
        if queue is None or self.syncing or not queue.edits(*PENDING):
            return
        self.syncing = True
        self.queue_changed.emit()

        def told(edit: Edit) -> None:
            self.edit_done.emit(edit)  # one row changes: the views update that row only

        def finished(message: str) -> None:
            self.syncing = False
            self.queue_changed.emit()
            self.sync_finished.emit(message)

        def done(count: object) -> None:
            conflicts = len(queue.edits(CONFLICT))
            words = f"Sent back {count} offline edits"
            finished(words + (f"; {conflicts} conflicts to choose" if conflicts else ""))

        self.runner.run(
            "Send the offline edits",
            replay(client, queue, told),
            on_done=done,
            on_error=lambda _e, m: finished(f"Stopped: {m}; the rest waits"),
            quiet=True,
        )

    def resolve(self, client: LpwaClient, edit: Edit, *, mine: bool) -> None:
        from .sync import resolve

        queue = self.queue
        if queue is None:
            return

        def done(_result: object) -> None:
            after = queue.get(edit.seq)
            if after is not None:
                self.edit_done.emit(after)

        self.runner.run(
            f"Settle the edit of {edit.label}",
            resolve(client, queue, edit, mine=mine),
            on_done=done,
            quiet=True,
        )

    def close(self) -> None:
        self.leave_offline()
        if self.queue is not None:
            self.queue.close()
            self.queue = None
