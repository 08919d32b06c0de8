"""The activity panel: tasks running now (with a busy indicator) and recent errors."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...models.tasks import TaskRunner

MAX_ERRORS = 100


class ActivityPanel(QWidget):
    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._items: dict[int, QListWidgetItem] = {}

        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate
        self.busy.setMaximumHeight(6)
        self.busy.setTextVisible(False)
        self.busy.setVisible(False)
        self.running = QListWidget()
        self.running.setObjectName("runningTasks")
        self.errors = QListWidget()
        self.errors.setObjectName("errors")
        self.errors.setWordWrap(True)
        clear = QPushButton("Clear")
        clear.clicked.connect(self._clear)
        self.running_title = QLabel("Running")
        self.running_title.setObjectName("sectionTitle")
        self.errors_title = QLabel("Errors")
        self.errors_title.setObjectName("sectionTitle")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.running_title)
        layout.addWidget(self.busy)
        layout.addWidget(self.running, 1)
        header = QHBoxLayout()
        header.addWidget(self.errors_title)
        header.addStretch(1)
        header.addWidget(clear)
        layout.addLayout(header)
        layout.addWidget(self.errors, 2)

        runner.started.connect(self._started)
        runner.finished.connect(self._ended)
        runner.failed.connect(self._failed)
        runner.busy_changed.connect(self.busy.setVisible)
        for info in runner.running:
            self._started(info.id, info.name)
        for failure in runner.failures:
            self._add_error(failure.name, failure.message, failure.when)
        self._update_titles()

    def _started(self, task_id: int, name: str) -> None:
        item = QListWidgetItem(name)
        item.setData(Qt.ItemDataRole.UserRole, task_id)
        self._items[task_id] = item
        self.running.addItem(item)
        self._update_titles()

    def _ended(self, task_id: int, _name: str) -> None:
        item = self._items.pop(task_id, None)
        if item is not None:
            self.running.takeItem(self.running.row(item))
        self._update_titles()

    def _failed(self, task_id: int, name: str, message: str) -> None:
        self._ended(task_id, name)
        if any(f.id == task_id for f in self._runner.failures):
            self._add_error(name, message, time.time())

    def _add_error(self, name: str, message: str, when: float) -> None:
        stamp = time.strftime("%H:%M:%S", time.localtime(when))
        item = QListWidgetItem(f"{stamp}  {name}: {message}")
        item.setToolTip(message)
        self.errors.insertItem(0, item)
        while self.errors.count() > MAX_ERRORS:
            self.errors.takeItem(self.errors.count() - 1)
        self._update_titles()

    def _clear(self) -> None:
        self.errors.clear()
        self._runner.clear_failures()
        self._update_titles()

    def _update_titles(self) -> None:
        self.running_title.setText(f"Running ({self.running.count()})")
        self.errors_title.setText(f"Errors ({self.errors.count()})")
