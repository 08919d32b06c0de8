"""Uplinks and downlinks per bucket of `/frames/aggregated`, as a pyqtgraph chart.

PITFALLS: clip-to-view and downsampling are set on the PlotItem, never through `plot()`.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from ...schema.frames import FramesAggregation
from ..theme import is_dark

UP_COLOR = "#2f6fbf"
DOWN_COLOR = "#ef6c00"


class TrafficChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget(axisItems={"bottom": pg.DateAxisItem()})
        self.plot_widget.setObjectName("trafficPlot")
        self.plot_widget.setMinimumHeight(160)
        item = self.plot_widget.getPlotItem()
        item.setClipToView(True)
        item.setDownsampling(auto=True, mode="peak")
        item.showGrid(x=True, y=True, alpha=0.2)
        item.setLabel("left", "frames")
        item.setMenuEnabled(False)
        item.addLegend(offset=(10, 5))
        self.up_curve = item.plot(name="Uplink", pen=pg.mkPen(UP_COLOR, width=1), stepMode="center")
        self.down_curve = item.plot(
            name="Downlink", pen=pg.mkPen(DOWN_COLOR, width=1), stepMode="center"
        )
        self.empty = QLabel()
        self.empty.setObjectName("trafficEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.plot_widget)
        self.stack.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.totals = (0, 0)
        self.show_message("No traffic loaded")

    def show_message(self, text: str) -> None:
        self.empty.setText(text)
        self.stack.setCurrentWidget(self.empty)

    def set_data(self, data: FramesAggregation | None) -> None:
        if data is None or not data.briefs:
            self.up_curve.setData([], [])
            self.down_curve.setData([], [])
            self.totals = (0, 0)
            self.show_message("No traffic in this period")
            return
        times, up, down = data.series()
        x = np.asarray(times, dtype=float) / 1000.0
        # stepMode="center": one more edge than values; the last bucket as wide as the one before
        step = float(x[1] - x[0]) if len(x) > 1 else 3600.0
        edges = np.append(x, x[-1] + step)
        self.up_curve.setData(edges, np.asarray(up, dtype=float))
        self.down_curve.setData(edges, np.asarray(down, dtype=float))
        self.totals = (int(sum(up)), int(sum(down)))
        background = "#17191d" if is_dark() else "w"
        self.plot_widget.setBackground(background)
        self.plot_widget.getPlotItem().enableAutoRange()
        self.stack.setCurrentWidget(self.plot_widget)
