"""The devices pane against a live sandbox, and against a recording transport where what the
client sends matters."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt

from lpwa_console.api import LpwaClient
from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.paged_table import PLACEHOLDER
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import Device
from lpwa_console.ui.dialogs.device_form import DeviceFormDialog
from lpwa_console.ui.panes.devices import REFERENCES_WAIT_MS, DevicesPane
from lpwa_console.ui.panes.fleet_list import FILTER_DEBOUNCE_MS
from tests.helpers import shot


def make_pane(qtbot: Any, vm: DevicesViewModel) -> DevicesPane:
    pane = DevicesPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 700)
    pane.show()
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=15000)
    return pane


def cell(pane: DevicesPane, row: int, column: int) -> str:
    return str(pane.table.model().index(row, column).data())


def random_eui() -> str:
    return uuid.uuid4().hex[:16].upper()


def test_first_rows_appear(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    model = devices_vm.model
    assert model.rowCount() > 0
    assert cell(pane, 0, 0) not in ("", PLACEHOLDER)
    assert pane.count_label.text().endswith("devices")
    assert pane.stack.currentWidget() is pane.table


def test_filter_narrows_and_empty_state(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    total = devices_vm.model.rowCount()
    eui = cell(pane, 0, 1)
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        qtbot.keyClicks(pane.search, eui)  # debounced: one reload, not one per key
    assert 1 <= devices_vm.model.rowCount() < total
    assert cell(pane, 0, 1) == eui
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.search.setText("zz-no-such-device-zz")
    assert devices_vm.model.rowCount() == 0
    assert pane.stack.currentWidget() is pane.empty
    assert "No devices match" in pane.empty.text()


def test_header_click_sorts_on_the_server(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    header = pane.table.horizontalHeader()
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
    assert devices_vm.model.sort_key == "name"
    names = [cell(pane, r, 0) for r in range(min(20, devices_vm.model.rowCount()))]
    assert names == sorted(names, key=str.casefold) or names == sorted(names)
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        header.setSortIndicator(0, Qt.SortOrder.DescendingOrder)
    assert devices_vm.model.descending
    assert cell(pane, 0, 0) >= names[0]


def test_detail_loads_without_keys(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    eui = cell(pane, 0, 1)
    with qtbot.waitSignal(devices_vm.detail_changed, timeout=10000):
        pane.table.selectRow(0)
    assert devices_vm.detail is not None and eui == devices_vm.detail.EUI
    text = pane.detail.label.text()
    assert eui in text
    assert "AppKey" not in text and "AppSKey" not in text
    assert pane.edit_button.isEnabled()


def test_the_detail_follows_the_list(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    eui = cell(pane, 0, 1)
    with qtbot.waitSignal(devices_vm.detail_changed, timeout=10000):
        pane.table.selectRow(0)
    assert pane.detail.showing_device
    selection = pane.table.selectionModel()
    # A refresh, then a filter that keeps the device: still shown, its row selected again.
    with qtbot.waitSignal(devices_vm.detail_row, timeout=10000):
        pane.refresh()
    qtbot.waitUntil(lambda: selection.isRowSelected(0), timeout=5000)
    with qtbot.waitSignal(devices_vm.detail_row, timeout=10000):
        pane.search.setText(eui)
    qtbot.waitUntil(lambda: selection.isRowSelected(0), timeout=5000)
    qtbot.waitUntil(lambda: devices_vm.detail is not None, timeout=10000)
    assert pane.detail.showing_device and devices_vm.detail is not None
    assert eui == devices_vm.detail.EUI and eui in pane.detail.label.text()
    # A filter that empties the list: the panel no longer shows the device.
    with qtbot.waitSignal(
        devices_vm.detail_changed, timeout=10000, check_params_cb=lambda d: d is None
    ):
        pane.search.setText("zz-no-such-device-zz")
    assert devices_vm.model.rowCount() == 0 and not pane.detail.showing_device
    assert pane.detail.empty_title.text() == "No device selected"
    assert not pane.edit_button.isEnabled()
    shot(pane, "devices-filtered-empty.png")


def test_create_through_the_dialog(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    pane.new_device()
    dialog = pane.dialog
    assert isinstance(dialog, DeviceFormDialog)
    assert not dialog.ok.isEnabled()  # no EUI yet
    qtbot.keyClicks(dialog.inputs["EUI"], "12XZ")
    assert dialog.errors["EUI"].text()
    assert not dialog.ok.isEnabled()
    eui = random_eui()
    dialog.inputs["EUI"].clear()
    qtbot.keyClicks(dialog.inputs["EUI"], eui)
    qtbot.keyClicks(dialog.inputs["name"], "Pane test sensor")
    qtbot.keyClicks(dialog.inputs["appEUI"], "70B3D57ED0000001")
    qtbot.keyClicks(dialog.inputs["appKey"], "00112233445566778899AABBCCDDEEFF")
    assert dialog.ok.isEnabled(), dialog.revalidate()
    with qtbot.waitSignal(devices_vm.saved, timeout=10000) as saved:
        dialog.ok.click()
    assert eui == saved.args[0].EUI
    qtbot.waitUntil(lambda: pane.dialog is None, timeout=5000)
    qtbot.waitUntil(
        lambda: devices_vm.detail is not None and eui == devices_vm.detail.EUI, timeout=10000
    )


def test_conflict_is_shown_inline_and_input_kept(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    row = next(r for r in range(100) if cell(pane, r, 2) == "LoRaWAN")
    existing = cell(pane, row, 1)
    pane.new_device()
    dialog = pane.dialog
    assert dialog is not None
    qtbot.keyClicks(dialog.inputs["EUI"], existing)
    qtbot.keyClicks(dialog.inputs["name"], "Duplicate")
    assert dialog.ok.isEnabled(), dialog.revalidate()
    with qtbot.waitSignal(devices_vm.save_failed, timeout=10000) as failed:
        dialog.ok.click()
    message, field = failed.args
    assert field == "EUI", failed.args
    assert dialog.isVisible()
    assert dialog.errors["EUI"].text()
    assert dialog.errors["EUI"].text() == message
    assert dialog.inputs["EUI"].text() == existing
    assert dialog.inputs["name"].text() == "Duplicate"
    dialog.reject()


def test_tag_and_untag_the_selection(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    tag = f"t-{uuid.uuid4().hex[:6]}"
    pane.table.selectRow(0)
    pane.table.selectionModel().select(
        pane.table.model().index(1, 0),
        pane.table.selectionModel().SelectionFlag.Select
        | pane.table.selectionModel().SelectionFlag.Rows,
    )
    rows = pane.selected_rows()
    assert rows == [0, 1]
    with qtbot.waitSignal(devices_vm.tags_applied, timeout=10000):
        devices_vm.tag(tag, rows)
    assert tag in cell(pane, 0, 5) and tag in cell(pane, 1, 5)
    # The server agrees: filtering by the tag finds exactly these two.
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.tag_filter.setText(tag)
    assert devices_vm.model.rowCount() == 2
    with qtbot.waitSignal(devices_vm.tags_applied, timeout=10000):
        devices_vm.tag(tag, [0], untag=True)
    assert tag not in cell(pane, 0, 5)
    with qtbot.waitSignal(devices_vm.suggestions_changed, timeout=10000) as suggested:
        devices_vm.suggest_tags(tag[:3])
    assert isinstance(suggested.args[0], list)


# --- more filters ----------------------------------------------------------------------------

PLATFORM = "https://platform.test/rest"


class RecordingPlatform:
    """An httpx transport answering like the platform, keeping every request the client sent."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.refuse: set[str] = set()  # paths answered 403

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path.removeprefix("/rest/subscriptions/mine")
        if path in self.refuse:
            return httpx.Response(403, json={"message": "not allowed here"})
        lists: dict[str, list[dict[str, Any]]] = {
            "/devices": [{"EUI": "70B3D57ED0000001", "name": "meter"}],
            "/asTransportKeys": [{"ID": "atk-1", "name": "Metering key"}],
            "/hsmGroups": [{"ID": "hsm-1", "name": "HSM 1"}],
            "/cellularNetworkContexts": [{"ID": "nc-fr", "name": "Orange FR"}],
            "/appServers": [{"ID": "as-1", "name": "Metering", "scope": "SUBSCRIPTION"}],
        }
        briefs = lists.get(path, [])
        return httpx.Response(200, json={"briefs": briefs, "count": len(briefs)})

    def device_lists(self) -> list[list[tuple[str, str]]]:
        """The filters of each device list request (paging and sort left out)."""
        return [
            [(k, v) for k, v in r.url.params.multi_items() if k not in ("pageIndex", "pageSize")]
            for r in self.requests
            if r.url.path.endswith("/subscriptions/mine/devices")
        ]


