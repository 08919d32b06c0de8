"""The station health chart (CPU, RAM, disk in %) and the RF probe chart: drawn once there
is data, hover in words, a period without reports said in words."""

from __future__ import annotations

from typing import Any

from lpwa_console.models.station_detail import HealthSeries, ProbeSeries, health_series
from lpwa_console.ui.widgets.health_chart import HealthChart, ProbeChart
from lpwa_console.ui.widgets.station_detail import StationDetail
from tests.helpers import shot

HOUR = 3_600_000


def test_health_series_keeps_the_times_every_figure_has() -> None:
    series = health_series(
        {1: 10.0, 2: 20.0, 3: 30.0}, {2: 50.0, 3: 60.0}, {1: 5.0, 2: 6.0, 3: 7.0}
    )
    assert series.times_ms == [2, 3]
    assert (series.cpu, series.ram, series.disk) == ([20.0, 30.0], [50.0, 60.0], [6.0, 7.0])


def test_health_chart(qtbot: Any) -> None:
    chart = HealthChart()
    qtbot.addWidget(chart)
    chart.resize(500, 260)
    chart.show()
    assert chart.stack.currentWidget() is chart.empty
    chart.set_health(HealthSeries([], [], [], []))
    assert "no CPU, RAM or disk figures in the last 7 days" in chart.empty.text()
    start = 1_763_900_000_000
    times = [start + i * HOUR for i in range(48)]
    chart.set_health(
        HealthSeries(times, [30 + i % 20 for i in range(48)], [60.0] * 48, [41.0] * 48)
    )
    assert chart.stack.currentWidget() is chart.plot_widget
    text = chart.value_at(times[5] / 1000)
    assert text is not None and "CPU 35 %" in text and "RAM 60 %" in text and "Disk 41 %" in text
    assert chart.value_at(times[-1] / 1000 + 10 * 3600) is None
    shot(chart, "health-chart.png")


def test_probe_chart(qtbot: Any) -> None:
    chart = ProbeChart()
    qtbot.addWidget(chart)
    chart.set_probe(ProbeSeries([1, 2], [0, 0], [0, 0]))
    assert "no frame" in chart.empty.text()
    chart.set_probe(ProbeSeries([HOUR, 2 * HOUR, 3 * HOUR], [4, 9, 2], [1, 0, 3]))
    assert chart.stack.currentWidget() is chart.plot_widget


def test_station_detail_without_a_station(qtbot: Any, qloop: Any) -> None:
    from lpwa_console.models.station_detail import StationDetailViewModel
    from lpwa_console.models.tasks import TaskRunner

    detail = StationDetail(StationDetailViewModel(TaskRunner()))
    qtbot.addWidget(detail)
    assert not detail.showing_station
    assert detail.empty_title.text() == "No base station selected"
    assert not detail.edit_button.isEnabled()


def test_a_chart_made_in_one_palette_takes_the_next_ones_background(qtbot: Any) -> None:
    from PySide6.QtWidgets import QApplication

    from lpwa_console.ui.theme import apply_theme
    from lpwa_console.ui.widgets.chart_background import DARK_BACKGROUND, LIGHT_BACKGROUND

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = (app.palette(), app.styleSheet(), app.property("lpwaDark"))
    try:
        apply_theme(app, "light")
        chart = HealthChart()
        qtbot.addWidget(chart)
        chart.show()
        plot = chart.plot_widget
        plot.show()
        from pyqtgraph import mkColor

        def background() -> str:
            return str(plot.backgroundBrush().color().name())

        assert background() == mkColor(LIGHT_BACKGROUND).name()
        apply_theme(app, "dark")
        qtbot.waitUntil(lambda: background() == DARK_BACKGROUND)
        apply_theme(app, "light")
        qtbot.waitUntil(lambda: background() == mkColor(LIGHT_BACKGROUND).name())
    finally:
        app.setPalette(before[0])
        app.setStyleSheet(before[1])
        app.setProperty("lpwaDark", before[2])
