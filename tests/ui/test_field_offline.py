"""Field mode as a user works it (issue 23 §3): take a box of Lyon offline, start with the
platform unreachable, browse and edit offline (a device's name and position, a base
station's location), see an action disabled with the reason, restart, reconnect, and see
every outcome, a conflict with both values and the choice applied; nothing is sent twice."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSettings
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QLineEdit, QPushButton

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.app import Console, Options, build
from lpwa_console.models.pane_access import account_kind
from lpwa_console.models.profiles import MemorySecretStore, Profile
from lpwa_console.models.tiles import TileKey
from lpwa_console.ui.dialogs.device_form import DeviceFormDialog
from lpwa_console.ui.dialogs.field_offline import OfflineEditsDialog, TakeOfflineDialog
from lpwa_console.ui.panes.device_map import DeviceMapPane
from lpwa_console.ui.panes.devices import DevicesPane
from lpwa_console.ui.panes.stations import StationsPane
from tests.tile_fixtures import png, tile_server

# A small box of Lyon around demo devices (Croix-Rousse, Confluence).
BOX = ("45.69", "4.79", "45.72", "4.81")
# Around one of the seed's base stations in Lyon (LRR 10000004, LRR software).
STATION_BOX = ("45.715", "4.785", "45.725", "4.795")
DEAD = "http://127.0.0.1:9/thingpark/wireless/rest"


class AnyTile(dict[TileKey, bytes]):
    """Every tile asked for: a rendered test tile (the street map of this machine)."""

    def __missing__(self, key: TileKey) -> bytes:
        return png((230, 226, 218), 16)


@pytest.fixture
def street_map() -> Iterator[str]:
    with tile_server(AnyTile()) as server:
        yield server.template


Open = Callable[..., Console]


@pytest.fixture
def consoles(
    sandbox: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, tmp_path: Path
) -> Iterator[Open]:
    """Opens the console on one data folder, as the sandbox's subscriber, the platform
    reachable or not (`reachable=False`: its address is a closed port); the one opened
    before is closed first (a restart)."""
    opened: list[Console] = []
    data = tmp_path / "data"
    data.mkdir()
    account = sandbox.account("subscriber")

    def close(console: Console) -> None:
        for pane in console.panes.values():
            pane.close()
        task = asyncio.ensure_future(console.aclose())
        qtbot.waitUntil(task.done, timeout=10_000)
        qtbot.waitUntil(lambda: not console.runner.busy, timeout=10_000)
        console.window.close()
        console.window.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    def open_console(*, reachable: bool = True) -> Console:
        if opened:
            close(opened.pop())
        settings = QSettings(str(data / "settings.ini"), QSettings.Format.IniFormat)
        console = build(Options(data_dir=data), settings=settings, secrets=MemorySecretStore())
        profile = Profile(
            name="Acme field laptop",
            subscriber_url=sandbox.base_url if reachable else DEAD,
            token_url=sandbox.token_url if reachable else DEAD + "/token",
            client_id=account["client_id"],
            role=account_kind("subscriber"),
        )
        console.profiles.save(profile, account["client_secret"])
        console.window.resize(1280, 720)
        console.window.show()
        qtbot.waitExposed(console.window)
        console.session.open(profile)
        qtbot.waitUntil(lambda: console.session.state in ("connected", "failed"), timeout=20_000)
        opened.append(console)
        return console

    yield open_console
    for console in opened:
        close(console)


def platform(sandbox: Any) -> LpwaClient:
    account = sandbox.account("subscriber")
    return LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )


def run(qtbot: Any, coro: Any) -> Any:
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=20_000)
    return task.result()


def take_box_offline(
    console: Console, qtbot: Any, street_map: str, box: tuple[str, ...] = BOX
) -> TakeOfflineDialog:
    console.settings.setValue("map/street_url", street_map)
    console.window.take_offline_action.trigger()
    dialog = console.window.findChild(TakeOfflineDialog)
    assert dialog is not None
    for edit, value in zip(dialog.box_inputs, box, strict=True):
        edit.setText(value)
    dialog.size_button.click()
    qtbot.waitUntil(lambda: "MB" in dialog.size_label.text(), timeout=20_000)
    # The size before it starts: items and tiles, in megabytes.
    assert "devices" in dialog.size_label.text() and "map tiles" in dialog.size_label.text()
    dialog.start_button.click()
    qtbot.waitUntil(lambda: "Taken offline" in dialog.size_label.text(), timeout=60_000)
    return dialog


def devices_pane(console: Console, qtbot: Any) -> DevicesPane:
    pane = console.panes["devices"]
    assert isinstance(pane, DevicesPane)
    qtbot.waitUntil(lambda: pane.vm.model.rowCount() > 0, timeout=10_000)
    return pane


def select(pane: DevicesPane, qtbot: Any, row: int) -> Any:
    qtbot.waitUntil(lambda: pane.vm.model.item(row) is not None, timeout=10_000)
    pane.table.selectRow(row)
    item = pane.vm.model.item(row)
    assert item is not None
    qtbot.waitUntil(
        lambda: pane.vm.detail is not None and pane.vm.detail.EUI == item.EUI, timeout=10_000
    )
    return pane.vm.detail


def edit_offline(pane: DevicesPane, qtbot: Any, name: str, where: tuple[str, str] | None) -> None:
    pane.edit_button.click()
    dialog = pane.dialog
    assert isinstance(dialog, DeviceFormDialog)
    dialog.inputs["name"].clear()
    qtbot.keyClicks(dialog.inputs["name"], name)
    if where is not None:
        for field, value in zip(("adminLat", "adminLon"), where, strict=True):
            dialog.inputs[field].clear()
            qtbot.keyClicks(dialog.inputs[field], value)
    with qtbot.waitSignal(pane.vm.saved, timeout=10_000):
        dialog.ok.click()


def queue_dialog(console: Console) -> OfflineEditsDialog:
    console.window.offline_edits_action.trigger()
    dialog = console.window.findChild(OfflineEditsDialog)
    assert dialog is not None
    return dialog


def rows(dialog: OfflineEditsDialog) -> list[list[str]]:
    table = dialog.table
    return [
        [table.item(r, c).text() for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]


def test_take_offline_work_offline_and_sync_back(
    consoles: Open, sandbox: Any, qtbot: Any, street_map: str
) -> None:
    console = consoles()
    assert console.session.state == "connected"
    take_box_offline(console, qtbot, street_map)

    # Without a connection the console starts on the snapshot.
    console = consoles(reachable=False)
    assert console.session.state == "connected"
    status = console.window.state_label.text()
    assert status.startswith("Offline, data as of "), status
    pane = devices_pane(console, qtbot)
    assert pane.vm.model.rowCount() >= 2
    first = select(pane, qtbot, 0)
    second = select(pane, qtbot, 1)
    # An action that needs the platform is disabled, and says why; an edit is not.
    assert not pane.new_button.isEnabled()
    assert "needs a connection to the platform" in pane.new_button.toolTip()
    assert pane.new_button.toolTip().startswith("Offline, data as of ")
    assert pane.edit_button.isEnabled()
    # The map draws the street map tiles of the snapshot.
    console.window.navigator.open("map")
    map_pane = console.panes["map"]
    assert isinstance(map_pane, DeviceMapPane) and map_pane.tiles_vm is not None
    qtbot.waitUntil(lambda: "offline snapshot" in map_pane.tiles_vm.status, timeout=10_000)
    console.window.navigator.open("devices")

    # Edit the position and the name of one device, the name of another, offline.
    select(pane, qtbot, 0)
    edit_offline(pane, qtbot, "Door contact moved by the installer", ("45.70011", "4.80022"))
    qtbot.waitUntil(
        lambda: pane.vm.detail is not None and pane.vm.detail.name.startswith("Door contact moved"),
        timeout=10_000,
    )
    assert pane.vm.detail is not None and pane.vm.detail.adminLat == pytest.approx(45.70011)
    select(pane, qtbot, 1)
    edit_offline(pane, qtbot, "Renamed offline", None)
    edits = queue_dialog(console)
    assert [r[3] for r in rows(edits)] == ["Waiting for a connection"] * 2
    assert "Sent when the connection is back" in edits.summary.text()
    assert not edits.send_button.isEnabled()

    # Meanwhile, someone renames the second device on the platform: a conflict.
    client = platform(sandbox)
    from lpwa_console.schema.devices import DeviceUpdate

    run(qtbot, client.devices.update(second.path_ref, DeviceUpdate(name="Renamed at the office")))

    # The queue survives a restart (still offline).
    console = consoles(reachable=False)
    edits = queue_dialog(console)
    assert len(rows(edits)) == 2

    # Back online: sent in order, each outcome shown.
    console = consoles()
    assert console.session.state == "connected"
    assert not console.window.state_label.text().startswith("Offline")
    edits = queue_dialog(console)
    qtbot.waitUntil(
        lambda: [r[3] for r in rows(edits)] == ["Sent", "Conflict: choose a value"], timeout=20_000
    )
    assert rows(edits)[0][4] == "Sent"
    after = run(qtbot, client.devices.get(first.path_ref))
    assert after.name == "Door contact moved by the installer"
    assert after.adminLat == pytest.approx(45.70011) and after.adminLon == pytest.approx(4.80022)
    # The conflict shows both values; nothing was overwritten.
    edits.table.selectRow(1)
    text = edits.conflict.text()
    assert "On the platform: name: Renamed at the office" in text
    assert "Yours (made offline): name: Renamed offline" in text
    assert run(qtbot, client.devices.get(second.path_ref)).name == "Renamed at the office"
    # The user keeps theirs: sent now.
    edits.mine_button.click()
    qtbot.waitUntil(lambda: rows(edits)[1][3] == "Sent", timeout=20_000)
    assert run(qtbot, client.devices.get(second.path_ref)).name == "Renamed offline"

    # Nothing is sent twice: another start finds every edit settled.
    console = consoles()
    edits = queue_dialog(console)
    assert [r[3] for r in rows(edits)] == ["Sent", "Sent"]
    assert "0 waiting" in edits.summary.text() and not edits.send_button.isEnabled()
    run(qtbot, client.aclose())


def test_a_station_located_offline_is_queued_shown_and_sent_once(
    consoles: Open, sandbox: Any, qtbot: Any, street_map: str
) -> None:
    console = consoles()
    take_box_offline(console, qtbot, street_map, STATION_BOX)
    console = consoles(reachable=False)
    console.window.navigator.open("stations")
    pane = console.panes["stations"]
    assert isinstance(pane, StationsPane)
    qtbot.waitUntil(lambda: pane.vm.model.rowCount() > 0, timeout=10_000)
    row = next(
        r for r in range(pane.vm.model.rowCount()) if pane.vm.model.item(r).lrrID == "10000004"
    )
    pane.table.selectRow(row)
    qtbot.waitUntil(lambda: pane.vm.detail is not None, timeout=10_000)
    station = pane.vm.detail
    assert station is not None and station.lrrID == "10000004"
    # The detail's "Send command…" opens the location update: the one command queued offline.
    send = pane.detail.send_button
    assert send.isEnabled()
    send.click()
    dialog = pane.command_dialog
    picker = dialog.findChild(QComboBox, "commandPicker")
    assert picker.currentData() == "updateLocation"
    dialog.findChild(QComboBox, "locationType").setCurrentIndex(1)  # typed here
    qtbot.keyClicks(dialog.findChild(QLineEdit, "adminLat"), "45.72201")
    qtbot.keyClicks(dialog.findChild(QLineEdit, "adminLon"), "4.79022")
    button = dialog.findChild(QPushButton, "sendCommand")
    assert button.isEnabled()
    button.click()
    line = dialog.findChild(QLabel, "runLine")
    qtbot.waitUntil(lambda: "Queued offline" in line.text(), timeout=10_000)
    assert "sent when the connection is back" in line.text()
    dialog.close()
    # The station reads at its new place at once (its detail, its row).
    qtbot.waitUntil(
        lambda: pane.vm.detail is not None and pane.vm.detail.lastGeoLat == 45.72201,
        timeout=10_000,
    )
    assert pane.vm.detail is not None and pane.vm.detail.lastGeoLon == 4.79022
    # Another command needs the platform: disabled, with the reason.
    reboot = pane.gate.check("station.command")
    assert not reboot.allowed and "needs a connection to the platform" in reboot.reason
    edits = queue_dialog(console)
    (_seq, item, change, state, _outcome) = rows(edits)[0]
    assert item.endswith("(10000004)") and state == "Waiting for a connection"
    assert change == "position: 45.722010, 4.790220", change

    # Back online: re-read, at the snapshot's position still, so the command is sent once.
    client = platform(sandbox)
    console = consoles()
    edits = queue_dialog(console)
    qtbot.waitUntil(lambda: [r[3] for r in rows(edits)] == ["Sent"], timeout=20_000)
    status = run(qtbot, client.station_admin.last_command_status(station.path_ref))
    assert status.lastCmdType == "LOCATION_ADMIN"
    sent_at = status.lastCmdRequestDate
    # Another start: nothing waits, nothing is sent again.
    console = consoles()
    edits = queue_dialog(console)
    assert [r[3] for r in rows(edits)] == ["Sent"]
    again = run(qtbot, client.station_admin.last_command_status(station.path_ref))
    assert again.lastCmdRequestDate == sent_at
    run(qtbot, client.aclose())
