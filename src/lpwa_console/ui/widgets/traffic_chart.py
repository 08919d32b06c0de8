"""Uplinks and downlinks per bucket of `/frames/aggregated`, as a count chart."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from .count_chart import CountChart

if TYPE_CHECKING:
    from ...schema.frames import FramesAggregation

UP_COLOR = "#2f6fbf"
DOWN_COLOR = "#ef6c00"
NO_TRAFFIC = "No traffic in this period"


class TrafficChart(CountChart):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__([("Uplink", UP_COLOR), ("Downlink", DOWN_COLOR)], "frames", parent)
        self.plot_name = "trafficPlot"  # the plot is made on first data
        self.empty.setObjectName("trafficEmpty")
        self.totals = (0, 0)
        self.show_message("No traffic loaded")

    def set_data(self, data: FramesAggregation | None) -> None:
        times, up, down = data.series() if data is not None else ([], [], [])
        self.totals = (int(sum(up)), int(sum(down)))
        self.set_series(times, [up, down], empty_text=NO_TRAFFIC)