@pytest.fixture
def recorded(qloop: Any, qtbot: Any) -> Iterator[tuple[DevicesViewModel, RecordingPlatform]]:
    platform = RecordingPlatform()
    http = httpx.AsyncClient(transport=httpx.MockTransport(platform))
    runner = TaskRunner()
    vm = DevicesViewModel(runner, LpwaClient(PLATFORM, None, http=http))
    yield vm, platform
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    closed = asyncio.ensure_future(http.aclose())
    qtbot.waitUntil(closed.done, timeout=5000)


def test_reference_lists_are_asked_after_the_first_rows_are_painted(
    qtbot: Any, recorded: Any
) -> None:
    """The filters' completer lists come after the rows (issue 8): asked a moment after the
    table is painted, at once when it is not shown."""
    vm, platform = recorded

    def asked() -> bool:
        return any(r.url.path.endswith("/asTransportKeys") for r in platform.requests)

    painted: list[bool] = []  # whether a list was asked, at each paint of the rows
    pane = DevicesPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 700)
    pane.table.viewport().installEventFilter(
        filt := PaintSpy(lambda: vm.model.rowCount() and painted.append(asked()), pane)
    )
    pane.show()
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=5000)
    qtbot.waitUntil(asked, timeout=REFERENCES_WAIT_MS)
    qtbot.waitUntil(lambda: vm.references["asTransportKey"].loaded, timeout=5000)
    assert painted and painted[0] is False  # rows painted before any list was asked
    pane.table.viewport().removeEventFilter(filt)

    hidden = DevicesViewModel(vm.runner, vm.client)
    hidden_pane = DevicesPane(hidden)
    qtbot.addWidget(hidden_pane)
    platform.requests.clear()
    hidden.reload()
    qtbot.waitUntil(lambda: hidden.first_page_ms is not None, timeout=5000)
    qtbot.waitUntil(asked, timeout=1000)  # not shown: no paint to wait for


