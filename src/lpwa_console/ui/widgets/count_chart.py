"""A time chart of counts (frames, alarms, commands): the shared base of every count chart
(the frame is widgets/time_chart.py's).

Counts read at a glance: the y axis starts at 0 and has integer ticks with no SI prefix
("frames (x0.001)" was pyqtgraph's default on a quiet device), hovering shows the bucket's
time and every series' value, and a period with nothing in it says so in words instead of
drawing a flat line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from .time_chart import TimeChart, bucket_label

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


class CountChart(TimeChart):
    """Step curves of counts over time buckets, one per named series."""

    def __init__(
        self, series: Sequence[tuple[str, str]], unit: str, parent: QWidget | None = None
    ) -> None:
        """`series`: (name, colour) pairs in legend order; `unit`: the y axis label."""
        self.unit = unit
        self._edges: Any = ()  # numpy arrays once there is data
        self._values: list[Any] = []
        super().__init__(series, parent)

    def _make_plot(self) -> pg.PlotWidget:
        import pyqtgraph as pg

        axes = {"bottom": pg.DateAxisItem(), "left": integer_axis()()}
        plot = self._new_plot(axes, self.unit)
        item = plot.getPlotItem()
        # Counts never go below 0: the view cannot be dragged or zoomed there.
        item.getViewBox().setLimits(yMin=0)
        self.curves = [
            item.plot(name=name, pen=pg.mkPen(colour, width=1), stepMode="center")
            for name, colour in self.series
        ]
        return plot

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
