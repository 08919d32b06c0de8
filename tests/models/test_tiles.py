"""Basemap tiles: the MBTiles package, the online source and its offline cache, the view-model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QSettings

from lpwa_console import __version__
from lpwa_console.models import tiles as tiles_module
from lpwa_console.models.tiles import (
    OFFLINE_NOTICE,
    ONLINE,
    PACKAGE,
    STREET,
    STREET_ATTRIBUTION,
    STREET_TEMPLATE,
    WORLD,
    MBTilesSource,
    OnlineTileSource,
    TileKey,
    TileLayerViewModel,
    TileSourceError,
    check_template,
    expiry,
    tile_span,
    tiles_for_rect,
    zoom_for_scale,
)

from ..helpers import run
from ..tile_fixtures import make_mbtiles, png, tile_server

RED, GREEN, BLUE = png((200, 0, 0)), png((0, 200, 0)), png((0, 0, 200))


def _settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def test_zoom_follows_the_scale_within_the_source_levels() -> None:
    # 256 px tiles: zoom z has 256 * 2^z / 360 pixels per degree.
    assert zoom_for_scale(256 / 360, 0, 19) == 0
    assert zoom_for_scale(256 * 2**14 / 360, 0, 19) == 14
    assert zoom_for_scale(256 * 2**14 / 360, 0, 12) == 12  # stretched past the deepest level
    assert zoom_for_scale(256 / 360, 5, 12) == 5


def test_tiles_cover_the_rect_centre_first() -> None:
    span = tile_span(2)  # 90 scene units
    keys = tiles_for_rect(-180, -180, -180 + 2 * span - 1, -180 + span - 1, 2)
    assert set(keys) == {TileKey(2, 0, 0), TileKey(2, 1, 0)}
    whole = tiles_for_rect(-180, -180, 180, 180, 2)
    assert len(whole) == 16 and whole[0] in {TileKey(2, x, y) for x in (1, 2) for y in (1, 2)}
    assert tiles_for_rect(-180, -180, 180, 180, 12) == []  # the wrong zoom asks for nothing


def test_mbtiles_rows_are_flipped_and_metadata_read(tmp_path: Path) -> None:
    path = make_mbtiles(
        tmp_path / "lyon.mbtiles", {TileKey(3, 4, 1): RED, TileKey(5, 16, 11): GREEN}
    )
    source = MBTilesSource(path)
    assert (source.label, source.min_zoom, source.max_zoom) == ("Test region", 3, 5)
    assert source.read(TileKey(3, 4, 1)) == RED
    assert source.read(TileKey(5, 16, 11)) == GREEN
    assert source.read(TileKey(3, 4, 6)) is None  # the TMS row of (3, 4, 1), read as XYZ
    source.close()


def test_a_file_that_is_not_a_tile_package_is_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(TileSourceError, match="no such file"):
        MBTilesSource(tmp_path / "missing.mbtiles")
    junk = tmp_path / "notes.mbtiles"
    junk.write_text("not sqlite at all")
    with pytest.raises(TileSourceError, match="not an MBTiles tile package"):
        MBTilesSource(junk)
    empty = make_mbtiles(tmp_path / "empty.mbtiles", {})
    with pytest.raises(TileSourceError, match="holds no tiles"):
        MBTilesSource(empty)


def test_template_needs_a_scheme_and_the_placeholders() -> None:
    assert (
        check_template(" https://t.example/{z}/{x}/{y}.png ") == "https://t.example/{z}/{x}/{y}.png"
    )
    with pytest.raises(TileSourceError, match="https://"):
        check_template("t.example/{z}/{x}/{y}.png")
    with pytest.raises(TileSourceError, match=r"missing: \{y\}"):
        check_template("https://t.example/{z}/{x}.png")


def test_online_tiles_are_cached_and_keep_working_offline(
    tmp_path: Path, qtbot: Any, qloop: Any
) -> None:
    tiles = {TileKey(1, 0, 0): RED, TileKey(1, 1, 0): BLUE}
    with tile_server(tiles) as server:
        source = OnlineTileSource(server.template, tmp_path / "cache")
        assert run(qtbot, source.fetch(TileKey(1, 0, 0))) == RED
        assert run(qtbot, source.fetch(TileKey(1, 0, 0))) == RED  # from the disk this time
        assert run(qtbot, source.fetch(TileKey(1, 1, 1))) is None  # 404: a gap, not an error
        assert len(server.requests) == 2
        assert not source.offline
    # The server is gone: what was seen is still there, the rest is a gap.
    assert run(qtbot, source.fetch(TileKey(1, 0, 0))) == RED
    assert run(qtbot, source.fetch(TileKey(1, 1, 0))) is None
    assert source.offline
    run(qtbot, source._http.aclose())


def test_view_model_fetches_the_wanted_tiles_and_remembers_the_choice(
    tmp_path: Path, qtbot: Any, qloop: Any
) -> None:
    path = make_mbtiles(tmp_path / "r.mbtiles", {TileKey(2, x, 1): RED for x in range(4)})
    settings = _settings(tmp_path)
    vm = TileLayerViewModel(settings, tmp_path / "cache")
    assert vm.use_package(path) is None
    assert vm.kind == PACKAGE and "Test region" in vm.status
    got: list[TileKey] = []
    vm.tile_ready.connect(lambda key, data: got.append(key))
    vm.want([TileKey(2, x, 1) for x in range(4)] + [TileKey(2, 0, 3)])
    qtbot.waitUntil(lambda: len(got) == 4, timeout=5000)
    assert set(got) == {TileKey(2, x, 1) for x in range(4)}
    vm.close()

    again = TileLayerViewModel(settings, tmp_path / "cache")
    again.restore()
    assert again.kind == PACKAGE and again.source is not None
    again.use_world()
    assert again.source is None and settings.value("map/basemap") == WORLD
    again.close()


def test_a_package_that_went_missing_falls_back_to_the_world_and_says_why(tmp_path: Path) -> None:
    path = make_mbtiles(tmp_path / "gone.mbtiles", {TileKey(0, 0, 0): RED})
    settings = _settings(tmp_path)
    vm = TileLayerViewModel(settings, tmp_path / "cache")
    assert vm.use_package(path) is None
    vm.close()
    path.unlink()
    restored = TileLayerViewModel(settings, tmp_path / "cache")
    restored.restore()
    assert restored.kind == WORLD and "no such file" in restored.status
    assert settings.value("map/basemap") == PACKAGE  # the user's choice is kept for later
    bad = restored.use_online("ftp://nowhere")
    assert bad is not None and restored.kind == WORLD
    restored.close()


def test_online_choice_is_remembered(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    vm = TileLayerViewModel(settings, tmp_path / "cache")
    assert vm.use_online("https://tiles.example.net/{z}/{x}/{y}.png") is None
    assert vm.kind == ONLINE
    assert settings.value("map/tile_url") == "https://tiles.example.net/{z}/{x}/{y}.png"


def _street(tmp_path: Path, template: str) -> TileLayerViewModel:
    """A new user's basemap (nothing chosen yet), its street server being `template`."""
    settings = _settings(tmp_path)
    settings.setValue("map/street_url", template)
    vm = TileLayerViewModel(settings, tmp_path / "cache")
    vm.restore()
    return vm


