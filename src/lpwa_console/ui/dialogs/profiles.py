"""Add and edit connection profiles. The secret goes from its password field straight to
the keyring (or, on a computer without one, where the user chooses: `SecretStorageChoice`);
it is never shown again, logged or kept in the settings. A save that fails keeps the form as
typed, the secret included."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...models.pane_access import ACCOUNT_KIND_WORDS
from ...models.profiles import (
    DEMO_ROLES,
    Profile,
    ProfileStore,
    SecretStoreError,
    embedded_profile,
    is_remote_plain_http,
    secret_key,
)
from ...models.secret_file import PassphraseNeeded
from ...models.secret_storage import STORAGE_WORDS, KeyringUnavailable, SecretStorage
from ...models.session import Session
from ...schema.labels import role_words
from .secret_storage import SecretStorageChoice

NEW_PROFILE = "New platform"


class ProfilesDialog(QDialog):
    def __init__(self, store: ProfileStore, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.session = session
        self.setWindowTitle("Connection profiles")
        self.resize(640, 380)
        self._editing = ""

        self.list = QListWidget()
        self.list.setObjectName("profileList")
        self.list.setMaximumWidth(200)
        add = QPushButton("Add platform")
        self.remove = QPushButton("Remove")
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        left.addWidget(add)
        left.addWidget(self.remove)

        # Embedded: only the demo role.
        self.role = QComboBox()
        self.role.setObjectName("embeddedRole")
        for role in DEMO_ROLES:  # in words; the slug is the item's data
            self.role.addItem(role_words(role), role)
        embedded = QWidget()
        embedded_form = QFormLayout(embedded)
        note = QLabel(
            "The embedded sandbox runs on this computer, with demo data. "
            "Choose which demo account signs in."
        )
        note.setWordWrap(True)
        embedded_form.addRow(note)
        embedded_form.addRow("Account role", self.role)

        # Remote platform.
        self.name = QLineEdit()
        self.subscriber_url = QLineEdit()
        self.subscriber_url.setPlaceholderText("https://host/thingpark/wireless/rest")
        self.operator_url = QLineEdit()
        self.operator_url.setPlaceholderText("optional")
        self.token_url = QLineEdit()
        self.token_url.setPlaceholderText("https://host/users-auth/protocol/openid-connect/token")
        self.client_id = QLineEdit()
        self.account_kind = QComboBox()
        self.account_kind.setObjectName("accountKind")
        self.account_kind.setToolTip("Which interface the account uses: it chooses the panes")
        for kind, words in ACCOUNT_KIND_WORDS.items():
            self.account_kind.addItem(words, kind)
        self.secret = QLineEdit()
        self.secret.setObjectName("clientSecret")
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.verify = QCheckBox("Verify TLS certificates")
        self.verify.setChecked(True)
        # Shown only for http:// to another computer; stored with the profile.
        self.allow_http = QCheckBox("I understand this sends my credentials unencrypted")
        self.allow_http.setObjectName("allowPlainHttp")
        self.allow_http.setToolTip(
            "An http:// address (not https://) sends the client secret and every access token"
            " in clear over the network"
        )
        self.allow_http.setVisible(False)
        self.secret_state = QLabel()
        remote = QWidget()
        remote_form = QFormLayout(remote)
        remote_form.addRow("Name", self.name)
        remote_form.addRow("Subscriber API URL", self.subscriber_url)
        remote_form.addRow("Operator API URL", self.operator_url)
        remote_form.addRow("Token URL", self.token_url)
        remote_form.addRow("Client ID", self.client_id)
        remote_form.addRow("Account", self.account_kind)
        remote_form.addRow("Client secret", self.secret)
        remote_form.addRow("", self.secret_state)
        remote_form.addRow("", self.verify)
        remote_form.addRow("", self.allow_http)
        for url_field in (self.subscriber_url, self.operator_url, self.token_url):
            url_field.textChanged.connect(self._plain_http_changed)
        self.forms = QStackedWidget()
        self.forms.addWidget(embedded)
        self.forms.addWidget(remote)

        self.error = QLabel()
        self.error.setObjectName("formError")
        self.error.setWordWrap(True)
        # Where the secret goes when no keyring takes it; the save is made again once chosen.
        self.storage_choice = SecretStorageChoice()
        self.storage_choice.chosen.connect(self._storage_chosen)
        self._then_connect = False
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_button = self.buttons.addButton("Save", QDialogButtonBox.ButtonRole.ApplyRole)
        self.connect_button = self.buttons.addButton(
            "Save and connect", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.buttons.rejected.connect(self.reject)
        self.save_button.clicked.connect(self._save_only)
        self.connect_button.clicked.connect(self.save_and_connect)

        right = QVBoxLayout()
        right.addWidget(self.forms, 1)
        right.addWidget(self.error)
        right.addWidget(self.storage_choice)
        body = QHBoxLayout()
        body.addLayout(left)
        body.addLayout(right, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.buttons)

        add.clicked.connect(self.add)
        self.remove.clicked.connect(self._remove)
        self.list.currentTextChanged.connect(self._show)
        self._reload(store.last_profile_name())

    def _reload(self, select: str) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        self.list.addItems(self.store.names())
        self.list.blockSignals(False)
        matches = self.list.findItems(select, Qt.MatchFlag.MatchExactly)
        self.list.setCurrentItem(matches[0] if matches else self.list.item(0))
        self._show(self.list.currentItem().text() if self.list.currentItem() else "")

    def _show(self, name: str) -> None:
        self.error.clear()
        self.storage_choice.dismiss()
        profile = self.store.get(name) if name != NEW_PROFILE else Profile("")
        profile = profile or Profile(name)
        self._editing = profile.name
        self.remove.setEnabled(not profile.is_embedded and bool(profile.name))
        if profile.is_embedded:
            self.forms.setCurrentIndex(0)
            self.role.setCurrentIndex(max(self.role.findData(profile.role), 0))
            return
        self.forms.setCurrentIndex(1)
        self.name.setText(profile.name)
        self.subscriber_url.setText(profile.subscriber_url)
        self.operator_url.setText(profile.operator_url)
        self.token_url.setText(profile.token_url)
        self.client_id.setText(profile.client_id)
        self.account_kind.setCurrentIndex(max(self.account_kind.findData(profile.role), 0))
        self.verify.setChecked(profile.verify_tls)
        self.allow_http.setChecked(profile.allow_plain_http)
        self._plain_http_changed()
        self.secret.clear()
        stored = bool(profile.name) and self.store.has_secret(profile)
        where = STORAGE_WORDS["keyring"]
        storage = self.store.secrets
        if stored and isinstance(storage, SecretStorage):
            where = STORAGE_WORDS.get(str(storage.where(secret_key(profile))), where)
        self.secret.setPlaceholderText(f"stored {where}; type to replace" if stored else "")
        self.secret_state.setText(f"A secret is stored {where}" if stored else "")

    def _plain_http(self) -> bool:
        urls = (self.subscriber_url, self.operator_url, self.token_url)
        return any(is_remote_plain_http(url.text()) for url in urls)

    def _plain_http_changed(self) -> None:
        self.allow_http.setVisible(self._plain_http())

    def add(self) -> None:
        self.list.addItem(NEW_PROFILE)
        self.list.setCurrentRow(self.list.count() - 1)
        self.name.setFocus()

    def current_profile(self) -> Profile:
        if self.forms.currentIndex() == 0:
            return embedded_profile(str(self.role.currentData()))
        return Profile(
            name=self.name.text().strip(),
            subscriber_url=self.subscriber_url.text().strip(),
            operator_url=self.operator_url.text().strip(),
            token_url=self.token_url.text().strip(),
            client_id=self.client_id.text().strip(),
            role=str(self.account_kind.currentData() or "subscriber"),
            verify_tls=self.verify.isChecked(),
            allow_plain_http=self._plain_http() and self.allow_http.isChecked(),
        )

    def save(self) -> Profile | None:
        profile = self.current_profile()
        problems = profile.problems()
        if problems:
            self.error.setText(
                "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in problems.items())
            )
            return None
        secret = self.secret.text()
        old = self._editing if self._editing != profile.name else ""
        if not profile.is_embedded and not secret and not self.store.get(old or profile.name):
            self.error.setText("Client secret: required for a new platform")
            return None
        try:
            self.store.save(profile, secret or None, old_name=old)
        except (KeyringUnavailable, PassphraseNeeded) as exc:
            # No keyring here (or the secrets file is locked): the user chooses where the
            # secret goes, and the save is made again; the form stays as typed.
            storage = self.store.secrets
            if not isinstance(storage, SecretStorage):
                self.error.setText(str(exc))
                return None
            self.error.clear()  # the panel says why, and what can be done
            self.storage_choice.ask(storage, str(exc))
            return None
        except (SecretStoreError, ValueError) as exc:
            self.error.setText(str(exc))  # the form keeps what was typed
            return None
        self.secret.clear()  # stored now: never shown again
        self._reload(profile.name)
        return profile

    def _save_only(self) -> None:
        self._then_connect = False
        self.save()

    def save_and_connect(self) -> None:
        self._then_connect = True
        profile = self.save()
        if profile is not None:
            self._then_connect = False
            self.session.open(profile)
            self.accept()

    def _storage_chosen(self) -> None:
        """The secret has a place now: the save (and connect) asked before, again."""
        if self._then_connect:
            self.save_and_connect()
        else:
            self.save()

    def _remove(self) -> None:
        name = self._editing
        if name and name != NEW_PROFILE:
            self.store.remove(name)
        self._reload(self.store.last_profile_name())
