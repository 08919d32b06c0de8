"""The shared frame of the console's charts over time (counts, a station's health): a legend
row above the plot (so it never covers a line) with the hover text at its end, the plot made
on first use (pyqtgraph and numpy, ~0.5 s of the console's start, are imported when a chart
first has data to draw), and words instead of the plot when there is nothing to draw.

PITFALLS: clip-to-view and downsampling are set on the PlotItem, never through `plot()`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from .chart_background import follow_palette

if TYPE_CHECKING:
    import pyqtgraph as pg


def bucket_label(seconds: float) -> str:
    """The local time of a bucket, as a person reads it."""
    return datetime.fromtimestamp(seconds).strftime("%a %d %b %H:%M")


class TimeChart(QWidget):
    """Named series over time. A subclass makes its plot (`_make_plot`, from `_new_plot`)
    and says what hovering a time reads (`value_at`)."""

    empty_name = "chartEmpty"  # the empty words' object name

    def __init__(self, series: Sequence[tuple[str, str]], parent: QWidget | None = None) -> None:
        """`series`: (name, colour) pairs in legend order."""
        super().__init__(parent)
        self.series = list(series)
        self.names = [name for name, _ in self.series]
        self.plot_name = ""  # the plot's object name, once made
        self._plot: pg.PlotWidget | None = None
        self.curves: list[Any] = []
        legend = QHBoxLayout()
        legend.setContentsMargins(4, 0, 4, 0)
        for name, colour in self.series:
            swatch = QLabel(f'<span style="color:{colour}">&#9632;</span> {name}')
            swatch.setObjectName("chartLegend")
            legend.addWidget(swatch)
        legend.addStretch(1)
        self.hover = QLabel()
        self.hover.setObjectName("chartHover")
        legend.addWidget(self.hover)
        self.empty = QLabel()
        self.empty.setObjectName(self.empty_name)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.setMinimumHeight(160)  # the plot's, before it is made
        self.stack.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(legend)
        layout.addWidget(self.stack, 1)
        self.show_message("Nothing loaded yet")

    @property
    def plot_widget(self) -> pg.PlotWidget:
        """The plot, made (and pyqtgraph imported) on first use."""
        if self._plot is None:
            self._plot = self._make_plot()
        return self._plot

    def _make_plot(self) -> pg.PlotWidget:
        raise NotImplementedError

    def _new_plot(self, axis_items: dict[str, Any], unit: str) -> pg.PlotWidget:
        """A plot with the house settings (grid, no menu, dragged along time only, the
        palette's colours, hover), in the stack; the caller adds its curves."""
        import pyqtgraph as pg

        plot = pg.PlotWidget(axisItems=axis_items)
        if self.plot_name:
            plot.setObjectName(self.plot_name)
        plot.setMinimumHeight(160)
        item = plot.getPlotItem()
        item.setClipToView(True)
        item.setDownsampling(auto=True, mode="peak")
        item.showGrid(x=True, y=True, alpha=0.2)
        item.setLabel("left", unit)
        item.setMenuEnabled(False)
        item.getViewBox().setMouseEnabled(x=True, y=False)
        item.scene().sigMouseMoved.connect(self._on_mouse_moved)
        follow_palette(plot)
        self.stack.addWidget(plot)
        return plot

    def show_message(self, text: str) -> None:
        self.empty.setText(text)
        self.hover.clear()
        self.stack.setCurrentWidget(self.empty)

    def value_at(self, seconds: float) -> str | None:
        """The hover text at `seconds`, None outside the data."""
        raise NotImplementedError

    def _on_mouse_moved(self, pos: QPointF) -> None:
        box = self.plot_widget.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(pos):
            self.hover.clear()
            return
        self.hover.setText(self.value_at(box.mapSceneToView(pos).x()) or "")
