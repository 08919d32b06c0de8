"""A base station's health (CPU, RAM and disk use in % over time) and its RF probe traffic
(frames per bucket, a count chart).

pyqtgraph is imported when the first data arrives (PITFALLS: clip-to-view and downsampling on
the PlotItem, pens 1 px wide)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from ...models.station_detail import HEALTH_WINDOW, PROBE_WINDOW, HealthSeries, ProbeSeries
from ...schema.durations import duration_words
from .count_chart import CountChart
from .time_chart import TimeChart, bucket_label

if TYPE_CHECKING:
    import pyqtgraph as pg

HEALTH_SERIES = (("CPU", "#2f6fbf"), ("RAM", "#8e24aa"), ("Disk", "#ef6c00"))
PROBE_SERIES = (("Uplink", "#2f6fbf"), ("Downlink", "#ef6c00"))


class HealthChart(TimeChart):
    """CPU, RAM and disk use (0-100 %) over time; hovering names the time and each value."""

    empty_name = "healthEmpty"

    def __init__(self, parent: QWidget | None = None) -> None:
        self._times: Any = ()
        self._values: list[Any] = []
        super().__init__(HEALTH_SERIES, parent)
        self.plot_name = "healthPlot"

    def _make_plot(self) -> pg.PlotWidget:
        import pyqtgraph as pg

        plot = self._new_plot({"bottom": pg.DateAxisItem()}, "%")
        item = plot.getPlotItem()
        item.getViewBox().setLimits(yMin=0, yMax=100)
        self.curves = [item.plot(name=n, pen=pg.mkPen(c, width=1)) for n, c in HEALTH_SERIES]
        return plot

    def set_health(self, health: HealthSeries | None) -> None:
        if health is None:
            self.show_message("Nothing loaded yet")
            return
        if not health.times_ms:
            self.show_message(
                "The station has reported no CPU, RAM or disk figures in the last"
                f" {duration_words(HEALTH_WINDOW)}"
            )
            return
        import numpy as np

        plot = self.plot_widget
        self._times = np.asarray(health.times_ms, dtype=float) / 1000.0
        self._values = [np.asarray(v, dtype=float) for v in (health.cpu, health.ram, health.disk)]
        for curve, ys in zip(self.curves, self._values, strict=True):
            curve.setData(self._times[: len(ys)], ys)
        item = plot.getPlotItem()
        item.enableAutoRange(axis="x")
        item.setYRange(0, 100, padding=0)
        self.stack.setCurrentWidget(plot)

    def value_at(self, seconds: float) -> str | None:
        """The hover text of the report nearest `seconds`, None outside the data."""
        if len(self._times) == 0 or not self._times[0] <= seconds <= self._times[-1]:
            return None
        import numpy as np

        index = int(np.abs(self._times - seconds).argmin())
        parts = [
            f"{name} {values[index]:.0f} %"
            for (name, _c), values in zip(HEALTH_SERIES, self._values, strict=True)
            if index < len(values)
        ]
        return f"{bucket_label(float(self._times[index]))}  ·  " + "  ·  ".join(parts)


class ProbeChart(CountChart):
    """Frames the RF probe heard per bucket."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(list(PROBE_SERIES), "frames", parent)
        self.plot_name = "probePlot"
        self.empty.setObjectName("probeEmpty")
        self.show_message("Nothing loaded yet")

    def set_probe(self, probe: ProbeSeries | None) -> None:
        if probe is None:
            self.show_message("Nothing loaded yet")
            return
        self.set_series(
            probe.times_ms,
            [probe.uplinks, probe.downlinks],
            empty_text=f"The RF probe heard no frame in the last {duration_words(PROBE_WINDOW)}",
        )