def test_a_new_user_gets_the_openstreetmap_street_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tests' own street server is set aside (nothing is fetched here).
    monkeypatch.setattr(tiles_module, "STREET_TEMPLATE", STREET_TEMPLATE)
    vm = TileLayerViewModel(_settings(tmp_path), tmp_path / "cache")
    vm.restore()
    assert vm.kind == STREET and isinstance(vm.source, OnlineTileSource)
    assert vm.source.template == STREET_TEMPLATE
    assert STREET_TEMPLATE.startswith("https://tile.openstreetmap.org/")
    assert vm.attribution == STREET_ATTRIBUTION == "© OpenStreetMap contributors"
    vm.use_world()
    assert vm.attribution == ""
    vm.close()


def test_street_tiles_follow_the_usage_policy(tmp_path: Path, qtbot: Any, qloop: Any) -> None:
    tiles = {
        TileKey(4, x, y): png((x * 15, y * 15, 90), size=8) for x in range(4) for y in range(4)
    }
    with tile_server(tiles, delay=0.15) as server:
        vm = _street(tmp_path, server.template)
        got: list[TileKey] = []
        vm.tile_ready.connect(lambda key, _data: got.append(key))
        vm.want(list(tiles))
        qtbot.waitUntil(lambda: len(got) == len(tiles), timeout=10000)
        # At most two connections at once; one request per tile; never cache-busting.
        assert server.most_at_once == 2
        assert len(server.requests) == len(tiles)
        agents = {h.get("user-agent", "") for h in server.headers}
        assert len(agents) == 1
        agent = agents.pop()
        assert agent.startswith(f"LPWA-Console/{__version__} (")
        for headers in server.headers:
            assert "no-cache" not in headers.get("cache-control", "")
            assert "pragma" not in headers
        # Asked again (another view, a new session): from the disk, the server not asked.
        vm.close()
        again = _street(tmp_path, server.template)
        got.clear()
        again.tile_ready.connect(lambda key, _data: got.append(key))
        again.want(list(tiles))
        qtbot.waitUntil(lambda: len(got) == len(tiles), timeout=10000)
        assert len(server.requests) == len(tiles)
        assert again.notice == ""
        again.close()


