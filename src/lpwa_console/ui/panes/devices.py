"""The devices pane: filters, a lazy table over the paged model, a detail panel, actions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QWidget,
)

from ...models.device_detail import DeviceDetailViewModel
from ...models.device_export import DeviceExporter
from ...models.device_import import DeviceImportViewModel
from ...models.devices import DevicesViewModel
from ...models.fleet_index.query import no_match_text
from ...models.rights import AccountRights
from ...schema.devices import Device
from ...schema.labels import DEVICE_HEALTH_WORDS
from ..connections import SignalConnections
from ..first_page import FIRST_PAGE_TIMEOUT_S, wait_signal
from ..map_place import device_place
from ..navigator import Location
from ..questions import ask
from ..rights import RightsGate
from ..selection_gate import SelectionGate
from ..widgets.device_detail import DeviceDetail
from ..widgets.filter_state import FilterSet
from ..widgets.list_detail import ListDetailSplitter
from ..widgets.more_filters import MoreFiltersButton, TextFilter, filter_line
from ..widgets.pane_parts import PaneMessage, TableOrEmpty, busy_bar, data_table, tab_order
from ..widgets.reference_input import attach_completer
from .fleet_list import MAX_SELECTION, FleetListPane

if TYPE_CHECKING:
    # The dialogs are imported when first opened, not at start (issue 8).
    from ..dialogs.device_form import DeviceFormDialog
    from ..dialogs.import_wizard import ImportWizard

# The list filters of Document 1 §4.1 that have no room in the bar: under "Filters".
EXTRA_FILTERS = [
    TextFilter(
        "asTransportKeyID",
        "AS transport key",
        "ID, exact (LoRaWAN)",
        "LoRaWAN devices using this AS transport key (exact ID)",
    ),
    TextFilter(
        "networkContextID",
        "Network context",
        "ID, exact (cellular)",
        "Cellular devices in this network context (exact ID)",
    ),
    TextFilter(
        "simID",
        "SIM",
        "IMSI, ICCID or eID, starts with (cellular)",
        "Cellular devices whose IMSI, ICCID or eID starts with this",
    ),
    TextFilter(
        "imei",
        "IMEI",
        "last IMEI, exact (cellular)",
        "Cellular devices whose last IMEI is this one",
    ),
    TextFilter(
        "domain",
        "Domain",
        "group:domain, exact, e.g. Site:France/Lyon",
        "Devices in this domain: its group, a colon, then the whole domain name",
    ),
]
DOMAIN_TIP = EXTRA_FILTERS[-1].tip


# The lists the filters complete from (app servers, keys, contexts...) are asked a moment after
# the first rows are painted: asking them imports the modules of five resources and sends five
# requests, ~100 ms of the UI thread that came before the first rows (issue 8), and would come
# right after them otherwise, in the way of the first click. At most REFERENCES_WAIT_MS after
# the first page if no paint comes (a window that is not shown).
REFERENCES_AFTER_PAINT_MS = 300
REFERENCES_WAIT_MS = 2000


class AfterPaint(QObject):
    """Calls `callback` once: `delay_ms` after `widget` is next painted, or after
    `at_most_ms` if it is not painted before."""

    def __init__(
        self, widget: QWidget, callback: Callable[[], None], *, delay_ms: int, at_most_ms: int
    ) -> None:
        super().__init__(widget)
        self._widget = widget
        self._callback: Callable[[], None] | None = callback
        self._delay_ms = delay_ms
        widget.installEventFilter(self)
        QTimer.singleShot(at_most_ms, self, self._run)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            self._widget.removeEventFilter(self)
            QTimer.singleShot(self._delay_ms, self, self._run)
        return False

    def _run(self) -> None:
        callback, self._callback = self._callback, None
        if callback is None:
            return
        self._widget.removeEventFilter(self)
        self.deleteLater()
        callback()


class DevicesPane(FleetListPane):
    title = "Devices"
    imports = exports = True
    filter_set: FilterSet
    vm: DevicesViewModel
    noun, plural, list_words = "device", "devices", "devices"
    tag_action = "device.tag"
    domain_tip = DOMAIN_TIP

    def __init__(
        self,
        view_model: DevicesViewModel,
        parent: QWidget | None = None,
        *,
        detail_vm: DeviceDetailViewModel | None = None,
        rights: AccountRights | None = None,
        exporter: DeviceExporter | None = None,
        import_vm: DeviceImportViewModel | None = None,
    ) -> None:
        super().__init__(parent)
        self._signing_in = False  # the first page after signing in is on its way
        self.vm = view_model
        self.dialog: DeviceFormDialog | None = None
        if detail_vm is None:
            detail_vm = DeviceDetailViewModel(view_model.runner, view_model.client, parent=self)
            view_model.client_changed.connect(lambda _h: detail_vm.set_client(self.vm.client))
        self.detail_vm = detail_vm
        self.exporter = exporter or DeviceExporter(view_model.runner, parent=self)

        # --- filter bar ---
        self.search = filter_line(
            "search",
            "Name or DevEUI starting with…  (Ctrl+F)",
            "Devices whose name or DevEUI starts with this text (as the platform searches)",
        )
        self.connectivity = QComboBox()
        self.connectivity.setObjectName("connectivityFilter")
        for label, value in (
            ("All connectivity", None),
            ("LoRaWAN", "LORAWAN"),
            ("Cellular", "CELLULAR"),
        ):
            self.connectivity.addItem(label, value)
        self.health = QComboBox()
        self.health.setObjectName("healthFilter")
        self.health.addItem("Any health", None)
        for state in ("ACTIVE", "INIT", "RF_CNX_ERROR", "SUSPENDED"):  # what the list filters by
            self.health.addItem(DEVICE_HEALTH_WORDS[state], state)
        self.tag_filter = filter_line("tagFilter", "Tag")
        self.app_server = filter_line(
            "appServerFilter",
            "App server ID",
            "Devices associated with all these application servers (comma-separated IDs)",
        )
        self.more_filters = MoreFiltersButton(EXTRA_FILTERS, self)
        self.extra_filters = self.more_filters.edits
        attach_completer(self.app_server, view_model.references["appServers"], multiple=True)
        attach_completer(
            self.extra_filters["asTransportKeyID"], view_model.references["asTransportKey"]
        )
        attach_completer(
            self.extra_filters["networkContextID"], view_model.references["networkContextID"]
        )
        filters = QHBoxLayout()
        filters.setSpacing(4)
        filters.addWidget(self.search, 3)
        filters.addWidget(self.connectivity)
        filters.addWidget(self.health)
        filters.addWidget(self.tag_filter, 1)
        filters.addWidget(self.app_server, 1)
        filters.addWidget(self.more_filters)

        # --- actions ---
        self.new_button = QPushButton("New device")
        self.edit_button = QPushButton("Edit")
        self.tag_button = QPushButton("Tag…")
        self.untag_button = QPushButton("Untag…")
        self.refresh_button = QPushButton("Refresh")
        self.copy_button = QPushButton("Copy EUI")
        # Import and export share one menu button: the action row must fit a 700 px window.
        self.export_button = QPushButton("CSV")
        self.export_button.setObjectName("exportButton")
        self.export_button.setToolTip("Import devices from a CSV file, or export this view")
        csv_menu = QMenu(self.export_button)
        self.import_action = csv_menu.addAction("Import devices…")
        self.export_action = csv_menu.addAction("Export this view…")
        self.export_action.setToolTip("The devices of this view, with its filters and sort")
        self.export_import_action = csv_menu.addAction("Export this view for re-import…")
        self.export_import_action.setToolTip(
            "UPDATE lines in the device import format: edit them in a spreadsheet and import"
            " the file back"
        )
        self.export_button.setMenu(csv_menu)
        self.import_vm = import_vm
        self.import_dialog: ImportWizard | None = None
        self.export_progress = QProgressBar()
        self.export_progress.setObjectName("exportProgress")
        self.export_progress.setMaximumWidth(160)
        self.export_progress.setFormat("%v / %m")
        self.export_progress.setVisible(False)
        self.export_cancel = QPushButton("Cancel export")
        self.export_cancel.setVisible(False)
        self.gate = RightsGate(rights, self)
        self.new_button.setObjectName("newDevice")
        self.edit_button.setObjectName("editDevice")
        self.tag_button.setObjectName("tagDevices")
        self.untag_button.setObjectName("untagDevices")
        for control, action in (
            (self.new_button, "device.create"),
            (self.edit_button, "device.edit"),
            (self.tag_button, "device.tag"),
            (self.untag_button, "device.tag"),
            (self.import_action, "device.import"),
        ):
            self.gate.bind(control, action)
        csv_menu.setToolTipsVisible(True)
        self.count_label = QLabel("")
        self.count_label.setObjectName("countLabel")
        self.busy = busy_bar()
        actions = QHBoxLayout()
        actions.setSpacing(4)
        actions.addWidget(self.count_label)
        actions.addWidget(self.busy)
        actions.addStretch(1)
        actions.addWidget(self.export_progress)
        actions.addWidget(self.export_cancel)
        self.buttons = (
            self.new_button,
            self.edit_button,
            self.tag_button,
            self.untag_button,
            self.copy_button,
            self.export_button,
            self.refresh_button,
        )
        for button in self.buttons:
            actions.addWidget(button)

        # --- table ---
        self.table = data_table(view_model.model, "devicesTable", multi_select=True)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header = self.table.horizontalHeader()
        header.setSectionsMovable(True)
        header.sortIndicatorChanged.connect(self._sort_indicator_changed)
        self.stack = TableOrEmpty(self.table)
        self.empty = self.stack.empty

        self.detail = DeviceDetail(detail_vm, rights)
        self.detail.names = lambda field, ident: view_model.references[field].name_of(ident)
        self.splitter = ListDetailSplitter("devicesSplitter", self.stack, self.detail)

        self.message = PaneMessage()
        self._show_message = self.message.show_message
        self.filter_set = FilterSet(
            [
                self.search,
                self.connectivity,
                self.health,
                self.tag_filter,
                self.app_server,
                *self.extra_filters.values(),
            ],
            self.apply_filters,
            search=self.search,
            parent=self,
        )
        self._aside_eui = ""  # the device the filters were set aside for

        self._lay_out(filters, actions, self.message, self.filter_set.bar, self.splitter)

        # --- wiring ---
        self._wire_filters()
        self.more_filters.clicked.connect(lambda: self.vm.load_references())
        self._wire_selection()
        # Tag, Untag, Copy EUI and Edit act on the selection: enabled only when there is one
        # (judged again after a delete, a reload, a new session), else they say why.
        self.selection_gate = SelectionGate(
            self.table, self.gate, noun="device", connected=lambda: self.vm.has_client
        )
        for button in (self.tag_button, self.untag_button, self.copy_button):
            self.selection_gate.needs(button)
        self.selection_gate.needs(self.edit_button, min_rows=0, test=self._edit_refusal)
        self.table.doubleClicked.connect(lambda _i: self.edit_device())
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._row_menu)
        delete_key = QShortcut(QKeySequence.StandardKey.Delete, self.table)
        delete_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_key.activated.connect(self.delete_selection)
        self._sorted_column = -1  # kept in view when the sorted list comes back
        self._creating = False  # the form open is a new device's
        self._edit_when_read = ""  # EUI: "Edit…" chosen before its detail was read

        self.new_button.clicked.connect(self.new_device)
        self.edit_button.clicked.connect(self.edit_device)
        self.tag_button.clicked.connect(lambda: self.tag_selection(untag=False))
        self.untag_button.clicked.connect(lambda: self.tag_selection(untag=True))
        self.refresh_button.clicked.connect(self.refresh)
        self.copy_button.clicked.connect(self.copy_eui)
        self.export_action.triggered.connect(lambda: self.choose_export_file())
        self.export_import_action.triggered.connect(
            lambda: self.choose_export_file(import_format=True)
        )
        self.import_action.triggered.connect(self.import_devices)
        self.export_cancel.clicked.connect(self.exporter.cancel)
        self.detail.save_requested.connect(self._save_detail)
        tab_order(
            self.search,
            self.connectivity,
            self.health,
            self.tag_filter,
            self.app_server,
            self.more_filters,
            *self.buttons[:-1],
            self.export_cancel,  # beside the export while one runs
            self.refresh_button,
            self.table,
            self.detail.tabs,
        )
        self.detail.navigate.connect(self.navigate)

        self._connections = SignalConnections(
            (view_model.count_changed, self._update_count),
            (view_model.loading_changed, self._loading),
            (view_model.error, self._error),
            (view_model.detail_changed, self._detail),
            (view_model.references_changed, lambda _kind: self.detail.refresh_names()),
            (view_model.detail_loading, self._detail_loading),
            (view_model.detail_failed, self._detail_failed),
            (view_model.detail_row, self._detail_row),
            (view_model.tags_applied, self._show_message),
            (view_model.deleted, self._deleted),
            (view_model.client_changed, self._client_changed),
            (view_model.first_page_loaded, self._first_page),
            (view_model.saved, self._saved),
            (view_model.save_failed, self._save_failed),
            (detail_vm.tags_changed, self._detail_tags_changed),
            (detail_vm.tags_error, self._show_message),
            (detail_vm.acknowledged, self._alarms_acknowledged),
            (self.exporter.progress, self._export_progress),
            (self.exporter.finished, self._export_finished),
            (self.exporter.failed, self._export_failed),
            (self.exporter.cancelled, self._export_cancelled),
            (self.exporter.running_changed, self._export_running),
        )
        self._first_loaded = view_model.first_page_ms is not None
        self._last_error = ""
        self._update_count(view_model.model.rowCount())
        self._update_actions()
        self._update_clear()

    # --- public actions (also the window's shortcuts) -----------------------------------

    # --- navigation ---------------------------------------------------------------------

    def open_item(self, eui: str | None, _section: str | None = None) -> None:
        """Show this device (DevEUI or IMEI): selected in the list, its detail from the top.
        When the rows loaded do not hold it (filtered out, or further down), the filters
        are set aside and the list narrowed to it, and the pane says so."""
        if not eui:
            return
        eui = eui.strip().upper()
        self.detail.reveal()
        row = self.vm.row_of(eui)
        if row >= 0:
            self._select_row(row)
            return
        self.table.selectionModel().clearSelection()
        self._select_timer.stop()
        self.show_aside(eui, eui)
        if not self.vm.showing(eui):
            self.vm.select("e" + eui, eui=eui)

    def show_aside(self, eui: str, name: str) -> None:
        """The list narrowed to this device, the filters set aside (said above the list);
        its row is selected when the list comes (`_detail_row`)."""
        self._aside_eui = eui
        self._list_asked_again()
        self.filter_set.set_aside(name, eui)

    def current_item(self) -> tuple[str | None, str | None]:
        detail = self.vm.detail
        return (detail.EUI if detail is not None else None), None

    def refresh(self) -> None:
        self._list_asked_again()
        self.vm.reload()
        self._update_count(0)

    def _text_filters(self) -> list[QLineEdit]:
        return [self.search, self.tag_filter, self.app_server, *self.extra_filters.values()]

    def _choice_filters(self) -> list[QComboBox]:
        return [self.connectivity, self.health]

    def filter_changes(self) -> dict[str, Any]:
        tag = self.tag_filter.text().strip()
        server = self.app_server.text().strip()
        health = self.health.currentData()
        extra = self.more_filters.values()
        return {
            "query": self.search_query(),
            "connectivity": self.connectivity.currentData(),
            "healthState": [health] if health else [],
            "tag": [tag] if tag else [],
            "appServerID": [s.strip() for s in server.split(",") if s.strip()],
            **extra,
            "domain": self._domain_filter(extra.get("domain")),
        }

    def _filters_read(self) -> None:
        self._update_clear()

    def _update_clear(self) -> None:
        active = any(e.text().strip() for e in self._text_filters()) or any(
            c.currentIndex() > 0 for c in self._choice_filters()
        )
        self.more_filters.panel.clear_button.setEnabled(active or not self.vm.filters.is_empty())

    def new_device(self) -> None:
        if not self.vm.has_client or not self.allowed("device.create"):
            return
        self._open_dialog(None)

    def create_item(self) -> None:
        self.new_device()

    async def first_page(self) -> dict[str, Any]:
        """The first page of devices (if not there yet), then painted: how long each took."""
        vm = self.vm
        if vm.first_page_ms is None:
            error = asyncio.ensure_future(wait_signal(vm.error, FIRST_PAGE_TIMEOUT_S))
            page = asyncio.ensure_future(wait_signal(vm.first_page_loaded, FIRST_PAGE_TIMEOUT_S))
            done, pending = await asyncio.wait({error, page}, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if error in done:
                raise RuntimeError(f"devices: {error.result()[0]}")
            page.result()
        paint_t0 = time.perf_counter()
        self.table.viewport().repaint()
        paint_ms = (time.perf_counter() - paint_t0) * 1000
        first_page_ms = vm.first_page_ms or 0.0
        return {
            "first_page_ms": round(first_page_ms, 1),
            "paint_ms": round(paint_ms, 1),
            "first_rows_ms": round(first_page_ms + paint_ms, 1),
            "rows": vm.model.rowCount(),
        }

    async def show_first_item(self) -> None:
        await self.first_page()
        self.table.selectRow(0)
        await wait_signal(self.vm.detail_changed, FIRST_PAGE_TIMEOUT_S)

    def edit_device(self) -> None:
        if self.vm.detail is not None and self.allowed("device.edit"):
            self._open_dialog(self.vm.detail)

    def _open_dialog(self, device: Device | None) -> None:
        if self.dialog is not None:
            self.dialog.raise_()
            return
        from ..dialogs.device_form import DeviceFormDialog

        self._creating = device is None
        self.dialog = DeviceFormDialog(self.vm, device, self)
        self.dialog.finished.connect(self._dialog_closed)
        self.dialog.open()

    def row_menu(self, row: int) -> QMenu:
        """What can be done with the device under the mouse (and the rest of the selection);
        what the account may not do is disabled, with the reason as its tooltip."""
        selection = self.table.selectionModel()
        if not selection.isRowSelected(row):
            self.table.selectRow(row)
        menu = QMenu(self)
        menu.setObjectName("deviceRowMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)
        count = len(self.selected_rows())
        plural = f" {count:,} devices" if count > 1 else ""
        connected = self.vm.has_client

        def guarded(action: QAction, name: str, wanted: bool = True) -> None:
            verdict = self.gate.check(name)
            action.setEnabled(connected and wanted and verdict.allowed)
            if not verdict.allowed:
                action.setToolTip(verdict.reason)

        copy = menu.addAction(f"Copy EUI{'s' if count > 1 else ''}", self.copy_eui)
        copy.setEnabled(connected)
        guarded(
            menu.addAction(f"Tag{plural}…", lambda: self.tag_selection(untag=False)), "device.tag"
        )
        guarded(
            menu.addAction(f"Untag{plural}…", lambda: self.tag_selection(untag=True)), "device.tag"
        )
        device = self.vm.model.item(row)
        located = device is not None and device.lat is not None and device.lon is not None
        show = menu.addAction("Show on map", lambda: self._show_on_map(row))
        show.setEnabled(connected and located)
        if not located:
            show.setToolTip("This device has no position")
        edit = menu.addAction("Edit…", lambda: self._edit_row(row))
        guarded(edit, "device.edit", count == 1 and device is not None)
        menu.addSeparator()
        delete = menu.addAction(f"Delete{plural or ' device'}…", self.delete_selection)
        delete.setObjectName("deleteDevices")
        guarded(delete, "device.delete")
        return menu

    def delete_selection(self) -> None:
        """Ask, naming the devices, then delete them (Delete key, or the row menu)."""
        rows = self.selected_rows()[:MAX_SELECTION]
        verdict = self.gate.check("device.delete")
        if not rows or not self.vm.has_client:
            return
        if not verdict.allowed:
            self._show_message(verdict.reason)
            return
        devices = [d for d in (self.vm.model.item(r) for r in rows) if d is not None]
        if not devices:
            return
        details = ""
        if len(devices) == 1:
            one = devices[0]
            named = f"“{one.name}” ({one.EUI})" if one.name != one.EUI else one.EUI
            text = f"Delete the device {named}?"
        else:
            text = f"Delete these {len(devices):,} devices?"
            shown = [f"{d.name} ({d.EUI})" for d in devices[:12]]
            more = len(devices) - len(shown)
            details = "\n".join(shown + ([f"and {more:,} more"] if more else []))
        informative = (
            "Its alarms, tags and traffic history are deleted with it."
            if len(devices) == 1
            else "Their alarms, tags and traffic history are deleted with them."
        ) + " This cannot be undone."

        def answered(yes: bool) -> None:
            if yes:
                self.vm.delete(rows)

        ask(
            self,
            "deleteDevicesConfirm",
            "Delete devices",
            text,
            answered,
            accept="Delete",
            informative=informative,
            details=details,
            destructive=True,
        )

    def _deleted(self, count: int, failures: list[tuple[str, str]]) -> None:
        text = f"Deleted {count:,} device{'s' if count != 1 else ''}"
        if failures:
            eui, reason = failures[0]
            others = f" (and {len(failures) - 1:,} more)" if len(failures) > 1 else ""
            text += f"; {len(failures):,} not deleted: {eui}: {reason}{others}"
        self._show_message(text)

    def _show_on_map(self, row: int) -> None:
        device = self.vm.model.item(row)
        if device is not None and device.lat is not None and device.lon is not None:
            self.navigate.emit(Location("map", device_place(device.lat, device.lon, device.EUI)))

    def copy_eui(self) -> None:
        euis = self.vm.selected_euis(self.selected_rows()[:MAX_SELECTION])
        if euis:
            QGuiApplication.clipboard().setText("\n".join(euis))
            self._show_message(f"Copied {len(euis):,} EUI{'s' if len(euis) > 1 else ''}")

    # --- export -----------------------------------------------------------------------

    def choose_export_file(self, *, import_format: bool = False) -> None:
        if not self.vm.has_client or self.exporter.running:
            return
        title = "Export devices for re-import" if import_format else "Export devices to CSV"
        dialog = QFileDialog(self, title)
        dialog.setObjectName("exportDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("CSV files (*.csv)")
        dialog.setDefaultSuffix("csv")
        dialog.selectFile("devices-update.csv" if import_format else "devices.csv")
        dialog.fileSelected.connect(lambda path: self.export_to(path, import_format=import_format))
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    def import_devices(self) -> None:
        if not self.vm.has_client or not self.allowed("device.import"):
            return
        if self.import_dialog is not None:
            self.import_dialog.raise_()
            return
        if self.import_vm is None:
            self.import_vm = DeviceImportViewModel(self.vm.runner, parent=self)
        self.import_vm.set_client(self.vm.client)
        from ..dialogs.import_wizard import ImportWizard

        self.import_dialog = ImportWizard(self.import_vm, self)
        self.import_dialog.finished.connect(self._import_closed)
        self.import_dialog.open()

    def _import_closed(self, _result: int) -> None:
        if self.import_dialog is not None:
            self.import_dialog.deleteLater()
        self.import_dialog = None
        if self.import_vm is not None and self.import_vm.report is not None:
            self.refresh()  # new devices: the list and its count changed

    def export_to(self, path: str, *, import_format: bool = False) -> bool:
        """Export the view as it is filtered and sorted now."""
        return self.exporter.export(self.vm, path, import_format=import_format)

    def _export_progress(self, done: int, total: int) -> None:
        self.export_progress.setMaximum(max(total, 1))
        self.export_progress.setValue(done)

    def _export_running(self, running: bool) -> None:
        self.export_progress.setVisible(running)
        self.export_cancel.setVisible(running)
        if running:
            self.export_progress.setRange(0, 0)
        self._update_actions()

    def _export_finished(self, path: str, rows: int) -> None:
        self._show_message(f"Exported {rows:,} device{'s' if rows != 1 else ''} to {path}")

    def _export_failed(self, message: str) -> None:
        self._show_message(f"Export failed: {message}")

    def _export_cancelled(self) -> None:
        self._show_message("Export cancelled")

    # --- detail -------------------------------------------------------------------------

    def _save_detail(self, ref: str, data: dict) -> None:  # type: ignore[type-arg]
        self._creating = False
        self.vm.update(ref, data)

    def _saved(self, device: Device) -> None:
        # The view-model reloads the list after a save: show "Loading…", not an empty state.
        self._first_loaded = False
        self._last_error = ""
        self._update_count(0)
        created, self._creating = self._creating, False
        if created:
            self._show_message(f"Created {device.name}")
            if not self.filter_set.is_default():
                # A new device the filters may hide: shown and selected all the same.
                self.show_aside(device.EUI, device.name)
        else:
            self._show_message(f"Saved {device.name}")

    def _save_failed(self, message: str, _field: str) -> None:
        self._show_message(f"Could not save: {message}")

    def _detail_tags_changed(self, text: str) -> None:
        self._show_message(text)
        self._reload_detail()

    def _alarms_acknowledged(self, text: str) -> None:
        self._show_message(text)
        self._reload_detail()  # its alarm counters changed

    def _reload_detail(self) -> None:
        detail = self.vm.detail
        if detail is not None:
            self.vm.select(detail.path_ref, eui=detail.EUI)

    # --- view-model signals -------------------------------------------------------------

    def _sort_indicator_changed(self, column: int, _order: Qt.SortOrder) -> None:
        columns = self.vm.model.columns
        if 0 <= column < len(columns) and columns[column].sort_key is not None:
            self._sorted_column = column
        if 0 <= column < len(columns) and columns[column].sort_key is None:
            # Only the server sorts, and not on this column: put the indicator back.
            header = self.table.horizontalHeader()
            header.blockSignals(True)
            previous = next(
                (
                    i
                    for i, c in enumerate(columns)
                    if c.sort_key and c.sort_key == self.vm.model.sort_key
                ),
                -1,
            )
            order = (
                Qt.SortOrder.DescendingOrder
                if self.vm.model.descending
                else Qt.SortOrder.AscendingOrder
            )
            header.setSortIndicator(previous, order)
            header.blockSignals(False)
            self._show_message(f"The platform cannot sort by {columns[column].header}")

    def _first_page(self, _ms: float) -> None:
        self._first_loaded = True
        self._signing_in = False
        if self._sorted_column >= 0 and self.vm.model.rowCount():
            # A new sort resets the view: bring the column the user sorted by back in sight.
            index = self.vm.model.index(0, self._sorted_column)
            self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
            self._sorted_column = -1
        self._update_count(self.vm.model.rowCount())
        # For the completers of the app server, key and context filters (once), after the rows.
        viewport = self.table.viewport()
        if viewport.isVisible():
            AfterPaint(
                viewport,
                self._load_references,
                delay_ms=REFERENCES_AFTER_PAINT_MS,
                at_most_ms=REFERENCES_WAIT_MS,
            )
        else:
            self._load_references()

    def _load_references(self) -> None:
        self.vm.load_references(retry=False)

    def _empty_text(self, rows: int) -> str:
        if rows:
            return ""
        if self._signing_in and not self._first_loaded:
            return "Loading devices…"
        if not self._first_loaded:
            return ""
        if self.vm.filters.is_empty():
            return "No devices yet: create one with New device (Ctrl+N)"
        if self.vm.filters.query:
            return no_match_text(self.vm.fragments, self.vm.filters.query, "device")
        return "No devices match these filters"

    def _loading(self, loading: bool) -> None:
        self.busy.setVisible(loading)

    def _edit_row(self, row: int) -> None:
        """Edit the device of this row, once its detail has been read if it is not yet."""
        device = self.vm.model.item(row)
        if device is None:
            return
        if self.vm.detail is not None and self.vm.detail.EUI == device.EUI:
            self.edit_device()
        else:
            self._edit_when_read = device.EUI  # the selection's detail is on its way

    def _detail(self, device: Device | None) -> None:
        self.detail.show_device(device)
        if device is not None and self._aside_eui == device.EUI:
            self.filter_set.rename(device.name)  # was said by its EUI until read
            self.detail.reveal()
        pending, self._edit_when_read = self._edit_when_read, ""
        if device is not None and pending == device.EUI:
            self.edit_device()
        if device is not None:  # names of the HSM group and network context it shows
            self.vm.load_references(max_age_s=600, retry=False)
        self._update_actions()

    def _detail_failed(self, message: str) -> None:
        self.detail.show_error(message)
        self._update_actions()

    def _detail_row(self, row: int) -> None:
        """After a reload, the device shown is selected again where the list now has it
        (unless another row was picked meanwhile)."""
        if not self.table.selectionModel().hasSelection():
            self._select_row(row)

    def _client_changed(self, has_client: bool) -> None:
        # The first page after signing in: said in words (a reload keeps its table).
        self._signing_in = has_client
        super()._client_changed(has_client)

    def _edit_refusal(self, _rows: list[int]) -> str:
        return "" if self.vm.detail is not None else "Select a device first"

    def _update_actions(self) -> None:
        connected = self.vm.has_client
        gate = self.gate
        gate.enable(self.new_button, connected)
        self.selection_gate.update()
        self.refresh_button.setEnabled(connected)
        self.export_button.setEnabled(connected)
        for action in (self.export_action, self.export_import_action):
            action.setEnabled(connected and not self.exporter.running)
        gate.enable(self.import_action, connected)
