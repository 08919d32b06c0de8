"""The map pane: the box it asks for follows zoom and pan, the markers drawn are the answer's
clusters (merged where they would overlap), tooltips, double-click, errors, themes."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any, cast

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from lpwa_console.api import LpwaClient
from lpwa_console.models.device_map import DeviceMapViewModel, GeoBox
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import DeviceCluster, DeviceClusters, DeviceCreate
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.device_map import (
    SINGLE_RADIUS,
    ClusterItem,
    DeviceMapPane,
    nice_length,
    project,
    unproject,
)
from lpwa_console.ui.theme import SEVERITY_DARK, SEVERITY_LIGHT, apply_theme
from tests.helpers import refusal
from tests.models.test_device_map import FakeClient, FakeDevices, cluster

PARIS, BERLIN, MADRID = (48.86, 2.35), (52.52, 13.40), (40.42, -3.70)


def answer(*clusters: DeviceCluster) -> Any:
    """The platform's answer for a box: these clusters, those inside it."""

    def inside(box: GeoBox) -> DeviceClusters:
        found = [
            c for c in clusters
            if box.min_lat <= c.location.lat <= box.max_lat
            and box.min_lon <= c.location.lng <= box.max_lon
        ]  # fmt: skip
        return DeviceClusters(count=sum(c.count for c in found), clusters=found)

    return inside


THREE_CITIES = answer(
    cluster(*PARIS, 619), cluster(*BERLIN, 306), cluster(*MADRID, name="Meter in Madrid")
)


@pytest.fixture
def runner(qtbot: Any, qloop: Any) -> Iterator[TaskRunner]:
    runner = TaskRunner()
    yield runner
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def make(qtbot: Any, runner: TaskRunner, devices: FakeDevices | None) -> DeviceMapPane:
    vm = DeviceMapViewModel(runner, debounce_ms=20)
    pane = DeviceMapPane(vm)
    qtbot.addWidget(pane)
    pane.resize(900, 640)
    pane.show()
    qtbot.waitExposed(pane)
    if devices is not None:
        vm.set_client(cast(LpwaClient, FakeClient(devices)))
        settle(qtbot, pane)
    return pane


def settle(qtbot: Any, pane: DeviceMapPane) -> GeoBox:
    """Until the clusters shown answer the box in view; that box."""
    qtbot.waitUntil(lambda: pane.vm.settled and pane.vm.answered_box is not None, timeout=5000)
    box = pane.view.visible_box()
    assert box is not None and pane.vm.answered_box == box
    return box


def width(box: GeoBox) -> float:
    return box.max_lon - box.min_lon


def test_not_connected(qtbot: Any, runner: TaskRunner) -> None:
    pane = make(qtbot, runner, None)
    assert pane.stack.currentWidget() is pane.empty and pane.empty.text() == "Not connected"
    assert not pane.fit_button.isEnabled() and pane.status.text() == ""


