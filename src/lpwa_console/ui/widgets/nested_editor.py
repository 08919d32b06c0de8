"""Editors of one field of a schema-derived form (models/forms.py): a flat field (its input
and its error line), a nested object (a sub-form, each sub-field with its error line) and a
list of nested objects (a table: one row per item, a column per sub-field; Add / Remove, or
Insert / Delete in the table; cells edited in place, errors marked on the cell)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...models.forms import FormField, Raw, Rows, SubForm, describe
from ...models.references import ReferenceListModel
from ..theme import severity_color
from .duration_input import DurationInput
from .keys import on_keys
from .reference_input import ReferenceCombo, ReferenceListInput

Input = QLineEdit | QComboBox | DurationInput
ERROR_ROLE = Qt.ItemDataRole.UserRole + 1
HINTS = {"list": "comma-separated", "refs": "comma-separated IDs"}
BOOL_WORDS = (("Yes", "true"), ("No", "false"))
# The list of a kind of resource (schema.labels.REFERENCE_NOUNS), for the fields naming one.
References = Callable[[str], ReferenceListModel]


def field_input(
    spec: FormField,
    text: str,
    *,
    unchanged_hint: bool = False,
    references: References | None = None,
) -> Input:
    """The input of a flat field: a combo of words for a choice or a yes/no, a number and
    a unit for a duration, the shared picker for a reference to another resource (when its
    list is given), a line edit otherwise (secrets masked). Its tooltip has the field's help
    and API name."""
    widget: Input
    if spec.kind in ("choice", "bool") or spec.yes_no:
        combo = QComboBox()
        combo.addItem("", "")
        pairs = (
            [(spec.choice_words(c), c) for c in spec.choices]
            if spec.kind == "choice"
            else list(BOOL_WORDS)
        )
        for words, value in pairs:
            combo.addItem(words, value)
        set_input_text(combo, text)
        widget = combo
    elif spec.kind == "duration":
        widget = DurationInput(text)
    elif spec.reference and references is not None and spec.kind in ("ref", "text"):
        picker = ReferenceCombo(references(spec.reference), "type a name or an ID")
        picker.setText(text)
        widget = picker
    elif spec.reference and references is not None and spec.kind == "refs":
        many = ReferenceListInput(references(spec.reference))
        many.set_ids([p.strip() for p in text.split(",") if p.strip()])
        widget = many
    else:
        widget = QLineEdit(text)
        widget.setPlaceholderText(HINTS.get(spec.kind, ""))
        if spec.secret:
            widget.setEchoMode(QLineEdit.EchoMode.Password)
            widget.setPlaceholderText("unchanged" if unchanged_hint else "")
    widget.setObjectName(spec.name)
    widget.setToolTip(spec.tooltip)
    widget.setAccessibleName(spec.label)
    return widget


def input_text(widget: QWidget) -> str:
    """What the input holds, as the form reads it: the value of a choice (not its words),
    the IDs of a picker, the ISO 8601 text of a duration."""
    if isinstance(widget, ReferenceCombo):
        return widget.text()
    if isinstance(widget, ReferenceListInput):
        return widget.ids_text()
    if isinstance(widget, QComboBox):
        data = widget.currentData()
        return str(data) if data is not None else widget.currentText()
    if isinstance(widget, DurationInput | QLineEdit):
        return widget.text()
    return ""


def set_input_text(widget: QWidget, text: str) -> None:
    if isinstance(widget, ReferenceCombo):
        widget.setText(text)
    elif isinstance(widget, ReferenceListInput):
        widget.set_ids([p.strip() for p in text.split(",") if p.strip()])
    elif isinstance(widget, QComboBox):
        index = widget.findData(text)
        if index < 0:
            index = widget.findText(text)
        widget.setCurrentIndex(max(index, 0))
    elif isinstance(widget, DurationInput | QLineEdit):
        widget.setText(text)


def on_change(widget: QWidget, slot: Callable[[], None]) -> None:
    if isinstance(widget, ReferenceCombo):
        widget.edited.connect(slot)
        widget.currentIndexChanged.connect(lambda _i: slot())
    elif isinstance(widget, QComboBox):
        widget.currentIndexChanged.connect(lambda _i: slot())
    elif isinstance(widget, DurationInput):
        widget.changed.connect(slot)
    elif isinstance(widget, QLineEdit):
        widget.textChanged.connect(lambda _t: slot())


def error_label() -> QLabel:
    """A field's error line. It keeps its room when empty (one line, wrapping when longer),
    so a message appearing never moves the fields under the mouse."""
    label = QLabel()
    label.setWordWrap(True)
    label.setObjectName("fieldError")
    label.setStyleSheet(f"color: {severity_color(6).name()}")
    policy = label.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    label.setSizePolicy(policy)
    label.setMinimumHeight(label.fontMetrics().height())
    return label


class Editor(QWidget):
    """One field: what it holds (`raw`), its error line, `edited` on every change."""

    edited = Signal()

    def __init__(self, spec: FormField, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.error = error_label()
        self.error.setObjectName(f"{spec.name}Error")

    def raw(self) -> Raw:
        raise NotImplementedError

    def show_errors(self, message: str, nested: list[dict[str, str]]) -> None:
        """The field's own message, and the errors of its rows by sub-field."""
        self.error.setText(message)


