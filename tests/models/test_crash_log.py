"""The log file keeps no secret; unhandled errors (hook, thread, Qt slot, asyncio task) are
logged and signalled with their traceback."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer

from lpwa_console.models.crash_log import (
    LOG_BACKUPS,
    LOG_NAME,
    REDACTED,
    CrashHook,
    install_log_file,
    log_dir,
    redact,
)

KEY = "00112233445566778899AABBCCDDEEFF"
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Authorization: Bearer abc.def-123456", "abc.def-123456"),
        ("{'authorization': 'Bearer tok-998877665544'}", "tok-998877665544"),
        ("headers=[('Authorization', 'Basic dXNlcjpwYXNzd29yZA==')]", "dXNlcjpwYXNzd29yZA=="),
        ("send Bearer q1w2e3r4t5y6 now", "q1w2e3r4t5y6"),
        (
            "grant_type=client_credentials&client_id=ops&client_secret=s3cr3t-Value&x=1",
            "s3cr3t-Value",
        ),
        ('{"access_token": "tok_123456", "token_type": "Bearer"}', "tok_123456"),
        ("refresh_token=rt-abcdef password: hunter2", "rt-abcdef"),
        ("password: hunter2", "hunter2"),
        ("Profile(client_secret='abc-secret-1')", "abc-secret-1"),
        (f'{{"appKey": "{KEY.lower()}"}}', KEY.lower()),
        ("AppSKey=abc123 nwkSKey: def456", "abc123"),
        ("api_key=k-998877", "k-998877"),
        ("('client_secret', 'tuple-secret')", "tuple-secret"),
        (f"device keys {KEY} set", KEY),
        ("id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl", "eyJhbGciOiJIUzI1NiJ9"),
        (f"key material {PEM} end", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
    ],
)
def test_secrets_are_redacted(text: str, secret: str) -> None:
    cleaned = redact(text)
    assert secret not in cleaned and REDACTED in cleaned


def test_what_is_not_secret_stays() -> None:
    text = (
        "GET https://lpwa.example/users-auth/token_url devEUI=0011223344556677 "
        "client_id=ops-console 'token_type': 'Bearer' No client secret for Prod in the keyring"
        " monkey: 12 actions, hotkey: F5"
    )
    assert redact(text) == text


@pytest.fixture
def private_logger(tmp_path: Path) -> Iterator[tuple[logging.Logger, Path]]:
    logger = logging.getLogger(f"test.crash.{id(tmp_path)}")
    logger.propagate = False
    handler = install_log_file(log_dir(tmp_path), logger=logger)
    yield logger, Path(handler.baseFilename)
    logger.removeHandler(handler)
    handler.close()


def test_the_log_file_keeps_no_secret(private_logger: tuple[logging.Logger, Path]) -> None:
    logger, path = private_logger
    logger.info("token request %s", "client_id=ops&client_secret=top-secret-42")
    try:
        raise RuntimeError("refused: Authorization: Bearer live-token-0042")
    except RuntimeError:
        logger.exception("call failed with access_token=%s", "tok-0043")
    text = path.read_text(encoding="utf-8")
    assert path.parent.name == "logs" and path.name == LOG_NAME
    for secret in ("top-secret-42", "live-token-0042", "tok-0043"):
        assert secret not in text
    assert "client_id=ops" in text and "Traceback" in text and "RuntimeError" in text


def test_the_log_file_rotates(private_logger: tuple[logging.Logger, Path]) -> None:
    logger, path = private_logger
    handler = next(h for h in logger.handlers if isinstance(h, logging.FileHandler))
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    assert handler.maxBytes > 0 and handler.backupCount == LOG_BACKUPS
    logger.info("before")
    handler.doRollover()
    logger.info("after")
    assert "before" in path.with_name(LOG_NAME + ".1").read_text(encoding="utf-8")
    assert "before" not in path.read_text(encoding="utf-8")


@pytest.fixture
def hook(qapp: Any) -> Iterator[CrashHook]:
    hook = CrashHook()
    previous = sys.excepthook
    hook.install()
    yield hook
    hook.uninstall()
    assert sys.excepthook is previous


def test_sys_excepthook_reports_redacted(qtbot: Any, hook: CrashHook) -> None:
    try:
        raise ValueError("bad answer for client_secret=abcdef-secret")
    except ValueError as exc:
        error = exc
    with qtbot.waitSignal(hook.crashed, timeout=5000) as crashed:
        sys.excepthook(type(error), error, error.__traceback__)
    summary, details = crashed.args
    assert summary == f"ValueError: bad answer for client_secret={REDACTED}"
    assert "Traceback" in details and "abcdef-secret" not in details
    assert hook.count == 1


def test_a_qt_slot_error_is_reported(qtbot: Any, hook: CrashHook) -> None:
    def boom() -> None:
        raise ZeroDivisionError("slot failed")

    with qtbot.waitSignal(hook.crashed, timeout=5000) as crashed:
        QTimer.singleShot(0, boom)
    assert crashed.args[0] == "ZeroDivisionError: slot failed"
    assert "boom" in crashed.args[1]


def test_a_thread_error_is_reported(qtbot: Any, hook: CrashHook) -> None:
    def work() -> None:
        raise OSError("disk gone")

    with qtbot.waitSignal(hook.crashed, timeout=5000) as crashed:
        thread = threading.Thread(target=work, name="worker")
        thread.start()
        thread.join()
    assert crashed.args[0] == "OSError: disk gone"


def test_an_unretrieved_task_error_is_reported(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, hook: CrashHook
) -> None:
    qloop.set_exception_handler(hook.loop_exception)

    async def fail() -> None:
        raise KeyError("missing")

    task = qloop.create_task(fail())
    qtbot.waitUntil(task.done, timeout=5000)
    with qtbot.waitSignal(hook.crashed, timeout=5000) as crashed:
        del task  # nobody looked at its exception: asyncio reports it when it goes
        gc.collect()
    assert crashed.args[0] == "KeyError: 'missing'"
    qloop.set_exception_handler(None)


def test_asyncio_complaints_without_exception_are_only_logged(
    hook: CrashHook, qloop: asyncio.AbstractEventLoop, caplog: pytest.LogCaptureFixture
) -> None:
    hook.loop_exception(qloop, {"message": "Task was destroyed but it is pending!"})
    assert hook.count == 0
    assert "Task was destroyed" in caplog.text


def test_a_record_with_bad_arguments_is_still_written(
    private_logger: tuple[logging.Logger, Path],
) -> None:
    logger, path = private_logger
    logger.info("two places %s %s, one value: client_secret=%s", "s3cr3t-x")
    text = path.read_text(encoding="utf-8")
    assert "two places" in text and "s3cr3t-x" not in text
