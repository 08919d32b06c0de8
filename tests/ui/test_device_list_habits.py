"""The device list as people use lists: columns to choose (remembered), a row menu, the sorted
column kept in view, prefix search said in the placeholder."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from lpwa_console.api import NotFoundError
from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.schema.devices import DeviceCreate
from lpwa_console.ui.map_place import device_place
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.devices import DevicesPane
from lpwa_console.ui.widgets.column_chooser import column_menu, restore_tables, save_tables
from tests.helpers import run


def _pane(qtbot: Any, devices_vm: DevicesViewModel) -> DevicesPane:
    pane = DevicesPane(devices_vm)
    qtbot.addWidget(pane)
    pane.resize(1280, 720)
    pane.show()
    qtbot.waitUntil(lambda: devices_vm.first_page_ms is not None, timeout=15000)
    qtbot.waitUntil(lambda: devices_vm.model.item(0) is not None, timeout=10000)
    return pane


def test_columns_are_chosen_and_remembered(
    qtbot: Any, devices_vm: DevicesViewModel, tmp_path: Path
) -> None:
    pane = _pane(qtbot, devices_vm)
    header = pane.table.horizontalHeader()
    menu = column_menu(pane.table)
    actions = [a for a in menu.actions() if a.isCheckable()]
    assert len(actions) == devices_vm.model.columnCount()
    assert not actions[0].isEnabled()  # the name column stays
    actions[2].setChecked(False)
    assert header.isSectionHidden(2)
    menu.close()

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    holder = QWidget()
    pane.setParent(holder)
    save_tables(holder, settings)
    header.setSectionHidden(2, False)
    restore_tables(holder, settings)
    assert header.isSectionHidden(2)
    show_all = next(a for a in column_menu(pane.table).actions() if a.text() == "Show all columns")
    show_all.trigger()
    assert not header.isSectionHidden(2)
    pane.setParent(None)  # type: ignore[call-overload]
    holder.deleteLater()


def test_row_menu_offers_what_can_be_done(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = _pane(qtbot, devices_vm)
    loaded = [(r, devices_vm.model.item(r)) for r in range(50)]
    row, device = next((r, d) for r, d in loaded if d is not None and d.lat is not None)
    menu = pane.row_menu(row)
    texts = [a.text() for a in menu.actions()]
    assert texts[:3] == ["Copy EUI", "Tag…", "Untag…"] and "Show on map" in texts
    assert pane.table.selectionModel().isRowSelected(row)
    show = next(a for a in menu.actions() if a.text() == "Show on map")
    with qtbot.waitSignal(pane.navigate, timeout=2000) as shown:
        show.trigger()
    assert shown.args == [Location("map", device_place(device.lat, device.lon, device.EUI))]
    menu.close()
    pane.table.selectAll()
    qtbot.waitUntil(lambda: len(pane.selected_rows()) > 1, timeout=2000)
    many = pane.row_menu(0)
    assert any(a.text().startswith("Tag ") and "devices" in a.text() for a in many.actions())
    many.close()


def test_sorting_keeps_the_sorted_column_in_view(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = _pane(qtbot, devices_vm)
    pane.resize(700, 600)
    columns = devices_vm.model.columns
    shown = [i for i in range(len(columns)) if not pane.table.isColumnHidden(i)]
    last_sortable = max(i for i in shown if columns[i].sort_key)  # the last one shown
    pane.table.scrollTo(devices_vm.model.index(0, last_sortable))
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.table.horizontalHeader().setSortIndicator(last_sortable, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: pane._sorted_column == -1, timeout=5000)
    viewport = pane.table.viewport().rect()
    x = pane.table.columnViewportPosition(last_sortable)
    assert 0 <= x < viewport.width()


def test_search_says_it_matches_the_start(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = _pane(qtbot, devices_vm)
    assert "starting with" in pane.search.placeholderText()


def _fresh_devices(qtbot: Any, client: Any, n: int) -> list[str]:
    stamp = uuid.uuid4().hex[:8].upper()
    euis = [f"70B3D5{stamp}{i:02X}" for i in range(n)]
    for eui in euis:
        device = DeviceCreate(EUI=eui, nwAddress="01020304", appSKey="00" * 16, name=f"To go {eui}")
        run(qtbot, client.devices.create(device))
    return euis


def _confirm_box(pane: DevicesPane) -> QMessageBox:
    return pane.findChild(QMessageBox, "deleteDevicesConfirm")


def test_delete_asks_naming_the_devices_then_deletes(
    qtbot: Any, devices_vm: DevicesViewModel, client: Any
) -> None:
    euis = _fresh_devices(qtbot, client, 2)
    pane = _pane(qtbot, devices_vm)
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        devices_vm.update_filters(devEUI=euis)
    qtbot.waitUntil(lambda: devices_vm.model.item(1) is not None, timeout=10000)

    # Cancel keeps them.
    pane.table.selectAll()
    pane.delete_selection()
    box = _confirm_box(pane)
    assert "2 devices" in box.text() and all(e in box.detailedText() for e in euis)
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert euis[0] == run(qtbot, client.devices.get(f"e{euis[0]}")).EUI

    # Delete names the one device, then it is gone and the list says so.
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: len(pane.selected_rows()) == 1, timeout=2000)
    # The device of the selected row, read as the pane reads it (two devices made in the
    # same millisecond may swap rows when the page is read again meanwhile).
    first = devices_vm.model.item(pane.selected_rows()[0])
    assert first is not None
    pane.delete_selection()
    box = _confirm_box(pane)
    assert first.EUI in box.text()
    confirm = next(b for b in box.buttons() if b.text() == "Delete")
    with qtbot.waitSignal(devices_vm.deleted, timeout=10000) as deleted:
        confirm.click()
    assert deleted.args == [1, []]
    assert "Deleted 1 device" in pane.message.text()
    with pytest.raises(NotFoundError):
        run(qtbot, client.devices.get(f"e{first.EUI}"))
    qtbot.waitUntil(lambda: devices_vm.model.rowCount() == 1, timeout=10000)


def test_edit_from_the_row_menu_waits_for_the_detail(
    qtbot: Any, devices_vm: DevicesViewModel
) -> None:
    pane = _pane(qtbot, devices_vm)
    menu = pane.row_menu(3)  # a row whose detail has not been read yet
    edit = next(a for a in menu.actions() if a.text() == "Edit…")
    assert edit.isEnabled()
    edit.trigger()
    menu.close()
    qtbot.waitUntil(lambda: pane.dialog is not None, timeout=10000)
    device = devices_vm.model.item(3)
    assert device is not None and devices_vm.detail is not None
    assert devices_vm.detail.EUI == device.EUI
    pane.dialog.reject()
