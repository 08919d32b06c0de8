"""Inputs for the ID of another resource (an AS transport key, an HSM group, a network context,
application servers) picked from the platform's list or typed as is.

The list (models.devices.ReferenceListModel) reads "ID — name" and holds the ID as EditRole:
completion matches anywhere in the ID or the name and inserts the ID. It loads in the
background and may never load: the inputs accept any text, and a list that arrives later never
replaces what the user typed."""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QComboBox, QCompleter, QLineEdit, QWidget

from ...models.devices import ReferenceListModel


class ReferenceCompleter(QCompleter):
    """Completes an ID from a ReferenceListModel. With `multiple`, the input holds
    comma-separated IDs and only the last one is completed."""

    def __init__(
        self, model: QAbstractItemModel, parent: QObject | None = None, *, multiple: bool = False
    ) -> None:
        super().__init__(model, parent)
        self.multiple = multiple
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterMode(Qt.MatchFlag.MatchContains)
        self.setCompletionRole(Qt.ItemDataRole.DisplayRole)
        self.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setMaxVisibleItems(12)

    def splitPath(self, path: str) -> list[str]:
        if self.multiple:
            path = path.rsplit(",", 1)[-1]
        return [path.strip()]

    def pathFromIndex(self, index: QModelIndex | QPersistentModelIndex) -> str:
        ident = str(index.data(Qt.ItemDataRole.EditRole) or "")
        widget = self.widget()
        if not self.multiple or not isinstance(widget, QLineEdit):
            return ident
        text = widget.text()
        head = text.rsplit(",", 1)[0].strip() if "," in text else ""
        return f"{head}, {ident}" if head else ident


class _ShowAllOnDown(QObject):
    """Down arrow in an input whose completion list is closed: list every choice."""

    def __init__(self, edit: QLineEdit, completer: ReferenceCompleter) -> None:
        super().__init__(edit)
        self.edit = edit
        self.completer = completer
        edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.edit
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Down
            and not self.completer.popup().isVisible()  # type: ignore[union-attr]
            and self.completer.model().rowCount() > 0
        ):
            self.completer.setCompletionPrefix(self.completer.splitPath(self.edit.text())[0])
            if self.completer.completionCount() == 0:
                self.completer.setCompletionPrefix("")
            self.completer.complete()
            return True
        return super().eventFilter(watched, event)


def attach_completer(
    edit: QLineEdit, model: ReferenceListModel, *, multiple: bool = False
) -> ReferenceCompleter:
    """Complete `edit` from `model`; Down lists every choice."""
    completer = ReferenceCompleter(model, edit, multiple=multiple)
    edit.setCompleter(completer)
    _ShowAllOnDown(edit, completer)
    return completer


class ReferenceCombo(QComboBox):
    """An editable combo over a ReferenceListModel: pick from the list or type an ID.

    `text()` is the ID. When the list (re)loads, QComboBox would select its first item and
    overwrite the input: what was there is put back instead. `edited` means the user changed
    it (typing or picking), as QLineEdit.textEdited does."""

    edited = Signal()

    def __init__(
        self, model: ReferenceListModel, placeholder: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.list_model = model
        self._placeholder = placeholder
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(12)
        self.setModel(model)
        self.setCompleter(ReferenceCompleter(model, self))
        self._kept = ""
        model.modelAboutToBeReset.connect(self._keep)
        model.modelReset.connect(self._restore)
        self.setCurrentIndex(-1)
        self.setEditText("")
        self.show_list_state()
        self.edit().textEdited.connect(lambda _t: self.edited.emit())
        self.activated.connect(lambda _i: self.edited.emit())

    def text(self) -> str:
        return self.currentText()

    def edit(self) -> QLineEdit:
        edit = self.lineEdit()
        assert edit is not None  # editable
        return edit

    def setText(self, text: str) -> None:
        index = self.findData(text, Qt.ItemDataRole.EditRole)
        self.setCurrentIndex(index)
        if self.currentText() != text:
            self.setEditText(text)

    def _keep(self) -> None:
        self._kept = self.currentText()

    def _restore(self) -> None:
        self.setText(self._kept)
        self.show_list_state()

    def show_list_state(self) -> None:
        """Say in the placeholder when there is no list to pick from."""
        edit = self.edit()
        model = self.list_model
        if model.error and not model.items:
            edit.setPlaceholderText(f"{self._placeholder} (list unavailable)".strip())
            self.setToolTip(f"Could not list them: {model.error}. Type the ID.")
        else:
            edit.setPlaceholderText(self._placeholder)
            self.setToolTip("Pick from the list or type the ID" if model.items else "Type the ID")
