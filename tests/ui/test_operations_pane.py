"""The operations pane: live queues that keep the selection and the scroll while new items
arrive, queue items that open what they concern, and the empty state of accounts that are not
the operator's; over a fake client, then against the live sandbox in the whole console."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.operations import (
    NOT_OPERATOR,
    OperationsAccess,
    PartnerNames,
    operations_view_models,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import DeviceCreate
from lpwa_console.schema.operations import (
    CommandQueuePage,
    OperatorDevicePage,
    OperatorHsmGroupPage,
    SimCardPage,
)
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.operations import OperationsPane
from tests.helpers import refusal, shot
from tests.models.test_operations import FakeQueue

from .conftest import OpenConsole


class FakeOperations(FakeQueue):
    def __init__(self, n: int, *, operator: bool = True) -> None:
        super().__init__(n)
        self.operator = operator

    async def hsm_groups(self, page: int, size: int) -> Any:
        if not self.operator:
            raise refusal(403, "the operator interface needs OPERATOR::ADMIN")
        return OperatorHsmGroupPage(briefs=[{"UID": "1", "ID": "hsm-1"}], count=1)

    async def command_queue(self, page: int, size: int, **_kw: Any) -> CommandQueuePage:
        return CommandQueuePage(briefs=[], count=0)

    async def sims(self, page: int, size: int, **_kw: Any) -> SimCardPage:
        return SimCardPage(briefs=[{"IMSI": "208019999000001"}], count=1)

    async def devices(self, page: int, size: int, **_kw: Any) -> OperatorDevicePage:
        return OperatorDevicePage(briefs=[{"UID": "1", "devEUI": "00" * 8}], count=1)


def make(qtbot: Any, operations: FakeOperations) -> OperationsPane:
    runner = TaskRunner()
    vms = operations_view_models(runner)
    access = OperationsAccess(runner)
    pane = OperationsPane(vms, access, refresh_ms=100)
    qtbot.addWidget(pane)
    pane.resize(1200, 600)
    client = SimpleNamespace(operations=operations)
    for vm in vms:
        vm.set_client(client)  # type: ignore[arg-type]
    access.set_client(client)  # type: ignore[arg-type]
    return pane


def test_queue_updates_live_keeping_selection_and_scroll(qtbot: Any, qloop: Any) -> None:
    queue = FakeOperations(400)
    pane = make(qtbot, queue)
    pane.show()
    qtbot.waitUntil(lambda: pane.stack.currentWidget() is pane.page)
    vm = pane.lists.vm
    view = pane.current_view()
    qtbot.waitUntil(lambda: vm.model.rowCount() == 400 and vm.model.item(0) is not None)
    assert pane.live_label.text() == "Updates every 0.1 s"
    # Scroll down a little and pick a row.
    view.scrollTo(vm.model.index(40, 0), view.ScrollHint.PositionAtTop)
    qtbot.waitUntil(lambda: vm.model.item(view.rowAt(0)) is not None)
    top_before = view.verticalScrollBar().value()
    row = view.rowAt(0) + 2
    view.selectionModel().setCurrentIndex(
        vm.model.index(row, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    picked = vm.model.item(row).UID
    assert vm.detail is not None and picked == vm.detail.UID
    queue.add(5)
    qtbot.waitUntil(lambda: vm.model.rowCount() == 405)
    qtbot.waitUntil(lambda: vm.model.item(view.currentIndex().row()) is not None)
    assert picked == vm.model.item(view.currentIndex().row()).UID
    assert view.currentIndex().row() == row + 5
    assert [vm.model.item(i.row()).UID for i in view.selectionModel().selectedRows()] == [picked]
    assert view.verticalScrollBar().value() == top_before
    shot(pane, "operations-live-queue.png")
    # Another section stops refreshing; hiding the pane stops the timer.
    pane.lists.section.setCurrentIndex(2)
    assert not pane.timer.isActive() and not pane.open_button.isVisible()
    pane.lists.section.setCurrentIndex(0)
    assert pane.timer.isActive()
    pane.hide()
    assert not pane.timer.isActive()


def test_a_queue_item_opens_what_it_concerns(qtbot: Any, qloop: Any) -> None:
    pane = make(qtbot, FakeOperations(20))
    pane.show()
    vm = pane.lists.vm
    qtbot.waitUntil(lambda: vm.model.item(0) is not None)
    view = pane.current_view()
    assert not pane.open_button.isEnabled()
    view.setCurrentIndex(vm.model.index(3, 0))
    assert pane.open_button.isEnabled()
    item = vm.model.item(3)
    with qtbot.waitSignal(pane.navigate) as went:
        qtbot.mouseClick(pane.open_button, Qt.MouseButton.LeftButton)
    assert went.args[0] == Location("operations", item.entityID, "operator_devices")
    with qtbot.waitSignal(pane.navigate) as went:
        view.activated.emit(vm.model.index(5, 0))
    assert went.args[0].item == vm.model.item(5).entityID


def test_other_accounts_see_why_it_is_empty(qtbot: Any, qloop: Any) -> None:
    queue = FakeOperations(20, operator=False)
    pane = make(qtbot, queue)
    pane.show()
    qtbot.waitUntil(lambda: pane.notice.text() == NOT_OPERATOR)
    assert pane.stack.currentWidget() is pane.notice
    assert not pane.timer.isActive()
    assert queue.calls == []  # no list was asked for


@pytest.fixture
def operator(sandbox: Any, qloop: Any, qtbot: Any) -> Iterator[LpwaClient]:
    account = sandbox.account("operator")
    client = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


def test_operator_sees_live_operations(
    qtbot: Any, sandbox: Any, operator: LpwaClient, runner: Any
) -> None:
    """Against the live sandbox (the console's session cannot sign an operator in yet: it
    reads a subscription first, which an operator does not have)."""
    # The demo provisions nothing: a device created now is in the queue, whichever tests
    # ran before on this sandbox.
    account = sandbox.account("subscriber")
    subscriber = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )

    async def create() -> None:
        try:
            await subscriber.devices.create(
                DeviceCreate(
                    EUI=secrets.token_hex(8).upper(), nwAddress="01020304", appSKey="0" * 32
                )
            )
        finally:
            await subscriber.aclose()

    created = asyncio.ensure_future(create())
    qtbot.waitUntil(created.done, timeout=10_000)
    created.result()
    names = PartnerNames(runner)
    vms = operations_view_models(runner, names)
    access = OperationsAccess(runner)
    pane = OperationsPane(vms, access)
    qtbot.addWidget(pane)
    pane.resize(1200, 600)
    names.set_client(operator)
    for vm in vms:
        vm.set_client(operator)
    access.set_client(operator)
    pane.show()
    qtbot.waitUntil(lambda: pane.stack.currentWidget() is pane.page, timeout=10_000)
    vm = pane.lists.vm
    qtbot.waitUntil(lambda: vm.model.rowCount() > 0 and vm.model.item(0) is not None)
    assert vm.model.item(0).type in ("DEVICE", "BASE_STATION", "HSM_GROUP")
    # The devices in LoRaWAN debugging, by their filter.
    pane.lists.section.setCurrentIndex(3)
    devices = pane.lists.vm
    pane.lists.filters[3].inputs["lorawanDebug"].setCurrentIndex(1)  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: devices.model.rowCount() > 0 and devices.model.item(0) is not None)
    assert all(devices.model.item(r).lorawanDebug for r in range(min(10, devices.model.rowCount())))
    # A subscriber is named, not only numbered ("Acme Utilities (100)").
    column = [c.header for c in devices.model.columns].index("Subscriber")
    qtbot.waitUntil(lambda: bool(names.names), timeout=10_000)
    shown = devices.model.index(0, column).data()
    ident = devices.model.item(0).subscriberID
    assert shown == f"{names.names[ident]} ({ident})"
    # HSM groups: the list and one opened by its ID, as a queue item would.
    pane.open_item("hsm-eu-west-1", "operator_hsm_groups")
    hsm = pane.lists.vm
    qtbot.waitUntil(lambda: hsm.detail is not None and hsm.detail.ID == "hsm-eu-west-1")
    shot(pane, "operations-operator.png")


def test_subscriber_console_sees_an_empty_state(qtbot: Any, open_console: OpenConsole) -> None:
    # A subscriber's console lists no Operations pane; made anyway, it asks nothing and says
    # it is not connected to an operator's interface.
    console = open_console("subscriber")
    assert "operations" not in console.window.visible_keys
    pane = console.panes["operations"]
    assert isinstance(pane, OperationsPane)
    assert pane.access.client is None
    assert pane.stack.currentWidget() is pane.notice
