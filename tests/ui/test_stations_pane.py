"""The base stations pane against the live sandbox: rows in words, filters, the detail and
its configuration form, rights, navigation, and the map's station layer."""

from __future__ import annotations

import uuid
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QLabel

from lpwa_console.api import LpwaClient
from lpwa_console.models.paged_table import PLACEHOLDER
from lpwa_console.models.partners import PartnerViewModel
from lpwa_console.models.station_detail import StationDetailViewModel
from lpwa_console.models.stations import StationsViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.panes.stations import StationFormDialog, StationsPane
from lpwa_console.ui.widgets.station_detail import SHOW_ON_MAP
from tests.helpers import shot


def make(qtbot: Any, client: LpwaClient | None, page_size: int = 50) -> StationsPane:
    runner = TaskRunner()
    vm = StationsViewModel(runner, page_size=page_size)
    detail = StationDetailViewModel(runner)
    partner = PartnerViewModel(runner)
    pane = StationsPane(vm, detail_vm=detail, partner=partner)
    qtbot.addWidget(pane)
    pane.resize(1200, 640)
    pane.show()
    if client is not None:
        detail.set_client(client)
        partner.set_client(client)
        with qtbot.waitSignal(vm.first_page_loaded, timeout=15000):
            vm.set_client(client)
    return pane


def test_not_connected(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, None)
    assert pane.empty.text() == "Not connected"
    assert not pane.reboot_button.isEnabled()
    assert not pane.detail.showing_station


def test_list_detail_and_filters(qtbot: Any, client: LpwaClient, qtmodeltester: Any) -> None:
    pane = make(qtbot, client)
    vm, model = pane.vm, pane.vm.model
    assert model.rowCount() > 0  # the demo partner has stations
    assert pane.count_label.text().endswith(("stations", "station"))
    qtbot.waitUntil(lambda: pane.partner_label.text() != "")
    assert "used" in pane.partner_label.text()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    row0 = [model.index(0, c).data() for c in range(model.columnCount())]
    assert PLACEHOLDER not in row0
    assert row0[headers.index("Connection")] in (
        "Connected", "Disconnected", "Never connected", "Unknown"
    )  # fmt: skip
    qtmodeltester.check(model)

    # Keyboard: Enter in the search box takes the list to its first row, whose detail loads.
    pane.focus_filter()
    qtbot.keyClick(pane.search, Qt.Key.Key_Return)
    with qtbot.waitSignal(vm.detail_changed, timeout=10000):
        pass
    station = vm.detail
    assert station is not None
    assert pane.detail.showing_station
    assert station.lrrID in pane.detail.overview.text()
    # The thresholds are said once, by their editor (the read-only words are the partner
    # overview's).
    assert "Alarm thresholds" not in pane.detail.config_label.text()
    assert pane.detail.thresholds.summary.text().startswith("Connection lost:")
    assert pane.current_item() == (station.lrrID, None)
    shot(pane, "stations-pane.png")
    # Its position opens the map there.
    assert "Show on map" in pane.detail.overview.text()
    with qtbot.waitSignal(pane.navigate) as went:
        pane.detail.follow(SHOW_ON_MAP)
    assert went.args[0].pane == "map"

    # The alarms tab loads the station's alarms when shown.
    pane.show_section("alarms")
    alarms = pane.detail.alarms_tab.model
    qtbot.waitUntil(lambda: 0 in alarms.loaded_pages() or "alarms" in pane.detail_vm.errors)
    assert "alarms" not in pane.detail_vm.errors
    qtmodeltester.check(alarms)

    # A filter by LRR ID prefix finds that station; an impossible one empties the list.
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.search.setText(station.lrrID)
        pane.apply_filters()
    assert vm.filters.query == station.lrrID
    assert model.rowCount() >= 1
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.tag_filter.setText("no-such-tag-anywhere")
        pane.apply_filters()
    assert model.rowCount() == 0
    assert pane.empty.text().startswith("No base station matches these filters")
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.clear_filters()
    assert model.rowCount() > 0


