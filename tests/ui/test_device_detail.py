"""The device detail tabs: information, tags, alarms, traffic, alarm 004, routing; and the
panel's empty state."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from lpwa_console.models.device_detail import DeviceDetailViewModel
from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.formatting import format_time
from lpwa_console.models.rights import ADMIN_NODE, WRITE_NODE, AccountRights
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import Device
from lpwa_console.schema.subscription import Subscription
from lpwa_console.ui.panes.devices import DevicesPane
from lpwa_console.ui.widgets.device_detail import DeviceDetail
from tests.helpers import shot

from ..models.test_device_detail import FakeClient, many_alarms


def device(**extra: Any) -> Device:
    data = {
        "EUI": "70B3D57ED0000001",
        "name": "meter 1",
        "tags": [{"name": "north"}],
        "appServersRoutingProfile": {"ID": "rp-1", "name": "Default route"},
    }
    return Device.model_validate({**data, **extra})


def rights_with(*rights: str) -> AccountRights:
    account = AccountRights(TaskRunner())
    account.set_subscription(
        Subscription.model_validate(
            {
                "options": {"hsm": "DEACTIVATED"},
                "subscription": {"grantedPermissions": ["x", "a"], "rights": list(rights)},
            }
        )
    )
    return account


def make_detail(
    qtbot: Any, rights: AccountRights | None = None, fake: FakeClient | None = None
) -> tuple[DeviceDetail, Any]:
    fake = fake or FakeClient()
    vm = DeviceDetailViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    detail = DeviceDetail(vm, rights)
    qtbot.addWidget(detail)
    detail.resize(520, 480)
    detail.show()
    return detail, fake


def tab_titles(detail: DeviceDetail) -> list[str]:
    tabs = detail.tabs
    return [tabs.tabText(i) for i in range(tabs.count()) if tabs.isTabVisible(i)]


def test_the_same_tabs_for_every_device_and_the_sim_in_information(qtbot: Any, qloop: Any) -> None:
    detail, _ = make_detail(qtbot)
    detail.show_device(device())
    tabs = ["Information", "Tags", "Alarms", "Traffic", "No uplink", "Routing"]
    assert tab_titles(detail) == tabs
    assert "meter 1" in detail.label.text()
    assert detail.tags_tab is not None and detail.tags_tab.list.count() == 1
    detail.show_device(
        device(
            EUI="356938035643809", connectivity="CELLULAR", imsi="208011234567890",
            iccid="8933150319001234567", lastIMEI="356938035643809", networkContextID="nc-1",
        )
    )  # fmt: skip
    # The SIM is a section of the information, not a tab that says it again.
    assert tab_titles(detail) == tabs
    text = detail.label.text()
    assert "SIM and network" in text
    assert "208011234567890" in text and "8933150319001234567" in text and "nc-1" in text
    shot(detail, "detail-cellular.png")


def test_no_device_is_an_empty_state_not_empty_tabs(qtbot: Any, qloop: Any) -> None:
    detail, _ = make_detail(qtbot)
    assert detail.stack.currentWidget() is detail.empty and not detail.showing_device
    assert detail.empty_title.text() == "No device selected"
    assert "Select a device" in detail.empty_text.text()
    shot(detail, "detail-empty.png")
    detail.show_loading()
    assert detail.empty_title.text() == "Loading…"
    detail.show_device(device())
    assert detail.stack.currentWidget() is detail.tabs and detail.showing_device
    detail.show_loading()  # another device on its way: the tabs stay meanwhile
    assert detail.showing_device and "Loading" in detail.label.text()
    detail.show_device(None)
    assert detail.stack.currentWidget() is detail.empty and detail.device is None
    assert detail.vm is not None and detail.vm.device is None
    detail.show_device(device())
    detail.show_error("Device not found")
    assert not detail.showing_device and detail.device is None
    assert detail.empty_title.text() == "Could not load the device"
    assert detail.empty_text.text() == "Device not found"


def rows(tab: Any) -> int:
    return int(tab.table.model().rowCount())


def text_at(tab: Any, row: int, column: int) -> str:
    return str(tab.table.model().index(row, column).data())


def test_alarms_tab_loads_and_acknowledges(qtbot: Any, qloop: Any) -> None:
    detail, fake = make_detail(qtbot)
    detail.show_device(device())
    tab = detail.alarms_tab
    assert tab is not None
    detail.tabs.setCurrentWidget(tab)  # loads on show
    qtbot.waitUntil(lambda: rows(tab) == 3, timeout=3000)
    assert text_at(tab, 1, 0) == "● Critical"
    assert tab.status.text() == "3 alarms, 2 not acknowledged"
    assert not tab.ack_button.isEnabled() and not tab.more_button.isVisible()
    tab.table.selectRow(1)
    assert tab.selected_uids() == ["a2"] and tab.ack_button.isEnabled()
    shot(detail, "detail-alarms.png")
    tab.acknowledge()
    qtbot.waitUntil(lambda: fake.acked == ["a2"], timeout=3000)
    qtbot.waitUntil(lambda: tab.status.text() == "1 alarm acknowledged", timeout=3000)
    # Acknowledged in place: same row, still selected, nothing left to acknowledge there.
    assert text_at(tab, 1, 5) == "yes" and tab.table.selectionModel().isRowSelected(1)
    assert not tab.ack_button.isEnabled()


def test_every_alarm_of_a_device_can_be_seen(qtbot: Any, qloop: Any) -> None:
    import asyncio

    fake = FakeClient(many_alarms(250))
    detail, _ = make_detail(qtbot, fake=fake)
    detail.resize(560, 420)
    detail.show_device(device())
    tab = detail.alarms_tab
    assert tab is not None
    detail.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: rows(tab) == 100, timeout=3000)
    assert tab.status.text() == "100 of 250 alarms shown"
    assert tab.more_button.isVisible() and tab.more_button.isEnabled()
    # A selection made on the first page...
    tab.table.selectRow(0)
    flags = tab.table.selectionModel().SelectionFlag
    tab.table.selectionModel().select(tab.table.model().index(1, 0), flags.Select | flags.Rows)
    assert tab.selected_uids() == ["u0000", "u0001"]
    assert tab.ack_button.text() == "Acknowledge 2"
    shot(detail, "detail-alarms-first-page.png")
    # ...stays while the next page comes, which scrolling to the end asks for; meanwhile the
    # UI goes on (the page is awaited on the event loop).
    fake.gate = asyncio.Event()
    tab.table.scrollToBottom()
    qtbot.waitUntil(lambda: detail.vm is not None and detail.vm.alarms_busy, timeout=3000)
    assert tab.status.text() == "100 of 250 alarms shown, loading more…"
    assert not tab.more_button.isEnabled()
    qtbot.wait(30)  # events keep flowing while the page is awaited
    fake.gate.set()
    qtbot.waitUntil(lambda: rows(tab) == 200, timeout=3000)
    assert tab.selected_uids() == ["u0000", "u0001"]
    tab.more_button.click()
    qtbot.waitUntil(lambda: rows(tab) == 250, timeout=3000)
    assert not tab.more_button.isVisible()
    assert text_at(tab, 249, 5) == "no" and tab.status.text().startswith("250 alarms, ")
    # Every alarm, selected and acknowledged at once.
    tab.table.selectAll()
    unacked = [a.alarmUid for a in fake.alarms if not a.acked]
    assert tab.selected_uids() == unacked and len(unacked) == 167
    tab.acknowledge()
    qtbot.waitUntil(lambda: "167 alarms acknowledged" in tab.status.text(), timeout=3000)
    assert sorted(fake.acked) == sorted(unacked)
    assert all(text_at(tab, r, 5) == "yes" for r in range(250))
    shot(detail, "detail-alarms-all.png")


def test_unacknowledged_only_in_the_alarms_tab(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(12))
    detail, _ = make_detail(qtbot, fake=fake)
    detail.show_device(device())
    tab = detail.alarms_tab
    assert tab is not None
    detail.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: rows(tab) == 12, timeout=3000)
    tab.unacked_only.setChecked(True)
    qtbot.waitUntil(lambda: rows(tab) == 8, timeout=3000)
    assert fake.pages[-1] == (1, False)
    assert tab.status.text() == "8 unacknowledged alarms"
    fake.alarms = [a.model_copy(update={"acked": True}) for a in fake.alarms]
    tab.refresh_button.click()
    qtbot.waitUntil(lambda: tab.stack.currentWidget() is tab.empty, timeout=3000)
    qtbot.waitUntil(lambda: tab.empty.text() == "No unacknowledged alarm", timeout=3000)


def test_traffic_tab_chart_and_empty_state(qtbot: Any, qloop: Any) -> None:
    detail, fake = make_detail(qtbot)
    tab = detail.traffic_tab
    assert tab is not None
    detail.tabs.setCurrentWidget(tab)
    assert tab.chart.stack.currentWidget() is tab.chart.empty
    detail.show_device(device())
    qtbot.waitUntil(lambda: tab.chart.stack.currentWidget() is tab.chart.plot_widget, timeout=3000)
    item = tab.chart.plot_widget.getPlotItem()
    assert item.clipToViewMode() and item.downsampleMode()[1]
    assert tab.summary.text() == "10 uplinks, 0 downlinks"
    shot(detail, "detail-traffic.png")

    async def empty(ref: str, **_kw: Any) -> Any:
        from lpwa_console.schema.frames import FramesAggregation

        return FramesAggregation()

    fake.frames.aggregated = empty
    tab.period.setCurrentText("Last 24 hours")
    qtbot.waitUntil(lambda: tab.chart.empty.text() == "No traffic in this period", timeout=3000)
    assert tab.chart.stack.currentWidget() is tab.chart.empty
    shot(detail, "detail-traffic-empty.png")


def test_alarm004_editor_validates_live_and_saves(qtbot: Any, qloop: Any) -> None:
    detail, _ = make_detail(qtbot)
    editor = detail.alarm004
    detail.show_device(device())
    detail.tabs.setCurrentWidget(editor)
    assert not editor.save_button.isEnabled()  # nothing changed yet
    editor.levels[1].setCurrentIndex(editor.levels[1].findData(2))  # 3 then 2: refused
    assert "lower than the second" in editor.error.text()
    assert not editor.save_button.isEnabled()
    shot(detail, "detail-alarm004-error.png")
    editor.levels[1].setCurrentIndex(editor.levels[1].findData(6))
    editor.durations[0].setText("PT12H")
    assert editor.error.text() == "" and editor.save_button.isEnabled()
    with qtbot.waitSignal(detail.save_requested, timeout=1000) as saved:
        editor.save_button.click()
    ref, body = saved.args
    assert ref == device().path_ref
    assert body["alarmsConfiguration"]["alarm004"][0] == {
        "status": "ENABLE", "level": 3, "duration": "PT12H"
    }  # fmt: skip


def test_routing_read_only_without_admin_node(qtbot: Any, qloop: Any) -> None:
    detail, _ = make_detail(qtbot, rights_with(WRITE_NODE))
    detail.show_device(device())
    detail.tabs.setCurrentWidget(detail.routing)
    assert detail.routing.profile_id.isReadOnly()
    assert not detail.routing.save_button.isVisible()
    assert "ADMIN_NODE" in detail.routing.note.text()
    shot(detail, "detail-routing-readonly.png")
    admin, _ = make_detail(qtbot, rights_with(WRITE_NODE, ADMIN_NODE))
    admin.show_device(device())
    admin.tabs.setCurrentWidget(admin.routing)
    assert not admin.routing.profile_id.isReadOnly()
    admin.routing.profile_id.setText("rp-2")
    with qtbot.waitSignal(admin.save_requested, timeout=1000) as saved:
        admin.routing.save_button.click()
    assert saved.args[1] == {"appServersRoutingProfile": {"ID": "rp-2"}}


def test_alarm004_saved_on_the_sandbox(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = DevicesPane(devices_vm)
    qtbot.addWidget(pane)
    pane.resize(1300, 700)
    pane.show()
    qtbot.waitUntil(lambda: devices_vm.first_page_ms is not None, timeout=15000)
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: devices_vm.detail is not None, timeout=10000)
    editor = pane.detail.alarm004
    pane.detail.tabs.setCurrentWidget(editor)
    editor.enabled[0].setChecked(True)
    editor.levels[0].setCurrentIndex(editor.levels[0].findData(4))
    editor.durations[0].setText("PT7H")
    editor.enabled[1].setChecked(False)
    editor.levels[1].setCurrentIndex(editor.levels[1].findData(6))
    editor.durations[1].setText("P9D")
    assert editor.save_button.isEnabled(), editor.error.text()
    reads: list[bool] = []
    devices_vm.detail_loading.connect(lambda on: on and reads.append(on))
    with qtbot.waitSignal(devices_vm.saved, timeout=10000) as saved:
        editor.save_button.click()
    config = saved.args[0].alarmsConfiguration
    assert config.alarm004[0].duration == "PT7H" and config.alarm004[0].level == 4
    # The list reloads and the row is selected again: the device is read once, and the
    # editor, now holding what the device has, has nothing left to save.
    qtbot.waitUntil(lambda: pane.table.selectionModel().hasSelection(), timeout=10000)
    qtbot.waitUntil(lambda: not devices_vm.runner.busy, timeout=10000)
    qtbot.wait(200)  # the selection's debounce
    assert reads == [True]
    assert editor.durations[0].text() == "PT7H" and not editor.save_button.isEnabled()
    shot(pane, "devices-pane.png")


def test_export_current_view_on_the_sandbox(
    qtbot: Any, devices_vm: DevicesViewModel, tmp_path: Path
) -> None:
    pane = DevicesPane(devices_vm)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: devices_vm.first_page_ms is not None, timeout=15000)
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        devices_vm.update_filters(connectivity="CELLULAR")
    expected = devices_vm.model.rowCount()
    path = tmp_path / "cellular.csv"
    with qtbot.waitSignal(pane.exporter.finished, timeout=30000) as finished:
        assert pane.export_to(str(path))
        assert not pane.export_action.isEnabled() and pane.export_progress.isVisible()
    assert finished.args == [str(path), expected]
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert len(rows) == expected and {r["connectivity"] for r in rows} <= {"CELLULAR"}
    assert pane.export_action.isEnabled() and "Exported" in pane.message.text()


def test_alarms_and_traffic_of_a_sandbox_device(qtbot: Any, client: Any) -> None:
    import asyncio

    from lpwa_console.schema.devices import DeviceFilter

    future = asyncio.ensure_future(
        client.devices.list(1, 500, filters=DeviceFilter(), sort="lastUpTimestamp", descending=True)
    )
    qtbot.waitUntil(future.done, timeout=10000)
    # The demo network's recently heard devices include some with alarms.
    brief = next(d for d in future.result().briefs if d.alarmCount)
    got = asyncio.ensure_future(client.devices.get(brief.path_ref))
    qtbot.waitUntil(got.done, timeout=10000)
    vm = DeviceDetailViewModel(TaskRunner(), client)
    detail = DeviceDetail(vm, None)
    qtbot.addWidget(detail)
    detail.resize(560, 480)
    detail.show()
    detail.show_device(got.result())
    assert detail.traffic_tab is not None and detail.alarms_tab is not None
    with qtbot.waitSignal(vm.traffic_changed, timeout=10000):
        detail.tabs.setCurrentWidget(detail.traffic_tab)
    chart = detail.traffic_tab.chart
    assert vm.traffic is not None and vm.traffic.briefs  # heard lately: it has traffic
    assert chart.stack.currentWidget() is chart.plot_widget
    assert "uplinks" in detail.traffic_tab.summary.text()
    shot(detail, "live-traffic.png")
    detail.tabs.setCurrentWidget(detail.alarms_tab)
    qtbot.waitUntil(lambda: vm.alarms_loaded and not vm.alarms_busy, timeout=10000)
    assert vm.alarms and len(vm.alarms) == rows(detail.alarms_tab)
    shot(detail, "live-alarms.png")


def test_tags_tab_on_the_sandbox(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    import uuid

    pane = DevicesPane(devices_vm)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: devices_vm.first_page_ms is not None, timeout=15000)
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: devices_vm.detail is not None, timeout=10000)
    tab = pane.detail.tags_tab
    assert tab is not None
    pane.detail.tabs.setCurrentWidget(tab)
    name = f"t{uuid.uuid4().hex[:6]}"
    tab.name.setText(name)
    with qtbot.waitSignal(pane.detail_vm.tags_changed, timeout=10000):
        tab.add_button.click()
    qtbot.waitUntil(
        lambda: devices_vm.detail is not None and name in [t.name for t in devices_vm.detail.tags],
        timeout=10000,
    )
    qtbot.waitUntil(lambda: bool(tab.list.findItems(name, Qt.MatchFlag.MatchExactly)), timeout=5000)
    tab.list.setCurrentItem(tab.list.findItems(name, Qt.MatchFlag.MatchExactly)[0])
    with qtbot.waitSignal(pane.detail_vm.tags_changed, timeout=10000):
        tab.remove_button.click()
    qtbot.waitUntil(
        lambda: (
            devices_vm.detail is not None and name not in [t.name for t in devices_vm.detail.tags]
        ),
        timeout=10000,
    )


# Fields of GET device shown elsewhere than in the Information tab, or never: keys are not
# returned, the thresholds have their tab, the daily history feeds no text, href/ref address
# the device, markerID is deprecated, alarmLevel/alarmCount sum the alarm1..6 counters.
NOT_IN_INFORMATION = {
    "alarmsConfiguration", "historyUpDaily", "href", "ref", "markerID", "alarmLevel",
    "alarmCount", "alarm1", "alarm2", "alarm3", "alarm4", "alarm5", "alarm6",
    "now",  # the server's clock, not the device's
}  # fmt: skip
# (nwAddress is both's: a LoRaWAN DevAddr, a cellular device's IP address)
LORAWAN_ONLY = {"activation", "appEUI", "asTransportKey", "hsmGroupID", "lastSF", "LRRs"}
CELLULAR_ONLY = {"imsi", "iccid", "eid", "lastIMEI", "networkContextID"}


def full_device(connectivity: str) -> Device:
    """A device with every response field set to a value that can be found in the text."""
    lorawan = connectivity == "LORAWAN"
    return device(
        EUI="70B3D57ED00000AA" if lorawan else "35693803564380",
        connectivity=connectivity,
        activation="OTAA" if lorawan else None,
        model={"ID": "model-x", "commercialName": "Sensor X"},
        healthState="RF_CNX_ERROR",
        creationDate=1_700_000_000_000,
        domains=[{"name": "France/Paris", "group": {"name": "Site"}}],
        appServers=[{"ID": "as-1", "name": "Metering platform"}],
        appServersRoutingProfile={"ID": "rp-9", "name": "Metering route"},
        lastUpTimestamp=1_700_000_100_000,
        lastDwTimestamp=1_700_000_200_000,
        lastSF=9,
        lastRSSI=-101.5,
        lastSNR=-3.5,
        avgSNR=4.5,
        lastBatLevel=77,
        lat=48.85661,
        lon=2.35222,
        adminLat=45.764,
        adminLon=4.8357,
        nwAddress="26011BDA",
        customerAdminData="north wall",
        LRRs=[{"ID": "1000000F", "RSSI": -97.5, "SNR": 6.0}] if lorawan else [],
        networkContextID="nc-orange-fr",
        lastIMEI="35693803564381",
        imsi="208011234567890",
        iccid="8933150319001234567",
        eid="89049032000001000000000000000042",
        appEUI="70B3D57ED0000000",
        asTransportKey={"ID": "atk-1", "name": "Metering key"},
        hsmGroupID="hsm-eu-west-1",
    )


def expected_text(d: Device, field: str) -> str:
    value = getattr(d, field)
    if field == "model":
        return value.commercialName
    if field in ("asTransportKey", "appServersRoutingProfile"):
        return f"{value.name} ({value.ID})"
    if field == "tags":
        return value[0].name
    if field == "domains":
        return f"{value[0].group.name}: {value[0].name}"
    if field == "appServers":
        return value[0].name
    if field == "connectivity":
        return {"LORAWAN": "LoRaWAN", "CELLULAR": "Cellular"}[value]
    if field == "healthState":
        return "RF error"
    if field in ("creationDate", "lastUpTimestamp", "lastDwTimestamp"):
        return format_time(value)
    if field in ("lat", "lon", "adminLat", "adminLon"):
        return f"{value:.5f}"
    if field == "lastRSSI":
        return f"{value:.1f} dBm"
    if field in ("lastSNR", "avgSNR"):
        return f"{value:.1f}"
    if field == "lastBatLevel":
        return f"{value}%"
    if field == "LRRs":  # the station that heard it, opening the station
        return f"{value[0].ID} ({value[0].RSSI:.1f} dBm, SNR {value[0].SNR:.1f} dB)"
    return str(value)


def test_information_shows_every_field_of_get_device(qtbot: Any, qloop: Any) -> None:
    detail, _ = make_detail(qtbot)
    fields = set(Device.model_fields) - NOT_IN_INFORMATION
    for connectivity, hidden in (("LORAWAN", CELLULAR_ONLY), ("CELLULAR", LORAWAN_ONLY)):
        shown = full_device(connectivity)
        detail.show_device(shown)
        text = detail.label.text()
        missing = [f for f in sorted(fields - hidden) if expected_text(shown, f) not in text]
        assert not missing, f"{connectivity}: not shown: {missing}"
    shot(detail, "detail-information-cellular.png")


def test_information_marks_empty_values(qtbot: Any, qloop: Any) -> None:
    detail, _ = make_detail(qtbot)
    detail.show_device(device(hsmGroupID="hsm-eu-west-1"))
    text = detail.label.text()
    assert "HSM group" in text and "hsm-eu-west-1" in text
    for label in ("AS transport key", "JoinEUI", "DevAddr", "Admin position", "Notes", "Domains"):
        row = text[text.index(label) :].split("</tr>")[0]
        assert row.endswith("—</td>"), (label, row)
    assert "IMSI" not in text and "EID" not in text  # a LoRaWAN device has no SIM
    detail.show_device(device(EUI="35693803564380", connectivity="CELLULAR", imsi="20801"))
    text = detail.label.text()
    for label in ("ICCID", "EID", "Network context"):
        assert text[text.index(label) :].split("</tr>")[0].endswith("—</td>"), label
    assert "HSM group" not in text and "JoinEUI" not in text


def test_unacknowledged_only_summary_after_acknowledging(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(many_alarms(12))
    detail, _ = make_detail(qtbot, fake=fake)
    detail.show_device(device())
    tab = detail.alarms_tab
    assert tab is not None
    detail.tabs.setCurrentWidget(tab)
    tab.unacked_only.setChecked(True)
    qtbot.waitUntil(lambda: rows(tab) == 8, timeout=3000)
    assert tab.status.text() == "8 unacknowledged alarms"
    tab.table.selectRow(0)
    flags = tab.table.selectionModel().SelectionFlag
    tab.table.selectionModel().select(tab.table.model().index(1, 0), flags.Select | flags.Rows)
    tab.acknowledge()
    qtbot.waitUntil(lambda: fake.acked == ["u0000", "u0001"], timeout=3000)
    tab.refresh()  # the summary as it is shown after every change of the list
    # Still listed where they were (greyed), no longer counted as unacknowledged.
    assert rows(tab) == 8
    assert tab.status.text() == "6 unacknowledged alarms, 2 acknowledged just now"
    qtbot.waitUntil(lambda: not tab.ack_button.isEnabled(), timeout=3000)


def test_unacknowledged_only_summary_while_pages_remain(qtbot: Any, qloop: Any) -> None:
    alarms = [a.model_copy(update={"acked": False}) for a in many_alarms(250)]
    fake = FakeClient(alarms)
    detail, _ = make_detail(qtbot, fake=fake)
    detail.show_device(device())
    tab = detail.alarms_tab
    assert tab is not None and detail.vm is not None
    detail.tabs.setCurrentWidget(tab)
    tab.unacked_only.setChecked(True)
    qtbot.waitUntil(lambda: rows(tab) == 100, timeout=3000)
    assert tab.status.text() == "100 of 250 unacknowledged alarms shown"
    tab.table.selectAll()
    with qtbot.waitSignal(detail.vm.acknowledged, timeout=3000):
        tab.acknowledge()
    tab.refresh()
    assert tab.status.text() == "0 of 150 unacknowledged alarms shown, 100 acknowledged just now"
    tab.more_button.click()  # the next 100 not acknowledged: none skipped
    qtbot.waitUntil(lambda: rows(tab) == 200, timeout=3000)
    assert [a.alarmUid for a in detail.vm.alarms[100:]] == [f"u{i:04d}" for i in range(100, 200)]
    assert tab.status.text() == "100 of 150 unacknowledged alarms shown, 100 acknowledged just now"


def test_the_same_device_read_again_keeps_edits_not_saved(qtbot: Any, qloop: Any) -> None:
    # After a list reload, an acknowledgement or a tag, the device is shown again: what the
    # user typed in Alarm 004 and Routing and has not saved stays.
    detail, _ = make_detail(qtbot, rights_with(WRITE_NODE, ADMIN_NODE))
    editor, routing = detail.alarm004, detail.routing
    detail.show_device(device())
    editor.durations[0].setText("PT7H")
    routing.profile_id.setText("rp-9")
    assert editor.save_button.isEnabled() and routing.save_button.isEnabled()
    detail.show_device(device(alarm1=2))  # read again: its alarm counters changed
    assert editor.durations[0].text() == "PT7H" and editor.save_button.isEnabled()
    assert routing.profile_id.text() == "rp-9" and routing.save_button.isEnabled()
    assert routing.device is not None and routing.device.alarm1 == 2
    # Revert goes back to what the device has now.
    editor.reset_button.click()
    assert editor.durations[0].text() == "P2D" and not editor.save_button.isEnabled()
    # Saved: the device now has what was typed, the editors are clean again.
    editor.durations[0].setText("PT7H")
    saved = device(
        appServersRoutingProfile={"ID": "rp-9"},
        alarmsConfiguration={
            "alarm004": [
                {"status": "ENABLE", "level": 3, "duration": "PT7H"},
                {"status": "ENABLE", "level": 5, "duration": "P4D"},
            ]
        },
    )
    detail.show_device(saved)
    assert editor.durations[0].text() == "PT7H" and not editor.save_button.isEnabled()
    assert routing.profile_id.text() == "rp-9" and not routing.save_button.isEnabled()
    # Another device: its own values, whatever was typed.
    editor.durations[0].setText("PT9H")
    routing.profile_id.setText("rp-3")
    detail.show_device(device(EUI="70B3D57ED0000002"))
    assert editor.durations[0].text() == "P2D" and not editor.save_button.isEnabled()
    assert routing.profile_id.text() == "rp-1" and not routing.save_button.isEnabled()
    # Nothing typed: the same device read again shows what it has now.
    detail.show_device(device(EUI="70B3D57ED0000002", appServersRoutingProfile={"ID": "rp-4"}))
    assert routing.profile_id.text() == "rp-4"
