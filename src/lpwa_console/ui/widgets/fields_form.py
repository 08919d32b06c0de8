"""The fields of a request model as a form: flat fields in rows (label, input and its message
line), each nested object or list in a group of its own; what is typed read back as raws, and
the checker's errors shown next to their field. One body for every schema-derived form: a
resource's create and edit dialog (`dialogs/resource_form.py`) and a station command's
parameters (`dialogs/station_commands.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from PySide6.QtWidgets import QFormLayout, QGroupBox, QVBoxLayout, QWidget

from ...models.forms import NESTED_KINDS, FormField, Raw, SubForm, nested_errors
from ..layouts import FLUSH, fill
from .form_parts import required_legend
from .nested_editor import Editor, References, editor_for, field_label


def any_required(fields: Iterable[FormField]) -> bool:
    """A field, or a sub-field of a nested one, is marked required: the legend is due."""

    def sub_required(forms: tuple[SubForm, ...]) -> bool:
        return any(f.required for form in forms for f in form.fields)

    return any(f.required or sub_required(f.forms) for f in fields)


class FieldsForm(QWidget):
    """`fields` with their `initial` raws: the `first` ones first, in that order (a nested
    one's group among the rows), then required flat fields, the other flat ones, and a group
    per nested one. `unchanged_hint`: an empty secret says it is kept as it is."""

    def __init__(
        self,
        fields: Iterable[FormField],
        initial: Mapping[str, Raw],
        *,
        first: Sequence[str] = (),
        unchanged_hint: bool = False,
        references: References | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        order = {name: index for index, name in enumerate(first)}
        self.fields = sorted(
            fields,
            key=lambda f: (order.get(f.name, len(order)), f.kind in NESTED_KINDS, not f.required),
        )
        self.editors: dict[str, Editor] = {}
        self.column = fill(QVBoxLayout(self), margins=FLUSH)
        if any_required(self.fields):
            self.column.addWidget(required_legend())
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.column.addLayout(form)
        for spec in self.fields:
            editor = editor_for(
                spec, initial[spec.name], unchanged_hint=unchanged_hint, references=references
            )
            self.editors[spec.name] = editor
            if spec.kind in NESTED_KINDS:
                group = QGroupBox(spec.marked_label)
                group.setObjectName(f"{spec.name}Group")
                group.setToolTip(spec.tooltip)
                QVBoxLayout(group).addWidget(editor)
                if spec.name in order:
                    form.addRow(group)  # among the first rows, across both columns
                else:
                    self.column.addWidget(group)
            else:
                form.addRow(field_label(spec), editor)

    def raws(self) -> dict[str, Raw]:
        return {name: editor.raw() for name, editor in self.editors.items()}

    def show_errors(self, errors: Mapping[str, str], data: Mapping[str, Any], shown: bool) -> None:
        """Each field's error from `errors` and its rows' from its own rules, once `shown`
        (the user has typed); before, every message line is empty."""
        for spec in self.fields:
            editor = self.editors[spec.name]
            nested = nested_errors(spec, editor.raw()) if shown and spec.name in data else []
            editor.show_errors(errors.get(spec.name, "") if shown else "", nested)
