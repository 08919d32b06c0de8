"""The map at street level: tiles from an MBTiles package or a tile server under the clusters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from PySide6.QtCore import QSettings

from lpwa_console.api import LpwaClient
from lpwa_console.models.device_map import DeviceMapViewModel, GeoBox
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.models.tiles import TileKey, TileLayerViewModel, tile_span
from lpwa_console.ui.panes.device_map import DeviceMapPane, project
from tests.helpers import shot
from tests.models.test_device_map import FakeClient, FakeDevices, cluster
from tests.tile_fixtures import make_mbtiles, png, tile_server

LYON = (45.76, 4.84)
Z = 14


def tiles_around(lat: float, lon: float, z: int, radius: int = 3) -> dict[TileKey, bytes]:
    point = project(lat, lon)
    span = tile_span(z)
    cx, cy = int((point.x() + 180) / span), int((point.y() + 180) / span)
    return {
        TileKey(z, x, y): png(((x * 40) % 255, (y * 40) % 255, 180), size=256)
        for x in range(cx - radius, cx + radius + 1)
        for y in range(cy - radius, cy + radius + 1)
    }


@pytest.fixture
def runner(qtbot: Any, qloop: Any) -> Iterator[TaskRunner]:
    runner = TaskRunner()
    yield runner
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def make(qtbot: Any, runner: TaskRunner, tiles: TileLayerViewModel) -> DeviceMapPane:
    vm = DeviceMapViewModel(runner, debounce_ms=20)
    pane = DeviceMapPane(vm, tiles)
    qtbot.addWidget(pane)
    pane.resize(900, 640)
    pane.show()
    qtbot.waitExposed(pane)
    vm.set_client(cast(LpwaClient, FakeClient(FakeDevices(lambda _box: _answer()))))
    qtbot.waitUntil(lambda: vm.settled and vm.answered_box is not None, timeout=5000)
    return pane


def _answer() -> Any:
    from lpwa_console.schema.devices import DeviceClusters

    one = cluster(*LYON, name="Meter at the station")
    return DeviceClusters(count=1, clusters=[one])


def test_one_device_fits_the_map_around_it(qtbot: Any, runner: TaskRunner, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    pane = make(qtbot, runner, TileLayerViewModel(settings, tmp_path / "cache"))
    box = pane.view.visible_box()
    assert box is not None
    assert box.min_lat < LYON[0] < box.max_lat and box.min_lon < LYON[1] < box.max_lon


def all_shown(pane: DeviceMapPane) -> bool:
    """Every tile of the view is held (the view is inside the generated tiles)."""
    layer = pane.view.tiles
    return bool(layer.visible_keys) and all(k in layer for k in layer.visible_keys)


def street_level(pane: DeviceMapPane) -> None:
    lat, lon = LYON
    pane.view.fit_box(GeoBox(lat - 0.004, lon - 0.006, lat + 0.004, lon + 0.006), keep=False)


def test_street_level_from_a_tile_package(qtbot: Any, runner: TaskRunner, tmp_path: Path) -> None:
    tiles = tiles_around(*LYON, Z)
    package = make_mbtiles(tmp_path / "lyon.mbtiles", tiles, name="Lyon")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    tiles_vm = TileLayerViewModel(settings, tmp_path / "cache")
    pane = make(qtbot, runner, tiles_vm)
    assert pane.basemap_button is not None
    pane.basemap_button.use_package(package)
    assert pane.basemap_button.actions_by_kind["mbtiles"].isChecked()
    street_level(pane)
    layer = pane.view.tiles
    qtbot.waitUntil(lambda: all_shown(pane), timeout=5000)
    assert layer.zoom == Z  # the package's deepest level, stretched to the street
    assert set(layer.pixmaps) <= set(tiles)
    qtbot.waitUntil(lambda: "Lyon" in pane.status.text(), timeout=3000)
    pane.grab()  # paints the layer: a decoding or painting fault shows here


def test_a_bad_package_is_refused_in_the_pane(
    qtbot: Any, runner: TaskRunner, tmp_path: Path
) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    pane = make(qtbot, runner, TileLayerViewModel(settings, tmp_path / "cache"))
    junk = tmp_path / "junk.mbtiles"
    junk.write_bytes(b"\x00" * 100)
    assert pane.basemap_button is not None
    pane.basemap_button.use_package(junk)
    assert pane.message.isVisible()
    assert "not an MBTiles tile package" in pane.message.text()
    assert pane.basemap_button.actions_by_kind["world"].isChecked()


def test_online_tiles_then_offline_from_the_cache(
    qtbot: Any, runner: TaskRunner, tmp_path: Path
) -> None:
    tiles = tiles_around(*LYON, Z)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    with tile_server(tiles) as server:
        tiles_vm = TileLayerViewModel(settings, tmp_path / "cache")
        tiles_vm.use_online(server.template)
        tiles_vm.source.max_zoom = Z  # type: ignore[union-attr]
        pane = make(qtbot, runner, tiles_vm)
        street_level(pane)
        qtbot.waitUntil(lambda: all_shown(pane), timeout=5000)
        seen = set(pane.view.tiles.pixmaps)
        pane.close()
    # A new session, the server gone: the same street is drawn from the disk cache.
    offline_vm = TileLayerViewModel(settings, tmp_path / "cache")
    offline_vm.restore()
    offline_vm.source.max_zoom = Z  # type: ignore[union-attr]
    again = make(qtbot, runner, offline_vm)
    street_level(again)
    qtbot.waitUntil(lambda: seen <= set(again.view.tiles.pixmaps), timeout=5000)


def test_show_on_map_wins_over_the_first_automatic_fit(
    qtbot: Any, runner: TaskRunner, tmp_path: Path
) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    vm = DeviceMapViewModel(runner, debounce_ms=20)
    devices = FakeDevices(lambda _box: _answer())
    devices.hold = True  # the automatic fit's answer arrives after the user's request
    vm.set_client(cast(LpwaClient, FakeClient(devices)))
    pane = DeviceMapPane(vm, TileLayerViewModel(settings, tmp_path / "cache"))
    qtbot.addWidget(pane)
    pane.resize(900, 640)
    pane.show()
    qtbot.waitExposed(pane)
    pane.open_item("48.8600,2.3500")  # Paris; the only device is in Lyon
    devices.hold = False
    for gate in devices.gates:
        gate.set()
    qtbot.waitUntil(lambda: vm.settled, timeout=5000)
    box = pane.view.visible_box()
    assert box is not None and box.max_lat - box.min_lat < 0.05
    assert box.min_lat < 48.86 < box.max_lat and box.min_lon < 2.35 < box.max_lon


def test_street_map_by_default_with_its_credit_then_offline_words(
    qtbot: Any, runner: TaskRunner, tmp_path: Path
) -> None:
    tiles = tiles_around(*LYON, Z)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    with tile_server(tiles) as server:
        settings.setValue("map/street_url", server.template)  # OpenStreetMap's stand-in
        tiles_vm = TileLayerViewModel(settings, tmp_path / "cache")
        tiles_vm.restore()  # a new user: the street map
        tiles_vm.source.max_zoom = Z  # type: ignore[union-attr]
        pane = make(qtbot, runner, tiles_vm)
        assert pane.basemap_button is not None
        assert pane.basemap_button.actions_by_kind["street"].isChecked()
        assert pane.view.attribution == "© OpenStreetMap contributors"
        street_level(pane)
        qtbot.waitUntil(lambda: all_shown(pane), timeout=5000)
        assert pane.view.notice == ""
        assert "OpenStreetMap" in pane.status.text()
        shot(pane, "map-street.png")
        pane.close()
    # No connection and nothing cached there: the map says why it is grey.
    offline_vm = TileLayerViewModel(settings, tmp_path / "cache")
    offline_vm.restore()
    again = make(qtbot, runner, offline_vm)
    again.view.fit_box(GeoBox(-30, 100, -20, 120), keep=False)  # far from what was seen
    qtbot.waitUntil(lambda: "needs an internet connection" in again.view.notice, timeout=10000)
    assert "tile package" in again.view.notice
    shot(again, "map-street-offline.png")


def test_the_scale_stays_readable_over_dark_tiles(
    qtbot: Any, runner: TaskRunner, tmp_path: Path
) -> None:
    from PySide6.QtGui import QColor

    black = {k: png((0, 0, 0), size=256) for k in tiles_around(*LYON, Z)}
    package = make_mbtiles(tmp_path / "night.mbtiles", black, name="Night")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    pane = make(qtbot, runner, TileLayerViewModel(settings, tmp_path / "cache"))
    assert pane.basemap_button is not None
    pane.basemap_button.use_package(package)
    street_level(pane)
    qtbot.waitUntil(lambda: all_shown(pane), timeout=5000)
    image = pane.view.viewport().grab().toImage()
    h = image.height()
    under_label = QColor(image.pixel(9, h - 9))  # inside the scale's plate
    open_map = QColor(image.pixel(image.width() // 2, h // 3))  # a black tile
    assert open_map.lightness() < 30
    window = pane.view.palette().color(pane.view.backgroundRole())
    assert abs(under_label.lightness() - window.lightness()) < 80  # the plate, not the tile


def test_offline_words_never_resize_the_map_into_asking_again(
    qtbot: Any, runner: TaskRunner, tmp_path: Path
) -> None:
    """Offline, the status line grows by the street map's words. It used to widen the pane,
    so the map was resized, asked for the new box, and the answer's words resized it back:
    a request every debounce, for ever (the frozen console's self-test timed out on it)."""
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    tiles_vm = TileLayerViewModel(settings, tmp_path / "cache")
    tiles_vm.restore()  # the street map, whose server (tests/conftest.py) cannot be reached
    pane = make(qtbot, runner, tiles_vm)
    pane.view.fit_box(GeoBox(-30, 100, -20, 120), keep=False)
    qtbot.waitUntil(lambda: "needs an internet connection" in pane.view.notice, timeout=10000)
    qtbot.waitUntil(lambda: pane.vm.settled, timeout=5000)
    # Words as long as a busy map's (counts, stations, the basemap's state) on a small pane.
    pane._update_state()
    long_words = pane.status.text() + "  ·  " + "1,234 base stations in 56 clusters" * 4
    width, least, asked = pane.view.width(), pane.minimumSizeHint().width(), pane.vm.requests
    pane.status.setText(long_words)
    assert pane.status.sizeHint().width() > pane.width()
    qtbot.wait(400)  # twenty debounce intervals
    assert pane.minimumSizeHint().width() == least and pane.view.width() == width
    assert pane.vm.settled and pane.vm.requests == asked
    pane._update_state()
    assert pane.status.toolTip() == pane.status.text()  # the words in full, where cut