class PaintSpy(QObject):
    def __init__(self, on_paint: Any, parent: QObject) -> None:
        super().__init__(parent)
        self.on_paint = on_paint

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.on_paint()
        return False


def test_domain_filter_is_sent_as_group_and_domain(qtbot: Any, recorded: Any) -> None:
    """`group:domain`, exact (the reference's form); a text without its group is not sent
    and the field says why."""
    vm, platform = recorded
    pane = make_pane(qtbot, vm)
    domain = pane.extra_filters["domain"]
    before = len(platform.device_lists())
    domain.setText("France/Lyon")
    pane.apply_filters()
    assert len(platform.device_lists()) == before  # nothing to send: not a filter yet
    assert "colon" in domain.toolTip() and domain.styleSheet()
    with qtbot.waitSignal(vm.first_page_loaded, timeout=5000):
        domain.setText("Site:France/Lyon")
        pane.apply_filters()
    assert platform.device_lists()[-1] == [("domain", "Site:France/Lyon")]
    assert vm.filters.domain == ["Site:France/Lyon"]
    assert not domain.styleSheet() and "colon" in domain.toolTip()
    assert pane.more_filters.text() == "Filters (1)"


def test_more_filters_are_sent_debounced(qtbot: Any, recorded: Any) -> None:
    vm, platform = recorded
    pane = make_pane(qtbot, vm)
    pane.resize(700, 500)
    assert pane.more_filters.text() == "Filters"
    assert pane.layout().minimumSize().width() <= 700  # the bar fits a narrow window
    pane.more_filters.click()
    panel = pane.more_filters.panel
    qtbot.waitUntil(panel.isVisible, timeout=2000)
    before = len(platform.device_lists())
    with qtbot.waitSignal(vm.first_page_loaded, timeout=5000):
        qtbot.keyClicks(pane.extra_filters["simID"], "20801")  # one request, not one per key
        qtbot.keyClicks(pane.extra_filters["imei"], "35000000000001")
        pane.extra_filters["asTransportKeyID"].setText("atk-1")
        pane.extra_filters["networkContextID"].setText("nc-fr")
    sent = platform.device_lists()
    assert len(sent) == before + 1
    assert sorted(sent[-1]) == [
        ("asTransportKeyID", "atk-1"),
        ("imei", "35000000000001"),
        ("networkContextID", "nc-fr"),
        ("simID", "20801"),
    ]
    assert pane.more_filters.text() == "Filters (4)"
    assert "SIM: 20801" in pane.more_filters.toolTip()

    # Esc clears the focused field at once; Esc in an empty field closes the panel.
    sim = pane.extra_filters["simID"]
    sim.setFocus()
    with qtbot.waitSignal(vm.first_page_loaded, timeout=5000):
        qtbot.keyClick(sim, Qt.Key.Key_Escape)
    assert sim.text() == "" and ("simID", "20801") not in platform.device_lists()[-1]
    assert pane.more_filters.text() == "Filters (3)" and panel.isVisible()
    qtbot.keyClick(panel, Qt.Key.Key_Escape)
    assert not panel.isVisible()

    # Clear all filters: the bar's and the panel's, one request without any filter.
    pane.search.setText("meter")
    pane.connectivity.setCurrentIndex(2)
    qtbot.waitUntil(lambda: ("query", "meter") in platform.device_lists()[-1], timeout=5000)
    assert panel.clear_button.isEnabled()
    with qtbot.waitSignal(vm.first_page_loaded, timeout=5000):
        panel.clear_button.click()
    assert platform.device_lists()[-1] == []
    assert pane.search.text() == "" and pane.connectivity.currentIndex() == 0
    assert all(e.text() == "" for e in pane.extra_filters.values())
    assert pane.more_filters.text() == "Filters" and not panel.clear_button.isEnabled()
    count = len(platform.device_lists())
    qtbot.wait(FILTER_DEBOUNCE_MS + 100)
    assert len(platform.device_lists()) == count  # no late debounced request


