"""What a look at the field engineer's screens found (issue 9): an empty list of the station's
detail says so instead of "Loading…", the hardware tab reads the station's file systems and
power source in words, refusals name fields in words, the window's Ctrl+N is named after what
it makes on the pane shown (and per pane in the shortcut list), and the palette's New base
station is refused with the partner's reason, like the pane's button."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QPushButton, QWidget

from lpwa_console.api import LpwaClient
from lpwa_console.models.errors import field_in_words
from lpwa_console.models.partners import PartnerViewModel
from lpwa_console.models.station_command_catalogue import StationRef
from lpwa_console.models.station_detail import (
    HealthSeries,
    ProbeSeries,
    StationDetailViewModel,
    station_alarm_columns,
)
from lpwa_console.models.stations import StationsViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.common import ListEnvelope
from lpwa_console.schema.labels import field_words
from lpwa_console.schema.partners import Partner
from lpwa_console.schema.stations import BaseStation, BaseStationCreate, BsSecurityRequest
from lpwa_console.ui.dialogs.command_run import results_table
from lpwa_console.ui.dialogs.station_commands import StationCommandDialog
from lpwa_console.ui.help import shortcut_rows
from lpwa_console.ui.main_window import EXPORT_WORDS, IMPORT_WORDS, NEW_NONE
from lpwa_console.ui.panes.stations import StationCreateDialog, StationsPane
from lpwa_console.ui.widgets.health_chart import HealthChart, ProbeChart
from lpwa_console.ui.widgets.pane_parts import data_table
from lpwa_console.ui.widgets.station_detail import (
    HtmlView,
    ListTab,
    StationDetail,
    hardware_html,
    overview_html,
)
from tests.ui.conftest import OpenConsole

GRANT_USED = "No more base stations may be created: 12 of 12 granted base stations are used"


def _grant(partner: PartnerViewModel, used: int, granted: int | None) -> None:
    partner.partner = Partner.model_validate(
        {
            "partner": {"ID": "demo", "name": "Demo", "grantedPermissions": ["x", "a"]},
            "totalBaseStationsUsed": used,
            "totalBaseStationsGranted": granted,
        }
    )
    partner.changed.emit()


def _stations_pane(console: Any) -> StationsPane:
    console.window.navigator.open("stations")
    pane = console.panes["stations"]
    assert isinstance(pane, StationsPane)
    return pane


def test_an_empty_list_of_the_detail_says_so(qtbot: Any, client: LpwaClient) -> None:
    """A new station has sent no command and heard no device: its tabs say that once the
    (empty) first page is in, not "Loading…" for ever."""
    lrr_id = f"{random.randrange(0x20000000, 0xEFFFFFFF):08X}"
    request = BaseStationCreate.model_validate(
        {"lrrID": lrr_id, "name": "Empty lists", "model": {"ID": "KERLINK_WIRNET_ISTATION"}}
    )
    task = asyncio.ensure_future(client.stations.create(request))
    qtbot.waitUntil(task.done, timeout=10000)
    station = task.result()
    runner = TaskRunner()
    vm = StationsViewModel(runner, page_size=50)
    detail = StationDetailViewModel(runner)
    pane = StationsPane(vm, detail_vm=detail, partner=PartnerViewModel(runner))
    qtbot.addWidget(pane)
    pane.resize(1280, 640)
    pane.show()
    detail.set_client(client)
    vm.set_client(client)
    with qtbot.waitSignal(vm.detail_changed, timeout=10000):
        pane.open_item(station.lrrID)
    for section, tab, says in (
        ("commands", pane.detail.commands_tab, "No command sent to this station yet"),
        ("served", pane.detail.served_tab, "No device heard by this station lately"),
    ):
        pane.show_section(section)
        qtbot.waitUntil(lambda t=tab, s=says: t.stack.empty.text() == s, timeout=10000)
        assert not tab.model.loading and tab.model.rowCount() == 0


def test_the_empty_state_follows_the_end_of_loading(qtbot: Any, qloop: Any) -> None:
    """The model says its first page is in while it still counts as loading (the end of
    loading follows): the tab's text follows that end, with nothing else to wake it."""
    vm = StationDetailViewModel(TaskRunner())
    vm.station = BaseStation.model_validate({"lrrID": "0A0B0C0D", "name": "Quiet"})
    tab = ListTab(vm, "commands", "stationCommands", "No command sent to this station yet")
    qtbot.addWidget(tab)
    tab.show()
    answered: list[int] = []

    async def fetch(page: int, _size: int, _sort: str | None, _desc: bool) -> Any:
        answered.append(page)
        return ListEnvelope[Any](briefs=[], count=0)

    tab.model.set_fetcher(fetch)
    qtbot.waitUntil(lambda: answered == [1] and not tab.model.loading, timeout=5000)
    assert tab.stack.empty.text() == "No command sent to this station yet"