def test_fits_the_devices_and_draws_the_answer(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(THREE_CITIES)
    pane = make(qtbot, runner, devices)
    view = pane.view
    assert devices.calls[0][0] == GeoBox.world()  # where are the devices: then fit them
    box = pane.vm.answered_box
    assert box is not None
    assert box.min_lat < MADRID[0] and box.max_lat > BERLIN[0]
    assert box.min_lon < MADRID[1] and box.max_lon > BERLIN[1]
    assert width(box) < 40  # fitted: not the world

    items = sorted(view.cluster_items, key=lambda i: -i.cluster.count)
    assert [i.cluster.count for i in items] == [619, 306, 1]
    assert [i.label for i in items] == ["619", "306", ""]
    for item, (lat, lon) in zip(items, (PARIS, BERLIN, MADRID), strict=True):
        expected = project(lat, lon)
        assert item.pos().x() == pytest.approx(expected.x())
        assert item.pos().y() == pytest.approx(expected.y())
    assert items[2].radius == SINGLE_RADIUS < items[1].radius < items[0].radius
    assert pane.status.text() == "926 devices in 3 clusters in view"
    assert pane.stack.currentWidget() is view


def test_single_device_tooltip_and_colour(qtbot: Any, runner: TaskRunner) -> None:
    pane = make(qtbot, runner, FakeDevices(THREE_CITIES))
    view = pane.view
    single = next(i for i in view.cluster_items if i.cluster.count == 1)
    assert single.toolTip() == (
        "Meter in Madrid\n70B3D5E75000ABCD\nAlarm: Major\nDouble-click to open"
    )
    table = SEVERITY_DARK if view.colors.dark else SEVERITY_LIGHT
    assert single.fill.name() == table[5]
    big = next(i for i in view.cluster_items if i.cluster.count == 619)
    assert big.toolTip() == "619 devices\nDouble-click to zoom in"
    # What is under the mouse is the marker (a dot is easier to hit than it looks).
    at = view.mapFromScene(single.pos()) + QPoint(5, 0)
    assert view.cluster_at(at) is single


def test_zoom_and_pan_change_the_requested_box(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(THREE_CITIES)
    pane = make(qtbot, runner, devices)
    view = pane.view
    before = settle(qtbot, pane)
    calls = len(devices.calls)

    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    zoomed = settle(qtbot, pane)
    assert len(devices.calls) == calls + 1
    assert width(zoomed) == pytest.approx(width(before) / 1.5, rel=0.02)
    assert before.min_lon < zoomed.min_lon < zoomed.max_lon < before.max_lon

    # The wheel zooms around the cursor: the place under it stays under it.
    at = QPointF(200, 150)
    place = unproject(view.mapToScene(at.toPoint()))
    wheel = QWheelEvent(
        at, view.viewport().mapToGlobal(at), QPoint(0, 0), QPoint(0, 240),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QApplication.sendEvent(view.viewport(), wheel)
    wheeled = settle(qtbot, pane)
    assert width(wheeled) == pytest.approx(width(zoomed) / 1.25**2, rel=0.02)
    after = unproject(view.mapToScene(at.toPoint()))
    assert after == pytest.approx(place, abs=2 / view.scale_factor)

    qtbot.keyClick(view, Qt.Key.Key_Right)
    panned = settle(qtbot, pane)
    assert width(panned) == pytest.approx(width(wheeled), rel=1e-3)
    assert panned.min_lon == pytest.approx(wheeled.min_lon + 0.2 * width(wheeled), rel=0.02)

    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert width(settle(qtbot, pane)) == pytest.approx(width(panned) * 1.5, rel=0.02)

    calls = len(devices.calls)
    qtbot.mouseClick(pane.fit_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(devices.calls) >= calls + 2, timeout=3000)
    assert devices.calls[calls][0] == GeoBox.world()  # where the devices are, then them
    fitted = settle(qtbot, pane)
    assert (fitted.min_lat, fitted.min_lon, fitted.max_lat, fitted.max_lon) == pytest.approx(
        (before.min_lat, before.min_lon, before.max_lat, before.max_lon), abs=1e-3
    )


def test_drag_pans(qtbot: Any, runner: TaskRunner) -> None:
    pane = make(qtbot, runner, FakeDevices(THREE_CITIES))
    view, viewport = pane.view, pane.view.viewport()
    before = settle(qtbot, pane)
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier

    def send(kind: QEvent.Type, x: float, buttons: Qt.MouseButton) -> None:
        at = QPointF(x, 300)
        event = QMouseEvent(kind, at, viewport.mapToGlobal(at), left, buttons, none)
        QApplication.sendEvent(viewport, event)

    send(QEvent.Type.MouseButtonPress, 500, left)
    for x in range(480, 299, -20):  # drag the map 200 px to the left: look further east
        send(QEvent.Type.MouseMove, x, left)
    send(QEvent.Type.MouseButtonRelease, 300, Qt.MouseButton.NoButton)
    after = settle(qtbot, pane)
    shift = 200 / view.scale_factor  # degrees of longitude
    assert after.min_lon == pytest.approx(before.min_lon + shift, abs=2 / view.scale_factor)
    assert after.min_lat == pytest.approx(before.min_lat)
    assert view.fit_target is None


def test_double_click_zooms_into_a_cluster(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(THREE_CITIES)
    pane = make(qtbot, runner, devices)
    view = pane.view
    before = settle(qtbot, pane)
    paris = next(i for i in view.cluster_items if i.cluster.count == 619)
    qtbot.mouseDClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(paris.pos())
    )
    box = settle(qtbot, pane)
    cell = GeoBox.of_cluster(paris.cluster)
    assert box.min_lat < cell.min_lat < cell.max_lat < box.max_lat
    assert box.min_lon < cell.min_lon < cell.max_lon < box.max_lon
    assert width(box) < width(before) / 100
    assert view.fit_target is None  # the user moved: a resize keeps this place


def test_overlapping_clusters_are_drawn_as_one(qtbot: Any, runner: TaskRunner) -> None:
    # Two grid cells split a town: their markers would overlap at the fitted scale.
    devices = FakeDevices(answer(
        cluster(48.86, 2.35, 400), cluster(48.86, 2.36, 100), cluster(52.52, 13.40, 50)
    ))  # fmt: skip
    pane = make(qtbot, runner, devices)
    counts = sorted(i.cluster.count for i in pane.view.cluster_items)
    assert counts == [50, 500]
    assert pane.status.text() == "550 devices in 2 clusters in view"
    # Close enough, they come apart.
    paris = next(i for i in pane.view.cluster_items if i.cluster.count == 500)
    pane.view.zoom_into(paris)
    settle(qtbot, pane)
    assert sorted(i.cluster.count for i in pane.view.cluster_items) == [100, 400]


def test_an_error_is_said(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(THREE_CITIES)
    pane = make(qtbot, runner, devices)
    devices.error = refusal(403, "Not allowed to list devices")
    with qtbot.waitSignal(pane.vm.error, timeout=3000):
        pane.refresh()
    assert pane.status.text().startswith("Could not load the devices of the map: ")
    assert "Not allowed to list devices" in pane.status.text()
    assert pane.message.isVisible()
    devices.error = None
    pane.refresh()
    settle(qtbot, pane)
    assert pane.status.text() == "926 devices in 3 clusters in view"


def test_connectivity_filter_and_session(qtbot: Any, runner: TaskRunner) -> None:
    devices = FakeDevices(THREE_CITIES)
    pane = make(qtbot, runner, devices)
    pane.connectivity.setCurrentIndex(pane.connectivity.findData("CELLULAR"))
    qtbot.waitUntil(lambda: pane.vm.settled, timeout=3000)
    filters = devices.calls[-1][1]
    assert filters is not None and filters.connectivity == "CELLULAR"
    pane.vm.set_client(None)
    assert pane.view.cluster_items == [] and pane.empty.text() == "Not connected"


def test_theme_colours(qtbot: Any, runner: TaskRunner) -> None:
    pane = make(qtbot, runner, FakeDevices(THREE_CITIES))
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    was_dark = bool(app.property("lpwaDark"))
    try:
        apply_theme(app, "dark")
        assert pane.view.colors.dark
        dark_sea = pane.view.sea.brush().color().name()
        single = next(i for i in pane.view.cluster_items if i.cluster.count == 1)
        assert single.fill.name() == SEVERITY_DARK[5]
        apply_theme(app, "light")
        assert not pane.view.colors.dark
        assert pane.view.sea.brush().color().name() != dark_sea
        assert single.fill.name() == SEVERITY_LIGHT[5]
    finally:
        apply_theme(app, "dark" if was_dark else "light")


def test_scale_bar_lengths() -> None:
    assert [nice_length(m) for m in (0.7, 1, 3, 7.5, 1234, 99_000)] == [
        0.5, 1, 2, 5, 1000, 50_000
    ]  # fmt: skip


def test_live_sandbox(qtbot: Any, client: LpwaClient) -> None:
    runner = TaskRunner()
    vm = DeviceMapViewModel(runner, debounce_ms=20)
    pane = DeviceMapPane(vm)
    qtbot.addWidget(pane)
    pane.resize(900, 640)
    pane.show()
    qtbot.waitExposed(pane)
    vm.set_client(client)
    settle(qtbot, pane)
    assert vm.total >= 2000 and pane.view.cluster_items
    drawn = sum(i.cluster.count for i in pane.view.cluster_items)
    assert drawn == vm.total
    assert pane.status.text().startswith(f"{vm.total:,} devices in ")
    assert all(isinstance(i, ClusterItem) for i in pane.view.cluster_items)
    pane.close()
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def test_double_click_on_a_device_dot_opens_the_device(qtbot: Any, runner: TaskRunner) -> None:
    pane = make(qtbot, runner, FakeDevices(THREE_CITIES))
    view = pane.view
    dot = next(i for i in view.cluster_items if i.cluster.count == 1)
    with qtbot.waitSignal(pane.navigate, timeout=1000) as opened:
        qtbot.mouseDClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(dot.pos())
        )
    assert opened.args[0] == Location("devices", "70B3D5E75000ABCD")


def test_the_map_says_how_many_devices_have_no_position(
    client: LpwaClient, qtbot: Any, runner: TaskRunner
) -> None:
    vm = DeviceMapViewModel(runner, debounce_ms=20)
    pane = DeviceMapPane(vm)
    qtbot.addWidget(pane)
    pane.resize(900, 640)
    pane.show()
    vm.set_client(client)
    # Other tests add devices to the shared sandbox: compare counts, never assume them.
    vm.set_connectivity("CELLULAR")
    qtbot.waitUntil(lambda: vm.unplaced is not None, timeout=10_000)
    cellular = vm.unplaced
    vm.set_connectivity(None)
    qtbot.waitUntil(lambda: vm.unplaced is not None, timeout=10_000)
    before = vm.unplaced
    assert before is not None and cellular is not None
    # A device without a position: in the list, on no cluster.
    eui = f"70B3D5E75F{uuid.uuid4().int % 16**6:06X}"
    created = asyncio.ensure_future(
        client.devices.create(DeviceCreate(EUI=eui, nwAddress="01020304", appSKey="00" * 16))
    )
    qtbot.waitUntil(created.done, timeout=10_000)
    created.result()
    vm.count_unplaced()
    qtbot.waitUntil(lambda: vm.unplaced == before + 1, timeout=10_000)
    assert pane.unplaced.text() == (
        f"{before + 1:,} device{'' if before == 0 else 's'} without a position"
    )
    # Another filter, another count (a LoRaWAN device: none among the cellular ones).
    vm.set_connectivity("CELLULAR")
    qtbot.waitUntil(lambda: vm.unplaced is not None, timeout=10_000)
    assert vm.unplaced == cellular
    pane.close()


def test_the_busy_bar_coming_and_going_never_resizes_the_map(
    qtbot: Any, runner: TaskRunner
) -> None:
    """At its narrowest (a laptop), the toolbar fills the pane's width. The busy bar shown for
    each request used to widen the pane, the map then asked for its new box, and the bar
    hidden at the answer narrowed it again: a request every debounce, for ever."""
    pane = make(qtbot, runner, FakeDevices(THREE_CITIES))
    pane.resize(pane.minimumSizeHint().width(), 500)
    settle(qtbot, pane)
    least, width, asked = pane.minimumSizeHint().width(), pane.view.width(), pane.vm.requests
    pane.busy.setVisible(True)
    assert pane.minimumSizeHint().width() == least
    pane.busy.setVisible(False)
    qtbot.wait(200)  # ten debounce intervals
    assert pane.view.width() == width and pane.vm.settled and pane.vm.requests == asked
