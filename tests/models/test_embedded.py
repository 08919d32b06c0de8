"""The embedded sandbox as the console runs it (a real child process): a sandbox that stops
under a session is reported at once and comes back on a new address, the session following;
a slow start times out with a retry; a refused database is not retried."""

from __future__ import annotations

import os
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from lpwa_console.models.embedded import EmbeddedSandbox
from lpwa_console.models.profiles import MemorySecretStore, ProfileStore
from lpwa_console.models.session import Session
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.sandbox.db import MIGRATIONS
from lpwa_console.ui.main_window import MainWindow

START_MS = 120_000  # generous: the suite may run twice at once on two cores


@pytest.fixture
def sandbox(qapp: Any, tmp_path: Path) -> Iterator[EmbeddedSandbox]:
    embedded = EmbeddedSandbox(tmp_path / "data", restart_delays_s=(0.2, 0.4))
    yield embedded
    embedded.stop()


def _kill(sandbox: EmbeddedSandbox) -> None:
    pid = sandbox.process_id
    assert pid is not None
    os.kill(pid, signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)


def test_killed_sandbox_is_reported_and_the_session_reconnects(
    qtbot: Any, qloop: Any, tmp_path: Path, sandbox: EmbeddedSandbox
) -> None:
    runner = TaskRunner()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    profiles = ProfileStore(settings, MemorySecretStore())
    session = Session(profiles, runner, sandbox)
    window = MainWindow(session, runner, profiles, [], settings)
    qtbot.addWidget(window)
    clients: list[Any] = []
    session.client_changed.connect(clients.append)
    states: list[str] = []
    session.state_changed.connect(states.append)

    session.open(session.profiles.embedded())
    qtbot.waitUntil(lambda: session.state == "connected", timeout=START_MS)
    first = session.client
    assert first is not None and sandbox.info is not None
    first_pid = sandbox.process_id
    assert first.base_url == sandbox.info.base_url

    with qtbot.waitSignal(sandbox.failed, timeout=30_000) as failed:
        _kill(sandbox)
    message = failed.args[0]
    assert message.startswith("The embedded sandbox stopped unexpectedly (it was killed)")
    assert message.endswith("; restarting in 0.2 s") and " INFO " not in message
    # Reported at once: the session no longer says connected, the panes lost their client,
    # and the activity panel lists why.
    assert session.state == "failed" and session.message == message
    assert session.client is None and clients[-1] is None
    assert [f.message for f in runner.failures][-1:] == [message]
    assert window.state_label.text() == f"Connection failed: {message}"
    assert message in window.activity.errors.item(0).text()

    qtbot.waitUntil(lambda: session.state == "connected", timeout=START_MS)
    assert sandbox.process_id not in (None, first_pid)
    assert session.client is not None and session.client is not first
    assert sandbox.info is not None and session.client.base_url == sandbox.info.base_url
    assert clients[-1] is session.client
    assert states[-3:] == ["failed", "connecting", "connected"]
    assert window.state_label.text() == "Connected · Embedded sandbox"

    runner.run("close", session.aclose())
    qtbot.waitUntil(lambda: not runner.busy, timeout=10_000)


def test_restarts_back_off_and_stop_cancels_them(
    qtbot: Any, qloop: Any, sandbox: EmbeddedSandbox
) -> None:
    with qtbot.waitSignal(sandbox.ready, timeout=START_MS):
        sandbox.start()
    delays = []
    for attempt in range(3):
        with qtbot.waitSignal(sandbox.failed, timeout=30_000) as failed:
            _kill(sandbox)
        delays.append(failed.args[0].rsplit("restarting in ", 1)[1])
        assert sandbox.restart_pending and not sandbox.running
        if attempt < 2:
            with qtbot.waitSignal(sandbox.ready, timeout=START_MS):
                pass
    # Three stops in a row: the delay grows, then stays at the last one.
    assert delays == ["0.2 s", "0.4 s", "0.4 s"]
    sandbox.stop()
    assert not sandbox.restart_pending and not sandbox.running


def test_a_slow_start_fails_with_a_clear_message_and_a_retry(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    sandbox = EmbeddedSandbox(tmp_path, start_timeout_ms=300, restart_delays_s=(30,))
    try:
        with qtbot.waitSignal(sandbox.failed, timeout=30_000) as failed:
            sandbox.start()
        assert failed.args == [
            "The embedded sandbox did not start within 0.3 s; restarting in 30 s"
        ]
        assert sandbox.restart_pending and not sandbox.running and sandbox.info is None
    finally:
        sandbox.stop()
    assert not sandbox.restart_pending


def test_a_refused_database_is_reported_and_not_retried(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    sandbox = EmbeddedSandbox(tmp_path, restart_delays_s=(0.1,))
    conn = sqlite3.connect(sandbox.db_path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.close()
    try:
        with qtbot.waitSignal(sandbox.failed, timeout=START_MS) as failed:
            sandbox.start()
        message = failed.args[0]
        assert message.startswith("The embedded sandbox refused to start: The database")
        assert "newer version of the sandbox" in message and "restarting" not in message
        assert not sandbox.restart_pending
    finally:
        sandbox.stop()
