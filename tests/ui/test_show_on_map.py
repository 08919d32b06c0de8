"""Find and open on the map (issue 20): "Show on map" lands on the device or station, picked
and drawn on top of every cluster; a click opens a cluster; items sharing a place fan out."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, cast

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from lpwa_console.api import LpwaClient
from lpwa_console.models.device_map import DeviceMapViewModel, GeoBox
from lpwa_console.models.station_map import StationMapViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import DeviceClusters, DeviceFilter, DevicePage
from lpwa_console.ui.map_place import MapPlace, device_place, station_place
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.device_map import DeviceMapPane, FanItem
from tests.helpers import run, shot
from tests.models.test_device_map import FakeClient, FakeDevices, cluster
from tests.ui.test_device_map_pane import PARIS, THREE_CITIES, make, settle, width


@pytest.fixture
def runner(qtbot: Any, qloop: Any) -> Iterator[TaskRunner]:
    runner = TaskRunner()
    yield runner
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def live_pane(qtbot: Any, client: LpwaClient) -> tuple[DeviceMapPane, TaskRunner]:
    runner = TaskRunner()
    devices = DeviceMapViewModel(runner, debounce_ms=10)
    stations = StationMapViewModel(runner, debounce_ms=10)
    pane = DeviceMapPane(devices, stations=stations)
    qtbot.addWidget(pane)
    pane.resize(1000, 640)
    pane.show()
    qtbot.waitExposed(pane)
    stations.set_client(client)
    devices.set_client(client)
    return pane, runner


def test_the_place_text_carries_the_item() -> None:
    assert MapPlace.parse(device_place(45.5, 4.8, "70B3D5E750000001")) == MapPlace(
        45.5, 4.8, "device", "70B3D5E750000001"
    )
    assert MapPlace.parse("45.5,4.8") == MapPlace(45.5, 4.8)
    assert MapPlace.parse(station_place(1.0, 2.0, "1000000F")) == MapPlace(
        1.0, 2.0, "station", "1000000F"
    )
    assert MapPlace.parse("nowhere") is None


def test_show_on_map_lands_on_the_device_picked_and_on_top(qtbot: Any, client: LpwaClient) -> None:
    pane, runner = live_pane(qtbot, client)
    page = run(qtbot, client.devices.list(1, 50))
    device = next(d for d in page.briefs if d.lat is not None and d.lon is not None)
    assert device.lat is not None and device.lon is not None
    pane.open_item(device_place(device.lat, device.lon, device.EUI))
    vm, view = pane.vm, pane.view
    qtbot.waitUntil(lambda: vm.settled and vm.answered_box is not None, timeout=10000)
    box = view.visible_box()
    assert box is not None and width(box) < 0.05  # street level
    assert box.min_lat < device.lat < box.max_lat and box.min_lon < device.lon < box.max_lon
    focus = view.focus_item
    assert focus is not None and focus.place.ident == device.EUI
    # Drawn above every marker and count, at its own place: never lost in a cluster.
    others = [*view.cluster_items, *view.station_items]
    others += [i.count_label for i in view.cluster_items if i.count_label is not None]
    assert all(focus.zValue() > o.zValue() for o in others)
    qtbot.waitUntil(lambda: focus.name in (device.name, device.EUI), timeout=5000)
    assert pane.current_item()[0] == device_place(device.lat, device.lon, device.EUI)
    shot(pane, "show-on-map-device.png")
    # Enter (or a double-click on it) opens it.
    with qtbot.waitSignal(pane.navigate, timeout=2000) as opened:
        QTest.keyClick(view, Qt.Key.Key_Return)
    assert opened.args[0] == Location("devices", device.EUI)

    # The same for a base station.
    stations = run(qtbot, client.stations.list(1, 20))
    station = next(s for s in stations.briefs if s.lat is not None and s.lon is not None)
    assert station.lat is not None and station.lon is not None
    pane.open_item(station_place(station.lat, station.lon, station.lrrID))
    focus = view.focus_item
    assert focus is not None and focus.place.kind == "station"
    qtbot.waitUntil(lambda: focus.name == station.name, timeout=10000)
    where = view.mapFromScene(focus.pos())
    with qtbot.waitSignal(pane.navigate, timeout=2000) as opened:
        QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert opened.args[0] == Location("stations", station.lrrID)
    # Stations sharing a place fan out the same way (here: the one at this spot).
    spot = GeoBox(station.lat - 1e-6, station.lon - 1e-6, station.lat + 1e-6, station.lon + 1e-6)
    view.fan_requested.emit("station", spot, focus.pos())
    qtbot.waitUntil(lambda: bool(view.fan_items), timeout=10000)
    assert [(i.member.kind, i.member.ident) for i in view.fan_items] == [("station", station.lrrID)]
    pane.close()
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def test_a_click_opens_a_cluster(qtbot: Any, runner: TaskRunner) -> None:
    pane = make(qtbot, runner, FakeDevices(THREE_CITIES))
    view = pane.view
    before = settle(qtbot, pane)
    paris = next(i for i in view.cluster_items if i.cluster.count == 619)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(paris.pos()))
    after = settle(qtbot, pane)
    assert width(after) < width(before) / 20
    assert after.min_lat < PARIS[0] < after.max_lat and after.min_lon < PARIS[1] < after.max_lon
    # A click on a single device picks it (drawn on top, Enter opens it).
    dot = next((i for i in view.cluster_items if i.cluster.count == 1), None)
    if dot is not None:
        QTest.mouseClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(dot.pos())
        )
        assert view.focus_item is not None


class SharedPlace(FakeDevices):
    """Three devices at one spot (one building): a cluster that never splits."""

    def __init__(self) -> None:
        one = cluster(*PARIS, 3)
        one = one.model_copy(
            update={"bbox": one.bbox.model_copy(update={"northeast": one.location,
                                                        "southwest": one.location})}
        )  # fmt: skip
        super().__init__(lambda _box: DeviceClusters(count=3, clusters=[one]))
        self.listed: list[DeviceFilter | None] = []

    async def list(
        self, page_index: int = 1, page_size: int = 100, *, filters: DeviceFilter | None = None
    ) -> DevicePage:
        self.listed.append(filters)
        await asyncio.sleep(0)
        briefs = [
            {"EUI": f"70B3D5E7500000A{i}", "name": f"Meter {i}", "lat": PARIS[0], "lon": PARIS[1]}
            for i in range(3)
        ]
        return DevicePage.model_validate({"briefs": briefs, "count": 3})


def test_items_sharing_a_place_fan_out(qtbot: Any, runner: TaskRunner) -> None:
    devices = SharedPlace()
    pane = DeviceMapPane(DeviceMapViewModel(runner, debounce_ms=20))
    qtbot.addWidget(pane)
    pane.resize(900, 640)
    pane.show()
    qtbot.waitExposed(pane)
    pane.vm.set_client(cast(LpwaClient, FakeClient(devices)))
    settle(qtbot, pane)
    view = pane.view
    marker = view.cluster_items[0]
    QTest.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(marker.pos())
    )
    qtbot.waitUntil(lambda: len(view.fan_items) == 3, timeout=5000)
    box = devices.listed[-1]
    assert box is not None and box.minLat == box.maxLat == PARIS[0]
    names = sorted(i.member.name for i in view.fan_items)
    assert names == ["Meter 0", "Meter 1", "Meter 2"]
    shot(pane, "fan-out.png")
    # Each one apart from the others: picked with a click, opened with a double-click.
    fan: FanItem = view.fan_items[1]
    where = view.mapFromScene(fan.pos()) + QPoint(round(fan.offset.x()), round(fan.offset.y()))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert view.focus_item is not None and view.focus_item.place.ident == fan.member.ident
    with qtbot.waitSignal(pane.navigate, timeout=2000) as opened:
        QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert opened.args[0] == Location("devices", fan.member.ident)
    # Zooming draws the clusters anew: the fan goes.
    view.zoom_by(0.5)
    assert view.fan_items == []


def test_the_device_detail_offers_show_on_map(qtbot: Any, qloop: Any) -> None:
    from lpwa_console.schema.devices import Device
    from lpwa_console.ui.widgets.device_detail import DeviceDetail

    detail = DeviceDetail()
    qtbot.addWidget(detail)
    detail.show()
    placed = {"EUI": "70B3D57ED0000001", "name": "meter 1", "lat": 45.76, "lon": 4.84}
    detail.show_device(Device.model_validate(placed))
    assert "Show on map" in detail.label.text()
    href = detail.label.text().split("href='")[-1].split("'")[0]
    assert href.startswith("lpwa:map/")
    with qtbot.waitSignal(detail.navigate, timeout=1000) as went:
        detail.follow(href)
    assert went.args[0] == Location("map", device_place(45.76, 4.84, "70B3D57ED0000001"))
    detail.show_device(Device.model_validate({"EUI": "70B3D57ED0000002", "name": "nowhere"}))
    assert "Show on map" not in detail.label.text()
