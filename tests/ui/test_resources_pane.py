"""Multicast groups, application servers and network panes over plain async callables in the
client's shape (the sandbox routes for these areas are being written)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lpwa_console.models.forms import form_data, form_fields
from lpwa_console.models.resources import (
    ResourceViewModel,
    app_servers_kind,
    multicast_kind,
    network_kinds,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.app_servers import AppServer, AppServerPage
from lpwa_console.schema.multicast import (
    MulticastGroup,
    MulticastGroupCreate,
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

SHOTS = Path("/tmp/shots")


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

    async def list(self, page: int, size: int, **_kw: Any) -> MulticastGroupPage:
        chunk = self.items[(page - 1) * size : page * size]
        return MulticastGroupPage(
            briefs=chunk, count=len(self.items) if page == 1 else None,
            more=page * size < len(self.items),
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

    async def list_servers(page: int, size: int, **_kw: Any) -> AppServerPage:
        return AppServerPage(briefs=servers, count=3)

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
            iot_flow_connector_metrics=metrics,
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
    SHOTS.mkdir(exist_ok=True)
    pane.grab().save(str(SHOTS / "multicast-pane.png"))

    dialog = ResourceFormDialog(pane.vm, None, pane)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.inputs["EUI"].setText("zz")  # type: ignore[union-attr]
    assert dialog.errors["EUI"].text()
    save = dialog.buttons.buttons()[0]
    assert not save.isEnabled()
    dialog.grab().save(str(SHOTS / "multicast-form-error.png"))
    dialog.inputs["EUI"].setText("70B3D5E75E00AAAA")  # type: ignore[union-attr]
    dialog.inputs["nwAddress"].setText("0102ABCD")  # type: ignore[union-attr]
    dialog.inputs["name"].setText("New lights")  # type: ignore[union-attr]
    errors = dialog.check()
    if errors:  # the schema may need more (e.g. keys): give them
        dialog.inputs["appSKey"].setText("2B7E151628AED2A6ABF7158809CF4F3C")  # type: ignore[union-attr]
        dialog.inputs["nwKey"].setText("2B7E151628AED2A6ABF7158809CF4F3C")  # type: ignore[union-attr]
        errors = dialog.check()
    assert errors == {}
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
    assert "Metrics" in pane.detail.text() and "uplinksLast24h" in pane.detail.text()
    assert pane.edit_button.isEnabled()
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=3000):
        pane.views[0].selectRow(0)  # scope OPERATOR: read-only
    assert not pane.edit_button.isEnabled() and not pane.delete_button.isEnabled()
    pane.grab().save(str(SHOTS / "app-servers-pane.png"))


def test_network_sections(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, "Network", network_kinds(), fake_client())
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=3000):
        pane.show()
    assert pane.section.isVisible() and pane.section.count() == 4
    assert pane.empty.text() == "No network contexts yet"
    with qtbot.waitSignal(pane.vms[2].first_page_loaded, timeout=3000):
        pane.section.setCurrentIndex(2)  # HSM groups: loaded when shown
    assert not pane.new_button.isVisible()
    with qtbot.waitSignal(pane.vm.detail_changed, timeout=3000):
        pane.views[2].selectRow(0)
    assert "Exchange key" in pane.detail.text() and "AQAB" in pane.detail.text()
    pane.grab().save(str(SHOTS / "network-pane.png"))


def test_form_fields_from_the_schema() -> None:
    fields, skipped = form_fields(MulticastGroupCreate)
    names = {f.name for f in fields}
    assert {"EUI", "nwAddress", "class", "appServers"} <= names and "domains" in names and skipped == []
    data = form_data(fields, {"EUI": " 01 ", "appServers": "a, b", "downlinkDataRate": "3"})
    assert data == {"EUI": "01", "appServers": [{"ID": "a"}, {"ID": "b"}], "downlinkDataRate": 3}
