"""A service account's new secret, shown this once: the platform keeps only a hash of it, so
the dialog says so, offers to copy it, and forgets it when it closes (the field is cleared;
nothing is stored, logged or put in the task list)."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..widgets.form_parts import close_buttons

INTRO = (
    "This is the only time this secret is shown: the platform keeps only a hash of it. Copy "
    "it now into the system that signs in as {name}. If it is lost, make a new one (this one "
    "then stops working)."
)


class ServiceAccountSecretDialog(QDialog):
    def __init__(
        self, name: str, client_id: str, secret: SecretStr, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("serviceAccountSecret")
        self.setWindowTitle(f"New secret of {name}")
        intro = QLabel(INTRO.format(name=name))
        intro.setWordWrap(True)
        intro.setObjectName("secretIntro")
        self.client_id = QLineEdit(client_id)
        self.client_id.setReadOnly(True)
        self.client_id.setObjectName("clientId")
        self.secret = QLineEdit(secret.get_secret_value())
        self.secret.setReadOnly(True)
        self.secret.setObjectName("clientSecret")
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.show_button = QPushButton("Show")
        self.show_button.setCheckable(True)
        self.show_button.setObjectName("showSecret")
        self.show_button.toggled.connect(self._reveal)
        self.copy_button = QPushButton("Copy secret")
        self.copy_button.setObjectName("copySecret")
        self.copy_button.clicked.connect(self.copy)
        self.copied = QLabel("")
        self.copied.setObjectName("copiedNote")
        row = QHBoxLayout()
        row.addWidget(self.secret, 1)
        row.addWidget(self.show_button)
        row.addWidget(self.copy_button)
        buttons = close_buttons(self)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(QLabel("Client ID"))
        layout.addWidget(self.client_id)
        layout.addWidget(QLabel("Client secret"))
        layout.addLayout(row)
        layout.addWidget(self.copied)
        layout.addWidget(buttons)
        self.resize(520, self.sizeHint().height())
        self.finished.connect(self._forget)

    def _reveal(self, shown: bool) -> None:
        self.secret.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_button.setText("Hide" if shown else "Show")

    def copy(self) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None and self.secret.text():
            clipboard.setText(self.secret.text())
            self.copied.setText("Copied to the clipboard.")

    def _forget(self, _result: Any = None) -> None:
        self.secret.clear()
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
