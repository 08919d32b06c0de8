"""The dashboard's view-model: series from an answer (labels, colours, styles, dimension
element names), durations limited to the KPI's, toggles, hover text and CSV export; and
against the live sandbox, the operator's KPIs and a subscriber refused."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.dashboard import (
    OPERATOR_ONLY,
    DashboardViewModel,
    colour_of,
    default_duration,
    duration_words,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.dashboard import DASHBOARD_KPIS, Kpi, KpiLastValues, KpiMetric

KPI = Kpi.model_validate(
    {
        "ID": "traffic",
        "name": "Rates",
        "metrics": [
            {"name": "uplinks", "label": "Uplinks", "unit": "frames/h", "colorId": "blue",
             "lineStyle": "SOLID"},
            {"name": "byServer.*", "label": "By server", "colorId": "red",
             "lineStyle": "dotted", "keyDimension": "appServer"},
        ],
        "lastValues": {"durations": ["PT6H", "P1D"]},
    }
)  # fmt: skip
ANSWER = KpiLastValues.model_validate(
    {
        "kpi": "traffic", "duration": "P1D", "since": 0, "until": 7_200_000,
        "series": [
            {"key": "uplinks", "values": [{"timestamp": 3_600_000, "value": 10},
                                          {"timestamp": 7_200_000, "value": 12.5}]},
            {"key": "byServer.as-1", "values": [{"timestamp": 3_600_000, "value": 4}]},
            {"key": "byServer.as-2", "values": [{"timestamp": 3_600_000, "value": 6}]},
        ],
    }
)  # fmt: skip


def _vm() -> DashboardViewModel:
    vm = DashboardViewModel(TaskRunner())
    vm.kpis = [KPI]
    vm.durations = {"traffic": default_duration(KPI)}
    vm.element_names = {"appServer": {"as-1": "Billing AS"}}
    vm.set_values(ANSWER)
    return vm


def test_series_take_the_metadata_words_colours_and_styles(qtbot: Any) -> None:
    vm = _vm()
    series = {s.key: s for s in vm.series["traffic"]}
    assert series["uplinks"].label == "Uplinks" and series["uplinks"].colour == "#1f77b4"
    assert series["uplinks"].times_s == [3600.0, 7200.0]
    assert series["byServer.as-1"].label == "Billing AS (By server)"
    assert series["byServer.as-1"].line_style == "DOTTED"
    assert series["byServer.as-1"].colour == "#d62728"
    assert series["byServer.as-2"].label == "as-2 (By server)"  # an unknown element: its ID
    assert series["byServer.as-2"].colour != series["byServer.as-1"].colour


def test_durations_are_the_kpis_own(qtbot: Any) -> None:
    vm = _vm()
    assert vm.durations["traffic"] == "P1D"
    assert not vm.set_duration("traffic", "P3D") and vm.durations["traffic"] == "P1D"
    assert not vm.set_duration("nothing", "P1D")
    assert duration_words("PT6H") == "Last 6 hours" and duration_words("PT2H") == "Last 2 hours"
    assert (
        default_duration(Kpi(ID="k", name="k", lastValues={"durations": ["P3D", "PT6H"]})) == "PT6H"
    )
    assert colour_of(KpiMetric(name="x", colorId="#123456"), 0) == "#123456"
    assert colour_of(KpiMetric(name="x", colorId="mauve"), 0).startswith("#")


def test_toggling_hover_and_csv(qtbot: Any, tmp_path: Path) -> None:
    vm = _vm()
    with qtbot.waitSignal(vm.visibility_changed) as toggled:
        vm.set_visible("traffic", "byServer.as-2", False)
    assert toggled.args == ["traffic", "byServer.as-2", False]
    text = vm.value_text("traffic", 3650.0)
    assert text is not None and "Uplinks 10 frames/h" in text and "Billing AS (By server) 4" in text
    assert "as-2" not in text
    assert vm.value_text("traffic", 99_999.0) is None
    # A new answer keeps what was hidden.
    vm.set_values(ANSWER)
    assert not next(s for s in vm.series["traffic"] if s.key == "byServer.as-2").visible
    rows = list(csv.reader(io.StringIO(vm.csv_text("traffic"))))
    assert rows[0] == ["time", "series", "key", "value", "unit"]
    assert rows[1][:4] == ["1970-01-01T01:00:00+00:00", "Uplinks", "uplinks", "10"]
    assert len(rows) == 1 + 4
    path = tmp_path / "k.csv"
    assert vm.export_csv("traffic", path) == 4 and path.read_text().startswith("time,")


def _client(sandbox: Any, role: str) -> LpwaClient:
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
def operator(sandbox: Any, qloop: Any, qtbot: Any) -> Iterator[LpwaClient]:
    client = _client(sandbox, "operator")
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


@pytest.fixture
def subscriber(sandbox: Any, qloop: Any, qtbot: Any) -> Iterator[LpwaClient]:
    client = _client(sandbox, "subscriber")
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


def test_operator_sees_every_kpi_and_refreshes(
    qtbot: Any, operator: LpwaClient, runner: TaskRunner
) -> None:
    vm = DashboardViewModel(runner)
    vm.set_client(operator)
    qtbot.waitUntil(lambda: len(vm.series) == len(DASHBOARD_KPIS), timeout=20000)
    assert [k.ID for k in vm.kpis] == list(DASHBOARD_KPIS) and vm.auto_refresh
    assert vm.element_names["appServer"] and vm.element_names["partner"]
    stations = {s.key: s for s in vm.series["stations"]}
    region = next(s for k, s in stations.items() if k.startswith("regionAvailability."))
    assert region.label.endswith(" (Availability by RF region)")
    before = vm.refreshes
    assert vm.set_duration("traffic", "PT6H")
    qtbot.waitUntil(lambda: vm.refreshes > before, timeout=20000)
    assert vm.refresh() and not vm.refresh()  # never two refreshes at once
    qtbot.waitUntil(lambda: not vm.refreshing, timeout=20000)
    vm.set_client(None)
    assert not vm.auto_refresh and not vm.kpis


def test_subscriber_is_told_kpis_are_the_operators(
    qtbot: Any, subscriber: LpwaClient, runner: TaskRunner
) -> None:
    vm = DashboardViewModel(runner)
    vm.set_client(subscriber)
    qtbot.waitUntil(lambda: not vm.loading, timeout=20000)
    assert vm.denied == OPERATOR_ONLY and not vm.kpis and not vm.auto_refresh


def test_the_timer_runs_while_the_pane_shows_and_auto_refresh_is_on(qtbot: Any) -> None:
    vm = _vm()
    vm._sync_timer()
    assert vm.auto_refresh
    vm.set_active(False)
    assert not vm.auto_refresh
    vm.set_active(True)
    assert vm.auto_refresh
    vm.set_auto_refresh(False)
    assert not vm.auto_refresh and not vm.wants_auto
    vm.set_auto_refresh(True, seconds=5)
    assert vm.auto_refresh and vm.timer.interval() == 5000


def test_plain_numbers_periods_and_headlines(qtbot: Any) -> None:
    from lpwa_console.models.dashboard import period_of, plain_number

    assert [plain_number(v) for v in (1800.0, 93.5, 0.125, 1234567.0)] == [
        "1800", "93.5", "0.125", "1234567"
    ]  # fmt: skip
    kpi = Kpi(ID="k", name="k", lastValues={"durations": ["P1D", "P3D"]})
    assert period_of(kpi, "PT6H") == "P1D" and period_of(kpi, "P3D") == "P3D"
    vm = _vm()
    uplinks = next(h for h in vm.headlines() if h.key == "uplinksPerHour")
    series = next(s for s in vm.series["traffic"] if s.key == "uplinks")
    assert uplinks.value == f"{round(series.values[-1]):,}"
    delta = series.values[-1] - series.values[0]
    assert uplinks.trend.startswith("▲" if delta > 0 else "▼" if delta < 0 else "no change")
    assert next(h for h in vm.headlines() if h.key == "alarmsOpen").value == "—"  # not read
