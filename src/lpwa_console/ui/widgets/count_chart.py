"""A time chart of counts (frames, alarms, commands): the shared base of every count chart.

Counts read at a glance: the y axis starts at 0 and has integer ticks with no SI prefix
("frames (x0.001)" was pyqtgraph's default on a quiet device), the legend is a row above the
plot so it never covers a line, hovering shows the bucket's time and every series' value, and
a period with nothing in it says so in words instead of drawing a flat line.

PITFALLS: clip-to-view and downsampling are set on the PlotItem, never through `plot()`.

pyqtgraph and numpy (~0.5 s of the console's start) are imported when a chart first has
data to draw, not when the window is built: the plot is made then (`plot_widget`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from .chart_background import follow_palette

if TYPE_CHECKING:
    import pyqtgraph as pg


@cache
def integer_axis() -> type[pg.AxisItem]:
    import pyqtgraph as pg

    class IntegerAxis(pg.AxisItem):  # type: ignore[misc]
        """A left axis for counts: whole-number ticks only, never an SI prefix or a fraction."""

        def __init__(self, orientation: str = "left") -> None:
            super().__init__(orientation)
            self.enableAutoSIPrefix(False)

        def tickSpacing(
            self, minVal: float, maxVal: float, size: float
        ) -> list[tuple[float, float]]:
            spacings = super().tickSpacing(minVal, maxVal, size)
            # Round each level up to a whole step; drop levels that would repeat a coarser one.
            out: list[tuple[float, float]] = []
            for step, offset in spacings:
                whole = float(max(1, math.ceil(step)))
                if all(whole != s for s, _ in out):
                    out.append((whole, offset))
            return out

        def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
            return [f"{round(v):,}" if abs(v - round(v)) < 1e-6 else "" for v in values]

    return IntegerAxis


def __getattr__(name: str) -> Any:
    if name == "IntegerAxis":  # the class, made with pyqtgraph's import
        return integer_axis()
    raise AttributeError(name)


def bucket_label(seconds: float) -> str:
    """The local time of a bucket, as a person reads it."""
    return datetime.fromtimestamp(seconds).strftime("%a %d %b %H:%M")


class CountChart(QWidget):
    """Step curves of counts over time buckets, one per named series."""

    def __init__(
        self, series: Sequence[tuple[str, str]], unit: str, parent: QWidget | None = None
    ) -> None:
        """`series`: (name, colour) pairs in legend order; `unit`: the y axis label."""
        super().__init__(parent)
        self.unit = unit
        self.series = list(series)
        self.plot_name = ""  # the plot's object name, once made
        self._plot: pg.PlotWidget | None = None
        self.curves: list[pg.PlotDataItem] = []
        legend = QHBoxLayout()
        legend.setContentsMargins(4, 0, 4, 0)
        for name, colour in series:
            swatch = QLabel(f'<span style="color:{colour}">&#9632;</span> {name}')
            swatch.setObjectName("chartLegend")
            legend.addWidget(swatch)
        legend.addStretch(1)
        self.hover = QLabel()
        self.hover.setObjectName("chartHover")
        legend.addWidget(self.hover)
        self.names = [name for name, _ in series]

        self.empty = QLabel()
        self.empty.setObjectName("chartEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.setMinimumHeight(160)  # the plot's, before it is made
        self.stack.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(legend)
        layout.addWidget(self.stack, 1)

        self._edges: Any = ()  # numpy arrays once there is data
        self._values: list[Any] = []
        self.show_message("Nothing loaded yet")

    @property
    def plot_widget(self) -> pg.PlotWidget:
        """The plot, made (and pyqtgraph imported) on first use."""
        if self._plot is None:
            self._plot = self._make_plot()
        return self._plot

    def _make_plot(self) -> pg.PlotWidget:
        import pyqtgraph as pg

        plot = pg.PlotWidget(axisItems={"bottom": pg.DateAxisItem(), "left": integer_axis()()})
        if self.plot_name:
            plot.setObjectName(self.plot_name)
        plot.setMinimumHeight(160)
        item = plot.getPlotItem()
        item.setClipToView(True)
        item.setDownsampling(auto=True, mode="peak")
        item.showGrid(x=True, y=True, alpha=0.2)
        item.setLabel("left", self.unit)
        item.setMenuEnabled(False)
        # Counts never go below 0: the view cannot be dragged or zoomed there.
        item.getViewBox().setLimits(yMin=0)
        item.getViewBox().setMouseEnabled(x=True, y=False)
        self.curves = [
            item.plot(name=name, pen=pg.mkPen(colour, width=1), stepMode="center")
            for name, colour in self.series
        ]
        item.scene().sigMouseMoved.connect(self._on_mouse_moved)
        follow_palette(plot)
        self.stack.addWidget(plot)
        return plot

    def show_message(self, text: str) -> None:
        self.empty.setText(text)
        self.hover.clear()
        self.stack.setCurrentWidget(self.empty)

    def set_series(
        self, times_ms: Sequence[int], values: Sequence[Sequence[int]], *, empty_text: str
    ) -> None:
        """Buckets starting at `times_ms`, one value list per series. A period with no
        bucket, or with zero in every bucket, shows `empty_text` instead of a flat line."""
        if not times_ms or not any(any(v) for v in values):
            for curve in self.curves:
                curve.setData([], [])
            self._edges, self._values = (), []
            self.show_message(empty_text)
            return
        import numpy as np

        plot = self.plot_widget
        x = np.asarray(times_ms, dtype=float) / 1000.0
        # stepMode="center": one more edge than values; the last bucket as wide as the one before
        step = float(x[1] - x[0]) if len(x) > 1 else 3600.0
        self._edges = np.append(x, x[-1] + step)
        self._values = [np.asarray(v, dtype=float) for v in values]
        for curve, ys in zip(self.curves, self._values, strict=True):
            curve.setData(self._edges, ys)
        top = max(float(ys.max()) for ys in self._values)
        item = plot.getPlotItem()
        item.enableAutoRange(axis="x")
        item.setYRange(0, max(1.0, top * 1.1), padding=0)
        self.hover.clear()
        self.stack.setCurrentWidget(plot)

    def value_at(self, seconds: float) -> str | None:
        """The hover text of the bucket holding `seconds`, or None outside the data."""
        if len(self._edges) < 2 or not self._edges[0] <= seconds < self._edges[-1]:
            return None
        import numpy as np

        index = int(np.searchsorted(self._edges, seconds, side="right")) - 1
        parts = [f"{n} {int(v[index]):,}" for n, v in zip(self.names, self._values, strict=True)]
        return f"{bucket_label(float(self._edges[index]))}  ·  " + "  ·  ".join(parts)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        box = self.plot_widget.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(pos):
            self.hover.clear()
            return
        text = self.value_at(box.mapSceneToView(pos).x())
        self.hover.setText(text or "")
