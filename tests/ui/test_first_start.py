"""The first start says what it is doing (issue 8): a real embedded sandbox started on a new
data folder reports its phases, the session turns them into words, and the status bar and the
panes' empty states show them in order; `--size` sets the window of `--screenshot`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QTableView, QVBoxLayout

from lpwa_console.diagnostics.screenshots import screenshots
from lpwa_console.models.embedded import EmbeddedSandbox
from lpwa_console.models.profiles import MemorySecretStore, ProfileStore
from lpwa_console.models.session import Session
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.options import parse_args
from lpwa_console.ui.main_window import MainWindow
from lpwa_console.ui.pane import Pane
from lpwa_console.ui.theme import apply_theme
from lpwa_console.ui.widgets.pane_parts import TableOrEmpty

from .conftest import OpenConsole

START_MS = 120_000  # generous: the suite may run twice at once on two cores


class OfflinePane(Pane):
    """A pane as the real ones are without a client: its table replaced by "Not connected"."""

    title = "Things"

    def __init__(self) -> None:
        super().__init__()
        self.stack = TableOrEmpty(QTableView())
        QVBoxLayout(self).addWidget(self.stack)
        self.stack.show_empty("Not connected")

    def refresh(self) -> None:
        pass


def start_console(qtbot: Any, data: Path) -> tuple[Session, MainWindow, OfflinePane, list[str]]:
    """A session on the embedded sandbox of `data`, opened; what the status bar and the
    pane said at each step is recorded."""
    sandbox = EmbeddedSandbox(data)
    runner = TaskRunner()
    settings = QSettings(str(data.parent / f"{data.name}.ini"), QSettings.Format.IniFormat)
    profiles = ProfileStore(settings, MemorySecretStore())
    session = Session(profiles, runner, sandbox)
    pane = OfflinePane()
    window = MainWindow(session, runner, profiles, [pane], settings)
    qtbot.addWidget(window)
    seen: list[str] = []

    def record(_: object = None) -> None:  # connected after the window's own slots
        said = f"{window.state_label.text()} | {pane.stack.empty.text()}"
        if not seen or seen[-1] != said:
            seen.append(said)

    session.progress_changed.connect(record)
    session.state_changed.connect(record)
    session.open(profiles.embedded())
    qtbot.waitUntil(lambda: session.state in ("connected", "failed"), timeout=START_MS)
    assert session.state == "connected", session.message
    return session, window, pane, seen


def close(qtbot: Any, session: Session) -> None:
    task = asyncio.ensure_future(session.aclose())
    qtbot.waitUntil(task.done, timeout=10_000)
    assert session.embedded is not None
    session.embedded.stop()


def test_a_new_data_folder_shows_each_step_in_order(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    session, window, pane, seen = start_console(qtbot, tmp_path / "data")
    profile = "Embedded sandbox"
    assert seen == [
        f"Starting the local sandbox… · {profile} | Starting the local sandbox…",
        f"Creating the demo network… · {profile} | Creating the demo network…",
        f"Signing in… · {profile} | Signing in…",
        f"Connected · {profile} | Not connected",
    ]
    # The panes' own words again once the step is over (this pane has no client).
    assert pane.stack.empty.text() == "Not connected"
    window.show_progress("Loading devices…")
    assert window.state_label.text() == f"Loading devices… · {profile}"
    assert pane.stack.empty.text() == "Not connected"  # connected: not an offline wait
    window.show_progress("")
    assert window.state_label.text() == f"Connected · {profile}"
    close(qtbot, session)


def test_a_data_folder_with_its_database_skips_the_demo_step(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    first, *_ = start_console(qtbot, data)
    close(qtbot, first)

    session, _window, _pane, seen = start_console(qtbot, data)
    assert [said.split(" | ")[0] for said in seen] == [
        "Starting the local sandbox… · Embedded sandbox",
        "Signing in… · Embedded sandbox",
        "Connected · Embedded sandbox",
    ]
    close(qtbot, session)


def test_the_sandbox_reports_phases_and_accounts_on_stdout(tmp_path: Path) -> None:
    """The lines the console reads, from the real CLI: the demo phase of a new database,
    then the ready line holding the accounts (no second process to read them)."""
    import subprocess
    import sys

    db = tmp_path / "sandbox.db"
    command = [sys.executable, "-m", "lpwa_console.sandbox", "serve", "--db", str(db)]
    command += ["--seed", "20", "--phases", "--with-accounts", "--exit-with-stdin"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        phase = json.loads(process.stdout.readline())
        ready = json.loads(process.stdout.readline())
    finally:
        process.stdin.close()
        process.wait(30)
    assert phase == {"phase": "demo"}
    assert ready["base_url"].startswith("http://127.0.0.1:")
    roles = {account["role"] for account in ready["accounts"]}
    assert "subscriber" in roles
    assert all(account["client_secret"] for account in ready["accounts"])


# --- --size ---------------------------------------------------------------------------------


def test_size_is_parsed_with_screenshot(tmp_path: Path) -> None:
    options = parse_args(["--screenshot", str(tmp_path), "--size", "1280x720"])
    assert options.size == (1280, 720)
    assert parse_args(["--screenshot", str(tmp_path)]).size is None


@pytest.mark.parametrize("text", ["1280", "1280x", "wide", "10x10", "1280x720x2", "99999x720"])
def test_a_size_that_is_not_one_is_refused(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--screenshot", str(tmp_path), "--size", text])
    assert exit_.value.code == 2
    assert "--size" in capsys.readouterr().err


def test_size_without_screenshot_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--size", "1280x720"])
    assert "--size goes with --screenshot" in capsys.readouterr().err


def test_screenshots_have_the_size_asked(
    open_console: OpenConsole, qtbot: Any, tmp_path: Path
) -> None:
    console = open_console("subscriber")
    profile = console.session.profile
    assert profile is not None
    out = tmp_path / "shots"
    task = asyncio.ensure_future(screenshots(console, profile, out, (1280, 720)))
    try:
        qtbot.waitUntil(task.done, timeout=60_000)
    finally:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        apply_theme(app, "light")
    assert task.result() == 0
    shots = sorted(out.glob("*.png"))
    assert {p.name for p in shots} >= {"devices-light.png", "devices-dark.png"}
    for path in shots:
        image = QImage(str(path))
        ratio = image.devicePixelRatio()
        assert (round(image.width() / ratio), round(image.height() / ratio)) == (1280, 720)


def test_the_devices_pane_says_loading_until_its_first_page(
    devices_vm: Any, client: Any, qtbot: Any
) -> None:
    from lpwa_console.models.device_detail import DeviceDetailViewModel
    from lpwa_console.ui.panes.devices import DevicesPane

    devices_vm.set_client(None)
    pane = DevicesPane(devices_vm, detail_vm=DeviceDetailViewModel(devices_vm.runner))
    qtbot.addWidget(pane)
    assert pane.stack.empty.text() == "Not connected"
    devices_vm.set_client(client)
    assert pane.stack.empty.text() == "Loading devices…"
    qtbot.waitUntil(lambda: pane.stack.currentWidget() is pane.table, timeout=20_000)
    assert devices_vm.model.rowCount() > 0
    # Reloading a list already shown keeps its table: no "Loading devices…" over it.
    pane.refresh()
    assert pane.stack.currentWidget() is pane.table
