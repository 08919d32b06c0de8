"""The error dialog: summary, read-only details with a Copy button, one dialog for many
errors, closed at the end (no window left behind)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMainWindow

from lpwa_console.models.crash_log import CrashHook
from lpwa_console.ui.crash_dialog import CrashReporter


def _error(message: str) -> BaseException:
    try:
        raise RuntimeError(message)
    except RuntimeError as exc:
        return exc


def test_errors_show_in_one_dialog_with_copyable_details(qtbot: Any, tmp_path: Path) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    hook = CrashHook()
    hook.log_file = tmp_path / "logs" / "console.log"
    reporter = CrashReporter(hook, window)

    hook.report(_error("first, with access_token=tok-0001"), "Unhandled error")
    dialog = reporter.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.summary.text() == "RuntimeError: first, with access_token=[redacted]"
    assert dialog.details.isReadOnly()
    details = dialog.details.toPlainText()
    assert "Traceback" in details and "_error" in details and "tok-0001" not in details
    assert str(hook.log_file) in dialog.findChild(type(dialog.summary), "crashLogFile").text()

    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == details
    assert dialog.copy_button.text() == "Copied"

    hook.report(_error("second"), "Unhandled error")
    assert reporter.dialog is dialog
    assert (
        dialog.summary.text()
        == "2 errors; the first: RuntimeError: first, with access_token=[redacted]"
    )
    assert "RuntimeError: second" in dialog.details.toPlainText()

    with qtbot.waitSignal(dialog.finished, timeout=5000):
        dialog.buttons.button(dialog.buttons.StandardButton.Close).click()
    assert reporter.dialog is None
    # A later error opens a new dialog; it is closed here too.
    hook.report(_error("third"), "Unhandled error")
    again = reporter.dialog
    assert again is not None and again is not dialog
    assert again.summary.text() == "RuntimeError: third"
    again.reject()
    assert reporter.dialog is None
    assert not [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isModal()]
