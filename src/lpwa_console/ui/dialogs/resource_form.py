"""Create or edit one resource (multicast group, application server, network context, AS
transport key) with a form derived from the schema's request model, checked live: flat fields
in a form, each nested object in a group (a sub-form, or a table for a list of them)."""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ...models.forms import (
    NESTED_KINDS,
    FormField,
    Raw,
    form_data,
    form_fields,
    form_for,
    nested_errors,
    raw_of,
)
from ...models.resources import ResourceViewModel
from ..theme import severity_color
from ..widgets.nested_editor import Editor, FieldEditor, TableEditor, editor_for


class ResourceFormDialog(QDialog):
    def __init__(
        self, vm: ResourceViewModel, item: Any = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.vm = vm
        self.item = item
        self.creating = item is None
        kind = vm.kind
        model = kind.create_model if self.creating else kind.update_model
        assert model is not None
        self.setWindowTitle(
            f"New {kind.noun}" if self.creating else f"Edit {kind.noun} {kind.label(item)}"
        )
        self.setObjectName("resourceForm")
        self.fields, skipped = form_fields(model)
        self.initial = {spec.name: raw_of(spec, item) for spec in self.fields}
        self.editors: dict[str, Editor] = {}
        form = QFormLayout()
        body = QWidget()
        column = QVBoxLayout(body)
        column.addLayout(form)
        for spec in self.fields:  # flat fields first, then a group per nested one
            editor = editor_for(spec, self.initial[spec.name], unchanged_hint=not self.creating)
            self.editors[spec.name] = editor
            if spec.kind in NESTED_KINDS:
                group = QGroupBox(spec.label)
                QVBoxLayout(group).addWidget(editor)
                column.addWidget(group)
            else:
                form.addRow(spec.label, editor)
        column.addStretch(1)
        self.inputs = {n: e.input for n, e in self.editors.items() if isinstance(e, FieldEditor)}
        self.errors = {name: editor.error for name, editor in self.editors.items()}
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(body)
        self.form_error = QLabel()
        self.form_error.setObjectName("formError")
        self.form_error.setWordWrap(True)
        self.form_error.setStyleSheet(f"color: {severity_color(6).name()}")
        note = QLabel("Not editable here: " + ", ".join(skipped) if skipped else "")
        note.setWordWrap(True)
        note.setVisible(bool(skipped))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        layout.addWidget(note)
        layout.addWidget(self.form_error)
        layout.addWidget(self.buttons)
        for spec in self.fields:
            if spec.kind == "choice":
                self._follow(spec)
        for spec in self.fields:
            if spec.kind == "choice":
                self.editors[spec.name].edited.connect(lambda s=spec: self._follow(s))
            self.editors[spec.name].edited.connect(self._edited)
        self._connections = [
            (vm.saved, self._saved),
            (vm.save_failed, self._failed),
        ]
        for signal, slot in self._connections:
            signal.connect(slot)
        self._dirty = False
        self.check()
        room = self.screen().availableGeometry().height() * 85 // 100
        self.resize(
            max(body.sizeHint().width() + 40, 720),
            min(body.sizeHint().height() + self.buttons.sizeHint().height() + 60, room),
        )

    def _follow(self, choice: FormField) -> None:
        """A choice that names a kind of table item (type KAFKA) sets the table's columns."""
        text = self.editors[choice.name].raw()
        for editor in self.editors.values():
            if isinstance(editor, TableEditor) and isinstance(text, str):
                index = form_for(editor.spec, text)
                if index is not None:
                    editor.set_form(index)

    def raws(self) -> dict[str, Raw]:
        return {name: editor.raw() for name, editor in self.editors.items()}

    def data(self) -> dict[str, Any]:
        return form_data(self.fields, self.raws(), None if self.creating else self.initial)

    def _edited(self) -> None:
        self._dirty = True
        self.check()

    def check(self) -> dict[str, str]:
        data = self.data()
        errors = self.vm.check(data, creating=self.creating)
        shown = self._dirty
        for spec in self.fields:
            editor = self.editors[spec.name]
            nested = nested_errors(spec, editor.raw()) if shown and spec.name in data else []
            editor.show_errors(errors.get(spec.name, "") if shown else "", nested)
        self.form_error.setText(errors.get("", "") if shown else "")
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        save.setEnabled(not errors)
        return errors

    def save(self) -> None:
        self._dirty = True
        if self.check():
            return
        self.buttons.setEnabled(False)
        self.vm.save(self.data(), self.item)

    def _saved(self, _item: object) -> None:
        self.accept()

    def _failed(self, message: str, name: str) -> None:
        self.buttons.setEnabled(True)
        editor = self.editors.get(name)
        if editor is not None:
            editor.show_errors(message, [])
        else:
            self.form_error.setText(message)

    def done(self, result: int) -> None:
        for signal, slot in self._connections:
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
        self._connections = []
        super().done(result)
