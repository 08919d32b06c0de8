"""The console's export for re-import reads back in the import wizard and imports on the
sandbox: export, edit in a spreadsheet, import again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.schema.device_import import parse_import_csv, write_import_csv
from lpwa_console.ui.panes.devices import DevicesPane
from tests.helpers import run


def test_export_for_reimport_is_valid_and_imports_back(
    qtbot: Any, devices_vm: DevicesViewModel, client: Any, tmp_path: Path
) -> None:
    pane = DevicesPane(devices_vm)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: devices_vm.first_page_ms is not None, timeout=15000)
    expected = devices_vm.model.rowCount()
    path = tmp_path / "devices-update.csv"
    with qtbot.waitSignal(pane.exporter.finished, timeout=60000) as finished:
        assert pane.export_to(str(path), import_format=True)
        assert not pane.export_import_action.isEnabled()
    assert finished.args == [str(path), expected]

    rows = parse_import_csv(path.read_text(encoding="utf-8"))
    assert len(rows) == expected
    assert [r for r in rows if not r.ok] == []  # every line passes the wizard's preview
    kinds = {r.operation for r in rows}
    assert kinds <= {"UPDATE_OTAA", "UPDATE_ABP", "UPDATE_CELLULAR"} and len(kinds) >= 2

    # Edit two names as a spreadsheet would, and import only those lines back.
    chosen = [r for r in rows if r.operation == "UPDATE_OTAA"][:2]
    edited = []
    for i, row in enumerate(chosen):
        cells = list(row.cells) + [""] * max(0, 11 - len(row.cells))
        cells[10] = f"Re-imported meter {i}"  # column K: the name
        edited.append(cells)
    report = run(qtbot, client.device_import.upload(write_import_csv(edited)))
    assert report.failed_rows == [] and report.unknown_rows == []
    for i, row in enumerate(chosen):
        device = run(qtbot, client.devices.get(f"e{row.EUI}"))
        assert device.name == f"Re-imported meter {i}"
