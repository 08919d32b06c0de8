"""The operator's dashboard: headline figures with their trend (devices active, stations
connected, alarms open, uplinks per hour), then one chart per KPI, drawn with the colours and
line styles its metadata gives, all over one period picked for the page, refreshed on a
timer. Each series can be hidden or shown (the list beside the chart, names in full),
hovering draws a line at the time and reads every visible value, and a chart's data exports
to CSV (plain numbers; the pane says where it went) and its picture to PNG.

pyqtgraph is imported when the first chart is made (PITFALLS: clip-to-view and peak
downsampling on the PlotItem, 1 px pens); a refresh only calls `setData` on the curves it
has.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPalette, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
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

from ...models.dashboard import (
    PERIODS,
    DashboardViewModel,
    Headline,
    Series,
    duration_words,
)
from ...schema.dashboard import Kpi
from ..connections import SignalConnections
from ..layouts import fill
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
LEGEND_MAX = 420  # px: a legend wider than this wraps its names instead
TREND_COLOURS = {True: "#2e7d32", False: "#c62828"}  # good news, bad news (light)
TREND_COLOURS_DARK = {True: "#81c784", False: "#ef5350"}


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

    saved = Signal(str)  # an export's outcome in words (the pane says it)

    def __init__(self, vm: DashboardViewModel, kpi: Kpi, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.kpi = kpi
        self.setObjectName(f"kpiChart_{kpi.ID}")
        self.curves: dict[str, Any] = {}
        self._plot: pg.PlotWidget | None = None
        self._cursor: Any = None  # the hover's vertical line, once the plot is made
        title = QLabel(f"<b>{kpi.name}</b>")
        title.setObjectName("kpiTitle")
        title.setToolTip(kpi.description or "")
        # The page's period, or why this chart shows another one.
        self.period = QLabel()
        self.period.setObjectName("kpiPeriod")
        self.period.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.csv_button = QPushButton("Export data…")
        self.csv_button.setToolTip("Save this chart's values as a CSV file")
        self.csv_button.clicked.connect(self._ask_csv)
        self.png_button = QPushButton("Save picture…")
        self.png_button.setToolTip("Save this chart as a PNG image")
        self.png_button.clicked.connect(self._ask_png)
        self.hover = QLabel()
        self.hover.setObjectName("kpiHover")
        self.hover.setWordWrap(True)  # a long line would widen the whole pane
        # Two lines kept, empty or not: a readout never moves the chart under the pointer.
        self.hover.setMinimumHeight(2 * self.hover.fontMetrics().lineSpacing())
        self.hover.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addWidget(self.period)
        top.addStretch(1)
        top.addWidget(self.csv_button)
        top.addWidget(self.png_button)

        self.legend = QListWidget()
        self.legend.setObjectName("kpiSeries")
        self.legend.setToolTip("Tick a series to show it, untick it to hide it")
        # Names in full: the list is as wide as its longest name (wrapping past LEGEND_MAX).
        self.legend.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.legend.setWordWrap(True)
        self.legend.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.legend.setFixedWidth(160)
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
        layout.addWidget(self.hover)
        layout.addLayout(body, 1)
        self.show_period()

    def show_period(self) -> None:
        note = self.vm.period_note(self.kpi.ID)
        duration = self.vm.durations.get(self.kpi.ID, "")
        self.period.setText(note or (duration_words(duration) if duration else ""))

    @property
    def plot(self) -> pg.PlotWidget:
        if self._plot is None:
            self._plot = make_plot(f"kpiPlot_{self.kpi.ID}")
            unit = next((m.unit for m in self.kpi.metrics if m.unit), "")
            self._plot.getPlotItem().setLabel("left", unit)
            self._plot.getPlotItem().scene().sigMouseMoved.connect(self._mouse_moved)
            import pyqtgraph as pg

            self._cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#888888"))
            self._cursor.setVisible(False)
            self._plot.getPlotItem().addItem(self._cursor, ignoreBounds=True)
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
        widest = max(self.legend.fontMetrics().horizontalAdvance(s.label) for s in series)
        room = 12 + 4 + 18 + 2 * self.legend.frameWidth() + 12  # swatch, check box, margins
        self.legend.setFixedWidth(min(LEGEND_MAX, widest + room + 20))

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

    # --- hover ------------------------------------------------------------------------------

    def hover_text(self, seconds: float) -> str:
        return self.vm.value_text(self.kpi.ID, seconds) or ""

    def hover_at(self, seconds: float) -> str:
        """Read the values at this time: the line drawn there, the text above the chart."""
        text = self.hover_text(seconds)
        if self._cursor is not None:
            self._cursor.setVisible(bool(text))
            self._cursor.setValue(seconds)
        self.hover.setText(text)
        return text

    def _mouse_moved(self, pos: QPointF) -> None:
        box = self.plot.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(pos):
            self.hover.clear()
            if self._cursor is not None:
                self._cursor.setVisible(False)
            return
        self.hover_at(box.mapSceneToView(pos).x())

    # --- export -----------------------------------------------------------------------------

    def _default_name(self, suffix: str) -> str:
        return f"kpi-{self.kpi.ID}-{datetime.now():%Y%m%d-%H%M}.{suffix}"

    def export_csv(self, path: Path | str) -> int:
        return self.vm.export_csv(self.kpi.ID, path)

    def export_png(self, path: Path | str) -> bool:
        """The chart as it is drawn (plot and series list) in a PNG file."""
        return bool(self.grab().save(str(path), "PNG"))

    def save_csv(self, path: Path | str) -> str:
        """Export to `path`; the outcome in words, naming the file (also as `saved`)."""
        try:
            rows = self.export_csv(path)
        except OSError as exc:
            text = f"Could not write {path}: {exc.strerror or exc}"
        else:
            text = f"Saved {rows:,} values of “{self.kpi.name}” to {path}"
        self.saved.emit(text)
        return text

    def save_png(self, path: Path | str) -> str:
        saved = self.export_png(path)
        text = (
            f"Saved the chart “{self.kpi.name}” to {path}" if saved else f"Could not write {path}"
        )
        self.saved.emit(text)
        return text

    def _ask_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export the chart's data", self._default_name("csv"), "CSV files (*.csv)"
        )
        if path:
            self.save_csv(path)

    def _ask_png(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the chart as a picture", self._default_name("png"), "PNG images (*.png)"
        )
        if path:
            self.save_png(path)


class HeadlineCard(QFrame):
    """One headline figure: its title, its value large, its trend over the page's period."""

    def __init__(self, headline: Headline, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"headline_{headline.key}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(headline.title)
        self.value = QLabel()
        self.value.setObjectName("headlineValue")
        font = QFont(self.value.font())
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        self.value.setFont(font)
        self.trend = QLabel()
        self.trend.setObjectName("headlineTrend")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(self.title)
        layout.addWidget(self.value)
        layout.addWidget(self.trend)
        self.show_headline(headline)

    def show_headline(self, headline: Headline) -> None:
        self.value.setText(headline.value)
        self.trend.setText(headline.trend or " ")  # the line is kept: nothing moves
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        colours = TREND_COLOURS_DARK if dark else TREND_COLOURS
        colour = colours.get(headline.good) if headline.good is not None else None
        self.trend.setStyleSheet(f"color: {colour};" if colour else "")


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
        self.period = QComboBox()
        self.period.setObjectName("dashboardPeriod")
        self.period.setToolTip("The period of every figure and chart of the page")
        for text in PERIODS:
            self.period.addItem(duration_words(text), text)
        self.period.setCurrentIndex(PERIODS.index(view_model.period))
        self.period.currentIndexChanged.connect(
            lambda i: self.vm.set_period(self.period.itemData(i)) if i >= 0 else None
        )
        self.message = PaneMessage()
        top = fill(
            QHBoxLayout(),
            QLabel("Period"), self.period, self.status, self.busy, 1,
            self.auto, self.refresh_button,
        )  # fmt: skip
        self.headlines: dict[str, HeadlineCard] = {}
        cards = QHBoxLayout()
        for headline in view_model.headlines():
            card = HeadlineCard(headline)
            self.headlines[headline.key] = card
            cards.addWidget(card, 1)

        self.empty = QLabel()
        self.empty.setObjectName("emptyState")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.column = QWidget()
        self.column_layout = QVBoxLayout(self.column)
        self.column_layout.addLayout(cards)
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
            chart.saved.connect(self.message.show_message)
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
        for headline in self.vm.headlines():
            self.headlines[headline.key].show_headline(headline)
        for chart in self.charts.values():
            chart.show_period()
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
