"""The import view-model: parse off the UI thread, preview, batched upload, report, retry file."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from PySide6.QtCore import Qt

from lpwa_console.api.errors import APIConnectionError, BadRequestError, InternalServerError
from lpwa_console.models.device_import import (
    CellErrorRole,
    DeviceImportViewModel,
    ImportPreviewModel,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.device_import import (
    DeviceImportReport,
    ImportFailedLine,
    ImportLineError,
    ImportRow,
    format_import_errors,
    import_report,
    parse_import_csv,
    parse_import_errors,
    unknown_report,
    write_import_file,
)

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_EUI = "70B3D57ED0000000"


def otaa_line(i: int, *, bad_key: bool = False) -> str:
    key = "XYZ" if bad_key else KEY
    return f"CREATE_OTAA,70B3D5E7{i:08X},,prof,{APP_EUI},{key},,,,,Meter {i}\r\n"


def import_text(n: int, bad_every: int = 0) -> str:
    lines = ["# devices to import\r\n"]
    for i in range(n):
        lines.append(otaa_line(i, bad_key=bool(bad_every) and i % bad_every == bad_every - 1))
    return "".join(lines)


class FakeUploader:
    """The platform for a batch, on the wire: the batch is written as the file the client
    sends, EUIs ending in 7 are refused in the error CSV by their line in THAT file, and the
    answer is placed back on the rows as the client does."""

    def __init__(self, delay: float = 0.0) -> None:
        self.batches: list[int] = []
        self.delay = delay

    async def __call__(self, rows: list[ImportRow]) -> DeviceImportReport:
        self.batches.append(len(rows))
        await asyncio.sleep(self.delay)
        _text, sent = write_import_file(rows)
        failed = [
            ImportFailedLine(
                EUI=s.eui_cell, line=s.line,
                errors=[ImportLineError(code="111", message="EUI already exists")],
            )
            for s in sent
            if (s.EUI or "").endswith("7")
        ]  # fmt: skip
        return import_report(sent, parse_import_errors(format_import_errors(failed)))


def test_preview_marks_invalid_cells(qtbot: Any, qtmodeltester: Any) -> None:
    model = ImportPreviewModel()
    qtmodeltester.check(model)  # watches every change from before the first load
    model.set_rows(parse_import_csv(import_text(4, bad_every=2)))
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == 4
    assert model.headerData(3, Qt.Orientation.Horizontal) == "A Operation"
    assert model.headerData(4, Qt.Orientation.Horizontal) == "B DevEUI"
    assert model.index(0, 1).data() == "Valid"
    assert model.index(1, 1).data() == "Invalid"
    f_column = 3 + 5  # F: the AppKey
    assert model.index(1, f_column).data(CellErrorRole)
    assert model.index(0, f_column).data(CellErrorRole) is None
    assert model.index(1, 2).data().startswith("AppKey: ")  # the column by its name
    assert model.index(1, 0).data() == "3"  # the file's line number (after the comment)


def test_valid_rows_follow_the_rows_and_errors_are_worded_when_asked(qtbot: Any) -> None:
    vm = DeviceImportViewModel(TaskRunner())
    first = parse_import_csv(import_text(4, bad_every=2))
    vm.rows = first
    assert len(vm.valid_rows) == 2 and vm.invalid_count == 2
    assert vm.valid_rows is vm.valid_rows  # found once per file
    vm.rows = parse_import_csv(import_text(3))
    assert len(vm.valid_rows) == 3 and vm.invalid_count == 0
    model = vm.preview
    model.set_rows(first)
    assert model._errors == {}  # nothing worded before a cell is painted
    f_column = 3 + 5
    tip = model.index(1, f_column).data(Qt.ItemDataRole.ToolTipRole)
    assert tip and tip == model.index(1, f_column).data(CellErrorRole)
    assert list(model._errors) == [1]
    assert model.index(0, f_column).data(Qt.ItemDataRole.BackgroundRole) is None


def test_load_upload_report_and_failed_rows(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "devices.csv"
    path.write_text(import_text(25, bad_every=10), encoding="utf-8")
    uploader = FakeUploader()
    vm = DeviceImportViewModel(TaskRunner(), uploader=uploader, batch_size=10)
    with qtbot.waitSignal(vm.parsed, timeout=5000) as parsed:
        assert vm.load(path)
    assert parsed.args == [23, 2]
    progress: list[tuple[int, int]] = []
    vm.progress.connect(lambda d, t: progress.append((d, t)))
    with qtbot.waitSignal(vm.finished, timeout=5000) as finished:
        assert vm.upload()
    assert uploader.batches == [10, 10, 3]
    assert progress == [(0, 23), (10, 23), (20, 23), (23, 23)]
    report: DeviceImportReport = finished.args[0]
    assert report.total == 25
    refused_by_platform = [r for r in report.results if r.message == "EUI already exists"]
    assert {r.EUI for r in refused_by_platform} == {"70B3D5E700000007", "70B3D5E700000017"}
    # Rows are the file's lines, not the batch's: the platform named line 8 of the first
    # batch (rows 2..10, 12) and line 2 of the third (rows 24..26).
    assert {(r.row, r.line) for r in refused_by_platform} == {(9, 8), (25, 2)}
    assert report.errorCount == 4 and report.okCount == 21
    assert vm.preview.index(7, 1).data() == "Refused"
    assert vm.preview.index(0, 1).data() == "Imported"
    out = tmp_path / "failed.csv"
    assert vm.export_failed(out) == 4
    again = parse_import_csv(out.read_text(encoding="utf-8"))
    assert len(again) == 4 and sum(1 for r in again if r.ok) == 2


def test_cancel_reports_rows_not_sent(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "devices.csv"
    path.write_text(import_text(50), encoding="utf-8")
    uploader = FakeUploader(delay=0.05)
    vm = DeviceImportViewModel(TaskRunner(), uploader=uploader, batch_size=10)
    with qtbot.waitSignal(vm.parsed, timeout=5000):
        vm.load(path)
    vm.upload()
    qtbot.waitUntil(lambda: len(uploader.batches) >= 2, timeout=3000)
    with qtbot.waitSignal(vm.finished, timeout=3000) as finished:
        vm.cancel()
    report: DeviceImportReport = finished.args[0]
    assert report.total == 50
    not_sent = [r for r in report.results if r.status == "NOT_SENT"]
    assert 0 < len(not_sent) < 50 and vm.state == "done"
    # Never sent is neither refused nor imported, and goes with the rows to retry.
    assert report.notSentCount == len(not_sent)
    assert report.okCount + report.errorCount + report.unknownCount + report.notSentCount == 50
    retry = {r.row for r in vm.failed_rows()}
    assert {r.row for r in not_sent} <= retry
    # The batch in flight may or may not have been applied: neither done nor failed.
    unknown = [r for r in report.results if r.status == "UNKNOWN"]
    assert len(unknown) == 10
    assert {r.message for r in unknown} == {"outcome unknown: import cancelled while sending"}


def test_unreadable_file(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "devices.csv"
    path.write_bytes(b"\xff\xfe\x00bad")
    vm = DeviceImportViewModel(TaskRunner(), uploader=FakeUploader())
    with qtbot.waitSignal(vm.parse_failed, timeout=5000) as failed:
        vm.load(path)
    assert failed.args == ["The file is not UTF-8 text"]
    with qtbot.waitSignal(vm.parse_failed, timeout=5000) as failed:
        vm.load(tmp_path / "missing.csv")
    assert "No such file" in failed.args[0]


def test_unknown_outcomes_and_failed_batches(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    """Batch 1: an unreadable answer (every row Unknown). Batch 2: the platform refuses the
    request (400: Refused, certainly not applied). Batch 3: a 5xx (Unknown). Batch 4: the
    connection never opened (Refused). Batch 5: fine."""
    path = tmp_path / "devices.csv"
    path.write_text(import_text(10), encoding="utf-8")
    calls = 0

    async def uploader(rows: list[ImportRow]) -> DeviceImportReport:
        nonlocal calls
        calls += 1
        _text, sent = write_import_file(rows)
        request = httpx.Request("POST", "https://p/import")
        if calls == 1:
            return unknown_report(sent, "outcome unknown: the platform answered <html>")
        if calls == 2:
            refused = httpx.Response(400, request=request)
            raise BadRequestError("csv: bad file", response=refused, code=40000)
        if calls == 3:
            crashed = httpx.Response(502, request=request)
            raise InternalServerError("boom", response=crashed, code=50000)
        if calls == 4:
            error = APIConnectionError("Cannot connect")
            error.__cause__ = httpx.ConnectError("refused")
            raise error
        return import_report(sent, [])

    vm = DeviceImportViewModel(TaskRunner(), uploader=uploader, batch_size=2)
    with qtbot.waitSignal(vm.parsed, timeout=5000):
        vm.load(path)
    with qtbot.waitSignal(vm.finished, timeout=5000) as finished:
        vm.upload()
    report: DeviceImportReport = finished.args[0]
    status = [r.status for r in report.results]
    assert status == ["UNKNOWN"] * 2 + ["ERROR"] * 2 + ["UNKNOWN"] * 2 + ["ERROR"] * 2 + ["OK"] * 2
    assert report.results[0].message == "outcome unknown: the platform answered <html>"
    assert report.results[2].message == "csv: bad file"
    assert (report.results[4].message or "").startswith("outcome unknown: boom")
    assert [vm.preview.index(i, 1).data() for i in (0, 2, 9)] == ["Unknown", "Refused", "Imported"]
    assert "the platform answered <html>" in vm.preview.index(0, 2).data()
    # Unknown rows are exported with the refused ones, to check and retry.
    assert vm.export_failed(tmp_path / "failed.csv") == 8
