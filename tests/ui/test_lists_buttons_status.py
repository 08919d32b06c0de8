"""Issue 20, lists, buttons and status, as a user meets them: buttons that need a selection
say so and follow it (after a delete, an acknowledge), Tab leaves a table, a message never
moves the pane, the alarms centre at 1280 px shows its times and hides internal IDs."""

from __future__ import annotations

import uuid
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from lpwa_console.api import LpwaClient
from lpwa_console.models.alarms import AlarmsViewModel
from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import DeviceCreate
from lpwa_console.ui.panes.alarms import AlarmsPane
from lpwa_console.ui.panes.devices import DevicesPane
from tests.helpers import run


def _devices(qtbot: Any, vm: DevicesViewModel) -> DevicesPane:
    pane = DevicesPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1280, 720)
    pane.show()
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=15000)
    qtbot.waitUntil(lambda: vm.model.item(0) is not None, timeout=10000)
    return pane


def _alarms(qtbot: Any, client: LpwaClient, width: int) -> AlarmsPane:
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    pane = AlarmsPane(vm)
    qtbot.addWidget(pane)
    pane.resize(width, 600)
    pane.show()
    with qtbot.waitSignal(vm.first_page_loaded, timeout=15000):
        vm.set_client(client)
    return pane


def test_buttons_follow_the_selection_through_a_delete(
    qtbot: Any, devices_vm: DevicesViewModel, client: LpwaClient
) -> None:
    eui = f"70B3D5{uuid.uuid4().hex[:10].upper()}"
    device = DeviceCreate(EUI=eui, nwAddress="01020304", appSKey="00" * 16, name=f"Gone {eui}")
    run(qtbot, client.devices.create(device))
    pane = _devices(qtbot, devices_vm)
    buttons = (pane.tag_button, pane.untag_button, pane.copy_button)
    for button in buttons:  # nothing selected: disabled, and the tooltip says why
        assert not button.isEnabled()
        assert "Select a device first" in button.toolTip()
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        devices_vm.update_filters(devEUI=[eui])
    qtbot.waitUntil(lambda: devices_vm.model.item(0) is not None, timeout=10000)
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: all(b.isEnabled() for b in buttons), timeout=2000)
    assert "Select a device first" not in pane.copy_button.toolTip()

    pane.delete_selection()
    box = pane.findChild(QMessageBox, "deleteDevicesConfirm")
    assert "Its alarms" in box.informativeText() and "Their" not in box.informativeText()
    confirm = next(b for b in box.buttons() if b.text() == "Delete")
    with qtbot.waitSignal(devices_vm.deleted, timeout=10000):
        confirm.click()
    qtbot.waitUntil(lambda: devices_vm.model.rowCount() == 0, timeout=10000)
    qtbot.waitUntil(lambda: not any(b.isEnabled() for b in buttons), timeout=2000)
    assert not pane.edit_button.isEnabled()
    assert "Select a device first" in pane.tag_button.toolTip()


def test_tab_leaves_the_table_and_arrows_move_in_it(
    qtbot: Any, devices_vm: DevicesViewModel
) -> None:
    pane = _devices(qtbot, devices_vm)
    table = pane.table
    table.setFocus()
    table.selectRow(0)
    qtbot.keyClick(table, Qt.Key.Key_Down)
    assert table.currentIndex().row() == 1
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table
    assert table.currentIndex().row() == 1  # Tab changed neither the row nor the selection


def test_a_message_never_moves_the_pane(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = _devices(qtbot, devices_vm)
    where = pane.splitter.geometry()
    pane.message.show_message("Tag added to 1 device")
    QApplication.processEvents()
    assert pane.message.text() == "Tag added to 1 device"
    assert pane.splitter.geometry() == where
    pane.message.clear_message()
    QApplication.processEvents()
    assert pane.splitter.geometry() == where


def test_alarms_centre_at_1280_and_1366(qtbot: Any, client: LpwaClient) -> None:
    for width in (1280 - 160, 1366 - 160):  # the window's width less the side list
        pane = _alarms(qtbot, client, width)
        table, model = pane.table, pane.vm.model
        headers = [c.header for c in model.columns]
        viewport = table.viewport().width()
        for title in ("Severity", "Alarm", "Name", "Raised", "Updated"):
            assert not table.isColumnHidden(headers.index(title)), title
        # Every column shown is in sight (Count, Acked and Source were off the right edge
        # behind a 330 px Info), none squeezed under its title, no horizontal scroll bar.
        shown = [c for c in range(len(headers)) if not table.isColumnHidden(c)]
        assert {headers[c] for c in shown} >= {"Count", "Acked", "Source", "Info"}
        for column in shown:
            right = table.columnViewportPosition(column) + table.columnWidth(column)
            assert 0 <= right <= viewport, headers[column]
            title = table.fontMetrics().horizontalAdvance(headers[column])
            assert table.columnWidth(column) >= title, headers[column]
        qtbot.waitUntil(lambda t=table: t.horizontalScrollBar().maximum() == 0, timeout=2000)
        assert table.isColumnHidden(headers.index("Alarm UID"))
        # The times fit their column, and the newest update comes first.
        raised = headers.index("Raised")
        text = model.index(0, raised).data()
        assert table.fontMetrics().horizontalAdvance(text) < table.columnWidth(raised)
        qtbot.waitUntil(lambda m=model: m.item(1) is not None, timeout=5000)
        first, second = model.item(0), model.item(1)
        assert first is not None and second is not None
        assert (first.updateTimestamp or 0) >= (second.updateTimestamp or 0)
        pane.close()


def test_acknowledge_and_open_follow_the_selection(qtbot: Any, client: LpwaClient) -> None:
    pane = _alarms(qtbot, client, 1200)
    assert not pane.ack_button.isEnabled() and not pane.open_button.isEnabled()
    assert "Select an alarm first" in pane.open_button.toolTip()
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: pane.ack_button.isEnabled() and pane.open_button.isEnabled())
    with qtbot.waitSignal(pane.vm.acknowledged, timeout=10000):
        pane.ack_button.click()
    # The acknowledged alarm leaves the "Not acknowledged" list or reads acknowledged: in
    # either case Acknowledge has nothing left to do on the selection.
    qtbot.waitUntil(lambda: not pane.ack_button.isEnabled(), timeout=10000)
    assert pane.ack_button.toolTip()


def test_help_lists_every_pane_the_readme_gives() -> None:
    import re
    from pathlib import Path

    from lpwa_console.options import command_line

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"opens on a given pane \(([^)]*)\)", readme)
    assert listed is not None
    names = [n.strip() for n in listed.group(1).split(",")]
    assert len(names) == 13
    text = " ".join(command_line().format_help().split())
    for name in names:
        assert name in text, name
