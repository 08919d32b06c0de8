"""The task runner: running list, success, typed failures, cancel."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from lpwa_console.api import ConflictError
from lpwa_console.models.tasks import TaskRunner


async def value(x: int, delay: float = 0.0) -> int:
    await asyncio.sleep(delay)
    return x


async def conflict() -> None:
    response = httpx.Response(409, request=httpx.Request("POST", "http://x/devices"))
    raise ConflictError("A device with this EUI already exists", response=response, code=409)


def test_runs_and_reports(qtbot: Any, qloop: Any) -> None:
    runner = TaskRunner()
    results: list[int] = []
    with qtbot.waitSignals([runner.started, runner.finished], timeout=2000):
        runner.run("add", value(3), on_done=results.append)
    qtbot.waitUntil(lambda: results == [3], timeout=2000)
    assert not runner.busy and runner.failures == []


def test_failure_message_from_typed_error(qtbot: Any, qloop: Any) -> None:
    runner = TaskRunner()
    errors: list[str] = []
    with qtbot.waitSignal(runner.failed, timeout=2000) as failed:
        runner.run("create", conflict(), on_error=lambda _e, m: errors.append(m))
    assert failed.args[1:] == ["create", "A device with this EUI already exists"]
    assert errors == ["A device with this EUI already exists"]
    assert [f.name for f in runner.failures] == ["create"]


def test_cancel_and_running_list(qtbot: Any, qloop: Any) -> None:
    runner = TaskRunner()
    busy: list[bool] = []
    runner.busy_changed.connect(busy.append)
    task_id = runner.run("slow", value(1, delay=10))
    assert [t.name for t in runner.running] == ["slow"]
    with qtbot.waitSignal(runner.finished, timeout=2000):
        assert runner.cancel(task_id)
    assert runner.running == [] and busy == [True, False]
    assert runner.failures == []


def test_validation_errors_are_summarised() -> None:
    from pydantic import ValidationError

    from lpwa_console.models.errors import user_message
    from lpwa_console.schema.devices import DeviceCreate

    try:
        DeviceCreate.model_validate({"EUI": "zz", "nwAddress": "1", "appSKey": "2"})
    except ValidationError as exc:
        message = user_message(exc)
    assert "EUI: 'z' is not a hexadecimal digit (0-9, A-F)" in message
    assert "\n" not in message and "errors.pydantic.dev" not in message


def test_a_task_asked_for_once_the_loop_has_gone_is_not_started(qapp: Any) -> None:
    """A Qt event after the loop is closed (the window closing at quit, a test's teardown)
    asks for a task: nothing runs it, the coroutine is closed (not "never awaited"), and the
    runner is not left busy."""
    asyncio.set_event_loop(None)

    async def work() -> None:
        raise AssertionError("ran without a loop")

    coroutine = work()
    runner = TaskRunner()
    runner.run("Load the selected device", coroutine)
    assert not runner.busy and runner.running == []
    assert coroutine.cr_frame is None  # closed
