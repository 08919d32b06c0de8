"""`--screenshot DIR [--size WxH]`: a PNG of every pane the account uses, light and dark,
each once the pane has what it asked for (a list's first item shown in its detail)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from ..console import Console
from ..models.profiles import Profile
from ..ui.pane import pane_of
from ..ui.theme import apply_theme
from .connecting import connect

SETTLE_TIMEOUT_S = 5.0  # a screenshot waits this long at most for its pane's answers
DEFAULT_SIZE = (1400, 820)


async def screenshots(
    console: Console,
    profile: Profile,
    directory: Path,
    size: tuple[int, int] | None = None,
) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    window = console.window
    window.resize(*(size or DEFAULT_SIZE))
    window.show()
    try:
        await connect(console, profile)
        for name in window.visible_keys:  # the panes this account uses
            window.navigation.setCurrentRow(window.pane_keys.index(name))
            pane = pane_of(console.panes[name])
            if pane is not None:
                await pane.show_first_item()
            await settled(console, SETTLE_TIMEOUT_S)
            for theme in ("light", "dark"):
                apply_theme(app, theme)
                await asyncio.sleep(0.05)
                path = directory / f"{name}-{theme}.png"
                window.grab().save(str(path))
                print(path, flush=True)
    except Exception as exc:
        print(f"lpwa-console: screenshot failed: {exc}", file=sys.stderr)
        return 1
    return 0


async def settled(console: Console, at_most_s: float) -> None:
    """Until the pane shown has what it asked for (no task running), or `at_most_s`."""
    deadline = time.perf_counter() + at_most_s
    await asyncio.sleep(0.05)
    while console.runner.busy and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.05)  # the answers painted
