"""Base station alarms in the alarms centre against the live sandbox: listed with their
names and addInfo2 in words, merged with the others, and opening their station."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from lpwa_console.api import LpwaClient
from lpwa_console.models.alarms import AlarmsViewModel, kind_of
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.alarms import AlarmsPane


def test_station_alarms_in_the_centre(qtbot: Any, client: LpwaClient, qtmodeltester: Any) -> None:
    vm = AlarmsViewModel(TaskRunner(), page_size=50, refresh_ms=60_000)
    pane = AlarmsPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 600)
    pane.show()
    with qtbot.waitSignal(vm.first_page_loaded, timeout=15000):
        vm.set_client(client)
    everything = vm.model.rowCount()
    with qtbot.waitSignal(vm.first_page_loaded, timeout=15000):
        pane.source.setCurrentIndex(pane.source.findData("stations"))
    model = vm.model
    stations = model.rowCount()
    assert stations > 0  # the demo stations have open alarms
    assert everything > stations  # merged with the device and group alarms
    qtmodeltester.check(model)
    alarm = model.item(0)
    assert alarm is not None and kind_of(alarm) == "station"
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert model.index(0, headers.index("Source")).data() == "Base station"
    name = model.index(0, headers.index("Alarm")).data()
    assert name.startswith(str(alarm.ID)) and len(name) > 4  # "106 High CPU usage"
    assert model.index(0, headers.index("EUI / LRR ID")).data() == alarm.bs.lrrID
    with_info = [
        model.index(r, headers.index("Info")).data()
        for r in range(min(stations, 50))
        if model.item(r) is not None and model.item(r).addInfo2
    ]
    assert with_info and all("%" in text for text in with_info)
    # On a 1280-pixel screen (the pane ~1110 wide) what the alarm says is in view: Info, the
    # last column, takes the room the others leave (all of them in sight), and its whole
    # text is the cell's tooltip when the room is short.
    pane.resize(1110, 600)
    info = headers.index("Info")
    right = pane.table.columnViewportPosition(info) + pane.table.columnWidth(info)
    assert right <= pane.table.viewport().width()
    assert pane.table.columnWidth(info) >= 100
    qtbot.waitUntil(lambda: pane.table.horizontalScrollBar().maximum() == 0, timeout=2000)
    for r in range(min(stations, 50)):
        text = model.index(r, info).data()
        if text:
            assert model.index(r, info).data(Qt.ItemDataRole.ToolTipRole) == text
    # Enter opens its station on its alarms.
    pane.table.setFocus()
    pane.table.setCurrentIndex(model.index(0, 0))
    with qtbot.waitSignal(pane.navigate) as went:
        qtbot.keyClick(pane.table, Qt.Key.Key_Return)
    assert went.args == [Location("stations", alarm.bs.lrrID, "alarms")]
