"""Issue 20, find and open, as a user meets it: an alarm's device opens in the list even when
the Devices pane's filters would hide it (they are set aside, and the pane says so, with a
way back), at the top of its detail; a new device is shown and selected under a filter; each
account keeps its own filters; "No devices match" says what the search matches."""

from __future__ import annotations

import uuid
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from lpwa_console.models.alarms import kind_of
from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.pane_access import account_kind
from lpwa_console.models.profiles import Profile
from lpwa_console.ui.lazy_pane import real_pane
from lpwa_console.ui.panes.alarms import AlarmsPane
from lpwa_console.ui.panes.devices import DevicesPane
from tests.helpers import shot
from tests.ui.conftest import OpenConsole


def _devices(console: Any) -> DevicesPane:
    pane = real_pane(console.window.stack.widget(0))
    assert isinstance(pane, DevicesPane)
    return pane


def _device_alarm_row(alarms: AlarmsPane) -> int:
    for row in range(min(alarms.vm.model.rowCount(), 50)):
        alarm = alarms.vm.model.item(row)
        if alarm is not None and kind_of(alarm) == "device":
            return row
    return -1


def test_an_alarm_opens_its_device_past_the_filters(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    window = console.window
    devices = _devices(console)
    qtbot.waitUntil(lambda: devices.vm.model.rowCount() > 0, timeout=10_000)
    # A filter that hides every device, and a detail left on another tab, scrolled.
    QTest.keyClicks(devices.search, "zz-no-such-device")
    devices.apply_filters()
    qtbot.waitUntil(lambda: "No devices match" in devices.empty.text(), timeout=10_000)
    assert "starts with “zz-no-such-device”" in devices.empty.text()
    devices.detail.tabs.setCurrentIndex(2)

    window.navigator.open("alarms")
    alarms = console.panes["alarms"]
    assert isinstance(alarms, AlarmsPane)
    qtbot.waitUntil(lambda: _device_alarm_row(alarms) >= 0, timeout=10_000)
    row = _device_alarm_row(alarms)
    alarm = alarms.vm.model.item(row)
    assert alarm is not None and alarm.device is not None
    eui = alarm.device.EUI
    alarms.table.setFocus()
    alarms.table.setCurrentIndex(alarms.vm.model.index(row, 0))
    QTest.keyClick(alarms.table, Qt.Key.Key_Return)

    # In the list (the only row, selected), the filters set aside and said so.
    qtbot.waitUntil(lambda: devices.vm.detail is not None and eui == devices.vm.detail.EUI)
    name = devices.vm.detail.name  # type: ignore[union-attr]
    bar = devices.filter_set.bar
    qtbot.waitUntil(lambda: bar.label.text() == f"Filters set aside to show {name}")
    assert bar.isVisible() and bar.put_back.text() == "Put the filters back"
    qtbot.waitUntil(lambda: devices.selected_rows() == [0], timeout=10_000)
    listed = devices.vm.model.item(0)
    assert listed is not None and eui == listed.EUI
    # The detail from its top: the first tab, the name in sight.
    assert devices.detail.tabs.currentIndex() == 0
    assert devices.detail.info_area.verticalScrollBar().value() == 0
    assert name in devices.detail.label.text()
    shot(window, "filters-set-aside.png")

    # The way back: the user's filters again.
    bar.put_back.click()
    assert not bar.isVisible()
    assert devices.search.text() == "zz-no-such-device"
    qtbot.waitUntil(lambda: devices.vm.filters.query == "zz-no-such-device", timeout=5000)


def test_a_new_device_is_shown_under_a_filter(
    qtbot: Any, devices_vm: DevicesViewModel, client: Any
) -> None:
    pane = DevicesPane(devices_vm)
    qtbot.addWidget(pane)
    pane.resize(1280, 720)
    pane.show()
    qtbot.waitUntil(lambda: devices_vm.model.item(0) is not None, timeout=15000)
    pane.health.setCurrentIndex(pane.health.findData("SUSPENDED"))  # a new one is not
    qtbot.waitUntil(lambda: devices_vm.filters.healthState == ["SUSPENDED"], timeout=5000)
    eui = f"70B3D5{uuid.uuid4().hex[:10].upper()}"
    pane.new_device()
    qtbot.waitUntil(lambda: pane.dialog is not None)
    with qtbot.waitSignal(devices_vm.saved, timeout=10000):
        devices_vm.create(
            {"EUI": eui, "nwAddress": "01020304", "appSKey": "00" * 16, "name": f"New {eui}"}
        )
    qtbot.waitUntil(lambda: pane.selected_rows() == [0], timeout=10_000)
    item = devices_vm.model.item(0)
    assert item is not None and eui == item.EUI
    assert pane.filter_set.bar.label.text() == f"Filters set aside to show New {eui}"
    assert devices_vm.detail is not None and eui == devices_vm.detail.EUI


def test_each_account_keeps_its_own_filters(
    open_console: OpenConsole, qtbot: Any, sandbox: Any
) -> None:
    console = open_console("subscriber")
    window = console.window
    window.navigator.open("alarms")
    alarms = console.panes["alarms"]
    assert isinstance(alarms, AlarmsPane)
    qtbot.waitUntil(lambda: alarms.vm.first_page_ms is not None, timeout=10_000)
    alarms.severity.setCurrentIndex(alarms.severity.findData(6))  # critical only
    qtbot.waitUntil(lambda: alarms.vm.min_severity == 6)

    account = sandbox.account("partner")
    partner = Profile(
        name="Sandbox as partner",
        subscriber_url=sandbox.base_url,
        token_url=sandbox.token_url,
        client_id=account["client_id"],
        role=account_kind("partner"),
    )
    console.profiles.save(partner, account["client_secret"])
    subscriber = console.session.profile
    assert subscriber is not None
    console.session.open(partner)
    qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
    # The partner starts from its own (no severity filter), not the subscriber's.
    assert alarms.severity.currentData() is None
    qtbot.waitUntil(lambda: alarms.vm.model.rowCount() > 0, timeout=10_000)

    console.session.open(subscriber)
    qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
    assert alarms.severity.currentData() == 6


def test_a_station_opens_past_the_filters_at_the_top_of_its_detail(qtbot: Any, client: Any) -> None:
    from tests.ui.test_stations_pane import make

    pane = make(qtbot, client)
    station = pane.vm.model.item(0)
    assert station is not None
    pane.tag_filter.setText("no-such-tag-anywhere")
    pane.apply_filters()
    qtbot.waitUntil(
        lambda: pane.vm.model.rowCount() == 0 and pane.empty.isVisible(), timeout=10_000
    )
    pane.detail.tabs.setCurrentIndex(3)

    pane.open_item(station.lrrID)
    qtbot.waitUntil(lambda: pane.selected_rows() == [0], timeout=10_000)
    listed = pane.vm.model.item(0)
    assert listed is not None and listed.lrrID == station.lrrID
    bar = pane.filter_set.bar
    assert bar.isVisible()
    qtbot.waitUntil(lambda: bar.label.text() == f"Filters set aside to show {station.name}")
    assert pane.detail.tabs.currentIndex() == 0
    bar.put_back.click()
    assert pane.tag_filter.text() == "no-such-tag-anywhere" and not bar.isVisible()


def test_a_resource_opens_past_the_filters(qtbot: Any, client: Any) -> None:
    from lpwa_console.models.resources import ResourceViewModel, app_servers_kind
    from lpwa_console.models.tasks import TaskRunner
    from lpwa_console.ui.panes.resources import ResourcesPane

    kind = app_servers_kind()
    vm = ResourceViewModel(TaskRunner(), kind, page_size=50)
    pane = ResourcesPane(kind.title, [vm])
    qtbot.addWidget(pane)
    pane.resize(1280, 600)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        vm.set_client(client)
        pane.show()
    search = pane.filters[0].inputs["query"]
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        search.setText("zz-nothing")
        pane.filters[0].apply()
    assert vm.model.rowCount() == 0
    pane.open_item("as-tracking", "app_servers")
    table = pane.views[0]
    qtbot.waitUntil(lambda: table.selectionModel().hasSelection(), timeout=10000)
    item = vm.model.item(table.currentIndex().row())
    assert item is not None and item.ID == "as-tracking"
    bar = pane.filters[0].state.bar
    qtbot.waitUntil(lambda: bar.label.text() == "Filters set aside to show Fleet tracking")
    bar.put_back.click()
    assert search.text() == "zz-nothing"