def test_configuration_form_checks_and_saves(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    vm = pane.vm
    with qtbot.waitSignal(vm.detail_changed, timeout=10000):
        vm.select_row(0)
    station = vm.detail
    assert station is not None
    dialog = StationFormDialog(vm, station, pane)
    qtbot.addWidget(dialog)
    # The schema's rules hold while typing: an empty name is refused, naming the field.
    errors = vm.check_update({"name": ""}, station)
    assert "name" in errors
    assert vm.check_update({"customerAdminData": "roof, north side"}, station) == {}
    with qtbot.waitSignal(vm.saved, timeout=10000):
        assert vm.update(station, {"customerAdminData": "roof, north side"})
    assert vm.detail is not None and vm.detail.customerAdminData == "roof, north side"
    dialog.reject()

    # The alarm thresholds are edited in the configuration tab, with their rules, and saved.
    pane.show_section("configuration")
    editor = pane.detail.thresholds
    first = editor.inputs["alarm103"][0]
    first.enabled.setChecked(not first.enabled.isChecked())
    assert editor.dirty
    if editor.configuration() is None:  # that left it invalid: the rules said why
        assert editor.problem()
        assert not pane.detail.save_thresholds.isEnabled()
        first.enabled.setChecked(not first.enabled.isChecked())
        editor.inputs["alarm102"][0].severity.setCurrentIndex(0)
    qtbot.waitUntil(pane.detail.save_thresholds.isEnabled)
    wanted = editor.configuration()
    assert wanted is not None
    with qtbot.waitSignal(vm.saved, timeout=10000):
        pane.detail.save_thresholds.click()
    assert vm.detail is not None
    assert vm.detail.alarmsConfiguration.to_request().to_wire() == wanted.to_wire()
    assert not editor.dirty


def test_open_item_by_lrr_id(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    first = pane.vm.model.item(0)
    assert first is not None
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=10000):
        pane.open_item(first.lrrID.lower(), "commands")
    assert pane.vm.detail is not None and pane.vm.detail.lrrID == first.lrrID
    assert pane.detail.tabs.currentWidget() is pane.detail.commands_tab


def test_commands_go_to_the_selected_stations(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    model = pane.vm.model
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row in (0, 2):
        pane.table.selectionModel().select(model.index(row, 0), flags)
    pane.send_command("reboot")
    dialog = pane.command_dialog
    assert dialog is not None
    qtbot.addWidget(dialog)
    wanted = [model.item(0), model.item(2)]
    assert [s.lrr_id for s in dialog.stations] == [s.lrrID for s in wanted if s is not None]
    dialog.reject()
    # The row menu offers the commands too, for the stations selected.
    menu = pane.row_menu(0)
    texts = [a.text() for a in menu.actions()]
    assert any(t.startswith("Reboot 2 stations") for t in texts)
    menu.close()


def test_detail_sections_load_when_shown(
    qtbot: Any, client: LpwaClient, qtmodeltester: Any
) -> None:
    pane = make(qtbot, client)
    vm, detail = pane.vm, pane.detail
    connected = next(
        row
        for row in range(vm.model.rowCount())
        if (s := vm.model.item(row)) is not None and s.cnxState == "CNX"
    )
    with qtbot.waitSignal(vm.detail_changed, timeout=10000):
        vm.select_row(connected)
    dvm = pane.detail_vm
    for key in ("antennas", "served", "commands"):
        pane.show_section(key)
        model = dvm.models[key]
        qtbot.waitUntil(lambda m=model, k=key: 0 in m.loaded_pages() or k in dvm.errors)
        assert key not in dvm.errors, dvm.errors.get(key)
        qtmodeltester.check(model)
    assert dvm.models["antennas"].rowCount() >= 1  # every station has an antenna
    # Health: CPU, RAM and disk over time, drawn once loaded.
    pane.show_section("health")
    qtbot.waitUntil(lambda: dvm.health is not None or "health" in dvm.errors, timeout=15000)
    assert "health" not in dvm.errors, dvm.errors.get("health")
    health = dvm.health
    assert health is not None and len(health.times_ms) == len(health.cpu) == len(health.disk)
    assert all(0 <= v <= 100 for v in health.cpu + health.ram + health.disk)
    if health.times_ms:
        assert detail.health_chart.stack.currentWidget() is detail.health_chart.plot_widget
    shot(pane, "stations-health.png")
    pane.show_section("probe")
    qtbot.waitUntil(lambda: dvm.probe is not None or "probe" in dvm.errors, timeout=15000)
    assert "probe" not in dvm.errors, dvm.errors.get("probe")
    shot(pane, "stations-probe.png")


def test_tag_and_untag_the_selection(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    vm, model = pane.vm, pane.vm.model
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row in (1, 3):
        pane.table.selectionModel().select(model.index(row, 0), flags)
    name = f"survey-{uuid.uuid4().hex[:6]}"
    pane.tag_selection(untag=False)
    dialog = pane.tag_dialog
    assert dialog is not None and "2 selected stations" in dialog.findChild(QLabel).text()
    dialog.edit.setText(name)
    with qtbot.waitSignal(vm.tags_applied, timeout=10000) as applied:
        dialog.accept()
    assert applied.args[0] == f"Tag “{name}” added to 2 stations"
    assert all(name in [t.name for t in model.item(r).tags] for r in (1, 3))  # type: ignore[union-attr]
    # The platform has it too: the list filtered by the tag holds those two.
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.tag_filter.setText(name)
        pane.apply_filters()
    assert model.rowCount() == 2
    pane.table.selectAll()
    with qtbot.waitSignal(vm.tags_applied, timeout=10000):
        assert vm.tag(name, [0, 1], untag=True)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.refresh()
    assert model.rowCount() == 0


def test_a_row_follows_what_its_detail_reads(qtbot: Any, client: LpwaClient) -> None:
    """After a reboot the row said "RF error" beside a detail saying "Active": a row takes
    the state its station's detail reads."""
    pane = make(qtbot, client)
    model = pane.vm.model
    brief = model.item(0)
    assert brief is not None
    stale = "RF_CNX_ERROR" if brief.healthState != "RF_CNX_ERROR" else "ACTIVE"
    model.replace_item(0, brief.model_copy(update={"healthState": stale}))
    headers = [c.header for c in model.columns]
    health = headers.index("Health")
    before = model.index(0, health).data()
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=10000):
        pane.table.selectRow(0)
    station = pane.vm.detail
    assert station is not None and station.healthState == brief.healthState
    qtbot.waitUntil(lambda: model.index(0, health).data() != before, timeout=5000)
    assert model.item(0).healthState == station.healthState  # type: ignore[union-attr]


def test_the_stations_of_a_command_run_are_read_again(qtbot: Any, client: LpwaClient) -> None:
    """When a run ends, the stations it went to are read again: their rows say what the
    station says now (a reboot's outcome), not what the list read before."""
    pane = make(qtbot, client)
    model = pane.vm.model
    brief = model.item(1)
    assert brief is not None
    stale = "RF_CNX_ERROR" if brief.healthState != "RF_CNX_ERROR" else "ACTIVE"
    model.replace_item(1, brief.model_copy(update={"healthState": stale}))
    pane.vm.refresh_stations([brief.path_ref])
    qtbot.waitUntil(lambda: model.item(1).healthState == brief.healthState, timeout=10_000)


def test_every_column_shown_is_in_sight_on_a_laptop(qtbot: Any, client: LpwaClient) -> None:
    """At 1280 px (less the side list) the list beside the detail scrolls down, never
    sideways: the default columns fit, none under its title's width; the others are in
    the header's column chooser."""
    pane = make(qtbot, client)
    pane.resize(1280 - 150, 640)
    table, model = pane.table, pane.vm.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    shown = [c for c in range(len(headers)) if not table.isColumnHidden(c)]
    assert [headers[c] for c in shown] == [
        "Name", "LRR ID", "Connection", "Worst alarm", "Health", "Last seen"
    ]  # fmt: skip
    qtbot.waitUntil(lambda: table.horizontalScrollBar().maximum() == 0, timeout=2000)
    for column in shown:
        right = table.columnViewportPosition(column) + table.columnWidth(column)
        assert right <= table.viewport().width(), headers[column]
        title = table.fontMetrics().horizontalAdvance(headers[column])
        assert table.columnWidth(column) >= title, headers[column]
    shot(pane, "stations-1280.png")
