"""`--self-test`: sign in, open every pane the account uses, wait for its first page, and
print one JSON line of timings (bench/ scripts and packaging/build.py read its keys)."""

from __future__ import annotations

import json
import time
from typing import Any

from ..console import Console
from ..models.profiles import Profile
from ..ui.pane import pane_of
from .connecting import connect


async def first_page(console: Console, name: str) -> dict[str, Any]:
    """What the pane `name` reports once its first page is shown ({} for a placeholder)."""
    pane = pane_of(console.panes[name])
    return await pane.first_page() if pane is not None else {}


async def self_test(console: Console, profile: Profile) -> int:
    result: dict[str, Any] = {"profile": profile.name, "ok": False}
    t0 = time.perf_counter()
    try:
        console.window.show()
        await connect(console, profile)
        result["connect_total_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        if console.embedded.start_ms is not None and profile.is_embedded:
            result["sandbox_start_ms"] = round(console.embedded.start_ms, 1)
        result["connect_ms"] = round(console.session.connect_ms or 0.0, 1)
        panes: dict[str, Any] = {}
        for name in console.window.visible_keys:  # the panes this account uses
            console.window.navigation.setCurrentRow(console.window.pane_keys.index(name))
            panes[name] = await first_page(console, name)
        result["panes"] = panes
        result["ok"] = True
    except Exception as exc:
        result["error"] = str(exc) or type(exc).__name__
    result["total_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    print(json.dumps(result), flush=True)
    return 0 if result["ok"] else 1
