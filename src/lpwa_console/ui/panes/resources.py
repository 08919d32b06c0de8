"""A pane over one or more resource lists (multicast groups; application servers; network
contexts, AS transport keys, HSM groups and network subscriptions): a lazy table, the selected
item's detail (security, metrics, exchange key when the kind has them), create, edit, delete."""

from __future__ import annotations

import contextlib
import re
from html import escape
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...models.devices import format_time
from ...models.forms import SECRET_WORDS
from ...models.resources import ResourceViewModel
from ..dialogs.resource_form import ResourceFormDialog
from ..widgets.pane_parts import PaneMessage, TableOrEmpty, busy_bar, data_table

MASK = "•••• (hidden)"


def _flatten(prefix: str, value: Any, secret: frozenset[str], out: list[tuple[str, str]]) -> None:
    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_none=True, by_alias=True)
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, secret, out)
        return
    leaf = prefix.rsplit(".", 1)[-1]
    hidden = leaf in secret or (
        isinstance(value, str)
        and any(w in leaf.lower() for w in SECRET_WORDS)
        and not leaf.endswith(("ID", "Version", "Name"))
        and leaf not in ("kid", "kty")
    )
    if leaf.endswith(("Date", "Timestamp")) and isinstance(value, int):
        value = format_time(value) or ""
    elif re.fullmatch(r"alarm\d", leaf) and not value:
        return  # per-severity counters: only those that count
    if isinstance(value, list):
        text = ", ".join(
            str(v.get("name") or v.get("ID") or v) if isinstance(v, dict) else str(v) for v in value
        )
    else:
        text = str(value)
    if text != "":
        out.append((prefix, MASK if hidden else text))


def detail_html(vm: ResourceViewModel, item: Any, extras: dict[str, Any]) -> str:
    if item is None:
        return "<p style='opacity:.6'>Select a row to see its details.</p>"
    noun = vm.kind.noun
    sections = [(noun[:1].upper() + noun[1:], item), *extras.items()]
    parts = [f"<h3 style='margin:0'>{escape(vm.kind.label(item))}</h3>"]
    for title, model in sections:
        rows: list[tuple[str, str]] = []
        _flatten("", model, vm.kind.secret_fields, rows)
        body = "".join(
            f"<tr><td style='padding:2px 12px 2px 0;opacity:.7'>{escape(k)}</td>"
            f"<td>{escape(v[:300])}</td></tr>"
            for k, v in rows
            if k not in ("href",)
        )
        parts.append(f"<h4 style='margin:10px 0 4px 0'>{escape(title)}</h4><table>{body}</table>")
    return "".join(parts)


