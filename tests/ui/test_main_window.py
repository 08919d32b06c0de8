"""The main window builds, shows its panes, remembers its geometry; the self-test runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QWidget

from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.profiles import MemorySecretStore, ProfileStore
from lpwa_console.models.session import Session
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.main_window import MainWindow
from lpwa_console.ui.panes.devices import DevicesPane


def make_window(qtbot: Any, tmp_path: Path) -> tuple[MainWindow, QSettings]:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    runner = TaskRunner()
    profiles = ProfileStore(settings, MemorySecretStore())
    session = Session(profiles, runner, None)
    pane = DevicesPane(DevicesViewModel(runner))
    window = MainWindow(session, runner, profiles, [pane], settings)
    qtbot.addWidget(window)
    return window, settings


def test_main_window_builds(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window, _settings = make_window(qtbot, tmp_path)
    window.resize(700, 500)
    window.show()
    assert window.navigation.count() == 1
    assert window.navigation.item(0).text() == "Devices"
    pane = window.current_pane()
    assert isinstance(pane, DevicesPane)
    assert pane.empty.text() == "Not connected"
    assert window.state_label.text() == "Disconnected"
    # An embedded profile without a sandbox fails with a reason in the status bar.
    window.session.open(window.profiles.embedded())
    qtbot.waitUntil(lambda: window.session.state == "failed", timeout=3000)
    assert "Connection failed" in window.state_label.text()
    assert window.activity.errors.count() == 1
    window.close()
    again, _ = make_window(qtbot, tmp_path)
    assert again.size().width() == 700


def test_self_test_subprocess(tmp_path: Path) -> None:
    """As on a run after the first: the window reopens on the network pane, which must load
    the lists (not say "No network contexts yet"); the user's settings stay as they were."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("window/pane_title", "Network")
    settings.sync()
    before = (tmp_path / "settings.ini").read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "lpwa_console", "--self-test", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["ok"] is True
    assert report["panes"]["devices"]["rows"] > 0
    assert report["panes"]["devices"]["first_page_ms"] > 0
    assert "sandbox_start_ms" in report
    # The run is logged beside its data, without the demo accounts' secrets.
    log_text = (tmp_path / "logs" / "console.log").read_text(encoding="utf-8")
    assert "embedded sandbox ready" in log_text
    accounts = subprocess.run(
        [sys.executable, "-m", "lpwa_console.sandbox", "accounts", "--json", "--db",
         str(tmp_path / "sandbox.db")],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    for account in json.loads(accounts.stdout):
        assert account["client_secret"] not in log_text
    assert report["panes"]["network"]["network_contexts"]["rows"] > 0
    assert (tmp_path / "settings.ini").read_bytes() == before


def window_of_panes(qtbot: Any, folder: Path, *names: str) -> MainWindow:
    """A window over empty panes named `names`, its settings in `folder`."""
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    runner = TaskRunner()
    profiles = ProfileStore(settings, MemorySecretStore())
    panes = []
    for name in names:
        pane = QWidget()
        pane.setObjectName(name)
        panes.append(pane)
    window = MainWindow(Session(profiles, runner, None), runner, profiles, panes, settings)
    qtbot.addWidget(window)
    return window


def test_the_last_pane_is_remembered_by_title(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    """A version that adds a pane before it must still open on the same pane."""

    def window_with(*names: str) -> MainWindow:
        return window_of_panes(qtbot, tmp_path, *names)

    first = window_with("Devices", "Alarms")
    first.navigation.setCurrentRow(1)
    first.close()
    second = window_with("Devices", "Map", "Alarms")
    second.restore_layout()
    assert second.navigation.currentItem().text() == "Alarms"


def test_a_picked_pane_is_remembered_without_a_clean_quit(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    """A laptop whose battery dies: the window never closes, the next start opens the pane
    its user picked last."""

    def window_with(*names: str) -> MainWindow:
        return window_of_panes(qtbot, tmp_path, *names)

    first = window_with("Devices", "Map", "Alarms")
    qtbot.mouseClick(
        first.navigation.viewport(),
        Qt.MouseButton.LeftButton,
        pos=first.navigation.visualItemRect(first.navigation.item(2)).center(),
    )
    assert first.navigation.currentItem().text() == "Alarms"
    first.settings.sync()  # what Qt's event loop does shortly after; no closeEvent here
    second = window_with("Devices", "Map", "Alarms")
    assert second.navigation.currentItem().text() == "Alarms"
