"""A run that sends one base station admin command (Document 2 §4.3) to N stations and
follows each to its outcome (`BulkCommandRun`), and the table of its rows
(`StationResultsModel`). The catalogue of commands is station_command_catalogue.py's, their
answers in words station_command_answers.py's.

`BulkCommandRun` sends with bounded concurrency on the running asyncio (qasync) loop, so the
UI thread only ever handles small signals. It follows each station through
`lastCmdStatus` (PENDING, PROCESSING, then COMPLETED or an ERR_ status) until an outcome or a
timeout, or through the command's status endpoint for the commands `lastCmdStatus` does not
report. A POST whose connection dropped after sending is never sent again on its own: the
station's last command says whether it arrived; when it cannot tell, the row says it is not
known and only an explicit "send again" sends it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, QTimer, Signal

from ..api import APIConnectionError, APIError, APIStatusError, NotFoundError
from ..schema.common import RequestModel
from .errors import user_message
from .field_offline.offline_edits import OFFLINE_QUEUED
from .item_index import Index
from .station_command_answers import COMPLETION_WORDS, FAILED_COMPLETIONS, result_words, value_of
from .station_command_catalogue import (
    SUPPORT_PASSWORD,
    StationCommandClient,
    StationRef,
    command_spec,
    count_words,
)
from .tasks import TaskRunner

# --- one station's outcome ------------------------------------------------------------------


class State(Enum):
    WAITING = "Waiting"
    SENDING = "Sending"
    QUEUED = "Queued on the station"
    RUNNING = "Running"
    SUCCEEDED = "Done"
    ACCEPTED = "Accepted"
    FAILED = "Failed"
    REFUSED = "Refused"  # the platform said no, and would say it again: not retried
    TIMED_OUT = "No outcome in time"
    UNKNOWN = "Not known if received"
    CANCELLED = "Not sent"
    LEFT = "Sent, no longer followed"

    @property
    def words(self) -> str:
        return self.value

    @property
    def final(self) -> bool:
        return self not in _ACTIVE

    @property
    def failed(self) -> bool:
        return self in (State.FAILED, State.REFUSED, State.TIMED_OUT)

    @property
    def succeeded(self) -> bool:
        return self in (State.SUCCEEDED, State.ACCEPTED)


_ACTIVE = frozenset({State.WAITING, State.SENDING, State.QUEUED, State.RUNNING})
# The states in the order a sorted table shows them: what needs attention first.
ATTENTION = [
    State.FAILED, State.REFUSED, State.TIMED_OUT, State.UNKNOWN, State.LEFT, State.CANCELLED, State.RUNNING,
    State.QUEUED, State.SENDING, State.WAITING, State.ACCEPTED, State.SUCCEEDED,
]  # fmt: skip


@dataclass
class StationResult:
    station: StationRef
    state: State = State.WAITING
    message: str = ""
    started: float | None = None
    ended: float | None = None

    def duration_s(self, now: float) -> float | None:
        if self.started is None:
            return None
        return (self.ended if self.ended is not None else now) - self.started


def seconds_in_words(seconds: float | None) -> str:
    """ "4 s", "2 min 5 s", "1 h 3 min"."""
    if seconds is None:
        return ""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


STATE_ROLE = Qt.ItemDataRole.UserRole + 1  # the row's State, for a view to colour
_SERVED_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, STATE_ROLE})


class StationResultsModel(QAbstractTableModel):
    """One row per station: Station "name (lrrID)", State, Message, Duration."""

    COLUMNS = ("Station", "State", "Message", "Duration")
    STATION, STATE, MESSAGE, DURATION = range(4)
    FLUSH_MS = 150
    ROW_BY_ROW = 40  # fewer changed rows than this are told one by one

    flushed = Signal()  # the changes of the last FLUSH_MS were told to the views

    def __init__(
        self,
        stations: Sequence[StationRef],
        parent: QObject | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self.results = [StationResult(s) for s in stations]
        # Rows as shown (sorted by a column) -> index in `results`, which the run addresses.
        self._order = list(range(len(self.results)))
        self._shown_at = list(range(len(self.results)))
        self._clock = clock
        # While rows run, their durations grow: one repaint of that column a second.
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        # Changes are told to the views at most every FLUSH_MS, as one range: 500 stations
        # answering in a burst make one repaint, not 500 (the UI thread stays free).
        self._dirty: set[int] = set()
        self._flusher = QTimer(self)
        self._flusher.setSingleShot(True)
        self._flusher.setInterval(self.FLUSH_MS)
        self._flusher.timeout.connect(self.flush)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.results)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(self.COLUMNS)
        ):
            return self.COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # A view asks for a dozen roles per cell: the ones not served leave at once.
        if role not in _SERVED_ROLES:
            return None
        row = index.row()
        if not 0 <= row < len(self._order) or not index.isValid():
            return None
        result = self.results[self._order[row]]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.STATION:
                return result.station.label
            if column == self.STATE:
                return result.state.words
            if column == self.MESSAGE:
                return result.message
            if column == self.DURATION:
                return seconds_in_words(result.duration_s(self._clock()))
            return None
        if role == STATE_ROLE:
            return result.state.name
        if column in (self.MESSAGE, self.STATE):  # the tooltip: the whole message
            return result.message or result.state.words
        return None

    def update(self, row: int, state: State, message: str | None = None) -> None:
        result = self.results[row]
        now = self._clock()
        if state in (State.SENDING,) and result.started is None:
            result.started = now
        if state.final and result.ended is None and result.started is not None:
            result.ended = now
        result.state = state
        if message is not None:
            result.message = message
        self._changed(row)
        if not state.final and not self._ticker.isActive():
            self._ticker.start()

    def reset_rows(self, rows: Sequence[int]) -> None:
        for row in rows:
            self.results[row] = StationResult(self.results[row].station)
            self._changed(row)

    def result_at(self, shown_row: int) -> StationResult:
        """The result a row of the view shows (rows move when sorted)."""
        return self.results[self._order[shown_row]]

    def rows_in(self, *states: State) -> list[int]:
        return [i for i, r in enumerate(self.results) if r.state in states]

    def _changed(self, row: int) -> None:
        self._dirty.add(self._shown_at[row])
        if not self._flusher.isActive():
            self._flusher.start()

    def flush(self) -> None:
        """Tell the views what changed since the last time, now."""
        self._flusher.stop()
        last = len(self.COLUMNS) - 1
        if len(self._dirty) <= self.ROW_BY_ROW:
            # a view repaints only these rows (a range repaints all it spans)
            for row in sorted(self._dirty):
                self.dataChanged.emit(self.index(row, 0), self.index(row, last))
        else:
            top, bottom = min(self._dirty), max(self._dirty)
            self.dataChanged.emit(self.index(top, 0), self.index(bottom, last))
        self._dirty.clear()
        self.flushed.emit()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """By station, state (what needs attention first), message or duration."""
        now = self._clock()
        keys: dict[int, Callable[[StationResult], Any]] = {
            self.STATION: lambda r: r.station.label.lower(),
            self.STATE: lambda r: ATTENTION.index(r.state),
            self.MESSAGE: lambda r: r.message.lower(),
            self.DURATION: lambda r: r.duration_s(now) or 0.0,
        }
        key = keys.get(column)
        if key is None:
            return
        self.flush()  # pending changes name rows as shown before the sort
        self.layoutAboutToBeChanged.emit()
        before = list(self._order)
        self._order.sort(
            key=lambda i: key(self.results[i]), reverse=order == Qt.SortOrder.DescendingOrder
        )
        for shown, row in enumerate(self._order):
            self._shown_at[row] = shown
        old = self.persistentIndexList()
        self.changePersistentIndexList(
            old, [self.index(self._shown_at[before[i.row()]], i.column()) for i in old]
        )
        self.layoutChanged.emit()

    def _tick(self) -> None:
        running = [
            self._shown_at[i] for i, r in enumerate(self.results) if r.started and r.ended is None
        ]
        if not running:
            self._ticker.stop()
            return
        self.dataChanged.emit(
            self.index(min(running), self.DURATION), self.index(max(running), self.DURATION)
        )


# --- the run --------------------------------------------------------------------------------


class BulkCommandRun(QObject):
    """One command, N stations: send, follow, report per station.

    `concurrency` bounds both the stations being sent to at once and the requests in flight
    (sends and status reads); status reads slow down as more stations are followed (about
    `polls_per_s` a second in all), so 500 stations never flood the server."""

    progress = Signal(int, int)  # stations done, stations in this run
    # A station's UID when its command starts running or ends: its state may have changed
    # (a reboot takes it away, then back), for whoever lists it to read it again.
    station_moved = Signal(str)
    finished = Signal(str)  # the summary in words
    running_changed = Signal(bool)

    def __init__(
        self,
        admin: StationCommandClient,
        command: str,
        stations: Sequence[StationRef],
        params: RequestModel | dict[str, Any] | None = None,
        *,
        runner: TaskRunner | None = None,
        concurrency: int = 8,
        poll_s: float = 1.0,
        max_poll_s: float = 15.0,
        polls_per_s: float = 20.0,
        timeout_s: float | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.admin = admin
        self.spec = command_spec(command)
        self.stations = list(stations)
        # The request every station gets; None once forgotten (forget()).
        self.params: RequestModel | None = (
            params
            if isinstance(params, RequestModel)
            else self.spec.parameters.model_validate(params or {})
        )
        self.runner = runner
        self.concurrency = max(1, concurrency)
        self.poll_s = poll_s
        self.max_poll_s = max(poll_s, max_poll_s)
        self.polls_per_s = polls_per_s
        self.timeout_s = timeout_s if timeout_s is not None else self.spec.timeout_s
        self.model = StationResultsModel(self.stations, self)
        self.model.flushed.connect(self._flushed)
        self._done = 0
        self._progress_due = False
        self._task: asyncio.Future[Any] | None = None
        self._stop: asyncio.Event | None = None
        self._rows: list[int] = []
        self._following = 0

    # --- what the dialog reads ------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def counts(self) -> dict[State, int]:
        out: dict[State, int] = {}
        for result in self.model.results:
            out[result.state] = out.get(result.state, 0) + 1
        return out

    def done_count(self) -> int:
        return self._done

    def failed_rows(self, *, include_unknown: bool = False) -> list[int]:
        """The rows worth sending again: failures that may not repeat (a refusal of the
        platform, 4xx other than 408 and 429, would: it is left out)."""
        states = [State.FAILED, State.TIMED_OUT] + ([State.UNKNOWN] if include_unknown else [])
        return self.model.rows_in(*states)

    def summary(self) -> str:
        """ "Reboot: 497 done, 2 failed, 1 not known whether it was received"."""
        counts = self.counts()
        parts = []
        good = counts.get(State.SUCCEEDED, 0) + counts.get(State.ACCEPTED, 0)
        if good:
            parts.append(f"{good} done")
        failed = counts.get(State.FAILED, 0) + counts.get(State.TIMED_OUT, 0)
        if failed:
            parts.append(f"{failed} failed")
        for state, words in (
            (State.REFUSED, "refused"),
            (State.UNKNOWN, "not known whether received"),
            (State.LEFT, "sent, no longer followed"),
            (State.CANCELLED, "not sent"),
        ):
            if counts.get(state):
                parts.append(f"{counts[state]} {words}")
        active = sum(counts.get(s, 0) for s in _ACTIVE)
        if active:
            parts.append(f"{active} in progress")
        return f"{self.spec.title}: " + (", ".join(parts) or "nothing sent")

    # --- control --------------------------------------------------------------------------

    def start(self) -> None:
        self._launch(list(range(len(self.stations))))

    def retry_failed(self, *, include_unknown: bool = False) -> int:
        """Send again to the stations that failed (and, only when asked, to those where it
        is not known whether the first one arrived). Returns how many."""
        if self.running or self.params is None:
            return 0
        rows = self.failed_rows(include_unknown=include_unknown)
        if rows:
            self.model.reset_rows(rows)
            self._launch(rows)
        return len(rows)

    def forget(self) -> None:
        """Drop the request (a password): no retry is possible after."""
        self.params = None

    def cancel(self) -> None:
        """Send no more; stop following what was sent (a command already sent stays sent)."""
        if self._stop is not None:
            self._stop.set()

    def _launch(self, rows: list[int]) -> None:
        if self.running:
            return
        self._rows = rows
        self._done = 0
        self._stop = asyncio.Event()
        self.progress.emit(0, len(rows))
        name = f"{self.spec.title}: {count_words(len(rows))}"
        if self.runner is not None:  # listed in the activity panel while it runs
            task_id = self.runner.run(name, self._run(rows), quiet=True)
            self._task = next((i.task for i in self.runner.running if i.id == task_id), None)
        else:
            self._task = asyncio.ensure_future(self._run(rows))
        self.running_changed.emit(True)

    async def _run(self, rows: list[int]) -> None:
        slots = asyncio.Semaphore(self.concurrency)
        requests = asyncio.Semaphore(self.concurrency)
        # A station's task starts when a slot frees up to send to it, not all at once: 500
        # tasks taking their first step in one turn of the loop stalled the window.
        tasks: list[asyncio.Future[None]] = []
        reached = 0  # the rows given a task or an outcome
        try:
            for row in rows:
                if self._stopped:  # (told to stop before its turn: no task)
                    self._set(row, State.CANCELLED, "Cancelled before sending")
                else:
                    await slots.acquire()
                    tasks.append(asyncio.ensure_future(self._one(row, slots, requests)))
                reached += 1
            await asyncio.gather(*tasks)
        except asyncio.CancelledError:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for row in rows[reached:]:  # never started
                self._set(row, State.CANCELLED, "The console stopped before sending it")
            raise
        finally:
            self._task = None
            self.model.flush()  # every outcome shown before the end is said
            summary = self.summary()
            self.running_changed.emit(False)
            self.finished.emit(summary)
            unsettled = self.failed_rows(include_unknown=True)
            if self.runner is not None and unsettled:  # listed in the activity panel's errors
                self.runner.report(f"{self.spec.title}: {count_words(len(rows))}", summary)

    # --- one station ----------------------------------------------------------------------

    @property
    def _stopped(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def _set(self, row: int, state: State, message: str | None = None) -> None:
        # The progress counts what is done: a failure, a refusal or a "not known" is an
        # outcome but not done (the summary says them).
        before = self.model.results[row].state
        was_done = before.succeeded
        self.model.update(row, state, message)
        if state != before and (state is State.RUNNING or state.final):
            self.station_moved.emit(self.stations[row].uid)
        if state.succeeded and not was_done:
            self._done += 1
            self._progress_due = True  # told with the model's next flush

    def _flushed(self) -> None:
        if self._progress_due:
            self._progress_due = False
            self.progress.emit(self._done, len(self._rows))

    async def _call(self, requests: asyncio.Semaphore, make: Callable[[], Awaitable[Any]]) -> Any:
        async with requests:
            return await make()

    async def _one(self, row: int, slots: asyncio.Semaphore, requests: asyncio.Semaphore) -> None:
        uid = self.stations[row].uid
        spec = self.spec
        posting = False  # the POST may have left: a stop then cannot say "not sent"
        try:
            try:  # (the slot was taken for this station by _run)
                if self._stopped:
                    self._set(row, State.CANCELLED, "Cancelled before sending")
                    return
                self._set(row, State.SENDING, "")
                baseline = None
                if spec.follow == "last_command":
                    # What the station reported last before ours: ours is the next one.
                    try:
                        baseline = await self._call(
                            requests, lambda: self.admin.last_command_status(uid)
                        )
                    except APIError:
                        baseline = None
                posting = True
                sent = await self._send(row, uid, requests, baseline)
            finally:
                slots.release()
            if sent:
                await self._follow(row, uid, requests, baseline)
        except asyncio.CancelledError:
            state = self.model.results[row].state
            if state is State.SENDING and not posting:
                self._set(row, State.CANCELLED, "The console stopped before sending it")
            elif state is State.SENDING:
                self._set(row, State.UNKNOWN, "The console stopped while sending it: not known"
                          " whether the station received it")  # fmt: skip
            elif not state.final:
                self._set(row, State.LEFT, "The console stopped following it")
            raise
        except Exception as exc:  # one station's surprise must not end the others
            self._set(row, State.FAILED, user_message(exc))

    async def _send(self, row: int, uid: str, requests: asyncio.Semaphore, baseline: Any) -> bool:
        """POST the command once; True when it is known to have arrived."""
        spec = self.spec
        params = self.params
        if params is None:
            self._set(row, State.CANCELLED, "Not sent: the parameters were forgotten")
            return False
        try:
            if spec.name == SUPPORT_PASSWORD:
                await self._call(requests, lambda: self.admin.change_support_password(uid, params))
            else:
                answer = await self._call(
                    requests, lambda: self.admin.command(uid, spec.name, params)
                )
                queued = value_of(answer, OFFLINE_QUEUED)
                if queued:  # offline: in the edit queue, sent back when connected
                    self._set(row, State.ACCEPTED, str(queued))
                    return False
        except APIConnectionError as exc:
            if not exc.maybe_applied:
                self._set(row, State.FAILED, f"Not sent: {user_message(exc)}")
                return False
            # Sent, but the answer never came: never send it again on our own.
            if spec.follow == "last_command" and baseline is not None:
                try:
                    latest = await self._call(requests, lambda: self.admin.last_command_status(uid))
                except APIError:
                    latest = None
                if latest is not None and self._ours(latest, baseline):
                    self._set(row, State.QUEUED, "The connection dropped, but the station has it")
                    return True
            self._set(
                row,
                State.UNKNOWN,
                "The connection dropped after sending: not known whether the station "
                "received it. Check the station before sending again.",
            )
            return False
        except APIStatusError as exc:
            # A 4xx says the request itself is refused (rights, a command the station does not
            # support, its state): sent again it is refused again. 408 and 429 are "not now".
            repeats = 400 <= exc.status_code < 500 and exc.status_code not in (408, 429)
            state = State.REFUSED if repeats else State.FAILED
            self._set(row, state, f"Refused: {user_message(exc)}")
            return False
        except APIError as exc:
            self._set(row, State.FAILED, user_message(exc))
            return False
        if spec.follow == "accepted":
            self._set(row, State.ACCEPTED, spec.done_words)
            return False
        self._set(row, State.QUEUED, "Sent; waiting for the station")
        return True

    def _ours(self, status: Any, baseline: Any) -> bool:
        kind = value_of(status, "lastCmdType")
        if kind not in self.spec.command_types:
            return False
        return baseline is None or _identity(status) != _identity(baseline)

    def _poll_interval(self, current: float) -> float:
        # Slower as more stations are followed: about polls_per_s reads a second in all.
        floor = self._following / self.polls_per_s if self.polls_per_s > 0 else 0.0
        return min(max(current * 1.5, floor, self.poll_s), max(self.max_poll_s, floor))

    async def _pause(self, seconds: float) -> None:
        stop = self._stop
        if stop is None:
            await asyncio.sleep(seconds)
            return
        with contextlib.suppress(TimeoutError):  # the pause ended, not the run
            await asyncio.wait_for(stop.wait(), seconds)

    async def _follow(self, row: int, uid: str, requests: asyncio.Semaphore, baseline: Any) -> None:
        spec = self.spec
        deadline = time.monotonic() + self.timeout_s
        interval = self.poll_s
        self._following += 1
        try:
            while True:
                await self._pause(interval)
                if self._stopped:
                    self._set(row, State.LEFT, "Sent; the console stopped following it")
                    return
                if time.monotonic() >= deadline:
                    self._set(
                        row,
                        State.TIMED_OUT,
                        f"No outcome after {seconds_in_words(self.timeout_s)}: the station "
                        "may still carry it out",
                    )
                    return
                interval = self._poll_interval(interval)
                if spec.follow == "status":
                    if await self._status_settled(row, uid, requests):
                        return
                    continue
                try:
                    status = await self._call(requests, lambda: self.admin.last_command_status(uid))
                except NotFoundError as exc:
                    self._set(
                        row, State.ACCEPTED, f"Sent; its outcome cannot be read: {exc.message}"
                    )
                    return
                except APIError as exc:
                    current = self.model.results[row].state
                    self._set(row, current, f"Status not readable for now: {user_message(exc)}")
                    continue
                if not self._ours(status, baseline):
                    continue
                if await self._settled(row, uid, requests, status):
                    return
        finally:
            self._following -= 1

    async def _settled(self, row: int, uid: str, requests: asyncio.Semaphore, status: Any) -> bool:
        completion = value_of(status, "lastCmdCompletionStatus")
        if completion == "PENDING":
            self._set(row, State.QUEUED, COMPLETION_WORDS["PENDING"])
            return False
        if completion == "PROCESSING" or completion is None:
            self._set(row, State.RUNNING, COMPLETION_WORDS["PROCESSING"])
            return False
        if completion in FAILED_COMPLETIONS:
            words = COMPLETION_WORDS[completion]
            log = _first_line(value_of(status, "lastCmdCompletionData"))
            self._set(row, State.FAILED, f"{words}: {log}" if log else words)
            return True
        message = self.spec.done_words
        if self.spec.status:
            try:
                detail = await self._call(
                    requests, lambda: self.admin.status(uid, self.spec.status)
                )
                extra = result_words(self.spec.status, detail)
                message = f"{message}. {extra}" if extra else message
            except APIError:
                pass  # the outcome is known; the detail is a bonus
        self._set(row, State.SUCCEEDED, message)
        return True

    async def _status_settled(self, row: int, uid: str, requests: asyncio.Semaphore) -> bool:
        """Commands lastCmdStatus does not report (cancelRadioScan): done when the status
        endpoint shows the effect."""
        try:
            status = await self._call(requests, lambda: self.admin.status(uid, self.spec.status))
        except APIError as exc:
            self._set(row, State.RUNNING, f"Status not readable for now: {user_message(exc)}")
            return False
        if self.spec.status == "scanRadioStatus":
            state = value_of(status, "rfScanState")
            if isinstance(state, int) and state > 0:
                self._set(row, State.RUNNING, "The scan is still running")
                return False
        self._set(row, State.SUCCEEDED, self.spec.done_words)
        return True


def _identity(status: Any) -> tuple[Any, Any, Any]:
    return (
        value_of(status, "lastCmdID"),
        value_of(status, "lastCmdRequestDate"),
        value_of(status, "lastCmdType"),
    )


def _first_line(text: Any, limit: int = 200) -> str:
    if not isinstance(text, str):
        return ""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line[:limit]
