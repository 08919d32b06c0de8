"""The map's base station layer against the live sandbox: squares for the station clusters,
the layer toggle, a station's detail from its square, and the stations of a box drawn with
Shift+drag as command targets."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from lpwa_console.api import LpwaClient
from lpwa_console.models.device_map import DeviceMapViewModel, GeoBox
from lpwa_console.models.station_map import StationMapViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.device_map import DeviceMapPane
from lpwa_console.ui.panes.station_layer import StationItem
from tests.helpers import shot


def make(qtbot: Any, client: LpwaClient) -> tuple[DeviceMapPane, StationMapViewModel]:
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
    return pane, stations


def test_station_layer(qtbot: Any, client: LpwaClient) -> None:
    pane, vm = make(qtbot, client)
    assert pane.station_layer is not None
    qtbot.waitUntil(lambda: vm.answered_box is not None and bool(vm.clusters), timeout=10000)
    items = pane.view.station_items
    assert items and all(isinstance(i, StationItem) for i in items)
    assert vm.total >= len(items)
    qtbot.waitUntil(lambda: "base station" in pane.status.text())

    # Zoomed on one station, its square opens its detail in the stations pane.
    task = asyncio.ensure_future(client.stations.list(1, 10))
    qtbot.waitUntil(task.done, timeout=10000)
    station = next(s for s in task.result().briefs if s.lat is not None and s.lon is not None)
    assert station.lat is not None and station.lon is not None
    requests = vm.requests
    pane.view.fit_box(
        GeoBox(station.lat - 1e-4, station.lon - 1e-4, station.lat + 1e-4, station.lon + 1e-4),
        keep=False,
    )

    def alone() -> Any:
        return next(
            (c for c in vm.clusters if c.item is not None and c.item.lrrID == station.lrrID), None
        )

    qtbot.waitUntil(
        lambda: vm.requests > requests and vm.settled and alone() is not None, timeout=10000
    )
    one = alone()
    item = next(i for i in pane.view.station_items if i.cluster is one)  # type: ignore[attr-defined]
    # The square stands up and right of its place (pixels: it ignores the view's scale).
    where = pane.view.mapFromScene(item.pos()) + item.square().center().toPoint()  # type: ignore[attr-defined]
    with qtbot.waitSignal(pane.navigate) as opened:
        QTest.mouseDClick(pane.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert opened.args == [Location("stations", station.lrrID)]
    pane.view.fit_box(GeoBox.world(), keep=False)
    shot(pane, "station-layer.png")

    # The layer toggle: off shows nothing and asks nothing.
    pane.station_layer.toggle.setChecked(False)
    assert pane.view.station_items == [] and vm.clusters == []
    pane.station_layer.toggle.setChecked(True)
    qtbot.waitUntil(lambda: bool(vm.clusters), timeout=10000)


def test_box_selection_lists_its_stations(qtbot: Any, client: LpwaClient) -> None:
    pane, vm = make(qtbot, client)
    with qtbot.waitSignal(vm.selection_ready, timeout=10000) as ready:
        vm.select_box(GeoBox.world())
    refs, _box = ready.args
    assert refs and all(r.uid == "i" + r.lrr_id for r in refs)

    # Drawn with Shift+drag on the view, the box is what the view shows between the points.
    boxes: list[GeoBox] = []
    pane.view.box_selected.connect(boxes.append)
    port = pane.view.viewport()
    start, end = QPoint(100, 100), QPoint(400, 300)
    QTest.mousePress(port, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, start)
    QTest.mouseMove(port, QPoint(250, 200))
    QTest.mouseMove(port, end)
    QTest.mouseRelease(port, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, end)
    assert len(boxes) == 1
    assert not boxes[0].empty
