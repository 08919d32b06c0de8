"""Helpers shared by the Qt tests: run a coroutine on the qasync loop, make a server refusal,
grab a screenshot."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from lpwa_console.api import APIStatusError
from lpwa_console.api.errors import status_error


def run(qtbot: Any, coro: Any) -> Any:
    """Run `coro` on the test's qasync loop until done; its result."""
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=10000)
    return task.result()


def refusal(status: int, message: str, url: str = "https://platform.example/x") -> APIStatusError:
    """The error the client raises when the platform answers `status` with `message`."""
    request = httpx.Request("PUT", url)
    return status_error(
        httpx.Response(status, json={"code": 1, "message": message}, request=request)
    )


def shot(widget: Any, name: str) -> None:
    """Paint `widget` into an image; kept as `name` in $LPWA_TEST_SHOTS when that is set (to
    look at the panes a run drew), nowhere otherwise."""
    image = widget.grab()
    folder = os.environ.get("LPWA_TEST_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        image.save(str(Path(folder) / name))


def load_by_path(name: str, path: Path) -> ModuleType:
    """A module of packaging/ by its path: that folder is named like the `packaging`
    distribution, so it is never imported by name."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def newer_catalog_version() -> str:
    """A catalog version above any a test installed before, in this process or another one
    sharing the sandbox: the catalogs pane asks before an older version (issue 21), so a
    fixed or random version would depend on the order the tests ran in."""
    return str(time.time_ns())
