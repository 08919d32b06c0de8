"""Base stations in words: list columns, alarms 102-111 and their addInfo2, the partner's
stations used of granted, the merge of group and station alarms in the alarms centre."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt

from lpwa_console.models.alarms import (
    STATION_ALARM_TYPES,
    add_info2_words,
    alarm_meaning,
    alarm_name,
    comes_before,
    merged_list,
)
from lpwa_console.models.paged_table import PagedTableModel, SeverityRole
from lpwa_console.models.partners import PartnerViewModel
from lpwa_console.models.stations import (
    connection_text,
    station_columns,
    station_ref,
    worst_alarm,
    worst_alarm_text,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.alarms import AlarmFilter, MulticastAlarmBrief
from lpwa_console.schema.common import ListEnvelope
from lpwa_console.schema.partners import Partner
from lpwa_console.schema.stations import BaseStationBrief


def brief(n: int, **fields: Any) -> BaseStationBrief:
    data: dict[str, Any] = {"lrrID": f"0A{n:06X}", "name": f"Station {n}"}
    data.update(fields)
    return BaseStationBrief.model_validate(data)


def test_station_alarm_names_and_add_info2_in_words() -> None:
    assert set(STATION_ALARM_TYPES) == {102, 103, 104, 105, 106, 107, 108, 111}
    assert alarm_name(106) == "106 High CPU usage"
    assert "disconnected" in alarm_meaning(102)
    assert add_info2_words(106, "93") == "CPU 93 % average over the last hour"
    assert add_info2_words(107, "81.5%") == "RAM 81.5 % average over the last hour"
    assert add_info2_words(104, "12") == (
        "12 % of uplink frames with an invalid CRC over the last 4 hours"
    )
    assert add_info2_words(102, None) == ""
    # A value that is not a number still says which alarm it belongs to.
    assert add_info2_words(108, "n/a") == "File system nearly full: n/a"
    assert add_info2_words(4, "whatever") == "whatever"


def test_station_row_words() -> None:
    disconnected = brief(1, cnxState="DISC", alarm5=2, alarm3=1)
    assert connection_text(disconnected) == "Disconnected"
    assert worst_alarm(disconnected) == 5
    assert worst_alarm_text(disconnected) == "Major"
    assert worst_alarm(brief(2, alarmLevel=6)) == 6
    assert worst_alarm(brief(3)) is None
    assert worst_alarm(brief(5, alarmLevel=1)) is None  # cleared, not acknowledged yet
    ref = station_ref(brief(4, model={"ID": "M1", "softwareType": "LRR_LINUX"}))
    assert (ref.uid, ref.lrr_id, ref.name, ref.software_type) == (
        "i0A000004",
        "0A000004",
        "Station 4",
        "LRR_LINUX",
    )


def test_station_columns_under_the_model_tester(qtmodeltester: Any, qloop: Any, qtbot: Any) -> None:
    rows = [
        brief(n, cnxState=("CNX", "DISC")[n % 2], alarmLevel=(0, 6)[n % 2], tags=[{"name": "n"}])
        for n in range(30)
    ]

    async def fetch(page: int, size: int, _s: str | None, _d: bool) -> ListEnvelope[Any]:
        part = rows[(page - 1) * size : page * size]
        return ListEnvelope[Any](briefs=part, count=len(rows), more=page * size < len(rows))

    model: PagedTableModel[BaseStationBrief] = PagedTableModel(station_columns(), page_size=10)
    with qtbot.waitSignal(model.first_page_loaded):
        model.set_fetcher(fetch)
    assert model.rowCount() == 30
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    for name in ("Connection", "Worst alarm", "Tags", "Model", "Software", "Last seen"):
        assert name in headers
    assert model.index(1, headers.index("Connection")).data() == "Disconnected"
    assert model.index(1, headers.index("Worst alarm")).data(SeverityRole) == 6
    qtmodeltester.check(model)


def test_partner_usage_in_words(qloop: Any) -> None:
    vm = PartnerViewModel(TaskRunner())
    assert vm.usage_text() == ""
    vm.partner = Partner.model_validate(
        {"partner": {"ID": "acme", "name": "Acme"}, "totalBaseStationsUsed": 12,
         "totalBaseStationsGranted": 50}
    )  # fmt: skip
    assert vm.usage_text() == "12 of 50 stations used"
    assert "38 more may be created" in vm.usage_tooltip()
    vm.partner = vm.partner.model_copy(update={"totalBaseStationsGranted": None})
    assert vm.usage_text() == "12 stations used (no limit)"


def _alarm(uid: int, updated: int, group: bool) -> Any:
    data = {
        "alarmUid": f"{uid:x}",
        "ID": 21 if group else 106,
        "state": 5,
        "creationTimestamp": updated,
        "updateTimestamp": updated,
    }
    if group:
        return MulticastAlarmBrief.model_validate({**data, "multicastGroup": {"EUI": "AA"}})

    class StationAlarm:  # what a station alarm carries of interest to the merge
        def __init__(self) -> None:
            self.__dict__.update(data, acked=False, addInfo2="93", addInfo=None)

    return StationAlarm()


def test_group_and_station_alarms_merge_in_the_platform_order(qloop: Any, qtbot: Any) -> None:
    groups = [_alarm(i, 1000 - 10 * i, True) for i in range(7)]
    stations = [_alarm(100 + i, 1005 - 10 * i, False) for i in range(5)]

    def source(items: list[Any]) -> Any:
        async def fetch(page: int, size: int, _s: Any, _d: bool, _f: Any) -> ListEnvelope[Any]:
            part = items[(page - 1) * size : page * size]
            return ListEnvelope[Any](briefs=part, count=len(items), more=page * size < len(items))

        return fetch

    both = merged_list(source(groups), source(stations), AlarmFilter())
    assert both is not None
    task = asyncio.ensure_future(both(1, 5, None, False, AlarmFilter()))
    qtbot.waitUntil(task.done)
    first = task.result()
    assert first.count == 12
    times = [a.updateTimestamp for a in first.briefs]
    assert times == sorted(times, reverse=True)  # the latest update first, across both
    assert not comes_before(groups[0], groups[0], None, False)
