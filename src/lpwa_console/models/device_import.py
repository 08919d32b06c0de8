"""The import wizard's view-model: read and validate a device CSV off the UI thread, show it
row by row (invalid cells marked), upload the valid rows in batches with progress and cancel,
report per row, and write the failed rows back as a CSV to fix and retry.

Each batch goes to the platform as its own small file; the client places the platform's
answer (errors listed by line of that file) back on the rows of the user's file, so every
result carries its row's number. A row is Imported, Refused (with the platform's errors) or
Unknown: the answer could not be read, the request failed after it was sent (timeout,
connection lost, 5xx), or the import was cancelled while its batch was in flight; such rows
are exported with the failed ones, to check before retrying.

Validation is the schema's (`schema.device_import.parse_import_csv`, the same DeviceCreate /
DeviceUpdate rules the forms use); parsing runs in a daemon worker thread whose result comes
back through `call_soon_threadsafe` (qasync's default executor is a QThread pool that warns
when the interpreter exits with it alive).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, Signal

from ..api import LpwaClient
from .errors import user_message
from .item_index import Index
from .tasks import TaskRunner, in_thread

if TYPE_CHECKING:
    # The import format is read when a file is opened, not at start (issue 8).
    from ..schema.device_import import (
        DeviceImportReport,
        ImportRow,
        ImportRowResult,
        ImportStatus,
    )

log = logging.getLogger(__name__)

# upload(rows) -> the report for these rows, one result per row carrying the row's number
Uploader = Callable[[list["ImportRow"]], Awaitable["DeviceImportReport"]]

# A cell the schema refused: the error text (the widget paints it); a row's status colour.
CellErrorRole = int(Qt.ItemDataRole.UserRole) + 10
RowStatusRole = int(Qt.ItemDataRole.UserRole) + 11

BATCH_SIZE = 500
RESULT_STATUS = {"OK": "Imported", "ERROR": "Refused", "UNKNOWN": "Unknown", "NOT_SENT": "Not sent"}
MAX_PREVIEW_LETTERS = 29  # A..AC: the columns people fill; further cells stay in the file
_NO_ERRORS: dict[str, str] = {}
_ROLES = frozenset(
    {int(Qt.ItemDataRole.DisplayRole), int(Qt.ItemDataRole.ToolTipRole), CellErrorRole}
    | {RowStatusRole}
)


_interval_lock = threading.Lock()
_interval_users = 0
_interval_saved = 0.005


@contextlib.contextmanager
def responsive_gil(interval: float = 0.0005) -> Iterator[None]:
    """While a CPU-bound worker thread runs: a short GIL switch interval. The UI thread takes
    the GIL at every call from Qt into Python, each time waiting up to one interval for the
    worker to let go; at the default 5 ms an event-loop turn added up to 40-110 ms (measured
    by bench/import_devices.py), at 0.5 ms 25-35 ms. Counted, so overlapping workers restore
    the interpreter's setting only when the last one ends."""
    global _interval_users, _interval_saved
    with _interval_lock:
        if _interval_users == 0:
            _interval_saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_interval_saved, interval))
        _interval_users += 1
    try:
        yield
    finally:
        with _interval_lock:
            _interval_users -= 1
            if _interval_users == 0:
                sys.setswitchinterval(_interval_saved)


def read_and_parse(path: Path) -> list[ImportRow]:
    """Runs in a worker thread: read the file (UTF-8, BOM allowed) and validate every row.
    Full garbage collections are the console's idle collector's business (ui/idle_gc.py)."""
    from ..schema.device_import import parse_import_csv

    text = path.read_text(encoding="utf-8-sig")
    with responsive_gil():
        return parse_import_csv(text)


ALARM004_LETTER = "O"  # the no-uplink alarm's XML cell (schema/device_import.py)


def _alarm004_words(text: str) -> str:
    from ..schema.device_import import alarm004_cell_words

    return alarm004_cell_words(text) if text else ""


def column_header(letter: str, operations: set[Any]) -> str:
    """A file column's header: its letter and what it holds for the file's operations
    ("B DevEUI", "C DevAddr / IMSI"); a letter no operation uses stays a letter."""
    from ..schema.device_import import IMPORT_COLUMNS

    if letter == "A":
        return "A Operation"
    names: list[str] = []
    for operation in sorted(operations):
        column = IMPORT_COLUMNS[operation].get(letter)
        if column is not None and column.label not in names:
            names.append(column.label)
    return f"{letter} {' / '.join(names)}" if names else letter


