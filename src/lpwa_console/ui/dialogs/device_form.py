"""Create or edit a device: validated live by the schema, server errors shown inline, input
kept when the server refuses it."""

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

from ...models.devices import DevicesViewModel, validate
from ...schema.devices import Device, DeviceCreate, DeviceUpdate

# name -> (label, placeholder, shown for)  where "shown for" is a set of modes
# modes: create, edit, lorawan, cellular, otaa, abp
FIELDS: list[tuple[str, str, str, set[str]]] = [
    ("EUI", "DevEUI", "16 hexadecimal digits", {"create"}),
    ("name", "Name", "defaults to the DevEUI", {"create", "edit"}),
    ("appEUI", "JoinEUI (AppEUI)", "16 hexadecimal digits", {"create", "lorawan", "otaa"}),
    ("appKey", "AppKey", "32 hexadecimal digits", {"create", "lorawan", "otaa"}),
    ("nwAddress", "DevAddr", "8 hexadecimal digits", {"create", "lorawan", "abp"}),
    ("appSKey", "AppSKey", "32 hexadecimal digits", {"create", "edit", "lorawan", "abp"}),
    ("imsi", "IMSI", "6 to 15 digits", {"create", "edit", "cellular"}),
    ("iccid", "ICCID", "18 to 22 digits", {"create", "cellular"}),
    ("model", "Model ID", "e.g. LORA/GenericA.1.0.3a_ETSI", {"create"}),
    ("tags", "Tags", "comma-separated", {"create", "edit"}),
    ("adminLat", "Latitude", "-90 to 90", {"create", "edit"}),
    ("adminLon", "Longitude", "-180 to 180", {"create", "edit"}),
    ("customerAdminData", "Notes", "free text, up to 1024 characters", {"create", "edit"}),
]
KEY_FIELDS = {"appKey", "appSKey"}


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
        self.setMinimumWidth(460)
        self._touched: set[str] = set()
        self._server_errors: dict[str, str] = {}
        self.inputs: dict[str, QLineEdit] = {}
        self.errors: dict[str, QLabel] = {}
        self._rows: dict[str, QWidget] = {}

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.connectivity = QComboBox()
        self.connectivity.addItem("LoRaWAN", "LORAWAN")
        self.connectivity.addItem("Cellular", "CELLULAR")
        self.activation = QComboBox()
        self.activation.addItem("OTAA (join)", "OTAA")
        self.activation.addItem("ABP (personalised)", "ABP")
        if self.mode == "create":
            form.addRow("Connectivity", self.connectivity)
            form.addRow("Activation", self.activation)
        else:
            assert device is not None
            title = QLabel(f"{device.name}  ·  {device.EUI}")
            title.setObjectName("sectionTitle")
            form.addRow(title)
        for name, label, placeholder, modes in FIELDS:
            if self.mode not in modes:
                continue
            edit = QLineEdit()
            edit.setObjectName(f"field_{name}")
            edit.setPlaceholderText(placeholder)
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
            box_layout.addWidget(edit)
            box_layout.addWidget(error)
            form.addRow(label, box)
            self.inputs[name] = edit
            self.errors[name] = error
            self._rows[name] = box
            edit.textEdited.connect(lambda _t, n=name: self._edited(n))
        self._form = form
        if device is not None:
            self._fill(device)

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
        layout.addLayout(form)
        layout.addWidget(self.form_error)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)

        self.connectivity.currentIndexChanged.connect(self._mode_changed)
        self.activation.currentIndexChanged.connect(self._mode_changed)
        view_model.saved.connect(self._saved)
        view_model.save_failed.connect(self._save_failed)
        view_model.saving_changed.connect(self._saving)
        self.finished.connect(self._disconnect)
        self._mode_changed()

    # --- data ---------------------------------------------------------------------------

    def _fill(self, device: Device) -> None:
        values = {
            "name": device.name,
            "tags": ", ".join(t.name for t in device.tags),
            "adminLat": "" if device.adminLat is None else str(device.adminLat),
            "adminLon": "" if device.adminLon is None else str(device.adminLon),
            "customerAdminData": device.customerAdminData or "",
            "imsi": device.imsi or "",
        }
        for name, value in values.items():
            if name in self.inputs:
                self.inputs[name].setText(value)

    def _relevant(self, name: str) -> bool:
        modes = next(m for n, _l, _p, m in FIELDS if n == name)
        if self.mode == "edit":
            connectivity = self.device.connectivity if self.device else "LORAWAN"
            activation = (self.device.activation if self.device else None) or "OTAA"
        else:
            connectivity = self.connectivity.currentData()
            activation = self.activation.currentData()
        if "lorawan" in modes and connectivity != "LORAWAN":
            return False
        if "cellular" in modes and connectivity != "CELLULAR":
            return False
        if "otaa" in modes and activation != "OTAA":
            return False
        return not ("abp" in modes and activation != "ABP")

    def data(self) -> dict[str, Any]:
        """The request as the schema reads it: empty inputs are not sent."""
        out: dict[str, Any] = {}
        if self.mode == "create":
            out["connectivity"] = self.connectivity.currentData()
            if out["connectivity"] == "LORAWAN":
                out["activation"] = self.activation.currentData()
        for name, edit in self.inputs.items():
            text = edit.text().strip()
            if not text or not self._relevant(name):
                continue
            if name == "tags":
                out["tags"] = [{"name": t.strip()} for t in text.split(",") if t.strip()]
            elif name == "model":
                out["model"] = {"ID": text}
            else:
                out[name] = text
        if self.mode == "edit" and "tags" in self.inputs and not self.inputs["tags"].text().strip():
            out["tags"] = []  # emptied on purpose: remove them all
        return out

    # --- live validation ----------------------------------------------------------------

    def _edited(self, name: str) -> None:
        self._touched.add(name)
        self._server_errors.pop(name, None)
        self._server_errors.pop("", None)
        self.revalidate()

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
        for name, row in self._rows.items():
            self._form.setRowVisible(row, self._relevant(name))
        self.revalidate()

    def revalidate(self) -> dict[str, str]:
        model = DeviceCreate if self.mode == "create" else DeviceUpdate
        _, errors = validate(model, self.data())
        shown = {**errors, **self._server_errors}
        for name, label in self.errors.items():
            message = shown.get(name, "")
            visible = bool(message) and (name in self._touched or name in self._server_errors)
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
        if field in self.inputs and self._relevant(field):
            self._server_errors[field] = message
            self._touched.add(field)
            self.inputs[field].setFocus()
        else:
            self._server_errors[""] = message
        self.revalidate()

    def _disconnect(self) -> None:
        for signal, slot in (
            (self.vm.saved, self._saved),
            (self.vm.save_failed, self._save_failed),
            (self.vm.saving_changed, self._saving),
        ):
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
