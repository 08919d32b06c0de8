"""The devices view-model: filters sent with every page, and the lists of referenced resources
(AS transport keys, HSM groups, network contexts, application servers) for the pickers."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt

from lpwa_console.api import APIStatusError, NotFoundError
from lpwa_console.models.devices import REFERENCE_KINDS, DevicesViewModel
from lpwa_console.models.references import ID_ROLE, REFERENCE_PAGE, ReferenceListModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.app_servers import AppServerPage
from lpwa_console.schema.common import ListEnvelope
from lpwa_console.schema.device_profiles import DeviceProfilePage
from lpwa_console.schema.devices import Device, DeviceBrief, DeviceFilter
from lpwa_console.schema.network import AsTransportKeyPage, CellularNetworkContextPage, HsmGroupPage


class FakeClient:
    """The resources the view-model lists, as plain async callables that record their calls."""

    def __init__(self, *, keys: int = 3, hsm_fails: bool = False) -> None:
        self.device_filters: list[DeviceFilter] = []
        self.calls: dict[str, list[tuple[int, int]]] = {k: [] for k in REFERENCE_KINDS}
        self.server_filters: list[Any] = []
        self.key_count = keys

        async def list_devices(
            page: int, size: int, *, filters: DeviceFilter, **_kw: Any
        ) -> ListEnvelope[DeviceBrief]:
            self.device_filters.append(filters)
            return ListEnvelope[DeviceBrief](briefs=[], count=0)

        async def keys_page(index: int, size: int) -> AsTransportKeyPage:
            self.calls["asTransportKey"].append((index, size))
            start = (index - 1) * size
            ids = range(start, min(start + size, self.key_count))
            return AsTransportKeyPage.model_validate(
                {
                    "briefs": [{"ID": f"k{i:04d}", "name": f"Key {i}"} for i in ids],
                    "count": self.key_count if index == 1 else None,
                }
            )

        async def hsm_page(index: int, size: int) -> HsmGroupPage:
            self.calls["hsmGroupID"].append((index, size))
            if hsm_fails:
                request = httpx.Request("GET", "https://platform.test/hsmGroups")
                response = httpx.Response(403, request=request)
                raise APIStatusError("HSM is not activated here", response=response, code=None)
            return HsmGroupPage.model_validate({"briefs": [{"ID": "hsm-1"}], "count": 1})

        async def contexts_page(index: int, size: int) -> CellularNetworkContextPage:
            self.calls["networkContextID"].append((index, size))
            return CellularNetworkContextPage.model_validate(
                {"briefs": [{"ID": "nc-b", "name": "B"}, {"ID": "nc-a", "name": "A"}]}
            )

        async def servers_page(index: int, size: int, *, filters: Any = None) -> AppServerPage:
            self.calls["appServers"].append((index, size))
            self.server_filters.append(filters)
            return AppServerPage.model_validate(
                {"briefs": [{"ID": "as-1", "name": "Metering", "scope": "OPERATOR"}], "count": 1}
            )

        async def profiles_page(index: int, size: int) -> DeviceProfilePage:
            self.calls["model"].append((index, size))
            return DeviceProfilePage.model_validate(
                {
                    "briefs": [
                        {
                            "ID": "LORA/GenericA.1.0.3a_ETSI",
                            "commercialName": "LoRaWAN 1.0.3 - class A",
                            "connectivity": "LORAWAN",
                            "macMinorVersion": 5,
                            "vendor": {"ID": "generic", "commercialName": "Generic"},
                        }
                    ],
                    "more": False,
                }
            )

        self.device_profiles = SimpleNamespace(list=profiles_page)
        self.devices = SimpleNamespace(list=list_devices)
        self.as_transport_keys = SimpleNamespace(list=keys_page)
        self.hsm_groups = SimpleNamespace(list=hsm_page)
        self.network_contexts = SimpleNamespace(list=contexts_page)
        self.app_servers = SimpleNamespace(list=servers_page)


def make_vm(qtbot: Any, fake: FakeClient) -> DevicesViewModel:
    vm = DevicesViewModel(TaskRunner(), fake)  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=3000)
    return vm


def test_reference_model_roles(qtmodeltester: Any) -> None:
    model = ReferenceListModel()
    qtmodeltester.check(model)
    model.set_items([("atk-1", "Metering key"), ("hsm-1", ""), ("x", "x")])
    qtmodeltester.check(model, force_py=True)
    index = model.index(0, 0)
    assert index.data(Qt.ItemDataRole.DisplayRole) == "Metering key (atk-1)"
    assert index.data(Qt.ItemDataRole.EditRole) == "Metering key (atk-1)"  # shown once picked
    assert index.data(ID_ROLE) == "atk-1"  # what the request holds
    assert model.index(1, 0).data() == "hsm-1" and model.index(2, 0).data() == "x"
    assert model.ids() == ["atk-1", "hsm-1", "x"]
    assert index.data(Qt.ItemDataRole.ToolTipRole) == "ID: atk-1"
    # What a picker's text names: an item as shown, its name, its ID, or an ID typed.
    assert model.id_of("Metering key (atk-1)") == "atk-1" == model.id_of("Metering key")
    assert model.id_of("atk-9") == "atk-9" and model.id_of("Old key (atk-0)") == "atk-0"
    assert model.loaded and not model.error
    model.clear()
    assert model.rowCount() == 0 and not model.loaded


def test_every_filter_is_sent_and_cleared(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient()
    vm = make_vm(qtbot, fake)
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.update_filters(
            asTransportKeyID="atk-1", networkContextID="nc-1", simID="20801", imei="35000000000001"
        )
    assert ("simID", "20801") in fake.device_filters[-1].to_params()
    assert dict(fake.device_filters[-1].to_params()) == {
        "asTransportKeyID": "atk-1",
        "networkContextID": "nc-1",
        "simID": "20801",
        "imei": "35000000000001",
    }
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.clear_filters()
    assert fake.device_filters[-1].is_empty() and vm.filters.is_empty()


def test_references_load_in_the_background(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient(keys=REFERENCE_PAGE + 20, hsm_fails=True)
    vm = make_vm(qtbot, fake)
    assert all(m.rowCount() == 0 for m in vm.references.values())  # nothing asked yet
    changed: list[str] = []
    vm.references_changed.connect(changed.append)
    vm.load_references()
    assert vm.runner.busy  # returns at once: the work is in the runner
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert sorted(changed) == sorted(REFERENCE_KINDS)
    keys = vm.references["asTransportKey"]
    assert keys.rowCount() == REFERENCE_PAGE + 20  # every page, until `count`
    assert fake.calls["asTransportKey"] == [(1, REFERENCE_PAGE), (2, REFERENCE_PAGE)]
    assert vm.references["networkContextID"].ids() == ["nc-a", "nc-b"]  # sorted by ID
    assert vm.references["appServers"].ids() == ["as-1"]
    models = vm.references["model"]
    assert models.index(0, 0).data() == (
        "Generic LoRaWAN 1.0.3 - class A (LORA/GenericA.1.0.3a_ETSI)"
    )
    assert fake.server_filters[-1].scope == ["SUBSCRIPTION", "OPERATOR"]  # both scopes
    hsm = vm.references["hsmGroupID"]
    assert hsm.rowCount() == 0 and "not activated" in hsm.error and not hsm.loaded
    assert not vm.runner.failures  # quiet: a picker without its list is no failure

    # Loaded kinds are not asked again; a failed one is, unless retry=False.
    vm.load_references(retry=False)
    assert not vm.runner.busy
    vm.load_references()
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert len(fake.calls["hsmGroupID"]) == 2 and len(fake.calls["networkContextID"]) == 1
    # Old enough: asked again.
    vm.load_references(max_age_s=0)
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert len(fake.calls["networkContextID"]) == 2


def test_a_new_session_forgets_the_lists(qtbot: Any, qloop: Any) -> None:
    vm = make_vm(qtbot, FakeClient())
    vm.load_references()
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert vm.references["asTransportKey"].rowCount() == 3
    vm.set_client(None)
    assert all(m.rowCount() == 0 and not m.loaded for m in vm.references.values())
    vm.load_references()  # no client: nothing to do
    assert not vm.runner.busy


@pytest.mark.parametrize("count", [0, 1])
def test_short_lists_take_one_request(qtbot: Any, qloop: Any, count: int) -> None:
    fake = FakeClient(keys=count)
    vm = make_vm(qtbot, fake)
    vm.load_references()
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert len(fake.calls["asTransportKey"]) == 1
    assert vm.references["asTransportKey"].rowCount() == count


def test_a_platform_without_those_lists(qtbot: Any, qloop: Any) -> None:
    fake = FakeClient()
    del fake.hsm_groups  # e.g. an older platform interface: no such resource
    vm = make_vm(qtbot, fake)
    vm.load_references()  # does not raise here: the failure is the task's
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert vm.references["hsmGroupID"].error and vm.references["asTransportKey"].loaded


# --- the detail follows the list ----------------------------------------------------------


class ListedClient:
    """A platform that lists `listed`: `query` a prefix of the name or the EUI, `devEUI`
    prefixes of the EUI; GET answers a listed device or 404."""

    def __init__(self, count: int = 25) -> None:
        self.listed = [
            DeviceBrief(EUI=f"70B3D57ED{i:07X}", name=f"meter {i:02d}") for i in range(count)
        ]
        self.asked: list[DeviceFilter] = []

        def matches(brief: DeviceBrief, filters: DeviceFilter) -> bool:
            query = (filters.query or "").casefold()
            if query and not (
                brief.name.casefold().startswith(query) or brief.EUI.casefold().startswith(query)
            ):
                return False
            return not filters.devEUI or any(brief.EUI.startswith(e) for e in filters.devEUI)

        async def list_devices(
            page: int, size: int, *, filters: DeviceFilter, **_kw: Any
        ) -> ListEnvelope[DeviceBrief]:
            self.asked.append(filters)
            rows = [b for b in self.listed if matches(b, filters)]
            start = (page - 1) * size
            return ListEnvelope[DeviceBrief](
                briefs=rows[start : start + size],
                count=len(rows) if page == 1 else None,
                more=start + size < len(rows),
            )

        async def get(ref: str) -> Device:
            found = next((b for b in self.listed if ref == "e" + b.EUI), None)
            if found is None:
                request = httpx.Request("GET", f"https://platform.test/devices/{ref}")
                response = httpx.Response(404, request=request)
                raise NotFoundError("Device not found", response=response, code=None)
            return Device.model_validate(found.model_dump())

        self.devices = SimpleNamespace(list=list_devices, get=get)


def listed_vm(qtbot: Any, fake: ListedClient) -> DevicesViewModel:
    vm = DevicesViewModel(TaskRunner(), fake, page_size=10)  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: vm.first_page_ms is not None, timeout=3000)
    return vm


def show_row(qtbot: Any, vm: DevicesViewModel, row: int) -> Device:
    with qtbot.waitSignal(vm.detail_changed, timeout=3000) as changed:
        vm.select_row(row)
    device: Device = changed.args[0]
    return device


def test_the_detail_follows_the_filters(qtbot: Any, qloop: Any) -> None:
    vm = listed_vm(qtbot, ListedClient())
    shown = show_row(qtbot, vm, 3)
    assert shown.name == "meter 03"
    # Still in the view: found again at its new row, still shown.
    with qtbot.waitSignal(vm.detail_row, timeout=3000) as found:
        vm.update_filters(query="meter 0")
    assert found.args == [3] and vm.detail is shown
    with qtbot.waitSignal(vm.detail_row, timeout=3000) as found:
        vm.update_filters(query=shown.EUI)
    assert found.args == [0] and vm.detail is shown
    # A filter that empties the list: nothing is shown any more.
    with qtbot.waitSignal(vm.detail_changed, timeout=3000) as cleared:
        vm.update_filters(query="zz")
    assert cleared.args == [None] and vm.detail is None
    # And nothing comes back when the filter is cleared: no device is selected.
    with (
        qtbot.assertNotEmitted(vm.detail_row, wait=100),
        qtbot.waitSignal(vm.first_page_loaded, timeout=3000),
    ):
        vm.clear_filters()
    assert vm.detail is None


def test_a_device_not_among_the_rows_loaded_is_asked_about(qtbot: Any, qloop: Any) -> None:
    fake = ListedClient(25)
    vm = listed_vm(qtbot, fake)
    far = fake.listed[22]  # on the third page, which the view has not asked for
    with qtbot.waitSignal(vm.detail_changed, timeout=3000):
        vm.select("e" + far.EUI)
    assert not vm.list_complete() and vm.row_of(far.EUI) == -1
    with qtbot.waitSignal(vm.first_page_loaded, timeout=3000):
        vm.reload()
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert fake.asked[-1].devEUI == [far.EUI]  # "is it in this view?"
    assert vm.detail is not None and vm.detail.EUI == far.EUI  # it is: still shown
    # Deleted elsewhere: the next reload does not find it any more.
    fake.listed.remove(far)
    with qtbot.waitSignal(vm.detail_changed, timeout=3000) as cleared:
        vm.reload()
    assert cleared.args == [None]


def test_a_device_that_cannot_be_read_is_not_shown(qtbot: Any, qloop: Any) -> None:
    fake = ListedClient(3)
    vm = listed_vm(qtbot, fake)
    show_row(qtbot, vm, 0)
    gone = fake.listed.pop(1)
    with qtbot.waitSignal(vm.detail_failed, timeout=3000) as failed:
        vm.select("e" + gone.EUI)
    assert failed.args == ["Device not found"] and vm.detail is None


def test_a_new_session_forgets_the_device_shown(qtbot: Any, qloop: Any) -> None:
    fake = ListedClient(3)
    vm = listed_vm(qtbot, fake)
    show_row(qtbot, vm, 0)
    with (
        qtbot.assertNotEmitted(vm.detail_row, wait=100),
        qtbot.waitSignal(vm.first_page_loaded, timeout=3000),
    ):
        vm.set_client(fake)  # type: ignore[arg-type]
    assert vm.detail is None


def test_the_row_of_the_device_shown_selected_again_reads_nothing(qtbot: Any, qloop: Any) -> None:
    # After a reload the view selects the row of the device shown again: reading it again
    # would reset the detail panel (and its edits not saved yet).
    fake = ListedClient()
    gets: list[str] = []
    read = fake.devices.get

    async def get(ref: str) -> Device:
        gets.append(ref)
        return await read(ref)

    async def update(ref: str, request: Any) -> Device:
        found = next(b for b in fake.listed if ref == "e" + b.EUI)
        return Device.model_validate(
            {**found.model_dump(), **request.model_dump(exclude_unset=True)}
        )

    fake.devices.get = get
    fake.devices.update = update
    vm = listed_vm(qtbot, fake)
    shown = show_row(qtbot, vm, 3)
    assert len(gets) == 1
    with qtbot.waitSignal(vm.detail_row, timeout=3000) as found:
        vm.reload()
    vm.select_row(found.args[0])  # what the view does with detail_row
    qtbot.wait(50)
    assert len(gets) == 1 and vm.detail is shown
    # Another row is read; and the first one again, once it is no longer shown.
    show_row(qtbot, vm, 4)
    show_row(qtbot, vm, 3)
    assert len(gets) == 3
    # A save reads the device once, not once more when its row is selected again.
    with qtbot.waitSignal(vm.detail_row, timeout=3000) as found:
        assert vm.update(shown.path_ref, {"name": "meter 03"})
    vm.select_row(found.args[0])
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    assert len(gets) == 4 and vm.detail is not None and vm.detail.EUI == shown.EUI
    # A device that could not be read is read again when its row is picked.
    vm.select("e" + fake.listed[5].EUI)
    fake.listed[5], gone = DeviceBrief(EUI="0000000000000000", name="x"), fake.listed[5]
    qtbot.waitUntil(lambda: not vm.runner.busy, timeout=3000)
    fake.listed[5] = gone
    with qtbot.waitSignal(vm.detail_changed, timeout=3000):
        vm.select_row(5)
    assert vm.detail is not None and vm.detail.EUI == gone.EUI
