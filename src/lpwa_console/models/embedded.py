"""The embedded sandbox: a platform of its own on loopback, in a process of its own so its
work never competes with the UI thread, stopped with the console."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Signal

log = logging.getLogger(__name__)

STDERR_TAIL = 4000


@dataclass
class SandboxInfo:
    base_url: str
    token_url: str
    db: str
    accounts: list[dict[str, Any]] = field(default_factory=list)

    def account(self, role: str) -> dict[str, Any] | None:
        return next((a for a in self.accounts if a.get("role") == role), None)


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("lpwa-console", appauthor=False))


def frozen() -> bool:
    """True in a PyInstaller bundle, where `sys.executable` is the console, not Python."""
    return bool(getattr(sys, "frozen", False))


def sandbox_command(program: str, *args: str) -> tuple[str, list[str]]:
    """The program and arguments that run `lpwa-sandbox ARGS` in a child process:
    `python -m lpwa_console.sandbox ARGS`, or in a bundle `<console> sandbox ARGS`, which the
    bundle's entry point (packaging/frozen_main.py) hands to the sandbox CLI."""
    if frozen():
        return program, ["sandbox", *args]
    return program, ["-m", "lpwa_console.sandbox", *args]


def _environment() -> QProcessEnvironment:
    """Our environment, plus our source tree on PYTHONPATH so a checkout works uninstalled."""
    env = QProcessEnvironment.systemEnvironment()
    if frozen():
        env.insert("PYTHONUNBUFFERED", "1")
        return env  # a bundle carries its own modules
    src = str(Path(__file__).resolve().parents[2])
    current = env.value("PYTHONPATH", "")
    env.insert("PYTHONPATH", src + (os.pathsep + current if current else ""))
    env.insert("PYTHONUNBUFFERED", "1")
    return env


class EmbeddedSandbox(QObject):
    """Starts `python -m lpwa_console.sandbox serve` (in a bundle `<console> sandbox serve`),
    then reads its demo accounts."""

    ready = Signal(object)  # SandboxInfo
    failed = Signal(str)
    stopped = Signal()

    def __init__(
        self,
        data_dir: Path | None = None,
        *,
        python: str = sys.executable,
        start_timeout_ms: int = 60_000,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.data_dir = data_dir or default_data_dir()
        self._python = python
        self._timeout_ms = start_timeout_ms
        self._server: QProcess | None = None
        self._accounts: QProcess | None = None
        self._stdout = b""
        self._stderr = b""
        self.info: SandboxInfo | None = None
        self.start_ms: float | None = None
        self._t0 = 0.0
        self._stopping = False

    @property
    def db_path(self) -> Path:
        return self.data_dir / "sandbox.db"

    @property
    def running(self) -> bool:
        return self._server is not None and self._server.state() != QProcess.ProcessState.NotRunning

    def start(self) -> None:
        if self.running:
            if self.info is not None:
                self.ready.emit(self.info)
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.info = None
        self._stdout = self._stderr = b""
        self._stopping = False
        self._t0 = time.perf_counter()
        process = QProcess(self)
        process.setProcessEnvironment(_environment())
        process.readyReadStandardOutput.connect(self._read_stdout)
        process.readyReadStandardError.connect(self._read_stderr)
        process.errorOccurred.connect(self._process_error)
        process.finished.connect(self._server_finished)
        self._server = process
        args = ["serve", "--db", str(self.db_path)]
        # A living network in real time: uplinks arrive, silent devices raise alarm 004.
        args += ["--port", "0", "--exit-with-stdin", "--simulate", "--speed", "1"]
        log.info("starting the embedded sandbox on %s", self.db_path)
        process.start(*sandbox_command(self._python, *args))

    def _read_stdout(self) -> None:
        assert self._server is not None
        data = bytes(self._server.readAllStandardOutput().data())
        if self.info is not None or self._accounts is not None:
            return  # later output is the server's log: drained, not kept
        self._stdout += data
        if b"\n" not in self._stdout:
            return
        line, _, _ = self._stdout.partition(b"\n")
        try:
            info = json.loads(line)
            self.info = SandboxInfo(str(info["base_url"]), str(info["token_url"]), str(info["db"]))
        except (ValueError, KeyError, TypeError) as exc:
            self._fail(f"The sandbox printed no address ({exc}): {line[:200]!r}")
            return
        self._fetch_accounts()

    def _read_stderr(self) -> None:
        assert self._server is not None
        self._stderr = (self._stderr + bytes(self._server.readAllStandardError().data()))[
            -STDERR_TAIL:
        ]

    def _fetch_accounts(self) -> None:
        process = QProcess(self)
        process.setProcessEnvironment(_environment())
        self._accounts = process
        process.finished.connect(self._accounts_finished)
        process.errorOccurred.connect(self._process_error)
        process.start(
            *sandbox_command(self._python, "accounts", "--db", str(self.db_path), "--json")
        )

    def _accounts_finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        process = self._accounts
        self._accounts = None
        if process is None or self.info is None:
            return
        out = bytes(process.readAllStandardOutput().data())
        err = bytes(process.readAllStandardError().data()).decode(errors="replace")
        process.deleteLater()
        if code != 0:
            self._fail(f"The sandbox accounts could not be read: {err[-500:]}")
            return
        try:
            accounts = json.loads(out)
            assert isinstance(accounts, list)
        except (ValueError, AssertionError):
            self._fail("The sandbox accounts list is not JSON")
            return
        self.info.accounts = accounts
        self.start_ms = (time.perf_counter() - self._t0) * 1000
        log.info("embedded sandbox ready at %s in %.0f ms", self.info.base_url, self.start_ms)
        self.ready.emit(self.info)

    def _process_error(self, error: QProcess.ProcessError) -> None:
        if self._stopping:
            return
        if error == QProcess.ProcessError.FailedToStart:
            self._fail(f"The sandbox could not start: {self._python} not runnable")

    def _server_finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        if self._stopping:
            self.stopped.emit()
            return
        tail = self._stderr.decode(errors="replace").strip().splitlines()[-5:]
        self._fail(f"The sandbox stopped (exit {code}): " + " / ".join(tail))

    def _fail(self, message: str) -> None:
        log.warning("%s", message)
        self.info = None
        self.failed.emit(message)
        self.stop()

    def stop(self, timeout_ms: int = 5000) -> None:
        """Close its stdin (it exits on EOF), then terminate, then kill after a timeout."""
        process = self._server
        if process is None:
            return
        self._stopping = True
        if process.state() != QProcess.ProcessState.NotRunning:
            process.closeWriteChannel()
            if not process.waitForFinished(min(timeout_ms, 1500)):
                process.terminate()
                if not process.waitForFinished(timeout_ms):
                    log.warning("the sandbox did not stop; killing it")
                    process.kill()
                    process.waitForFinished(2000)
        if self._accounts is not None:
            self._accounts.kill()
            self._accounts.waitForFinished(1000)
            self._accounts = None
        self._server = None
        process.deleteLater()
