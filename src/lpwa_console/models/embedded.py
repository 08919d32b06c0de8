"""The embedded sandbox: a platform of its own on loopback, in a process of its own so its
work never competes with the UI thread, stopped with the console.

A sandbox that stops on its own (killed, crashed) or does not start in time is reported at
once (`failed`, with the reason and when it restarts) and restarted after a growing delay;
`ready` fires again with the new address. One that refuses its database (exit 2: a newer or
read-only file) is not restarted: restarting cannot help, the message says what to do.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from ..private_files import private_dir

log = logging.getLogger(__name__)

STDERR_TAIL = 4000
# Delays before each restart in a row; the last one repeats.
RESTART_DELAYS_S = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
# Up this long, the sandbox is healthy again: its next stop restarts after the first delay.
STABLE_S = 60.0
REFUSED_EXIT = 2  # the sandbox CLI's "user error": the database or options are refused
# How long a stop waits for the sandbox to leave on its own once its stdin is closed. POSIX
# then sends SIGTERM (handled the same way), Windows has no such signal: QProcess's
# terminate() there posts WM_CLOSE, which a process without a window never receives, so
# the stdin path gets the whole wait before the last resort (TerminateProcess, `kill`).
WINDOWS = sys.platform == "win32"
STDIN_STOP_MS = 1500
# Windows' CreateProcess flag: a console program started from a windowed one gets no
# console window of its own.
CREATE_NO_WINDOW = 0x08000000
ROUTINE = re.compile(r"^\d{4}-\d\d-\d\d [\d:,.]+ (?:DEBUG|INFO) ")


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


def child_environment() -> QProcessEnvironment:
    """The environment of a child process of ours (the sandbox, the fleet index's sync):
    ours, plus our source tree on PYTHONPATH so a checkout works uninstalled.
    The child writes UTF-8, as this side reads it: on Windows a pipe's encoding is otherwise
    the ANSI code page, and a path with "Ü" in a refusal would arrive garbled."""
    env = QProcessEnvironment.systemEnvironment()
    env.insert("PYTHONIOENCODING", "utf-8")
    if frozen():
        env.insert("PYTHONUNBUFFERED", "1")
        return env  # a bundle carries its own modules
    src = str(Path(__file__).resolve().parents[2])
    current = env.value("PYTHONPATH", "")
    env.insert("PYTHONPATH", src + (os.pathsep + current if current else ""))
    env.insert("PYTHONUNBUFFERED", "1")
    return env


_environment = child_environment


def child_process(
    parent: QObject,
    read_stdout: Callable[[], None],
    read_stderr: Callable[[], None],
    error: Callable[[QProcess.ProcessError], None],
    finished: Callable[[int, QProcess.ExitStatus], None],
) -> QProcess:
    """A QProcess for a child of ours (not started): our environment, its output read as it
    comes, its errors and its end heard."""
    process = QProcess(parent)
    process.setProcessEnvironment(child_environment())
    process.readyReadStandardOutput.connect(read_stdout)
    process.readyReadStandardError.connect(read_stderr)
    process.errorOccurred.connect(error)
    process.finished.connect(finished)
    return process


def windowless(process: QProcess, program: str) -> str:
    """The program to start for the sandbox child, with no console window on Windows.

    A bundle's console is windowed (packaging/lpwa-console.spec, console=False), so its
    sandbox child, the same program, opens no window. From a source checkout `python.exe`
    is a console program: a console started without one (a shortcut, pythonw) would open
    a console window for its child. QProcess's CreateProcess modifier adds CREATE_NO_WINDOW
    where the binding has it (Qt's C++ API does; PySide6 does not bind it so far), and
    otherwise the child runs on `pythonw.exe` beside `python.exe`, which opens none; both
    keep the pipes QProcess gives (STARTF_USESTDHANDLES). Elsewhere: `program` as it is."""
    if not WINDOWS:
        return program
    modifier = getattr(process, "setCreateProcessArgumentsModifier", None)
    if modifier is not None:

        def no_window(arguments: Any) -> None:
            try:
                arguments.flags |= CREATE_NO_WINDOW
            except (AttributeError, TypeError):  # a binding of another shape
                log.warning("CREATE_NO_WINDOW could not be set on the sandbox's process")

        modifier(no_window)
        return program
    path = Path(program)
    if not frozen() and path.name.lower() == "python.exe":
        quiet = path.with_name("pythonw.exe")
        if quiet.is_file():
            return str(quiet)
    return program


class EmbeddedSandbox(QObject):
    """Starts `python -m lpwa_console.sandbox serve` (in a bundle `<console> sandbox serve`),
    then reads its demo accounts."""

    ready = Signal(object)  # SandboxInfo
    # What it is doing before `ready`: "starting", then "demo" while it creates the demo
    # network of a new database.
    phase = Signal(str)
    failed = Signal(str)  # why; ends with "restarting in N s" when a restart is planned
    stopped = Signal()

    def __init__(
        self,
        data_dir: Path | None = None,
        *,
        python: str = sys.executable,
        start_timeout_ms: int = 60_000,
        restart_delays_s: Sequence[float] = RESTART_DELAYS_S,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.data_dir = data_dir or default_data_dir()
        self._python = python
        self._timeout_ms = start_timeout_ms
        self._delays = tuple(restart_delays_s)
        self._restarts_in_row = 0
        self._ready_at: float | None = None
        self._start_timer = QTimer(self)
        self._start_timer.setSingleShot(True)
        self._start_timer.timeout.connect(self._start_timed_out)
        self._restart_timer = QTimer(self)
        self._restart_timer.setSingleShot(True)
        self._restart_timer.timeout.connect(self._restart)
        self._server: QProcess | None = None
        self._accounts: QProcess | None = None
        self._stdout = b""
        self._stderr = b""
        self.info: SandboxInfo | None = None
        self.start_ms: float | None = None
        self._t0 = 0.0
        self._stopping = False
        self.phase_now = ""  # the last phase before `ready` ("" once ready)
        self.phase.connect(self._phase)

    def _phase(self, phase: str) -> None:
        self.phase_now = phase

    @property
    def db_path(self) -> Path:
        return self.data_dir / "sandbox.db"

    @property
    def running(self) -> bool:
        return self._server is not None and self._server.state() != QProcess.ProcessState.NotRunning

    @property
    def restart_pending(self) -> bool:
        return self._restart_timer.isActive()

    @property
    def process_id(self) -> int | None:
        """The server's process ID while it runs (for the log and the operating system)."""
        if self._server is None or not self.running:
            return None
        return int(self._server.processId()) or None

    def start(self) -> None:
        """Start now (a planned restart included); `ready` or `failed` follows."""
        if self.running:
            if self.info is not None:
                self.ready.emit(self.info)
            return
        self._restart_timer.stop()
        # Owner-only: the sandbox database beside it holds client secrets and live tokens.
        private_dir(self.data_dir)
        self.info = None
        self._ready_at = None
        self._stdout = self._stderr = b""
        self._stopping = False
        self._t0 = time.perf_counter()
        self._start_timer.start(self._timeout_ms)
        process = child_process(
            self, self._read_stdout, self._read_stderr, self._process_error, self._server_finished
        )
        self._server = process
        args = ["serve", "--db", str(self.db_path)]
        # A living network in real time: uplinks arrive, silent devices raise alarm 004.
        args += ["--port", "0", "--exit-with-stdin", "--simulate", "--speed", "1"]
        # Its phases, and the accounts in its ready line: no second process to read them.
        args += ["--phases", "--with-accounts"]
        log.info("starting the embedded sandbox on %s", self.db_path)
        process.start(*sandbox_command(windowless(process, self._python), *args))
        self.phase.emit("starting")

    def _read_stdout(self) -> None:
        assert self._server is not None
        data = bytes(self._server.readAllStandardOutput().data())
        if self._stopping or self.info is not None or self._accounts is not None:
            # Later output is the server's log; and a sandbox being stopped (a start that
            # timed out) may still print its address while it winds down: never taken.
            return
        self._stdout += data
        while b"\n" in self._stdout and self.info is None and self._server is not None:
            line, _, self._stdout = self._stdout.partition(b"\n")
            self._read_line(line)

    def _read_line(self, line: bytes) -> None:
        try:
            info = json.loads(line)
            if isinstance(info, dict) and "phase" in info:
                self.phase.emit(str(info["phase"]))
                return
            self.info = SandboxInfo(str(info["base_url"]), str(info["token_url"]), str(info["db"]))
        except (ValueError, KeyError, TypeError) as exc:
            self._fail(f"The sandbox printed no address ({exc}): {line[:200]!r}")
            return
        accounts = info.get("accounts")
        if isinstance(accounts, list):
            self.info.accounts = accounts
            self._became_ready()
        else:  # a sandbox without --with-accounts: ask it in a second process
            self._fetch_accounts()

    def _read_stderr(self) -> None:
        assert self._server is not None
        self._stderr = (self._stderr + bytes(self._server.readAllStandardError().data()))[
            -STDERR_TAIL:
        ]

    def _fetch_accounts(self) -> None:
        process = QProcess(self)
        process.setProcessEnvironment(child_environment())
        self._accounts = process
        process.finished.connect(self._accounts_finished)
        process.errorOccurred.connect(self._process_error)
        program = windowless(process, self._python)
        process.start(*sandbox_command(program, "accounts", "--db", str(self.db_path), "--json"))

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
        self._became_ready()

    def _became_ready(self) -> None:
        assert self.info is not None
        self.phase_now = ""
        self._start_timer.stop()
        self._ready_at = time.monotonic()
        self.start_ms = (time.perf_counter() - self._t0) * 1000
        log.info("embedded sandbox ready at %s in %.0f ms", self.info.base_url, self.start_ms)
        self.ready.emit(self.info)

    def _process_error(self, error: QProcess.ProcessError) -> None:
        if self._stopping:
            return
        if error == QProcess.ProcessError.FailedToStart:
            # A missing program stays missing: no restart.
            self._fail(f"The sandbox could not start: {self._python} not runnable", retry=False)

    def _server_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        if self._stopping:
            self.stopped.emit()
            return
        lines = self._stderr.decode(errors="replace").strip().splitlines()
        if status == QProcess.ExitStatus.NormalExit and code == REFUSED_EXIT and lines:
            # The CLI's one-line refusal ("lpwa-sandbox: The database ... is read-only").
            reason = lines[-1].removeprefix("lpwa-sandbox: ")
            self._fail(f"The embedded sandbox refused to start: {reason}", retry=False)
            return
        how = "it was killed" if status == QProcess.ExitStatus.CrashExit else f"exit {code}"
        # Its last words, unless they are routine log lines (which say nothing of why).
        said = [line.strip() for line in lines[-3:] if line.strip() and not ROUTINE.match(line)]
        tail = " / ".join(said)
        self._fail(
            f"The embedded sandbox stopped unexpectedly ({how})" + (f": {tail}" if tail else "")
        )

    def _start_timed_out(self) -> None:
        if self._server is not None:  # not ready yet: the timer stops at `ready`
            self._fail(f"The embedded sandbox did not start within {self._timeout_ms / 1000:g} s")

    def _fail(self, message: str, *, retry: bool = True) -> None:
        delay = self._next_delay() if retry and self._delays else None
        if delay is not None:
            message += f"; restarting in {delay:g} s"
        log.warning("%s", message)
        self.info = None
        self.stop(timeout_ms=1000)  # a hung start is not waited for long (UI thread)
        if delay is not None:
            self._restart_timer.start(round(delay * 1000))
        self.failed.emit(message)

    def _next_delay(self) -> float:
        if self._ready_at is not None and time.monotonic() - self._ready_at >= STABLE_S:
            self._restarts_in_row = 0
        delay = self._delays[min(self._restarts_in_row, len(self._delays) - 1)]
        self._restarts_in_row += 1
        return delay

    def _restart(self) -> None:
        log.info("restarting the embedded sandbox (attempt %d)", self._restarts_in_row)
        self.start()

    def stop(self, timeout_ms: int = 5000) -> None:
        """Close its stdin: the sandbox stops on EOF (`--exit-with-stdin`), on every OS and
        without a signal. Then, as last resorts, SIGTERM (POSIX only) and a kill. A
        planned restart is cancelled. (Its stdin also closes when the console dies however
        it dies: the sandbox never outlives it.)"""
        self._restart_timer.stop()
        self._start_timer.stop()
        process = self._server
        if process is None:
            return
        self._stopping = True
        if process.state() != QProcess.ProcessState.NotRunning:
            process.closeWriteChannel()
            stdin_wait = timeout_ms if WINDOWS else min(timeout_ms, STDIN_STOP_MS)
            stopped = process.waitForFinished(stdin_wait)
            if not stopped and not WINDOWS:
                log.info("the sandbox did not stop at stdin's end; terminating it")
                process.terminate()
                stopped = process.waitForFinished(timeout_ms)
            if not stopped:
                log.warning("the sandbox did not stop; killing it")
                process.kill()
                process.waitForFinished(2000)
        if self._accounts is not None:
            self._accounts.kill()
            self._accounts.waitForFinished(1000)
            self._accounts = None
        self._server = None
        process.deleteLater()
