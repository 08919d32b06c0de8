"""The one picker of every field that names another resource (a device model, application
servers, an AS transport key, an HSM group, a network context): searchable, reading
"name (ID)", the ID typed as is when the list is not there.

The list (models.references.ReferenceListModel) reads "name (ID)" and holds the ID in ID_ROLE:
completion matches anywhere in the name or the ID. `ReferenceCombo` picks one, and
`ReferenceListInput` several (comma-separated); both show "name (ID)" once picked and give
the IDs (`ids_text`). A plain line edit (a list filter) can complete IDs with
`attach_completer`. Lists load in the background and may never load: the inputs accept any
text, and a list that arrives later never replaces what the user typed. Down lists every
choice; Enter or Tab takes the highlighted one."""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QComboBox, QCompleter, QLineEdit, QWidget

from ...models.references import ID_ROLE, ReferenceListModel
from .keys import on_keys


class ReferenceCompleter(QCompleter):
    """Completes from a ReferenceListModel, matching the name or the ID. With `multiple`,
    the input holds comma-separated references and only the last one is completed. It
    inserts the ID (`labels` False: a filter) or "name (ID)" (a picker)."""

    def __init__(
        self,
        model: QAbstractItemModel,
        parent: QObject | None = None,
        *,
        multiple: bool = False,
        labels: bool = False,
    ) -> None:
        super().__init__(model, parent)
        self.multiple = multiple
        self.labels = labels
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterMode(Qt.MatchFlag.MatchContains)
        self.setCompletionRole(Qt.ItemDataRole.DisplayRole)
        self.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setMaxVisibleItems(12)
        # Cut in the middle if at all: "(ID)" at the end tells near-duplicates apart.
        popup = self.popup()
        if popup is not None:
            popup.setTextElideMode(Qt.TextElideMode.ElideMiddle)

    def splitPath(self, path: str) -> list[str]:
        if self.multiple:
            path = path.rsplit(",", 1)[-1]
        return [path.strip()]

    def pathFromIndex(self, index: QModelIndex | QPersistentModelIndex) -> str:
        role = Qt.ItemDataRole.DisplayRole if self.labels else ID_ROLE
        ident = str(index.data(role) or "")
        widget = self.widget()
        if not self.multiple or not isinstance(widget, QLineEdit):
            return ident
        text = widget.text()
        head = text.rsplit(",", 1)[0].strip() if "," in text else ""
        return f"{head}, {ident}" if head else ident


def show_all_on_down(edit: QLineEdit, completer: ReferenceCompleter) -> None:
    """Down arrow in an input whose completion list is closed: list every choice."""

    def show_all() -> bool:
        popup = completer.popup()
        if (popup is not None and popup.isVisible()) or completer.model().rowCount() == 0:
            return False
        completer.setCompletionPrefix(completer.splitPath(edit.text())[0])
        if completer.completionCount() == 0:
            completer.setCompletionPrefix("")
        completer.complete()
        return True

    on_keys(edit, {Qt.Key.Key_Down: show_all})


def attach_completer(
    edit: QLineEdit, model: ReferenceListModel, *, multiple: bool = False
) -> ReferenceCompleter:
    """Complete `edit` from `model`; Down lists every choice."""
    completer = ReferenceCompleter(model, edit, multiple=multiple)
    edit.setCompleter(completer)
    show_all_on_down(edit, completer)
    return completer


class ReferenceCombo(QComboBox):
    """An editable combo over a ReferenceListModel: pick from the list ("name (ID)") or type
    an ID.

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
        self.setCompleter(ReferenceCompleter(model, self, labels=True))
        self._kept = ""
        self._blocked = False
        model.modelAboutToBeReset.connect(self._keep)
        model.modelReset.connect(self._restore)
        self.setCurrentIndex(-1)
        self.setEditText("")
        self.show_list_state()
        self.edit().textEdited.connect(lambda _t: self.edited.emit())
        # The whole "name (ID)" on hover, where the field is too narrow for it.
        self.currentTextChanged.connect(lambda text: self.edit().setToolTip(text))
        self.activated.connect(lambda _i: self.edited.emit())

    def text(self) -> str:
        """The ID picked or typed."""
        return self.list_model.id_of(self.currentText())

    def showPopup(self) -> None:
        """The list as wide as its widest "name (ID)" (within the screen): near-duplicate
        names ("Abeeway Micro Tracker", "Abeeway Micro-Tracker") differ by their IDs, which
        a list as narrow as the field cut off."""
        view = self.view()
        view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # if cut at all, the ID stays
        wanted = view.sizeHintForColumn(0) + view.verticalScrollBar().sizeHint().width() + 24
        screen = self.screen()
        room = screen.availableGeometry().width() - 40 if screen is not None else wanted
        view.setMinimumWidth(max(self.width(), min(wanted, room)))
        super().showPopup()

    def edit(self) -> QLineEdit:
        edit = self.lineEdit()
        assert edit is not None  # editable
        return edit

    def setText(self, text: str) -> None:
        """Show the resource with this ID ("name (ID)" when the list knows it)."""
        index = self.findData(text, ID_ROLE) if text else -1
        self.setCurrentIndex(index)
        shown = self.list_model.text_of(text) if text else ""
        if self.currentText() != shown:
            self.setEditText(shown)

    def _keep(self) -> None:
        # A list (re)loading is no change of the user's: no currentIndexChanged until the
        # input shows what it held (a form would take it for an edit and show its errors).
        self._kept = self.text()
        self._blocked = self.blockSignals(True)

    def _restore(self) -> None:
        self.setText(self._kept)
        self.blockSignals(self._blocked)
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


class ReferenceListInput(QLineEdit):
    """Several references in one line, comma-separated, each completed from the list and
    shown as "name (ID)"; `ids_text()` gives the IDs ("as-1, as-2"), typed IDs as they are."""

    def __init__(
        self, model: ReferenceListModel, placeholder: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.list_model = model
        self.setPlaceholderText(placeholder or "type a name or an ID; Down lists them")
        completer = ReferenceCompleter(model, self, multiple=True, labels=True)
        self.setCompleter(completer)
        show_all_on_down(self, completer)
        self._kept: list[str] = []
        model.modelAboutToBeReset.connect(self._keep)
        model.modelReset.connect(self._restore)

    def ids(self) -> list[str]:
        """The IDs named: each known "name (ID)" first (a name may hold a comma), then
        the rest split at commas."""
        rest = self.text()
        found: list[tuple[int, str]] = []
        for ident, _name in self.list_model.items:
            shown = self.list_model.text_of(ident)
            at = rest.find(shown) if shown != ident else -1
            if at >= 0:
                found.append((at, ident))
                rest = rest[:at] + "," * len(shown) + rest[at + len(shown) :]
        for part in rest.split(","):
            at = self.text().find(part.strip())
            if part.strip():
                found.append((at, self.list_model.id_of(part)))
        return [ident for _at, ident in sorted(found)]

    def ids_text(self) -> str:
        return ", ".join(self.ids())

    def set_ids(self, ids: list[str]) -> None:
        self.setText(", ".join(self.list_model.text_of(i) for i in ids))

    def _keep(self) -> None:
        self._kept = self.ids()

    def _restore(self) -> None:
        """The list (re)loaded: the same IDs, now with their names."""
        if self._kept and not self.hasFocus():
            self.set_ids(self._kept)
        self._kept = []
