"""Export of the current device view (its filters and sort) to CSV.

The list is walked with the client's paginator in one async task; each page is written as it
arrives (memory stays flat), progress is rows done / total (the first page's count), and the
task can be cancelled, which removes the partial file.
"""

from __future__ import annotations

import csv
import logging
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..schema.common import ListEnvelope
from ..schema.devices import DeviceBrief
from .devices import DevicesViewModel
from .formatting import format_time
from .tasks import TaskRunner

log = logging.getLogger(__name__)

# Pages of the list in order: the paginator's `.pages()` (count on the first page).
PageSource = Callable[[], AsyncIterator[ListEnvelope[DeviceBrief]]]

EXPORT_PAGE_SIZE = 500


def export_columns() -> list[tuple[str, Callable[[DeviceBrief], object]]]:
    """Raw values for a spreadsheet: full EUIs, ISO-like times, numbers without units."""
    return [
        ("name", lambda d: d.name),
        ("EUI", lambda d: d.EUI),
        ("connectivity", lambda d: d.connectivity),
        ("activation", lambda d: d.activation or ""),
        ("healthState", lambda d: d.healthState),
        ("model", lambda d: d.model.ID if d.model else ""),
        ("tags", lambda d: ",".join(t.name for t in d.tags)),
        ("domains", lambda d: ",".join(f"{x.group.name}:{x.name}" for x in d.domains)),
        ("appServers", lambda d: ",".join(s.ID for s in d.appServers)),
        ("lastUplink", lambda d: format_time(d.lastUpTimestamp)),
        ("lastSF", lambda d: d.lastSF),
        ("lastRSSI", lambda d: d.lastRSSI),
        ("avgSNR", lambda d: d.avgSNR),
        ("battery", lambda d: d.lastBatLevel),
        ("alarmLevel", lambda d: d.alarmLevel or ""),
        ("alarmCount", lambda d: d.alarmCount or ""),
        ("lat", lambda d: d.lat),
        ("lon", lambda d: d.lon),
        ("networkContextID", lambda d: d.networkContextID or ""),
        ("imsi", lambda d: d.imsi or ""),
        ("iccid", lambda d: d.iccid or ""),
        ("lastIMEI", lambda d: d.lastIMEI or ""),
        ("created", lambda d: format_time(d.creationDate)),
    ]


def _text(value: object) -> str:
    return "" if value is None else str(value)


async def write_devices_csv(
    pages: AsyncIterator[ListEnvelope[DeviceBrief]],
    path: Path,
    progress: Callable[[int, int], None] | None = None,
    *,
    import_format: bool = False,
) -> int:
    """Write every row of `pages` to `path`; returns the number of rows. A table has a header
    line of column names; the import format has UPDATE lines the import wizard reads back."""
    from ..schema.device_import import IMPORT_FILE_HEADER, brief_to_update_cells  # not at start

    columns = export_columns()
    done = 0
    total = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\r\n")
        if import_format:
            handle.write(IMPORT_FILE_HEADER)
        else:
            writer.writerow([name for name, _ in columns])
        async for page in pages:
            if done == 0 and page.count is not None:
                total = page.count
            if import_format:
                writer.writerows(brief_to_update_cells(d) for d in page.briefs)
            else:
                writer.writerows([_text(get(d)) for _, get in columns] for d in page.briefs)
            done += len(page.briefs)
            if progress is not None:
                progress(done, max(total, done))
    return done


class DeviceExporter(QObject):
    progress = Signal(int, int)  # rows done, total
    finished = Signal(str, int)  # path, rows
    failed = Signal(str)
    cancelled = Signal()
    running_changed = Signal(bool)

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._task: int | None = None
        self.path: Path | None = None
        self.elapsed_s = 0.0

    @property
    def running(self) -> bool:
        return self._task is not None

    def export(
        self, devices: DevicesViewModel, path: str | Path, *, import_format: bool = False
    ) -> bool:
        """Export what the devices view shows now (its filters and sort) to `path`, as a
        table or (`import_format`) as UPDATE lines of the device import format."""
        client = devices.client
        if client is None or self.running:
            return False
        model = devices.model
        paginator = client.devices.iterate(
            filters=devices.filters,
            sort=model.sort_key,
            descending=model.descending,
            page_size=EXPORT_PAGE_SIZE,
        )
        return self.export_pages(paginator.pages, path, import_format=import_format)

    def export_pages(
        self, source: PageSource, path: str | Path, *, import_format: bool = False
    ) -> bool:
        if self.running:
            return False
        self.path = Path(path)
        target = self.path
        t0 = time.perf_counter()

        async def run() -> int:
            try:
                return await write_devices_csv(
                    source(), target, self.progress.emit, import_format=import_format
                )
            except BaseException:
                target.unlink(missing_ok=True)  # no half file left behind
                raise

        def done(rows: int) -> None:
            self.elapsed_s = time.perf_counter() - t0
            self._set_task(None)
            self.finished.emit(str(target), rows)

        def failed(_exc: BaseException, message: str) -> None:
            self._set_task(None)
            self.failed.emit(message)

        task = self.runner.run(
            f"Export devices to {target.name}", run(), on_done=done, on_error=failed
        )
        self._set_task(task)
        return True

    def cancel(self) -> None:
        if self._task is not None:
            self.runner.cancel(self._task)
            self._set_task(None)
            self.cancelled.emit()

    def _set_task(self, task: int | None) -> None:
        self._task = task
        self.running_changed.emit(task is not None)

    def describe(self) -> dict[str, Any]:
        return {"path": str(self.path) if self.path else "", "elapsed_s": self.elapsed_s}