def editor_for(
    spec: FormField,
    raw: Raw,
    *,
    unchanged_hint: bool = False,
    references: References | None = None,
) -> Editor:
    if isinstance(raw, Rows):
        return TableEditor(spec, raw)
    if isinstance(raw, dict):
        return ObjectEditor(spec, raw, references=references)
    return FieldEditor(spec, raw, unchanged_hint=unchanged_hint, references=references)


def field_label(spec: FormField) -> QLabel:
    """A form row's label: the words, the required mark, the help and API name on hover."""
    label = QLabel(spec.marked_label)
    label.setToolTip(spec.tooltip)
    label.setObjectName(f"{spec.name}Label")
    return label


class FieldEditor(Editor):
    def __init__(
        self,
        spec: FormField,
        text: str,
        *,
        unchanged_hint: bool = False,
        references: References | None = None,
    ) -> None:
        super().__init__(spec)
        self.input = field_input(spec, text, unchanged_hint=unchanged_hint, references=references)
        on_change(self.input, self.edited.emit)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        unit = spec.about.unit
        if unit:
            row = QHBoxLayout()
            row.addWidget(self.input, 1)
            suffix = QLabel(unit)
            suffix.setToolTip(spec.tooltip)
            row.addWidget(suffix)
            column.addLayout(row)
        else:
            column.addWidget(self.input)
        column.addWidget(self.error)

    def raw(self) -> str:
        return input_text(self.input)


class ObjectEditor(Editor):
    """A nested object as a sub-form (its references picked like the form's own)."""

    def __init__(
        self, spec: FormField, raw: dict[str, str], *, references: References | None = None
    ) -> None:
        super().__init__(spec)
        form = QFormLayout()
        self.form = form
        self.fields: dict[str, FieldEditor] = {}
        for sub in spec.forms[0].fields:
            editor = FieldEditor(sub, raw.get(sub.name, ""), references=references)
            editor.edited.connect(self.edited)
            self.fields[sub.name] = editor
            form.addRow(field_label(sub), editor)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(form)
        column.addWidget(self.error)

    def raw(self) -> dict[str, str]:
        return {name: editor.raw() for name, editor in self.fields.items()}

    def show_errors(self, message: str, nested: list[dict[str, str]]) -> None:
        errors = nested[0] if nested else {}
        for name, editor in self.fields.items():
            editor.show_errors(errors.get(name, ""), [])
        super().show_errors(errors.get("", "") or ("" if errors else message), [])


