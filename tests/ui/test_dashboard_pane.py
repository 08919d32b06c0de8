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
    # The picker offers the KPI's durations only.
    offered = [chart.duration.itemData(i) for i in range(chart.duration.count())]
    assert offered == kpi.durations
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
    # Another duration refetches; the curves are kept and given new data.
    curve = chart.curves["uplinks"]
    before = pane.vm.refreshes
    chart.duration.setCurrentIndex(kpi.durations.index("PT6H"))
    qtbot.waitUntil(lambda: pane.vm.refreshes > before, timeout=20000)
    assert chart.curves["uplinks"] is curve
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