def test_escape_clears_the_bar_fields(qtbot: Any, recorded: Any) -> None:
    vm, platform = recorded
    pane = make_pane(qtbot, vm)
    pane.focus_filter()
    with qtbot.waitSignal(vm.first_page_loaded, timeout=5000):
        qtbot.keyClicks(pane.search, "abc")
    assert ("query", "abc") in platform.device_lists()[-1]
    with qtbot.waitSignal(vm.first_page_loaded, timeout=5000):
        qtbot.keyClick(pane.search, Qt.Key.Key_Escape)
    assert pane.search.text() == "" and platform.device_lists()[-1] == []
    pane.health.setCurrentIndex(1)
    qtbot.waitUntil(lambda: ("healthState", "ACTIVE") in platform.device_lists()[-1], timeout=5000)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=5000):
        qtbot.keyClick(pane.health, Qt.Key.Key_Escape)
    assert pane.health.currentIndex() == 0 and platform.device_lists()[-1] == []


def test_more_filters_on_the_sandbox(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    total = devices_vm.model.rowCount()
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.connectivity.setCurrentIndex(pane.connectivity.findData("CELLULAR"))
    imei = cell(pane, 0, 1)
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.connectivity.setCurrentIndex(0)
    extra = pane.extra_filters

    def rows() -> list[tuple[str, str]]:
        model = devices_vm.model
        return [(cell(pane, r, 1), cell(pane, r, 2)) for r in range(min(model.rowCount(), 50))]

    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        extra["imei"].setText(imei)  # exact match on the last IMEI
    assert rows() == [(imei, "Cellular")]
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        extra["imei"].clear()
        extra["simID"].setText("20801")  # prefix of the demo IMSIs
    cellular = devices_vm.model.rowCount()
    assert 0 < cellular < total and {c for _e, c in rows()} == {"Cellular"}
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        extra["networkContextID"].setText("nc-orange-fr")
    assert 0 < devices_vm.model.rowCount() < cellular
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.clear_filters()
        extra["asTransportKeyID"].setText("atk-metering-2024")
        pane.apply_filters()
    assert 0 < devices_vm.model.rowCount() < total
    assert {c for _e, c in rows()} == {"LoRaWAN"}
    assert pane.more_filters.text() == "Filters (1)"
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.clear_filters()
    assert devices_vm.model.rowCount() == total


# --- the device form: references, domains, eID -------------------------------------------------


def open_form(qtbot: Any, vm: DevicesViewModel, device: Device | None = None) -> DeviceFormDialog:
    dialog = DeviceFormDialog(vm, device)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_pickers_fill_late_and_keep_what_was_typed(qtbot: Any, recorded: Any) -> None:
    vm, platform = recorded
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=5000)
    platform.refuse = {"/hsmGroups"}
    dialog = DeviceFormDialog(vm)  # not left to qtbot: deleted below
    dialog.show()
    keys = dialog.pickers["asTransportKey"]
    assert not vm.references["asTransportKey"].loaded and keys.count() == 0  # did not wait
    qtbot.keyClicks(dialog.inputs["asTransportKey"], "typed-key")
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=5000)
    assert keys.count() == 1 and keys.model().index(0, 0).data() == "Metering key (atk-1)"
    assert dialog.inputs["asTransportKey"].text() == "typed-key"  # not replaced by the list
    # Picking shows "name (ID)"; the request holds the ID.
    qtbot.keyClick(keys, Qt.Key.Key_Down)
    assert dialog.inputs["asTransportKey"].text() == "Metering key (atk-1)"
    assert keys.text() == "atk-1" and dialog.data()["asTransportKey"] == {"ID": "atk-1"}
    # Completion matches the name too.
    completer = keys.completer()
    completer.setCompletionPrefix("metering")
    assert completer.completionCount() == 1
    assert completer.pathFromIndex(completer.currentIndex()) == "Metering key (atk-1)"
    # A list that cannot load: say so, and take the ID as typed.
    hsm = dialog.pickers["hsmGroupID"]
    assert hsm.count() == 0 and "list unavailable" in hsm.lineEdit().placeholderText()
    qtbot.keyClicks(dialog.inputs["hsmGroupID"], "hsm-typed")
    assert dialog.data()["hsmGroupID"] == "hsm-typed"
    # App servers: comma-separated, the last one completed.
    servers = dialog.inputs["appServers"]
    servers.setText("as-0, met")
    server_completer = servers.completer()
    server_completer.setCompletionPrefix(server_completer.splitPath(servers.text())[0])
    assert server_completer.completionCount() == 1
    completed = server_completer.pathFromIndex(server_completer.currentIndex())
    assert completed.startswith("as-0, ") and completed.endswith(" (as-1)")
    servers.setText(completed)
    assert servers.ids() == ["as-0", "as-1"] and dialog.data()["appServers"] == [
        {"ID": "as-0"},
        {"ID": "as-1"},
    ]
    dialog.reject()
    # The lists outlive the dialog: reloading them after it is gone is harmless.
    dialog.deleteLater()
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=5000)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    vm.load_references(max_age_s=0)
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=5000)
    assert vm.references["asTransportKey"].ids() == ["atk-1"]


