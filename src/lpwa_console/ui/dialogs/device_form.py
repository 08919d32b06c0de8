"""Create or edit a device: validated live by the schema, server errors shown inline, input
kept when the server refuses it.

Fields are labelled in words (schema/labels.py; the API name in the tooltip), required ones
marked from the start. References to other resources (device model, AS transport key, HSM
group, network context, application servers) are picked by name from the platform's lists,
loaded in the background by the view-model, or typed as IDs when a list is not available. On
Edit the model picker offers only the models the device may move to (same connectivity, MAC
layer and LoRaWAN family: schema.device_profiles.model_change_refusal, which the server
applies too). The form scrolls within the screen; its message lines keep their room."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ...models.devices import DevicesViewModel
from ...models.forms import (
    REQUIRED_MARK,
    FormField,
    Rows,
    form_fields,
    nested_errors,
    raw_of,
    tooltip_of,
    value_of,
)
from ...models.references import ReferenceListModel
from ...models.validation import validate
from ...schema.device_profiles import DeviceProfile, model_change_refusal
from ...schema.devices import Device, DeviceCreate, DeviceUpdate
from ...schema.labels import field_words
from ..connections import SignalConnections
from ..widgets.form_parts import (
    SaveButtons,
    fit_dialog,
    form_scroll,
    message_line,
    required_legend,
    screen_area,
    with_message,
)
from ..widgets.nested_editor import TableEditor, error_label
from ..widgets.reference_input import ReferenceCombo, ReferenceListInput

PICK = "type a name or an ID; Down lists them"
# name -> (label, placeholder, shown for, section)  where "shown for" is a set of modes
# modes: create, edit, lorawan, cellular, otaa, abp. Labels are schema/labels.py's (label_of).
FIELDS: list[tuple[str, str, str, set[str], str]] = [
    ("EUI", "DevEUI", "16 hexadecimal digits", {"create"}, "device"),
    ("name", "Name", "defaults to the DevEUI", {"create", "edit"}, "device"),
    ("model", "Device model", PICK, {"create", "edit"}, "device"),
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
    ("appServers", "Application servers", PICK, {"create", "edit"}, "organisation"),
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
PICKED = {"model", "asTransportKey", "hsmGroupID", "networkContextID"}
# Sent by an edit only when changed: emptied, a reference is removed (null) or a list emptied.
CHANGED_ONLY = {
    "model", "asTransportKey", "hsmGroupID", "networkContextID", "appServers", "domains",
}  # fmt: skip
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
        self.labels: dict[str, QLabel] = {}
        # The models offered: of the device's connectivity; on Edit, those it may move to.
        self.model_choices = ReferenceListModel(self)

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
        form.addRow(required_legend())
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
        if "model" in self.pickers:
            self.pickers["model"].setToolTip(
                self.labels["model"].toolTip()
                + (
                    "\nOnly the models this device may move to: the same MAC layer and"
                    " LoRaWAN version family"
                    if self.mode == "edit"
                    else ""
                )
            )

        content = QWidget()
        content.setObjectName("deviceFormContent")
        content.setLayout(form)
        self.scroll_area = form_scroll(content, "deviceFormScroll")
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.form_error = message_line("formError")
        self.status = message_line("formStatus", error=False)
        self.buttons = SaveButtons(self, self.submit, "Create" if self.mode == "create" else "")
        self.ok = self.buttons.save_button

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
        self.fit(screen_area(self))
        # The pickers' lists: loaded in the background, refreshed when a minute old.
        view_model.load_references(max_age_s=60)

    # --- building -----------------------------------------------------------------------

    def _label(self, name: str) -> QLabel:
        words = field_words(name, DeviceCreate)
        label = QLabel(words.label)
        label.setObjectName(f"{name}Label")
        label.setToolTip(tooltip_of(name, words))
        self.labels[name] = label
        return label

    def _required(self, name: str) -> bool:
        """Required in the current mode: the DevEUI / IMEI to create; DevAddr and AppSKey
        of an ABP device."""
        if self.mode != "create":
            return False
        if name == "EUI":
            return True
        abp = self._connectivity() == "LORAWAN" and self.activation.currentData() == "ABP"
        return abp and name in ("nwAddress", "appSKey")

    def _add_field(self, name: str, label: str, placeholder: str) -> None:
        row_label = self._label(name)
        if name == "domains":
            raw = raw_of(self._domains_spec, self.device) if self.device else Rows()
            editor = TableEditor(self._domains_spec, raw if isinstance(raw, Rows) else Rows())
            editor.setObjectName("field_domains")
            editor.table.setToolTip("One domain per group, e.g. group Site, domain France/Paris")
            editor.edited.connect(lambda: self._edited("domains"))
            self.domains = editor
            self.errors[name] = editor.error
            self._rows[name] = editor
            self._form.addRow(row_label, editor)
            return
        if name in PICKED:
            source = self.model_choices if name == "model" else self.vm.references[name]
            picker = ReferenceCombo(source, placeholder)
            picker.setObjectName(f"field_{name}")
            picker.edited.connect(lambda n=name: self._edited(n))
            self.pickers[name] = picker
            edit = picker.edit()
            field: QWidget = picker
        elif name == "appServers":
            edit = ReferenceListInput(self.vm.references["appServers"], placeholder)
            edit.setObjectName(f"field_{name}")
            field = edit
        else:
            edit = QLineEdit()
            edit.setObjectName(f"field_{name}")
            edit.setPlaceholderText(placeholder)
            field = edit
        field.setToolTip(row_label.toolTip())
        field.setAccessibleName(row_label.text())
        if name in KEY_FIELDS:
            # Keys are secrets: visible while typed, masked afterwards, never pre-filled.
            edit.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit)
        error = error_label()
        box = with_message(field, error)
        self._form.addRow(row_label, box)
        self.inputs[name] = edit
        self.errors[name] = error
        self._rows[name] = box

    def fit(self, area: QRect) -> None:
        """As tall as the form within `area` (a screen's available part): beyond, it
        scrolls and the buttons stay in view."""
        fit_dialog(self, self.scroll_area, area, min_width=520, max_width=640)

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
            "model": device.model.ID if device.model else "",
        }
        for name, value in values.items():
            edit = self.inputs.get(name)
            if name in self.pickers:
                self.pickers[name].setText(value)
            elif isinstance(edit, ReferenceListInput):
                edit.set_ids([s.ID for s in device.appServers])
            elif edit is not None:
                edit.setText(value)
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

    def _text(self, name: str) -> str:
        """What an input holds as the request reads it: the ID of a picker."""
        edit = self.inputs[name]
        if name in self.pickers:
            return self.pickers[name].text()
        return edit.ids_text() if isinstance(edit, ReferenceListInput) else edit.text()

    def data(self) -> dict[str, Any]:
        """The request as the schema reads it: empty inputs are not sent. An edit sends the
        references only when changed (emptied: the reference removed, the list emptied)."""
        out: dict[str, Any] = {}
        if self.mode == "create":
            out["connectivity"] = self.connectivity.currentData()
            if out["connectivity"] == "LORAWAN":
                out["activation"] = self.activation.currentData()
        values = {
            name: self._value(name, self._text(name))
            for name in self.inputs
            if self._relevant(name)
        }
        if self.domains is not None:
            values["domains"] = value_of(self._domains_spec, self.domains.raw())
        for name, value in values.items():
            if self.mode == "edit" and name in CHANGED_ONLY:
                if value == self._initial.get(name):
                    continue
                if value is None and name == "model":
                    continue  # a model can be changed, not removed
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
        for name, label in self.labels.items():
            text = field_words(name, DeviceCreate).label
            if name == "EUI" and not is_lora:
                text = "IMEI"
            label.setText(text + (f" {REQUIRED_MARK}" if self._required(name) else ""))
        self._fill_models()
        self.revalidate()

    def _fill_models(self) -> None:
        """The models the picker offers: of the device's connectivity; on Edit only those
        the device may move to (the server's rule, schema.device_profiles)."""
        source = self.vm.references["model"]
        current = None
        if self.device is not None and self.device.model is not None:
            found = source.details.get(self.device.model.ID)
            current = found if isinstance(found, DeviceProfile) else None
        connectivity = self._connectivity()
        offered = [
            (ident, name, profile)
            for ident, name in source.items
            if isinstance(profile := source.details.get(ident), DeviceProfile)
            and profile.connectivity == connectivity
            and not (self.mode == "edit" and model_change_refusal(current, profile))
        ]
        if [i[:2] for i in offered] != self.model_choices.items or not source.loaded:
            self.model_choices.set_items(offered, error=source.error)

    def _references_changed(self, kind: str) -> None:
        if kind == "model":
            self._fill_models()
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
            label.setText(message if visible else "")
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
