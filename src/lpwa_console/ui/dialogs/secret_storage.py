"""Where a client secret goes on a computer without a keyring, and the passphrase of the
secrets file (models/secret_storage.py).

`SecretStorageChoice` is the profile dialog's panel: shown when a save finds no keyring (or
a locked secrets file), it offers the two choices and makes the save again once one is
made; the form keeps what was typed meanwhile. `PassphrasePrompt` asks the passphrase when a
connect needs a secret of the file, once a session.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from ...models.profiles import Profile, SecretStoreError
from ...models.secret_file import MIN_PASSPHRASE
from ...models.secret_storage import SecretStorage
from ...models.session import Session

SESSION_WORDS = "Keep it for this session only (type it again after the console restarts)"
NEW_FILE_WORDS = "Store it in a file encrypted with a passphrase"
FILE_WORDS = "Store it in the encrypted secrets file (type its passphrase)"


def _password_field(name: str) -> QLineEdit:
    field = QLineEdit()
    field.setObjectName(name)
    field.setEchoMode(QLineEdit.EchoMode.Password)
    return field


class SecretStorageChoice(QWidget):
    """The two places a secret can go without a keyring; `chosen` once one is in use."""

    chosen = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("secretStorageChoice")
        self.storage: SecretStorage | None = None
        self.reason = QLabel()
        self.reason.setObjectName("storageReason")
        self.reason.setWordWrap(True)
        self.session_option = QRadioButton(SESSION_WORDS)
        self.session_option.setObjectName("keepForSession")
        self.file_option = QRadioButton(NEW_FILE_WORDS)
        self.file_option.setObjectName("keepInFile")
        self.passphrase = _password_field("vaultPassphrase")
        self.again = _password_field("vaultPassphraseAgain")
        self.problem = QLabel()
        self.problem.setObjectName("storageError")
        self.problem.setWordWrap(True)
        self.use_button = QPushButton("Save with this choice")
        self.use_button.setObjectName("useStorage")
        self.use_button.setEnabled(False)
        self.fields = QWidget()
        form = QFormLayout(self.fields)
        form.setContentsMargins(24, 0, 0, 0)
        form.addRow("Passphrase", self.passphrase)
        self.again_label = QLabel("Passphrase again")
        form.addRow(self.again_label, self.again)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        for widget in (self.reason, self.session_option, self.file_option, self.fields):
            layout.addWidget(widget)
        layout.addWidget(self.problem)
        layout.addWidget(self.use_button)
        self.session_option.toggled.connect(self._option_changed)
        self.file_option.toggled.connect(self._option_changed)
        self.use_button.clicked.connect(self.apply)
        self.passphrase.returnPressed.connect(self.apply)
        self.again.returnPressed.connect(self.apply)
        self.fields.setVisible(False)
        self.setVisible(False)

    def ask(self, storage: SecretStorage, reason: str) -> None:
        """Show the choice, saying why it is asked."""
        self.storage = storage
        new_file = not storage.file.exists()
        self.reason.setText(reason)
        self.file_option.setText(NEW_FILE_WORDS if new_file else FILE_WORDS)
        self.again.setVisible(new_file)
        self.again_label.setVisible(new_file)
        self.passphrase.setPlaceholderText(
            f"at least {MIN_PASSPHRASE} characters, asked once each session" if new_file else ""
        )
        self.problem.clear()
        if storage.fallback == "file" or (not new_file and storage.fallback is None):
            self.file_option.setChecked(True)  # the file exists: most likely wanted again
        self._option_changed()
        self.setVisible(True)

    def dismiss(self) -> None:
        self.passphrase.clear()
        self.again.clear()
        self.problem.clear()
        self.setVisible(False)

    def _option_changed(self) -> None:
        self.fields.setVisible(self.file_option.isChecked())
        self.use_button.setEnabled(self.session_option.isChecked() or self.file_option.isChecked())
        if self.file_option.isChecked():
            self.passphrase.setFocus()

    def apply(self) -> bool:
        """Put the chosen place in use; on a problem say it and keep the panel."""
        storage = self.storage
        if storage is None:
            return False
        if self.session_option.isChecked():
            storage.use_session()
        elif self.file_option.isChecked():
            passphrase = self.passphrase.text()
            if self.again.isVisibleTo(self) and passphrase != self.again.text():
                self.problem.setText("The two passphrases differ: type the same one twice")
                self.again.clear()
                self.again.setFocus()
                return False
            try:
                storage.use_file(passphrase)
            except SecretStoreError as exc:
                self.problem.setText(str(exc))
                self.passphrase.clear()
                self.again.clear()
                self.passphrase.setFocus()
                return False
        else:
            return False
        self.dismiss()
        self.chosen.emit()
        return True


class PassphraseDialog(QDialog):
    """The passphrase of the secrets file, for a connect that needs one of its secrets."""

    def __init__(self, storage: SecretStorage, profile: Profile, parent: QWidget | None = None):
        super().__init__(parent)
        self.storage = storage
        self.profile = profile
        self.setObjectName("passphraseDialog")
        self.setWindowTitle("Passphrase of the secrets file")
        self.setMinimumWidth(460)  # the sentences wrap, not clip
        text = QLabel(
            f"The client secret of {profile.name} is in the file of secrets encrypted with"
            " your passphrase. Type it to connect: it is asked once until the console closes."
        )
        text.setWordWrap(True)
        self.passphrase = _password_field("passphrase")
        self.error = QLabel()
        self.error.setObjectName("passphraseError")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.open_button = buttons.addButton(
            "Open and connect", QDialogButtonBox.ButtonRole.AcceptRole
        )
        buttons.accepted.connect(self.try_open)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.passphrase)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def try_open(self) -> None:
        try:
            self.storage.file.unlock(self.passphrase.text())
        except SecretStoreError as exc:
            self.error.setText(str(exc))
            self.passphrase.clear()
            self.passphrase.setFocus()
            return
        self.passphrase.clear()
        self.accept()


class PassphrasePrompt(QObject):
    """Asks the passphrase when the session needs it, then opens the profile again."""

    def __init__(self, session: Session, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.window = parent
        self.dialog: PassphraseDialog | None = None
        session.passphrase_needed.connect(self.ask)

    def ask(self, profile: object) -> None:
        storage = self.session.profiles.secrets
        if not isinstance(profile, Profile) or not isinstance(storage, SecretStorage):
            return
        if self.dialog is not None:
            self.dialog.raise_()
            return
        dialog = PassphraseDialog(storage, profile, self.window)
        self.dialog = dialog

        def done(result: int) -> None:
            self.dialog = None
            dialog.deleteLater()
            if result == QDialog.DialogCode.Accepted:
                self.session.open(profile)

        dialog.finished.connect(done)
        dialog.open()
