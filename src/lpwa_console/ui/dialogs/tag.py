"""Ask for one tag name, with the platform's suggestions as a completer."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QStringListModel, QTimer
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...models.validation import validate
from ...schema.common import TagRef
from ..connections import SignalConnections


class TagSource(Protocol):
    """What the dialog needs of a list's view-model (devices, base stations)."""

    suggestions_changed: Any  # Signal(list[str])

    def suggest_tags(self, query: str = "") -> None: ...


class TagDialog(QDialog):
    def __init__(
        self,
        view_model: TagSource,
        count: int,
        *,
        untag: bool,
        parent: QWidget | None = None,
        nouns: tuple[str, str] = ("device", "devices"),
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        noun = nouns[0] if count == 1 else nouns[1]
        self.setWindowTitle("Remove a tag" if untag else "Add a tag")
        prompt = QLabel(
            f"{'Remove from' if untag else 'Add to'} {count:,} selected {noun}, the tag:"
        )
        self.edit = QLineEdit()
        self.edit.setObjectName("tagName")
        self.edit.setPlaceholderText("tag name")
        self._suggestions = QStringListModel(self)
        completer = QCompleter(self._suggestions, self)
        completer.setCaseSensitivity(completer.caseSensitivity().CaseInsensitive)
        self.edit.setCompleter(completer)
        self.error = QLabel()
        self.error.setObjectName("fieldError")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(prompt)
        layout.addWidget(self.edit)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(200)
        self._debounce.timeout.connect(lambda: self.vm.suggest_tags(self.edit.text().strip()))
        self.edit.textEdited.connect(lambda _t: self._debounce.start())
        self.edit.textChanged.connect(self._validate)
        self._connections = SignalConnections(
            (view_model.suggestions_changed, self._suggestions.setStringList)
        )
        self.finished.connect(self._disconnect)
        view_model.suggest_tags("")
        self._validate()

    @property
    def tag_name(self) -> str:
        return self.edit.text().strip()

    def _validate(self) -> None:
        _, errors = validate(TagRef, {"name": self.tag_name})
        message = next(iter(errors.values()), "") if self.tag_name else ""
        self.error.setText("1 to 40 characters, no control characters, < or >" if message else "")
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.tag_name) and not errors)

    def _disconnect(self) -> None:
        self._connections.disconnect_all()
