"""A chart's background that follows the palette: every pyqtgraph plot of the console gets
it through `follow_palette`, so switching between light and dark repaints charts made
before the switch too (they kept the background of the palette they were made in)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QWidget

DARK_BACKGROUND = "#17191d"
LIGHT_BACKGROUND = "w"
_CHANGES = (
    QEvent.Type.PaletteChange,
    QEvent.Type.ApplicationPaletteChange,
    QEvent.Type.StyleChange,
)


def background_for(palette: QPalette) -> str:
    """The chart background for this palette: judged by its window colour, not the app's
    dark flag, which is set after the palette (and its change events) during a switch."""
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    return DARK_BACKGROUND if dark else LIGHT_BACKGROUND


class _PaletteFollower(QObject):
    def __init__(self, plot: QWidget) -> None:
        super().__init__(plot)
        self._plot = plot
        self._applied: str | None = None
        plot.installEventFilter(self)
        self.apply()

    def apply(self) -> None:
        wanted = background_for(self._plot.palette())
        if wanted != self._applied:  # (setBackground repaints the whole scene)
            self._applied = wanted
            plot: Any = self._plot
            plot.setBackground(wanted)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._plot and event.type() in _CHANGES:
            self.apply()
        return False


def follow_palette(plot: QWidget) -> None:
    """Give `plot` (a pyqtgraph PlotWidget) the palette's background, now and after every
    palette or style change."""
    _PaletteFollower(plot)