def test_cache_headers_are_honoured(tmp_path: Path, qtbot: Any, qloop: Any) -> None:
    now = 1_000_000.0
    headers = httpx_headers({"Cache-Control": "max-age=600", "Age": "100"})
    assert expiry(headers, now) == now + 500
    assert expiry(httpx_headers({"Cache-Control": "no-store"}), now) is None
    assert expiry(httpx_headers({"Cache-Control": "no-cache"}), now) == now
    assert expiry(httpx_headers({"Expires": "Thu, 01 Jan 1970 00:30:00 GMT"}), now) == 1800
    assert expiry(httpx_headers({}), now) == now + 7 * 24 * 3600  # the policy's minimum
    key = TileKey(1, 0, 0)
    # An expired tile is asked again with its validator; a 304 keeps the tile on disk.
    with tile_server({key: RED}, cache_headers={"Cache-Control": "max-age=0"}) as server:
        source = OnlineTileSource(server.template, tmp_path / "cache")
        assert run(qtbot, source.fetch(key)) == RED
        assert run(qtbot, source.fetch(key)) == RED
        assert len(server.requests) == 2 and server.not_modified == 1
        assert server.headers[1].get("if-none-match", "").startswith('"')
        run(qtbot, source._http.aclose())
    # Expired and the server gone: the stale tile is better than nothing.
    source = OnlineTileSource(server.template, tmp_path / "cache")
    assert run(qtbot, source.fetch(key)) == RED and source.offline
    run(qtbot, source._http.aclose())


def test_offline_the_map_says_the_street_map_needs_a_connection(
    tmp_path: Path, qtbot: Any, qloop: Any
) -> None:
    with tile_server({}) as server:
        template = server.template  # a port nobody listens on once the server is gone
    vm = _street(tmp_path, template)
    statuses: list[str] = []
    vm.status_changed.connect(statuses.append)
    vm.want([TileKey(3, 4, 2)])
    qtbot.waitUntil(lambda: vm.notice == OFFLINE_NOTICE, timeout=10000)
    assert "connection" in vm.notice and "tile package" in vm.notice
    assert "offline" in vm.status
    vm.use_world()
    assert vm.notice == ""
    vm.close()


def httpx_headers(values: dict[str, str]) -> httpx.Headers:
    return httpx.Headers(values)
