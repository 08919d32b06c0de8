"""The base stations pane: filters, the lazy list (connection, worst alarm, tags, model,
software, last seen), the partner's stations used of granted, a detail panel, new stations
(toolbar, menus, Ctrl+N; refused with the reason when the account may not or the partner's
grant is used up), and admin commands on the selection (toolbar, row menu, Enter opens the
detail's first tab)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QWidget,
)

from ...models.fleet_index.query import no_match_text
from ...models.partners import PartnerViewModel
from ...models.references import ReferenceLists
from ...models.rights import AccountRights
from ...models.station_command_catalogue import StationRef
from ...models.station_detail import StationDetailViewModel
from ...models.stations import (
    CONNECTION_FILTERS,
    STATION_COMMANDS,
    StationsViewModel,
    command_action,
)
from ...schema.stations import BaseStation
from ..connections import SignalConnections
from ..dialogs.resource_form import SchemaFormDialog
from ..dialogs.station_commands import open_station_command
from ..first_page import FIRST_PAGE_TIMEOUT_S, first_page_of, wait_signal
from ..rights import RightsGate
from ..selection_gate import SelectionGate
from ..widgets.filter_state import FilterSet
from ..widgets.list_detail import ListDetailSplitter
from ..widgets.more_filters import MoreFiltersButton, TextFilter, filter_line
from ..widgets.nested_editor import ObjectEditor
from ..widgets.pane_parts import PaneMessage, TableOrEmpty, busy_bar, data_table, tab_order
from ..widgets.station_detail import StationDetail
from .fleet_list import MAX_SELECTION, FleetListPane

EXTRA_FILTERS = [
    TextFilter("name", "Name", "starts with", "Stations whose name starts with this"),
    TextFilter(
        "LRRID", "LRR ID", "starts with, e.g. 0A01", "Stations whose LRR ID starts with this"
    ),
    TextFilter("version", "Software", "version starts with", "Software version prefix"),
    TextFilter(
        "domain",
        "Domain",
        "group:domain, exact, e.g. Site:France/Lyon",
        "Stations in this domain: its group, a colon, then the whole domain name",
    ),
]
DOMAIN_TIP = EXTRA_FILTERS[-1].tip
ALARM_FILTERS: list[tuple[str, int | None]] = [
    ("Any alarm", None),
    ("Critical alarm", 6),
    ("Major or worse", 5),
    ("Minor or worse", 4),
    ("Warning or worse", 3),
]


class StationsPane(FleetListPane):
    title = "Base stations"
    filter_set: FilterSet
    vm: StationsViewModel
    noun, plural, list_words = "station", "stations", "base stations"
    tag_action, tag_dialog_name = "station.tag", "stationTagDialog"
    domain_tip = DOMAIN_TIP

    def __init__(
        self,
        view_model: StationsViewModel,
        parent: QWidget | None = None,
        *,
        detail_vm: StationDetailViewModel | None = None,
        rights: AccountRights | None = None,
        partner: PartnerViewModel | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        if detail_vm is None:
            detail_vm = StationDetailViewModel(view_model.runner, view_model.client, parent=self)
            view_model.client_changed.connect(lambda _h: detail_vm.set_client(self.vm.client))
        self.detail_vm = detail_vm
        self.partner = partner
        self.gate = RightsGate(rights, self)
        self.dialog: SchemaFormDialog | None = None  # the station's configuration
        self.create_dialog: StationCreateDialog | None = None
        self._select_after = ""  # a station just created: its row selected once listed
        self._aside_ref = ""  # the station the filters were set aside for
        self.command_dialog: QDialog | None = None  # the last command dialog opened
        self.tag_dialog = None

        # --- filter bar ---
        self.search = filter_line(
            "stationSearch",
            "Name, LRR ID or UUID starting with…  (Ctrl+F)",
            "Stations whose name, LRR ID or LRR UUID starts with this text",
        )
        self.connection = QComboBox()
        self.connection.setObjectName("stationConnectionFilter")
        self.connection.setToolTip("Stations in this health state (connection and radio)")
        for label, states in CONNECTION_FILTERS:
            self.connection.addItem(label, states)
        self.alarm = QComboBox()
        self.alarm.setObjectName("stationAlarmFilter")
        self.alarm.setToolTip("Stations with an unacknowledged alarm at least this severe")
        for label, level in ALARM_FILTERS:
            self.alarm.addItem(label, level)
        self.tag_filter = filter_line(
            "stationTagFilter", "Tag", "Stations with this tag (exact name)"
        )
        self.more_filters = MoreFiltersButton(EXTRA_FILTERS, self)
        self.extra_filters = self.more_filters.edits
        filters = QHBoxLayout()
        filters.setSpacing(4)
        filters.addWidget(self.search, 3)
        filters.addWidget(self.connection)
        filters.addWidget(self.alarm)
        filters.addWidget(self.tag_filter, 1)
        filters.addWidget(self.more_filters)

        # --- actions ---
        self.count_label = QLabel()
        self.count_label.setObjectName("stationCount")
        self.partner_label = QLabel()
        self.partner_label.setObjectName("partnerUsage")
        self.busy = busy_bar()
        self.new_button = QPushButton("New base station…")
        self.new_button.setObjectName("newStation")
        self.new_button.setToolTip("Create a base station (Ctrl+N)")
        self._new_tip = self.new_button.toolTip()
        self.reboot_button = QPushButton("Reboot…")
        self.reboot_button.setObjectName("rebootStations")
        self.reboot_button.setToolTip("Reboot the selected stations (asks first)")
        self.command_button = QPushButton("Commands")
        self.command_button.setObjectName("stationCommands")
        self.command_button.setToolTip("Send an admin command to the selected stations")
        self.command_menu = self._command_menu(self.command_button)
        self.command_button.setMenu(self.command_menu)
        self.edit_button = QPushButton("Edit…")
        self.edit_button.setObjectName("editStationButton")
        self.edit_button.setToolTip("Change the configuration of the station shown")
        self.tag_button = QPushButton("Tag…")
        self.tag_button.setObjectName("tagStations")
        self.untag_button = QPushButton("Untag…")
        self.untag_button.setObjectName("untagStations")
        self.copy_button = QPushButton("Copy LRR ID")
        self.refresh_button = QPushButton("Refresh")
        for control, action in (
            (self.new_button, "station.create"),
            (self.reboot_button, "station.command.disruptive"),
            (self.command_button, "station.command"),
            (self.edit_button, "station.edit"),
            (self.tag_button, "station.tag"),
            (self.untag_button, "station.tag"),
        ):
            self.gate.bind(control, action)
        actions = QHBoxLayout()
        actions.setSpacing(4)
        actions.addWidget(self.count_label)
        actions.addWidget(self.busy)
        actions.addWidget(self.partner_label)
        actions.addStretch(1)
        self.buttons = (
            self.new_button,
            self.reboot_button,
            self.command_button,
            self.edit_button,
            self.tag_button,
            self.untag_button,
            self.copy_button,
            self.refresh_button,
        )
        for button in self.buttons:
            actions.addWidget(button)

        # --- table and detail ---
        self.table = data_table(view_model.model, "stationsTable", multi_select=True)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.horizontalHeader().setSectionsMovable(True)
        self.stack = TableOrEmpty(self.table)
        self.empty = self.stack.empty
        self.empty.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.empty.customContextMenuRequested.connect(self._empty_menu)
        self.detail = StationDetail(detail_vm, rights)
        self.splitter = ListDetailSplitter("stationsSplitter", self.stack, self.detail)
        self.message = PaneMessage()
        self._show_message = self.message.show_message
        self.filter_set = FilterSet(
            [
                self.search,
                self.connection,
                self.alarm,
                self.tag_filter,
                *self.extra_filters.values(),
            ],
            self.apply_filters,
            search=self.search,
            parent=self,
        )

        self._lay_out(filters, actions, self.message, self.filter_set.bar, self.splitter)

        # --- wiring ---
        self._wire_filters()
        self._wire_selection()
        # Copy, Tag and Untag act on the selection; Reboot and Commands on it or on the
        # station shown; Edit on the station shown: judged again after every change of rows.
        self.selection_gate = SelectionGate(
            self.table, self.gate, noun="base station", connected=lambda: self.vm.has_client
        )
        for button in (self.copy_button, self.tag_button, self.untag_button):
            self.selection_gate.needs(button)
        for button in (self.reboot_button, self.command_button):
            self.selection_gate.needs(button, min_rows=0, test=self._target_refusal)
        self.selection_gate.needs(self.edit_button, min_rows=0, test=self._detail_refusal)
        self.table.activated.connect(lambda _i: self.detail.tabs.setFocus())
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._row_menu)
        self.new_button.clicked.connect(self.new_station)
        self.reboot_button.clicked.connect(lambda: self.send_command("reboot"))
        self.edit_button.clicked.connect(self.edit_station)
        self.copy_button.clicked.connect(self.copy_lrr_ids)
        self.tag_button.clicked.connect(lambda: self.tag_selection(untag=False))
        self.untag_button.clicked.connect(lambda: self.tag_selection(untag=True))
        self.refresh_button.clicked.connect(self.refresh)
        self.detail.navigate.connect(self.navigate)
        self.detail.edit_requested.connect(self.edit_station)
        self.detail.save_requested.connect(self._save_detail)
        self.detail.command_requested.connect(self._detail_command)
        tab_order(
            self.search,
            self.connection,
            self.alarm,
            self.tag_filter,
            self.more_filters,
            *self.buttons,
            self.table,
            self.detail.tabs,
        )
        self._connections = SignalConnections(
            (view_model.count_changed, self._update_count),
            (view_model.loading_changed, self.busy.setVisible),
            (view_model.error, self._error),
            (view_model.first_page_loaded, self._first_page),
            (view_model.client_changed, self._client_changed),
            (view_model.detail_changed, self._detail_changed),
            (view_model.detail_loading, self._detail_loading),
            (view_model.detail_failed, self.detail.show_error),
            (view_model.saved, self._saved),
            (view_model.save_failed, self._save_failed),
            (view_model.tags_applied, self._tags_applied),
            (view_model.created, self._created),
            (view_model.loading_changed, self._loading_changed),
        )
        if partner is not None:
            self._connections.connect(partner.changed, self._partner_changed)
            self._partner_changed()
        self._first_loaded = view_model.first_page_ms is not None
        self._last_error = ""
        self._update_count(view_model.model.rowCount())
        self._update_actions()

    def _sender(self, command: str) -> Callable[[], None]:
        return lambda: self.send_command(command)

    def _command_menu(self, parent: QWidget) -> QMenu:
        menu = QMenu(parent)
        menu.setObjectName("stationCommandMenu")
        for name, words in STATION_COMMANDS:
            action = menu.addAction(f"{words}…", self._sender(name))
            action.setObjectName(f"command_{name}")
        menu.addSeparator()
        menu.addAction("Other…", lambda: self.send_command(None))
        return menu

    # --- public actions (and the window's shortcuts) ----------------------------------

    def open_item(self, item: str | None, section: str | None = None) -> None:
        """Show this station: its LRR ID (or any UID form: `i`+lrrID, a UID), selected in
        the list, its detail from the top (or on `section`, a tab: "alarms", "commands"...).
        When the rows loaded do not hold it, the filters are set aside and the list narrowed
        to it, and the pane says so."""
        if not item:
            return
        text = item.strip()
        ref = "i" + text.upper() if len(text) == 8 and not text.startswith("i") else text
        self.detail.reveal()
        row = self.vm.row_of(ref)
        if row >= 0:
            self._select_row(row)
            self._select_timer.stop()
            self.vm.select_row(row)
        else:
            self.table.selectionModel().clearSelection()
            self._select_timer.stop()
            if ref.startswith("i"):  # an LRR ID the search finds: the list narrowed to it
                self.show_aside(ref, ref[1:])
            if not self.vm.showing(ref):
                self.vm.select(ref)
        if section:
            self.show_section(section)

    def show_aside(self, ref: str, name: str) -> None:
        """The list narrowed to this station (`i`+LRR ID), the filters set aside (said above
        the list); its row is selected when the list has it (`_select_created`)."""
        self._select_after = self._aside_ref = ref
        self._list_asked_again()
        self.filter_set.set_aside(name, ref[1:])

    def show_section(self, section: str) -> None:
        tab = self.detail.sections.get(section)
        if tab is not None:
            self.detail.tabs.setCurrentWidget(tab)

    def current_item(self) -> tuple[str | None, str | None]:
        detail = self.vm.detail
        return (detail.lrrID if detail is not None else None), None

    def refresh(self) -> None:
        self._list_asked_again()
        self.vm.reload()
        self.vm.reload_detail()
        if self.partner is not None:
            self.partner.load()
        self._update_count(0)

    def _text_filters(self) -> list[QLineEdit]:
        return [self.search, self.tag_filter, *self.extra_filters.values()]

    def _choice_filters(self) -> list[QComboBox]:
        return [self.connection, self.alarm]

    def filter_changes(self) -> dict[str, Any]:
        tag = self.tag_filter.text().strip()
        extra = self.more_filters.values()
        lrr = (extra.get("LRRID") or "").upper()
        return {
            "query": self.search_query(),
            "healthState": list(self.connection.currentData() or []),
            "alarmLevel": self.alarm.currentData(),
            "tag": [tag] if tag else [],
            "name": extra.get("name"),
            "LRRID": [lrr] if lrr else [],
            "version": extra.get("version"),
            "domain": self._domain_filter(extra.get("domain")),
        }

    def send_command(self, command: str | None, rows: list[int] | None = None) -> None:
        """Open the command dialog for the selected stations (or these rows; with nothing
        selected, the station shown)."""
        verdict = self.gate.check(command_action(command))
        if not verdict.allowed:
            self._show_message(verdict.reason)
            return
        chosen = self.selected_rows() if rows is None else rows
        if len(chosen) > MAX_SELECTION:
            self._show_message(f"Select at most {MAX_SELECTION:,} stations for one command")
            return
        stations = self.vm.refs(chosen)
        if not stations and self.vm.detail is not None and rows is None:
            stations = self.vm.refs_of([self.vm.detail])
        if not stations or self.vm.client is None:
            self._show_message("Select the stations to send the command to")
            return
        self._open_command(stations, command)

    def _detail_command(self, command: str | None) -> None:
        if self.vm.detail is None or self.vm.client is None:
            return
        if (
            command is None
            and not self.gate.check("station.command").allowed
            and self.gate.check("station.locate").allowed
        ):
            command = "updateLocation"  # offline: the one command it may send (queued)
        verdict = self.gate.check(command_action(command))
        if not verdict.allowed:
            self._show_message(verdict.reason)
            return
        self._open_command(self.vm.refs_of([self.vm.detail]), command)

    def _open_command(self, stations: list[StationRef], command: str | None) -> None:
        self.command_dialog = open_station_command(
            self,
            self.vm.client,
            stations,
            command,
            rights=self.gate.rights,
            runner=self.vm.runner,
        )
        # The stations' rows and detail follow what the command does to them: while it runs
        # (a reboot takes a station away) and when it ends.
        for name in ("stations_moved", "run_finished"):
            signal = getattr(self.command_dialog, name, None)
            if signal is not None:
                signal.connect(self.vm.refresh_stations)

    def create_refusal(self) -> str:
        """Why no station can be created now ('' when one can): the account's rights,
        then the partner's (its permissions, its grant used up); '' while not connected
        (nothing read yet)."""
        if not self.vm.has_client:
            return ""
        verdict = self.gate.check("station.create")
        if not verdict.allowed:
            return verdict.reason
        return self.partner.create_refusal() if self.partner is not None else ""

    def new_station(self) -> None:
        """The new-station form (Ctrl+N); refused with the reason in the pane's message."""
        if not self.vm.has_client:
            return
        refusal = self.create_refusal()
        if refusal:
            self._show_message(refusal)
            return
        if self.create_dialog is not None:
            self.create_dialog.raise_()
            return
        note = self.partner.create_note() if self.partner is not None else ""
        self.create_dialog = StationCreateDialog(self.vm, self, note=note)
        self.create_dialog.finished.connect(self._create_closed)
        self.create_dialog.open()

    def create_item(self) -> None:
        self.new_station()

    async def first_page(self) -> dict[str, Any]:
        return await first_page_of("stations", self.vm.model)

    async def show_first_item(self) -> None:
        await self.first_page()
        if self.vm.model.rowCount():
            self.table.selectRow(0)
            await wait_signal(self.vm.detail_changed, FIRST_PAGE_TIMEOUT_S)

    def _create_closed(self, _result: int) -> None:
        if self.create_dialog is not None:
            self.create_dialog.deleteLater()
        self.create_dialog = None

    def edit_station(self) -> None:
        station = self.vm.detail
        verdict = self.gate.check("station.edit")
        if station is None:
            return
        if not verdict.allowed:
            self._show_message(verdict.reason)
            return
        if self.dialog is not None:
            self.dialog.raise_()
            return
        self.dialog = StationFormDialog(self.vm, station, self)
        self.dialog.finished.connect(self._dialog_closed)
        self.dialog.open()

    def _save_detail(self, data: dict[str, Any]) -> None:
        """A part of the configuration edited in the detail (the alarm thresholds)."""
        if self.vm.detail is not None and self.allowed("station.edit"):
            self.vm.update(self.vm.detail, data)

    def _tagger(self, untag: bool) -> Callable[[], None]:
        return lambda: self.tag_selection(untag=untag)

    def _tags_applied(self, text: str) -> None:
        self._show_message(text)

    def copy_lrr_ids(self) -> None:
        refs = self.vm.refs(self.selected_rows())
        if refs:
            QGuiApplication.clipboard().setText("\n".join(r.lrr_id for r in refs))
            self._show_message(f"Copied {len(refs):,} LRR ID{'s' if len(refs) > 1 else ''}")

    def row_menu(self, row: int) -> QMenu:
        selection = self.table.selectionModel()
        if not selection.isRowSelected(row):
            self.table.selectRow(row)
        menu = QMenu(self)
        menu.setObjectName("stationRowMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)
        self._add_new_action(menu)
        menu.addSeparator()
        count = len(self.selected_rows())
        plural = f" {count:,} stations" if count > 1 else ""
        verdict = self.gate.check("station.command")
        connected = self.vm.has_client
        for name, words in STATION_COMMANDS[:7]:
            action = menu.addAction(f"{words}{plural}…", self._sender(name))
            allowed = self.gate.check(command_action(name))
            action.setEnabled(connected and allowed.allowed)
            if not allowed.allowed:
                action.setToolTip(allowed.reason)
        more = menu.addMenu("More commands")
        for name, words in STATION_COMMANDS[7:]:
            more.addAction(f"{words}…", self._sender(name))
        more.setEnabled(connected and verdict.allowed)
        menu.addSeparator()
        tag_verdict = self.gate.check("station.tag")
        for text, untag in ((f"Tag{plural}…", False), (f"Untag{plural}…", True)):
            action = menu.addAction(text, self._tagger(untag))
            action.setEnabled(connected and tag_verdict.allowed)
            if not tag_verdict.allowed:
                action.setToolTip(tag_verdict.reason)
        menu.addAction(f"Copy LRR ID{'s' if count > 1 else ''}", self.copy_lrr_ids)
        station = self.vm.model.item(row)
        located = station is not None and station.lat is not None and station.lon is not None
        show = menu.addAction(
            "Show on map",
            lambda: self.navigate.emit(
                _map_location(station.lat, station.lon, station.lrrID)
                if station is not None
                else None
            ),
        )
        show.setEnabled(located)
        if not located:
            show.setToolTip("This station has no position")
        return menu

    def _empty_menu(self, pos: QPoint) -> None:
        self.area_menu().popup(self.empty.mapToGlobal(pos))

    def area_menu(self) -> QMenu:
        """The menu of the list's empty area (or of the empty state): a new station."""
        menu = QMenu(self)
        menu.setObjectName("stationAreaMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)
        self._add_new_action(menu)
        refresh = menu.addAction("Refresh", self.refresh)
        refresh.setEnabled(self.vm.has_client)
        return menu

    def _add_new_action(self, menu: QMenu) -> None:
        # The window's Ctrl+N, shown (not bound again: two actions on one key are ambiguous).
        action = menu.addAction("New base station…\tCtrl+N", self.new_station)
        action.setObjectName("newStationAction")
        refusal = self.create_refusal() if self.vm.has_client else "Not connected"
        action.setEnabled(not refusal)
        action.setToolTip(refusal or "Create a base station")

    # --- view-model signals -------------------------------------------------------------

    def _first_page(self, _ms: float) -> None:
        self._first_loaded = True
        self._update_count(self.vm.model.rowCount())
        self._select_created()

    def _empty_text(self, rows: int) -> str:
        if not self._first_loaded or rows:
            return ""
        if self.vm.filters.is_empty():
            return (
                "No base station yet: this partner has none, or none you may see."
                " Create one with New base station (Ctrl+N)"
            )
        if self.vm.filters.query:
            return no_match_text(self.vm.fragments, self.vm.filters.query, "station")
        return "No base station matches these filters"

    def _client_changed(self, has_client: bool) -> None:
        super()._client_changed(has_client)
        if self.partner is not None and not has_client:
            self._partner_changed()

    def _partner_changed(self) -> None:
        text = self.partner.usage_text() if self.partner is not None else ""
        self.partner_label.setText(f"·  partner: {text}" if text else "")
        self.partner_label.setToolTip(self.partner.usage_tooltip() if self.partner else "")
        self._update_actions()

    def _detail_changed(self, station: BaseStation | None) -> None:
        self.detail.show_station(station)
        if station is not None and station.path_ref == self._aside_ref and station.name:
            self.filter_set.rename(station.name)  # was said by its LRR ID until read
        self._update_actions()

    def _saved(self, station: BaseStation) -> None:
        self._show_message(f"Saved {station.name}")

    def _created(self, station: BaseStation) -> None:
        """A new station: shown in the detail now, its row selected once the list (which
        reloads, count and all) has it; the partner's used count read again."""
        self._select_after = station.path_ref
        self._list_asked_again()
        self._update_count(0)
        name = station.name or station.lrrID
        what = name if name == station.lrrID else f"{name} (LRR ID {station.lrrID})"
        self._show_message(f"Created base station {what}")
        if not self.filter_set.is_default():  # filters that may hide it: set aside
            self.show_aside(station.path_ref, name)
        if self.partner is not None:
            self.partner.load()

    def _select_created(self) -> None:
        """Select the station just created when its row is loaded. By creation date (the
        list's default order) it is the last row: its page is fetched, then looked at."""
        uid = self._select_after
        if not uid:
            return
        model = self.vm.model
        row = self.vm.row_of(uid)
        if row >= 0:
            self._select_after = ""
            self.open_item(uid)
            return
        rows = model.rowCount()
        last = model.index(rows - 1, 0)
        if rows and model.count_known and (rows - 1) // model.page_size not in model.loaded_pages():
            last.data()  # wanted: fetched now, looked at when the list stops loading
            self.table.scrollTo(last)
            return
        self._select_after = ""
        if rows and self.vm.detail is not None and self.vm.detail.path_ref == uid:
            self._show_message(
                f"Created base station {self.vm.detail.lrrID}: shown on the right; it is not"
                " among these rows (filters or sort)"
            )

    def _loading_changed(self, loading: bool) -> None:
        if not loading and self._select_after and self._first_loaded:
            self._select_created()

    def _save_failed(self, message: str, _field: str) -> None:
        if self.create_dialog is not None:
            if self.partner is not None:
                self.partner.load()  # refused for its grant? the count says it now
            return  # the form says it itself, next to the field
        if self.dialog is None:  # the form says it itself, next to the field
            self._show_message(f"Could not save: {message}")

    def _update_actions(self) -> None:
        connected = self.vm.has_client
        # The partner's refusal (its grant used up) as the button's reason; the gate adds
        # the account's rights over it.
        refusal = self.partner.create_refusal() if connected and self.partner else ""
        self.new_button.setToolTip(refusal or self._new_tip)
        self.gate.enable(self.new_button, connected and not refusal)
        self.selection_gate.update()
        self.refresh_button.setEnabled(connected)

    def _detail_refusal(self, _rows: list[int]) -> str:
        return "" if self.vm.detail is not None else "Select a base station first"

    def _target_refusal(self, rows: list[int]) -> str:
        return "" if rows or self.vm.detail is not None else "Select a base station first"


def _map_location(lat: float | None, lon: float | None, lrr_id: str) -> Any:
    from ..map_place import station_place
    from ..navigator import Location

    if lat is None or lon is None:
        return None
    return Location("map", station_place(lat, lon, lrr_id))


class StationFormDialog(SchemaFormDialog):
    """The station's configuration, from `BaseStationUpdate`: checked as typed (the §2.4
    threshold rules included), refused fields named, what was typed kept."""

    def __init__(self, vm: StationsViewModel, station: BaseStation, parent: QWidget) -> None:
        from ...schema.stations import BaseStationUpdate

        super().__init__(
            BaseStationUpdate,
            station,
            title=f"Configure {station.name} ({station.lrrID})",
            checker=lambda data: vm.check_update(data, station),
            submit=lambda data: vm.update(station, data),
            changes_only=True,
            parent=parent,
            elsewhere={"alarmsConfiguration": "in the station's Configuration tab"},
        )
        self.setObjectName("stationForm")
        self.connect_signals((vm.saved, self.saved), (vm.save_failed, self.failed))


THRESHOLDS_NOTE = (
    "A new station raises a critical alarm when its connection is lost for 30 seconds;"
    " change its alarm thresholds in its Configuration tab once created."
)


class StationCreateDialog(SchemaFormDialog):
    """A new station, from `BaseStationCreate`: what identifies it first (LRR ID, name,
    model picked by name), checked as typed; a refusal of the server shown on the field it
    names, what was typed kept."""

    def __init__(self, vm: StationsViewModel, parent: QWidget, *, note: str = "") -> None:
        from ...schema.stations import BaseStationCreate

        super().__init__(
            BaseStationCreate,
            None,
            title="New base station",
            checker=vm.check_create,
            submit=vm.create,
            changes_only=False,
            parent=parent,
            intro=" ".join(p for p in (note and f"{note}.", THRESHOLDS_NOTE) if p),
            references=ReferenceLists(vm.runner, vm.client),
            first=("lrrID", "name", "model"),
            action="Create",
            elsewhere={"alarmsConfiguration": "in its Configuration tab, once created"},
        )
        self.setObjectName("stationCreateForm")
        model = self.editors["model"]
        if isinstance(model, ObjectEditor) and "ismBands" in model.fields:
            # What the catalog says of the model (the reference lists it in answers): the
            # station's own ISM band is set below.
            model.form.setRowVisible(model.fields["ismBands"], False)
        lrr_id = self.inputs["lrrID"]
        if isinstance(lrr_id, QLineEdit):
            lrr_id.setPlaceholderText("allocated by the network when left empty")
            lrr_id.setMaxLength(8)
            lrr_id.editingFinished.connect(lambda: lrr_id.setText(lrr_id.text().strip().upper()))
        name = self.inputs["name"]
        if isinstance(name, QLineEdit):
            name.setPlaceholderText("the LRR ID when left empty")
        self.connect_signals((vm.created, self.saved), (vm.save_failed, self.failed))
