"""Shared fixtures: offscreen Qt, a live sandbox on a free loopback port, a qasync loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lpwa_console.sandbox import demo

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Every client in the suite reads answers strictly (api._base.STRICT_ENV): the sandbox's answers
# must have every field the seed makes required; a test of tolerant reading says so.
os.environ["LPWA_STRICT_RESPONSES"] = "1"
# Keep the real user's keyring and settings out of every test.
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"

SANDBOX_START_TIMEOUT_S = 60
# A test's waits are sized for a quiet machine; beside another suite on two busy cores they
# get this many times longer. A wait ends as soon as its condition holds, so only a test that
# fails waits the longer time.
WAIT_SCALE = float(os.environ.get("LPWA_TEST_WAIT_SCALE", "5"))


class SandboxProcess:
    """A sandbox started with the public CLI contract: `serve` prints one JSON line."""

    def __init__(self, db: Path, *extra: str) -> None:
        self.db = db
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lpwa_console.sandbox",
                "serve",
                "--db",
                str(db),
                "--port",
                "0",
                "--exit-with-stdin",  # gone with the suite, even a killed one
                *extra,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            _, err = self.process.communicate(timeout=10)
            raise RuntimeError(f"sandbox did not start: {err[-2000:]}")
        info = json.loads(line)
        self.base_url: str = info["base_url"]
        self.token_url: str = info["token_url"]
        accounts = subprocess.run(
            [sys.executable, "-m", "lpwa_console.sandbox", "accounts", "--db", str(db), "--json"],
            capture_output=True,
            text=True,
            check=True,
            timeout=SANDBOX_START_TIMEOUT_S,
        )
        self.accounts: list[dict[str, Any]] = json.loads(accounts.stdout)
        self.wait_for_history()

    def wait_for_history(self) -> None:
        """Until the demo's traffic and station history exist: a sandbox makes them just
        after it starts listening (demo.fill_history), and tests read a settled demo."""
        deadline = time.monotonic() + SANDBOX_START_TIMEOUT_S
        with contextlib.closing(sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)) as conn:
            while time.monotonic() < deadline:
                parts = {r[0] for r in conn.execute("SELECT name FROM demo_parts")}
                if {demo.HISTORY_PART, demo.HEALTH_PART, demo.KPI_PART} <= parts:
                    return
                time.sleep(0.05)
        raise RuntimeError("the sandbox did not make its demo history")

    def account(self, role: str) -> dict[str, Any]:
        return next(a for a in self.accounts if a["role"] == role)

    def stop(self) -> int:
        """Close its stdin (it leaves on EOF, as the console stops its embedded sandbox, on
        every OS and without a signal), then terminate it (SIGTERM on POSIX, on Windows
        TerminateProcess), then kill it."""
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        return self.process.returncode


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxProcess]:
    """One live sandbox for the whole session (seeded demo network). Tests that write must
    create their own records rather than rely on counts."""
    server = SandboxProcess(tmp_path_factory.mktemp("sandbox") / "sandbox.db")
    yield server
    server.stop()


@pytest.fixture
def qtbot(qtbot: Any) -> Any:
    """pytest-qt's qtbot, its waits stretched by WAIT_SCALE."""

    def stretched(wait: Any) -> Any:
        def scaled(*args: Any, **kwargs: Any) -> Any:
            kwargs["timeout"] = int(kwargs.get("timeout", 5000) * WAIT_SCALE)
            return wait(*args, **kwargs)

        return scaled

    for name in ("waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed"):
        setattr(qtbot, name, stretched(getattr(qtbot, name)))
    return qtbot


@pytest.fixture(scope="session", autouse=True)
def _collect_on_the_ui_thread(qapp: Any) -> Iterator[None]:
    """As in the console (startup.py): only the UI thread collects garbage. A worker's
    collection that frees a Qt wrapper deadlocks with the UI thread (ui/idle_gc.py): the
    suite hung so once, a fleet index's sync decoding pages while a test built panes."""
    from lpwa_console.ui.idle_gc import IdleCollector

    collector = IdleCollector(qapp)
    yield
    collector.uninstall()


@pytest.fixture(autouse=True)
def _own_settings_and_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test has its own settings and data folders: a QSettings() without a file, or a
    console without --data-dir, never reaches the user's, nor another test's beside it."""
    from PySide6.QtCore import QSettings

    home = tmp_path / "home"
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    # The street map is the default basemap: no test asks the real OpenStreetMap for tiles.
    monkeypatch.setattr(
        "lpwa_console.models.tiles.STREET_TEMPLATE", "http://127.0.0.1:9/{z}/{x}/{y}.png"
    )
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            QSettings.setPath(fmt, scope, str(home / "qsettings" / scope.name))


@pytest.fixture
def qloop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    """The console's qasync loop driven by Qt's event processing (qtbot.waitUntil /
    waitSignal)."""
    from lpwa_console.models.event_loop import ConsoleEventLoop

    loop = ConsoleEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    # Let cancelled tasks unwind before the loop goes.
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    for _ in range(20):
        if all(t.done() for t in pending):
            break
        qapp.processEvents()
    asyncio.set_event_loop(None)


@pytest.fixture(autouse=True)
def _no_loop_left_running() -> Iterator[None]:
    """A qasync loop made with already_running=True marks itself as the running loop and
    never unmarks it; a later anyio test would then refuse to start its own. Unmark it."""
    yield
    if asyncio._get_running_loop() is not None:
        asyncio.events._set_running_loop(None)


@pytest.fixture
def runner(qtbot: Any) -> Iterator[Any]:
    """A TaskRunner whose tasks are cancelled and awaited when the test ends."""
    from lpwa_console.models.tasks import TaskRunner

    runner = TaskRunner()
    yield runner
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
