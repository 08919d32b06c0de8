"""Issue 23 §1-2 as a user meets it: after sign-in the status bar shows the fleet index
filling, then ready; "Bastille" (a word in the middle of demo names) and a DevEUI's last
digits find devices in the devices list and in Ctrl+K; before the index is ready the
palette says it searches from the start of names; a rename in the console is found at once;
removing the profile removes its index; the index holds no secret."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from lpwa_console.models.fleet_index.store import IndexStore
from lpwa_console.ui.lazy_pane import real_pane
from lpwa_console.ui.panes.devices import DevicesPane
from tests.ui.conftest import OpenConsole

CTRL = Qt.KeyboardModifier.ControlModifier


def _devices(console: Any) -> DevicesPane:
    pane = real_pane(console.window.stack.widget(0))
    assert isinstance(pane, DevicesPane)
    return pane


def _wait_ready(console: Any, qtbot: Any) -> None:
    label = console.window.fleet_index_status.label
    qtbot.waitUntil(lambda: label.text().startswith("Fleet index as of"), timeout=60_000)


def _palette_devices(console: Any, qtbot: Any, text: str) -> list[Any]:
    window = console.window
    palette = window.command_palette
    if not palette.isVisible():
        QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    palette.input.clear()
    QTest.keyClicks(palette.input, text)
    qtbot.waitUntil(
        lambda: (
            any(e.kind == "device" for e in palette.ranked()) or "Nothing" in palette.hint.text()
        ),
        timeout=10_000,
    )
    return [e for e in palette.ranked() if e.kind == "device"]


def test_any_fragment_finds_devices_in_the_list_and_the_palette(
    open_console: OpenConsole, qtbot: Any, sandbox: Any
) -> None:
    console = open_console("subscriber")
    _wait_ready(console, qtbot)
    devices = _devices(console)
    assert "IMEI or tag" in devices.search.placeholderText()

    # The list's search box: a word from the middle of names.
    QTest.keyClicks(devices.search, "Bastille")
    devices.apply_filters()
    model = devices.vm.model
    qtbot.waitUntil(lambda: model.rowCount() > 0 and model.item(0) is not None, timeout=10_000)
    names = [model.item(row).name for row in range(model.rowCount())]  # type: ignore[union-attr]
    assert names and all("bastille" in n.casefold() for n in names[:5]), names

    # Ctrl+K: the same word, then a DevEUI's last digits.
    found = _palette_devices(console, qtbot, "Bastille")
    assert found and "bastille" in found[0].title.casefold()
    eui = str(model.item(0).EUI)  # type: ignore[union-attr]
    found = _palette_devices(console, qtbot, eui[-6:].lower())
    assert found and found[0].key == eui
    QTest.keyClick(console.window.command_palette.input, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: devices.vm.detail is not None and eui == devices.vm.detail.EUI, timeout=10_000
    )

    # A base station by a fragment of its LRR ID, opened in its pane.
    index = console.fleet_index
    assert index is not None and index.path is not None
    # As shipped, the sync runs in a process of its own, signed in over its stdin.
    assert index.sync_process_id is not None
    with sqlite3.connect(index.path) as conn:
        (lrr,) = conn.execute("SELECT key FROM items WHERE kind = 'station' LIMIT 1").fetchone()
    window = console.window
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    # All of it but its first character: a fragment that names this station alone (a few
    # middle digits match dozens on the shared sandbox, past the palette's rows).
    QTest.keyClicks(window.command_palette.input, lrr[1:].lower())
    qtbot.waitUntil(
        lambda: any(e.key == lrr for e in window.command_palette.ranked()), timeout=10_000
    )
    while window.command_palette.current_entry().key != lrr:  # type: ignore[union-attr]
        QTest.keyClick(window.command_palette.input, Qt.Key.Key_Down)
    QTest.keyClick(window.command_palette.input, Qt.Key.Key_Return)
    stations = console.panes["stations"]
    qtbot.waitUntil(
        lambda: stations.vm.detail is not None and lrr == stations.vm.detail.lrrID,  # type: ignore[attr-defined]
        timeout=20_000,
    )

    # Nothing secret in the file (nor in its journal).
    secret = sandbox.account("subscriber")["client_secret"].encode()
    for path in index.path.parent.iterdir():
        assert secret not in path.read_bytes()


def test_before_the_index_is_ready_the_palette_says_so(
    open_console: OpenConsole, qtbot: Any
) -> None:
    console = open_console("subscriber")
    index = console.fleet_index
    assert index is not None and index.path is not None
    path = index.path
    profile = console.session.profile
    assert profile is not None
    # A user paused the first fill last time: the console starts with an index not ready.
    with qtbot.waitSignal(index.profile_deleted, timeout=20_000):
        index.delete_profile(profile.name)
    store = IndexStore(path)
    store.set_many({"paused": "1"})
    store.close()
    console.session.reconnect()
    status = console.window.fleet_index_status
    qtbot.waitUntil(lambda: status.button.text() == "Resume", timeout=20_000)
    assert "paused" in status.label.text()

    found = _palette_devices(console, qtbot, "Door contact")
    palette = console.window.command_palette
    assert found and all(e.title.casefold().startswith("door contact") for e in found)
    assert palette.hint.text() == (
        "Names and DevEUIs from their start: the fleet index is not ready yet"
    )
    assert not _palette_devices(console, qtbot, "Bastille")  # the platform's prefix match
    QTest.keyClick(palette.input, Qt.Key.Key_Escape)
    # The devices list says so too.
    devices = _devices(console)
    QTest.keyClicks(devices.search, "Door contact")
    devices.apply_filters()
    qtbot.waitUntil(lambda: "not ready" in devices.count_label.text(), timeout=10_000)
    devices.search.clear()
    devices.apply_filters()

    # Resumed: the fill goes on, and the fragment is found.
    status.button.click()
    _wait_ready(console, qtbot)
    found = _palette_devices(console, qtbot, "Bastille")
    assert found and "bastille" in found[0].title.casefold()


def test_the_index_follows_a_rename_made_in_the_console(
    open_console: OpenConsole, qtbot: Any
) -> None:
    console = open_console("subscriber")
    _wait_ready(console, qtbot)
    devices = _devices(console)
    qtbot.waitUntil(lambda: devices.vm.model.rowCount() > 0, timeout=10_000)
    devices.table.selectRow(0)
    qtbot.waitUntil(lambda: devices.vm.detail is not None, timeout=10_000)
    eui = devices.vm.detail.EUI  # type: ignore[union-attr]
    devices.edit_device()
    dialog = devices.dialog
    assert dialog is not None
    dialog.inputs["name"].clear()
    QTest.keyClicks(dialog.inputs["name"], "Kiosk Quillebeuf 7")
    with qtbot.waitSignal(devices.vm.saved, timeout=10_000):
        dialog.ok.click()
    found = _palette_devices(console, qtbot, "illebeu")
    assert [e.key for e in found] == [eui]
    assert found[0].title == "Kiosk Quillebeuf 7"


def test_removing_the_profile_removes_its_index(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    _wait_ready(console, qtbot)
    index = console.fleet_index
    assert index is not None and index.path is not None
    folder: Path = index.path.parent
    assert list(folder.iterdir())
    profile = console.session.profile
    assert profile is not None
    console.window.manage_profiles()
    dialog = _dialog(console)
    items = dialog.list.findItems(profile.name, Qt.MatchFlag.MatchExactly)
    dialog.list.setCurrentItem(items[0])
    with qtbot.waitSignal(index.profile_deleted, timeout=20_000):
        dialog.remove.click()
    assert not list(folder.iterdir())
    assert console.window.fleet_index_status.isHidden()
    dialog.close()


def _dialog(console: Any) -> Any:
    from lpwa_console.ui.dialogs.profiles import ProfilesDialog

    found = console.window.findChildren(ProfilesDialog)
    assert found
    return found[-1]


def test_an_operator_has_no_fleet_to_index_and_no_error_said(
    open_console: OpenConsole, qtbot: Any
) -> None:
    """The operator's account holds neither devices nor base stations: no index is started,
    so the status bar says nothing of one (it said the platform's 403 before)."""
    console = open_console("operator")
    qtbot.wait(500)  # a started sync would have said its first progress by now
    index = console.fleet_index
    assert index is not None and index.path is None
    assert console.window.fleet_index_status.isHidden()
    assert "Fleet index" not in console.window.statusBar().currentMessage()
