"""What the map's layers share (the device clusters of `device_map`, the stations of
`station_layer`): the projection, the colours of the theme, a count in few characters. Its own
module so that a layer needs nothing of the pane that holds it."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPalette
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ..theme import SEVERITY_DARK, SEVERITY_LIGHT

MAX_LAT = 85.05112878  # Web Mercator's square world


# --- projection ---------------------------------------------------------------------------


def project(lat: float, lon: float) -> QPointF:
    """Latitude/longitude to scene coordinates (Web Mercator, degrees, north up)."""
    lat = max(-MAX_LAT, min(MAX_LAT, lat))
    northing = math.degrees(math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)))
    return QPointF(lon, -northing)


def unproject(point: QPointF) -> tuple[float, float]:
    """Scene coordinates to (latitude, longitude)."""
    lat = math.degrees(2 * math.atan(math.exp(math.radians(-point.y()))) - math.pi / 2)
    return lat, point.x()


# --- colours ------------------------------------------------------------------------------


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
    )


class MapColors:
    """The map's colours, from the palette of the current theme."""

    def __init__(self, palette: QPalette) -> None:
        role = QPalette.ColorRole
        base, window = palette.color(role.Base), palette.color(role.Window)
        text, highlight = palette.color(role.Text), palette.color(role.Highlight)
        # From the palette itself: during a theme change the palette arrives first.
        self.dark = dark = window.lightness() < 128
        self.outside = window
        self.sea = _mix(base, highlight, 0.16 if dark else 0.10)
        self.land = _mix(window, text, 0.10 if dark else 0.04)
        self.coast = _mix(self.land, text, 0.35)
        self.border = _mix(self.land, text, 0.22)
        self.cluster = QColor(highlight)
        self.cluster.setAlphaF(0.85)
        self.cluster_text = palette.color(role.HighlightedText)
        self.outline = QColor(base)
        self.device = QColor(highlight)
        self.scale_text = QColor(text)

    def severity(self, level: int) -> QColor:
        table = SEVERITY_DARK if self.dark else SEVERITY_LIGHT
        return QColor(table.get(level, table[2]))


def compact_count(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


COUNT_LABEL_Z = 50.0  # above every marker of every layer


class CountLabel(QGraphicsItem):
    """A marker's count, drawn above every marker of every layer: a station's square never
    hides a device cluster's count, nor a disc a station cluster's. It takes no clicks (an
    empty shape): the marker under it does."""

    def __init__(self, pos: QPointF, rect: QRectF, text: str, pixel_size: int) -> None:
        super().__init__()
        self.rect, self.text, self.pixel_size = QRectF(rect), text, pixel_size
        self.color = QColor("white")
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setPos(pos)
        self.setZValue(COUNT_LABEL_Z)

    def boundingRect(self) -> QRectF:
        return self.rect

    def shape(self) -> QPainterPath:
        return QPainterPath()

    def paint(
        self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None
    ) -> None:
        font = QFont(painter.font())
        font.setBold(True)
        font.setPixelSize(self.pixel_size)
        painter.setFont(font)
        painter.setPen(self.color)
        painter.drawText(self.rect, Qt.AlignmentFlag.AlignCenter, self.text)
