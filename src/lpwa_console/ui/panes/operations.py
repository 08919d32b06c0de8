"""The operator's operations pane: the provisioning and command queues (live: the rows shown
are re-read every few seconds, in place), SIM cards, the platform's devices and HSM groups,
through the shared resource lists. A queue item about a device, a base station or an HSM
group opens it (double-click, Enter or "Open what it concerns") through the navigator.

Any account but an operator's sees why the pane is empty instead of the lists."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...models.operations import (
    REFRESH_MS,
    LiveResourceViewModel,
    OperationsAccess,
    target_of,
)
from ...models.resources import ResourceViewModel
from ...models.rights import AccountRights
from ..connections import SignalConnections
from ..layouts import FLUSH, fill
from ..navigator import Location
from ..widgets.pane_parts import TableOrEmpty
from .resources import ListsHost, ResourcesPane

CHECKING = "Checking whether this account may see the operator's operations…"


class OperationsPane(ListsHost):
    title = "Operations"

    def __init__(
        self,
        view_models: list[ResourceViewModel],
        access: OperationsAccess,
        parent: QWidget | None = None,
        *,
        rights: AccountRights | None = None,
        refresh_ms: int = REFRESH_MS,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("operationsPane")
        self.access = access
        self.lists = ResourcesPane(self.title, view_models, rights=rights)
        self.lists.navigate.connect(self.navigate)

        self.open_button = QPushButton("Open what it concerns")
        self.open_button.setObjectName("openConcerned")
        self.open_button.setToolTip("Open the device, base station or HSM group of this item")
        self.live_label = QLabel()
        self.live_label.setObjectName("liveLabel")
        row = fill(QHBoxLayout(), self.live_label, 1, self.open_button, margins=(8, 4, 8, 0))
        page = QWidget()
        fill(QVBoxLayout(page), row, (self.lists, 1), margins=FLUSH)

        # The lists, or in their place why not (not connected, not the operator's account).
        self.stack = TableOrEmpty(page)
        self.notice = self.stack.empty
        self.notice.setMargin(24)
        self.page = page
        self.stack.show_empty(CHECKING)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

        self.timer = QTimer(self)
        self.timer.setInterval(refresh_ms)
        self.timer.timeout.connect(self.refresh_visible)
        self.open_button.clicked.connect(self.open_concerned)
        for vm, view in zip(self.lists.vms, self.lists.views, strict=True):
            if isinstance(vm, LiveResourceViewModel):
                view.activated.connect(lambda index, v=vm: self._activated(v, index))
                view.selectionModel().currentRowChanged.connect(lambda _c, _p: self._update_open())
        self._connections = SignalConnections(
            (access.changed, self._access_changed),
            (self.lists.section.currentIndexChanged, lambda _i: self._section_changed()),
            *((vm.detail_changed, lambda _i, _e: self._update_open()) for vm in self.lists.vms),
        )
        self._access_changed(access.allowed)
        self._section_changed()

    # --- navigation ---------------------------------------------------------------------

    def focus_filter(self) -> None:
        self.lists.focus_filter()

    def open_concerned(self) -> None:
        """Go to what the selected queue item concerns."""
        vm = self.lists.vm
        target = target_of(vm.kind.key, vm.detail) if vm.detail is not None else None
        if target is not None:
            self.navigate.emit(Location(*target))

    def _activated(self, vm: ResourceViewModel, index: QModelIndex) -> None:
        item = vm.model.item(index.row())
        target = target_of(vm.kind.key, item) if item is not None else None
        if target is not None:
            self.navigate.emit(Location(*target))

    # --- live refresh -------------------------------------------------------------------

    def current_view(self) -> QTableView:
        return self.lists.views[self.lists.vms.index(self.lists.vm)]

    def visible_rows(self) -> tuple[int, int]:
        """The first and last rows the current list shows (a partly shown row counts)."""
        view = self.current_view()
        rows = view.model().rowCount()
        first = max(view.rowAt(0), 0)
        last = view.rowAt(max(view.viewport().height() - 1, 0))
        if last < 0:
            last = rows - 1
        return first, max(first, last)

    def refresh_visible(self) -> bool:
        """Re-read the rows the current queue shows (nothing for other lists, or when the
        pane is hidden or the account is not the operator's)."""
        vm = self.lists.vm
        if not self.isVisible() or self.access.allowed is not True:
            return False
        if not isinstance(vm, LiveResourceViewModel):
            return False
        return vm.refresh_visible(*self.visible_rows())

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.access.check()
        self._update_timer()

    def hideEvent(self, event: Any) -> None:
        super().hideEvent(event)
        self.timer.stop()

    # --- signals ------------------------------------------------------------------------

    def _access_changed(self, allowed: object) -> None:
        if allowed is True:
            self.stack.show_empty("")
        else:
            if allowed is None and self.access.client is None:
                text = "Not connected"
            else:
                text = self.access.reason or CHECKING
            self.stack.show_empty(text)
            if allowed is None and self.isVisible():
                self.access.check()
        self._update_timer()

    def _section_changed(self) -> None:
        live = isinstance(self.lists.vm, LiveResourceViewModel)
        seconds = self.timer.interval() / 1000
        self.live_label.setText(f"Updates every {seconds:g} s" if live else "")
        self.open_button.setVisible(live)
        self._update_open()
        self._update_timer()

    def _update_open(self) -> None:
        vm = self.lists.vm
        target = target_of(vm.kind.key, vm.detail) if vm.detail is not None else None
        self.open_button.setEnabled(target is not None)

    def _update_timer(self) -> None:
        wanted = (
            self.isVisible()
            and self.access.allowed is True
            and isinstance(self.lists.vm, LiveResourceViewModel)
        )
        if wanted and not self.timer.isActive():
            self.timer.start()
        elif not wanted:
            self.timer.stop()

    def closeEvent(self, event: Any) -> None:
        self.timer.stop()
        self._connections.disconnect_all()
        super().closeEvent(event)
