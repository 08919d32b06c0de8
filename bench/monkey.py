"""Monkey test (issue 7): the whole console on its embedded sandbox, in a temporary data
folder, driven for a while by seeded random clicks, key presses, typing and pane switches
over every pane and every dialog they open. Unhandled exceptions are caught by the console's
own hook (the one the real app installs) and counted, as are Qt warnings.

Once, half-way, the sandbox process is killed: the console must say so and reconnect.

Prints one JSON line: actions run (by kind), panes visited, reconnects, unhandled exceptions
and Qt warnings (unique ones listed with their first traceback on stderr). Exit status 1 when
an unhandled exception was seen.

Usage: ./dev bench monkey [--seconds N] [--seed S] [--data-dir DIR] [--no-kill]
Not part of the test suite: it runs for minutes and its path depends on the seed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import run_on_qt_loop

TICK_MS = 15
MAX_OPEN_DIALOGS = 3
TEXTS = [
    "a",
    "dev",
    "0011223344556677",
    "ÄÖü ✓ 漢字",
    "%_*'\"; DROP TABLE devices; --",
    "9" * 40,
    "  ",
    "-1",
    "1e309",
    "<b>x</b>",
    "\\",
]
KEYS = [
    "Up", "Down", "Left", "Right", "PageUp", "PageDown", "Home", "End", "Tab", "Backtab",
    "Return", "Enter", "Escape", "Space", "Backspace", "Delete", "F2", "F5", "A", "Z", "1",
]  # fmt: skip
MODIFIED = [("Control", "F"), ("Control", "A"), ("Control", "C"), ("Control", "N"),
            ("Control", "E"), ("Control", "I"), ("Shift", "Down"), ("Shift", "End"),
            ("Control", "1"), ("Control", "4")]  # fmt: skip


def type_text(widget: Any, text: str) -> None:
    """Key events carrying `text`, one character each (QTest.keyClicks asserts on
    characters beyond ASCII)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    for char in text:
        code = ord(char.upper()) if char.isascii() and char.isalnum() else 0
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            event = QKeyEvent(kind, code, Qt.KeyboardModifier.NoModifier, char)
            QApplication.sendEvent(widget, event)


