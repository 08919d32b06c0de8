"""The whole console (the composition root's `build`) signed in to the live sandbox as one of
its demo accounts, through a connection profile as a user would make one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSettings
from PySide6.QtWidgets import QApplication

from lpwa_console.app import Console, Options, build
from lpwa_console.models.profiles import MemorySecretStore, Profile

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
