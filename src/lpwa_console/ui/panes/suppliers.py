"""The Suppliers pane: a device supplier's applications (manifest, options), products (with
versions and stock), service accounts (a new secret shown once) and orders, over the shared
resources pane. Another account sees a sentence saying the pane is a supplier's."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pydantic import SecretStr
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QPushButton,
    QWidget,
)

from ...models.references import ReferenceLists
from ...models.resources import ResourceViewModel
from ...models.rights import AccountRights
from ...models.suppliers import MANIFEST, SecretIssuer, SupplierAccess, part_prefill
from ..dialogs.resource_form import SchemaFormDialog
from ..dialogs.service_account_secret import ServiceAccountSecretDialog
from ..first_page import FIRST_PAGE_TIMEOUT_S
from ..questions import ask
from .resources import ResourcesPane

SERVICE_ACCOUNTS = "supplier_service_accounts"
# Filter boxes that take a number: narrower than a search box.
NUMBER_FILTERS = ("minUpfrontPrice", "maxUpfrontPrice", "minStock", "maxStock")
PART_INTROS = {
    MANIFEST: "What the application asks of the subscriber who installs it. The manifest is "
    "replaced as a whole by what is saved here.",
}


class SupplierPartDialog(SchemaFormDialog):
    """A part of an application or product edited on its own dialog: its manifest, a new
    option, a new version."""

    def __init__(
        self, vm: ResourceViewModel, key: str, item: Any, parent: QWidget | None = None
    ) -> None:
        part = vm.part(key)
        current = part_prefill(key, vm)
        label = vm.kind.label(item)
        title = f"{part.action.rstrip('…')} of {label}" if current else part.action.rstrip("…")
        super().__init__(
            part.model,
            current,
            title=title if current else f"{title} for {label}",
            checker=lambda data: vm.check_part(key, data),
            submit=lambda data: vm.save_part(key, data, item, current),
            changes_only=False,
            parent=parent,
            intro=PART_INTROS.get(key, ""),
            references=ReferenceLists(vm.runner, vm.client),
        )
        self.setObjectName(f"supplier{key}Dialog")
        self.key = key
        self.connect_signals(
            (vm.part_saved, lambda k, _r: self.saved() if k == key else None),
            (vm.part_failed, lambda k, m, n: self.failed(m, n) if k == key else None),
        )


class SuppliersPane(ResourcesPane):
    def __init__(
        self,
        view_models: list[ResourceViewModel],
        access: SupplierAccess,
        secrets: SecretIssuer,
        parent: QWidget | None = None,
        *,
        rights: AccountRights | None = None,
    ) -> None:
        self.access = access
        self.secrets = secrets
        self.secret_dialog: QDialog | None = None
        self.heading = QLabel()
        self.secret_button = QPushButton("New secret…")
        super().__init__("Suppliers", view_models, parent, rights=rights)
        self.setObjectName("suppliersPane")
        self.heading.setObjectName("supplierHeading")
        self.heading.setVisible(False)
        self.add_heading(self.heading)
        self.secret_button.setObjectName("newSecret")
        self.secret_button.setToolTip(
            "Make a new secret for the selected service account; it is shown once"
        )
        self.secret_button.clicked.connect(self.new_secret)
        self.add_item_button(self.secret_button)
        for bar_widget in self.filters:
            bar_widget.narrow(NUMBER_FILTERS)
        self._connections.connect_all(
            (access.changed, self._access_changed),
            (secrets.issued, self._secret_issued),
            (secrets.failed, lambda m: self._show_message(f"No new secret: {m}")),
        )
        self._access_changed()

    # --- the account --------------------------------------------------------------------

    async def first_page(self) -> dict[str, Any]:
        """The lists once the account is known to be a supplier's; another account's pane
        says why it is empty, and there is nothing to load."""
        t0 = time.perf_counter()
        self.access.ensure_checked()
        while self.access.state in ("unknown", "checking"):
            if time.perf_counter() - t0 > FIRST_PAGE_TIMEOUT_S:
                raise RuntimeError(
                    f"suppliers: the supplier not read after {FIRST_PAGE_TIMEOUT_S} s"
                )
            await asyncio.sleep(0.02)
        if not self.access.is_supplier:
            return {"supplier": False, "says": self.empty.text()}
        return await super().first_page()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.access.ensure_checked()

    def _access_changed(self) -> None:
        if self.isVisible() and self.access.state == "unknown":
            self.access.ensure_checked()  # a client came while the pane is shown
        text = self.access.heading()
        self.heading.setText(f"<b>{text}</b>" if text else "")
        self.heading.setVisible(bool(text))
        if self.access.is_supplier and self.isVisible():
            self.vm.ensure_loaded()
        self._update(self.vm)

    def _update(self, vm: ResourceViewModel) -> None:
        super()._update(vm)
        if vm is not self.vm:
            return
        blocked = self.access.state in ("not_supplier", "error", "checking")
        if blocked and vm.has_client:
            words = self.access.message or "Reading the supplier…"
            self.stack.show_empty(words)
            self.count_label.setText("")
            for button in (self.new_button, self.edit_button, self.delete_button,
                           *self.part_buttons.values()):  # fmt: skip
                button.setEnabled(False)
        self.filter_bars.setVisible(
            bool(self.filters[self.vms.index(vm)].inputs) and not (blocked and vm.has_client)
        )
        self.section.setEnabled(not (blocked and vm.has_client))
        is_accounts = vm.kind.key == SERVICE_ACCOUNTS
        self.secret_button.setVisible(is_accounts)
        wanted = is_accounts and vm.detail is not None and not self.secrets.busy and not blocked
        self._enable(self.secret_button, vm, "secret", wanted)

    # --- parts: manifest, new option, new version ------------------------------------------

    def edit_part(self, key: str) -> None:
        item = self.vm.detail
        if not self.vm.can_edit_part(key, item) or not self._guarded(self.vm, key.lower()):
            return
        if self.dialog is not None:
            self.dialog.raise_()
            return
        self._show_dialog(SupplierPartDialog(self.vm, key, item, self))

    # --- service account secrets --------------------------------------------------------------

    def new_secret(self) -> None:
        item = self.vm.detail
        if self.vm.kind.key != SERVICE_ACCOUNTS or item is None:
            return
        if not self._guarded(self.vm, "secret"):
            return
        if not item.secretDate:
            self.secrets.new_secret(item.ID)
            self._update(self.vm)
            return

        def answered(yes: bool) -> None:
            if yes:
                self.secrets.new_secret(item.ID)
                self._update(self.vm)

        ask(
            self,
            "confirmNewSecret",
            "New secret",
            f"Make a new secret for “{item.name}”? Its current secret stops working at once.",
            answered,
            accept="Make a new secret",
        )

    def _secret_issued(self, account_id: str, secret: SecretStr | None) -> None:
        vm = next(v for v in self.vms if v.kind.key == SERVICE_ACCOUNTS)
        if secret is None:
            self._show_message("The platform answered without a secret")
            return
        item = vm.detail
        name = item.name if item is not None and account_id == item.ID else account_id
        if self.secret_dialog is not None:
            self.secret_dialog.close()
        dialog = ServiceAccountSecretDialog(name, account_id, secret, self)
        del secret
        self.secret_dialog = dialog
        dialog.finished.connect(self._secret_closed)
        dialog.open()
        vm.reload()  # its "secret made" date
        if item is not None and account_id == item.ID:
            vm.select(item)

    def _secret_closed(self, _result: int) -> None:
        if self.secret_dialog is not None:
            self.secret_dialog.deleteLater()
        self.secret_dialog = None
        self._update(self.vm)
