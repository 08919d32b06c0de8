"""A network partner's field engineer in the whole console against the live sandbox: the Map
with its stations (and no device request the server would refuse), a station's detail from
its square, a box of stations as command targets; the Alarms centre with its stations' alarms,
opening their station; both panes remembered across a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from PySide6.QtCore import QItemSelectionModel, QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton

from lpwa_console.api import LpwaClient
from lpwa_console.models.alarms import kind_of, owner_id
from lpwa_console.models.device_map import DeviceMapViewModel, GeoBox
from lpwa_console.models.profiles import MemorySecretStore
from lpwa_console.models.station_map import StationMapViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.partners import Partner
from lpwa_console.ui.lazy_pane import real_pane
from lpwa_console.ui.main_window import MainWindow
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.alarms import AlarmsPane
from lpwa_console.ui.panes.device_map import DeviceMapPane
from lpwa_console.ui.panes.station_layer import StationItem
from lpwa_console.ui.panes.stations import StationsPane
from tests.ui.conftest import OpenConsole

Answers = list[tuple[str, str, int]]  # method, path, status


def recording(console: Any) -> Answers:
    """Every answer the console's client gets from now on."""
    answers: Answers = []
    client = console.session.client
    assert client is not None

    async def keep(response: httpx.Response) -> None:
        request = response.request
        answers.append((request.method, request.url.path, response.status_code))

    client._http.event_hooks["response"].append(keep)
    return answers


def refused_or_device(answers: Answers) -> Answers:
    """The device and multicast requests, and any answer that is an error, but the
    subscription's read at sign-in: the subscription settings learn so that the account has
    none (they say why they are not offered)."""
    return [
        a
        for a in answers
        if "/devices" in a[1]
        or "/multicast" in a[1]
        or (a[2] >= 400 and not a[1].endswith("/subscriptions/mine"))
    ]


def shown(window: MainWindow) -> str:
    return window.pane_keys[window.navigation.currentRow()]


