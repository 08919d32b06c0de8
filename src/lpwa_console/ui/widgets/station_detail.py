"""The selected base station as tabs: overview, configuration (edited through the shared
schema form), alarms, command history, health charts, RF probe traffic, antennas, hardware and
served devices. Lists and charts load when their tab is first shown; with no station the panel
says so instead of showing empty tabs."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...models.formatting import format_time
from ...models.paged_table import PagedTableModel
from ...models.rights import AccountRights
from ...models.station_detail import StationDetailViewModel, command_type_words
from ...models.stations import (
    CONNECTION_WORDS,
    model_text,
    tags_text,
)
from ...schema.common import Severity
from ...schema.durations import duration_words
from ...schema.labels import STATION_HEALTH_WORDS, field_words, label_of
from ..layouts import FLUSH, fill
from ..map_place import station_place
from ..navigator import Location, location_of
from ..rights import RightsGate
from ..theme import severity_color
from .alarm_thresholds_editor import AlarmThresholdsEditor
from .detail_frame import DetailFrame
from .detail_html import field_row, linked_row, muted, section_html
from .health_chart import HealthChart, ProbeChart
from .pane_parts import TableOrEmpty, data_table

SHOW_ON_MAP = "lpwa:detail/map"


def _when(ms: Any) -> str | None:
    return format_time(int(ms)) if ms else None


def station_position(station: Any) -> tuple[float, float] | None:
    """Where the station is: a list item's lat/lon, a full answer's lastGeoLat/lastGeoLon."""
    for lat_name, lon_name in (("lat", "lon"), ("lastGeoLat", "lastGeoLon")):
        lat, lon = getattr(station, lat_name, None), getattr(station, lon_name, None)
        if lat is not None and lon is not None:
            return float(lat), float(lon)
    return None


def _position(station: Any) -> str | None:
    where = station_position(station)
    return f"{where[0]:.5f}, {where[1]:.5f}" if where is not None else None


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _band_words(band: Any) -> str | None:
    """ "Europe 863-870 MHz (eu868)": the band in words, its ID beside (what forms take)."""
    if not band:
        return None
    words = field_words("ismBand").choice_words(band)
    return f"{words} ({band})" if words != str(band) else str(band)


def _percent(value: Any) -> str | None:
    return f"{value} %" if value is not None else None


def _last_command(station: Any) -> str | None:
    """The station's last administration command (Document 2 §2.2 `lastAcmdReqType`, else
    `lastCmdType`) by its title; its outcome is in the Commands tab."""
    kind = _get(station, "lastAcmdReqType") or _get(station, "lastCmdType")
    return command_type_words(kind) if kind else None


def overview_html(station: Any) -> str:
    """Who the station is, how it is doing, where it is, and its open alarms."""
    cnx = _get(station, "cnxState")
    since = _when(_get(station, "cnxStateSince"))
    connection = CONNECTION_WORDS.get(cnx, cnx) if cnx else None
    if connection and since:
        connection = f"{connection} since {since}"
    identity = [
        field_row("LRR ID", _get(station, "lrrID")),
        field_row("LRR UUID", _get(station, "lrrUUID")),
        field_row("Model", model_text(station)),
        field_row("Software version", _get(station, "version")),
        field_row("RF region", _get(station, "rfRegionID")),
        field_row("ISM band", _band_words(_get(station, "ismBand"))),
        field_row("Created", _when(_get(station, "creationDate"))),
    ]
    health = _get(station, "healthState")
    state = [
        field_row("Connection", connection),
        field_row("Health", STATION_HEALTH_WORDS.get(health, health) if health else None),
        field_row("Last reboot", _when(_get(station, "lastReboot"))),
        field_row("Last report", _when(_get(station, "lastReport"))),
        field_row("Last command", _last_command(station)),
        field_row("CPU", _percent(_get(station, "cpu"))),
        field_row("RAM", _percent(_get(station, "ram"))),
    ]
    links = [("Show on map", SHOW_ON_MAP)] if _position(station) else []
    altitude = _get(station, "alt")
    altitude = _get(station, "lastGeoAlt") if altitude is None else altitude
    place = [
        field_row("Position", _position(station)),
        field_row("Altitude", f"{altitude} m" if altitude is not None else None),
        linked_row("Map", links) if links else "",
    ]
    organisation = [
        field_row("Tags", tags_text(station)),
        field_row(
            "Domains",
            ", ".join(
                f"{_get(_get(d, 'group'), 'name')}: {_get(d, 'name')}"
                for d in (_get(station, "domains") or [])
            ),
        ),
        field_row("Notes", _get(station, "customerAdminData")),
    ]
    alarms = []
    for level in range(6, 1, -1):
        count = _get(station, f"alarm{level}") or 0
        if count:
            color = severity_color(level).name()
            alarms.append(
                f"<tr><td style='padding:2px 12px 2px 0;color:{color};font-weight:600'>"
                f"● {Severity(level).label}</td><td>{count}</td></tr>"
            )
    alarm_html = (
        f"<h4 style='margin:10px 0 4px 0'>Open alarms</h4><table>{''.join(alarms)}</table>"
        if alarms
        else "<h4 style='margin:10px 0 4px 0'>Open alarms</h4><p>No open alarm</p>"
    )
    name = _get(station, "name") or _get(station, "lrrID") or ""
    return (
        f"<h3 style='margin:0'>{escape(str(name))}</h3>"
        + section_html("Identity", identity)
        + section_html("State", state)
        + section_html("Location", place)
        + section_html("Organisation", organisation)
        + alarm_html
    )


def thresholds_html(station: Any) -> str:
    """The alarm thresholds, read-only: "Critical after 30 seconds"."""
    config = _get(station, "alarmsConfiguration")
    rows = []
    for code in ("alarm102", "alarm103"):
        items = _get(config, code) or []
        words = []
        for item in items:
            severity = _get(item, "severity")
            duration = _get(item, "duration")
            try:
                level = Severity(int(severity)).label if severity is not None else "?"
            except ValueError:
                level = str(severity)
            try:
                after = duration_words(str(duration)) if duration else "?"
            except ValueError:
                after = str(duration)
            words.append(f"{level} after {after}")
        title = "Connection lost (102)" if code == "alarm102" else "No uplink (103)"
        rows.append(field_row(title, "; ".join(words) or "No threshold"))
    return section_html("Alarm thresholds", rows)


def configuration_html(station: Any, *, thresholds: bool = True) -> str:
    """The configuration in words; its alarm thresholds too unless an editor beside shows
    them (the detail's Configuration tab: said once, not twice)."""
    probe = _get(station, "rfProbe")
    enabled = _get(probe, "enabled")
    rows = [
        field_row(label_of("name"), _get(station, "name")),
        field_row("Position", _position(station)),
        field_row("Notes", _get(station, "customerAdminData")),
        field_row("Tags", tags_text(station)),
        field_row("RF probe", None if enabled is None else ("On" if enabled else "Off")),
    ]
    return section_html("Configuration", rows) + (thresholds_html(station) if thresholds else "")


# The power source a station reports (`power.status`), in words.
POWER_WORDS = {1: "Wind", 2: "Solar", 3: "Battery", 4: "Power over Ethernet", 5: "Mains"}


def _power_words(status: Any) -> str | None:
    if status is None:
        return None
    try:
        return POWER_WORDS.get(int(status), f"Code {status}")
    except (TypeError, ValueError):
        return str(status)


def hardware_html(station: Any) -> str:
    """Mass storage (mfs), network servers (lrcs) and power, as the station describes them."""
    mfs_rows = []
    mfs = _get(station, "mfs")
    mfs = _get(mfs, "mfs") if isinstance(mfs, dict) or hasattr(mfs, "mfs") else mfs
    for fs in mfs if isinstance(mfs, list) else []:
        path = _get(fs, "path") or _get(fs, "name") or _get(fs, "ID") or "?"
        size = _get(fs, "size") or _get(fs, "capacity")
        used = _get(fs, "used")
        used = _get(fs, "usage") if used is None else used
        value = ", ".join(
            p
            for p in (f"{size} MB" if size else "", f"{used} % used" if used is not None else "")
            if p
        )
        mfs_rows.append(field_row(str(path), value))
    lrcs = _get(_get(station, "lrcs"), "lrc") or _get(station, "lrcs") or []
    lrc_rows = (
        [field_row(str(_get(lrc, "ID") or "LRC"), _get(lrc, "address")) for lrc in lrcs if lrc]
        if isinstance(lrcs, list)
        else []
    )
    power = _get(station, "power")
    status = _get(power, "status")
    power_rows = [
        field_row("Power source", _power_words(status)),
        field_row("Battery", _percent(_get(power, "batteryLevel"))),
    ]
    html = (
        section_html("File systems", mfs_rows)
        + section_html("Network servers (LRC)", lrc_rows)
        + section_html("Power", power_rows)
    )
    return html or muted("The station describes no hardware.")


def _wire_of(config: Any) -> dict[str, Any]:
    """A station's alarmsConfiguration as a request sends it (to compare with one typed)."""
    to_request = getattr(config, "to_request", None)
    return to_request().to_wire() if callable(to_request) else dict(config or {})


class HtmlView(QTextBrowser):
    """Read-only rich text whose links are followed by the owner (`link_activated`). A
    browser lays its text out once per change; a word-wrapped QLabel in a scroll area laid
    it out several times (40 ms a station, measured by bench/stations_pane.py)."""

    link_activated = Signal(str)

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setOpenLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(10)
        self.anchorClicked.connect(lambda url: self.link_activated.emit(url.toString()))

    def setText(self, html: str) -> None:
        # Another theme recolours its links: `theme.refresh_links`, for every rich text.
        self.setHtml(html)

    def text(self) -> str:
        return self.toPlainText()


class ListTab(QWidget):
    """One lazily loaded list of the detail, with Refresh and its empty state."""

    def __init__(
        self,
        vm: StationDetailViewModel,
        key: str,
        name: str,
        empty: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm, self.key, self.empty_text = vm, key, empty
        self.model: PagedTableModel[Any] = vm.models[key]
        self.table = data_table(self.model, name)
        self.stack = TableOrEmpty(self.table)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setObjectName(f"{name}Refresh")
        self.extra = QHBoxLayout()
        row = QHBoxLayout()
        row.addLayout(self.extra)
        row.addStretch(1)
        row.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.stack, 1)
        self.refresh_button.clicked.connect(lambda: vm.load(key))
        # Bound methods (not lambdas): the model outlives this tab, and Qt drops a deleted
        # widget's slots. An empty first page arrives while the model still says it is
        # loading: the end of loading turns "Loading…" into the empty state.
        self.model.count_changed.connect(self._model_changed)
        self.model.first_page_loaded.connect(self.update_state)
        self.model.loading_changed.connect(self._model_changed)
        vm.section_error.connect(self._error)
        self.update_state()

    def _model_changed(self, _value: object) -> None:
        self.update_state()

    def _error(self, key: str, _message: str) -> None:
        if key == self.key:
            self.update_state()

    def update_state(self) -> None:
        error = self.vm.errors.get(self.key)
        if self.vm.station is None:
            text = "No base station selected"
        elif error and self.model.rowCount() == 0:
            text = f"Could not load {self.vm.sections[self.key].noun}: {error}"
        elif self.model.loading and self.model.rowCount() == 0:
            text = "Loading…"
        elif self.model.has_fetcher and self.model.rowCount() == 0 and not self.model.loading:
            text = self.empty_text
        else:
            text = ""
        self.stack.show_empty(text)


class StationDetail(DetailFrame):
    """The detail panel. `edit_requested` asks the pane for the configuration form;
    `command_requested(command)` for a command dialog on this station."""

    navigate = Signal(object)  # Location
    edit_requested = Signal()
    save_requested = Signal(dict)  # configuration changes for the station shown
    command_requested = Signal(object)  # str | None

    def __init__(
        self,
        vm: StationDetailViewModel,
        rights: AccountRights | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setMinimumWidth(320)
        self.vm = vm
        self.gate = RightsGate(rights, self)
        if rights is not None:
            rights.changed.connect(self._rights_changed)
        self.station: Any = None
        self.tabs = QTabWidget()
        self.tabs.setObjectName("stationDetailTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(True)
        self.overview = HtmlView("stationOverview")
        self.tabs.addTab(self.overview, "Overview")

        config = QWidget()
        self.config_label = HtmlView("stationConfiguration")
        self.edit_button = QPushButton("Edit configuration…")
        self.edit_button.setObjectName("editStation")
        self.gate.bind(self.edit_button, "station.edit")
        # The alarm thresholds, edited in place with their rules said while typing.
        self.thresholds = AlarmThresholdsEditor()
        self.save_thresholds = QPushButton("Save thresholds")
        self.save_thresholds.setObjectName("saveThresholds")
        self.gate.bind(self.save_thresholds, "station.edit")
        self.revert_thresholds = QPushButton("Revert")
        self.revert_thresholds.setObjectName("revertThresholds")
        config_row = fill(
            QHBoxLayout(), self.revert_thresholds, self.save_thresholds, 1, self.edit_button
        )
        inner = QWidget()
        fill(QVBoxLayout(inner), (self.config_label, 1), self.thresholds, margins=FLUSH)
        self.config_label.setMinimumHeight(140)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(inner)
        config_layout = QVBoxLayout(config)
        config_layout.setContentsMargins(0, 0, 0, 4)
        config_layout.addWidget(scroll, 1)
        config_layout.addLayout(config_row)
        self.tabs.addTab(config, "Configuration")

        self.alarms_tab = ListTab(vm, "alarms", "stationAlarms", "No alarm on this station")
        self.tabs.addTab(self.alarms_tab, "Alarms")
        self.commands_tab = ListTab(
            vm, "commands", "stationCommands", "No command sent to this station yet"
        )
        self.send_button = QPushButton("Send command…")
        self.send_button.setObjectName("stationSendCommand")
        # "station.locate": the rights of "station.command", and offline the dialog still
        # opens for the one command queued then (the station's location).
        self.gate.bind(self.send_button, "station.locate")
        self.commands_tab.extra.addWidget(self.send_button)
        self.tabs.addTab(self.commands_tab, "Commands")

        self.health_chart = HealthChart()
        self.health_tab = self._chart_tab(self.health_chart, "health")
        self.tabs.addTab(self.health_tab, "Health")
        self.probe_chart = ProbeChart()
        self.probe_state = QLabel()
        self.probe_state.setObjectName("probeState")
        self.probe_tab = self._chart_tab(self.probe_chart, "probe", self.probe_state)
        self.tabs.addTab(self.probe_tab, "RF probe")

        self.antennas_tab = ListTab(vm, "antennas", "stationAntennas", "No antenna described")
        self.tabs.addTab(self.antennas_tab, "Antennas")
        self.hardware = HtmlView("stationHardware")
        self.tabs.addTab(self.hardware, "Hardware")
        self.served_tab = ListTab(
            vm, "served", "stationServedDevices", "No device heard by this station lately"
        )
        self.tabs.addTab(self.served_tab, "Served devices")
        # Nine tabs do not fit a laptop-wide detail: the bar scrolls, and this button lists
        # them all (the ones scrolled out of sight included).
        self.tabs_button = QToolButton()
        self.tabs_button.setObjectName("stationTabsMenu")
        self.tabs_button.setText("All tabs")
        self.tabs_button.setToolTip("Every tab of the station, those scrolled out of sight too")
        self.tabs_button.setAutoRaise(True)
        self.tabs_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.tabs_menu = QMenu(self.tabs_button)
        self.tabs_menu.setObjectName("stationTabsList")
        for index in range(self.tabs.count()):
            item = self.tabs_menu.addAction(self.tabs.tabText(index))
            item.setCheckable(True)
            item.triggered.connect(lambda _c=False, i=index: self.tabs.setCurrentIndex(i))
        self.tabs_menu.aboutToShow.connect(self._mark_current_tab)
        self.tabs_button.setMenu(self.tabs_menu)
        self.tabs.setCornerWidget(self.tabs_button, Qt.Corner.TopRightCorner)
        self.config_tab = config
        self.tab_keys: dict[QWidget, str] = {
            self.alarms_tab: "alarms",
            self.commands_tab: "commands",
            self.health_tab: "health",
            self.probe_tab: "probe",
            self.antennas_tab: "antennas",
            self.served_tab: "served",
        }
        # Every tab by the name links and the navigator use ("alarms", "configuration"...).
        self.sections: dict[str, QWidget] = {
            "overview": self.overview,
            "configuration": config,
            "hardware": self.hardware,
            **{key: tab for tab, key in self.tab_keys.items()},
        }

        self.summary = self.overview
        self._frame("stationDetail")

        for view in (self.overview, self.config_label):
            view.link_activated.connect(self.follow)
        self.edit_button.clicked.connect(self.edit_requested)
        self.thresholds.changed.connect(self._thresholds_edited)
        self.save_thresholds.clicked.connect(self._save_thresholds)
        self.revert_thresholds.clicked.connect(self._revert_thresholds)
        self.send_button.clicked.connect(lambda: self.command_requested.emit(None))
        self.tabs.currentChanged.connect(lambda _i: self.load_current_tab())
        vm.health_changed.connect(self.health_chart.set_health)
        vm.health_error.connect(
            lambda m: self.health_chart.show_message(f"Could not load the health history: {m}")
        )
        vm.probe_changed.connect(self.probe_chart.set_probe)
        vm.probe_error.connect(
            lambda m: self.probe_chart.show_message(f"Could not load the RF probe traffic: {m}")
        )
        self.show_station(None)

    def _mark_current_tab(self) -> None:
        for index, item in enumerate(self.tabs_menu.actions()):
            item.setChecked(index == self.tabs.currentIndex())

    def _chart_tab(self, chart: QWidget, key: str, note: QLabel | None = None) -> QWidget:
        tab = QWidget()
        refresh = QPushButton("Refresh")
        refresh.setObjectName(f"{key}Refresh")
        refresh.clicked.connect(lambda: self.vm.load(key))
        row = QHBoxLayout()
        if note is not None:
            row.addWidget(note, 1)
        else:
            row.addStretch(1)
        row.addWidget(refresh)
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(chart, 1)
        return tab

    noun = "the base station"

    @property
    def showing_station(self) -> bool:
        return self._showing()

    def _show_none(self) -> None:
        self.show_station(None)

    def follow(self, href: str) -> None:
        where = station_position(self.station) if self.station is not None else None
        if href == SHOW_ON_MAP and where is not None:
            lrr_id = str(_get(self.station, "lrrID") or "")
            self.navigate.emit(Location("map", station_place(where[0], where[1], lrr_id)))
            return
        location = location_of(href)
        if location is not None:
            self.navigate.emit(location)

    def _thresholds_edited(self) -> None:
        dirty = self.thresholds.dirty and self.station is not None
        valid = self.thresholds.configuration() is not None
        # Disabled, the buttons say why (the rights, when they refuse, say theirs instead).
        unchanged = "No threshold changed yet"
        self.save_thresholds.setToolTip(
            "Save these thresholds to the station"
            if dirty and valid
            else unchanged
            if not dirty
            else f"Not saved while wrong: {self.thresholds.problem()}"
        )
        self.gate.enable(self.save_thresholds, dirty and valid)
        self.revert_thresholds.setToolTip(
            "Back to the station's thresholds" if dirty else unchanged
        )
        self.revert_thresholds.setEnabled(dirty)

    def _save_thresholds(self) -> None:
        configuration = self.thresholds.configuration()
        if configuration is not None and self.station is not None:
            self.save_requested.emit({"alarmsConfiguration": configuration.to_wire()})

    def _revert_thresholds(self) -> None:
        config = _get(self.station, "alarmsConfiguration") if self.station is not None else None
        self.thresholds.set_configuration(config)
        self._thresholds_edited()

    def _show_thresholds(self, previous: Any, station: Any) -> None:
        """The same station read again keeps thresholds edited and not saved, unless they are
        the station's now (they were saved)."""
        same = previous is not None and station is not None and previous.lrrID == station.lrrID
        config = _get(station, "alarmsConfiguration") if station is not None else None
        if same and self.thresholds.dirty:
            typed = self.thresholds.configuration()
            saved = (
                typed is not None and config is not None and (typed.to_wire() == _wire_of(config))
            )
            if not saved:
                return
        self.thresholds.set_configuration(config)
        self._apply_thresholds_rights(station)
        self._thresholds_edited()

    def _apply_thresholds_rights(self, station: Any) -> None:
        verdict = self.gate.check("station.edit")
        self.thresholds.set_editable(station is not None and verdict.allowed)
        # Greyed for an account that may not change them: it says why where it is greyed.
        self.thresholds.setToolTip("" if verdict.allowed else verdict.reason)

    def _rights_changed(self) -> None:
        """The account's rights read (after the station was shown): editable or not now."""
        self._apply_thresholds_rights(self.station)
        self._thresholds_edited()

    def reveal(self) -> None:
        """The top of the detail: its first tab, scrolled up, the station's name in sight."""
        self.tabs.setCurrentIndex(0)
        self.overview.verticalScrollBar().setValue(0)

    def show_station(self, station: Any) -> None:
        previous = self.station
        self._show_thresholds(previous, station)
        self.station = station
        self.vm.set_station(station)
        if station is None:
            self._show_empty(
                "No base station selected",
                "Select a base station in the list to see its state, configuration, alarms,"
                " commands and health.",
            )
        else:
            self.overview.setText(overview_html(station))
            self.config_label.setText(configuration_html(station, thresholds=False))
            self.hardware.setText(hardware_html(station))
            probe = _get(_get(station, "rfProbe"), "enabled")
            self.probe_state.setText(
                "RF probe on"
                if probe
                else "RF probe off: no new traffic is recorded"
                if probe is not None
                else ""
            )
            self.stack.setCurrentWidget(self.tabs)
        self.gate.enable(self.edit_button, station is not None)
        self.gate.enable(self.send_button, station is not None)
        for tab in (self.alarms_tab, self.commands_tab, self.antennas_tab, self.served_tab):
            tab.update_state()
        if station is None or self.vm.health is None:
            self.health_chart.show_message(
                "Select a base station to see its health" if station is None else "Loading…"
            )
        if station is None or self.vm.probe is None:
            self.probe_chart.show_message(
                "Select a base station to see its RF probe traffic"
                if station is None
                else "Loading…"
            )
        self.load_current_tab()

    def load_current_tab(self) -> None:
        key = self.tab_keys.get(self.tabs.currentWidget())
        if key is not None and self.station is not None:
            self.vm.ensure(key)
