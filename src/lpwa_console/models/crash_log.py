"""The console's log file and its unhandled errors.

Everything logged goes to a rotating file in the user's log folder, through a filter that
removes secrets first (Authorization headers, client secrets, tokens, key material), so a
log can be attached to a bug report as it is. `CrashHook` catches what nothing else caught
(sys.excepthook, threads, asyncio tasks nobody awaited), logs it and signals it so the UI
can show it with its details.
"""

from __future__ import annotations

import asyncio
import logging
import logging.handlers
import re
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..private_files import private_dir

log = logging.getLogger("lpwa_console.crash")

LOG_NAME = "console.log"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 5
REDACTED = "[redacted]"

# A field name ending in one of these words names a secret; its value goes.
_SECRET_NAME = r"(?i:[\w-]*(?:secret|token|password|passwd|pwd))"
# Key material: appKey, AppSKey, api_key, key, appskey; not "monkey" or "hotkey".
_KEY_NAME = (
    r"(?:[A-Za-z0-9]*(?:Key|KEY)s?|[\w-]*[_-]keys?|keys?|(?i:appskey|nwkskey|appkey|nwkkey|apikey))"
)
_SEPARATOR = r"['\"]?(?:\s*[:=]\s*b?['\"]?|['\"]\s*,\s*b?['\"])"
_PATTERNS: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
        REDACTED,
    ),
    # Authorization: Bearer xyz / 'authorization': 'Basic xyz' / ('authorization', 'x')
    (
        re.compile(
            r"(?i)(\b(?:proxy-)?authorization['\"]?(?:\s*[:=]\s*b?['\"]?|['\"]\s*,\s*b?['\"]))"
            r"[^'\"\r\n]+"
        ),
        r"\1" + REDACTED,
    ),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"), r"\1 " + REDACTED),
    # client_secret=x, "access_token": "x", appKey: x, ('client_secret', 'x')
    (
        re.compile(
            rf"(\b(?:{_SECRET_NAME}|{_KEY_NAME}){_SEPARATOR})(?!\[redacted\])[^\s'\"&,;)}}\]]+"
        ),
        r"\1" + REDACTED,
    ),
    (re.compile(r"\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*"), REDACTED),  # a JWT
    (re.compile(r"\b[0-9A-Fa-f]{32,}\b"), REDACTED),  # AES keys (devices' EUIs are 16)
]


def redact(text: str) -> str:
    """`text` without the secrets it may hold."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Rewrites each record (message, arguments, traceback) without its secrets."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit: the text only, they may be secret
            message = f"{record.msg} (arguments not shown: they do not fit the message)"
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def default_log_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_log_dir("lpwa-console", appauthor=False))


def log_dir(data_dir: Path | None) -> Path:
    """Beside the data a run was given (tests, benches), else the user's log folder."""
    return data_dir / "logs" if data_dir is not None else default_log_dir()


def install_log_file(
    directory: Path, level: int = logging.INFO, logger: logging.Logger | None = None
) -> logging.handlers.RotatingFileHandler:
    """Log to `directory/console.log` (1 MB, five older files kept), secrets removed."""
    private_dir(directory)
    handler = logging.handlers.RotatingFileHandler(
        directory / LOG_NAME, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
    )
    handler.setLevel(level)
    handler.addFilter(RedactingFilter())
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s]: %(message)s")
    )
    target = logger or logging.getLogger()
    was = target.getEffectiveLevel()
    if was > level:
        # The file wants more than the other handlers showed: they keep their level.
        for other in target.handlers:
            if other.level == logging.NOTSET:
                other.setLevel(was)
        target.setLevel(level)
    target.addHandler(handler)
    return handler


def describe(exc: BaseException) -> tuple[str, str]:
    """One line and the whole traceback of `exc`, both without secrets."""
    summary = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return redact(summary), redact(details)


class CrashHook(QObject):
    """Catches unhandled exceptions, logs them and emits `crashed(summary, details)`.

    `install` takes over sys.excepthook and threading.excepthook (the previous hooks come
    back with `uninstall`); `loop_exception` is the asyncio loop's exception handler.
    """

    crashed = Signal(str, str)  # one line, traceback (both redacted)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.count = 0
        self.log_file: Path | None = None
        self._reporting = False
        self._previous: Any = None
        self._previous_thread: Any = None

    def install(self) -> None:
        self._previous = sys.excepthook
        self._previous_thread = threading.excepthook
        sys.excepthook = self.excepthook
        threading.excepthook = self._thread_hook

    def uninstall(self) -> None:
        if self._previous is not None and sys.excepthook == self.excepthook:
            sys.excepthook = self._previous
        if self._previous_thread is not None and threading.excepthook == self._thread_hook:
            threading.excepthook = self._previous_thread
        self._previous = self._previous_thread = None

    def excepthook(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        if exc.__traceback__ is None:
            exc = exc.with_traceback(tb)
        self.report(exc, "Unhandled error")

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or isinstance(args.exc_value, SystemExit):
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self.report(args.exc_value, f"Unhandled error in {name}")

    def loop_exception(self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = str(context.get("message") or "asyncio error")
        if not isinstance(exc, BaseException) or isinstance(exc, asyncio.CancelledError):
            # No exception: asyncio's own complaints (e.g. a task destroyed while pending).
            log.warning("asyncio: %s", redact(message))
            return
        self.report(exc, message)

    def report(self, exc: BaseException, where: str) -> None:
        summary, details = describe(exc)
        log.error("%s: %s\n%s", where, summary, details.rstrip())
        if self._reporting:
            return  # an error while showing an error: logged, not shown again
        self.count += 1
        self._reporting = True
        try:
            self.crashed.emit(summary, details)
        finally:
            self._reporting = False