def test_new_fields_are_validated_live(qtbot: Any, recorded: Any) -> None:
    vm, _platform = recorded
    dialog = open_form(qtbot, vm)
    qtbot.keyClicks(dialog.inputs["EUI"], random_eui())
    assert dialog.ok.isEnabled(), dialog.revalidate()
    qtbot.keyClicks(dialog.inputs["appServers"], "as-1, " + "x" * 65)
    assert dialog.errors["appServers"].text()
    assert "64" in dialog.errors["appServers"].text() and not dialog.ok.isEnabled()
    dialog.inputs["appServers"].clear()
    qtbot.keyClicks(dialog.inputs["appServers"], "as-1")
    assert not dialog.errors["appServers"].text() and dialog.ok.isEnabled()

    domains = dialog.domains
    assert domains is not None
    domains.add()
    domains.table.item(0, 0).setText("France/Paris")
    domains.table.item(0, 1).setText("Site")
    assert dialog.ok.isEnabled(), dialog.revalidate()
    assert dialog.data()["domains"] == [{"name": "France/Paris", "group": {"name": "Site"}}]
    domains.add()
    domains.table.item(1, 0).setText("France/Lyon")
    domains.table.item(1, 1).setText("Site")
    assert "one domain per group" in domains.error.text() and not dialog.ok.isEnabled()
    domains.table.item(1, 0).setText("Bad:name")
    domains.table.item(1, 1).setText("Vertical")
    assert "Domain 2: Domain: a domain is 1 to 5 parts" in domains.error.text()
    assert "pattern" not in domains.error.text()
    domains.table.item(1, 0).setText("Water")
    assert not domains.error.text() and dialog.ok.isEnabled()

    # Cellular: the eID and the network context; the LoRaWAN references are not sent.
    dialog.pickers["asTransportKey"].setText("atk-1")
    dialog.connectivity.setCurrentIndex(dialog.connectivity.findData("CELLULAR"))
    assert not dialog.pickers["asTransportKey"].isVisibleTo(dialog)
    assert dialog.inputs["eid"].isVisibleTo(dialog)
    dialog.inputs["EUI"].setText("356938035643809")
    dialog.inputs["eid"].setText("89049032000001000000000000000001")
    dialog.pickers["networkContextID"].setText("nc-fr")
    data = dialog.data()
    assert data["eid"] == "89049032000001000000000000000001"
    assert data["networkContextID"] == "nc-fr" and "asTransportKey" not in data
    assert dialog.revalidate() == {} and dialog.ok.isEnabled()  # set by code: check again
    dialog.reject()


