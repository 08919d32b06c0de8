"""The operator's dashboard: one chart per KPI, drawn with the colours and line styles its
metadata gives, over a duration picked among those the KPI supports, refreshed on a timer.
Each series can be hidden or shown (the list beside the chart), hovering names the time and
each visible value, and a chart's data exports to CSV and its picture to PNG.

pyqtgraph is imported when the first chart is made (PITFALLS: clip-to-view and peak
downsampling on the PlotItem, 1 px pens); a refresh only calls `setData` on the curves it
has.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...models.dashboard import DashboardViewModel, Series, duration_words
from ...schema.dashboard import Kpi
from ..connections import SignalConnections
from ..pane import Pane
from ..widgets.chart_background import follow_palette
from ..widgets.pane_parts import NOT_CONNECTED, PaneMessage, busy_bar

if TYPE_CHECKING:
    import pyqtgraph as pg

PEN_STYLES = {
    "SOLID": Qt.PenStyle.SolidLine,
    "DASHED": Qt.PenStyle.DashLine,
    "DOTTED": Qt.PenStyle.DotLine,
    "DASH_DOT": Qt.PenStyle.DashDotLine,
}
KEY_ROLE = Qt.ItemDataRole.UserRole
# Peak downsampling to ~2 samples a pixel (pyqtgraph's default, 5, drew a 1,000,000-point
# series panned a day at a time in 38 ms a frame; 2: 6 ms); the peaks are kept either way.
CURVE_OPTIONS: dict[str, Any] = {"autoDownsampleFactor": 2.0}
STAGGER_MS = 20  # between two charts' new data: each gets its own paint


def make_plot(name: str) -> pg.PlotWidget:
    """A time chart as every KPI chart (and the bench) uses it."""
    import pyqtgraph as pg

    plot = pg.PlotWidget(axisItems={"bottom": pg.DateAxisItem()})
    plot.setObjectName(name)
    item = plot.getPlotItem()
    item.setClipToView(True)  # through the PlotItem: plot(clipToView=...) raises
    item.setDownsampling(auto=True, mode="peak")
    # No grid: its translucent lines (drawn by the axes over the whole plot) doubled the paint
    # of a chart (29.8 -> 14.0 ms p50 for six series on this machine); hovering gives values.
    item.setMenuEnabled(False)
    item.getViewBox().setMouseEnabled(x=True, y=False)
    follow_palette(plot)
    return plot


def pen_for(series: Series) -> Any:
    import pyqtgraph as pg

    style = PEN_STYLES.get(series.line_style, Qt.PenStyle.SolidLine)
    return pg.mkPen(series.colour, width=1, style=style)


class KpiChart(QWidget):
    """One KPI: its duration picker, exports, the series list and the plot."""

    def __init__(self, vm: DashboardViewModel, kpi: Kpi, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.kpi = kpi
        self.setObjectName(f"kpiChart_{kpi.ID}")
        self.curves: dict[str, Any] = {}
        self._plot: pg.PlotWidget | None = None
        title = QLabel(f"<b>{kpi.name}</b>")
        title.setObjectName("kpiTitle")
        title.setToolTip(kpi.description or "")
        self.duration = QComboBox()
        self.duration.setObjectName("kpiDuration")
        self.duration.setToolTip("The period shown: the durations this indicator supports")
        for text in kpi.durations:
            self.duration.addItem(duration_words(text), text)
        current = vm.durations.get(kpi.ID)
        if current in kpi.durations:
            self.duration.setCurrentIndex(kpi.durations.index(current))
        self.duration.currentIndexChanged.connect(self._duration_picked)
        self.csv_button = QPushButton("Export data…")
        self.csv_button.setToolTip("Save this chart's values as a CSV file")
        self.csv_button.clicked.connect(self._ask_csv)
        self.png_button = QPushButton("Save picture…")
        self.png_button.setToolTip("Save this chart as a PNG image")
        self.png_button.clicked.connect(self._ask_png)
        self.hover = QLabel()
        self.hover.setObjectName("kpiHover")
        self.hover.setWordWrap(True)  # a long line would widen the whole pane
        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(self.duration)
        top.addWidget(self.csv_button)
        top.addWidget(self.png_button)

        self.legend = QListWidget()
        self.legend.setObjectName("kpiSeries")
        self.legend.setToolTip("Tick a series to show it, untick it to hide it")
        self.legend.setMaximumWidth(260)
        self.legend.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.legend.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.legend.itemChanged.connect(self._item_changed)
        self.empty = QLabel("Loading…")
        self.empty.setObjectName("kpiEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.setMinimumHeight(220)
        self.stack.addWidget(self.empty)
        body = QHBoxLayout()
        body.addWidget(self.stack, 1)
        body.addWidget(self.legend)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(body, 1)
        layout.addWidget(self.hover)

    @property
    def plot(self) -> pg.PlotWidget:
        if self._plot is None:
            self._plot = make_plot(f"kpiPlot_{self.kpi.ID}")
            unit = next((m.unit for m in self.kpi.metrics if m.unit), "")
            self._plot.getPlotItem().setLabel("left", unit)
            self._plot.getPlotItem().scene().sigMouseMoved.connect(self._mouse_moved)
            self.stack.addWidget(self._plot)
        return self._plot

    # --- data -------------------------------------------------------------------------------

    def update_series(self) -> None:
        """New values: setData on the curves there are, a curve for a new series only."""
        series = self.vm.series.get(self.kpi.ID, [])
        if not series or not any(s.values for s in series):
            self.empty.setText("No values in this period")
            self.stack.setCurrentWidget(self.empty)
            return
        import numpy as np

        plot = self.plot
        item = plot.getPlotItem()
        for key in set(self.curves) - {s.key for s in series}:
            item.removeItem(self.curves.pop(key))
        for s in series:
            curve = self.curves.get(s.key)
            if curve is None:
                curve = item.plot(pen=pen_for(s), name=s.label, **CURVE_OPTIONS)
                self.curves[s.key] = curve
            curve.setData(np.asarray(s.times_s, dtype=float), np.asarray(s.values, dtype=float))
            curve.setVisible(s.visible)
        self._sync_legend(series)
        self.stack.setCurrentWidget(plot)

    def _sync_legend(self, series: list[Series]) -> None:
        keys = [self.legend.item(i).data(KEY_ROLE) for i in range(self.legend.count())]
        if keys == [s.key for s in series]:
            return
        self.legend.blockSignals(True)
        self.legend.clear()
        for s in series:
            item = QListWidgetItem(s.label)
            item.setData(KEY_ROLE, s.key)
            swatch = QPixmap(12, 12)
            swatch.fill(QColor(s.colour))
            item.setIcon(swatch)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if s.visible else Qt.CheckState.Unchecked)
            item.setToolTip(f"{s.label}\n{s.key} · {s.line_style.lower().replace('_', '-')} line")
            self.legend.addItem(item)
        self.legend.blockSignals(False)

    def set_visible(self, key: str, visible: bool) -> None:
        curve = self.curves.get(key)
        if curve is not None:
            curve.setVisible(visible)
        for i in range(self.legend.count()):
            item = self.legend.item(i)
            if item.data(KEY_ROLE) == key:
                state = Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked
                if item.checkState() != state:
                    self.legend.blockSignals(True)
                    item.setCheckState(state)
                    self.legend.blockSignals(False)

    def _item_changed(self, item: QListWidgetItem) -> None:
        visible = item.checkState() == Qt.CheckState.Checked
        self.vm.set_visible(self.kpi.ID, item.data(KEY_ROLE), visible)

    def _duration_picked(self, index: int) -> None:
        if index >= 0:
            self.vm.set_duration(self.kpi.ID, self.duration.itemData(index))

    # --- hover ------------------------------------------------------------------------------

    def hover_text(self, seconds: float) -> str:
        return self.vm.value_text(self.kpi.ID, seconds) or ""

    def _mouse_moved(self, pos: QPointF) -> None:
        box = self.plot.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(pos):
            self.hover.clear()
            return
        self.hover.setText(self.hover_text(box.mapSceneToView(pos).x()))

    # --- export -----------------------------------------------------------------------------

    def _default_name(self, suffix: str) -> str:
        return f"kpi-{self.kpi.ID}-{datetime.now():%Y%m%d-%H%M}.{suffix}"

    def export_csv(self, path: Path | str) -> int:
        return self.vm.export_csv(self.kpi.ID, path)

    def export_png(self, path: Path | str) -> bool:
        """The chart as it is drawn (plot and series list) in a PNG file."""
        return bool(self.grab().save(str(path), "PNG"))

    def _ask_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export the chart's data", self._default_name("csv"), "CSV files (*.csv)"
        )
        if path:
            rows = self.export_csv(path)
            self.hover.setText(f"{rows:,} values saved to {path}")

    def _ask_png(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the chart as a picture", self._default_name("png"), "PNG images (*.png)"
        )
        if path:
            saved = self.export_png(path)
            self.hover.setText(f"Saved to {path}" if saved else f"Could not write {path}")


class DashboardPane(Pane):
    title = "Dashboard"

    def __init__(self, view_model: DashboardViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = view_model
        self.charts: dict[str, KpiChart] = {}
        self._pending: list[str] = []
        self._stagger = QTimer(self)
        self._stagger.setSingleShot(True)
        self._stagger.timeout.connect(self._apply_next)
        self.status = QLabel()
        self.status.setObjectName("dashboardStatus")
        self.busy = busy_bar()
        self.auto = QCheckBox(f"Refresh every {view_model.timer.interval() // 1000} s")
        self.auto.setObjectName("dashboardAutoRefresh")
        self.auto.setChecked(True)
        self.auto.toggled.connect(self._auto_toggled)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setObjectName("dashboardRefresh")
        self.refresh_button.clicked.connect(lambda: self.vm.refresh())
        self.message = PaneMessage()
        top = QHBoxLayout()
        top.addWidget(self.status)
        top.addWidget(self.busy)
        top.addStretch(1)
        top.addWidget(self.auto)
        top.addWidget(self.refresh_button)

        self.empty = QLabel()
        self.empty.setObjectName("emptyState")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.column = QWidget()
        self.column_layout = QVBoxLayout(self.column)
        self.column_layout.addStretch(1)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setWidget(self.column)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.scroller)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.stack, 1)
        self._connections = SignalConnections(
            (view_model.kpis_changed, self._kpis_changed),
            (view_model.values_changed, self._values_changed),
            (view_model.visibility_changed, self._visibility_changed),
            (view_model.state_changed, self._update),
        )
        self._kpis_changed()
        view_model.set_active(self.isVisible())  # shown later: showEvent

    def chart(self, uid: str) -> KpiChart:
        return self.charts[uid]

    def _kpis_changed(self) -> None:
        for chart in self.charts.values():
            self.column_layout.removeWidget(chart)
            chart.deleteLater()
        self.charts = {}
        self._pending.clear()
        for kpi in self.vm.kpis:
            chart = KpiChart(self.vm, kpi)
            self.charts[kpi.ID] = chart
            self.column_layout.insertWidget(self.column_layout.count() - 1, chart)
        self._update()

    def _values_changed(self, uid: str) -> None:
        """Queued: one chart is given its data per turn of the event loop, each painted
        before the next (five charts repainted in one go stalled the loop ~100 ms)."""
        if uid not in self._pending:
            self._pending.append(uid)
        if not self._stagger.isActive():
            self._stagger.start(0 if len(self._pending) == 1 else STAGGER_MS)

    def _apply_next(self) -> None:
        if self._pending:
            chart = self.charts.get(self._pending.pop(0))
            if chart is not None:
                chart.update_series()
        if self._pending:
            self._stagger.start(STAGGER_MS)
        self._update()

    def flush(self) -> None:
        """Give every queued chart its data now (tests, export)."""
        self._stagger.stop()
        while self._pending:
            self._apply_next()
        self._stagger.stop()

    def _visibility_changed(self, uid: str, key: str, visible: bool) -> None:
        chart = self.charts.get(uid)
        if chart is not None:
            chart.set_visible(key, visible)

    def _auto_toggled(self, on: bool) -> None:
        self.vm.set_auto_refresh(on)

    def empty_text(self) -> str:
        vm = self.vm
        if not vm.has_client:
            return NOT_CONNECTED
        if vm.denied:
            return vm.denied
        if vm.loading:
            return "Loading the key performance indicators…"
        if not vm.kpis:
            return f"Could not read the dashboard: {vm.failure}" if vm.failure else "No KPI"
        return ""

    def _update(self) -> None:
        empty = self.empty_text()
        self.empty.setText(empty)
        self.stack.setCurrentWidget(self.empty if empty else self.scroller)
        self.busy.setVisible(self.vm.loading or self.vm.refreshing)
        self.refresh_button.setEnabled(bool(self.vm.kpis) and not self.vm.denied)
        self.auto.setEnabled(bool(self.vm.kpis) and not self.vm.denied)
        if self.vm.updated_ms and not empty:
            newest = max(self.vm.updated_ms.values()) / 1000
            text = f"Updated {datetime.fromtimestamp(newest):%H:%M:%S}"
            if self.vm.failure:
                text += f" · last refresh failed: {self.vm.failure}"
            self.status.setText(text)
        else:
            self.status.setText("")

    def showEvent(self, event: Any) -> None:
        self.vm.set_active(True)
        super().showEvent(event)

    def hideEvent(self, event: Any) -> None:
        self.vm.set_active(False)
        super().hideEvent(event)

    def closeEvent(self, event: Any) -> None:
        self._connections.disconnect_all()
        self.vm.set_active(False)
        super().closeEvent(event)
