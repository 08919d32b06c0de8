"""The start every view-model shares: it asks the platform through the session's client
(None while signed out) on the task runner, and says whether it has a client."""

from __future__ import annotations

from PySide6.QtCore import QObject

from ..api import LpwaClient
from .tasks import TaskRunner


class ClientViewModel(QObject):
    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client

    @property
    def has_client(self) -> bool:
        return self.client is not None
