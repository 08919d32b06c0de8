"""The dashboard pane against the live sandbox: one chart per KPI drawn with the metadata's
colours and line styles, a duration picker limited to the KPI's durations, series toggled
from the list, hover text, CSV and PNG export; a subscriber is told KPIs are the operator's."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.dashboard import COLOURS, DashboardViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.dashboard import DASHBOARD_KPIS
from lpwa_console.ui.panes.dashboard import PEN_STYLES, DashboardPane
from tests.helpers import shot


@pytest.fixture
def operator(sandbox: Any, qloop: Any, qtbot: Any) -> Iterator[LpwaClient]:
    account = sandbox.account("operator")
    client = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


def make(qtbot: Any, client: LpwaClient | None) -> DashboardPane:
    runner = TaskRunner()
    vm = DashboardViewModel(runner)
    pane = DashboardPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 800)
    pane.show()
    vm.set_client(client)
    return pane


def _loaded(pane: DashboardPane) -> bool:
    return len(pane.charts) == len(DASHBOARD_KPIS) and all(
        chart.curves for chart in pane.charts.values()
    )


def test_operator_sees_kpi_charts_in_their_colours_and_styles(
    qtbot: Any, operator: LpwaClient, tmp_path: Path
) -> None:
    pane = make(qtbot, operator)
    qtbot.waitUntil(lambda: _loaded(pane), timeout=20000)
    assert pane.stack.currentWidget() is pane.scroller and pane.status.text().startswith("Updated")
    chart = pane.chart("traffic")
    kpi = chart.kpi
    # Pens from the metadata.
    for metric in kpi.metrics:
        if metric.wildcard:
            continue
        pen = chart.curves[metric.name].opts["pen"]
        assert pen.color() == QColor(COLOURS[metric.colorId or ""])
        assert pen.style() == PEN_STYLES[metric.lineStyle or "SOLID"] and pen.width() <= 1
    per_server = [k for k in chart.curves if k.startswith("appServerUplinks.")]
    assert per_server
    # Toggling a series from the list hides its curve.
    item = next(
        chart.legend.item(i)
        for i in range(chart.legend.count())
        if chart.legend.item(i).data(Qt.ItemDataRole.UserRole) == "downlinks"
    )
    item.setCheckState(Qt.CheckState.Unchecked)
    assert not chart.curves["downlinks"].isVisible()
    assert "Downlinks" not in chart.hover_text(chart.vm.series["traffic"][0].times_s[-1])
    item.setCheckState(Qt.CheckState.Checked)
    assert chart.curves["downlinks"].isVisible()
    # Hover names the values.
    last = chart.vm.series["traffic"][0].times_s[-1]
    assert "Uplinks" in chart.hover_text(last)
    # Another period for the page refetches; the curves are kept and given new data.
    curve = chart.curves["uplinks"]
    before = pane.vm.refreshes
    pane.period.setCurrentIndex(pane.period.findData("PT6H"))
    qtbot.waitUntil(lambda: pane.vm.refreshes > before, timeout=20000)
    assert chart.curves["uplinks"] is curve
    assert pane.vm.durations["traffic"] == "PT6H"
    # Exports.
    rows = chart.export_csv(tmp_path / "traffic.csv")
    assert rows > 0 and (tmp_path / "traffic.csv").read_text().startswith("time,series")
    assert chart.export_png(tmp_path / "traffic.png")
    assert not QImage(str(tmp_path / "traffic.png")).isNull()
    # Auto refresh can be turned off.
    pane.auto.setChecked(False)
    assert not pane.vm.auto_refresh
    pane.auto.setChecked(True)
    assert pane.vm.auto_refresh


def test_subscriber_is_told_which_account_sees_kpis(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    qtbot.waitUntil(lambda: "operator" in pane.empty.text(), timeout=20000)
    assert pane.stack.currentWidget() is pane.empty and not pane.charts
    assert not pane.refresh_button.isEnabled()


def test_not_connected(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, None)
    assert pane.empty.text() == "Not connected"


def test_a_hidden_pane_does_not_refresh(qtbot: Any, qloop: Any) -> None:
    vm = DashboardViewModel(TaskRunner())
    pane = DashboardPane(vm)
    qtbot.addWidget(pane)
    assert not vm.active
    pane.show()
    assert vm.active
    pane.hide()
    assert not vm.active and not vm.auto_refresh


def test_one_period_headlines_full_legends_and_a_word_after_export(
    qtbot: Any, operator: LpwaClient, tmp_path: Path
) -> None:
    pane = make(qtbot, operator)
    qtbot.waitUntil(lambda: _loaded(pane), timeout=20000)
    pane.flush()
    vm = pane.vm
    # Headline figures with their trend over the page's period.
    qtbot.waitUntil(lambda: pane.headlines["devicesActive"].value.text() != "—", timeout=20000)
    titles = [card.title.text() for card in pane.headlines.values()]
    assert titles == ["Devices active", "Stations connected", "Alarms open", "Uplinks per hour"]
    active = next(s for s in vm.series["devices"] if s.key == "active")
    assert pane.headlines["devicesActive"].value.text() == f"{round(active.values[-1]):,}"
    assert pane.headlines["stationsConnected"].value.text().endswith(" %")
    for card in pane.headlines.values():
        trend = card.trend.text()
        assert "over the last day" in trend and (trend[0] in "▲▼" or trend.startswith("no change"))
    # One period for the page: every chart follows it, or says which period it shows.
    pane.period.setCurrentIndex(pane.period.findData("PT6H"))
    qtbot.waitUntil(lambda: vm.durations["devices"] == "PT6H", timeout=5000)
    assert vm.durations["alarms"] == "P1D"  # this KPI keeps no 6-hour view
    assert "no 6 hours view" in pane.chart("alarms").period.text()
    assert pane.chart("devices").period.text() == "Last 6 hours"
    qtbot.waitUntil(lambda: "over the last 6 hours" in pane.headlines["devicesActive"].trend.text(),
                    timeout=20000)  # fmt: skip
    pane.flush()
    assert "6 hours" in pane.headlines["uplinksPerHour"].trend.text()
    # Legends in full: no name cut.
    legend = pane.chart("stations").legend
    for i in range(legend.count()):
        item = legend.item(i)
        assert (
            legend.visualItemRect(item).width()
            >= legend.fontMetrics().horizontalAdvance(item.text())
            or legend.wordWrap()
        )
    assert legend.width() > legend.fontMetrics().horizontalAdvance("Availability by partner")
    # Hover: a line at the time, the values read above the chart.
    chart = pane.chart("traffic")
    last = vm.series["traffic"][0].times_s[-1]
    text = chart.hover_at(last)
    assert "Uplinks" in text and chart.hover.text() == text and chart._cursor.isVisible()
    # CSV: plain numbers, and the pane says which file.
    path = tmp_path / "traffic.csv"
    chart.save_csv(path)
    assert pane.message.isVisible() and str(path) in pane.message.text()
    assert "Saved" in pane.message.text()
    import csv

    rows = list(csv.reader(path.open()))
    for row in rows[1:]:
        float(row[3])  # a number as it is: "1800", never "1,800"
    assert "," not in "".join(r[3] for r in rows[1:])
    shot(pane, "dashboard.png")
