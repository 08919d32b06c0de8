"""Export of the device view to CSV: streamed pages, progress, cancel."""

from __future__ import annotations

import asyncio
import csv
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lpwa_console.models.device_export import DeviceExporter, export_columns
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.common import ListEnvelope
from lpwa_console.schema.devices import DeviceBrief


def brief(i: int) -> DeviceBrief:
    return DeviceBrief.model_validate(
        {"EUI": f"{i:016X}", "name": f"dev {i}", "tags": [{"name": "a"}, {"name": "b"}]}
    )


def source(pages: int, size: int, delay: float = 0.0):  # type: ignore[no-untyped-def]
    async def gen() -> AsyncIterator[ListEnvelope[DeviceBrief]]:
        for p in range(pages):
            await asyncio.sleep(delay)
            yield ListEnvelope[DeviceBrief](
                briefs=[brief(p * size + i) for i in range(size)],
                count=pages * size if p == 0 else None,
                more=p < pages - 1,
            )

    return gen


def test_export_writes_rows_and_progress(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    exporter = DeviceExporter(TaskRunner())
    progress: list[tuple[int, int]] = []
    exporter.progress.connect(lambda d, t: progress.append((d, t)))
    path = tmp_path / "out.csv"
    with qtbot.waitSignal(exporter.finished, timeout=5000) as finished:
        assert exporter.export_pages(source(3, 50), path)
        assert not exporter.export_pages(source(1, 1), tmp_path / "other.csv")  # one at a time
    assert finished.args == [str(path), 150]
    assert progress == [(50, 150), (100, 150), (150, 150)]
    rows = list(csv.reader(path.open(encoding="utf-8")))
    assert rows[0] == [name for name, _ in export_columns()]
    assert len(rows) == 151
    assert rows[1][:2] == ["dev 0", "0000000000000000"] and rows[1][6] == "a,b"
    assert not exporter.running


def test_cancel_removes_partial_file(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    exporter = DeviceExporter(TaskRunner())
    path = tmp_path / "out.csv"
    exporter.export_pages(source(100, 10, delay=0.02), path)
    qtbot.waitUntil(path.exists, timeout=2000)
    with qtbot.waitSignal(exporter.cancelled, timeout=2000):
        exporter.cancel()
    qtbot.waitUntil(lambda: not exporter.runner.busy, timeout=2000)
    assert not path.exists()
