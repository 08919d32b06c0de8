"""Fixtures of the widget tests: a client on the live sandbox, view-models, panes, and the whole
console signed in to the sandbox as one of its demo accounts (`open_console`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSettings
from PySide6.QtWidgets import QApplication

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.app import Console, Options, build
from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.pane_access import SUBSCRIBER, account_kind
from lpwa_console.models.profiles import MemorySecretStore, Profile
from lpwa_console.models.tasks import TaskRunner

# What the offscreen platform cannot do, and says so: propagate size hints, raise a popup (the
# filter panel, a completion list) or let it grab the keyboard. Not our bugs.
OFFSCREEN_WARNINGS = pytest.mark.qt_log_ignore(
    r"This plugin does not support (propagateSizeHints|raise|grabbing)"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(OFFSCREEN_WARNINGS)


@pytest.fixture
def client(sandbox: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any) -> Iterator[LpwaClient]:
    account = sandbox.account("subscriber")
    client = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


@pytest.fixture
def devices_vm(client: LpwaClient, qtbot: Any) -> Iterator[DevicesViewModel]:
    runner = TaskRunner()
    vm = DevicesViewModel(runner, client)
    yield vm
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


# Opens the console as this demo role ("subscriber", "subscriber-viewer"...), connected.
OpenConsole = Callable[[str], Console]


@pytest.fixture
def open_console(
    sandbox: Any, qloop: asyncio.AbstractEventLoop, qtbot: Any, tmp_path: Path
) -> Iterator[OpenConsole]:
    opened: list[Console] = []

    def open_as(role: str) -> Console:
        data = tmp_path / role
        data.mkdir()
        settings = QSettings(str(data / "settings.ini"), QSettings.Format.IniFormat)
        console = build(Options(data_dir=data), settings=settings, secrets=MemorySecretStore())
        account = sandbox.account(role)
        profile = Profile(
            name=f"Sandbox as {role}",
            subscriber_url=sandbox.base_url,
            token_url=sandbox.token_url,
            client_id=account["client_id"],
            role=account_kind(role),
        )
        console.profiles.save(profile, account["client_secret"])
        window = console.window  # closed below, after the session (not by qtbot, before it)
        window.resize(1280, 720)
        window.show()
        qtbot.waitExposed(window)
        console.session.open(profile)
        qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
        rights = window.rights
        assert rights is not None
        if account_kind(role) == SUBSCRIBER:  # the others have no subscription to read
            qtbot.waitUntil(lambda: rights.grants.known, timeout=10_000)
        opened.append(console)
        return console

    yield open_as
    for console in opened:
        for pane in console.panes.values():
            pane.close()  # their view-models stop their timers
        task = asyncio.ensure_future(console.aclose())
        qtbot.waitUntil(task.done, timeout=10_000)
        qtbot.waitUntil(lambda c=console: not c.runner.busy, timeout=10_000)
        console.window.close()
        console.window.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