def test_edit_sends_only_changed_references(qtbot: Any, recorded: Any) -> None:
    vm, _platform = recorded
    device = Device.model_validate(
        {
            "EUI": "70B3D57ED0000001",
            "name": "meter",
            "activation": "OTAA",
            "asTransportKey": {"ID": "atk-1", "name": "Metering key"},
            "hsmGroupID": "hsm-1",
            "appServers": [{"ID": "as-1", "name": "Metering"}],
            "domains": [{"name": "France/Paris", "group": {"name": "Site"}}],
        }
    )
    dialog = open_form(qtbot, vm, device)
    assert "eid" not in dialog.inputs  # set at creation only
    assert not dialog.pickers["networkContextID"].isVisibleTo(dialog)  # cellular only
    assert dialog.inputs["asTransportKey"].text() == "atk-1"
    assert dialog.inputs["hsmGroupID"].text() == "hsm-1"
    assert dialog.inputs["appServers"].text() == "as-1"
    data = dialog.data()
    assert not {"asTransportKey", "hsmGroupID", "appServers", "domains"} & set(data)
    dialog.inputs["asTransportKey"].clear()  # emptied: the key is removed
    dialog.inputs["appServers"].setText("as-1, as-2")
    domains = dialog.domains
    assert domains is not None and domains.table.rowCount() == 1
    domains.table.selectRow(0)
    domains.remove()
    data = dialog.data()
    assert data["asTransportKey"] is None and data["domains"] == []
    assert data["appServers"] == [{"ID": "as-1"}, {"ID": "as-2"}]
    assert "hsmGroupID" not in data
    assert dialog.ok.isEnabled(), dialog.revalidate()
    dialog.reject()


