"""`SyncProcess`: the fleet index's sync in a child process (`child`), as the console runs
it; `SyncRunner`: what `FleetIndex` asks of a sync, met by it and by `sync.SyncThread` (the
same logic in a thread of this process: tests that inject faults into the client use it).

The child is started with the index file's path and settings on its command line and its
sign-in written to its stdin (`protocol`); it reports on stdout, read here on the UI thread.
It stops at "stop" or when its stdin closes, which also happens when the console dies: it
never outlives it. A child that stops on its own (killed, crashed) is reported as a failed
state with the last counts kept (searches go on with the index as it is); `FleetIndex`
starts a new one at the next refresh, resume or sign-in.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QProcess, QTimer

from ..embedded import child_process, frozen, windowless
from .progress import DEFAULT_SETTINGS, RefreshCost, SyncProgress, SyncSettings
from .protocol import Command, SignIn, command_line, read_report

log = logging.getLogger(__name__)

FROZEN_COMMAND = "fleet-index"  # packaging/frozen_main.py hands this to `child.main`
CHILD_MODULE = "lpwa_console.models.fleet_index.child"
STOP_GRACE_MS = 30_000  # a stop waits for the step being written (a chunk, a page)
STDERR_TAIL = 2000


class SyncRunner(Protocol):
    """What `FleetIndex` drives: a sync started once, told to pause, resume, refresh and
    stop, and joined (from a worker thread) at the end."""

    last_cost: RefreshCost

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def join(self, timeout: float = 10.0) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def refresh_now(self) -> None: ...
    def abandon(self) -> None: ...
    @property
    def paused(self) -> bool: ...
    @property
    def alive(self) -> bool: ...


def index_command(program: str, *args: str) -> tuple[str, list[str]]:
    """`python -m lpwa_console.models.fleet_index.child ARGS`, or in a bundle
    `<console> fleet-index ARGS`."""
    if frozen():
        return program, [FROZEN_COMMAND, *args]
    return program, ["-m", CHILD_MODULE, *args]


class SyncProcess(QObject):
    """A `SyncRunner` in a child process. Lives on the UI thread (its QProcess does);
    `join` alone may be called from another thread."""

    def __init__(
        self,
        path: Path,
        sign_in: SignIn,
        report: Callable[[SyncProgress], None],
        settings: SyncSettings = DEFAULT_SETTINGS,
        *,
        python: str = sys.executable,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.path, self.sign_in, self.report, self.settings = path, sign_in, report, settings
        self.last_cost = RefreshCost()
        self.last_progress = SyncProgress("stopped")
        self._python = python
        self._paused = False
        self._stopping = False
        self._finished = threading.Event()
        self._out = b""
        self._err = b""
        self.process: QProcess | None = None
        self._kill_timer = QTimer(self)
        self._kill_timer.setSingleShot(True)
        self._kill_timer.timeout.connect(self._kill)

    # --- SyncRunner ---------------------------------------------------------------------

    def start(self) -> None:
        process = child_process(
            self, self._read_stdout, self._read_stderr, self._error, self._exited
        )
        self.process = process
        settings = self.settings
        args = [str(self.path), "--page-size", str(settings.page_size)]
        args += ["--refresh-every", str(settings.refresh_every_s)]
        args += ["--full-every", str(settings.full_every_s)]
        process.start(*index_command(windowless(process, self._python), *args))
        process.write(self.sign_in.line())  # the secret's one way in: the pipe

    def stop(self) -> None:
        """Ask it to stop after the step it writes; killed if it has not in a while."""
        if self._stopping:
            return
        self._stopping = True
        if self.alive:
            self._send("stop")
            assert self.process is not None
            self.process.closeWriteChannel()
            self._kill_timer.start(STOP_GRACE_MS)
        else:
            self._finished.set()

    def join(self, timeout: float = 10.0) -> None:
        self._finished.wait(timeout)

    def abandon(self) -> None:
        """At quit, once `join` waited: a child still writing is ended now (SQLite rolls
        its transaction back; the next start goes on from the last step written)."""
        if self.process is not None and self.alive:
            log.warning("the fleet index sync is still writing at quit; ending it")
            self.process.kill()
            self.process.waitForFinished(2000)

    def pause(self) -> None:
        self._paused = True
        self._send("pause")

    def resume(self) -> None:
        self._paused = False
        self._send("resume")

    def refresh_now(self) -> None:
        self._send("refresh")

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def alive(self) -> bool:
        return self.process is not None and (
            self.process.state() != QProcess.ProcessState.NotRunning
        )

    @property
    def process_id(self) -> int | None:
        if self.process is None or not self.alive:
            return None
        return int(self.process.processId()) or None

    # --- the child ----------------------------------------------------------------------

    def _send(self, command: Command) -> None:
        if self.process is not None and self.alive and (command == "stop" or not self._stopping):
            self.process.write(command_line(command))

    def _read_stdout(self) -> None:
        assert self.process is not None
        self._out += bytes(self.process.readAllStandardOutput().data())
        while b"\n" in self._out:
            line, _, self._out = self._out.partition(b"\n")
            said = read_report(line)
            if isinstance(said, RefreshCost):
                self.last_cost = said
            elif isinstance(said, SyncProgress):
                if said.state == "paused":
                    self._paused = True  # (a restart of a fill the user had paused)
                self.last_progress = said
                if not self._stopping:
                    self.report(said)

    def _read_stderr(self) -> None:
        assert self.process is not None
        self._err = (self._err + bytes(self.process.readAllStandardError().data()))[-STDERR_TAIL:]

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:  # no `finished` follows
            self._gone(f"could not start ({self._python})")

    def _exited(self, code: int, status: QProcess.ExitStatus) -> None:
        self._kill_timer.stop()
        if self.process is not None:
            self.process.deleteLater()
            self.process = None
        if self._stopping:
            self.deleteLater()  # (FleetIndex holds it no more)
        if self._stopping and status == QProcess.ExitStatus.NormalExit and code == 0:
            self._finished.set()
            return
        how = "it was killed" if status == QProcess.ExitStatus.CrashExit else f"exit {code}"
        self._gone(how)

    def _gone(self, how: str) -> None:
        self._finished.set()
        if self._stopping:
            return
        lines = self._err.decode(errors="replace").strip().splitlines()
        why = f"{how}: {lines[-1].strip()}" if lines else how
        log.warning("the fleet index sync stopped unexpectedly (%s)", why)
        self.report(
            replace(
                self.last_progress,
                state="failed",
                kind=None,
                message=(
                    f"Fleet index: its sync stopped unexpectedly ({how}); searches use the"
                    " index as it is. Retry starts it again"
                ),
            )
        )

    def _kill(self) -> None:
        if self.alive:
            log.warning("the fleet index sync did not stop; killing it")
            assert self.process is not None
            self.process.kill()
