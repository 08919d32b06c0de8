"""The operator's partners: each with its base stations used of granted; a partner's station
credit transactions (a station's creation names it: Enter or double-click opens it), and any
of its stations by LRR ID, shown as the operator sees it."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...models.operator_partners import OperatorPartnersViewModel
from ...schema.partners import Partner
from ..connections import SignalConnections
from ..layouts import PANE, fill
from ..pane import Pane
from ..widgets.detail_html import muted
from ..widgets.list_detail import ListDetailSplitter
from ..widgets.pane_parts import PaneMessage, TableOrEmpty, busy_bar, data_table, tab_order
from ..widgets.station_detail import HtmlView, configuration_html, overview_html


class PartnersPane(Pane):
    title = "Partners"

    def __init__(
        self, view_model: OperatorPartnersViewModel, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        self.count_label = QLabel()
        self.count_label.setObjectName("partnersCount")
        self.busy = busy_bar()
        self.refresh_button = QPushButton("Refresh")
        top = QHBoxLayout()
        top.addWidget(self.count_label)
        top.addWidget(self.busy)
        top.addStretch(1)
        top.addWidget(self.refresh_button)

        self.table = data_table(view_model.model, "partnersTable")
        self.stack = TableOrEmpty(self.table)
        self.empty = self.stack.empty

        self.header = QLabel()
        self.header.setObjectName("partnerHeader")
        self.header.setWordWrap(True)
        self.transactions = data_table(view_model.transactions, "creditTransactions")
        self.transactions.setToolTip("Enter or double-click a station's row to open it")
        self.lrr_input = QLineEdit()
        self.lrr_input.setObjectName("operatorStationLrrId")
        self.lrr_input.setPlaceholderText("LRR ID, e.g. 0A01B2C3")
        self.open_button = QPushButton("Open station")
        self.open_button.setObjectName("operatorOpenStation")
        open_row = QHBoxLayout()
        open_row.addWidget(self.lrr_input, 1)
        open_row.addWidget(self.open_button)
        self.station_label = HtmlView("operatorStation")
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.header)
        column.addWidget(QLabel("Station credit transactions"))
        column.addWidget(self.transactions, 1)
        column.addLayout(open_row)
        column.addWidget(self.station_label, 2)
        self.splitter = ListDetailSplitter("partnersSplitter", self.stack, right)
        self.right = right
        self.message = PaneMessage()
        fill(QVBoxLayout(self), top, self.message, (self.splitter, 1), margins=PANE)

        self.refresh_button.clicked.connect(self.refresh)
        self.table.selectionModel().currentRowChanged.connect(self._partner_picked)
        self.transactions.activated.connect(self._transaction_activated)
        self.open_button.clicked.connect(self.open_typed_station)
        self.lrr_input.returnPressed.connect(self.open_typed_station)
        tab_order(self.refresh_button, self.table, self.transactions, self.lrr_input)
        self._connections = SignalConnections(
            (view_model.model.count_changed, lambda _n: self._update()),
            (view_model.model.first_page_loaded, self._update),
            (view_model.model.first_page_loaded, self._open_pending),
            (view_model.model.loading_changed, self.busy.setVisible),
            # an empty first page comes while the model still loads: its end says "none"
            (view_model.model.loading_changed, lambda _b: self._update()),
            (view_model.error, self._error),
            (view_model.client_changed, lambda _h: self._update()),
            (view_model.partner_changed, self._partner_changed),
            (view_model.station_changed, self._station_changed),
            (view_model.station_failed, self._station_failed),
        )
        self._error_text = ""
        self._pending: tuple[str, str | None] | None = None  # an item asked before it loaded
        self._partner_changed(None)
        self._update()

    # --- actions ----------------------------------------------------------------------

    def refresh(self) -> None:
        self._error_text = ""
        self.vm.reload()
        self._update()

    def open_item(self, item: str | None, section: str | None = None) -> None:
        """`item`: a partner ID; selected when listed (else once its page arrives).
        `section`: an LRR ID of the partner's, opened in the operator view."""
        self._pending = None
        model = self.vm.model
        for row in range(model.rowCount()):
            partner = model.item(row)
            if partner is not None and item == partner.ID:
                self.table.selectRow(row)
                if section:
                    self.lrr_input.setText(section)
                    self.vm.open_station(section)
                return
        if item and (model.loading or model.rowCount() == 0):
            self._pending = (item, section)

    def _open_pending(self) -> None:
        pending = self._pending
        if pending is not None:
            self.open_item(*pending)

    def current_item(self) -> tuple[str | None, str | None]:
        return (self.vm.partner.ID if self.vm.partner is not None else None), None

    def open_typed_station(self) -> None:
        self.vm.open_station(self.lrr_input.text().strip())

    def _transaction_activated(self, index: QModelIndex) -> None:
        item = self.vm.transactions.item(index.row())
        if item is not None and item.lrrID:
            self.lrr_input.setText(item.lrrID)
            self.vm.open_station(item.lrrID)

    # --- signals ----------------------------------------------------------------------

    def _partner_picked(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.vm.select(self.vm.model.item(current.row()) if current.isValid() else None)

    def _partner_changed(self, partner: Partner | None) -> None:
        if partner is None:
            self.header.setText("Select a partner to see its station credits and stations.")
        else:
            used = f"{partner.totalBaseStationsUsed:,} stations used"
            granted = partner.totalBaseStationsGranted
            usage = f"{used}, no limit" if granted is None else f"{used} of {granted:,} granted"
            self.header.setText(f"<b>{escape(partner.name)}</b> ({escape(partner.ID)}): {usage}")
        enabled = partner is not None
        self.lrr_input.setEnabled(enabled)
        self.open_button.setEnabled(enabled)
        self.station_label.setText(muted("No station opened."))

    def _station_changed(self, station: Any) -> None:
        if station is None:
            self.station_label.setText(muted("No station opened."))
        else:
            self.station_label.setText(overview_html(station) + configuration_html(station))

    def _station_failed(self, message: str) -> None:
        self.station_label.setText(muted(f"Could not open the station: {message}"))

    def _error(self, message: str) -> None:
        self._error_text = message
        self._update()

    def _update(self) -> None:
        rows = self.vm.model.rowCount()
        if not self.vm.has_client:
            empty, count = "Not connected", ""
        elif self._error_text and rows == 0:
            empty = f"Only an operator account lists the network partners ({self._error_text})"
            count = ""
        elif rows == 0 and self.vm.model.loading:
            empty, count = "", "Loading…"
        elif rows == 0:
            empty, count = "No network partner", ""
        else:
            empty, count = "", f"{rows:,} partner{'' if rows == 1 else 's'}"
        self.count_label.setText(count)
        self.stack.show_empty(empty)
        self.right.setVisible(not empty)  # no partner to pick: nothing to show beside
        self.refresh_button.setEnabled(self.vm.has_client)

    def closeEvent(self, event: Any) -> None:
        self._connections.disconnect_all()
        super().closeEvent(event)
