"""The alarms centre: device, multicast group and base station alarms in one lazy table, coloured by
severity, filtered (source, minimum severity, acknowledged or not), acknowledged in bulk, and
refreshed live without losing the selection or the scroll position. An alarm opens its device,
multicast group or base station (double-click, Enter). An account lists only the alarms it has
(a network partner: its stations'); the source filter offers those."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...models.alarms import AlarmsViewModel, kind_of, owner_id
from ...models.pane_access import NO_DATA_WORDS
from ...models.rights import AccountRights
from ...schema.common import Severity
from ..connections import SignalConnections
from ..first_page import first_page_of
from ..navigator import Location
from ..pane import Pane
from ..rights import RightsGate
from ..selection_gate import SelectionGate
from ..widgets.filter_state import FilterSet
from ..widgets.pane_parts import (
    PaneMessage,
    TableOrEmpty,
    busy_bar,
    count_text,
    data_table,
    selected_rows,
    tab_order,
)

MAX_ACK_SELECTION = 10_000
SOURCE_CHOICES = (
    ("Devices", "devices"),
    ("Multicast groups", "multicast"),
    ("Base stations", "stations"),
)


class AlarmsPane(Pane):
    title = "Alarms"

    def __init__(
        self,
        view_model: AlarmsViewModel,
        parent: QWidget | None = None,
        *,
        rights: AccountRights | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        self.gate = RightsGate(rights, self)
        self.source = QComboBox()
        self.source.setObjectName("alarmSource")
        self._fill_sources()
        self.severity = QComboBox()
        self.severity.setObjectName("minSeverity")
        self.severity.addItem("Any severity", None)
        for level in range(6, 1, -1):
            self.severity.addItem(f"{Severity(level).label} and above", level)
        self.acked = QComboBox()
        self.acked.setObjectName("ackedFilter")
        acked: list[tuple[str, bool | None]] = [
            ("Not acknowledged", False), ("Acknowledged", True), ("All", None)
        ]  # fmt: skip
        for label, choice in acked:
            self.acked.addItem(label, choice)
        self.live = QCheckBox("Live")
        self.live.setObjectName("liveRefresh")
        self.live.setChecked(True)
        self.live.setToolTip("Re-read the visible rows every few seconds")
        filters = QHBoxLayout()
        filters.addWidget(self.source)
        filters.addWidget(self.severity)
        filters.addWidget(self.acked)
        filters.addStretch(1)
        filters.addWidget(self.live)

        self.count_label = QLabel()
        self.count_label.setObjectName("countLabel")
        self.count_label.setMinimumWidth(120)
        self.busy = busy_bar()
        self.ack_button = QPushButton("Acknowledge")
        self.ack_button.setObjectName("ackButton")
        self.gate.bind(self.ack_button, self._ack_action())
        self.open_button = QPushButton("Open")
        self.open_button.setObjectName("openAlarmOwner")
        self.open_button.setToolTip(
            "Open the device, multicast group or base station of this alarm (Enter)"
        )
        self.refresh_button = QPushButton("Refresh")
        actions = QHBoxLayout()
        actions.addWidget(self.count_label)
        actions.addWidget(self.busy)
        actions.addStretch(1)
        actions.addWidget(self.open_button)
        actions.addWidget(self.ack_button)
        actions.addWidget(self.refresh_button)

        self.table = data_table(view_model.model, "alarmsTable", multi_select=True)
        self.stack = TableOrEmpty(self.table)
        self.empty = self.stack.empty
        self.message = PaneMessage()
        self._show_message = self.message.show_message
        # Kept per account: a partner does not inherit the subscriber's severity filter.
        self.filter_set = FilterSet(
            [self.source, self.severity, self.acked], self.apply_filters, parent=self
        )

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(filters)
        layout.addLayout(actions)
        layout.addWidget(self.message)
        layout.addWidget(self.stack, 1)

        view_model.visible_rows = self.visible_rows
        self.source.currentIndexChanged.connect(lambda _i: self.apply_filters())
        self.severity.currentIndexChanged.connect(lambda _i: self.apply_filters())
        self.acked.currentIndexChanged.connect(lambda _i: self.apply_filters())
        self.live.toggled.connect(self._live)
        self.ack_button.clicked.connect(self.acknowledge_selection)
        self.open_button.clicked.connect(lambda: self.open_owner(self.table.currentIndex()))
        self.table.activated.connect(self.open_owner)
        tab_order(
            self.source,
            self.severity,
            self.acked,
            self.live,
            self.open_button,
            self.ack_button,
            self.refresh_button,
            self.table,
        )
        self.refresh_button.clicked.connect(self.refresh)
        # Open and Acknowledge act on the selection, judged again after an acknowledge or a
        # refresh moved the rows under it.
        self.selection_gate = SelectionGate(
            self.table, self.gate, noun="alarm", connected=lambda: self.vm.has_client
        )
        self.selection_gate.needs(self.open_button, max_rows=1, current=True)
        self.selection_gate.needs(self.ack_button, test=self._ack_refusal)
        self._connections = SignalConnections(
            (view_model.count_changed, self._update_count),
            (view_model.loading_changed, self.busy.setVisible),
            (view_model.error, self._error),
            (view_model.first_page_loaded, self._first_page),
            (view_model.acknowledged, self._show_message),
            (view_model.client_changed, self._client_changed),
        )
        self._first_loaded = view_model.first_page_ms is not None
        self._last_error = ""
        self._show_source_column()
        self._update_count(view_model.model.rowCount())
        self._update_actions()

    # --- actions ----------------------------------------------------------------------

    async def first_page(self) -> dict[str, Any]:
        return await first_page_of("alarms", self.vm.model)

    async def show_first_item(self) -> None:
        """A screenshot shows the alarms, not "Loading…" on a busy machine."""
        await self.first_page()

    def refresh(self) -> None:
        self._first_loaded = False
        self._last_error = ""
        self.vm.reload()
        self._update_count(0)

    def apply_filters(self) -> None:
        self._first_loaded = False
        self._last_error = ""
        self.vm.set_filters(
            source=self.source.currentData(),
            min_severity=self.severity.currentData(),
            acked=self.acked.currentData(),
        )
        self._update_count(0)

    def visible_rows(self) -> tuple[int, int]:
        viewport = self.table.viewport()
        first = self.table.rowAt(0)
        last = self.table.rowAt(viewport.height() - 1)
        rows = self.vm.model.rowCount()
        if first < 0:
            first = 0
        if last < 0:
            last = rows - 1
        return first, max(first, last)

    def selected_rows(self) -> list[int]:
        return selected_rows(self.table, MAX_ACK_SELECTION)

    def owner_location(self, row: int) -> Location | None:
        """Where the alarm of this row leads: its device, or its multicast group."""
        alarm = self.vm.model.item(row) if row >= 0 else None
        if alarm is None:
            return None
        pane = {"multicast": "multicast", "station": "stations"}.get(kind_of(alarm), "devices")
        section = "alarms" if pane == "stations" else None
        return Location(pane, owner_id(alarm), section)

    def _fill_sources(self) -> None:
        """The source filter's choices: the lists this account has. A single one (a network
        partner's stations) is shown alone, and the filter says why there is no other."""
        available = self.vm.available_sources()
        choices = [(w, s) for w, s in SOURCE_CHOICES if s in available]
        if len(choices) > 1:
            choices.insert(0, ("Devices, groups and stations", "all"))
        current = self.source.currentData() or self.vm.source
        self.source.blockSignals(True)
        self.source.clear()
        for label, value in choices:
            self.source.addItem(label, value)
        index = self.source.findData(current)
        self.source.setCurrentIndex(max(index, 0))
        self.source.blockSignals(False)
        self.source.setEnabled(len(choices) > 1)
        missing = [NO_DATA_WORDS[s] for _w, s in SOURCE_CHOICES if s not in available]
        self.source.setToolTip("Which alarms to list" if len(choices) > 1 else "\n".join(missing))
        chosen = self.source.currentData()
        if chosen is not None and chosen != self.vm.source:
            self.vm.source = chosen  # read by the reload the new client asks for

    def _show_source_column(self) -> None:
        """The Source column says nothing when every alarm has the same (a network
        partner's: its stations'): hidden, its room left to the alarm's details."""
        headers = [column.header for column in self.vm.model.columns]
        if "Source" in headers:
            single = len(self.vm.available_sources()) == 1
            self.table.setColumnHidden(headers.index("Source"), single)

    def _ack_action(self, kinds: set[str] | None = None) -> str:
        """The right acknowledging needs: a base station's alarm the network partner's
        write permission, a device's or group's the device right. By the alarms selected,
        else by the lists the account has."""
        if kinds is None:
            available = self.vm.available_sources()
            kinds = {"station"} if available == {"stations"} else {"device"}
        return "station.alarm.acknowledge" if kinds == {"station"} else "alarm.acknowledge"

    def open_owner(self, index: QModelIndex) -> None:
        location = self.owner_location(index.row() if index.isValid() else -1)
        if location is not None:
            self.navigate.emit(location)

    def acknowledge_selection(self) -> None:
        rows = self.selected_rows()
        if len(rows) > MAX_ACK_SELECTION:
            self._show_message(f"Select at most {MAX_ACK_SELECTION:,} alarms at once")
            return
        kinds: set[str] = {kind_of(a) for a in self.vm.items(rows)}
        stations = {"station"} & kinds
        others = kinds - stations
        for part in (others, stations):
            verdict = self.gate.check(self._ack_action(part)) if part else None
            if verdict is not None and not verdict.allowed:
                self._show_message(verdict.reason)
                return
        if not self.vm.acknowledge(rows):
            self._show_message("Nothing to acknowledge in the selection")

    # --- signals ----------------------------------------------------------------------

    def _live(self, on: bool) -> None:
        self.vm.set_live(on and self.vm.has_client and self.isVisible())

    def showEvent(self, event: object) -> None:
        super().showEvent(event)  # type: ignore[arg-type]
        self._live(self.live.isChecked())  # a hidden pane does not poll

    def hideEvent(self, event: object) -> None:
        self.vm.set_live(False)
        super().hideEvent(event)  # type: ignore[arg-type]

    def _first_page(self, _ms: float) -> None:
        self._first_loaded = True
        self._update_count(self.vm.model.rowCount())
        self._live(self.live.isChecked())

    def _update_count(self, count: int) -> None:
        text = count_text(count, "alarm", "alarms", first_loaded=self._first_loaded)
        if not self.vm.has_client:
            text = ""
        # A list this platform does not offer (the groups' alarms on a 7.3 platform): left
        # out, and said here rather than as an error on every refresh.
        lacking = "\n".join(self.vm.not_offered.values()) if self.vm.has_client else ""
        if lacking and self._first_loaded:
            text += " (some not offered)"
        self.count_label.setText(text)
        self.count_label.setToolTip(lacking)
        empty = ""
        if not self.vm.has_client:
            empty = "Not connected"
        elif self._last_error and self.vm.model.rowCount() == 0:
            empty = f"Could not load alarms: {self._last_error}"
        elif self._first_loaded and self.vm.model.rowCount() == 0:
            empty = "No alarm matches these filters"
        self.stack.show_empty(empty)

    def _error(self, message: str) -> None:
        self._last_error = message
        self._show_message(f"Could not load alarms: {message}")
        self._update_count(self.vm.model.rowCount())

    def _client_changed(self, _has: bool) -> None:
        self._fill_sources()
        self._show_source_column()
        self.gate.bind(self.ack_button, self._ack_action())
        self._first_loaded = False
        self._last_error = ""
        self._update_count(0)
        self._update_actions()

    def _ack_refusal(self, rows: list[int]) -> str:
        alarms = self.vm.items(rows)
        if alarms and all(a.acked for a in alarms):
            return "The selected alarms are acknowledged already"
        return ""

    def _update_actions(self) -> None:
        self.selection_gate.update()
        self.refresh_button.setEnabled(self.vm.has_client)

    def closeEvent(self, event: object) -> None:
        self.vm.set_live(False)
        self.vm.visible_rows = None
        self._connections.disconnect_all()
        super().closeEvent(event)  # type: ignore[arg-type]
