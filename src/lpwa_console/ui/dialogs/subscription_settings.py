"""The subscription's settings (Document 1 §2.2): its name, tag suggestions for users with
domain restrictions, HSM protection of OTAA root keys. Pre-filled from what the platform
stores now, checked as typed, saved in the background; a refusal is shown here, with what was
typed kept."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...models.forms import tooltip_of
from ...models.subscription_settings import (
    HSM_CHOICES,
    SubscriptionSettings,
    SubscriptionSettingsViewModel,
    changes,
)
from ...schema.labels import field_words
from ...schema.subscription import Subscription
from ..connections import SignalConnections
from ..widgets.form_parts import SaveButtons, with_message
from ..widgets.nested_editor import error_label

TAGS_HELP = (
    "When off, users whose access is restricted to some domains get no tag suggestions "
    "(devices, base stations) while typing."
)
HSM_HELP = (
    "Activated: the root keys of LoRaWAN OTAA devices can be protected by a hardware security "
    "module. Deactivated: they cannot."
)


def _label(name: str) -> QLabel:
    """A row's label in words, the API name in its tooltip (options.hsm for `hsm`)."""
    words = field_words(name)
    label = QLabel(words.label)
    label.setToolTip(tooltip_of("options.hsm" if name == "hsm" else name, words))
    return label


def _with_help(widget: QWidget, text: str) -> QVBoxLayout:
    """An input with a line of help under it, in the theme's muted colour."""
    help_label = QLabel(text)
    help_label.setWordWrap(True)
    help_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    box = QVBoxLayout()
    box.setSpacing(2)
    box.addWidget(widget)
    box.addWidget(help_label)
    return box


class SubscriptionSettingsDialog(QDialog):
    def __init__(self, vm: SubscriptionSettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.setObjectName("subscriptionSettings")
        self.setWindowTitle("Subscription settings")
        self.before: SubscriptionSettings | None = None

        self.status = QLabel("Loading the subscription…")
        self.status.setObjectName("subscriptionStatus")
        self.status.setWordWrap(True)
        self.name = QLineEdit()
        self.name.setObjectName("name")
        self.name_error = error_label()
        self.tags = QCheckBox("Show tag suggestions to users with domain restrictions")
        self.tags.setObjectName("showTagSuggestions")
        self.hsm = QComboBox()
        self.hsm.setObjectName("hsm")
        for label, value in HSM_CHOICES:
            self.hsm.addItem(label, value)
        self.form_error = error_label()
        self.form_error.setObjectName("formError")

        form = QFormLayout()
        form.addRow(_label("name"), with_message(self.name, self.name_error))
        form.addRow(
            _label("showTagSuggestionsWhenDomainRestrictions"), _with_help(self.tags, TAGS_HELP)
        )
        form.addRow(_label("hsm"), _with_help(self.hsm, HSM_HELP))
        self.buttons = SaveButtons(self, self.save)
        self.save_button = self.buttons.save_button
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addLayout(form)
        layout.addWidget(self.form_error)
        layout.addStretch(1)
        layout.addWidget(self.buttons)

        self.name.textChanged.connect(lambda _t: self.check())
        self.tags.toggled.connect(lambda _on: self.check())
        self.hsm.currentIndexChanged.connect(lambda _i: self.check())
        self._connections = SignalConnections(
            (vm.loaded, self._loaded),
            (vm.load_failed, self._load_failed),
            (vm.saved, self._saved),
            (vm.save_failed, self._failed),
            (vm.availability_changed, self._availability),
        )
        self._saving = False
        self._set_editable(False)
        self.resize(max(self.sizeHint().width(), 560), self.sizeHint().height())
        vm.load()

    # --- state --------------------------------------------------------------------------

    def _set_editable(self, on: bool) -> None:
        for widget in (self.name, self.tags, self.hsm):
            widget.setEnabled(on)
        self.check()

    def settings(self) -> SubscriptionSettings:
        return SubscriptionSettings(
            name=self.name.text(),
            show_tag_suggestions=self.tags.isChecked(),
            hsm=str(self.hsm.currentData()),
        )

    def _loaded(self, subscription: Subscription) -> None:
        if self.before is not None:
            return  # read again meanwhile (after a save): keep what is typed
        self.before = SubscriptionSettings.of(subscription)
        self.name.setText(self.before.name)
        self.tags.setChecked(self.before.show_tag_suggestions)
        index = self.hsm.findData(self.before.hsm)
        if index < 0:  # a value of a newer platform: shown as it is
            self.hsm.addItem(self.before.hsm, self.before.hsm)
            index = self.hsm.count() - 1
        self.hsm.setCurrentIndex(index)
        ident = subscription.ID or ""
        self.status.setText(f"Subscription {ident}" if ident else "")
        self.status.setVisible(bool(ident))
        self._availability()

    def _load_failed(self, message: str) -> None:
        self.status.setText(f"Could not read the subscription: {message}")
        self._set_editable(False)

    def _availability(self) -> None:
        if self.before is None:
            return
        editable = self.vm.can_write
        if not editable:
            self.form_error.setText(self.vm.reason)
            self.form_error.setVisible(True)
        self._set_editable(editable and not self._saving)

    # --- checking and saving -------------------------------------------------------------

    def check(self) -> dict[str, str]:
        if self.before is None or not self.vm.can_write:
            self.save_button.setEnabled(False)
            return {"": "not loaded"}
        after = self.settings()
        errors = self.vm.check(self.before, after)
        self.name_error.setText(errors.get("name", ""))
        self.name_error.setVisible(bool(errors.get("name")))
        changed = bool(changes(self.before, after))
        self.save_button.setEnabled(not errors and changed and not self._saving)
        return errors

    def save(self) -> None:
        if self.before is None or self.check():
            return
        self._saving = True
        self.form_error.setVisible(False)
        self._set_editable(False)
        self.buttons.setEnabled(False)
        if not self.vm.save(self.before, self.settings()):
            self._saving = False

    def _saved(self, _subscription: object) -> None:
        if self._saving:
            self.accept()

    def _failed(self, message: str, name: str) -> None:
        self._saving = False
        self.buttons.setEnabled(True)
        self._set_editable(self.vm.can_write)
        if name == "name":
            self.name_error.setText(message)
            self.name_error.setVisible(True)
        else:
            self.form_error.setText(message)
            self.form_error.setVisible(True)

    def done(self, result: int) -> None:
        self._connections.disconnect_all()
        super().done(result)