def test_hardware_in_words() -> None:
    """The station's file systems come as `mfs.mfs` (the reference's detail), its power
    source as a code."""
    station = BaseStation.model_validate(
        {
            "lrrID": "0A0B0C0D",
            "name": "Hardware",
            "mfs": {"mfs": [{"name": "/", "used": 41}, {"name": "/tmp", "used": 0}]},
            "power": {"status": 2, "batteryLevel": 80},
        }
    )
    html = hardware_html(station)
    assert "/tmp" in html and "41 % used" in html and "0 % used" in html
    assert "?" not in html
    assert "Solar" in html and "80 %" in html and "Power source" in html
    assert "Mains" in hardware_html({"power": {"status": 5}})


def test_refusals_and_choices_name_fields_in_words() -> None:
    assert field_in_words("model.softwareType: reboot needs the LRR software") == (
        "Software: reboot needs the LRR software"
    )
    assert field_in_words("bsSecurity.type: IPSEC_X509 needs") == "Type: IPSEC_X509 needs"
    assert field_in_words("lrrID: 8 hexadecimal digits") == "lrrID: 8 hexadecimal digits"
    assert field_in_words("csv: bad file") == "csv: bad file"
    assert field_in_words("Conflict: the station exists") == "Conflict: the station exists"
    words = field_words("type", BsSecurityRequest)
    assert words.choice_words("IPSEC_X509") == "IPsec with X.509 certificates"
    assert words.label == "Protection"