def test_create_with_references_on_the_sandbox(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    # The pane lists the referenced resources after its first page, for the pickers.
    qtbot.waitUntil(lambda: devices_vm.references["asTransportKey"].loaded, timeout=10000)
    qtbot.waitUntil(lambda: not devices_vm.runner.busy, timeout=10000)
    assert "atk-default" in devices_vm.references["asTransportKey"].ids()
    pane.new_device()
    dialog = pane.dialog
    assert dialog is not None
    eui = random_eui()
    qtbot.keyClicks(dialog.inputs["EUI"], eui)
    qtbot.keyClicks(dialog.inputs["asTransportKey"], "atk-default")
    qtbot.keyClicks(dialog.inputs["hsmGroupID"], "hsm-eu-west-1")
    qtbot.keyClicks(dialog.inputs["appServers"], "as-metering, as-parking")
    assert dialog.domains is not None
    dialog.domains.add()
    dialog.domains.table.item(0, 0).setText("France/Paris")
    dialog.domains.table.item(0, 1).setText("Site")
    assert dialog.ok.isEnabled(), dialog.revalidate()
    with qtbot.waitSignal(devices_vm.saved, timeout=10000) as saved:
        dialog.ok.click()
    device = saved.args[0]
    assert device.asTransportKey.ID == "atk-default" and device.hsmGroupID == "hsm-eu-west-1"
    assert sorted(s.ID for s in device.appServers) == ["as-metering", "as-parking"]
    assert [(d.group.name, d.name) for d in device.domains] == [("Site", "France/Paris")]
    qtbot.waitUntil(lambda: pane.dialog is None, timeout=5000)
    qtbot.waitUntil(
        lambda: devices_vm.detail is not None and eui == devices_vm.detail.EUI, timeout=10000
    )
    assert "hsm-eu-west-1" in pane.detail.label.text()

    # Edit: remove the key, empty the servers.
    pane.edit_device()
    dialog = pane.dialog
    assert dialog is not None and dialog.pickers["asTransportKey"].text() == "atk-default"
    assert dialog.inputs["asTransportKey"].text() == "Default key (atk-default)"
    dialog.inputs["asTransportKey"].clear()
    dialog.inputs["appServers"].clear()
    with qtbot.waitSignal(devices_vm.saved, timeout=10000) as saved:
        dialog.ok.click()
    device = saved.args[0]
    assert device.asTransportKey is None and device.appServers == []
    assert device.hsmGroupID == "hsm-eu-west-1"  # unchanged, not sent
    qtbot.waitUntil(lambda: pane.dialog is None, timeout=5000)


def test_create_cellular_with_eid_on_the_sandbox(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    pane = make_pane(qtbot, devices_vm)
    pane.new_device()
    dialog = pane.dialog
    assert dialog is not None
    dialog.connectivity.setCurrentIndex(dialog.connectivity.findData("CELLULAR"))
    imei = "35" + str(uuid.uuid4().int)[:12]
    qtbot.keyClicks(dialog.inputs["EUI"], imei)
    qtbot.keyClicks(dialog.inputs["imsi"], "208019999999999")
    qtbot.keyClicks(dialog.inputs["eid"], "89049032000001000000000000000042")
    qtbot.keyClicks(dialog.inputs["networkContextID"], "nc-orange-fr")
    assert dialog.ok.isEnabled(), dialog.revalidate()
    with qtbot.waitSignal(devices_vm.saved, timeout=10000) as saved:
        dialog.ok.click()
    device = saved.args[0]
    assert device.eid == "89049032000001000000000000000042"
    assert device.networkContextID == "nc-orange-fr" and device.imsi == "208019999999999"
    qtbot.waitUntil(lambda: pane.dialog is None, timeout=5000)
    # The SIM filter finds it by its eID.
    pane.extra_filters["simID"].setText("8904903200000100000000000000004")
    qtbot.waitUntil(lambda: devices_vm.filters.simID is not None, timeout=5000)
    qtbot.waitUntil(
        lambda: devices_vm.model.rowCount() == 1 and cell(pane, 0, 1) == imei, timeout=10000
    )


def test_unknown_reference_is_shown_inline_and_input_kept(
    qtbot: Any, devices_vm: DevicesViewModel
) -> None:
    pane = make_pane(qtbot, devices_vm)
    pane.new_device()
    dialog = pane.dialog
    assert dialog is not None
    qtbot.keyClicks(dialog.inputs["EUI"], random_eui())
    qtbot.keyClicks(dialog.inputs["appServers"], "as-metering, as-no-such-server")
    qtbot.keyClicks(dialog.inputs["asTransportKey"], "atk-default")
    with qtbot.waitSignal(devices_vm.save_failed, timeout=10000) as failed:
        dialog.ok.click()
    message, field = failed.args
    assert field == "appServers" and "as-no-such-server" in message
    assert dialog.isVisible() and dialog.errors["appServers"].text()
    assert dialog.inputs["appServers"].ids() == ["as-metering", "as-no-such-server"]
    assert dialog.pickers["asTransportKey"].text() == "atk-default"
    dialog.reject()


def test_a_list_reload_keeps_detail_edits_not_saved(
    qtbot: Any, devices_vm: DevicesViewModel
) -> None:
    pane = make_pane(qtbot, devices_vm)
    eui = cell(pane, 0, 1)
    with qtbot.waitSignal(devices_vm.detail_changed, timeout=10000):
        pane.table.selectRow(0)
    editor, routing = pane.detail.alarm004, pane.detail.routing
    pane.detail.tabs.setCurrentWidget(editor)
    editor.durations[0].setText("PT13H")
    routing.profile_id.setText("rp-typed")
    assert editor.save_button.isEnabled()
    reads: list[bool] = []
    devices_vm.detail_loading.connect(lambda on: on and reads.append(on))
    selection = pane.table.selectionModel()
    # Refresh, then a filter that keeps the device: its row is selected again, nothing is
    # read again, what was typed stays.
    with qtbot.waitSignal(devices_vm.detail_row, timeout=10000):
        pane.refresh()
    qtbot.waitUntil(lambda: selection.isRowSelected(0), timeout=5000)
    with qtbot.waitSignal(devices_vm.detail_row, timeout=10000):
        pane.search.setText(eui)
    qtbot.waitUntil(lambda: selection.isRowSelected(0), timeout=5000)
    qtbot.wait(300)  # the selection's debounce
    assert reads == []
    assert editor.durations[0].text() == "PT13H" and editor.save_button.isEnabled()
    assert routing.profile_id.text() == "rp-typed"
    # Read again (as after an acknowledgement): still there.
    with qtbot.waitSignal(devices_vm.detail_changed, timeout=10000):
        devices_vm.select("e" + eui, eui=eui)
    assert editor.durations[0].text() == "PT13H" and routing.profile_id.text() == "rp-typed"
    # Another device: its own values.
    with qtbot.waitSignal(devices_vm.first_page_loaded, timeout=10000):
        pane.search.setText("")
    other = next(r for r in range(devices_vm.model.rowCount()) if cell(pane, r, 1) != eui)
    with qtbot.waitSignal(devices_vm.detail_changed, timeout=10000):
        pane.table.selectRow(other)
    assert not editor.save_button.isEnabled()
    assert routing.profile_id.text() != "rp-typed"
