"""The street-level tile layer of the map and its basemap menu.

The layer is one scene item over the whole world; it paints the tiles of the current zoom that
it holds, and where one is still missing, the matching part of a coarser tile it holds, so the
map never flashes empty while tiles arrive. Decoded tiles are kept in a small LRU.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QAction, QActionGroup, QPainter, QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsItem,
    QInputDialog,
    QLineEdit,
    QMenu,
    QStyleOptionGraphicsItem,
    QToolButton,
    QWidget,
)

from ...models.tiles import (
    ONLINE,
    PACKAGE,
    STREET,
    WORLD,
    TileKey,
    TileLayerViewModel,
    tile_span,
)

WORLD_RECT = QRectF(-180.0, -180.0, 360.0, 360.0)
MAX_PIXMAPS = 600  # about 40 MB of 256 px tiles


def tile_rect(key: TileKey) -> QRectF:
    span = tile_span(key.z)
    return QRectF(-180.0 + key.x * span, -180.0 + key.y * span, span, span)


class TileLayerItem(QGraphicsItem):
    def __init__(self) -> None:
        super().__init__()
        self.setZValue(0.5)  # over the world outline, under the borders and the clusters
        self.zoom = 0
        self.visible_keys: list[TileKey] = []
        self.pixmaps: OrderedDict[TileKey, QPixmap] = OrderedDict()

    def boundingRect(self) -> QRectF:
        return WORLD_RECT

    def __contains__(self, key: TileKey) -> bool:
        return key in self.pixmaps

    def show_keys(self, zoom: int, keys: list[TileKey]) -> None:
        self.zoom, self.visible_keys = zoom, keys
        self.update()

    def add(self, key: TileKey, data: bytes) -> bool:
        pixmap = QPixmap()
        if not pixmap.loadFromData(data):
            return False
        self.pixmaps[key] = pixmap
        self.pixmaps.move_to_end(key)
        while len(self.pixmaps) > MAX_PIXMAPS:
            self.pixmaps.popitem(last=False)
        self.update(tile_rect(key))
        return True

    def clear(self) -> None:
        self.pixmaps.clear()
        self.visible_keys = []
        self.update()

    def _covering(self, key: TileKey) -> tuple[QPixmap, QRectF] | None:
        """The tile itself, or the part of the nearest coarser tile held that covers it."""
        z, x, y = key
        for up in range(0, min(z, 8) + 1):
            parent = TileKey(z - up, x >> up, y >> up)
            pixmap = self.pixmaps.get(parent)
            if pixmap is None:
                continue
            part = pixmap.width() / (1 << up)
            sx, sy = (x - (parent.x << up)) * part, (y - (parent.y << up)) * part
            return pixmap, QRectF(sx, sy, part, part)
        return None

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        _widget: QWidget | None = None,
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        exposed = option.exposedRect
        for key in self.visible_keys:
            target = tile_rect(key)
            if not target.intersects(exposed):
                continue
            found = self._covering(key)
            if found is not None:
                painter.drawPixmap(target, found[0], found[1])


class BasemapButton(QToolButton):
    """ "Basemap ▾": OpenStreetMap's street map (online), the world outline, an offline tile
    package, or another online tile server."""

    message = Signal(str)  # a refusal to show the user

    def __init__(self, tiles: TileLayerViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tiles = tiles
        self.setObjectName("mapBasemap")
        self.setText("Basemap")
        self.setToolTip("Choose what is drawn under the devices")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        group = QActionGroup(self)
        self.actions_by_kind: dict[str, QAction] = {}
        for kind, text, slot in (
            (STREET, "Street map (OpenStreetMap, online)", self.use_street),
            (WORLD, "World outline (built in, offline)", tiles.use_world),
            (PACKAGE, "Tile package (MBTiles file)…", self.open_package),
            (ONLINE, "Online tile server…", self.set_online),
        ):
            action = menu.addAction(text)
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            group.addAction(action)
            self.actions_by_kind[kind] = action
        self.setMenu(menu)
        tiles.source_changed.connect(self.sync)
        self.sync()

    def sync(self) -> None:
        self.actions_by_kind[self.tiles.kind].setChecked(True)

    def use_street(self) -> None:
        error = self.tiles.use_street()
        if error:
            self.message.emit(f"Could not use the street map: {error}")
        self.sync()

    def open_package(self) -> None:
        start = str(self.tiles.settings.value("map/package", "")) or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a tile package", start, "MBTiles tile packages (*.mbtiles);;All files (*)"
        )
        self.sync()
        if path:
            self.use_package(Path(path))

    def use_package(self, path: Path) -> None:
        error = self.tiles.use_package(path)
        if error:
            self.message.emit(f"Could not open the tile package: {error}")
        self.sync()

    def set_online(self) -> None:
        current = str(self.tiles.settings.value("map/tile_url", "")) or "https://"
        template, ok = QInputDialog.getText(
            self,
            "Online tile server",
            "Address of the tiles, with {z}, {x} and {y} where the zoom, column and row go\n"
            "(for example https://tiles.example.net/{z}/{x}/{y}.png). Every tile shown is kept\n"
            "on this computer, so the places you have seen stay visible offline.",
            QLineEdit.EchoMode.Normal,
            current,
        )
        self.sync()
        if ok:
            self.use_online(template)

    def use_online(self, template: str) -> None:
        error = self.tiles.use_online(template)
        if error:
            self.message.emit(f"Could not use this tile server: {error}")
        self.sync()
