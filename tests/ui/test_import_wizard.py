"""The import wizard: choose, preview with invalid cells, upload with progress, report, retry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lpwa_console.models.device_import import DeviceImportViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.dialogs.import_wizard import ImportWizard

from ..models.test_device_import import APP_EUI, KEY, FakeUploader, import_text

SHOTS = Path("/tmp/shots")


def make(qtbot: Any, uploader: FakeUploader) -> ImportWizard:
    vm = DeviceImportViewModel(TaskRunner(), uploader=uploader, batch_size=20)
    wizard = ImportWizard(vm)
    qtbot.addWidget(wizard)
    wizard.show()
    return wizard


def test_wizard_end_to_end(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "devices.csv"
    path.write_text(import_text(60, bad_every=7), encoding="utf-8")
    wizard = make(qtbot, FakeUploader(delay=0.01))
    assert wizard.stack.currentWidget() is wizard.empty
    assert not wizard.upload_button.isEnabled()
    wizard.path.setText(str(path))
    with qtbot.waitSignal(wizard.vm.parsed, timeout=5000):
        wizard.read_button.click()
    assert wizard.stack.currentWidget() is wizard.table
    assert "52 valid, 8 with errors" in wizard.summary.text()
    assert wizard.upload_button.text() == "Import 52 valid rows"
    assert wizard.export_button.isVisible()
    SHOTS.mkdir(exist_ok=True)
    wizard.grab().save(str(SHOTS / "import-preview.png"))
    with qtbot.waitSignal(wizard.vm.finished, timeout=10000):
        wizard.upload_button.click()
        assert wizard.progress.isVisible() and wizard.cancel_button.isVisible()
    assert wizard.summary.text().startswith("Done: 49 imported, 11 failed")
    assert not wizard.progress.isVisible()
    wizard.grab().save(str(SHOTS / "import-report.png"))
    out = tmp_path / "failed.csv"
    assert wizard.export_failed(str(out)) == 11
    assert "11 failed rows written" in wizard.summary.text()


def test_wizard_bad_file(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    wizard = make(qtbot, FakeUploader())
    wizard.path.setText(str(tmp_path / "nope.csv"))
    with qtbot.waitSignal(wizard.vm.parse_failed, timeout=5000):
        wizard.read_file()
    assert wizard.summary.text().startswith("Could not read the file")
    empty = tmp_path / "empty.csv"
    empty.write_text("# nothing\n", encoding="utf-8")
    wizard.path.setText(str(empty))
    with qtbot.waitSignal(wizard.vm.parsed, timeout=5000):
        wizard.read_file()
    assert wizard.empty.text() == "This file has no device line"
    assert not wizard.upload_button.isEnabled()


def test_wizard_imports_into_the_sandbox(qtbot: Any, client: Any, tmp_path: Path) -> None:
    import uuid

    prefix = uuid.uuid4().hex[:8].upper()
    lines = [
        f"CREATE_OTAA,{prefix}{i:08X},,itron-cyble-lw,{APP_EUI},{KEY},,,,,Imported {prefix} {i}\r\n"
        for i in range(30)
    ]
    lines.append(
        f"CREATE_OTAA,{prefix}FFFFFFFF,,itron-cyble-lw,{APP_EUI},NOTAKEY\r\n"
    )  # refused here
    lines.append(lines[0])  # the same EUI twice: the platform refuses the second
    path = tmp_path / "devices.csv"
    path.write_text("".join(lines), encoding="utf-8")
    vm = DeviceImportViewModel(TaskRunner(), client, batch_size=10)
    wizard = ImportWizard(vm)
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.path.setText(str(path))
    with qtbot.waitSignal(vm.parsed, timeout=10000) as parsed:
        wizard.read_file()
    assert parsed.args == [31, 1]
    with qtbot.waitSignal(vm.finished, timeout=30000) as finished:
        wizard.upload_button.click()
    report = finished.args[0]
    assert report.total == 32
    assert report.okCount == 30, [r for r in report.results if r.status == "ERROR"]
    assert {r.row for r in report.results if r.status == "ERROR"} == {31, 32}
    out = tmp_path / "failed.csv"
    assert wizard.export_failed(str(out)) == 2
