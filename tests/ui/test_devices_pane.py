"""The devices pane against a live sandbox."""

from __future__ import annotations

import uuid
from typing import Any

from PySide6.QtCore import Qt

from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.paged_table import PLACEHOLDER
from lpwa_console.ui.dialogs.device_form import DeviceFormDialog
from lpwa_console.ui.panes.devices import DevicesPane


def make_pane(qtbot: Any, vm: DevicesViewModel) -> DevicesPane:
    pane = DevicesPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 700)
    pane.show()
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=15000)
    return pane


def cell(pane: DevicesPane, row: int, column: int) -> str:
    return str(pane.table.model().index(row, column).data())


def random_eui() -> str:
    return uuid.uuid4().hex[:16].upper()


def test_first_rows_appear(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    model = devices_vm.model
    assert model.rowCount() > 0
    assert cell(pane, 0, 0) not in ("", PLACEHOLDER)
    assert pane.count_label.text().endswith("devices")
    assert pane.stack.currentWidget() is pane.table


def test_filter_narrows_and_empty_state(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    total = devices_vm.model.rowCount()
    eui = cell(pane, 0, 1)
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        qtbot.keyClicks(pane.search, eui)  # debounced: one reload, not one per key
    assert 1 <= devices_vm.model.rowCount() < total
    assert cell(pane, 0, 1) == eui
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.search.setText("zz-no-such-device-zz")
    assert devices_vm.model.rowCount() == 0
    assert pane.stack.currentWidget() is pane.empty
    assert "No devices match" in pane.empty.text()


def test_header_click_sorts_on_the_server(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    header = pane.table.horizontalHeader()
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
    assert devices_vm.model.sort_key == "name"
    names = [cell(pane, r, 0) for r in range(min(20, devices_vm.model.rowCount()))]
    assert names == sorted(names, key=str.casefold) or names == sorted(names)
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        header.setSortIndicator(0, Qt.SortOrder.DescendingOrder)
    assert devices_vm.model.descending
    assert cell(pane, 0, 0) >= names[0]


def test_detail_loads_without_keys(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    eui = cell(pane, 0, 1)
    with qtbot.waitSignal(devices_vm.detail_changed, timeout=10000):
        pane.table.selectRow(0)
    assert devices_vm.detail is not None and eui == devices_vm.detail.EUI
    text = pane.detail.label.text()
    assert eui in text
    assert "AppKey" not in text and "AppSKey" not in text
    assert pane.edit_button.isEnabled()


def test_create_through_the_dialog(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    pane.new_device()
    dialog = pane.dialog
    assert isinstance(dialog, DeviceFormDialog)
    assert not dialog.ok.isEnabled()  # no EUI yet
    qtbot.keyClicks(dialog.inputs["EUI"], "12XZ")
    assert dialog.errors["EUI"].isVisibleTo(dialog)
    assert not dialog.ok.isEnabled()
    eui = random_eui()
    dialog.inputs["EUI"].clear()
    qtbot.keyClicks(dialog.inputs["EUI"], eui)
    qtbot.keyClicks(dialog.inputs["name"], "Pane test sensor")
    qtbot.keyClicks(dialog.inputs["appEUI"], "70B3D57ED0000001")
    qtbot.keyClicks(dialog.inputs["appKey"], "00112233445566778899AABBCCDDEEFF")
    assert dialog.ok.isEnabled(), dialog.revalidate()
    with qtbot.waitSignal(devices_vm.saved, timeout=10000) as saved:
        dialog.ok.click()
    assert eui == saved.args[0].EUI
    qtbot.waitUntil(lambda: pane.dialog is None, timeout=5000)
    qtbot.waitUntil(
        lambda: devices_vm.detail is not None and eui == devices_vm.detail.EUI, timeout=10000
    )


def test_conflict_is_shown_inline_and_input_kept(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    row = next(r for r in range(100) if cell(pane, r, 2) == "LoRaWAN")
    existing = cell(pane, row, 1)
    pane.new_device()
    dialog = pane.dialog
    assert dialog is not None
    qtbot.keyClicks(dialog.inputs["EUI"], existing)
    qtbot.keyClicks(dialog.inputs["name"], "Duplicate")
    assert dialog.ok.isEnabled(), dialog.revalidate()
    with qtbot.waitSignal(devices_vm.save_failed, timeout=10000) as failed:
        dialog.ok.click()
    message, field = failed.args
    assert field == "EUI", failed.args
    assert dialog.isVisible()
    assert dialog.errors["EUI"].isVisibleTo(dialog)
    assert dialog.errors["EUI"].text() == message
    assert dialog.inputs["EUI"].text() == existing
    assert dialog.inputs["name"].text() == "Duplicate"
    dialog.reject()


def test_tag_and_untag_the_selection(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    tag = f"t-{uuid.uuid4().hex[:6]}"
    pane.table.selectRow(0)
    pane.table.selectionModel().select(
        pane.table.model().index(1, 0),
        pane.table.selectionModel().SelectionFlag.Select
        | pane.table.selectionModel().SelectionFlag.Rows,
    )
    rows = pane.selected_rows()
    assert rows == [0, 1]
    with qtbot.waitSignal(devices_vm.tags_applied, timeout=10000):
        devices_vm.tag(tag, rows)
    assert tag in cell(pane, 0, 5) and tag in cell(pane, 1, 5)
    # The server agrees: filtering by the tag finds exactly these two.
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.tag_filter.setText(tag)
    assert devices_vm.model.rowCount() == 2
    with qtbot.waitSignal(devices_vm.tags_applied, timeout=10000):
        devices_vm.tag(tag, [0], untag=True)
    assert tag not in cell(pane, 0, 5)
    with qtbot.waitSignal(devices_vm.suggestions_changed, timeout=10000) as suggested:
        devices_vm.suggest_tags(tag[:3])
    assert isinstance(suggested.args[0], list)
