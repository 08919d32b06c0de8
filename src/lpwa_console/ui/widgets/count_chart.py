"""A time chart of counts (frames, alarms, commands): the shared base of every count chart.

Counts read at a glance: the y axis starts at 0 and has integer ticks with no SI prefix
("frames (x0.001)" was pyqtgraph's default on a quiet device), the legend is a row above the
plot so it never covers a line, hovering shows the bucket's time and every series' value, and
a period with nothing in it says so in words instead of drawing a flat line.

PITFALLS: clip-to-view and downsampling are set on the PlotItem, never through `plot()`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from ..theme import is_dark


class IntegerAxis(pg.AxisItem):  # type: ignore[misc]
    """A left axis for counts: whole-number ticks only, never an SI prefix or a fraction."""

    def __init__(self, orientation: str = "left") -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
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
        self.plot_widget = pg.PlotWidget(
            axisItems={"bottom": pg.DateAxisItem(), "left": IntegerAxis()}
        )
        self.plot_widget.setMinimumHeight(160)
        item = self.plot_widget.getPlotItem()
        item.setClipToView(True)
        item.setDownsampling(auto=True, mode="peak")
        item.showGrid(x=True, y=True, alpha=0.2)
        item.setLabel("left", unit)
        item.setMenuEnabled(False)
        # Counts never go below 0: the view cannot be dragged or zoomed there.
        item.getViewBox().setLimits(yMin=0)
        item.getViewBox().setMouseEnabled(x=True, y=False)
        self.curves: list[pg.PlotDataItem] = []
        legend = QHBoxLayout()
        legend.setContentsMargins(4, 0, 4, 0)
        for name, colour in series:
            self.curves.append(
                item.plot(name=name, pen=pg.mkPen(colour, width=1), stepMode="center")
            )
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
        self.stack.addWidget(self.plot_widget)
        self.stack.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(legend)
        layout.addWidget(self.stack, 1)

        self._edges = np.zeros(0)
        self._values: list[np.ndarray] = []
        item.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.show_message("Nothing loaded yet")

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
            self._edges, self._values = np.zeros(0), []
            self.show_message(empty_text)
            return
        x = np.asarray(times_ms, dtype=float) / 1000.0
        # stepMode="center": one more edge than values; the last bucket as wide as the one before
        step = float(x[1] - x[0]) if len(x) > 1 else 3600.0
        self._edges = np.append(x, x[-1] + step)
        self._values = [np.asarray(v, dtype=float) for v in values]
        for curve, ys in zip(self.curves, self._values, strict=True):
            curve.setData(self._edges, ys)
        top = max(float(ys.max()) for ys in self._values)
        self.plot_widget.setBackground("#17191d" if is_dark() else "w")
        item = self.plot_widget.getPlotItem()
        item.enableAutoRange(axis="x")
        item.setYRange(0, max(1.0, top * 1.1), padding=0)
        self.hover.clear()
        self.stack.setCurrentWidget(self.plot_widget)

    def value_at(self, seconds: float) -> str | None:
        """The hover text of the bucket holding `seconds`, or None outside the data."""
        if len(self._edges) < 2 or not self._edges[0] <= seconds < self._edges[-1]:
            return None
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
