"""Count charts read at a glance: integer axis from 0, legend outside, hover, empty in words."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg

from lpwa_console.schema.frames import FramesAggregation
from lpwa_console.ui.widgets.count_chart import IntegerAxis
from lpwa_console.ui.widgets.traffic_chart import NO_TRAFFIC, TrafficChart

HOUR_MS = 3_600_000
T0 = 1_767_225_600_000  # 2026-01-01 00:00 UTC


def _aggregation(up: list[int], down: list[int]) -> FramesAggregation:
    briefs = [
        {"timestamp": T0 + i * HOUR_MS, "up": {"count": u}, "dw": {"count": d}}
        for i, (u, d) in enumerate(zip(up, down, strict=True))
    ]
    return FramesAggregation.model_validate({"briefs": briefs})


def _chart(qtbot: Any) -> TrafficChart:
    chart = TrafficChart()
    qtbot.addWidget(chart)
    chart.resize(640, 320)
    chart.show()
    return chart


def test_a_quiet_device_says_so_in_words(qtbot: Any) -> None:
    chart = _chart(qtbot)
    chart.set_data(_aggregation([0, 0, 0], [0, 0, 0]))
    assert chart.stack.currentWidget() is chart.empty
    assert chart.empty.text() == NO_TRAFFIC
    chart.set_data(FramesAggregation())
    assert chart.empty.text() == NO_TRAFFIC


def test_counts_have_an_integer_axis_from_zero(qtbot: Any) -> None:
    chart = _chart(qtbot)
    chart.set_data(_aggregation([1, 3, 2], [0, 1, 0]))
    assert chart.stack.currentWidget() is chart.plot_widget
    assert chart.totals == (6, 1)
    item = chart.plot_widget.getPlotItem()
    (_, _), (y_min, y_max) = item.getViewBox().viewRange()
    assert y_min == 0 and y_max >= 3
    axis = item.getAxis("left")
    assert isinstance(axis, IntegerAxis)
    assert axis.labelUnitPrefix == ""  # no "(x0.001)"
    for step, _offset in axis.tickSpacing(0.0, 3.3, 300.0):
        assert step >= 1 and step == int(step)
    assert axis.tickStrings([0.0, 0.5, 1.0, 1200.0], 1.0, 0.5) == ["0", "", "1", "1,200"]


def test_legend_sits_outside_the_plot(qtbot: Any) -> None:
    chart = _chart(qtbot)
    chart.set_data(_aggregation([1, 2], [2, 1]))
    scene_items = chart.plot_widget.getPlotItem().scene().items()
    assert not any(isinstance(i, pg.LegendItem) for i in scene_items)
    legend = [w.text() for w in chart.findChildren(type(chart.hover), "chartLegend")]
    assert any("Uplink" in t for t in legend) and any("Downlink" in t for t in legend)


def test_hover_names_the_bucket_and_its_values(qtbot: Any) -> None:
    chart = _chart(qtbot)
    chart.set_data(_aggregation([4, 7], [1, 0]))
    text = chart.value_at((T0 + HOUR_MS + 60_000) / 1000)
    assert text is not None and "Uplink 7" in text and "Downlink 0" in text
    assert chart.value_at((T0 - HOUR_MS) / 1000) is None
    assert chart.value_at((T0 + 5 * HOUR_MS) / 1000) is None
