"""Fixtures of the widget tests: a client on the live sandbox, view-models, panes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.devices import DevicesViewModel
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
