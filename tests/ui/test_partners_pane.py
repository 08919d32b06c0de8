"""The operator's partners pane against the live sandbox: partners with stations used of
granted, a partner's credit transactions, one of its stations opened in the operator view;
a subscriber is told the list is an operator's."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.operator_partners import OperatorPartnersViewModel, partner_ref
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.panes.partners import PartnersPane
from tests.helpers import shot


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


def make(qtbot: Any, client: LpwaClient) -> PartnersPane:
    vm = OperatorPartnersViewModel(TaskRunner())
    pane = PartnersPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 640)
    pane.show()
    vm.set_client(client)
    return pane


def test_operator_opens_a_partners_station(
    qtbot: Any, operator: LpwaClient, qtmodeltester: Any
) -> None:
    pane = make(qtbot, operator)
    vm = pane.vm
    qtbot.waitUntil(lambda: vm.model.rowCount() > 0 and 0 in vm.model.loaded_pages())
    qtmodeltester.check(vm.model)
    assert pane.count_label.text().endswith(("partners", "partner"))
    # The partner with stations (the demo's Acme), with its used of granted in words.
    row = next(
        r for r in range(vm.model.rowCount()) if (p := vm.model.item(r)) and p.totalBaseStationsUsed
    )
    pane.table.selectRow(row)
    partner = vm.partner
    assert partner is not None
    assert partner_ref(partner)
    assert f"{partner.totalBaseStationsUsed:,} stations used" in pane.header.text()
    model = vm.transactions
    qtbot.waitUntil(lambda: model.rowCount() > 0 and 0 in model.loaded_pages())
    qtmodeltester.check(model)
    created = next(
        r for r in range(model.rowCount()) if (t := model.item(r)) is not None and t.lrrID
    )
    transaction = model.item(created)
    assert transaction is not None and transaction.lrrID
    # Enter on the transaction opens its station as the operator sees it.
    pane.transactions.setFocus()
    pane.transactions.setCurrentIndex(model.index(created, 0))
    with qtbot.waitSignal(vm.station_changed, timeout=10000) as opened:
        qtbot.keyClick(pane.transactions, Qt.Key.Key_Return)
    station = opened.args[0]
    assert station is not None and station.lrrID == transaction.lrrID
    assert station.lrrID in pane.station_label.text()
    shot(pane, "partners-pane.png")

    # A typed LRR ID that is not one says why, naming the field.
    with qtbot.waitSignal(vm.station_failed) as refused:
        pane.lrr_input.setText("XYZ")
        pane.open_typed_station()
    assert refused.args[0].startswith("LRR ID:")


def test_subscriber_is_told_partners_are_the_operators(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    qtbot.waitUntil(lambda: "operator" in pane.empty.text(), timeout=10000)


def test_a_station_named_by_the_navigator_opens_once_its_partner_is_listed(
    qtbot: Any, operator: LpwaClient
) -> None:
    """What a queue item of the operations pane asks: Location("partners", partner, lrrID),
    possibly before the partners' first page has arrived."""
    vm = OperatorPartnersViewModel(TaskRunner())
    pane = PartnersPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1200, 640)
    pane.show()
    vm.set_client(operator)
    lrr = ""

    async def first_station() -> str:
        page = await operator.operations.command_queue(1, 10)
        if page.briefs and page.briefs[0].lrrID:
            return page.briefs[0].lrrID
        partner = await operator.operator_partners.get("id:sub:100")
        assert partner.totalBaseStationsUsed
        credits = await operator.operator_partners.credit_transactions("id:sub:100")
        return next(t.lrrID for t in credits.briefs if t.lrrID)

    task = asyncio.ensure_future(first_station())
    qtbot.waitUntil(task.done, timeout=10000)
    lrr = task.result()
    with qtbot.waitSignal(
        vm.station_changed, timeout=10000, check_params_cb=lambda s: s is not None
    ) as opened:
        pane.open_item("100", lrr)  # asked while the list may still be loading
    assert vm.partner is not None and vm.partner.ID == "100"
    assert opened.args[0] is not None and opened.args[0].lrrID == lrr
    assert pane.lrr_input.text() == lrr