class ImportPreviewModel(QAbstractTableModel):
    """Rows of the file: line, status, the problems, then the cells A... Flat, no proxy."""

    FIXED = ("Line", "Status", "Problems")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[ImportRow] = []
        self.letters: list[str] = []
        self.headers: list[str] = []  # "B DevEUI": the letter and the column's name
        self._errors: dict[int, dict[str, str]] = {}  # by row, worded when first painted
        self.results: dict[int, ImportRowResult] = {}

    def set_rows(self, rows: list[ImportRow]) -> None:
        """Show `rows`. Runs on the UI thread once the file is read: nothing here walks the
        rows but one `max` (the cells' errors are worded when a cell is painted), so 10,000
        rows cost the event loop a few milliseconds."""
        from ..schema.device_import import column_letter

        self.beginResetModel()
        self.rows = rows
        width = max(map(len, (r.cells for r in rows)), default=1)
        self.letters = [column_letter(i) for i in range(min(width, MAX_PREVIEW_LETTERS))]
        operations = {r.operation for r in rows if r.operation is not None}
        self.headers = [column_header(letter, operations) for letter in self.letters]
        self._errors = {}
        self.results = {}
        self.endResetModel()

    def _errors_of(self, row: int) -> dict[str, str]:
        item = self.rows[row]
        if not item.errors:
            return _NO_ERRORS
        found = self._errors.get(row)
        if found is None:
            found = self._errors[row] = self._cell_errors(item)
        return found

    def set_results(self, report: DeviceImportReport) -> None:
        self.results = {r.row: r for r in report.results}
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, 2))

    @staticmethod
    def _cell_errors(row: ImportRow) -> dict[str, str]:
        errors: dict[str, str] = {}
        for error in row.errors:
            key = error.column or ""
            errors[key] = f"{errors[key]}; {error.message}" if key in errors else error.message
        return errors

    def status(self, row: int) -> str:
        item = self.rows[row]
        if item.errors:
            return "Invalid"  # never sent
        result = self.results.get(item.row)
        if result is not None:
            return RESULT_STATUS[result.status]
        return "Warning" if item.warnings else "Valid"

    def problems(self, row: int) -> str:
        item = self.rows[row]
        result = self.results.get(item.row)
        parts = [e.words for e in item.errors]  # the line is in its own column
        if result is not None and not item.errors:
            if result.status == "ERROR":
                parts.append(result.message or "refused by the platform")
            elif result.status == "UNKNOWN":
                parts.append(result.message or "outcome unknown")
            elif result.status == "NOT_SENT":
                parts.append(result.message or "not sent")
        parts += item.warnings
        return "; ".join(parts)

    # --- Qt model ---------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.FIXED) + len(self.letters)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        if section < len(self.FIXED):
            return self.FIXED[section]
        letter_index = section - len(self.FIXED)
        return self.headers[letter_index] if letter_index < len(self.headers) else None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # A painted cell asks for some ten roles; the four answered are checked first, as
        # a frame of the preview calls this a couple of thousand times on the UI thread.
        if role not in _ROLES or not index.isValid() or index.row() >= len(self.rows):
            return None
        row, col = index.row(), index.column()
        item = self.rows[row]
        fixed = len(self.FIXED)
        letter = self.letters[col - fixed] if fixed <= col < fixed + len(self.letters) else None
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return str(item.row)
            if col == 1:
                return self.status(row)
            if col == 2:
                return self.problems(row)
            if letter == ALARM004_LETTER:  # its thresholds in words, not the XML
                return _alarm004_words(item.cell(letter))
            return item.cell(letter) if letter is not None else None
        if role == CellErrorRole:
            return self._errors_of(row).get(letter) if letter is not None else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if letter == ALARM004_LETTER:  # the cell as written in the file
                return self._errors_of(row).get(letter) or item.cell(letter) or None
            if letter is not None:
                return self._errors_of(row).get(letter)
            return self.problems(row) or None if col in (1, 2) else None
        if role == RowStatusRole:
            return self.status(row)
        return None