class _CellDelegate(QStyledItemDelegate):
    """Cells edited with the inputs of flat fields, committed as they are typed."""

    def __init__(self, owner: TableEditor) -> None:
        super().__init__(owner)
        self.owner = owner
        self._loading = False

    def createEditor(
        self,
        parent: QWidget,
        _option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> QWidget:
        widget = field_input(self.owner.form.fields[index.column()], "")
        widget.setParent(parent)
        if isinstance(widget, QLineEdit | QComboBox):
            widget.setFrame(False)
        on_change(widget, lambda: self._commit(widget))
        return widget

    def _commit(self, editor: QWidget) -> None:
        if not self._loading:
            self.commitData.emit(editor)

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        """A choice's cell holds the value and reads in words."""
        super().initStyleOption(option, index)
        fields = self.owner.form.fields
        if 0 <= index.column() < len(fields) and fields[index.column()].kind == "choice":
            option.text = fields[index.column()].choice_words(option.text)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        super().paint(painter, option, index)
        if index.data(ERROR_ROLE):  # framed, so it shows on a selected row too
            painter.save()
            painter.setPen(QPen(severity_color(6), 2))
            painter.drawRect(option.rect.adjusted(1, 1, -1, -1))
            painter.restore()

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:
        text = str(index.data(Qt.ItemDataRole.EditRole) or "")
        if input_text(editor) != text:
            self._loading = True  # the view does not know the editor yet: no commit
            set_input_text(editor, text)  # only when it differs: the cursor stays put
            self._loading = False

    def setModelData(
        self,
        editor: QWidget,
        model: QAbstractItemModel,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        model.setData(index, input_text(editor), Qt.ItemDataRole.EditRole)


class TableEditor(Editor):
    """A list of nested objects as a table; a list of several kinds of item (HTTP or Kafka
    destinations) has a choice of kind, which sets the columns."""

    def __init__(self, spec: FormField, raw: Rows) -> None:
        super().__init__(spec)
        self.rows = [dict(row) for row in raw.rows]
        noun = spec.noun.lower()
        self.kind = QComboBox()
        self.kind.setObjectName(f"{spec.name}Kind")
        self.kind.addItems([form.label for form in spec.forms])
        self.kind.setCurrentIndex(raw.form)
        self.kind.setVisible(len(spec.forms) > 1)
        self.kind.setToolTip(f"Which kind of {noun} the rows are")
        self.table = QTableWidget()
        self.table.setObjectName(f"{spec.name}Table")
        self.table.setAccessibleName(spec.name)
        self.table.setItemDelegate(_CellDelegate(self))
        self.table.setTabKeyNavigation(False)  # Tab leaves the table, arrows move in it
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.SelectedClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.table.setWordWrap(False)
        self.table.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustToContents)
        row_height = self.table.verticalHeader().defaultSectionSize()
        self.table.setMinimumHeight(row_height * 3 + 4)
        self.table.setMaximumHeight(row_height * 7 + 4)
        self.add_button = QPushButton("Add")
        self.add_button.setAccessibleName(f"Add {noun}")
        self.add_button.setToolTip(f"Add a {noun} (Insert in the table)")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setAccessibleName(f"Remove {noun}")
        self.remove_button.setToolTip(f"Remove the selected {noun}s (Delete in the table)")
        self.add_button.clicked.connect(self.add)
        self.remove_button.clicked.connect(self.remove)
        # Insert adds a row, Delete removes the selected ones (not while a cell is edited:
        # the cell's editor has the keys then).
        on_keys(
            self.table, {Qt.Key.Key_Insert: self.add, Qt.Key.Key_Delete: self.remove}, plain=True
        )
        self.table.itemChanged.connect(self._cell_changed)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.kind, 0, 0, Qt.AlignmentFlag.AlignLeft)
        grid.addWidget(self.table, 1, 0)
        grid.addLayout(buttons, 1, 1)
        grid.addWidget(self.error, 2, 0, 1, 2)
        self._fill()

    @property
    def form(self) -> SubForm:
        return self.spec.forms[max(self.kind.currentIndex(), 0)]

    def raw(self) -> Rows:
        return Rows([dict(row) for row in self.rows], max(self.kind.currentIndex(), 0))

    def set_form(self, index: int) -> None:
        self.kind.setCurrentIndex(index)

    def _fill(self, current: int = -1) -> None:
        fields = self.form.fields
        self.table.blockSignals(True)
        self.table.clear()
        self.table.setColumnCount(len(fields))
        self.table.setRowCount(len(self.rows))
        for column, sub in enumerate(fields):
            header = QTableWidgetItem(sub.marked_label)
            header.setToolTip(sub.tooltip)
            self.table.setHorizontalHeaderItem(column, header)
            narrow = sub.kind in ("choice", "bool", "int", "float")
            self.table.horizontalHeader().setSectionResizeMode(
                column,
                QHeaderView.ResizeMode.ResizeToContents
                if narrow
                else QHeaderView.ResizeMode.Stretch,
            )
            for row, texts in enumerate(self.rows):
                self.table.setItem(row, column, QTableWidgetItem(texts.get(sub.name, "")))
        self.table.blockSignals(False)
        if 0 <= current < len(self.rows):
            self.table.setCurrentCell(current, 0)
        self.remove_button.setEnabled(bool(self.rows))

    def _cell_changed(self, item: QTableWidgetItem) -> None:
        self.rows[item.row()][self.form.fields[item.column()].name] = item.text()
        self.edited.emit()

    def _kind_changed(self, _index: int) -> None:
        self._fill()
        self.edited.emit()

    def add(self) -> None:
        self.rows.append({})
        self._fill(len(self.rows) - 1)
        self.table.setFocus()
        self.table.edit(self.table.currentIndex())
        self.edited.emit()

    def remove(self) -> None:
        chosen = {index.row() for index in self.table.selectionModel().selectedRows()}
        chosen = chosen or {self.table.currentRow()} - {-1}
        if not chosen:
            return
        for row in sorted(chosen, reverse=True):
            del self.rows[row]
        self._fill(min(min(chosen), len(self.rows) - 1))
        self.edited.emit()

    def show_errors(self, message: str, nested: list[dict[str, str]]) -> None:
        self.table.blockSignals(True)
        for row in range(self.table.rowCount()):
            errors = nested[row] if row < len(nested) else {}
            for column, sub in enumerate(self.form.fields):
                item = self.table.item(row, column)
                text = errors.get(sub.name, "") or errors.get("", "")
                assert item is not None
                item.setToolTip(text or item.text())  # the error, or all of a long text
                item.setData(ERROR_ROLE, bool(text))
        self.table.blockSignals(False)
        super().show_errors(describe(self.spec, nested) or message, [])
