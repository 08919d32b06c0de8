"""The alarms centre against the live sandbox: rows, colours, filters, acknowledge, live
refresh that keeps the selection and the scroll position."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel

from lpwa_console.api import LpwaClient
from lpwa_console.models.alarms import AlarmsViewModel
from lpwa_console.models.paged_table import PLACEHOLDER, SeverityRole
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.panes.alarms import AlarmsPane
from tests.helpers import shot


def make(qtbot: Any, client: LpwaClient | None) -> AlarmsPane:
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    pane = AlarmsPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 600)
    pane.show()
    if client is not None:
        with qtbot.waitSignal(vm.first_page_loaded, timeout=15000):
            vm.set_client(client)
    return pane


def test_not_connected(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, None)
    assert pane.empty.text() == "Not connected"
    assert not pane.ack_button.isEnabled()


def test_alarms_live(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    vm, model = pane.vm, pane.vm.model
    total = model.rowCount()
    assert total >= 2  # the demo network has open alarms
    assert pane.count_label.text().endswith("alarms")
    assert model.index(0, 0).data() not in ("", PLACEHOLDER)
    assert model.index(0, 0).data(SeverityRole) in range(1, 7)
    shot(pane, "alarms-pane.png")

    # Scroll down a little, select two rows, refresh: both stay, no reset.
    pane.table.scrollTo(model.index(min(total - 1, 30), 0))
    qtbot.waitUntil(lambda: not model.loading, timeout=5000)
    scroll = pane.table.verticalScrollBar().value()
    selection = pane.table.selectionModel()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    rows = [0, 1]
    for r in rows:
        selection.select(model.index(r, 0), flags)
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    with qtbot.waitSignal(model.refreshed, timeout=10000):
        vm.refresh_visible()
    assert resets == []
    assert pane.selected_rows() == rows
    assert pane.table.verticalScrollBar().value() == scroll

    # Acknowledge the selection: the rows say so, then the filter drops them on reload.
    uids = {model.item(r).alarmUid for r in rows}
    with qtbot.waitSignal(vm.acknowledged, timeout=10000) as acked:
        pane.ack_button.click()
    assert acked.args[0].startswith(f"{len(rows)} alarm")
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.acked.setCurrentIndex(pane.acked.findData(True))
    qtbot.waitUntil(lambda: not model.loading, timeout=5000)
    shown = {model.item(r).alarmUid for r in range(min(model.rowCount(), 50)) if model.item(r)}
    assert model.rowCount() >= len(rows)
    assert uids & shown or model.rowCount() > 50

    # Minimum severity goes to the server.
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.severity.setCurrentIndex(pane.severity.findData(6))
    qtbot.waitUntil(lambda: not model.loading, timeout=5000)
    for r in range(min(model.rowCount(), 50)):
        item = model.item(r)
        assert item is None or int(item.state) == 6
