"""Going from anything to what it concerns, and back: every pane shortcut, Back/Forward,
alarm -> device or group, a device's references -> their pane, Enter in a search box, Tab
order, the Help menu. The whole console, signed in to the live sandbox."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QKeySequence, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from lpwa_console import __version__
from lpwa_console.app import Console
from lpwa_console.models.alarms import kind_of
from lpwa_console.ui.lazy_pane import real_pane
from lpwa_console.ui.main_window import MainWindow
from lpwa_console.ui.navigator import Location
from lpwa_console.ui.panes.alarms import AlarmsPane
from lpwa_console.ui.panes.devices import DevicesPane
from lpwa_console.ui.panes.resources import ResourcesPane
from tests.ui.conftest import OpenConsole

CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier


def shown(window: MainWindow) -> str:
    return window.pane_keys[window.navigation.currentRow()]


def devices_pane(console: Console) -> DevicesPane:
    pane = console.panes["devices"]
    assert isinstance(pane, DevicesPane)
    return pane


def test_each_pane_shortcut_and_menu_item_goes_to_its_own_pane(
    open_console: OpenConsole, qtbot: Any
) -> None:
    console = open_console("subscriber")
    window = console.window
    keys = window.visible_keys  # a subscriber's panes (models/pane_access.py)
    assert keys == [
        "devices", "map", "alarms", "multicast", "app_servers", "network", "stations",
        "key_manager",
    ]  # fmt: skip
    assert "partners" in console.panes and "catalogs" in console.panes  # an operator's
    # The keys themselves, in an order that never leaves the pane where it already is.
    for index in [5, 0, 6, 3, 7, 1, 4, 2]:
        QTest.keyClick(window, Qt.Key(Qt.Key.Key_1 + index), CTRL)
        assert shown(window) == keys[index]
        assert real_pane(window.stack.currentWidget()) is console.panes[keys[index]]
    # The View menu's items (what the keys trigger), each with its own shortcut.
    for index, action in enumerate(window.pane_actions):
        assert action.shortcut() == QKeySequence(f"Ctrl+{index + 1}")
        window.navigator.open("devices" if index else "network")
        action.trigger()
        assert shown(window) == keys[index]


def test_back_and_forward_retrace_the_way(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    window = console.window
    assert not window.back_action.isEnabled() and not window.forward_action.isEnabled()
    QTest.keyClick(window, Qt.Key.Key_3, CTRL)  # alarms
    window.navigation.setCurrentRow(1)  # the map, picked in the side list
    QTest.keyClick(window, Qt.Key.Key_5, CTRL)  # app servers
    assert shown(window) == "app_servers"
    QTest.keyClick(window, Qt.Key.Key_Left, ALT)
    assert shown(window) == "map"
    QTest.keyClick(window, Qt.Key.Key_Left, ALT)
    assert shown(window) == "alarms"
    assert window.forward_action.isEnabled()
    QTest.keyClick(window, Qt.Key.Key_Right, ALT)
    assert shown(window) == "map"
    # The toolbar's buttons are the same actions.
    assert window.back_action in window.toolbar.actions()
    window.back_action.trigger()
    window.back_action.trigger()
    assert shown(window) == "devices"
    assert not window.back_action.isEnabled()
    # A new step after going back drops the way forward.
    QTest.keyClick(window, Qt.Key.Key_6, CTRL)
    assert not window.forward_action.isEnabled()


def double_click(widget: QWidget, point: QPoint) -> None:
    """Press, release, press, double-click, release: what a mouse sends (QTest.mouseDClick
    leaves out the second press, which item views need to see the double-click)."""
    left = Qt.MouseButton.LeftButton
    QTest.mouseClick(widget, left, pos=point)
    QTest.mousePress(widget, left, pos=point)
    event = QMouseEvent(
        QEvent.Type.MouseButtonDblClick,
        QPointF(point),
        widget.mapToGlobal(QPointF(point)),
        left,
        left,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)
    QTest.mouseRelease(widget, left, pos=point)


def _first_row_of(pane: AlarmsPane, kind: str) -> int:
    model = pane.vm.model
    for row in range(model.rowCount()):
        alarm = model.item(row)
        if alarm is not None and kind_of(alarm) == kind:
            return row
    return -1


def test_an_alarm_opens_its_device_and_back_returns(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    window = console.window
    QTest.keyClick(window, Qt.Key.Key_3, CTRL)
    alarms = console.panes["alarms"]
    assert isinstance(alarms, AlarmsPane)
    qtbot.waitUntil(lambda: _first_row_of(alarms, "device") >= 0, timeout=10_000)
    row = _first_row_of(alarms, "device")
    alarm = alarms.vm.model.item(row)
    assert alarm is not None
    # The alarm says what it is: its name in the list, its meaning in the tooltip.
    column = [c.header for c in alarms.vm.model.columns].index("Alarm")
    index = alarms.vm.model.index(row, column)
    assert index.data() in ("004 No uplink", "012 Tamper")
    assert "alarm" in str(index.data(Qt.ItemDataRole.ToolTipRole)).lower()
    alarms.table.setFocus()
    alarms.table.setCurrentIndex(index)
    QTest.keyClick(alarms.table, Qt.Key.Key_Return)
    devices = devices_pane(console)
    assert shown(window) == "devices"
    eui = alarm.device.EUI  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: devices.vm.detail is not None and eui == devices.vm.detail.EUI)
    assert devices.detail.showing_device
    QTest.keyClick(window, Qt.Key.Key_Left, ALT)
    assert shown(window) == "alarms"


def test_a_multicast_alarm_opens_its_group(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    alarms = console.panes["alarms"]
    assert isinstance(alarms, AlarmsPane)
    console.window.navigator.open("alarms")
    alarms.source.setCurrentIndex(alarms.source.findData("multicast"))
    alarms.acked.setCurrentIndex(alarms.acked.findData(None))  # all of them
    qtbot.waitUntil(lambda: _first_row_of(alarms, "multicast") >= 0, timeout=10_000)
    row = _first_row_of(alarms, "multicast")
    alarm = alarms.vm.model.item(row)
    assert alarm is not None and alarm.ID == 21
    index = alarms.vm.model.index(row, 3)
    alarms.table.scrollTo(index)
    with qtbot.waitSignal(alarms.navigate, timeout=2000) as asked:
        double_click(alarms.table.viewport(), alarms.table.visualRect(index).center())
    assert asked.args[0] == Location("multicast", alarm.multicastGroup.EUI)  # type: ignore[union-attr]
    groups = console.panes["multicast"]
    assert isinstance(groups, ResourcesPane)
    assert shown(console.window) == "multicast"
    eui = alarm.multicastGroup.EUI  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: groups.vm.detail is not None and eui == groups.vm.detail.EUI)
    # The group's application servers open in their pane.
    group = groups.vm.detail
    assert group is not None and group.appServers
    server = group.appServers[0]
    href = next(h for h in groups.detail.text().split("'") if h.startswith("lpwa:app_servers/"))
    groups.detail.linkActivated.emit(href)
    servers = console.panes["app_servers"]
    assert isinstance(servers, ResourcesPane)
    assert shown(console.window) == "app_servers"
    qtbot.waitUntil(lambda: servers.vm.detail is not None and servers.vm.detail.ID == server.ID)
    console.window.back_action.trigger()
    assert shown(console.window) == "multicast" and eui == groups.vm.detail.EUI


def test_a_reference_in_the_detail_opens_its_item(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    devices = devices_pane(console)
    qtbot.waitUntil(lambda: devices.vm.model.rowCount() > 0, timeout=10_000)
    devices.open_item(devices.vm.model.item(0).EUI)  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: devices.vm.detail is not None and bool(devices.vm.detail.appServers))
    device = devices.vm.detail
    assert device is not None
    server = device.appServers[0]
    html = devices.detail.label.text()
    href = next(h for h in html.split("'") if h.startswith("lpwa:app_servers/"))
    assert server.ID in href
    devices.detail.label.linkActivated.emit(href)  # what a click on the link does
    servers = console.panes["app_servers"]
    assert isinstance(servers, ResourcesPane)
    assert shown(console.window) == "app_servers"
    qtbot.waitUntil(lambda: servers.vm.detail is not None and servers.vm.detail.ID == server.ID)
    # Back: the device again.
    QTest.keyClick(console.window, Qt.Key.Key_Left, ALT)
    assert shown(console.window) == "devices"
    assert devices.vm.detail is not None and devices.vm.detail.EUI == device.EUI
    # The routing profile is a tab of the device: its link shows that tab.
    devices.detail.follow("lpwa:detail/routing")
    assert devices.detail.tabs.currentWidget() is devices.detail.routing


def test_enter_in_a_search_box_moves_to_the_results(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    devices = devices_pane(console)
    qtbot.waitUntil(lambda: devices.vm.model.rowCount() > 0, timeout=10_000)
    devices.focus_filter()
    QTest.keyClicks(devices.search, "Parking")
    QTest.keyClick(devices.search, Qt.Key.Key_Return)
    assert devices.table.hasFocus()
    servers = console.panes["app_servers"]
    assert isinstance(servers, ResourcesPane)
    console.window.navigator.open("app_servers")
    qtbot.waitUntil(lambda: servers.vm.model.rowCount() > 0, timeout=10_000)
    assert servers.filters[0].focus_first()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert servers.views[0].hasFocus()


def focus_chain(start: QWidget, count: int) -> list[QWidget]:
    """The widgets Tab visits from `start` (those that take focus by Tab, and are shown)."""
    out, widget = [start], start
    for _ in range(400):
        widget = widget.nextInFocusChain()
        if widget is start or len(out) == count:
            break
        if (
            widget.isVisible()
            and widget.isEnabled()
            and (widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
        ):
            out.append(widget)
    return out


def test_tab_goes_in_reading_order(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    devices = devices_pane(console)
    qtbot.waitUntil(lambda: devices.vm.model.rowCount() > 0, timeout=10_000)
    devices.table.selectRow(0)
    expected = [
        devices.search,
        devices.connectivity,
        devices.health,
        devices.tag_filter,
        devices.app_server,
        devices.more_filters,
        devices.new_button,
        devices.edit_button,
        devices.tag_button,
        devices.untag_button,
        devices.copy_button,
        devices.export_button,
        devices.refresh_button,
        devices.table,
    ]
    qtbot.waitUntil(lambda: all(w.isEnabled() for w in expected))
    assert focus_chain(devices.search, len(expected)) == expected
    alarms = console.panes["alarms"]
    assert isinstance(alarms, AlarmsPane)
    console.window.navigator.open("alarms")
    qtbot.waitUntil(lambda: alarms.vm.model.rowCount() > 0, timeout=10_000)
    alarms.table.selectRow(0)
    expected = [
        alarms.source,
        alarms.severity,
        alarms.acked,
        alarms.live,
        alarms.open_button,
        alarms.ack_button,
        alarms.refresh_button,
        alarms.table,
    ]
    assert focus_chain(alarms.source, len(expected)) == expected


def test_help_lists_the_shortcuts_and_says_about(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    window = console.window
    window.open_shortcuts()
    dialog = window.findChild(QWidget, "shortcutsDialog")
    assert dialog is not None
    rows = dict(dialog.rows())  # type: ignore[attr-defined]
    native = QKeySequence.SequenceFormat.NativeText
    for index, key in enumerate(window.visible_keys):  # the panes this account sees
        title = console.panes[key].title  # type: ignore[attr-defined]
        assert rows[QKeySequence(f"Ctrl+{index + 1}").toString(native)] == title
    assert rows[QKeySequence("Ctrl+K").toString(native)] == "Command palette"
    assert rows[QKeySequence("Alt+Left").toString(native)] == "Back"
    dialog.close()  # type: ignore[attr-defined]
    window.open_about()
    about = window.findChild(QWidget, "aboutBox")
    assert about is not None
    text = about.text()  # type: ignore[attr-defined]
    assert __version__ in text and str(console.embedded.data_dir) in text
    assert "Sandbox as subscriber" in text  # the platform: the profile signed in
    about.close()  # type: ignore[attr-defined]


def test_every_menu_shortcut_does_what_it_says(open_console: OpenConsole, qtbot: Any) -> None:
    """The keys of the View, Go and Help menus, pressed on the window (the pane ones and
    Back/Forward have their own tests above)."""
    console = open_console("subscriber")
    window = console.window
    devices = devices_pane(console)
    qtbot.waitUntil(lambda: devices.vm.first_page_ms is not None, timeout=10_000)

    def press(keys: str) -> None:
        sequence = QKeySequence(keys)
        combo = sequence[0]
        QTest.keyClick(window, combo.key(), combo.keyboardModifiers())

    press("F5")  # Refresh: the list is read again
    assert devices.vm.first_page_ms is None
    qtbot.waitUntil(lambda: devices.vm.first_page_ms is not None, timeout=10_000)
    window.navigation.setFocus()
    press("Ctrl+F")  # Find: the search box
    assert devices.search.hasFocus()
    press("Ctrl+N")  # New device: its form
    qtbot.waitUntil(lambda: devices.dialog is not None and devices.dialog.isVisible())
    devices.dialog.reject()  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: devices.dialog is None)
    press("Ctrl+I")  # Import: the wizard
    qtbot.waitUntil(lambda: devices.import_dialog is not None)
    devices.import_dialog.reject()  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: devices.import_dialog is None)
    press("Ctrl+E")  # Export this view: where to
    export = devices.findChild(QWidget, "exportDialog")
    assert export is not None and export.isVisible()
    export.reject()  # type: ignore[attr-defined]
    press("Ctrl+K")  # the command palette
    assert window.command_palette.isVisible()
    QTest.keyClick(window.command_palette.input, Qt.Key.Key_Escape)
    press("F1")  # Help: the shortcut list
    qtbot.waitUntil(lambda: window.findChild(QWidget, "shortcutsDialog") is not None)
    window.findChild(QWidget, "shortcutsDialog").close()  # type: ignore[union-attr]
    # Every shortcut of the menus belongs to one action only.
    keys = [a.shortcut().toString() for a in window.all_actions() if not a.shortcut().isEmpty()]
    assert len(keys) == len(set(keys))