class ResourcesPane(QWidget):
    def __init__(
        self, title: str, view_models: list[ResourceViewModel], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.title = title
        self.setObjectName(f"{view_models[0].kind.key}Pane")
        self.vms = view_models
        self.vm = view_models[0]
        self.dialog: ResourceFormDialog | None = None

        self.section = QComboBox()
        self.section.setObjectName("section")
        for vm in view_models:
            self.section.addItem(vm.kind.title)
        self.section.setVisible(len(view_models) > 1)
        self.count_label = QLabel()
        self.count_label.setObjectName("countLabel")
        self.count_label.setMinimumWidth(140)
        self.busy = busy_bar()
        self.new_button = QPushButton("New")
        self.edit_button = QPushButton("Edit")
        self.delete_button = QPushButton("Delete")
        self.refresh_button = QPushButton("Refresh")
        bar = QHBoxLayout()
        bar.addWidget(self.section)
        bar.addWidget(self.count_label)
        bar.addWidget(self.busy)
        bar.addStretch(1)
        for button in (self.new_button, self.edit_button, self.delete_button, self.refresh_button):
            bar.addWidget(button)

        self.tables = QStackedWidget()
        self.views: list[QTableView] = []
        for vm in view_models:
            self.views.append(self._table(vm))
            self.tables.addWidget(self.views[-1])
        self.stack = TableOrEmpty(self.tables)
        self.empty = self.stack.empty
        self.detail = QLabel()
        self.detail.setObjectName("resourceDetail")
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail.setMargin(10)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        scroll.setMinimumWidth(260)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(scroll)
        self.splitter.setSizes([760, 360])
        self.message = PaneMessage()
        self._show_message = self.message.show_message
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(bar)
        layout.addWidget(self.message)
        layout.addWidget(self.splitter, 1)

        self.section.currentIndexChanged.connect(self.show_section)
        self.new_button.clicked.connect(self.new_item)
        self.edit_button.clicked.connect(self.edit_item)
        self.delete_button.clicked.connect(self.delete_item)
        self.refresh_button.clicked.connect(self.refresh)
        self._connections: list[tuple[Any, Any]] = []
        for vm in view_models:
            self._connections += [
                (vm.count_changed, lambda _c, v=vm: self._update(v)),
                (vm.first_page_loaded, lambda v=vm: self._update(v)),
                (vm.loading_changed, lambda on, v=vm: self._loading(v, on)),
                (vm.error, lambda m, v=vm: self._error(v, m)),
                (vm.detail_changed, lambda i, e, v=vm: self._detail(v, i, e)),
                (vm.client_changed, lambda _h, v=vm: self._client_changed(v)),
                (vm.deleted, self._show_message),
                (vm.saved, lambda i, v=vm: self._show_message(f"Saved {v.kind.label(i)}")),
            ]
        for signal, slot in self._connections:
            signal.connect(slot)
        self._errors: dict[str, str] = {}
        self.show_section(0)

    def _table(self, vm: ResourceViewModel) -> QTableView:
        table = data_table(vm.model, f"{vm.kind.key}Table")
        table.selectionModel().currentRowChanged.connect(
            lambda current, _prev, v=vm: v.select_row(current.row())
        )
        table.doubleClicked.connect(lambda _i: self.edit_item())
        return table

    # --- actions ----------------------------------------------------------------------

    def show_section(self, index: int) -> None:
        self.vm = self.vms[index]
        self.tables.setCurrentIndex(index)
        if self.isVisible():
            self.vm.ensure_loaded()
        self.busy.setVisible(self.vm.model.loading)
        self._detail(self.vm, self.vm.detail, self.vm.extras)
        self._update(self.vm)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.vm.ensure_loaded()
        self._update(self.vm)

    def refresh(self) -> None:
        self._errors.pop(self.vm.kind.key, None)
        self.vm.reload()
        self._update(self.vm)

    def new_item(self) -> None:
        if self.vm.has_client and self.vm.can_create:
            self._open(None)

    def edit_item(self) -> None:
        if self.vm.can_edit(self.vm.detail):
            self._open(self.vm.detail)

    def _open(self, item: Any) -> None:
        if self.dialog is not None:
            self.dialog.raise_()
            return
        self.dialog = ResourceFormDialog(self.vm, item, self)
        self.dialog.finished.connect(self._closed)
        self.dialog.open()

    def _closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None

    def delete_item(self) -> None:
        item = self.vm.detail
        if not self.vm.can_delete(item):
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            f"Delete {self.vm.kind.noun}",
            f"Delete {self.vm.kind.noun} “{self.vm.kind.label(item)}”? This cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("confirmDelete")
        vm = self.vm

        def answered(button: int) -> None:
            if button == QMessageBox.StandardButton.Yes:
                vm.delete(item)
            box.deleteLater()

        box.finished.connect(answered)
        box.open()

    # --- signals ----------------------------------------------------------------------

    def _update(self, vm: ResourceViewModel) -> None:
        if vm is not self.vm:
            return
        rows = vm.model.rowCount()
        error = self._errors.get(vm.kind.key, "")
        if not vm.has_client:
            text, empty = "", "Not connected"
        elif vm.model.loading and rows == 0:
            text, empty = "Loading…", ""
        elif error and rows == 0:
            text, empty = "", f"Could not load {vm.kind.title.lower()}: {error}"
        elif rows == 0 and vm.loaded:
            text, empty = "", f"No {vm.kind.title.lower()} yet"
        else:
            text, empty = f"{rows:,} {vm.kind.title.lower() if rows != 1 else vm.kind.noun}", ""
        self.count_label.setText(text)
        self.stack.show_empty(empty)
        self.new_button.setEnabled(vm.has_client and vm.can_create)
        self.new_button.setVisible(vm.can_create)
        self.edit_button.setVisible(vm.kind.update is not None)
        self.delete_button.setVisible(vm.kind.delete is not None)
        self.edit_button.setEnabled(vm.can_edit(vm.detail))
        self.delete_button.setEnabled(vm.can_delete(vm.detail))
        self.refresh_button.setEnabled(vm.has_client)

    def _loading(self, vm: ResourceViewModel, loading: bool) -> None:
        if vm is self.vm:
            self.busy.setVisible(loading)
            self._update(vm)

    def _error(self, vm: ResourceViewModel, message: str) -> None:
        self._errors[vm.kind.key] = message
        if vm is self.vm:
            self._show_message(f"{vm.kind.title}: {message}")
        self._update(vm)

    def _detail(self, vm: ResourceViewModel, item: Any, extras: dict[str, Any]) -> None:
        if vm is self.vm:
            self.detail.setText(detail_html(vm, item, extras))
            self._update(vm)

    def _client_changed(self, vm: ResourceViewModel) -> None:
        self._errors.pop(vm.kind.key, None)
        if vm is self.vm and self.isVisible() and vm.has_client:
            vm.ensure_loaded()
        self._update(vm)

    def closeEvent(self, event: Any) -> None:
        for signal, slot in self._connections:
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
        self._connections = []
        super().closeEvent(event)
