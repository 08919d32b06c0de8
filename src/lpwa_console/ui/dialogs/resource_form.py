"""Create or edit one resource (multicast group, application server, network context, AS
transport key) with a form derived from the schema's request model, checked live."""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...models.forms import FormField, form_data, form_fields, text_of
from ...models.resources import ResourceViewModel
from ..theme import severity_color


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
        self.inputs: dict[str, QLineEdit | QComboBox] = {}
        self.errors: dict[str, QLabel] = {}
        form = QFormLayout()
        for spec in self.fields:
            widget = self._input(spec)
            self.inputs[spec.name] = widget
            error = QLabel()
            error.setStyleSheet(f"color: {severity_color(6).name()}")
            error.setVisible(False)
            self.errors[spec.name] = error
            holder = QWidget()
            column = QVBoxLayout(holder)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(1)
            column.addWidget(widget)
            column.addWidget(error)
            form.addRow(spec.name + (" *" if spec.required else ""), holder)
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
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.form_error)
        layout.addWidget(self.buttons)
        self._connections = [
            (vm.saved, self._saved),
            (vm.save_failed, self._failed),
        ]
        for signal, slot in self._connections:
            signal.connect(slot)
        self._dirty = False
        self.check()

    def _input(self, spec: FormField) -> QLineEdit | QComboBox:
        if spec.kind in ("choice", "bool"):
            combo = QComboBox()
            combo.setObjectName(spec.name)
            values = spec.choices if spec.kind == "choice" else ("true", "false")
            combo.addItems(["", *values])
            combo.setCurrentText(text_of(spec, self.item))
            combo.currentIndexChanged.connect(lambda _i: self._edited())
            return combo
        edit = QLineEdit(text_of(spec, self.item))
        edit.setObjectName(spec.name)
        if spec.secret:
            edit.setEchoMode(QLineEdit.EchoMode.Password)
            edit.setPlaceholderText("unchanged" if not self.creating else "")
        elif spec.kind in ("list", "refs"):
            edit.setPlaceholderText("comma-separated")
        edit.textChanged.connect(lambda _t: self._edited())
        return edit

    def texts(self) -> dict[str, str]:
        return {
            name: w.currentText() if isinstance(w, QComboBox) else w.text()
            for name, w in self.inputs.items()
        }

    def data(self) -> dict[str, Any]:
        return form_data(self.fields, self.texts())

    def _edited(self) -> None:
        self._dirty = True
        self.check()

    def check(self) -> dict[str, str]:
        errors = self.vm.check(self.data(), creating=self.creating)
        for name, label in self.errors.items():
            message = errors.get(name, "") if self._dirty else ""
            label.setText(message)
            label.setVisible(bool(message))
        self.form_error.setText(errors.get("", "") if self._dirty else "")
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
        label = self.errors.get(name)
        if label is not None:
            label.setText(message)
            label.setVisible(True)
        else:
            self.form_error.setText(message)

    def done(self, result: int) -> None:
        for signal, slot in self._connections:
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
        self._connections = []
        super().done(result)
