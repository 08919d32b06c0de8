"""The embedded sandbox stops without POSIX signals: the console closes its stdin and the
sandbox leaves on its own (the path Windows relies on, run here on every OS); SIGTERM is a
POSIX-only fallback, a kill the last resort. On Windows its child opens no console window."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import QProcess

from lpwa_console.models import embedded as embedded_module
from lpwa_console.models.embedded import CREATE_NO_WINDOW, EmbeddedSandbox, windowless

START_MS = 120_000  # a new data folder makes its demo network first


def test_stop_closes_stdin_and_the_sandbox_leaves_without_a_signal(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = EmbeddedSandbox(tmp_path / "data", start_timeout_ms=START_MS)
    try:
        with qtbot.waitSignal(sandbox.ready, timeout=START_MS):
            sandbox.start()
        process = sandbox._server
        assert process is not None
        signalled: list[str] = []
        monkeypatch.setattr(process, "terminate", lambda: signalled.append("terminate"))
        monkeypatch.setattr(process, "kill", lambda: signalled.append("kill"))
        # The stdin path alone, given time (on two busy cores); it takes ~0.5 s when quiet.
        monkeypatch.setattr(embedded_module, "STDIN_STOP_MS", 30_000)
        with qtbot.waitSignal(sandbox.stopped, timeout=30_000):
            sandbox.stop(timeout_ms=30_000)
        assert signalled == []  # neither SIGTERM nor a kill: its stdin's end was enough
        assert process.exitStatus() == QProcess.ExitStatus.NormalExit
        assert process.exitCode() == 0
        assert not sandbox.running
    finally:
        sandbox.stop()


class StubbornProcess:
    """A child that ignores its stdin's end (and SIGTERM): what the last resorts are for."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.killed = False

    def state(self) -> QProcess.ProcessState:
        return QProcess.ProcessState.Running

    def closeWriteChannel(self) -> None:
        self.calls.append("close stdin")

    def waitForFinished(self, ms: int) -> bool:
        self.calls.append(f"wait {ms}")
        return self.killed

    def terminate(self) -> None:
        self.calls.append("terminate")

    def kill(self) -> None:
        self.calls.append("kill")
        self.killed = True

    def deleteLater(self) -> None:
        pass


@pytest.mark.parametrize("windows", [False, True])
def test_the_last_resorts_are_sigterm_on_posix_and_a_kill(
    qapp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, windows: bool
) -> None:
    monkeypatch.setattr(embedded_module, "WINDOWS", windows)
    sandbox = EmbeddedSandbox(tmp_path)
    child = StubbornProcess()
    sandbox._server = child  # type: ignore[assignment]
    sandbox.stop(timeout_ms=5000)
    if windows:  # no signal: the whole wait for stdin, then TerminateProcess
        assert child.calls == ["close stdin", "wait 5000", "kill", "wait 2000"]
    else:
        assert child.calls == [
            "close stdin", "wait 1500", "terminate", "wait 5000", "kill", "wait 2000",
        ]  # fmt: skip


def test_the_windows_child_opens_no_console_window(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    python = tmp_path / "Zoë Ünal O'Brien" / "Scripts" / "python.exe"
    python.parent.mkdir(parents=True)
    python.touch()
    monkeypatch.setattr(embedded_module, "WINDOWS", False)
    assert windowless(SimpleNamespace(), str(python)) == str(python)  # type: ignore[arg-type]

    monkeypatch.setattr(embedded_module, "WINDOWS", True)
    # A binding with Qt's CreateProcess modifier: CREATE_NO_WINDOW is added to the flags.
    modifiers: list[Any] = []
    process = SimpleNamespace(setCreateProcessArgumentsModifier=modifiers.append)
    assert windowless(process, str(python)) == str(python)  # type: ignore[arg-type]
    arguments = SimpleNamespace(flags=0x10)  # CREATE_NEW_CONSOLE's neighbour, kept
    modifiers[0](arguments)
    assert arguments.flags == 0x10 | CREATE_NO_WINDOW
    # PySide6 today (no such binding): pythonw.exe beside python.exe, when it is there.
    assert windowless(SimpleNamespace(), str(python)) == str(python)  # type: ignore[arg-type]
    pythonw = python.with_name("pythonw.exe")
    pythonw.touch()
    assert windowless(SimpleNamespace(), str(python)) == str(pythonw)  # type: ignore[arg-type]
    # A bundle is windowed already: its own program, as it is.
    monkeypatch.setattr(embedded_module, "frozen", lambda: True)
    assert windowless(SimpleNamespace(), str(python)) == str(python)  # type: ignore[arg-type]
