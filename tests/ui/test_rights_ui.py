"""Rights before refusal: a viewer's controls are disabled and say why, everywhere; an
administrator's are not; the account view says who is signed in and what it may do."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QAction, QHelpEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QPushButton, QToolTip, QWidget

from lpwa_console.app import Console
from lpwa_console.models.rights import AccountRights
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.panes.alarms import AlarmsPane
from lpwa_console.ui.panes.devices import DevicesPane
from lpwa_console.ui.panes.resources import ResourcesPane
from lpwa_console.ui.rights import RightsGate
from tests.models.test_rights import subscription
from tests.ui.conftest import OpenConsole

CREATE_REASON = (
    "Your account may not create devices: it lacks the subscription's write permission ('a') "
    "and the access right to change devices and multicast groups (LPWA_MGR::WRITE_NODE)"
)


def loaded_devices(console: Console, qtbot: Any) -> DevicesPane:
    pane = console.panes["devices"]
    assert isinstance(pane, DevicesPane)
    qtbot.waitUntil(lambda: pane.vm.model.rowCount() > 0, timeout=10_000)
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: pane.vm.detail is not None, timeout=10_000)
    return pane


def denied(control: QWidget | QAction, words: str) -> None:
    assert not control.isEnabled(), control.toolTip()
    assert control.toolTip().startswith("Your account may not "), control.toolTip()
    assert words in control.toolTip()


def test_a_viewer_is_told_before_it_tries(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber-viewer")
    window = console.window
    devices = loaded_devices(console, qtbot)
    assert devices.new_button.toolTip() == CREATE_REASON and not devices.new_button.isEnabled()
    assert devices.new_button.accessibleDescription() == CREATE_REASON
    denied(devices.edit_button, "change devices")
    denied(devices.tag_button, "tag or untag devices")
    denied(devices.untag_button, "tag or untag devices")
    denied(devices.import_action, "import devices")
    # Reading stays open to it.
    assert devices.copy_button.isEnabled() and devices.refresh_button.isEnabled()
    # The window's menu actions and the detail's tabs too.
    denied(window.new_action, "create devices")
    assert window.new_action.statusTip() == CREATE_REASON
    denied(window.import_action, "import devices")
    detail = devices.detail
    assert detail.tags_tab is not None and detail.alarms_tab is not None
    denied(detail.tags_tab.add_button, "tag or untag devices")
    denied(detail.tags_tab.name, "tag or untag devices")
    denied(detail.alarms_tab.ack_button, "acknowledge alarms")
    denied(detail.alarm004.save_button, "no-uplink alarm thresholds")
    assert detail.routing.profile_id.isReadOnly()
    assert "ADMIN_NODE" in detail.routing.note.text()
    # The shortcut's way in says why instead of opening a form to fill in vain.
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    devices.new_device()
    assert devices.dialog is None
    assert devices.message.text() == CREATE_REASON
    # The alarms centre, the resource panes, the subscription settings.
    alarms = console.panes["alarms"]
    assert isinstance(alarms, AlarmsPane)
    window.navigator.open("alarms")
    qtbot.waitUntil(lambda: alarms.vm.model.rowCount() > 0, timeout=10_000)
    alarms.table.selectRow(0)
    denied(alarms.ack_button, "acknowledge alarms")
    assert alarms.open_button.isEnabled()
    for key, words in (
        ("multicast", "create multicast groups"),
        ("app_servers", "create application servers"),
        ("network", "create network contexts"),
    ):
        pane = console.panes[key]
        assert isinstance(pane, ResourcesPane)
        window.navigator.open(key)
        denied(pane.new_button, words)
    network = console.panes["network"]
    assert isinstance(network, ResourcesPane)
    network.section.setCurrentIndex(1)
    denied(network.new_button, "create AS transport keys")
    servers = console.panes["app_servers"]
    assert isinstance(servers, ResourcesPane)
    window.navigator.open("app_servers")
    qtbot.waitUntil(lambda: servers.vm.model.rowCount() > 0, timeout=10_000)
    servers.views[0].selectRow(0)
    qtbot.waitUntil(lambda: servers.vm.detail is not None, timeout=10_000)
    if servers.vm.can_edit(servers.vm.detail):
        denied(servers.edit_button, "change application servers")
        denied(servers.delete_button, "delete application servers")
        denied(servers.part_buttons["Security"], "security")
    assert window.subscription_action is not None
    denied(window.subscription_action, "change the subscription's settings")
    # Hovered in the Connection menu, the greyed item says why (a menu hides tooltips unless
    # told to show them).
    action = window.subscription_action
    menu = next(m for m in action.associatedObjects() if isinstance(m, QMenu))
    menu.popup(window.mapToGlobal(QPoint(10, 10)))
    qtbot.waitExposed(menu)
    spot = menu.actionGeometry(action).center()
    QTest.mouseMove(menu, spot)
    QApplication.sendEvent(
        menu, QHelpEvent(QEvent.Type.ToolTip, spot, menu.mapToGlobal(spot))
    )  # what resting the pointer there sends
    qtbot.waitUntil(lambda: "change the subscription's settings" in QToolTip.text())
    menu.hide()


def test_an_administrator_may_do_it_all(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    devices = loaded_devices(console, qtbot)
    for button in (devices.new_button, devices.edit_button, devices.tag_button):
        assert button.isEnabled() and not button.toolTip().startswith("Your account")
    assert devices.import_action.isEnabled()
    assert not devices.detail.routing.read_only
    assert console.window.new_action.isEnabled()
    alarms = console.panes["alarms"]
    assert isinstance(alarms, AlarmsPane)
    console.window.navigator.open("alarms")
    qtbot.waitUntil(lambda: alarms.vm.model.rowCount() > 0, timeout=10_000)
    alarms.table.selectRow(0)
    assert alarms.ack_button.isEnabled()


def test_the_account_view_is_one_click_away(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber-restricted")
    window = console.window
    assert window.account_button.text() == "Acme Utilities (Subscriber)"
    QTest.mouseClick(window.account_button, Qt.MouseButton.LeftButton)
    view = window.account_view
    assert view is not None and view.isVisible()
    text = view.text.text()
    assert "Sandbox as subscriber-restricted" in text  # the platform
    assert (
        "LPWA_MGR::WRITE_NODE" in text
        and "LPWA_MGR::ADMIN_NODE" not in text.split("Not allowed")[0]
    )
    assert "whose name starts with “France/”" in text
    assert "change a device&#x27;s AS routing profile" in text
    # A refusal that is no missing grant says its own reason, not an empty "Without :".
    assert "Without </b>" not in text and "Without :" not in text
    assert (
        "<b>As it has domain restrictions, and these settings reach every domain</b>:"
        " change the subscription&#x27;s settings" in text
    )
    view.reject()
    qtbot.waitUntil(lambda: window.account_view is None)


def test_without_rights_every_control_stays_as_the_pane_wants(qtbot: Any) -> None:
    """A platform that does not say: the server judges, nothing is disabled for rights."""
    holder = QWidget()
    qtbot.addWidget(holder)
    gate = RightsGate(None, holder)
    button = QPushButton("New", holder)
    button.setToolTip("Create one")
    gate.bind(button, "device.create")
    assert button.isEnabled() and button.toolTip() == "Create one"
    gate.enable(button, False)
    assert not button.isEnabled()
    # Rights that arrive later apply at once, and go with the session.
    rights = AccountRights(TaskRunner())
    gate = RightsGate(rights, holder)
    other = QPushButton("Tag", holder)
    gate.bind(other, "device.tag")
    assert other.isEnabled()
    rights.set_subscription(subscription(["x"], ["LPWA_MGR::READ_NODE"]))
    assert not other.isEnabled() and "tag" in other.toolTip()
    rights.set_client(None)
    assert other.isEnabled() and other.toolTip() == ""


def test_a_domain_outside_the_restriction_is_refused_under_domains(
    open_console: OpenConsole, qtbot: Any
) -> None:
    """The France team moves a device to Spain: the platform refuses; the form says why under
    its Domains, in words (not "domains: ..."), and keeps the domain typed."""
    console = open_console("subscriber-restricted")
    devices = loaded_devices(console, qtbot)
    devices.edit_device()
    dialog = devices.dialog
    assert dialog is not None and dialog.domains is not None
    table = dialog.domains.table
    table.item(0, 0).setText("Spain/Madrid")
    table.item(0, 1).setText("Site")
    with qtbot.waitSignal(devices.vm.save_failed, timeout=10_000) as failed:
        dialog.ok.click()
    assert failed.args[1] == "domains"
    said = dialog.domains.error.text()
    assert said == "Not allowed: outside the domains you are restricted to", said
    assert table.item(0, 0).text() == "Spain/Madrid"  # nothing typed is lost
    dialog.reject()
