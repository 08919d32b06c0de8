"""Create or edit one resource (multicast group, application server, network context, AS
transport key) with a form derived from the schema's request model, checked live: flat fields
in a form, each nested object in a group (a sub-form, or a table for a list of them).

`SchemaFormDialog` is the form itself, for any request model (the application server security
dialog uses it too); fields the console fills itself (occContext) are never shown. Fields are
labelled in words (schema/labels.py; the API name in the tooltip), required ones marked from
the start, references picked by name, durations typed as a number and a unit; the form
scrolls within the screen and its message lines keep their room."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from ...models.forms import FormField, Raw, form_data, form_fields, form_for, raw_of, typed_fields
from ...models.references import ReferenceLists
from ...models.resources import ResourceViewModel
from ...schema.labels import label_of
from ..connections import SignalConnections
from ..widgets.fields_form import FieldsForm
from ..widgets.form_parts import SaveButtons, fit_dialog, form_scroll, message_line, screen_area
from ..widgets.nested_editor import FieldEditor, TableEditor

Checker = Callable[[dict[str, Any]], dict[str, str]]


class SchemaFormDialog(QDialog):
    """The fields of `model`, pre-filled from `item` (secrets never), checked by `checker`
    as they are typed. Save sends `data()` through `submit`; the owner calls `saved()` or
    `failed(message, field)` with the answer, and the form keeps what was typed.

    `changes_only`: when editing, nested fields left as they were are not sent (a PUT that
    changes only what is given). Off for a request that replaces the whole part.

    `first`: the fields to show first, in this order (a nested one's group above the other
    fields), e.g. what identifies a new item; `action`: the button's word ("Create")."""

    def __init__(
        self,
        model: type[BaseModel],
        item: Any,
        *,
        title: str,
        checker: Checker,
        submit: Callable[[dict[str, Any]], object],
        changes_only: bool,
        parent: QWidget | None = None,
        intro: str = "",
        references: ReferenceLists | None = None,
        first: Sequence[str] = (),
        action: str = "",
        elsewhere: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.item = item
        self._checker = checker
        self._submit = submit
        self._changes_only = changes_only and item is not None
        self.references = references
        fields, skipped = form_fields(model)
        # An object none of whose parts a form can edit (lists of lists) is not shown empty.
        empty = {f.name for f in fields if f.kind == "object" and not f.forms[0].fields}
        skipped = [*skipped, *(f.name for f in fields if f.name in empty)]
        self.fields = typed_fields(f for f in fields if f.name not in empty)
        self.initial = {spec.name: raw_of(spec, item) for spec in self.fields}
        body = QWidget()
        body.setObjectName("formBody")
        column = QVBoxLayout(body)
        if intro:
            note = QLabel(intro)
            note.setObjectName("formIntro")
            note.setWordWrap(True)
            column.addWidget(note)
        self.body = FieldsForm(
            self.fields,
            self.initial,
            first=first,
            unchanged_hint=item is not None,
            references=references.model if references is not None else None,
        )
        self.fields, self.editors = self.body.fields, self.body.editors
        column.addWidget(self.body)
        column.addStretch(1)
        if references is not None:
            references.load(_references(self.fields))
        self.inputs = {n: e.input for n, e in self.editors.items() if isinstance(e, FieldEditor)}
        self.errors = {name: editor.error for name, editor in self.editors.items()}
        self.scroll_area = scroll = form_scroll(body, "formScroll")
        self.form_error = message_line("formError")
        # A field this form cannot edit, and where it is edited when somewhere is:
        # "Alarm thresholds (in the station's Configuration tab)".
        where = elsewhere or {}
        skipped_words = ", ".join(
            f"{label_of(name, model)} ({where[name]})" if name in where else label_of(name, model)
            for name in skipped
        )
        note = QLabel("Not editable here: " + skipped_words if skipped else "")
        note.setWordWrap(True)
        note.setVisible(bool(skipped))
        self.buttons = SaveButtons(self, self.save, action)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
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
        self._connections = SignalConnections()
        self._dirty = False
        self.check()
        self.fit(screen_area(self))

    def fit(self, area: QRect) -> None:
        """As tall as the form within `area` (a screen's available part): beyond, it
        scrolls and the buttons stay in view."""
        fit_dialog(self, self.scroll_area, area, min_width=720 if len(self.fields) > 2 else 520)

    def connect_signals(self, *pairs: tuple[Any, Any]) -> None:
        """Signals of a view-model, disconnected when the dialog closes."""
        self._connections.connect_all(*pairs)

    def _follow(self, choice: FormField) -> None:
        """A choice that names a kind of table item (type KAFKA) sets the table's columns."""
        text = self.editors[choice.name].raw()
        for editor in self.editors.values():
            if isinstance(editor, TableEditor) and isinstance(text, str):
                index = form_for(editor.spec, text)
                if index is not None:
                    editor.set_form(index)

    def raws(self) -> dict[str, Raw]:
        return self.body.raws()

    def data(self) -> dict[str, Any]:
        return form_data(self.fields, self.raws(), self.initial if self._changes_only else None)

    def _edited(self) -> None:
        self._dirty = True
        self.check()

    def check(self) -> dict[str, str]:
        data = self.data()
        errors = self._checker(data)
        shown = self._dirty
        self.body.show_errors(errors, data, shown)
        known = {spec.name for spec in self.fields}
        whole = " ".join(m for n, m in errors.items() if n not in known)
        self.form_error.setText(whole if shown else "")
        save = self.buttons.save_button
        save.setEnabled(not errors)
        # Disabled, it says why, even before anything is typed (the fields say it once
        # touched): "Base station model: required".
        problems = list(errors.values())
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        save.setToolTip("; ".join(problems[:3]) + more if problems else "")
        return errors

    def save(self) -> None:
        self._dirty = True
        if self.check():
            return
        self.buttons.setEnabled(False)
        self.form_error.setText("")
        self._submit(self.data())

    def saved(self, *_args: object) -> None:
        self.accept()

    def failed(self, message: str, name: str) -> None:
        """The server refused: say why next to the field it names, keep what was typed."""
        self.buttons.setEnabled(True)
        editor = self.editors.get(name)
        if editor is not None:
            editor.show_errors(message, [])
        else:
            self.form_error.setText(message)

    def done(self, result: int) -> None:
        self._connections.disconnect_all()
        if self.references is not None:
            self.references.cancel()
        super().done(result)


def _references(fields: list[FormField]) -> set[str]:
    """The kinds of resource the fields name, those of an object's sub-fields included."""
    kinds = {spec.reference for spec in fields if spec.reference}
    for spec in fields:
        if spec.kind == "object":
            kinds |= {sub.reference for form in spec.forms for sub in form.fields if sub.reference}
    return kinds


class ResourceFormDialog(SchemaFormDialog):
    def __init__(
        self, vm: ResourceViewModel, item: Any = None, parent: QWidget | None = None
    ) -> None:
        kind = vm.kind
        creating = item is None
        model = kind.create_model if creating else kind.update_model
        assert model is not None
        super().__init__(
            model,
            item,
            title=f"New {kind.noun}" if creating else f"Edit {kind.noun} {kind.label(item)}",
            checker=lambda data: vm.check(data, creating=creating, item=item),
            submit=lambda data: vm.save(data, item),
            changes_only=True,
            parent=parent,
            references=ReferenceLists(vm.runner, vm.client),
        )
        self.setObjectName("resourceForm")
        self.vm = vm
        self.creating = creating
        self.connect_signals((vm.saved, self.saved), (vm.save_failed, self.failed))
