"""Waiting for the session: what every diagnostic does before it looks at a pane."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QSettings

from ..console import Console
from ..models.profiles import Profile
from ..ui.first_page import wait_signal

CONNECT_TIMEOUT_S = 90.0


async def connect(console: Console, profile: Profile) -> None:
    """Open the profile and wait until connected; raise with the reason when it fails."""
    waiter = asyncio.ensure_future(wait_signal(console.session.state_changed, CONNECT_TIMEOUT_S))
    console.session.open(profile)
    while True:
        (state,) = await waiter
        if state == "connected":
            return
        if state == "failed":
            raise RuntimeError(console.session.message)
        waiter = asyncio.ensure_future(
            wait_signal(console.session.state_changed, CONNECT_TIMEOUT_S)
        )


async def connect_opened(console: Console) -> None:
    """Wait until the session opened already is connected; raise with the reason if not."""
    while console.session.state != "connected":
        if console.session.state == "failed":
            raise RuntimeError(console.session.message)
        await wait_signal(console.session.state_changed, CONNECT_TIMEOUT_S)


def scratch_settings(source: QSettings, folder: Path) -> QSettings:
    """A copy of `source` in `folder`: a self-test or screenshot run starts from what the
    user has (profiles, the pane last shown) and writes nothing back into it."""
    copy = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    for key in source.allKeys():
        copy.setValue(key, source.value(key))
    return copy