def test_a_partner_sees_its_stations_on_the_map(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("partner")
    window = console.window
    assert {"map", "alarms", "stations"} <= set(window.visible_keys)
    assert "devices" not in window.visible_keys
    assert window.device_search is not None and window.device_search.client is None  # the palette
    answers = recording(console)
    assert window.navigator.open("map")
    pane = console.panes["map"]
    assert isinstance(pane, DeviceMapPane) and shown(window) == "map"
    layer = pane.station_layer
    assert layer is not None
    vm = layer.vm
    # The map fits the partner's stations and draws them; nothing is asked of devices.
    qtbot.waitUntil(lambda: vm.settled and bool(vm.clusters), timeout=15_000)
    qtbot.waitUntil(lambda: "base station" in pane.status.text(), timeout=10_000)
    assert pane.view.station_items and all(
        isinstance(i, StationItem) for i in pane.view.station_items
    )
    assert not pane.vm.has_client and pane.vm.requests == 0 and pane.view.cluster_items == []
    assert not pane.empty.isVisible()  # the map, not "Not connected"
    assert not pane.devices_toggle.isEnabled() and not pane.devices_toggle.isChecked()
    assert "network partner" in pane.devices_toggle.toolTip()
    assert pane.connectivity.isHidden()  # the devices' filter
    assert pane.fit_button.isEnabled() and "base station" in pane.fit_button.toolTip()
    assert "Not connected" not in pane.status.text()

    # One station's square opens its detail in the stations pane.
    stations_pane = real_pane(console.panes["stations"])
    assert isinstance(stations_pane, StationsPane)
    client = console.session.client
    assert client is not None
    task = asyncio.ensure_future(client.stations.list(1, 20))
    qtbot.waitUntil(task.done, timeout=10_000)
    station = next(s for s in task.result().briefs if s.lat is not None and s.lon is not None)
    assert station.lat is not None and station.lon is not None
    requests = vm.requests
    pane.view.fit_box(
        GeoBox(station.lat - 1e-4, station.lon - 1e-4, station.lat + 1e-4, station.lon + 1e-4),
        keep=False,
    )

    def single() -> Any:
        return next(
            (i for i in pane.view.station_items if i.lrr_id() == station.lrrID),  # type: ignore[attr-defined]
            None,
        )

    qtbot.waitUntil(
        lambda: vm.requests > requests and vm.settled and single() is not None, timeout=10_000
    )
    item = single()
    assert item is not None
    lrr_id = item.lrr_id()
    where = pane.view.mapFromScene(item.pos()) + item.square().center().toPoint()
    with qtbot.waitSignal(pane.navigate) as opened:
        QTest.mouseDClick(pane.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert opened.args == [Location("stations", lrr_id)]
    assert shown(window) == "stations"
    detail = stations_pane.detail
    qtbot.waitUntil(
        lambda: (
            detail.showing_station and detail.station is not None and detail.station.lrrID == lrr_id
        ),
        timeout=15_000,
    )

    # Back on the map, a box drawn with Shift+drag sends a command to its stations.
    assert window.navigator.open("map")
    pane.view.fit_box(GeoBox.world(), keep=False)
    qtbot.waitUntil(lambda: vm.settled and bool(vm.clusters), timeout=15_000)
    with qtbot.waitSignal(vm.selection_ready, timeout=15_000) as ready:
        port = pane.view.viewport()
        start, end = QPoint(2, 2), QPoint(port.width() - 3, port.height() - 3)
        QTest.mousePress(port, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, start)
        QTest.mouseMove(port, QPoint(port.width() // 2, port.height() // 2))
        QTest.mouseMove(port, end)
        QTest.mouseRelease(port, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, end)
    refs, _box = ready.args
    assert refs
    dialog = layer.dialog
    assert dialog is not None and dialog.isVisible()
    assert [s.lrr_id for s in dialog.stations] == [r.lrr_id for r in refs]  # type: ignore[attr-defined]
    send = dialog.findChild(QPushButton, "sendCommand")
    assert send is not None
    dialog.reject()
    assert refused_or_device(answers) == [], answers


def test_a_partner_sees_its_stations_alarms(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("partner")
    window = console.window
    answers = recording(console)
    assert window.navigator.open("alarms")
    pane = console.panes["alarms"]
    assert isinstance(pane, AlarmsPane)
    vm = pane.vm
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=15_000)
    model = vm.model
    assert model.rowCount() > 0  # the demo stations have open alarms
    loaded = [model.item(r) for r in range(min(model.rowCount(), vm.model.page_size))]
    assert {kind_of(a) for a in loaded if a is not None} == {"station"}
    assert vm.available_sources() == {"stations"}
    # The source filter offers what the account has, and says why no more.
    assert [pane.source.itemText(i) for i in range(pane.source.count())] == ["Base stations"]
    assert not pane.source.isEnabled() and "network partner" in pane.source.toolTip()
    assert "Could not" not in pane.message.text() and not pane.empty.isVisible()
    headers = [column.header for column in model.columns]
    assert pane.table.isColumnHidden(headers.index("Source"))  # all the same: the room is Info's
    # Acknowledging is judged by the partner's right, not the device one.
    assert pane.gate.action_of(pane.ack_button) == "station.alarm.acknowledge"
    flags = (
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    )
    pane.table.selectionModel().select(model.index(0, 0), flags)
    assert pane.ack_button.isEnabled(), pane.ack_button.toolTip()
    rights = window.rights
    assert rights is not None and rights.subscription is None
    reader = Partner.model_validate({"partner": {"ID": "p", "grantedPermissions": ["x"]}})
    rights.set_partner(reader)  # a partner granted reading only
    assert not pane.ack_button.isEnabled()
    assert "network partner's write permission" in pane.ack_button.toolTip()
    pane.acknowledge_selection()  # refused here, nothing sent
    assert "network partner's write permission" in pane.message.text()
    rights.set_partner(
        Partner.model_validate({"partner": {"ID": "p", "grantedPermissions": ["x", "a"]}})
    )
    assert pane.ack_button.isEnabled()

    # An alarm opens its station, on its alarms.
    alarm = model.item(0)
    assert alarm is not None
    pane.table.setFocus()
    pane.table.setCurrentIndex(model.index(0, 0))
    QTest.keyClick(pane.table, Qt.Key.Key_Return)
    assert shown(window) == "stations"
    stations = real_pane(console.panes["stations"])
    assert isinstance(stations, StationsPane)
    detail = stations.detail
    qtbot.waitUntil(
        lambda: detail.station is not None and detail.station.lrrID == owner_id(alarm),
        timeout=15_000,
    )
    assert refused_or_device(answers) == [], answers


def test_the_partners_pane_comes_back_after_a_restart(
    open_console: OpenConsole, qtbot: Any, sandbox: Any
) -> None:
    console = open_console("partner")
    window = console.window
    assert window.navigator.open("alarms")
    window.save_layout()
    saved = console.settings
    assert saved.value("window/pane_title") == "Alarms"
    # The next start lays the window out before anyone signs in (the profile says who).
    from lpwa_console.app import Options, build

    settings = QSettings(saved.fileName(), QSettings.Format.IniFormat)
    again = build(
        Options(data_dir=console.embedded.data_dir),
        settings=settings,
        secrets=MemorySecretStore(),
        embedded=console.embedded,
    )
    try:
        assert "alarms" in again.window.visible_keys
        assert again.window.pane_keys[again.window.navigation.currentRow()] == "alarms"
    finally:
        for pane in again.panes.values():
            pane.close()
        again.window.close()
        again.window.deleteLater()


def test_the_device_layer_comes_back_for_an_account_with_devices(
    qtbot: Any, client: LpwaClient
) -> None:
    """A partner's session leaves the device layer on for the next account: a subscriber
    after it gets its devices again (the toggle was only shown off)."""
    runner = TaskRunner()
    devices = DeviceMapViewModel(runner, debounce_ms=10)
    stations = StationMapViewModel(runner, debounce_ms=10)
    pane = DeviceMapPane(devices, stations=stations)
    qtbot.addWidget(pane)
    pane.resize(1000, 640)
    pane.show()
    qtbot.waitExposed(pane)
    devices.set_client(None)  # a network partner: stations only
    stations.set_client(client)
    qtbot.waitUntil(lambda: stations.settled and bool(stations.clusters), timeout=10_000)
    assert not pane.devices_toggle.isChecked() and devices.enabled and devices.requests == 0
    stations.set_client(client)  # a subscriber: both
    devices.set_client(client)
    assert pane.devices_toggle.isEnabled() and pane.devices_toggle.isChecked()
    assert not pane.connectivity.isHidden() and pane.connectivity.isEnabled()
    qtbot.waitUntil(lambda: devices.settled and bool(devices.clusters), timeout=10_000)
    # The toggle turns the device layer off: nothing shown, nothing asked.
    pane.devices_toggle.setChecked(False)
    assert devices.clusters == [] and pane.view.cluster_items == []
    asked = devices.requests
    pane.view.zoom_by(2.0)
    qtbot.wait(100)
    assert devices.requests == asked
    pane.devices_toggle.setChecked(True)
    qtbot.waitUntil(lambda: bool(devices.clusters), timeout=10_000)
    runner.cancel_all()
