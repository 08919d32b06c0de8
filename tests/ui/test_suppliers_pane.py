"""The Suppliers pane against the live sandbox: the supplier's applications (manifest,
options), products with their stock filters in words and versions, service accounts (a new
secret shown once, then forgotten), an order looked up by number; another account sees a
sentence instead of refusals."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QLineEdit, QMessageBox

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.suppliers import (
    NOT_A_SUPPLIER,
    SecretIssuer,
    SupplierAccess,
    supplier_view_models,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.suppliers import ProductFilter, ServiceAccountCreate
from lpwa_console.ui.dialogs.service_account_secret import ServiceAccountSecretDialog
from lpwa_console.ui.panes.suppliers import SupplierPartDialog, SuppliersPane
from tests.helpers import run, shot


def _client(sandbox: Any, role: str) -> LpwaClient:
    account = sandbox.account(role)
    return LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )


@pytest.fixture
def supplier(sandbox: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any) -> Iterator[LpwaClient]:
    client = _client(sandbox, "supplier")
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


def make_pane(qtbot: Any, runner: TaskRunner, client: LpwaClient | None) -> SuppliersPane:
    access = SupplierAccess(runner)
    secrets = SecretIssuer(runner)
    vms = supplier_view_models(runner, access)
    pane = SuppliersPane(vms, access, secrets)
    qtbot.addWidget(pane)
    pane.resize(1200, 640)
    access.set_client(client)
    secrets.set_client(client)
    for vm in vms:
        vm.set_client(client)
    return pane


def shown(qtbot: Any, pane: SuppliersPane) -> None:
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=15000):
        pane.show()
    qtbot.waitUntil(lambda: pane.vm.model.rowCount() > 0, timeout=15000)


def rows(pane: SuppliersPane) -> list[Any]:
    return [pane.vm.model.item(r) for r in range(pane.vm.model.rowCount())]


def section(qtbot: Any, pane: SuppliersPane, key: str) -> None:
    index = [vm.kind.key for vm in pane.vms].index(key)
    with qtbot.waitSignal(pane.vms[index].first_page_loaded, timeout=15000):
        pane.section.setCurrentIndex(index)


def test_not_a_supplier_sees_a_sentence(
    qtbot: Any, client: LpwaClient, runner: TaskRunner, qtmodeltester: Any
) -> None:
    pane = make_pane(qtbot, runner, client)  # the subscriber's client
    pane.show()
    qtbot.waitUntil(lambda: pane.access.state == "not_supplier", timeout=15000)
    assert pane.empty.text() == NOT_A_SUPPLIER and pane.empty.isVisible()
    assert not pane.new_button.isEnabled() and not pane.filter_bars.isVisible()
    assert all(not vm.loaded for vm in pane.vms)  # no list was asked for
    assert not pane.message.isVisible() or "403" not in pane.message.text()
    qtmodeltester.check(pane.vm.model)


def test_not_connected(qtbot: Any, runner: TaskRunner) -> None:
    pane = make_pane(qtbot, runner, None)
    pane.show()
    assert pane.empty.text() == "Not connected"


def test_applications_manifest_and_options(
    qtbot: Any, supplier: LpwaClient, runner: TaskRunner, qtmodeltester: Any
) -> None:
    pane = make_pane(qtbot, runner, supplier)
    shown(qtbot, pane)
    assert pane.heading.text() == "<b>Demo Device Supplier · Validated</b>"
    qtmodeltester.check(pane.vm.model)
    names = [a.name for a in rows(pane)]
    assert "Water meter reading" in names
    row = names.index("Water meter reading")
    pane.views[0].setCurrentIndex(pane.vm.model.index(row, 0))
    qtbot.waitUntil(
        lambda: (
            getattr(pane.vm.detail, "name", None) == "Water meter reading"
            and "Manifest" in pane.vm.extras
        ),
        timeout=15000,
    )
    text = pane.detail.text()
    assert "Hourly readings" in text and "OPT-WATER-H" in text
    assert "Read meter indexes" in text
    shot(pane, "suppliers-applications.png")
    # A new option, through its own dialog.
    button = pane.part_buttons["Option"]
    assert button.isVisible() and button.isEnabled()
    pane.edit_part("Option")
    dialog = pane.dialog
    assert isinstance(dialog, SupplierPartDialog)
    dialog.inputs["name"].setText("Monthly digest")  # type: ignore[union-attr]
    dialog.inputs["SKU"].setText("OPT-WATER-M")  # type: ignore[union-attr]
    with qtbot.waitSignal(pane.vm.part_saved, timeout=15000):
        dialog.save()
    qtbot.waitUntil(lambda: "Monthly digest" in pane.detail.text(), timeout=15000)
    # The manifest dialog starts from the manifest as read.
    pane.edit_part("Manifest")
    manifest = pane.dialog
    assert isinstance(manifest, SupplierPartDialog)
    assert manifest.inputs["version"].text() == "1.0"  # type: ignore[union-attr]
    manifest.inputs["version"].setText("1.1")  # type: ignore[union-attr]
    with qtbot.waitSignal(pane.vm.part_saved, timeout=15000):
        manifest.save()
    qtbot.waitUntil(lambda: getattr(pane.vm.extras.get("Manifest"), "version", "") == "1.1",
                    timeout=15000)  # fmt: skip
    kept = run(qtbot, supplier.suppliers.manifest(pane.vm.detail.ID))
    assert kept.version == "1.1" and [p.ID for p in kept.permissions] == ["readings", "alarms"]


def _choose(combo: QComboBox, words: str) -> None:
    combo.setCurrentIndex(combo.findText(words))


def test_products_filters_in_words_and_versions(
    qtbot: Any, supplier: LpwaClient, runner: TaskRunner
) -> None:
    pane = make_pane(qtbot, runner, supplier)
    shown(qtbot, pane)
    section(qtbot, pane, "supplier_products")
    assert pane.vm.model.rowCount() >= 50
    bar = pane.filters[1]
    status = bar.inputs["status"]
    assert isinstance(status, QComboBox)
    words = [status.itemText(i) for i in range(status.count())]
    assert "In stock" in words and "Out of stock for 7 days" in words and "Sold out" in words
    for choice, value in (("In stock", "IN_STOCK"), ("Out of stock (any reason)", "OUT_STOCK")):
        with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=15000):
            _choose(status, choice)
        direct = run(
            qtbot, supplier.suppliers.products(1, 1000, filters=ProductFilter(status=value))
        )
        assert sorted(p.ID for p in rows(pane)) == sorted(p.ID for p in direct.briefs)
    low = bar.inputs["minStock"]
    assert isinstance(low, QLineEdit) and low.maximumWidth() <= 100
    _choose(status, "In stock")
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=15000):
        low.setText("500")
        low.returnPressed.emit()
    direct = run(
        qtbot,
        supplier.suppliers.products(
            1, 1000, filters=ProductFilter(status="IN_STOCK", minStock=500)
        ),
    )
    assert sorted(p.ID for p in rows(pane)) == sorted(p.ID for p in direct.briefs)
    low.setText("lots")
    with qtbot.waitSignal(pane.vm.error, timeout=5000) as said:
        low.returnPressed.emit()
    assert "Stock from: a whole number expected" in said.args[0]
    low.setText("")
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=15000):
        _choose(status, "Any availability")
    # A product with versions: its stock is per version, listed in its detail.
    # A demo product (the contract tests add one to the shared sandbox, versioned 'v1').
    versioned = next(p for p in rows(pane) if p.versionCount and p.name != "Contract product")
    row = rows(pane).index(versioned)
    assert pane.vm.model.data(pane.vm.model.index(row, 3)) == (
        f"per version ({versioned.versionCount})"
    )
    pane.views[1].setCurrentIndex(pane.vm.model.index(row, 0))
    qtbot.waitUntil(
        lambda: (
            getattr(pane.vm.detail, "ID", None) == versioned.ID and "Versions" in pane.vm.extras
        ),
        timeout=15000,
    )
    text = pane.detail.text()
    assert "v1\u20240" in text and "Hardware revision" not in text  # name: stock and availability
    assert any(words in text for words in ("in stock", "Out of stock", "Sold out", "Restocking"))
    shot(pane, "suppliers-products.png")


def test_service_account_secret_shown_once(
    qtbot: Any, supplier: LpwaClient, runner: TaskRunner, caplog: Any
) -> None:
    made = run(qtbot, supplier.suppliers.create_service_account(ServiceAccountCreate(name="Pane")))
    pane = make_pane(qtbot, runner, supplier)
    shown(qtbot, pane)
    section(qtbot, pane, "supplier_service_accounts")
    assert pane.secret_button.isVisible() and not pane.secret_button.isEnabled()
    qtbot.waitUntil(lambda: any(a.ID == made.ID for a in rows(pane)), timeout=15000)
    row = [a.ID for a in rows(pane)].index(made.ID)
    pane.views[2].setCurrentIndex(pane.vm.model.index(row, 0))
    qtbot.waitUntil(lambda: pane.secret_button.isEnabled(), timeout=15000)
    caplog.set_level("DEBUG")
    with qtbot.waitSignal(pane.secrets.issued, timeout=15000):
        pane.secret_button.click()  # no secret yet: no confirmation
    dialog = pane.secret_dialog
    assert isinstance(dialog, ServiceAccountSecretDialog)
    secret = dialog.secret.text()
    assert len(secret) >= 32
    assert dialog.secret.echoMode() == QLineEdit.EchoMode.Password
    assert dialog.client_id.text() == made.ID
    dialog.copy_button.click()
    clipboard = QApplication.clipboard()
    assert clipboard.text() == secret
    clipboard.clear()
    assert secret not in caplog.text  # never logged
    assert (
        all(secret not in name for name in runner.failures) if hasattr(runner, "failures") else True
    )
    dialog.reject()
    assert dialog.secret.text() == ""  # forgotten when it closes
    qtbot.waitUntil(lambda: pane.secret_dialog is None, timeout=5000)
    qtbot.waitUntil(
        lambda: pane.vm.detail is not None and pane.vm.detail.secretDate is not None,
        timeout=15000,
    )
    # Now it has one: a new secret asks first.
    qtbot.waitUntil(lambda: pane.secret_button.isEnabled(), timeout=15000)
    pane.secret_button.click()
    box = pane.findChild(QMessageBox, "confirmNewSecret")
    assert box is not None and "stops working" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert pane.secret_dialog is None


def test_order_lookup(qtbot: Any, supplier: LpwaClient, runner: TaskRunner) -> None:
    pane = make_pane(qtbot, runner, supplier)
    shown(qtbot, pane)
    section(qtbot, pane, "supplier_orders")
    assert "Type an order number" in pane.empty.text()
    number = pane.filters[3].inputs["order"]
    assert isinstance(number, QLineEdit)
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=15000):
        number.setText("1")
        number.returnPressed.emit()
    qtbot.waitUntil(lambda: pane.vm.model.rowCount() == 1, timeout=15000)
    order = rows(pane)[0]
    assert order.ID == "1"
    total = pane.vm.model.data(pane.vm.model.index(0, 4))
    assert total.endswith("EUR")
    with qtbot.waitSignal(pane.vm.first_page_loaded, timeout=15000):
        number.setText("99999")
        number.returnPressed.emit()
    qtbot.waitUntil(lambda: pane.empty.text() == "No orders match these filters", timeout=15000)
    assert pane.vm.model.data(pane.vm.model.index(0, 0), Qt.ItemDataRole.DisplayRole) is None


def test_the_console_signed_in_as_the_supplier(open_console: Any, qtbot: Any) -> None:
    """The whole console: an account without a subscription connects, and the pane lists
    the supplier's applications."""
    console = open_console("supplier")
    pane = console.panes["suppliers"]
    assert isinstance(pane, SuppliersPane)
    console.window.show_pane("suppliers")
    qtbot.waitUntil(lambda: pane.access.is_supplier, timeout=15000)
    qtbot.waitUntil(lambda: pane.vm.model.rowCount() >= 4, timeout=15000)
    assert "Demo Device Supplier" in pane.heading.text()
