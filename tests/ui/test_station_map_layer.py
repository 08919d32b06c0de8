"""The map's base station layer against the live sandbox: squares for the station clusters,
the layer toggle, a station's detail from its square, and the stations of a box drawn with
Shift+drag as command targets."""

from __future__ import annotations

import asyncio
from dataclasses import astuple
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolButton

from lpwa_console.api import LpwaClient
from lpwa_console.models.device_map import DeviceMapViewModel, GeoBox
from lpwa_console.models.station_map import StationMapViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.device_map import DeviceMapPane
from lpwa_console.ui.panes.map_parts import unproject
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


def _drag(port: Any, start: QPoint, end: QPoint, modifier: Any) -> None:
    """A user's drag: press, several moves with the button held, release at `end`."""
    QTest.mousePress(port, Qt.MouseButton.LeftButton, modifier, start)
    for t in (0.1, 0.3, 0.6, 0.9):
        where = start + (end - start) * t
        move = QMouseEvent(
            QEvent.Type.MouseMove,
            QPointF(where),
            QPointF(port.mapToGlobal(where)),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.LeftButton,
            modifier,
        )
        QApplication.sendEvent(port, move)
    QTest.mouseRelease(port, Qt.MouseButton.LeftButton, modifier, end)


def test_a_box_goes_from_the_press_to_the_release(qtbot: Any, client: LpwaClient) -> None:
    pane, vm = make(qtbot, client)
    with qtbot.waitSignal(vm.selection_ready, timeout=10000) as ready:
        vm.select_box(GeoBox.world())
    everywhere = ready.args[0]
    assert len(everywhere) >= 2
    qtbot.waitUntil(lambda: vm.answered_box is not None, timeout=10000)
    view, port = pane.view, pane.view.viewport()
    boxes: list[GeoBox] = []
    view.box_selected.connect(boxes.append)
    opened: list[Any] = []
    monkey_open = pane.station_layer
    assert monkey_open is not None
    # The whole world in view: a box over (nearly) all of it holds every station.
    view.fit_box(GeoBox.world(), keep=False)
    start, end = QPoint(3, 3), QPoint(port.width() - 3, port.height() - 3)
    with qtbot.waitSignal(vm.selection_ready, timeout=10000) as ready:
        _drag(port, start, end, Qt.KeyboardModifier.ShiftModifier)
    assert len(boxes) == 1
    (max_lat, min_lon), (min_lat, max_lon) = (unproject(view.mapToScene(p)) for p in (start, end))
    wanted = GeoBox(min_lat, min_lon, max_lat, max_lon).clamped()
    # The box reaches the release point, not the first move's.
    for got, expected in zip(astuple(boxes[0]), astuple(wanted), strict=True):
        assert abs(got - expected) < 0.5
    assert len(ready.args[0]) == len(everywhere)
    if monkey_open.dialog is not None:
        opened.append(monkey_open.dialog)
        monkey_open.dialog.close()

    # Discoverable: a toolbar button arms the box (no Shift), the drag disarms it.
    button = pane.findChild(QToolButton, "mapSelectBoxButton")
    assert button is not None and button.isVisible()
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    assert view.box_mode
    with qtbot.waitSignal(vm.selection_ready, timeout=10000) as ready:
        _drag(port, start, end, Qt.KeyboardModifier.NoModifier)
    assert len(boxes) == 2 and not view.box_mode and not button.isChecked()
    assert len(ready.args[0]) == len(everywhere)
    if monkey_open.dialog is not None:
        monkey_open.dialog.close()
    # ... and so does the map's right-click menu, whose action is the same.
    menu = pane.map_menu(QPoint(50, 50))
    texts = [a.text() for a in menu.actions()]
    assert "Select stations in a box" in texts and "Zoom in here" in texts
    next(a for a in menu.actions() if a.text() == "Select stations in a box").trigger()
    assert view.box_mode and button.isChecked()
    QTest.keyClick(view, Qt.Key.Key_Escape)
    assert not view.box_mode


def test_station_squares_never_hide_a_cluster_count(qtbot: Any, client: LpwaClient) -> None:
    pane, vm = make(qtbot, client)
    qtbot.waitUntil(lambda: bool(vm.clusters) and bool(pane.vm.clusters), timeout=10000)
    view = pane.view
    counted = [i for i in view.cluster_items if i.count_label is not None]
    assert counted, "the demo's world view has device clusters with counts"
    top_square = max(i.zValue() for i in view.station_items)
    for item in counted:
        label = item.count_label
        assert label is not None and label.scene() is view.map_scene
        assert label.zValue() > top_square  # drawn over any square
        assert label.text == item.label
        # Clicks go to the marker under the count, not to the count.
        where = view.mapFromScene(item.pos())
        assert view.cluster_at(where) is not None
    shot(pane, "station-layer-counts.png")
