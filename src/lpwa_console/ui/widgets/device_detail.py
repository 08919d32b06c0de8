"""The selected device as tabs: information (identity, LoRaWAN or SIM fields, organisation,
location, radio, alarm counters: every field GET device returns, "—" when empty), tags,
alarms (every one, page after page, with acknowledge), traffic chart, alarm 004 thresholds and
routing profile (read-only without LPWA_MGR::ADMIN_NODE). A cellular device's SIM is a section
of the information. Keys are never shown. Alarms and traffic load when their tab is shown.
With no device (none selected, or the selected one left the list), the panel says so instead
of showing empty tabs."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QStyleOptionViewItem,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...models.device_detail import (
    DEFAULT_WINDOW,
    TRAFFIC_WINDOWS,
    AckedRole,
    DeviceDetailViewModel,
    Threshold,
    thresholds_of,
)
from ...models.devices import CONNECTIVITY_LABELS
from ...models.formatting import format_time
from ...models.references import reference_text
from ...models.rights import AccountRights
from ...schema.common import Severity
from ...schema.devices import Device, NamedRef
from ...schema.labels import DEVICE_HEALTH_WORDS, field_words, label_of
from ..layouts import fill
from ..map_place import device_place
from ..navigator import LINK_SCHEME, link, location_of
from ..rights import RightsGate
from ..theme import severity_color
from .alarm004_editor import Alarm004Editor
from .detail_frame import DetailFrame
from .detail_html import field_row, linked_row, muted, section_html
from .pane_parts import SeverityDelegate, keep_line
from .traffic_chart import TrafficChart

if TYPE_CHECKING:
    # Imported when a device's alarms or traffic come, not at start (issue 8).
    from ...schema.alarms import AlarmBrief
    from ...schema.frames import FramesAggregation


def _row(label: str, value: object) -> str:
    """A row that is left out when it has no value."""
    if value is None or value == "":
        return ""
    return field_row(label, value)


ROUTING_TAB = f"{LINK_SCHEME}:detail/routing"


def _ref_link(ref: NamedRef | None, pane: str, section: str | None = None) -> list[tuple[str, str]]:
    text = _named(ref)
    return [(text, link(pane, ref.ID, section))] if ref is not None and text else []


def _named(ref: NamedRef | None) -> str | None:
    """`name (ID)`, or the ID alone when the name says nothing more."""
    if ref is None:
        return None
    return f"{ref.name} ({ref.ID})" if ref.name and ref.name != ref.ID else ref.ID


def _position(lat: float | None, lon: float | None) -> str | None:
    return f"{lat:.5f}, {lon:.5f}" if lat is not None and lon is not None else None


# (device field, ID) -> the name of the resource it names ('' when not known).
Names = Callable[[str, str], str]


def device_html(device: Device, names: Names | None = None) -> str:
    """Every field GET device returns (Document 1 §2.3, §4.1), keys excepted: the fields of
    the device's connectivity only, an empty value as "—"; references by name when `names`
    knows them ("HSM EU West 1 (hsm-eu-west-1)")."""

    def named(field: str, ident: str | None) -> str | None:
        if not ident:
            return ident
        return reference_text(ident, names(field, ident) if names is not None else "")

    def linked_id(field: str, ident: str | None, section: str) -> str:
        """A field naming a network resource by its ID: "name (ID)", opening it."""
        links = [(named(field, ident) or "", link("network", ident, section))] if ident else []
        return linked_row(label_of(field), links)

    model = (
        reference_text(device.model.ID, device.model.commercialName or "") if device.model else None
    )
    lorawan = device.connectivity == "LORAWAN"
    words = field_words
    identity = [
        field_row("DevEUI" if lorawan else "IMEI", device.EUI),
        field_row("Connectivity", CONNECTIVITY_LABELS[device.connectivity]),
        field_row("Activation", words("activation").choice_words(device.activation or ""))
        if lorawan
        else "",
        field_row(label_of("model"), model),
        field_row("Health", DEVICE_HEALTH_WORDS.get(device.healthState, device.healthState)),
        field_row("Created", format_time(device.creationDate)),
    ]
    if lorawan:
        network_title = "LoRaWAN"
        network = [
            field_row(label_of("nwAddress"), device.nwAddress),
            field_row(label_of("appEUI"), device.appEUI),
            linked_row(
                label_of("asTransportKey"),
                _ref_link(device.asTransportKey, "network", "as_transport_keys"),
            ),
            linked_id("hsmGroupID", device.hsmGroupID, "hsm_groups"),
        ]
    else:
        network_title = "SIM and network"
        network = [
            field_row(label_of("imsi"), device.imsi),
            field_row(label_of("iccid"), device.iccid),
            field_row(label_of("eid"), device.eid),
            field_row(label_of("lastIMEI"), device.lastIMEI),
            # A cellular device's nwAddress is the IP address the network gave it.
            field_row("IP address", device.nwAddress),
            linked_id("networkContextID", device.networkContextID, "network_contexts"),
        ]
    profile = device.appServersRoutingProfile
    organisation = [
        field_row("Tags", ", ".join(t.name for t in device.tags)),
        field_row("Domains", ", ".join(f"{d.group.name}: {d.name}" for d in device.domains)),
        linked_row(
            label_of("appServers"),
            [(_named(s) or s.ID, link("app_servers", s.ID)) for s in device.appServers],
        ),
        linked_row(
            "AS routing profile",
            [(_named(NamedRef(ID=profile.ID or "", name=profile.name)) or "", ROUTING_TAB)]
            if profile
            else [],
        ),
    ]
    shown = [(device.lat, device.lon), (device.adminLat, device.adminLon)]
    located = [(lat, lon) for lat, lon in shown if lat is not None and lon is not None]
    location = [
        field_row("Position", _position(device.lat, device.lon)),
        field_row("Admin position", _position(device.adminLat, device.adminLon)),
        linked_row(
            "Map",
            [("Show on map", link("map", device_place(*located[0], device.EUI)))]
            if located
            else [],
        ),
        field_row("Notes", device.customerAdminData),
    ]
    radio = [
        field_row("Last uplink", format_time(device.lastUpTimestamp)),
        field_row("Last downlink", format_time(device.lastDwTimestamp)),
        field_row("SF", device.lastSF) if lorawan else "",
        field_row("RSSI", f"{device.lastRSSI:.1f} dBm" if device.lastRSSI is not None else None),
        field_row("SNR (last / avg)", _snr(device)),
        field_row(
            "Battery", f"{device.lastBatLevel}%" if device.lastBatLevel is not None else None
        ),
        linked_row(
            "Heard by",
            [
                (f"{lrr.ID} ({lrr.RSSI:.1f} dBm, SNR {lrr.SNR:.1f} dB)", link("stations", lrr.ID))
                for lrr in device.LRRs
            ],
        )
        if lorawan
        else "",
    ]
    alarms = []
    for level in range(6, 0, -1):
        count = getattr(device, f"alarm{level}", 0)
        if count:
            color = severity_color(level).name()
            label = Severity(level).label
            alarms.append(
                f"<tr><td style='padding:2px 12px 2px 0;color:{color};font-weight:600'>"
                f"● {label}</td><td>{count}</td></tr>"
            )
    alarm_html = (
        f"<h4 style='margin:10px 0 4px 0'>Alarms</h4><table>{''.join(alarms)}</table>"
        if alarms
        else "<h4 style='margin:10px 0 4px 0'>Alarms</h4><p>No active alarm</p>"
    )
    return (
        f"<h3 style='margin:0'>{escape(device.name)}</h3>"
        + section_html("Identity", identity)
        + section_html(network_title, network)
        + section_html("Organisation", organisation)
        + section_html("Location", location)
        + section_html("Radio", radio)
        + alarm_html
    )


def _snr(device: Device) -> str | None:
    if device.lastSNR is None and device.avgSNR is None:
        return None
    last = f"{device.lastSNR:.1f}" if device.lastSNR is not None else "-"
    avg = f"{device.avgSNR:.1f}" if device.avgSNR is not None else "-"
    return f"{last} / {avg} dB"


# Text selectable, links followed by mouse and keyboard (Tab reaches them, Enter opens).
LINK_FLAGS = (
    Qt.TextInteractionFlag.TextSelectableByMouse
    | Qt.TextInteractionFlag.LinksAccessibleByMouse
    | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
)


def _scrolled_label(name: str) -> tuple[QScrollArea, QLabel]:
    label = QLabel()
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    label.setTextInteractionFlags(LINK_FLAGS)
    label.setMargin(10)
    area = QScrollArea()
    area.setWidgetResizable(True)
    inner = QWidget()
    layout = QVBoxLayout(inner)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(label)
    area.setWidget(inner)
    return area, label


class DeviceTab(QWidget):
    """A tab of the device shown that acts on it: its view-model and the account's rights."""

    def __init__(
        self,
        vm: DeviceDetailViewModel,
        gate: RightsGate | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm = vm
        self.gate = gate or RightsGate(None, self)
        self._build()

    def _build(self) -> None:
        raise NotImplementedError


class TagsTab(DeviceTab):
    def _build(self) -> None:
        self.list = QListWidget()
        self.list.setObjectName("deviceTags")
        self.name = QLineEdit()
        self.name.setObjectName("newTag")
        self.name.setPlaceholderText("New tag")
        self.add_button = QPushButton("Add")
        self.remove_button = QPushButton("Remove")
        for control in (self.name, self.add_button, self.remove_button):
            self.gate.bind(control, "device.tag")
        self.status = QLabel()
        self.status.setWordWrap(True)
        keep_line(self.status)
        row = QHBoxLayout()
        row.addWidget(self.name, 1)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.add_button.clicked.connect(self.add)
        self.name.returnPressed.connect(self.add)
        self.remove_button.clicked.connect(self.remove)
        self.list.itemSelectionChanged.connect(self._update)

    def set_device(self, device: Device | None) -> None:
        self.list.clear()
        if device is not None:
            self.list.addItems([t.name for t in device.tags])
        self.status.setText("" if device is None or device.tags else "No tag")
        self._update()

    def add(self) -> None:
        if self.vm.tag(self.name.text()):
            self.name.clear()

    def remove(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.vm.tag(item.text(), untag=True)

    def _update(self) -> None:
        has_device = self.vm.device is not None
        self.gate.enable(self.add_button, has_device)
        self.gate.enable(self.name, has_device)
        self.gate.enable(
            self.remove_button,
            has_device and self.list.currentItem() is not None,
            "Select a tag first" if has_device else "",
        )


class AlarmDelegate(SeverityDelegate):
    """Severity colours; an acknowledged alarm's row greyed."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if index.data(AckedRole):
            grey = option.palette.color(QPalette.ColorRole.PlaceholderText)
            option.palette.setColor(QPalette.ColorRole.Text, grey)


class AlarmsTab(DeviceTab):
    """The device's alarms, latest update first, as many as the platform has: the next page
    loads when the list is scrolled to its end or with "Load more"."""

    def _build(self) -> None:
        vm = self.vm
        self.model = vm.alarms_model
        self.table = QTableView()
        self.table.setObjectName("deviceAlarms")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setHighlightSections(False)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setItemDelegate(AlarmDelegate(self.table))
        for column, spec in enumerate(self.model.columns):
            if spec.width:
                self.table.setColumnWidth(column, spec.width)
        self.empty = QLabel()
        self.empty.setObjectName("alarmsEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty)
        self.unacked_only = QCheckBox("Unacknowledged only")
        self.unacked_only.setObjectName("unackedOnly")
        self.unacked_only.setToolTip("List only the alarms not acknowledged yet")
        self.refresh_button = QPushButton("Refresh")
        self.more_button = QPushButton("Load more")
        self.more_button.setObjectName("moreAlarms")
        self.more_button.setToolTip("The next page of alarms (scrolling to the end loads it too)")
        self.ack_button = QPushButton("Acknowledge")
        self.ack_button.setObjectName("ackAlarms")
        self.gate.bind(self.ack_button, "alarm.acknowledge")
        self.status = QLabel()
        self.status.setObjectName("alarmsStatus")
        self.status.setWordWrap(True)
        keep_line(self.status)
        top = fill(QHBoxLayout(), self.unacked_only, 1, self.refresh_button)
        bottom = fill(QHBoxLayout(), (self.status, 1), self.more_button, self.ack_button)
        fill(QVBoxLayout(self), top, (self.stack, 1), bottom)
        self.ack_button.clicked.connect(self.acknowledge)
        self.refresh_button.clicked.connect(vm.load_alarms)
        self.more_button.clicked.connect(vm.load_more_alarms)
        self.unacked_only.toggled.connect(vm.set_unacknowledged_only)
        # Rows changed (thousands acknowledged at once): the buttons are updated once after.
        self._update_timer = QTimer(self)
        self._update_timer.setSingleShot(True)
        self._update_timer.setInterval(0)
        self._update_timer.timeout.connect(self._update)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.model.dataChanged.connect(self._data_changed)
        vm.alarms_changed.connect(self.set_alarms)
        vm.alarms_loading.connect(self._loading)
        vm.alarms_error.connect(self._error)
        vm.acknowledged.connect(self.status.setText)
        self.refresh()

    def set_alarms(self, _alarms: list[AlarmBrief]) -> None:
        """The view-model's list changed (first page, next page, acknowledged, cleared)."""
        self.refresh()

    def refresh(self) -> None:
        vm = self.vm
        count = len(vm.alarms)
        noun = "unacknowledged alarm" if vm.unacknowledged_only else "alarm"
        if count:
            self.stack.setCurrentWidget(self.table)
        elif vm.device is None:
            self._show_empty("Select a device to see its alarms")
        elif vm.alarms_busy:
            self._show_empty("Loading…")
        elif vm.alarms_loaded:
            self._show_empty(f"No {noun}")
        self.status.setText(self._summary(count, noun))
        self._update()

    def _summary(self, count: int, noun: str) -> str:
        vm = self.vm
        if not count:
            return ""
        acked_here = 0
        total = vm.alarms_total
        if vm.unacknowledged_only:
            # Those acknowledged here are still listed (greyed) but no longer unacknowledged.
            acked_here = vm.alarms_model.acked_count
            count -= acked_here
            total = None if total is None else max(0, total - acked_here)
        just_now = f", {acked_here:,} acknowledged just now" if acked_here else ""
        if not vm.alarms_complete:
            of = f" of {total:,}" if total is not None and total >= count else ""
            text = f"{count:,}{of} {noun}s shown{just_now}"
            return text + (", loading more…" if vm.alarms_busy else "")
        text = f"{count:,} {noun}{'' if count == 1 else 's'}{just_now}"
        if not vm.unacknowledged_only:
            text += f", {sum(1 for a in vm.alarms if not a.acked):,} not acknowledged"
        return text

    def _show_empty(self, text: str) -> None:
        self.empty.setText(text)
        self.stack.setCurrentWidget(self.empty)

    def selected_rows(self) -> list[int]:
        rows: set[int] = set()
        selection = self.table.selectionModel().selection()
        for i in range(selection.count()):
            block = selection.at(i)
            rows.update(range(block.top(), block.bottom() + 1))
        return sorted(rows)

    def selected_uids(self) -> list[str]:
        """The selected alarms that are not acknowledged yet."""
        alarms = (self.model.alarm(row) for row in self.selected_rows())
        return [a.alarmUid for a in alarms if a is not None and not a.acked]

    def acknowledge(self) -> None:
        self.vm.acknowledge(self.selected_uids())

    def _selection_changed(self, *_args: object) -> None:
        self._update()

    def _data_changed(self, *_args: object) -> None:
        self._update_timer.start()

    def _loading(self, loading: bool) -> None:
        if loading and not self.vm.alarms:
            self._show_empty("Loading…")
        self.status.setText(self._summary(len(self.vm.alarms), self._noun()))
        self._update()

    def _noun(self) -> str:
        return "unacknowledged alarm" if self.vm.unacknowledged_only else "alarm"

    def _error(self, message: str) -> None:
        self.status.setText(message)
        if not self.vm.alarms:
            self._show_empty(message)
        self._update()

    def _update(self) -> None:
        has_device = self.vm.device is not None
        selected = len(self.selected_uids())
        self.gate.enable(self.ack_button, selected > 0, "Select an unacknowledged alarm first")
        self.ack_button.setText(f"Acknowledge {selected:,}" if selected > 1 else "Acknowledge")
        self.refresh_button.setEnabled(has_device)
        self.unacked_only.setEnabled(has_device)
        more = has_device and self.vm.alarms_loaded and not self.vm.alarms_model.complete
        self.more_button.setVisible(more)
        self.more_button.setEnabled(more and not self.vm.alarms_busy)


class TrafficTab(QWidget):
    def __init__(self, vm: DeviceDetailViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.period = QComboBox()
        self.period.setObjectName("trafficWindow")
        self.period.addItems(list(TRAFFIC_WINDOWS))
        self.period.setCurrentText(DEFAULT_WINDOW)
        self.summary = QLabel()
        self.summary.setObjectName("trafficSummary")
        self.chart = TrafficChart()
        row = QHBoxLayout()
        row.addWidget(self.period)
        row.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.chart, 1)
        self.period.currentTextChanged.connect(vm.set_window)
        vm.traffic_changed.connect(self.set_traffic)
        vm.traffic_loading.connect(self._loading)
        vm.traffic_error.connect(lambda m: self.chart.show_message(f"Could not load traffic: {m}"))
        self.set_traffic(None)

    def set_traffic(self, data: FramesAggregation | None) -> None:
        if data is None and self.vm.device is None:
            self.chart.set_data(None)
            self.chart.show_message("Select a device to see its traffic")
            self.summary.setText("")
            return
        self.chart.set_data(data)
        up, down = self.chart.totals
        self.summary.setText(f"{up:,} uplinks, {down:,} downlinks" if data else "")

    def _loading(self, loading: bool) -> None:
        if loading:
            self.chart.show_message("Loading…")


class RoutingTab(QWidget):
    save_requested = Signal(str, dict)

    def __init__(
        self,
        rights: AccountRights | None,
        gate: RightsGate | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.rights = rights
        self.gate = gate or RightsGate(rights, self)
        self.device: Device | None = None
        self.current = QLabel()
        self.current.setObjectName("routingCurrent")
        self.current.setWordWrap(True)
        self.current.setTextFormat(Qt.TextFormat.RichText)
        self.current.setTextInteractionFlags(LINK_FLAGS)
        self.profile_id = QLineEdit()
        self.profile_id.setObjectName("routingProfileId")
        self.profile_id.setPlaceholderText("AS routing profile ID")
        self.save_button = QPushButton("Change routing profile")
        self.save_button.setObjectName("saveRouting")
        self.note = QLabel()
        self.note.setObjectName("routingNote")
        self.note.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Profile ID", self.profile_id)
        layout = QVBoxLayout(self)
        layout.addWidget(self.current)
        layout.addLayout(form)
        layout.addWidget(self.save_button)
        layout.addWidget(self.note)
        layout.addStretch(1)
        self.save_button.clicked.connect(self.save)
        self.profile_id.textChanged.connect(lambda _t: self._update())
        if rights is not None:
            rights.changed.connect(self._update)
        self.set_device(None)

    @property
    def read_only(self) -> bool:
        return not self.gate.check("device.routing").allowed

    @staticmethod
    def _profile_id(device: Device | None) -> str:
        profile = device.appServersRoutingProfile if device is not None else None
        return (profile.ID or "") if profile is not None else ""

    @property
    def edited(self) -> bool:
        """A profile ID is typed that the device does not have (not saved)."""
        return self.device is not None and self.profile_id.text().strip() != self._profile_id(
            self.device
        )

    def set_device(self, device: Device | None) -> None:
        """Show this device's profile. The same device again (read anew after a list reload,
        an acknowledgement...) keeps an ID typed and not saved, unless it is the device's now."""
        previous = self.device
        keep = (
            device is not None
            and previous is not None
            and previous.EUI == device.EUI
            and self.edited
            and self.profile_id.text().strip() != self._profile_id(device)
        )
        self.device = device
        profile = device.appServersRoutingProfile if device is not None else None
        if device is None:
            self.current.setText(muted("Select a device to see its routing profile."))
        elif profile is None:
            self.current.setText(muted("No AS routing profile: uplinks go nowhere."))
        else:
            key = profile.lorawanAsTransportKey
            rows = [
                _row("ID", profile.ID),
                _row("Name", profile.name),
                linked_row("AS transport key", _ref_link(key, "network", "as_transport_keys"))
                if key
                else "",
            ]
            self.current.setText(section_html("AS routing profile", rows))
        if not keep:
            self.profile_id.setText(self._profile_id(device))
        self._update()

    def save(self) -> None:
        ref = self.device.path_ref if self.device is not None else ""
        value = self.profile_id.text().strip()
        if ref and value and not self.read_only:
            self.save_requested.emit(ref, {"appServersRoutingProfile": {"ID": value}})

    def _update(self) -> None:
        read_only = self.read_only
        self.profile_id.setReadOnly(read_only)
        changed = self.edited
        self.save_button.setVisible(not read_only)
        self.save_button.setEnabled(self.device is not None and changed)
        self.profile_id.setEnabled(self.device is not None)
        reason = self.gate.check("device.routing").reason
        self.note.setText(f"Read-only. {reason}." if read_only else "")
        self.profile_id.setToolTip(reason)


def _normalised(thresholds: list[Threshold]) -> list[Threshold]:
    return [Threshold(t.enabled, t.level, t.duration.strip().upper()) for t in thresholds]


class DeviceDetail(DetailFrame):
    """The detail panel: the device's tabs, or a sentence when there is no device to show.
    `save_requested(ref, data)` asks the devices view-model to update."""

    save_requested = Signal(str, dict)
    navigate = Signal(object)  # Location: a reference of the device was followed

    def __init__(
        self,
        detail_vm: DeviceDetailViewModel | None = None,
        rights: AccountRights | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setMinimumWidth(300)
        self.vm = detail_vm
        self.names: Names | None = None  # set by the owner when it has the lists of names
        self.gate = RightsGate(rights, self)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("deviceDetailTabs")
        self.tabs.setDocumentMode(True)
        self.info_area, self.label = _scrolled_label("deviceDetail")
        self.tabs.addTab(self.info_area, "Information")
        self.tags_tab: TagsTab | None = None
        self.alarms_tab: AlarmsTab | None = None
        self.traffic_tab: TrafficTab | None = None
        if detail_vm is not None:
            self.tags_tab = TagsTab(detail_vm, self.gate)
            self.alarms_tab = AlarmsTab(detail_vm, self.gate)
            self.traffic_tab = TrafficTab(detail_vm)
            self.tabs.addTab(self.tags_tab, "Tags")
            self.tabs.addTab(self.alarms_tab, "Alarms")
            self.tabs.addTab(self.traffic_tab, "Traffic")
        self.alarm004 = Alarm004Editor(self.gate)
        self.alarm004.setObjectName("alarm004Editor")
        self.gate.bind(self.alarm004.save_button, "device.alarm004")
        self.tabs.addTab(self.alarm004, "No uplink")  # alarm 004: its meaning, not its number
        self.routing = RoutingTab(rights, self.gate)
        self.tabs.addTab(self.routing, "Routing")

        self.summary = self.label
        self._frame("deviceDetail", margin=24)

        self.alarm004.save_requested.connect(self.save_requested)
        self.routing.save_requested.connect(self.save_requested)
        self.label.linkActivated.connect(self.follow)
        self.routing.current.linkActivated.connect(self.follow)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.device: Device | None = None
        self.show_device(None)

    def follow(self, href: str) -> None:
        """A reference was clicked: the routing profile is a tab here, the rest elsewhere."""
        if href == ROUTING_TAB:
            self.tabs.setCurrentWidget(self.routing)
            return
        location = location_of(href)
        if location is not None:
            self.navigate.emit(location)

    noun = "the device"

    @property
    def showing_device(self) -> bool:
        return self._showing()

    def _show_none(self) -> None:
        self.show_device(None)

    def refresh_names(self) -> None:
        """The lists of names arrived: the information again, with them."""
        if self.device is not None:
            self.label.setText(device_html(self.device, self.names))

    def reveal(self) -> None:
        """The top of the detail: its first tab, scrolled up, the device's name in sight
        (an item opened from elsewhere is shown from its start, not where the last one was
        left)."""
        self.tabs.setCurrentIndex(0)
        self.info_area.verticalScrollBar().setValue(0)
        self.info_area.horizontalScrollBar().setValue(0)

    def show_device(self, device: Device | None) -> None:
        previous = self.device
        self.device = device
        if device is None:
            self.label.setText(muted("Select a device to see its details."))
            self._show_empty(
                "No device selected",
                "Select a device in the list to see its information, tags, alarms and traffic.",
            )
        else:
            self.label.setText(device_html(device, self.names))
            self.stack.setCurrentWidget(self.tabs)
        if self.vm is not None:
            self.vm.set_device(device)
        if self.tags_tab is not None:
            self.tags_tab.set_device(device)
        if self.alarms_tab is not None:
            self.alarms_tab.refresh()
        if self.traffic_tab is not None and (
            device is None or previous is None or previous.EUI != device.EUI
        ):
            self.traffic_tab.set_traffic(None)
        self._show_alarm004(previous, device)
        self.routing.set_device(device)
        self._load_current_tab()

    def _show_alarm004(self, previous: Device | None, device: Device | None) -> None:
        """The same device read again (after a list reload, a save, an acknowledgement) keeps
        thresholds edited and not saved, unless they are the device's now (they were saved)."""
        editor = self.alarm004
        if device is not None and previous is not None and previous.EUI == device.EUI:
            typed = _normalised(editor.thresholds())
            edited = typed != _normalised(thresholds_of(editor.device))
            if edited and typed != _normalised(thresholds_of(device)):
                editor.device = device  # Revert goes back to what the device has now
                return
        editor.set_device(device)

    def _tab_changed(self, _index: int) -> None:
        self._load_current_tab()

    def _load_current_tab(self) -> None:
        if self.vm is None or self.device is None:
            return
        current = self.tabs.currentWidget()
        if current is self.alarms_tab and not self.vm.alarms_loaded and not self.vm.alarms_busy:
            self.vm.load_alarms()
        elif current is self.traffic_tab and self.vm.traffic is None:
            self.vm.load_traffic()
