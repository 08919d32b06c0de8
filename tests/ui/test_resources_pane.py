"""Multicast groups, application servers and network panes over plain async callables in the
client's shape, and against the live sandbox where the server's answer matters (filters,
security)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QMessageBox

from lpwa_console.api import LpwaClient
from lpwa_console.models.forms import form_data, form_fields
from lpwa_console.models.resources import (
    ResourceViewModel,
    app_servers_kind,
    multicast_kind,
    network_kinds,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.app_servers import (
    ALL_SCOPES,
    AppServer,
    AppServerCreate,
    AppServerFilter,
    AppServerPage,
)
from lpwa_console.schema.multicast import (
    MulticastGroup,
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupPage,
)
from lpwa_console.schema.network import (
    AsTransportKeyPage,
    CellularNetworkContextPage,
    HsmGroupPage,
    NetworkSubscriptionPage,
    PublicRsaJsonWebKey,
)
from lpwa_console.ui.dialogs.resource_form import ResourceFormDialog
from lpwa_console.ui.panes.resources import MASK, ResourcesPane
from tests.helpers import run, shot
from tests.ui.conftest import OpenConsole


def group(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "EUI": f"{i:016X}", "name": f"Street lights {i}", "nwAddress": f"{i:08X}",
        "alarmLevel": 5 if i % 4 == 0 else 0, "alarmCount": 1 if i % 4 == 0 else 0,
        **{f"alarm{n}": 0 for n in range(1, 7)}, **extra,
    }  # fmt: skip


class FakeGroups:
    def __init__(self, n: int) -> None:
        self.items = [group(i) for i in range(n)]
        self.created: list[MulticastGroupCreate] = []
        self.filters: list[MulticastGroupFilter | None] = []

    async def list(
        self, page: int, size: int, *, filters: MulticastGroupFilter | None = None, **_kw: Any
    ) -> MulticastGroupPage:
        self.filters.append(filters)
        items = self.items
        if filters is not None:
            query = (filters.query or "").lower()
            items = [
                g for g in items
                if (g["name"].lower().startswith(query) or g["EUI"].lower().startswith(query))
                and set(filters.appServerID) <= {s["ID"] for s in g.get("appServers", [])}
            ]  # fmt: skip
        chunk = items[(page - 1) * size : page * size]
        return MulticastGroupPage(
            briefs=chunk, count=len(items) if page == 1 else None,
            more=page * size < len(items),
        )  # fmt: skip

    async def get(self, ref: str) -> MulticastGroup:
        eui = ref.removeprefix("e")
        data = next(g for g in self.items if g["EUI"] == eui)
        return MulticastGroup.model_validate({**data, "appSKey": "00" * 16})

    async def create(self, request: MulticastGroupCreate) -> MulticastGroup:
        self.created.append(request)
        data = group(len(self.items), EUI=request.EUI, name=request.name or request.EUI)
        self.items.append(data)
        return MulticastGroup.model_validate(data)


def fake_client(n: int = 130) -> Any:
    servers = [
        {"ID": f"as-{i}", "name": f"Server {i}", "scope": "SUBSCRIPTION" if i else "OPERATOR"}
        for i in range(3)
    ]
    server_filters: list[AppServerFilter | None] = []

    async def list_servers(
        page: int, size: int, *, filters: AppServerFilter | None = None, **_kw: Any
    ) -> AppServerPage:
        server_filters.append(filters)
        scopes = (filters.scope if filters else None) or ["SUBSCRIPTION"]
        shown = [s for s in servers if s["scope"] in scopes]
        return AppServerPage(briefs=shown, count=len(shown))

    async def get_server(ref: str) -> AppServer:
        return AppServer.model_validate(next(s for s in servers if ref.endswith(s["ID"])))

    async def security(_ref: str) -> Any:
        raise RuntimeError("no security here")

    async def metrics(_ref: str) -> Any:
        from lpwa_console.schema.app_servers import AppServerIotFlowConnectorMetrics

        zero = dict.fromkeys(AppServerIotFlowConnectorMetrics.model_fields, 0)
        return AppServerIotFlowConnectorMetrics.model_validate({**zero, "uplinksLast24h": 42})

    async def empty(page: int, size: int, **_kw: Any) -> Any:
        return CellularNetworkContextPage(briefs=[], count=0)

    async def keys(page: int, size: int) -> AsTransportKeyPage:
        return AsTransportKeyPage(briefs=[{"ID": "tk-1", "name": "Key one"}], count=1)

    async def hsm(page: int, size: int) -> HsmGroupPage:
        return HsmGroupPage(briefs=[{"ID": "hsm-1", "hsmExchangeKeyVersion": 2}], count=1)

    async def exchange_key(_id: str | None = None) -> PublicRsaJsonWebKey:
        return PublicRsaJsonWebKey(kid="k1", n="abc", e="AQAB")

    async def subs(page: int, size: int, **_kw: Any) -> NetworkSubscriptionPage:
        return NetworkSubscriptionPage(briefs=[{"ID": "1", "name": "LoRa FR"}], count=1)

    return SimpleNamespace(
        multicast_groups=FakeGroups(n),
        app_servers=SimpleNamespace(
            list=list_servers, get=get_server, security=security,
            iot_flow_connector_metrics=metrics, filters=server_filters,
        ),
        network_contexts=SimpleNamespace(list=empty),
        as_transport_keys=SimpleNamespace(list=keys),
        hsm_groups=SimpleNamespace(list=hsm, public_exchange_key=exchange_key),
        network_subscriptions=SimpleNamespace(list=subs),
    )  # fmt: skip


def make(qtbot: Any, title: str, kinds: list[Any], client: Any) -> ResourcesPane:
    vms = [ResourceViewModel(TaskRunner(), k, page_size=50) for k in kinds]
    pane = ResourcesPane(title, vms)
    qtbot.addWidget(pane)
    pane.resize(1200, 600)
    for vm in vms:
        vm.set_client(client)
    return pane


def test_not_connected(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, "Multicast groups", [multicast_kind()], None)
    pane.show()
    assert pane.empty.text() == "Not connected"
    assert not pane.new_button.isEnabled()


def test_a_restored_pane_loads_when_the_session_connects(qtbot: Any, qloop: Any) -> None:
    """The window reopens on the pane shown last, so the pane is visible before the session
    connects: its list must load, not say "No multicast groups yet" with data on the server.
    A second session (reconnect) loads it again."""
    pane = make(qtbot, "Multicast groups", [multicast_kind()], None)
    pane.show()
    assert pane.empty.text() == "Not connected"
    for client in (fake_client(130), fake_client(7)):
        with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=5000):
            pane.vm.set_client(client)
        qtbot.waitUntil(lambda c=client: pane.vm.model.rowCount() == len(c.multicast_groups.items))
        assert not pane.empty.isVisible()
    assert pane.count_label.text() == "7 multicast groups"


def test_multicast_list_detail_and_create(qtbot: Any, qloop: Any) -> None:
    client = fake_client(130)
    pane = make(qtbot, "Multicast groups", [multicast_kind()], client)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()  # lists load when first shown
    assert pane.count_label.text() == "130 multicast groups"
    table = pane.views[0]
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=3000):
        table.selectRow(0)
    text = pane.detail.text()
    assert "Street lights 0" in text and MASK in text and "00000000" * 4 not in text
    assert pane.edit_button.isEnabled()
    shot(pane, "multicast-pane.png")

    dialog = ResourceFormDialog(pane.vm, None, pane)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.inputs["EUI"].setText("zz")  # type: ignore[union-attr]
    assert dialog.errors["EUI"].text()
    save = dialog.buttons.buttons()[0]
    assert not save.isEnabled()
    shot(dialog, "multicast-form-error.png")
    # The AppSKey is required by a rule of the group, not its type: marked all the same.
    key_label = dialog.findChild(QLabel, "appSKeyLabel")
    assert key_label is not None and key_label.text() == "Application session key (AppSKey) *"
    dialog.inputs["EUI"].setText("70B3D5E75E00AAAA")  # type: ignore[union-attr]
    dialog.inputs["nwAddress"].setText("0102ABCD")  # type: ignore[union-attr]
    dialog.inputs["name"].setText("New lights")  # type: ignore[union-attr]
    assert dialog.check() == {"appSKey": "a multicast group needs its AppSKey (appSKey)"}
    dialog.inputs["appSKey"].setText("2B7E151628AED2A6ABF7158809CF4F3C")  # type: ignore[union-attr]
    assert dialog.check() == {}
    with qtbot.waitSignal(pane.vm.saved, timeout=3000):
        dialog.save()
    assert client.multicast_groups.created[0].EUI == "70B3D5E75E00AAAA"
    qtbot.waitUntil(lambda: pane.vm.model.rowCount() == 131, timeout=3000)


def test_app_servers_security_and_metrics(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, "App servers", [app_servers_kind()], fake_client())
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=3000):
        pane.views[0].selectRow(1)
    text = pane.detail.text().replace("&#8203;", "")  # long field names may wrap
    assert "Metrics" in text and "uplinksLast24h" in text
    assert pane.edit_button.isEnabled()
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=3000):
        pane.views[0].selectRow(0)  # scope OPERATOR: read-only
    assert not pane.edit_button.isEnabled() and not pane.delete_button.isEnabled()
    shot(pane, "app-servers-pane.png")


def test_network_sections(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, "Network", network_kinds(), fake_client())
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()
    assert pane.section.isVisible() and pane.section.count() == 4
    assert not pane.filter_bars.isVisible()  # no filters for network contexts
    assert pane.empty.text() == "No network contexts yet"
    with qtbot.waitSignal(pane.vms[2].first_page_loaded, timeout=3000):
        pane.section.setCurrentIndex(2)  # HSM groups: loaded when shown
    assert not pane.new_button.isVisible()
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=3000):
        pane.views[2].selectRow(0)
    assert "Exchange key" in pane.detail.text() and "AQAB" in pane.detail.text()
    shot(pane, "network-pane.png")


def test_form_fields_from_the_schema() -> None:
    fields, skipped = form_fields(MulticastGroupCreate)
    names = {f.name for f in fields}
    assert (
        {"EUI", "nwAddress", "class", "appServers"} <= names
        and "domains" in names
        and skipped == []
    )
    data = form_data(fields, {"EUI": " 01 ", "appServers": "a, b", "downlinkDataRate": "3"})
    assert data == {"EUI": "01", "appServers": [{"ID": "a"}, {"ID": "b"}], "downlinkDataRate": 3}


# --- filters --------------------------------------------------------------------------------


def test_multicast_filters_apply_on_the_server(qtbot: Any, qloop: Any) -> None:
    client = fake_client(30)
    groups = client.multicast_groups
    groups.items[3]["appServers"] = [{"ID": "as-1"}, {"ID": "as-2"}]
    groups.items[5]["appServers"] = [{"ID": "as-1"}]
    pane = make(qtbot, "Multicast groups", [multicast_kind()], client)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()
    assert pane.filter_bars.isVisible() and not pane.vm.filtered
    bar = pane.filters[0]
    assert set(bar.inputs) == {"query", "appServerID"}
    servers = bar.inputs["appServerID"]
    assert isinstance(servers, QLineEdit)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        qtbot.keyClicks(servers, "as-1, as-2")
        qtbot.keyClick(servers, Qt.Key.Key_Return)
    last = groups.filters[-1]
    assert last is not None and last.appServerID == ["as-1", "as-2"]  # all must match
    assert pane.count_label.text() == "1 multicast group" and pane.vm.filtered
    servers.setText("as-1")
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pass  # applied after a pause in typing
    assert pane.vm.model.rowCount() == 2
    query = bar.inputs["query"]
    assert isinstance(query, QLineEdit)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        query.setText("Nothing like it")
    assert pane.empty.text() == "No multicast groups match these filters"
    assert groups.filters[-1] == MulticastGroupFilter(query="Nothing like it", appServerID=["as-1"])
    shot(pane, "multicast-filtered-empty.png")
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        query.clear()
        servers.clear()
        bar.apply()
    assert pane.count_label.text() == "30 multicast groups" and not pane.vm.filtered
    assert groups.filters[-1] == MulticastGroupFilter()


def test_app_server_scope_filter(qtbot: Any, qloop: Any) -> None:
    client = fake_client()
    pane = make(qtbot, "App servers", [app_servers_kind()], client)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()
    assert client.app_servers.filters[-1] == ALL_SCOPES  # both, the console's default
    assert pane.count_label.text() == "3 application servers"
    scope = pane.filters[0].inputs["scope"]
    assert isinstance(scope, QComboBox)
    assert [scope.itemText(i) for i in range(scope.count())] == [
        "All scopes",
        "Subscription",
        "Operator",
    ]
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        scope.setCurrentIndex(2)
    assert client.app_servers.filters[-1].scope == ["OPERATOR"]
    assert pane.count_label.text() == "1 application server" and pane.vm.filtered
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        scope.setCurrentIndex(1)
    assert client.app_servers.filters[-1].scope == ["SUBSCRIPTION"]
    assert pane.vm.model.rowCount() == 2
    shot(pane, "app-servers-scope.png")


def test_only_the_current_sections_filters_show(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, "Network", network_kinds(), fake_client())
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()
    assert not pane.filter_bars.isVisible()  # network lists take no filters
    pane.focus_filter()  # nothing to focus: no harm


def live_pane(qtbot: Any, kind: Any, client: LpwaClient, runner: TaskRunner) -> ResourcesPane:
    vm = ResourceViewModel(runner, kind, client)
    pane = ResourcesPane(kind.title, [vm])
    qtbot.addWidget(pane)
    pane.resize(1200, 600)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=10000):
        pane.show()
    return pane


def rows(pane: ResourcesPane) -> list[Any]:
    return [pane.vm.model.item(r) for r in range(pane.vm.model.rowCount())]


def test_scope_filter_on_the_sandbox(qtbot: Any, client: LpwaClient, runner: TaskRunner) -> None:
    pane = live_pane(qtbot, app_servers_kind(), client, runner)
    assert {a.scope for a in rows(pane)} == {"SUBSCRIPTION", "OPERATOR"}
    scope = pane.filters[0].inputs["scope"]
    assert isinstance(scope, QComboBox)
    for index, scopes in (
        (1, ["SUBSCRIPTION"]),
        (2, ["OPERATOR"]),
        (0, ["SUBSCRIPTION", "OPERATOR"]),
    ):
        with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=10000):
            scope.setCurrentIndex(index)
        direct = run(qtbot, client.app_servers.list(1, 1000, filters=AppServerFilter(scope=scopes)))
        assert sorted(a.ID for a in rows(pane)) == sorted(a.ID for a in direct.briefs)
        assert {a.scope for a in rows(pane)} == set(scopes)
    query = pane.filters[0].inputs["query"]
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=10000):
        query.setText("no server is called so")  # type: ignore[union-attr]
    assert pane.empty.text() == "No application servers match these filters"


def test_multicast_app_server_filter_on_the_sandbox(
    qtbot: Any, client: LpwaClient, runner: TaskRunner
) -> None:
    pane = live_pane(qtbot, multicast_kind(), client, runner)
    servers = pane.filters[0].inputs["appServerID"]
    assert isinstance(servers, QLineEdit)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=10000):
        servers.setText("as-analytics, as-metering")
        servers.returnPressed.emit()
    found = rows(pane)
    assert found and all(
        {"as-analytics", "as-metering"} <= {s.ID for s in g.appServers} for g in found
    )
    one = run(
        qtbot,
        client.multicast_groups.list(
            1, 1000, filters=MulticastGroupFilter(appServerID=["as-metering"])
        ),
    )
    assert len(found) < one.count  # both must match: fewer than with one of them
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=10000):
        servers.setText("as-analytics, no-such-server")
        servers.returnPressed.emit()
    assert pane.empty.text() == "No multicast groups match these filters"


# --- after a save, the detail keeps its extras -----------------------------------------------


def test_saving_keeps_security_and_metrics_in_the_detail(
    qtbot: Any, client: LpwaClient, runner: TaskRunner
) -> None:
    created = run(qtbot, client.app_servers.create(AppServerCreate(name="Detail kept plant")))
    pane = live_pane(qtbot, app_servers_kind(), client, runner)
    vm = pane.vm
    vm.select(created)
    qtbot.waitUntil(lambda: {"Security", "Metrics"} <= set(vm.extras), timeout=10000)
    dialog = ResourceFormDialog(vm, vm.detail, pane)
    qtbot.addWidget(dialog)
    assert "occContext" not in dialog.editors  # sent by the console, never typed
    dialog.inputs["name"].setText("Detail kept plant, renamed")  # type: ignore[union-attr]
    with qtbot.waitSignal(vm.saved, timeout=10000):
        dialog.save()
    assert vm.detail.name == "Detail kept plant, renamed"
    assert {"Security", "Metrics"} <= set(vm.extras)  # at once, not only after a reselect
    qtbot.waitUntil(lambda: not runner.busy, timeout=10000)
    assert vm.detail.name == "Detail kept plant, renamed"
    assert {"Security", "Metrics"} <= set(vm.extras)
    assert "Security" in pane.detail.text() and "Metrics" in pane.detail.text()
    assert vm.detail.occContext.version == created.occContext.version + 1


def test_a_new_group_is_listed_and_selected_under_a_filter(qtbot: Any, qloop: Any) -> None:
    client = fake_client(30)
    pane = make(qtbot, "Multicast groups", [multicast_kind()], client)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()
    search = pane.filters[0].inputs["query"]
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        search.setText("Street lights 1")
        pane.filters[0].apply()
    pane._open(None)  # the New button's form
    dialog = pane.dialog
    assert isinstance(dialog, ResourceFormDialog)
    dialog.inputs["EUI"].setText("70B3D5E75E00BBBB")  # type: ignore[union-attr]
    dialog.inputs["nwAddress"].setText("0102ABCD")  # type: ignore[union-attr]
    dialog.inputs["name"].setText("Harbour lights")  # type: ignore[union-attr]
    dialog.inputs["appSKey"].setText("2B7E151628AED2A6ABF7158809CF4F3C")  # type: ignore[union-attr]
    with qtbot.waitSignal(pane.vm.saved, timeout=3000):
        dialog.save()
    table = pane.views[0]
    qtbot.waitUntil(lambda: table.selectionModel().hasSelection(), timeout=3000)
    item = pane.vm.model.item(table.currentIndex().row())
    assert item is not None and item.EUI == "70B3D5E75E00BBBB"
    assert pane.filters[0].state.bar.label.text() == "Filters set aside to show Harbour lights"
    assert pane.message.text().startswith("Created ")


def test_deleting_a_server_in_use_says_what_uses_it(open_console: OpenConsole, qtbot: Any) -> None:
    """The question before deleting an application server says how many devices and groups
    send their traffic to it; Cancel keeps it."""
    console = open_console("subscriber")
    servers = console.panes["app_servers"]
    assert isinstance(servers, ResourcesPane)
    console.window.navigator.open("app_servers")
    qtbot.waitUntil(lambda: servers.vm.model.rowCount() > 0, timeout=10_000)
    servers.views[0].selectRow(0)
    qtbot.waitUntil(lambda: servers.vm.detail is not None, timeout=10_000)
    server = servers.vm.detail
    assert server.deviceCount, "the demo's first server routes devices"
    qtbot.mouseClick(servers.delete_button, Qt.MouseButton.LeftButton)
    box = servers.findChild(QMessageBox, "confirmDelete")
    assert box is not None and box.isVisible()
    assert f"“{server.name}”" in box.text()
    assert f"{server.deviceCount:,} devices" in box.informativeText()
    assert "send their traffic to it" in box.informativeText()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: servers.findChild(QMessageBox, "confirmDelete") is None)
    assert servers.vm.detail is server
