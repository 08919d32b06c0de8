"""Create or edit a device: validated live by the schema, server errors shown inline, input
kept when the server refuses it.

References to other resources (AS transport key, HSM group, network context, application
servers) are picked from the platform's lists, loaded in the background by the view-model, or
typed as IDs when a list is not available."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ...models.devices import DevicesViewModel, validate
from ...models.forms import FormField, Rows, form_fields, nested_errors, raw_of, value_of
from ...schema.devices import Device, DeviceCreate, DeviceUpdate
from ..connections import SignalConnections
from ..widgets.nested_editor import TableEditor
from ..widgets.reference_input import ReferenceCombo, attach_completer

PICK = "pick from the list or type an ID"
# name -> (label, placeholder, shown for, section)  where "shown for" is a set of modes
# modes: create, edit, lorawan, cellular, otaa, abp
FIELDS: list[tuple[str, str, str, set[str], str]] = [
    ("EUI", "DevEUI", "16 hexadecimal digits", {"create"}, "device"),
    ("name", "Name", "defaults to the DevEUI", {"create", "edit"}, "device"),
    ("model", "Model ID", "e.g. LORA/GenericA.1.0.3a_ETSI", {"create"}, "device"),
    (
        "appEUI",
        "JoinEUI (AppEUI)",
        "16 hexadecimal digits",
        {"create", "lorawan", "otaa"},
        "network",
    ),
    ("appKey", "AppKey", "32 hexadecimal digits", {"create", "lorawan", "otaa"}, "network"),
    ("nwAddress", "DevAddr", "8 hexadecimal digits", {"create", "lorawan", "abp"}, "network"),
    (
        "appSKey",
        "AppSKey",
        "32 hexadecimal digits",
        {"create", "edit", "lorawan", "abp"},
        "network",
    ),
    ("asTransportKey", "AS transport key", PICK, {"create", "edit", "lorawan"}, "network"),
    ("hsmGroupID", "HSM group", PICK, {"create", "edit", "lorawan"}, "network"),
    ("imsi", "IMSI", "6 to 15 digits", {"create", "edit", "cellular"}, "network"),
    ("iccid", "ICCID", "18 to 22 digits", {"create", "cellular"}, "network"),
    ("eid", "eID", "eUICC identifier of the SIM", {"create", "cellular"}, "network"),
    ("networkContextID", "Network context", PICK, {"create", "edit", "cellular"}, "network"),
    ("tags", "Tags", "comma-separated", {"create", "edit"}, "organisation"),
    ("appServers", "App servers", "comma-separated IDs", {"create", "edit"}, "organisation"),
    ("domains", "Domains", "", {"create", "edit"}, "organisation"),
    ("adminLat", "Latitude", "-90 to 90", {"create", "edit"}, "location"),
    ("adminLon", "Longitude", "-180 to 180", {"create", "edit"}, "location"),
    (
        "customerAdminData",
        "Notes",
        "free text, up to 1024 characters",
        {"create", "edit"},
        "location",
    ),
]
KEY_FIELDS = {"appKey", "appSKey"}
# Picked from a list of the platform (key of DevicesViewModel.references -> the input).
PICKED = {"asTransportKey", "hsmGroupID", "networkContextID"}
# Sent by an edit only when changed: emptied, a reference is removed (null) or a list emptied.
CHANGED_ONLY = {"asTransportKey", "hsmGroupID", "networkContextID", "appServers", "domains"}
SECTIONS = {
    "device": "Device",
    "network": "",  # by connectivity, see _section_title
    "organisation": "Organisation",
    "location": "Location and notes",
}


def _domains_spec() -> FormField:
    fields, _skipped = form_fields(DeviceUpdate)
    return next(f for f in fields if f.name == "domains")


class DeviceFormDialog(QDialog):
    def __init__(
        self,
        view_model: DevicesViewModel,
        device: Device | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.vm = view_model
        self.device = device
        self.mode = "edit" if device is not None else "create"
        self.setWindowTitle("Edit device" if device else "New device")
        self.setMinimumWidth(480)
        self._touched: set[str] = set()
        self._server_errors: dict[str, str] = {}
        self.inputs: dict[str, QLineEdit] = {}  # a picker's input is its line edit
        self.pickers: dict[str, ReferenceCombo] = {}
        self.errors: dict[str, QLabel] = {}
        self._rows: dict[str, QWidget] = {}
        self._sections: dict[str, QLabel] = {}
        self._initial: dict[str, Any] = {}
        self._domains_spec = _domains_spec()
        self.domains: TableEditor | None = None

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._form = form
        self.connectivity = QComboBox()
        self.connectivity.addItem("LoRaWAN", "LORAWAN")
        self.connectivity.addItem("Cellular", "CELLULAR")
        self.activation = QComboBox()
        self.activation.addItem("OTAA (join)", "OTAA")
        self.activation.addItem("ABP (personalised)", "ABP")
        if self.mode == "edit":
            assert device is not None
            title = QLabel(f"{device.name}  ·  {device.EUI}")
            title.setObjectName("sectionTitle")
            title.setWordWrap(True)
            form.addRow(title)
        section = ""
        for name, label, placeholder, modes, where in FIELDS:
            if self.mode not in modes:
                continue
            if where != section:
                section = where
                heading = QLabel(SECTIONS[where])
                heading.setObjectName("sectionTitle")
                self._sections[where] = heading
                form.addRow(heading)
                if where == "device" and self.mode == "create":
                    form.addRow("Connectivity", self.connectivity)
                    form.addRow("Activation", self.activation)
            self._add_field(name, label, placeholder)
        if device is not None:
            self._fill(device)
        for name, edit in self.inputs.items():
            if name not in self.pickers:
                edit.textEdited.connect(lambda _t, n=name: self._edited(n))
        if "appServers" in self.inputs:
            completer = self.inputs["appServers"].completer()
            completer.activated.connect(lambda _t: self._edited("appServers"))

        content = QWidget()
        content.setObjectName("deviceFormContent")
        content.setLayout(form)
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("deviceFormScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(content)

        self.form_error = QLabel()
        self.form_error.setObjectName("formError")
        self.form_error.setWordWrap(True)
        self.form_error.setVisible(False)
        self.status = QLabel()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Create" if self.mode == "create" else "Save")
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll_area, 1)
        layout.addWidget(self.form_error)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)

        self.connectivity.currentIndexChanged.connect(self._mode_changed)
        self.activation.currentIndexChanged.connect(self._mode_changed)
        self._connections = SignalConnections(
            (view_model.saved, self._saved),
            (view_model.save_failed, self._save_failed),
            (view_model.saving_changed, self._saving),
            (view_model.references_changed, self._references_changed),
        )
        self.finished.connect(self._disconnect)
        self._mode_changed()
        self._fit_to_screen()
        # The pickers' lists: loaded in the background, refreshed when a minute old.
        view_model.load_references(max_age_s=60)

    # --- building -----------------------------------------------------------------------

    def _add_field(self, name: str, label: str, placeholder: str) -> None:
        if name == "domains":
            raw = raw_of(self._domains_spec, self.device) if self.device else Rows()
            editor = TableEditor(self._domains_spec, raw if isinstance(raw, Rows) else Rows())
            editor.setObjectName("field_domains")
            editor.table.setToolTip("One domain per group, e.g. group Site, domain France/Paris")
            editor.edited.connect(lambda: self._edited("domains"))
            self.domains = editor
            self.errors[name] = editor.error
            self._rows[name] = editor
            self._form.addRow(label, editor)
            return
        if name in PICKED:
            picker = ReferenceCombo(self.vm.references[name], placeholder)
            picker.setObjectName(f"field_{name}")
            picker.edited.connect(lambda n=name: self._edited(n))
            self.pickers[name] = picker
            edit = picker.edit()
            field: QWidget = picker
        else:
            edit = QLineEdit()
            edit.setObjectName(f"field_{name}")
            edit.setPlaceholderText(placeholder)
            field = edit
            if name == "appServers":
                attach_completer(edit, self.vm.references["appServers"], multiple=True)
                edit.setToolTip("Application server IDs; Down lists them")
        if name in KEY_FIELDS:
            # Keys are secrets: visible while typed, masked afterwards, never pre-filled.
            edit.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit)
        error = QLabel()
        error.setObjectName("fieldError")
        error.setWordWrap(True)
        error.setVisible(False)
        box = QWidget()
        box_layout = QVBoxLayout(box)
        box_layout.setContentsMargins(0, 0, 0, 0)
        box_layout.setSpacing(1)
        box_layout.addWidget(field)
        box_layout.addWidget(error)
        self._form.addRow(label, box)
        self.inputs[name] = edit
        self.errors[name] = error
        self._rows[name] = box

    def _fit_to_screen(self) -> None:
        """As tall as the form, within the screen: the form scrolls beyond that."""
        content = self.scroll_area.widget()
        wanted = content.sizeHint() if content is not None else self.sizeHint()
        extra = self.buttons.sizeHint().height() + 60
        height = wanted.height() + extra
        width = max(self.minimumWidth(), min(wanted.width() + 40, 600))
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            height = min(height, area.height() - 80)
            width = min(width, area.width() - 40)
        self.resize(width, height)

    # --- data ---------------------------------------------------------------------------

    def _fill(self, device: Device) -> None:
        values = {
            "name": device.name,
            "tags": ", ".join(t.name for t in device.tags),
            "adminLat": "" if device.adminLat is None else str(device.adminLat),
            "adminLon": "" if device.adminLon is None else str(device.adminLon),
            "customerAdminData": device.customerAdminData or "",
            "imsi": device.imsi or "",
            "asTransportKey": device.asTransportKey.ID if device.asTransportKey else "",
            "hsmGroupID": device.hsmGroupID or "",
            "networkContextID": device.networkContextID or "",
            "appServers": ", ".join(s.ID for s in device.appServers),
        }
        for name, value in values.items():
            if name in self.pickers:
                self.pickers[name].setText(value)
            elif name in self.inputs:
                self.inputs[name].setText(value)
        for name in CHANGED_ONLY & set(self.inputs):
            self._initial[name] = self._value(name, values.get(name, ""))
        if self.domains is not None:
            self._initial["domains"] = value_of(self._domains_spec, self.domains.raw())

    def _modes(self, name: str) -> set[str]:
        return next(m for n, _l, _p, m, _s in FIELDS if n == name)

    def _connectivity(self) -> str:
        if self.mode == "edit":
            return self.device.connectivity if self.device else "LORAWAN"
        return str(self.connectivity.currentData())

    def _relevant(self, name: str) -> bool:
        modes = self._modes(name)
        connectivity = self._connectivity()
        if self.mode == "edit":
            activation = (self.device.activation if self.device else None) or "OTAA"
        else:
            activation = self.activation.currentData()
        if "lorawan" in modes and connectivity != "LORAWAN":
            return False
        if "cellular" in modes and connectivity != "CELLULAR":
            return False
        if "otaa" in modes and activation != "OTAA":
            return False
        return not ("abp" in modes and activation != "ABP")

    @staticmethod
    def _value(name: str, text: str) -> Any:
        """What a text input means in the request; None when empty."""
        text = text.strip()
        if not text:
            return None
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if name == "tags":
            return [{"name": t} for t in parts]
        if name == "appServers":
            return [{"ID": s} for s in parts] or None
        if name in ("model", "asTransportKey"):
            return {"ID": text}
        return text

    def data(self) -> dict[str, Any]:
        """The request as the schema reads it: empty inputs are not sent. An edit sends the
        references only when changed (emptied: the reference removed, the list emptied)."""
        out: dict[str, Any] = {}
        if self.mode == "create":
            out["connectivity"] = self.connectivity.currentData()
            if out["connectivity"] == "LORAWAN":
                out["activation"] = self.activation.currentData()
        values = {
            name: self._value(name, edit.text())
            for name, edit in self.inputs.items()
            if self._relevant(name)
        }
        if self.domains is not None:
            values["domains"] = value_of(self._domains_spec, self.domains.raw())
        for name, value in values.items():
            if self.mode == "edit" and name in CHANGED_ONLY:
                if value == self._initial.get(name):
                    continue
                if value is None:
                    value = [] if name in ("appServers", "domains") else None
                out[name] = value
            elif value is not None:
                out[name] = value
        if self.mode == "edit" and "tags" in self.inputs and not self.inputs["tags"].text().strip():
            out["tags"] = []  # emptied on purpose: remove them all
        return out

    # --- live validation ----------------------------------------------------------------

    def _edited(self, name: str) -> None:
        self._touched.add(name)
        self._server_errors.pop(name, None)
        self._server_errors.pop("", None)
        self.revalidate()

    def _section_title(self) -> str:
        if self._connectivity() == "CELLULAR":
            return "SIM and cellular network"
        return "LoRaWAN keys and security"

    def _mode_changed(self) -> None:
        is_lora = self.connectivity.currentData() == "LORAWAN"
        if self.mode == "create":
            self._form.setRowVisible(self.activation, is_lora)
            label = self._form.labelForField(self._rows["EUI"])
            if isinstance(label, QLabel):
                label.setText("DevEUI" if is_lora else "IMEI")
            self.inputs["EUI"].setPlaceholderText(
                "16 hexadecimal digits" if is_lora else "15 digits (or 14 without the check digit)"
            )
        if "network" in self._sections:
            self._sections["network"].setText(self._section_title())
        for name, row in self._rows.items():
            self._form.setRowVisible(row, self._relevant(name))
        self.revalidate()

    def _references_changed(self, _kind: str) -> None:
        for picker in self.pickers.values():
            picker.show_list_state()

    def revalidate(self) -> dict[str, str]:
        model = DeviceCreate if self.mode == "create" else DeviceUpdate
        _, errors = validate(model, self.data())
        shown = {**errors, **self._server_errors}
        for name, label in self.errors.items():
            message = shown.get(name, "")
            visible = bool(message) and (name in self._touched or name in self._server_errors)
            if name == "domains":
                assert self.domains is not None
                touched = name in self._touched
                nested = nested_errors(self._domains_spec, self.domains.raw())
                nested = nested if touched else []
                self.domains.show_errors(message if visible else "", nested)
                continue
            label.setText(message)
            label.setVisible(visible)
            edit = self.inputs[name]
            edit.setProperty("invalid", visible)
            edit.style().unpolish(edit)
            edit.style().polish(edit)
        # Errors on hidden or untouched fields and form-wide rules go under the form.
        general = shown.get("", "")
        if not general and self._touched:
            general = next(
                (m for n, m in shown.items() if n and n not in self.errors),
                "",
            )
        self.form_error.setText(general)
        self.form_error.setVisible(bool(general))
        self.ok.setEnabled(not errors and not self.vm.saving)
        return errors

    # --- saving -------------------------------------------------------------------------

    def submit(self) -> None:
        errors = self.revalidate()
        if errors:
            self._touched.update(errors)
            self.revalidate()
            return
        self._server_errors.clear()
        if self.mode == "create":
            self.vm.create(self.data())
        else:
            assert self.device is not None
            self.vm.update(self.device.path_ref, self.data())

    def _saving(self, saving: bool) -> None:
        self.status.setText("Saving…" if saving else "")
        self.ok.setEnabled(not saving)
        if not saving:
            self.revalidate()

    def _saved(self, _device: object) -> None:
        self.accept()

    def _save_failed(self, message: str, field: str) -> None:
        # Keep every input as typed; show the message where it belongs.
        if field in self.errors and self._relevant(field):
            self._server_errors[field] = message
            self._touched.add(field)
            self._focus(field)
        else:
            self._server_errors[""] = message
        self.revalidate()

    def _focus(self, name: str) -> None:
        widget: QWidget | None = self.pickers.get(name) or self.inputs.get(name)
        if name == "domains" and self.domains is not None:
            widget = self.domains.table
        if widget is not None:
            widget.setFocus()
            self.scroll_area.ensureWidgetVisible(self._rows.get(name, widget))

    def _disconnect(self) -> None:
        self._connections.disconnect_all()