def test_ctrl_n_is_named_after_what_it_makes(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    window = console.window
    window.navigator.open("devices")
    assert window.new_action.text() == "New device"
    assert window.account_button.text() == "Acme Utilities (Subscriber)"
    window._account_changed("Acme Utilities (administrator)", "subscriber")  # the demo's name
    assert window.account_button.text() == "Acme Utilities (administrator) · Subscriber"
    rows = dict(shortcut_rows(window.all_actions()))
    assert rows["Ctrl+N"] == "New: a device on Devices; a base station on Base stations"
    assert window.import_action.isEnabled() and window.export_action.isEnabled()
    _stations_pane(console)
    assert window.new_action.text() == "New base station"
    # Import and export are the devices pane's: here they say where they work.
    assert not window.import_action.isEnabled() and not window.export_action.isEnabled()
    assert window.import_action.toolTip() == IMPORT_WORDS[1]
    assert window.export_action.toolTip() == EXPORT_WORDS[1]
    titles = [e.title for e in window.palette_entries()]
    assert titles.count("New base station") == 1  # Ctrl+N's item, not twice
    window.navigator.open("alarms")
    assert window.new_action.text() == "New…" and not window.new_action.isEnabled()
    assert window.new_action.toolTip() == NEW_NONE
    titles = [e.title for e in window.palette_entries()]
    assert "New…" not in titles and "New base station" in titles


def test_the_palette_refuses_a_station_beyond_the_grant(
    open_console: OpenConsole, qtbot: Any
) -> None:
    console = open_console("subscriber")
    window = console.window
    pane = _stations_pane(console)
    partner = pane.partner
    assert partner is not None
    qtbot.waitUntil(lambda: partner.partner is not None, timeout=10000)
    _grant(partner, 12, 12)
    assert not pane.new_button.isEnabled()
    entries = {e.title: e for e in window.palette_entries()}
    entry = entries["New base station"]  # Ctrl+N's item on this pane
    assert not entry.enabled and entry.reason == GRANT_USED
    window.navigator.open("devices")  # from another pane: the window's own item
    entries = {e.title: e for e in window.palette_entries()}
    entry = entries["New base station"]
    assert not entry.enabled and entry.reason == GRANT_USED
    assert entries["New device"].enabled
    window.new_station_action.trigger()  # refused: no form
    assert pane.create_dialog is None
    _grant(partner, 12, 13)
    entries = {e.title: e for e in window.palette_entries()}
    assert entries["New base station"].enabled


def test_empty_charts_name_their_period(qtbot: Any) -> None:
    health, probe = HealthChart(), ProbeChart()
    qtbot.addWidget(health)
    qtbot.addWidget(probe)
    health.set_health(HealthSeries([], [], [], []))
    assert health.empty.text() == (
        "The station has reported no CPU, RAM or disk figures in the last 7 days"
    )
    probe.set_probe(ProbeSeries([], [], []))
    assert probe.empty.text() == "The RF probe heard no frame in the last 2 days"


def test_disabled_buttons_say_why(qtbot: Any, qloop: Any) -> None:
    """Save thresholds, Revert, a command's Send and the new-station form's Create: disabled
    with their reason, before anything is typed."""
    runner = TaskRunner()
    detail = StationDetail(StationDetailViewModel(runner))
    qtbot.addWidget(detail)
    detail.show_station(BaseStation.model_validate({"lrrID": "0A0B0C0D", "name": "Quiet"}))
    assert not detail.save_thresholds.isEnabled()
    assert detail.save_thresholds.toolTip() == "No threshold changed yet"
    assert detail.revert_thresholds.toolTip() == "No threshold changed yet"

    ref = StationRef("1", "0A0B0C0D", "Quiet", "LRR_LINUX")
    dialog = StationCommandDialog(None, None, [ref], "downloadLrrVersion")
    qtbot.addWidget(dialog)
    send = dialog.findChild(QPushButton, "sendCommand")
    assert not send.isEnabled()
    assert send.toolTip() == "Not connected to a platform that takes station commands"

    vm = StationsViewModel(runner)
    parent = QWidget()
    qtbot.addWidget(parent)
    form = StationCreateDialog(vm, parent)
    create = form.buttons.button(QDialogButtonBox.StandardButton.Save)
    assert not create.isEnabled()
    assert create.toolTip() == "Base station model: required"
    form.reject()


def test_band_and_elsewhere_in_words(qtbot: Any) -> None:
    assert "ISM band</td><td style='padding:2px 0'>Europe 863-870 MHz (eu868)" in (
        overview_html({"name": "Band", "ismBand": "eu868"})
    )
    assert "xx999" in overview_html({"name": "Band", "ismBand": "xx999"})  # unknown: as is
    runner = TaskRunner()
    vm = StationsViewModel(runner)
    parent = QWidget()
    qtbot.addWidget(parent)
    form = StationCreateDialog(vm, parent)
    notes = [label.text() for label in form.findChildren(QLabel)]
    assert "Not editable here: Alarm thresholds (in its Configuration tab, once created)" in notes
    form.reject()


def test_the_results_table_has_room_for_a_long_station(qtbot: Any) -> None:
    from lpwa_console.models.station_command_run import StationResultsModel

    refs = [StationRef("1", "1000000F", "Paris La Defense water tower 05", "LRR_LINUX")]
    table = results_table(StationResultsModel(refs))
    qtbot.addWidget(table)
    label = "Paris La Defense water tower 05 (1000000F)"
    assert table.columnWidth(StationResultsModel.STATION) > (
        table.fontMetrics().horizontalAdvance(label)
    )
    assert table.columnWidth(StationResultsModel.STATE) > (
        table.fontMetrics().horizontalAdvance("Sent, no longer followed")
    )


def test_ctrl_n_makes_a_station_for_a_network_partner(
    open_console: OpenConsole, qtbot: Any
) -> None:
    """A network partner may not create devices: Ctrl+N on its stations pane is still its
    New base station (guarded by the station right, not the device one)."""
    console = open_console("partner")
    window = console.window
    pane = _stations_pane(console)
    partner = pane.partner
    assert partner is not None
    qtbot.waitUntil(lambda: partner.partner is not None, timeout=10000)
    window.update_new_actions()
    assert window.new_action.text() == "New base station"
    assert window.new_action.isEnabled(), window.new_action.toolTip()
    rows = dict(shortcut_rows(window.all_actions()))
    assert rows["Ctrl+N"] == "New: a base station on Base stations"


def test_the_list_has_room_for_a_never_connected_station(qtbot: Any) -> None:
    vm = StationsViewModel(TaskRunner())  # held: it owns the model
    model = vm.model
    table = data_table(model, "stationsTable")
    qtbot.addWidget(table)
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    health = headers.index("Health")
    assert table.columnWidth(health) > table.fontMetrics().horizontalAdvance("Never communicated")


def test_a_stations_alarms_say_when_before_the_details() -> None:
    titles = [column.header for column in station_alarm_columns()]
    assert titles[:3] == ["Severity", "Alarm", "Raised"]


def test_show_on_map_on_a_map_never_shown(qtbot: Any, qloop: Any) -> None:
    """ "Show on map" from a station makes the map pane and asks for the place before the
    pane has its size: its first resize (no old size: seen in a real X window) fits that
    place, not the whole world."""
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QResizeEvent

    from lpwa_console.models.device_map import DeviceMapViewModel
    from lpwa_console.ui.panes.device_map import DeviceMapPane

    pane = DeviceMapPane(DeviceMapViewModel(TaskRunner(), debounce_ms=20))
    qtbot.addWidget(pane)
    pane.open_item("48.83112,2.31946")  # made by the link, not laid out yet
    view = pane.view
    view.resizeEvent(QResizeEvent(QSize(640, 480), QSize(-1, -1)))  # its first: no old size
    box = view.visible_box()
    assert box is not None
    assert box.min_lat < 48.83112 < box.max_lat and box.min_lon < 2.31946 < box.max_lon
    assert box.max_lon - box.min_lon < 0.1  # street level


def test_read_only_thresholds_say_why(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber-viewer")
    pane = _stations_pane(console)
    qtbot.waitUntil(lambda: pane.vm.first_page_ms is not None, timeout=15000)
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: pane.detail.showing_station, timeout=10000)
    editor = pane.detail.thresholds
    qtbot.waitUntil(lambda: editor.toolTip().startswith("Your account may not"), timeout=10000)
    assert not editor.inputs["alarm102"][0].enabled.isEnabled()


def test_every_tab_is_listed_beside_the_bar(qtbot: Any) -> None:
    """The bar scrolls on a laptop-wide detail: its corner button lists every tab."""
    detail = StationDetail(StationDetailViewModel(TaskRunner()))
    qtbot.addWidget(detail)
    detail.resize(430, 600)
    detail.show_station(BaseStation.model_validate({"lrrID": "0A0B0C0D", "name": "Tabs"}))
    items = detail.tabs_menu.actions()
    assert [a.text() for a in items] == [detail.tabs.tabText(i) for i in range(detail.tabs.count())]
    assert items[-1].text() == "Served devices"
    items[-1].trigger()
    assert detail.tabs.currentWidget() is detail.served_tab


def test_links_follow_the_theme(qtbot: Any) -> None:
    """Show on map, written in the light theme's link colour, takes the dark one's when the
    theme changes (the text is laid out again)."""
    import re

    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from lpwa_console.ui.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    was_dark = bool(app.property("lpwaDark"))
    apply_theme(app, "light")
    view = HtmlView("linkView")
    qtbot.addWidget(view)
    view.show()
    view.setText("<a href='lpwa:detail/map'>Show on map</a>")
    try:
        apply_theme(app, "dark")
        qtbot.wait(10)
        dark = app.palette().color(QPalette.ColorRole.Link).name()
        assert re.findall(r"color:(#[0-9a-f]{6})", view.document().toHtml()) == [dark]
    finally:
        apply_theme(app, "dark" if was_dark else "light")


def test_partners_say_used_of_granted_in_one_column() -> None:
    from lpwa_console.models.operator_partners import partner_columns

    headers = [c.header for c in partner_columns()]
    assert "Granted" not in headers  # was off the right edge of a laptop's table
    # Name to stations used within the ~530 px the list has at 1280 px.
    assert sum(c.width or 100 for c in partner_columns()[:4]) <= 500
    used = partner_columns()[headers.index("Stations used")]
    partner = Partner.model_validate(
        {
            "partner": {"ID": "net", "name": "Net"},
            "totalBaseStationsUsed": 12,
            "totalBaseStationsGranted": 40,
        }
    )
    assert used.value(partner) == "12 of 40"
    mine = Partner.model_validate(
        {"partner": {"ID": "acme", "name": "Acme"}, "totalBaseStationsUsed": 1036}
    )
    assert used.value(mine) == "1,036 (no limit)"


def test_the_overview_names_the_last_admin_command() -> None:
    """Document 2 §2.2: the station carries the type of its last administration command."""
    shown = overview_html({"name": "Cmd", "lastAcmdReqType": "CHANGE_SUPPORT_PASSWORD",
                           "lastCmdType": "CHANGE_SUPPORT_PASSWORD"})  # fmt: skip
    assert "Last command</td><td style='padding:2px 0'>Change the support password" in shown
    assert "Last command</td><td style='padding:2px 0'>—" in overview_html({"name": "None"})
