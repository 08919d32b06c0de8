"""The catalogs pane's dialogs: the device profile editor (the LoRaWAN rules applied as the
user types, each locked field saying why) and the catalog update dialog (installed and
offered versions side by side; installing the installed version again is asked first)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...models.catalogs import CATALOG_NOUNS, CATALOG_WORDS, CatalogsViewModel, ProfileForm
from ...models.forms import FormField, Raw
from ...models.references import ReferenceListModel
from ...schema.catalogs import CATALOG_KINDS, OperatorDeviceProfile
from ..connections import SignalConnections
from ..layouts import fill
from ..questions import ask
from ..widgets.form_parts import SaveButtons, close_buttons, form_scroll, message_line, with_message
from ..widgets.reference_input import ReferenceCombo

COMPARISON_WORDS = {
    "newer": "A newer version is offered",
    "same": "Up to date",
    "older": "The offered version is older",
    "none": "Nothing offered",
}


class ProfileEditor(QDialog):
    """A new device profile (`profile` None) or one to change. The rules of
    `ProfileForm.states` are applied on every edit: a forced field shows its value and is
    locked, a field that does not apply is emptied and locked, and the line under each says
    why."""

    def __init__(
        self,
        view_model: CatalogsViewModel,
        vendors: ReferenceListModel,
        profile: OperatorDeviceProfile | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("profileEditor")
        self.vm = view_model
        self.profile = profile
        self.form = ProfileForm(creating=profile is None)
        self.setWindowTitle("New device profile" if profile is None else f"Edit {profile.ID}")
        self.inputs: dict[str, QLineEdit | QComboBox | ReferenceCombo] = {}
        self.reasons: dict[str, QLabel] = {}
        body = QWidget()
        layout = QFormLayout(body)
        for spec in self.form.fields:
            widget = self._input(spec, vendors)
            widget.setObjectName(f"field_{spec.name}")
            widget.setToolTip(spec.tooltip)
            reason = QLabel()
            reason.setObjectName(f"reason_{spec.name}")
            reason.setWordWrap(True)
            reason.setVisible(False)
            label = spec.marked_label + (f" ({spec.about.unit})" if spec.about.unit else "")
            layout.addRow(label, with_message(widget, reason))
            self.inputs[spec.name] = widget
            self.reasons[spec.name] = reason
        if profile is None:
            id_help = QLabel("“CUSTOM/” is added to the ID; at most 40 characters with it.")
            id_help.setWordWrap(True)
            layout.insertRow(1, "", id_help)
        self.error_label = message_line("profileErrors")
        self.buttons = SaveButtons(self, self.save)
        fill(QVBoxLayout(self), (form_scroll(body), 1), self.error_label, self.buttons)
        self.resize(560, 680)
        if profile is not None:
            self.set_raws(self.form.raws_of(profile))
        else:
            self.set_raws({"connectivity": "LORAWAN", "macMinorVersion": "5"})
        self._connections = SignalConnections(
            (view_model.profile_saved, self._saved), (view_model.profile_failed, self._failed)
        )

    def _input(self, spec: FormField, vendors: ReferenceListModel) -> Any:
        choices = dict(spec.about.choices) or {c: c for c in spec.choices}
        if spec.name == "vendor":
            picker = ReferenceCombo(vendors, "Vendor ID")
            picker.edited.connect(self.apply_rules)
            return picker
        if choices:
            combo = QComboBox()
            combo.addItem("", "")
            for value, words in choices.items():
                combo.addItem(words, value)
            combo.currentIndexChanged.connect(lambda _i: self.apply_rules())
            return combo
        edit = QLineEdit()
        if spec.about.expected:
            edit.setPlaceholderText(spec.about.expected)
        edit.textEdited.connect(lambda _t: self.apply_rules())
        return edit

    # --- values -------------------------------------------------------------------------

    def raws(self) -> dict[str, Raw]:
        out: dict[str, Raw] = {}
        for name, widget in self.inputs.items():
            if isinstance(widget, ReferenceCombo):
                out[name] = widget.text()
            elif isinstance(widget, QComboBox):
                out[name] = str(widget.currentData() or "")
            else:
                out[name] = widget.text()
        return out

    def set_value(self, name: str, text: str) -> None:
        widget = self.inputs[name]
        widget.blockSignals(True)
        try:
            if isinstance(widget, ReferenceCombo):
                widget.setText(text)
            elif isinstance(widget, QComboBox):
                index = widget.findData(text)
                if index < 0 and text:
                    widget.addItem(text, text)
                    index = widget.count() - 1
                widget.setCurrentIndex(max(index, 0))
            else:
                widget.setText(text)
        finally:
            widget.blockSignals(False)

    def set_raws(self, raws: dict[str, Raw]) -> None:
        for name, raw in raws.items():
            if name in self.inputs and isinstance(raw, str):
                self.set_value(name, raw)
        self.apply_rules()

    def fixed(self) -> dict[str, Any]:
        if self.profile is None:
            return {}
        return {"connectivity": self.profile.connectivity}

    def apply_rules(self) -> None:
        """Lock, force and explain, for what the form holds now."""
        raws = self.raws()
        states = self.form.states(raws, self.fixed())
        held = self.form.apply(raws, self.fixed())
        for name, widget in self.inputs.items():
            state = states.get(name)
            reason = self.reasons[name]
            if state is None:
                widget.setEnabled(True)
                reason.setVisible(False)
                continue
            if held.get(name) != raws.get(name) and isinstance(held.get(name), str):
                self.set_value(name, str(held[name]))
            widget.setEnabled(state.enabled)
            reason.setText(state.reason)
            reason.setVisible(bool(state.reason))
            spec = self.form.field(name)
            widget.setToolTip(f"{state.reason}\n{spec.tooltip}" if state.reason else spec.tooltip)

    # --- saving -------------------------------------------------------------------------

    def save(self) -> None:
        request, errors = self.form.request(self.raws(), self.fixed())
        if request is None:
            lines = []
            for name, text in errors.items():
                label = self.form.field(name).label if name in self.inputs else ""
                lines.append(f"{label}: {text}" if label else text)
            self.error_label.setText("\n".join(lines))
            return
        self.error_label.setText("Saving…")
        self.buttons.save_button.setEnabled(False)
        self.vm.save_profile(request, None if self.profile is None else self.profile.ID)

    def _saved(self, _profile: Any) -> None:
        if self.isVisible():
            self.accept()

    def _failed(self, message: str) -> None:
        self.error_label.setText(message)
        self.buttons.save_button.setEnabled(True)

    def done(self, result: int) -> None:
        self._connections.disconnect_all()
        super().done(result)


class CatalogUpdateDialog(QDialog):
    """Each catalog with its installed version and the one the platform's repository offers;
    “Update” installs the offered one. When it is the installed version (or older), the
    button says “Reinstall…” and asks before forcing."""

    def __init__(self, view_model: CatalogsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("catalogUpdateDialog")
        self.setWindowTitle("Catalog updates")
        self.vm = view_model
        self.table = QTableWidget(len(CATALOG_KINDS), 5)
        self.table.setObjectName("catalogVersions")
        self.table.setHorizontalHeaderLabels(
            ["Catalog", "Installed", "Offered", "New items", "Status"]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.update_button = QPushButton("Update")
        self.update_button.setObjectName("updateCatalog")
        self.status = QLabel()
        self.status.setObjectName("updateStatus")
        self.status.setWordWrap(True)
        self.confirm: QMessageBox | None = None
        close = close_buttons(self)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.update_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(row)
        layout.addWidget(close)
        self.resize(640, 260)
        self.update_button.clicked.connect(self.update_selected)
        self.table.itemSelectionChanged.connect(self._selection)
        self._connections = SignalConnections(
            (view_model.versions_changed, self.fill),
            (view_model.update_done, self._done),
            (view_model.update_failed, self._failed),
        )
        self.fill()
        self.table.selectRow(0)
        view_model.read_versions()

    def kind(self) -> str:
        row = max(self.table.currentRow(), 0)
        return CATALOG_KINDS[row]

    def fill(self) -> None:
        for row, kind in enumerate(CATALOG_KINDS):
            installed = self.vm.installed.get(kind)
            offered = self.vm.offered.get(kind)
            values = [
                CATALOG_WORDS[kind],
                (installed.version if installed else None) or "—",
                (offered.version if offered else None) or "—",
                str(len(offered.added)) if offered and offered.version else "",
                COMPARISON_WORDS[self.vm.comparison(kind)] if offered else "Reading…",
            ]
            for column, text in enumerate(values):
                item = QTableWidgetItem(text)
                if column in (1, 2, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self._selection()

    def _selection(self) -> None:
        kind = self.kind()
        comparison = self.vm.comparison(kind)
        self.update_button.setEnabled(kind in self.vm.offered and comparison != "none")
        self.update_button.setText("Update" if comparison == "newer" else "Reinstall…")

    def update_selected(self) -> None:
        kind = self.kind()
        comparison = self.vm.comparison(kind)
        if comparison == "newer":
            self.status.setText(f"Installing the {CATALOG_NOUNS[kind]} catalog…")
            self.vm.self_update(kind)  # type: ignore[arg-type]
            return
        installed = self.vm.installed.get(kind)
        offered = self.vm.offered.get(kind)
        older = comparison == "older"
        have = installed.version if installed else "?"
        offer = offered.version if offered else "?"

        def answered(install: bool) -> None:
            if install:
                self.status.setText(f"Installing {offer} again…")
                self.vm.self_update(kind, force=True)  # type: ignore[arg-type]
            self.confirm = None

        self.confirm = ask(
            self,
            "forceConfirm",
            "Install an older version?" if older else "Install again?",
            f"The {CATALOG_NOUNS[kind]} catalog {have} is installed; the repository"
            f" offers {offer}{', an older version' if older else ''}. Install {offer} anyway?",
            answered,
            accept="Install anyway",
            informative="Its items replace those of the catalog; items you created are kept.",
            warning=False,
        )

    def _done(self, answer: Any) -> None:
        self.status.setText(
            f"Installed {CATALOG_NOUNS.get(answer.catalog, answer.catalog)}"
            f" {answer.version}: {answer.imported or 0} items written,"
            f" {len(answer.added)} new"
        )

    def _failed(self, message: str) -> None:
        self.status.setText(f"Not installed: {message}")

    def done(self, result: int) -> None:
        self._connections.disconnect_all()
        super().done(result)
