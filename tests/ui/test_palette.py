"""The command palette: Ctrl+K, jump to a pane, run an action (or be told why not), find a
device on the server by name, DevEUI or IMEI; keyboard-driven. On the live sandbox."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from lpwa_console.api import LpwaClient
from lpwa_console.models.palette import DeviceSearchViewModel, PaletteEntry
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.panes.devices import DevicesPane
from tests.ui.conftest import OpenConsole

CTRL = Qt.KeyboardModifier.ControlModifier


def test_device_search_asks_the_server_once_typing_pauses(
    client: LpwaClient, runner: TaskRunner, qtbot: Any
) -> None:
    search = DeviceSearchViewModel(runner, client, debounce_ms=80)
    for text in ("w", "wa", "wat", "Water"):
        search.search(text)
    with qtbot.waitSignal(search.results_changed, timeout=10_000) as got:
        pass
    results: list[PaletteEntry] = got.args[0]
    assert search.searches == 1  # one request for the four keystrokes
    assert results and all(e.kind == "device" for e in results)
    assert all(e.title.lower().startswith("water") for e in results)
    # By DevEUI prefix: the same search box.
    eui = results[0].key
    search.search(eui)
    qtbot.waitUntil(lambda: not search.searching, timeout=10_000)
    assert [e.key for e in search.results] == [eui]
    # An IMEI: a cellular device, found by the IMEI it is known by.
    search.search("35000000000001")
    qtbot.waitUntil(lambda: not search.searching, timeout=10_000)
    assert search.results and search.results[0].detail.startswith("Device · IMEI")
    search.search("")
    assert search.results == [] and not search.searching


def test_a_failed_device_search_says_why_and_shows_nothing(qloop: Any, qtbot: Any) -> None:
    """Fault injection: the server answers 503 to the search."""

    def platform(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json={"message": "Service unavailable"})

    http = httpx.AsyncClient(transport=httpx.MockTransport(platform))
    runner = TaskRunner()
    search = DeviceSearchViewModel(
        runner, LpwaClient("https://platform.test/rest", None, http=http), debounce_ms=10
    )
    with qtbot.waitSignal(search.failed, timeout=10_000) as got:
        search.search("Water")
    assert got.args[0]  # a message for the user
    assert search.results == [] and not search.searching
    closed = asyncio.ensure_future(http.aclose())
    qtbot.waitUntil(closed.done, timeout=5000)


def test_the_palette_jumps_runs_and_finds(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    window = console.window
    palette = window.command_palette
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    assert palette.isVisible() and palette.input.hasFocus()
    # Everything is offered before anything is typed: panes first.
    # the panes this account sees (models/pane_access.py)
    panes = [console.panes[k].title for k in console.window.visible_keys]  # type: ignore[attr-defined]
    assert [e.title for e in palette.ranked()[: len(panes)]] == panes
    QTest.keyClicks(palette.input, "alar")
    assert palette.current_entry() == PaletteEntry(
        "pane", "Alarms", "alarms", detail="Ctrl+3", keywords="pane go"
    )
    QTest.keyClick(palette.input, Qt.Key.Key_Return)
    assert not palette.isVisible()
    assert window.pane_keys[window.navigation.currentRow()] == "alarms"
    # An action, chosen with the arrow keys.
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    QTest.keyClicks(palette.input, "keyboard shortcuts")
    QTest.keyClick(palette.input, Qt.Key.Key_Down)
    QTest.keyClick(palette.input, Qt.Key.Key_Up)
    assert palette.current_entry() is not None
    assert palette.current_entry().title == "Keyboard shortcuts"  # type: ignore[union-attr]
    QTest.keyClick(palette.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.findChild(object, "shortcutsDialog") is not None)
    window.findChild(object, "shortcutsDialog").close()  # type: ignore[union-attr]
    # A device, by its name, from the server, while on another pane.
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    QTest.keyClicks(palette.input, "door contact 0002")
    qtbot.waitUntil(lambda: any(e.kind == "device" for e in palette.ranked()), timeout=10_000)
    entry = palette.current_entry()
    assert entry is not None and entry.kind == "device"
    assert entry.title.lower().startswith("door contact 0002")
    QTest.keyClick(palette.input, Qt.Key.Key_Return)
    devices = console.panes["devices"]
    assert isinstance(devices, DevicesPane)
    assert window.pane_keys[window.navigation.currentRow()] == "devices"
    qtbot.waitUntil(
        lambda: devices.vm.detail is not None and entry.key == devices.vm.detail.EUI,
        timeout=10_000,
    )
    # Esc closes, and the way back returns to the alarms.
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    QTest.keyClick(palette.input, Qt.Key.Key_Escape)
    assert not palette.isVisible()
    window.back_action.trigger()
    assert window.pane_keys[window.navigation.currentRow()] == "alarms"


def test_a_refused_action_says_why_and_stays(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber-viewer")
    window = console.window
    palette = window.command_palette
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    QTest.keyClicks(palette.input, "new device")
    entry = palette.current_entry()
    assert entry is not None and entry.title == "New device" and not entry.enabled
    QTest.keyClick(palette.input, Qt.Key.Key_Return)
    assert palette.isVisible()
    assert palette.hint.text().startswith("Your account may not create devices")
    devices = console.panes["devices"]
    assert isinstance(devices, DevicesPane)
    assert devices.dialog is None
