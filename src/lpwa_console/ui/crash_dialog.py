"""The dialog of an unexpected error: what happened in one line, the details in a read-only
box with a Copy button (for a bug report), and where the log file is. Errors that come while
it is open are added to it rather than piling up windows."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..models.crash_log import CrashHook

MAX_KEPT = 20  # errors listed in one dialog; later ones are counted only


class CrashDialog(QDialog):
    def __init__(self, log_file: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("crashDialog")
        self.setWindowTitle("Unexpected error")
        self.resize(720, 420)
        self.errors = 0
        self.first_summary = ""
        intro = QLabel(
            "The console ran into an error it did not expect. It keeps running, but what you"
            " were doing may not have finished. Copy the details below into a bug report."
        )
        intro.setWordWrap(True)
        self.summary = QLabel()
        self.summary.setObjectName("crashSummary")
        self.summary.setWordWrap(True)
        self.details = QPlainTextEdit()
        self.details.setObjectName("crashDetails")
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        where = QLabel(
            f"The details are also written to {log_file}." if log_file else "",
        )
        where.setObjectName("crashLogFile")
        where.setWordWrap(True)
        where.setVisible(log_file is not None)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("Copy details")
        self.copy_button.setObjectName("copyCrashDetails")
        self.buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.summary)
        layout.addWidget(self.details, 1)
        layout.addWidget(where)
        layout.addWidget(self.buttons)

    def add(self, summary: str, details: str) -> None:
        self.errors += 1
        if self.errors == 1:
            self.first_summary = summary
            self.summary.setText(summary)
        else:
            self.summary.setText(f"{self.errors} errors; the first: {self.first_summary}")
        if self.errors <= MAX_KEPT:
            if self.errors > 1:
                self.details.appendPlainText("\n" + "-" * 60)
            self.details.appendPlainText(details.rstrip())
        self.copy_button.setText("Copy details")

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.details.toPlainText())
        self.copy_button.setText("Copied")


class CrashReporter:
    """Shows the hook's errors in one dialog over `parent`, which stays usable."""

    def __init__(self, hook: CrashHook, parent: QWidget | None = None) -> None:
        self.hook = hook
        self.parent = parent
        self.dialog: CrashDialog | None = None
        hook.crashed.connect(self.show)

    def show(self, summary: str, details: str) -> None:
        if self.dialog is None:
            dialog = CrashDialog(self.hook.log_file, self.parent)
            dialog.finished.connect(self._closed)
            self.dialog = dialog
            dialog.add(summary, details)
            dialog.show()
            return
        self.dialog.add(summary, details)

    def _closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None
