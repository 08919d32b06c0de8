"""The list-and-detail pane of a fleet entity (devices, base stations): a filter bar whose
text and choices become the list's query (typed filters wait for a pause, Enter sends at
once, Esc clears), the lazy list beside the detail (a held arrow key reads the last row
only), the count and the empty state in words, tags on the selection and the account's
rights said where an action is refused.

A pane says its filter widgets (`_text_filters`, `_choice_filters`), what they ask
(`filter_changes`), its words (`noun`, `plural`, `list_words`) and its empty list's text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QPoint, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QLayout,
    QLineEdit,
    QMenu,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...models.fleet_index.query import with_note
from ...models.fleet_list import FleetListViewModel
from ...schema.domains import parse_domain_filter
from ..connections import SignalConnections
from ..pane import Pane
from ..rights import RightsGate
from ..widgets import pane_parts as parts
from ..widgets.more_filters import EscapeClears, MoreFiltersButton

FILTER_DEBOUNCE_MS = 250
MAX_SELECTION = 1000  # rows a bulk action takes at once (the platform's limit for a tag)
SELECT_DELAY_MS = 120  # arrow keys held down: the last row's detail only is read
DOMAIN_PROBLEM = "Type the group, a colon, then the domain, e.g. Site:France/Lyon"


class FleetListPane(Pane, parts.KeptDialog):
    noun = "item"  # "device", "base station": messages, the empty list
    plural = "items"
    list_words = "items"  # "Could not load <list_words>"
    tag_action = ""  # the right a tag asks ("device.tag")
    tag_dialog_name = "tagDialog"
    domain_tip = ""

    # Made by the subclass before `_wire_list` (its widgets and view-model).
    vm: FleetListViewModel
    gate: RightsGate
    search: QLineEdit
    more_filters: MoreFiltersButton
    extra_filters: dict[str, QLineEdit]
    stack: parts.TableOrEmpty
    table: QTableView
    message: parts.PaneMessage
    _show_message: Callable[[str], None]
    _connections: SignalConnections

    # --- what a pane says ---------------------------------------------------------------

    def _text_filters(self) -> list[QLineEdit]:
        """The typed filters (the search first), the more-filters panel's included."""
        raise NotImplementedError

    def _choice_filters(self) -> list[QComboBox]:
        return []

    def filter_changes(self) -> dict[str, Any]:
        """What the filter bar asks of the list now, by filter name."""
        raise NotImplementedError

    def _empty_text(self, rows: int) -> str:
        """The empty list's words once connected and without an error ('' : rows)."""
        raise NotImplementedError

    def _filters_read(self) -> None:
        """After the filter bar was read (the clear button's state)."""

    # --- building -----------------------------------------------------------------------

    def _lay_out(self, *rows: QLayout | QWidget) -> None:
        """The pane from the top: its bars, the message, the filters set aside, the list."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        for row in rows:
            if isinstance(row, QLayout):
                layout.addLayout(row)
            else:
                layout.addWidget(row, 1 if row is rows[-1] else 0)

    def _wire_filters(self) -> None:
        """Typing waits for a pause, Enter and a choice ask at once, Esc clears a field, the
        search's Enter hands the keyboard to the list."""
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(FILTER_DEBOUNCE_MS)
        self._filter_timer.timeout.connect(self.apply_filters)
        self._clearing = False
        texts, choices = self._text_filters(), self._choice_filters()
        for edit in texts:
            edit.textChanged.connect(lambda _t: self._filter_timer.start())
            edit.returnPressed.connect(self.apply_filters)
        self.search.returnPressed.connect(self.focus_results)
        for choice in choices:
            choice.currentIndexChanged.connect(lambda _i: self.apply_filters())
        self.escape_clears = EscapeClears(self.apply_filters, self)
        self.escape_clears.watch(*texts, *choices)
        self.more_filters.panel.clear_requested.connect(self.clear_filters)

    def _wire_selection(self) -> None:
        self._select_timer = QTimer(self)
        self._select_timer.setSingleShot(True)
        self._select_timer.setInterval(SELECT_DELAY_MS)
        self._select_timer.timeout.connect(self._load_current)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._select_timer.start())

    # --- public actions (the window's shortcuts) ----------------------------------------

    def focus_filter(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def focus_results(self) -> None:
        """Enter in the search box: the list takes the keyboard (on its first row)."""
        self.table.setFocus()
        if not self.table.currentIndex().isValid() and self.vm.model.rowCount() > 0:
            self.table.setCurrentIndex(self.vm.model.index(0, 0))

    def allowed(self, action: str) -> bool:
        """Whether the account may do this; if not, the pane says why."""
        verdict = self.gate.check(action)
        if not verdict.allowed:
            self._show_message(verdict.reason)
        return verdict.allowed

    # --- filters ------------------------------------------------------------------------

    def search_query(self) -> str | None:
        """The search box's text as the list's query (None: no query): the one place where
        what the user types becomes what the server is asked."""
        return self.search.text().strip() or None

    def apply_filters(self) -> None:
        """Send what the filter fields hold now (typing calls this after a pause)."""
        self._filter_timer.stop()
        if self._clearing:
            return
        changes = self.filter_changes()
        self._filters_read()
        if all(getattr(self.vm.filters, k) == v for k, v in changes.items()):
            return  # nothing changed: keep the count and the empty state as they are
        self._list_asked_again()
        self.vm.update_filters(**changes)

    def _domain_filter(self, text: str | None) -> list[str]:
        """The domain field as the list filter; a text that is not `group:domain` is not sent,
        and the field says why (in red, and in its tooltip)."""
        edit = self.extra_filters["domain"]
        problem = ""
        if text:
            try:
                parse_domain_filter(text)
            except ValueError:
                problem = DOMAIN_PROBLEM
        edit.setStyleSheet("QLineEdit { color: #c0392b; }" if problem else "")
        edit.setToolTip(problem or self.domain_tip)
        return [text] if text and not problem else []

    def clear_filters(self) -> None:
        """Empty every filter field and ask for the whole list again (once)."""
        if self.filter_set is not None:
            self.filter_set.dismiss()
        self._clearing = True  # one request for all, not one per field
        try:
            for edit in self._text_filters():
                edit.clear()
            for choice in self._choice_filters():
                choice.setCurrentIndex(0)
        finally:
            self._clearing = False
        self._filter_timer.stop()
        if not self.vm.filters.is_empty():
            self._list_asked_again()
            self.vm.clear_filters()
        self._filters_read()

    # --- the selection ------------------------------------------------------------------

    def selected_rows(self) -> list[int]:
        """Selected rows, without building one index per row of a huge selection."""
        return parts.selected_rows(self.table, MAX_SELECTION)

    def _select_row(self, row: int) -> None:
        """Make this row the current and only selected one, in sight."""
        flags = (
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows
        )
        index = self.vm.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(index, flags)
        self.table.scrollTo(index)

    def tag_selection(self, *, untag: bool) -> None:
        rows = self.selected_rows()
        if not rows or not self.allowed(self.tag_action):
            return
        if len(rows) > MAX_SELECTION:
            self._show_message(f"Select at most {MAX_SELECTION:,} {self.plural} to tag at once")
            return
        from ..dialogs.tag import TagDialog  # imported when first used, not at start

        dialog = TagDialog(
            self.vm, len(rows), untag=untag, parent=self, nouns=(self.noun, self.plural)
        )
        dialog.setObjectName(self.tag_dialog_name)
        self.tag_dialog: TagDialog | None = dialog

        def done(result: int) -> None:
            if result == TagDialog.DialogCode.Accepted:
                self.vm.tag(dialog.tag_name, rows, untag=untag)
            dialog.deleteLater()
            self.tag_dialog = None

        dialog.finished.connect(done)
        dialog.open()

    def row_menu(self, row: int) -> QMenu:
        raise NotImplementedError

    def area_menu(self) -> QMenu | None:
        """The menu of the list's empty area (None: none)."""
        return None

    def _row_menu(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        at = self.table.viewport().mapToGlobal(pos)
        menu = self.row_menu(index.row()) if index.isValid() else self.area_menu()
        if menu is not None:
            menu.popup(at)

    # --- the list's state ---------------------------------------------------------------

    def _list_asked_again(self) -> None:
        """The list is asked for again: loading until its first page, no error yet."""
        self._first_loaded = False
        self._last_error = ""

    def _load_current(self) -> None:
        self.vm.select_row(self.table.currentIndex().row())
        self._update_actions()

    def _update_actions(self) -> None:
        """The buttons' and actions' states (connected, rights, selection)."""

    def _update_count(self, count: int) -> None:
        model, loaded = self.vm.model, self._first_loaded
        text = parts.count_text(
            count, self.noun, self.plural, first_loaded=loaded, known=model.count_known
        )
        if loaded:  # what the search box's text was matched by (the fleet index, its age)
            text = with_note(text, self.vm.fragments, self.vm.filters.query)
        self.count_label.setText(text if self.vm.has_client else "")
        self._update_empty()

    def _update_empty(self) -> None:
        rows = self.vm.model.rowCount()
        if not self.vm.has_client:
            text = "Not connected"
        elif self._last_error and rows == 0:
            text = f"Could not load {self.list_words}: {self._last_error}"
        else:
            text = self._empty_text(rows)
        self.stack.show_empty(text)

    def _error(self, message: str) -> None:
        self._last_error = message
        self._show_message(f"Could not load {self.list_words}: {message}")
        self._update_empty()

    def _client_changed(self, _has_client: bool) -> None:
        self._list_asked_again()
        self._update_count(0)
        self._update_actions()

    def _detail_loading(self, loading: bool) -> None:
        if loading:
            self.detail.show_loading()

    def closeEvent(self, event: Any) -> None:
        self._connections.disconnect_all()
        super().closeEvent(event)

    # Made by the subclass: the count's label and the detail beside the list.
    count_label: QLabel
    detail: Any
    _first_loaded: bool
    _last_error: str