class DeviceImportViewModel(QObject):
    # Reads and checks a file in a worker thread (the key manager's import has its own).
    parse_file = staticmethod(read_and_parse)
    state_changed = Signal(str)  # idle, parsing, parsed, uploading, done
    parsed = Signal(int, int)  # valid rows, invalid rows
    parse_failed = Signal(str)
    progress = Signal(int, int)  # rows sent, rows to send
    finished = Signal(object)  # DeviceImportReport (all rows, local and platform results)
    upload_failed = Signal(str)
    cancelled = Signal()

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        uploader: Uploader | None = None,
        batch_size: int = BATCH_SIZE,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client
        self._uploader = uploader
        self.batch_size = batch_size
        self.preview = ImportPreviewModel(self)
        self.rows = []
        self.path: Path | None = None
        self.report: DeviceImportReport | None = None
        self.state = "idle"
        self.parse_s = 0.0
        self.upload_s = 0.0
        self._task: int | None = None
        self._partial: dict[int, ImportRowResult] = {}
        self._in_flight: list[ImportRow] = []

    # --- state ------------------------------------------------------------------------

    @property
    def rows(self) -> list[ImportRow]:
        return self._rows

    @rows.setter
    def rows(self, rows: list[ImportRow]) -> None:
        self._rows = rows
        self._valid: list[ImportRow] | None = None

    @property
    def valid_rows(self) -> list[ImportRow]:
        """The rows without errors, found once per file (the wizard asks at every change of
        state: a walk over 10,000 rows each time added up on the UI thread)."""
        if self._valid is None:
            self._valid = [r for r in self._rows if r.ok]
        return self._valid

    @property
    def invalid_count(self) -> int:
        return len(self._rows) - len(self.valid_rows)

    @property
    def busy(self) -> bool:
        return self._task is not None

    def _set_state(self, state: str) -> None:
        self.state = state
        self.state_changed.emit(state)

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client

    # --- parse ------------------------------------------------------------------------

    def load(self, path: str | Path) -> bool:
        if self.busy:
            return False
        self.path = Path(path)
        self.report = None
        self._set_state("parsing")
        target = self.path
        t0 = time.perf_counter()

        def done(rows: list[ImportRow]) -> None:
            self._task = None
            self.parse_s = time.perf_counter() - t0
            if self.client is not None and any(getattr(r.device, "model", None) for r in rows):
                self._check_models(rows)  # then shown
                return
            self._show_checked(rows)

        def failed(exc: BaseException, message: str) -> None:
            self._task = None
            if isinstance(exc, UnicodeDecodeError):
                message = "The file is not UTF-8 text"
            self._set_state("idle")
            self.parse_failed.emit(message)

        self._task = self.runner.run(
            f"Read {target.name}",
            in_thread(self.parse_file, target),
            on_done=done,
            on_error=failed,
            quiet=True,
        )
        return True

    def _show_checked(self, rows: list[ImportRow]) -> None:
        self.rows = rows
        self.preview.set_rows(rows)
        self._set_state("parsed")
        self.parsed.emit(len(rows) - self.invalid_count, self.invalid_count)

    def _check_models(self, rows: list[ImportRow]) -> None:
        """The device profiles of the file, checked against the platform's list before
        anything is sent: an unknown one is said on its row (the platform would refuse the
        line with a bare "[40001]"). A list that cannot be read leaves the platform to judge."""
        from ..schema.device_import import unknown_model_error
        from .references import list_references

        assert self.client is not None

        def checked(items: list[tuple[str, str, Any]]) -> None:
            self._task = None
            known = {ident for ident, _name, _brief in items}
            for row in rows:
                error = unknown_model_error(row, known) if row.ok else None
                if error is not None:
                    row.errors.append(error)
                    row.device = None
            self._show_checked(rows)

        def unchecked(_exc: BaseException, _message: str) -> None:
            self._task = None
            self._show_checked(rows)

        self._task = self.runner.run(
            "Check the device profiles of the file",
            list_references(self.client, "deviceProfiles"),
            on_done=checked,
            on_error=unchecked,
            quiet=True,
        )

    # --- upload -----------------------------------------------------------------------

    def _upload_batch(self, rows: list[ImportRow]) -> Awaitable[DeviceImportReport]:
        if self._uploader is not None:
            return self._uploader(rows)
        assert self.client is not None
        return self.client.device_import.upload(rows)

    def upload(self) -> bool:
        valid = self.valid_rows
        if self.busy or not valid or (self.client is None and self._uploader is None):
            return False
        from ..api.resources.device_import import import_not_applied
        from ..schema.device_import import DeviceImportReport, ImportRowResult

        self._set_state("uploading")
        t0 = time.perf_counter()
        results: dict[int, ImportRowResult] = {
            r.row: ImportRowResult.from_row(r) for r in self.rows if not r.ok
        }

        async def run() -> DeviceImportReport:
            sent = 0
            self.progress.emit(0, len(valid))
            for start in range(0, len(valid), self.batch_size):
                batch = valid[start : start + self.batch_size]
                self._in_flight = batch
                try:
                    report = await self._upload_batch(batch)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # a failed batch: judge its rows, go on
                    message = user_message(exc)
                    status: ImportStatus = "ERROR"
                    text = message
                    if not import_not_applied(exc):
                        status, text = "UNKNOWN", f"outcome unknown: {message}"
                    for row in batch:
                        results[row.row] = _result(row, status, text)
                else:
                    _merge(batch, report, results)
                self._in_flight = []
                sent += len(batch)
                self.progress.emit(sent, len(valid))
            return DeviceImportReport.of(results.values())

        def done(report: DeviceImportReport) -> None:
            self._task = None
            self.upload_s = time.perf_counter() - t0
            self._finish(report)

        def failed(_exc: BaseException, message: str) -> None:
            self._task = None
            self._set_state("parsed")
            self.upload_failed.emit(message)

        self._partial = results
        self._task = self.runner.run(
            f"Import {len(valid):,} devices", run(), on_done=done, on_error=failed
        )
        return True

    def cancel(self) -> None:
        """Stop now. What was sent stays sent: the rows of the batch in flight get an unknown
        outcome, the rows not sent yet are reported as not sent."""
        if self._task is None:
            return
        self.runner.cancel(self._task)
        self._task = None
        if self.state == "uploading":
            results = dict(self._partial)
            for row in self._in_flight:
                results.setdefault(
                    row.row,
                    _result(row, "UNKNOWN", "outcome unknown: import cancelled while sending"),
                )
            self._in_flight = []
            for row in self.valid_rows:
                results.setdefault(row.row, _result(row, "NOT_SENT", "import cancelled"))
            from ..schema.device_import import DeviceImportReport

            self._finish(DeviceImportReport.of(results.values()))
        else:
            self._set_state("idle")
        self.cancelled.emit()

    def _finish(self, report: DeviceImportReport) -> None:
        self.report = report
        self.preview.set_results(report)
        self._set_state("done")
        self.finished.emit(report)

    # --- failed rows ------------------------------------------------------------------

    def failed_rows(self) -> list[ImportRow]:
        if self.report is None:
            return [r for r in self.rows if not r.ok]
        from ..schema.device_import import failed_import_rows

        return failed_import_rows(self.rows, self.report)

    def export_failed(self, path: str | Path) -> int:
        """Write the failed rows (as read) to `path`; returns how many."""
        from ..schema.device_import import write_import_csv

        rows = self.failed_rows()
        Path(path).write_text(write_import_csv(rows), encoding="utf-8")
        return len(rows)


def _result(row: ImportRow, status: ImportStatus, message: str | None) -> ImportRowResult:
    from ..schema.device_import import ImportRowResult

    return ImportRowResult(
        row=row.row, EUI=row.EUI, operation=row.operation, status=status, message=message
    )


def _merge(
    batch: list[ImportRow], report: DeviceImportReport, results: dict[int, ImportRowResult]
) -> None:
    """The batch's results carry the rows' numbers (the client placed the platform's lines
    back on them); a row the report does not mention has an unknown outcome."""
    mine = {row.row for row in batch}
    for result in report.results:
        if result.row in mine:
            results[result.row] = result
    for row in batch:
        if row.row not in results:
            results[row.row] = _result(row, "UNKNOWN", "outcome unknown: no result for this row")
