"""The operations view-models without a widget: a live queue re-reads its shown rows in place
(new items on top, selection following its item), the operator check, where a queue item
leads, filters typed wrong."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import QPersistentModelIndex

from lpwa_console.models.operations import (
    NOT_OPERATOR,
    LiveResourceViewModel,
    OperationsAccess,
    OperationsViewModel,
    command_kind,
    command_state_words,
    command_words,
    device_filter_for,
    operations_view_models,
    operator_devices_kind,
    provisioning_kind,
    target_of,
)
from lpwa_console.schema.operations import (
    CommandQueueItem,
    OperatorDeviceFilter,
    ProvisioningQueueFilter,
    ProvisioningQueueItem,
    ProvisioningQueuePage,
)
from tests.helpers import refusal


def prov(uid: int, **extra: Any) -> dict[str, Any]:
    return {
        "UID": str(uid), "type": "DEVICE", "action": "ACTIVATION", "subSystem": "LRC",
        "state": "PENDING", "creationTimestamp": 1_700_000_000_000 + uid,
        "entityID": f"{uid:016X}", **extra,
    }  # fmt: skip


class FakeQueue:
    """A provisioning queue, newest first, that grows on request."""

    def __init__(self, n: int) -> None:
        self.items = [prov(i) for i in range(n, 0, -1)]
        self.calls: list[tuple[int, int, Any, bool]] = []

    def add(self, k: int) -> None:
        top = int(self.items[0]["UID"]) if self.items else 0
        self.items[:0] = [prov(top + i) for i in range(k, 0, -1)]

    async def provisioning_queue(
        self, page: int, size: int, *, filters: Any = None, descending: bool = True
    ) -> ProvisioningQueuePage:
        self.calls.append((page, size, filters, descending))
        items = self.items if descending else list(reversed(self.items))
        if filters is not None and filters.subSystem:
            items = [i for i in items if i["subSystem"] == filters.subSystem]
        chunk = items[(page - 1) * size : page * size]
        return ProvisioningQueuePage(
            briefs=chunk, count=len(items) if page == 1 else None, more=page * size < len(items)
        )

    async def hsm_groups(self, page: int, size: int) -> Any:
        return SimpleNamespace(briefs=[], count=0)


def fake_client(queue: FakeQueue) -> Any:
    return SimpleNamespace(operations=queue)


def test_live_queue_keeps_the_selected_item(qtbot: Any, qloop: Any, runner: Any) -> None:
    queue = FakeQueue(250)
    vm = LiveResourceViewModel(runner, provisioning_kind(), page_size=100)
    vm.set_client(fake_client(queue))
    vm.reload()
    qtbot.waitUntil(lambda: vm.model.rowCount() == 250)
    model = vm.live_model
    selected = QPersistentModelIndex(model.index(2, 0))
    assert model.item(2).UID == "248"
    queue.add(3)
    with qtbot.waitSignal(vm.refreshed):
        assert vm.refresh_visible(0, 30)
    assert model.rowCount() == 253
    assert selected.row() == 5 and model.item(5).UID == "248"
    assert model.item(0).UID == "253"
    # Pages not re-read were dropped: they come back on demand, newest rows in place.
    assert model.loaded_pages() == [0]
    # Items whose state changed replace the one in the detail.
    vm.select(model.item(5))
    queue.items[5] = prov(248, state="DONE")
    with qtbot.waitSignal(vm.refreshed):
        vm.refresh_visible(0, 30)
    assert vm.detail.state == "DONE"
    # The refresh asked page 1 (for the count) with the list's filters, newest first.
    assert queue.calls[-1][0] == 1 and queue.calls[-1][3] is True


def test_live_queue_reads_the_pages_shown_and_the_first(
    qtbot: Any, qloop: Any, runner: Any, qtmodeltester: Any
) -> None:
    queue = FakeQueue(450)
    vm = LiveResourceViewModel(runner, provisioning_kind(), page_size=100)
    vm.set_client(fake_client(queue))
    vm.reload()
    qtbot.waitUntil(lambda: vm.model.rowCount() == 450)
    assert vm.live_model.pages_of(310, 340) == [0, 3]
    assert vm.live_model.pages_of(190, 210) == [0, 1, 2]
    queue.items = queue.items[:120]
    with qtbot.waitSignal(vm.refreshed):
        vm.refresh_visible(190, 210)
    assert vm.model.rowCount() == 120
    qtmodeltester.check(vm.model)
    # A reload meanwhile drops the refresh's answer.
    vm.refresh_visible(0, 10)
    vm.reload()
    qtbot.waitUntil(lambda: not vm.live_model.refreshing and not vm.model.loading)
    assert vm.model.rowCount() == 120


def test_access_of_operator_and_others(qtbot: Any, qloop: Any, runner: Any) -> None:
    access = OperationsAccess(runner)
    access.set_client(fake_client(FakeQueue(1)))
    with qtbot.waitSignal(access.changed) as changed:
        access.check()
    assert changed.args == [True] and access.allowed

    async def refused(page: int, size: int) -> Any:
        raise refusal(403, "the operator interface needs OPERATOR::ADMIN")

    access.set_client(SimpleNamespace(operations=SimpleNamespace(hsm_groups=refused)))
    assert access.allowed is None
    with qtbot.waitSignal(access.changed) as changed:
        access.check()
    assert changed.args == [False] and access.reason == NOT_OPERATOR


def test_where_a_queue_item_leads() -> None:
    device = ProvisioningQueueItem.model_validate(prov(1))
    assert target_of("provisioning_queue", device) == ("operations", device.entityID,
                                                      "operator_devices")  # fmt: skip
    station = ProvisioningQueueItem.model_validate(
        prov(2, type="BASE_STATION", entityID="0A01B2C3", partnerID="100")
    )
    assert target_of("provisioning_queue", station) == ("partners", "100", "0A01B2C3")
    profile = ProvisioningQueueItem.model_validate(prov(3, type="DEVICE_PROFILE"))
    assert target_of("provisioning_queue", profile) is None
    command = CommandQueueItem.model_validate(
        {"UID": "9", "type": "REBOOT", "command": "reboot", "lrrID": "0A01B2C3",
         "partnerID": "100", "state": "ERR_EXEC"}
    )  # fmt: skip
    assert target_of("command_queue", command) == ("partners", "100", "0A01B2C3")
    assert command_words(command) == "Reboot"
    assert command_state_words("ERR_EXEC") == "Failed (ERR_EXEC)"
    assert command_state_words("PROCESSING") == "Running"
    password = CommandQueueItem.model_validate({"UID": "1", "type": "CHANGE_SUPPORT_PASSWORD"})
    assert command_words(password) == "Change the support password"
    assert device_filter_for("35999900000012") == OperatorDeviceFilter(imei="35999900000012")
    assert device_filter_for("0018B2000000AB01").devEUI == "0018B2000000AB01"


def test_filters_typed_wrong_are_said_not_sent(qtbot: Any, runner: Any) -> None:
    vm = OperationsViewModel(runner, operator_devices_kind())
    with qtbot.waitSignal(vm.error) as error:
        vm.update_filters(imei="123")
    assert "14 or 15 digits" in error.args[0]
    assert vm.filters == OperatorDeviceFilter()
    vm.update_filters(imei="35999900000012", lorawanDebug=True)
    assert vm.filters == OperatorDeviceFilter(imei="35999900000012", lorawanDebug=True)
    queue = OperationsViewModel(runner, provisioning_kind())
    queue.update_filters(subSystem="PGW")
    assert queue.filters == ProvisioningQueueFilter(subSystem="PGW")


def test_the_pane_lists() -> None:
    from lpwa_console.models.tasks import TaskRunner

    vms = operations_view_models(TaskRunner())
    keys = [vm.kind.key for vm in vms]
    assert keys == ["provisioning_queue", "command_queue", "sim_cards", "operator_devices",
                    "operator_hsm_groups"]  # fmt: skip
    assert [isinstance(vm, LiveResourceViewModel) for vm in vms] == [True, True, False, False,
                                                                    False]  # fmt: skip
    assert vms[4].can_create and command_kind().create is None


def test_hsm_group_create_and_rotate_through_the_view_model(
    qtbot: Any, qloop: Any, runner: Any
) -> None:
    from lpwa_console.models.operations import operator_hsm_kind
    from lpwa_console.schema.operations import OperatorHsmGroup, OperatorHsmGroupPage

    sent: list[Any] = []

    async def create(request: Any) -> OperatorHsmGroup:
        sent.append(request)
        return OperatorHsmGroup(UID="5", ID=request.ID, name=request.name,
                                hsmNwkKeyVersion=f"{request.ID}-nwk-v1")  # fmt: skip

    async def update(uid: str, request: Any) -> OperatorHsmGroup:
        sent.append((uid, request))
        return OperatorHsmGroup(UID=uid, ID="g", hsmNwkKeyVersion=request.hsmNwkKeyVersion)

    async def groups(page: int, size: int) -> OperatorHsmGroupPage:
        return OperatorHsmGroupPage(briefs=[], count=0)

    ops = SimpleNamespace(create_hsm_group=create, update_hsm_group=update, hsm_groups=groups)
    vm = OperationsViewModel(runner, operator_hsm_kind())
    vm.set_client(SimpleNamespace(operations=ops))  # type: ignore[arg-type]
    assert vm.check({"ID": "bad id", "name": "G", "subscriberID": "100"}, creating=True)
    with qtbot.waitSignal(vm.saved):
        assert vm.save({"ID": "g", "name": "G", "subscriberID": "100"})
    assert sent[0].ID == "g" and sent[0].subscriberID == "100"
    group = OperatorHsmGroup(UID="5", ID="g", name="G", hsmNwkKeyVersion="g-nwk-v1")
    with qtbot.waitSignal(vm.saved) as saved:
        assert vm.save({"hsmNwkKeyVersion": "g-nwk-v2"}, group)
    assert sent[1][0] == "5" and saved.args[0].hsmNwkKeyVersion == "g-nwk-v2"