class Monkey:
    def __init__(self, console: Any, seed: int, seconds: float, kill_sandbox: bool) -> None:
        from PySide6.QtCore import QTimer

        self.console = console
        self.random = random.Random(seed)
        self.seconds = seconds
        self.kill_sandbox = kill_sandbox
        self.killed_at: float | None = None
        self.reconnected_s: float | None = None
        self.actions: Counter[str] = Counter()
        self.panes: Counter[str] = Counter()
        self.dialogs: Counter[str] = Counter()
        self._seen_dialogs: set[int] = set()
        self.t0 = time.monotonic()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)

    # --- driving ------------------------------------------------------------------------

    def start(self) -> None:
        self.timer.start()

    def tick(self) -> None:
        elapsed = time.monotonic() - self.t0
        if elapsed >= self.seconds:
            self.timer.stop()
            if not self.done.done():
                self.done.set_result(None)
            return
        self._watch_reconnect()
        if self.kill_sandbox and self.killed_at is None and elapsed >= self.seconds / 2:
            self._kill_sandbox()
            return
        self._tame_windows()
        roll = self.random.random()
        if roll < 0.10:
            self._switch_pane()
        elif roll < 0.50:
            self._click()
        elif roll < 0.75:
            self._key()
        elif roll < 0.85:
            self._type()
        elif roll < 0.92:
            self._double_click()
        else:
            self._modified_key()

    def _top(self) -> Any:
        """Where a user's input goes: the modal dialog if one is up, else the active window
        or a visible dialog of ours, else the main window."""
        from PySide6.QtWidgets import QApplication, QDialog

        modal = QApplication.activeModalWidget()
        if modal is not None:
            return modal
        dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog)]
        visible = [d for d in dialogs if d.isVisible()]
        if visible and self.random.random() < 0.7:
            return self.random.choice(visible)
        return self.console.window

    def _targets(self, top: Any, kinds: tuple[type, ...] | None = None) -> list[Any]:
        from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

        out = []
        for widget in [top, *top.findChildren(QWidget)]:
            if isinstance(widget, (QMenuBar, QMenu)):
                continue  # Quit lives there; menus' actions have shortcuts we press instead
            if widget.window() is not top and widget is not top:
                continue
            if not (widget.isVisible() and widget.isEnabled()):
                continue
            if widget.width() < 3 or widget.height() < 3:
                continue
            if kinds is None or isinstance(widget, kinds):
                out.append(widget)
        return out

    def _point(self, widget: Any) -> Any:
        from PySide6.QtCore import QPoint

        return QPoint(
            self.random.randrange(1, max(2, widget.width() - 1)),
            self.random.randrange(1, max(2, widget.height() - 1)),
        )

    def _click(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QAbstractButton, QAbstractItemView

        top = self._top()
        # Buttons and views are where things happen: favour them over bare labels.
        weighted = self._targets(top, (QAbstractButton,)) * 3 + self._targets(top)
        views = self._targets(top, (QAbstractItemView,))
        weighted += [v.viewport() for v in views] * 3
        if not weighted:
            return
        widget = self.random.choice(weighted)
        button = Qt.MouseButton.RightButton if self.random.random() < 0.05 else None
        QTest.mouseClick(widget, button or Qt.MouseButton.LeftButton, pos=self._point(widget))
        self.actions["click"] += 1

    def _double_click(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QAbstractItemView

        views = self._targets(self._top(), (QAbstractItemView,))
        if not views:
            return
        viewport = self.random.choice(views).viewport()
        QTest.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=self._point(viewport))
        self.actions["double_click"] += 1

    def _focus_target(self) -> Any:
        from PySide6.QtWidgets import QApplication

        focus = QApplication.focusWidget()
        top = self._top()
        if focus is not None and focus.window() is top and self.random.random() < 0.7:
            return focus
        targets = self._targets(top)
        return self.random.choice(targets) if targets else top

    def _key(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        key = getattr(Qt.Key, f"Key_{self.random.choice(KEYS)}")
        QTest.keyClick(self._focus_target(), key)
        self.actions["key"] += 1

    def _modified_key(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        modifier, name = self.random.choice(MODIFIED)
        QTest.keyClick(
            self._focus_target(),
            getattr(Qt.Key, f"Key_{name}"),
            getattr(Qt.KeyboardModifier, f"{modifier}Modifier"),
        )
        self.actions["modified_key"] += 1

    def _type(self) -> None:
        from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QLineEdit, QPlainTextEdit

        edits = self._targets(self._top(), (QLineEdit, QPlainTextEdit, QAbstractSpinBox))
        combos = self._targets(self._top(), (QComboBox,))
        if combos and self.random.random() < 0.3:
            combo = self.random.choice(combos)
            if combo.count():
                combo.setCurrentIndex(self.random.randrange(combo.count()))
                self.actions["choose"] += 1
            return
        if not edits:
            return
        edit = self.random.choice(edits)
        edit.setFocus()
        type_text(edit, self.random.choice(TEXTS))
        self.actions["type"] += 1

    def _switch_pane(self) -> None:
        window = self.console.window
        names = list(self.console.panes)
        index = self.random.randrange(len(names))
        window.navigation.setCurrentRow(index)
        self.panes[names[index]] += 1
        self.actions["pane"] += 1

    def _tame_windows(self) -> None:
        """Bounded: past a few open dialogs, close the newest (as a user would). A file
        dialog is closed at once: random keys there rename and delete real files."""
        from PySide6.QtWidgets import QApplication, QDialog, QFileDialog

        open_dialogs = [
            w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()
        ]
        for dialog in open_dialogs:
            if id(dialog) not in self._seen_dialogs:
                self._seen_dialogs.add(id(dialog))
                self.dialogs[type(dialog).__name__] += 1
            if isinstance(dialog, QFileDialog):
                dialog.reject()
                self.actions["close_file_dialog"] += 1
        open_dialogs = [d for d in open_dialogs if d.isVisible()]
        if len(open_dialogs) > MAX_OPEN_DIALOGS:
            open_dialogs[-1].reject()
            self.actions["close_dialog"] += 1

    # --- the sandbox stops under it -----------------------------------------------------

    def _kill_sandbox(self) -> None:
        pid = self.console.embedded.process_id
        self.killed_at = time.monotonic()
        if pid is None:
            print("monkey: the sandbox was not running at half-time", file=sys.stderr)
            return
        os.kill(pid, signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)
        self.actions["kill_sandbox"] += 1

    def _watch_reconnect(self) -> None:
        if self.killed_at is None or self.reconnected_s is not None:
            return
        session = self.console.session
        since = time.monotonic() - self.killed_at
        if session.state == "connected" and since > 0.2 and session.client is not None:
            self.reconnected_s = round(since, 1)


async def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    from lpwa_console.app import Options, build
    from lpwa_console.diagnostics.connecting import connect
    from lpwa_console.models.profiles import MemorySecretStore
    from lpwa_console.startup import install_crash_handling

    hook = install_crash_handling(data_dir)
    asyncio.get_running_loop().set_exception_handler(hook.loop_exception)
    unhandled: dict[str, tuple[int, str]] = {}

    def crashed(summary: str, details: str) -> None:
        count, first = unhandled.get(summary, (0, details))
        unhandled[summary] = (count + 1, first)

    hook.crashed.connect(crashed)
    warnings: Counter[str] = Counter()

    def qt_message(kind: QtMsgType, _context: Any, text: str) -> None:
        if kind == QtMsgType.QtFatalMsg:
            print(f"monkey: Qt fatal error: {text}", file=sys.stderr, flush=True)
        if kind != QtMsgType.QtDebugMsg and "does not support" not in text:
            if text[:200] not in warnings:  # where Python was when Qt complained, once
                where = "".join(traceback.format_stack(limit=14)[:-1])
                print(f"--- Qt warning: {text}\n{where}", file=sys.stderr, flush=True)
            warnings[text[:200]] += 1

    previous_handler = qInstallMessageHandler(qt_message)
    logged: Counter[str] = Counter()

    class Count(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            # Numbers vary (ids, ports, times): the message's shape is what repeats.
            logged[re.sub(r"\d+", "N", f"{record.levelname} {record.getMessage()}")[:160]] += 1

    counter = Count(logging.WARNING)
    logging.getLogger().addHandler(counter)
    console = build(Options(data_dir=data_dir), secrets=MemorySecretStore())
    console.window.resize(1400, 900)
    console.window.show()
    t0 = time.monotonic()
    monkey: Monkey | None = None
    try:
        await connect(console, console.profiles.embedded())
        connect_s = round(time.monotonic() - t0, 1)
        monkey = Monkey(console, args.seed, args.seconds, not args.no_kill)
        for name in console.panes:  # every pane at least once, then at random
            console.window.navigation.setCurrentRow(list(console.panes).index(name))
            monkey.panes[name] += 1
            await asyncio.sleep(0.2)
        monkey.start()
        await monkey.done
    finally:
        from PySide6.QtWidgets import QApplication, QDialog

        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QDialog) and widget.isVisible():
                widget.reject()
        await console.aclose()
        console.window.close()
        qInstallMessageHandler(previous_handler)
        logging.getLogger().removeHandler(counter)
        hook.uninstall()
        failures = Counter(
            re.sub(r"\d+", "N", f"{f.name}: {f.message}")[:160] for f in console.runner.failures
        )
    for summary, (count, details) in unhandled.items():
        print(f"--- {count} x {summary}\n{details}", file=sys.stderr)
    return {
        "seconds": args.seconds,
        "seed": args.seed,
        "connect_s": connect_s,
        "actions": sum(monkey.actions.values()),
        "by_kind": dict(monkey.actions),
        "panes_visited": dict(monkey.panes),
        "sandbox_killed": monkey.killed_at is not None,
        "reconnected_after_s": monkey.reconnected_s,
        "unhandled_exceptions": sum(count for count, _ in unhandled.values()),
        "unique_exceptions": sorted(unhandled),
        "dialogs_opened": dict(monkey.dialogs),
        "task_failures_last_50": dict(failures.most_common(15)),
        "warnings_logged": dict(logged.most_common(15)),
        "qt_warnings": dict(warnings.most_common(10)),
        "log_file": str(hook.log_file) if args.data_dir else None,
    }


def main() -> int:
    import faulthandler

    faulthandler.enable()  # a crash in Qt's C++ still shows where Python was
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path, help="default: a temporary folder, removed")
    parser.add_argument("--no-kill", action="store_true", help="leave the sandbox alone")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="lpwa-monkey-"))
    try:
        result = run_on_qt_loop(lambda: run(args, data_dir))
    finally:
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)
    print(json.dumps(result), flush=True)
    return 1 if result["unhandled_exceptions"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
