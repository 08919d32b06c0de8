"""Forms in the operator's words: the shared picker ("name (ID)", search by name or ID,
keyboard), durations as a number and a unit, required marks from the start, and forms that
fit a 1280x720 screen with their buttons in view and message lines that keep their room."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QWidget

from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.models.references import ReferenceListModel
from lpwa_console.models.resources import (
    ResourceViewModel,
    app_servers_kind,
    multicast_kind,
    network_kinds,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.devices import DeviceCreate, IdRef
from lpwa_console.ui.dialogs.device_form import DeviceFormDialog
from lpwa_console.ui.dialogs.resource_form import ResourceFormDialog
from lpwa_console.ui.widgets.duration_input import DurationInput
from lpwa_console.ui.widgets.reference_input import ReferenceCombo, ReferenceListInput
from tests.helpers import run

SCREEN = QRect(0, 0, 1280, 720)


def servers() -> ReferenceListModel:
    model = ReferenceListModel()
    model.set_items(
        [
            ("as-1", "Metering platform"),
            ("as-2", "Kafka bus"),
            ("as-3", "Parking, north and south"),  # a name with a comma
        ]
    )
    return model


def test_the_picker_shows_names_and_gives_ids(qtbot: Any) -> None:
    model = servers()
    picker = ReferenceCombo(model, "type a name or an ID")
    qtbot.addWidget(picker)
    picker.show()
    assert [model.index(r, 0).data() for r in range(3)][:2] == [
        "Metering platform (as-1)",
        "Kafka bus (as-2)",
    ]
    picker.setText("as-2")
    assert picker.currentText() == "Kafka bus (as-2)" and picker.text() == "as-2"
    picker.setText("as-unknown")  # not in the list: kept as typed
    assert picker.text() == "as-unknown"
    # Search by name, anywhere in it, from the keyboard; Enter takes the highlighted one.
    picker.lineEdit().clear()
    qtbot.keyClicks(picker.lineEdit(), "kafka")
    completer = picker.completer()
    assert completer.completionCount() == 1
    popup = completer.popup()
    qtbot.waitUntil(popup.isVisible, timeout=2000)
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert picker.currentText() == "Kafka bus (as-2)" and picker.text() == "as-2"
    # ...or by ID.
    completer.setCompletionPrefix("as-1")
    assert completer.completionCount() == 1
    assert completer.pathFromIndex(completer.currentIndex()) == "Metering platform (as-1)"


def test_several_references_in_one_line(qtbot: Any) -> None:
    model = servers()
    line = ReferenceListInput(model)
    qtbot.addWidget(line)
    line.set_ids(["as-3", "as-1", "as-typed"])
    assert line.text() == "Parking, north and south (as-3), Metering platform (as-1), as-typed"
    assert line.ids() == ["as-3", "as-1", "as-typed"]  # the comma in a name is no separator
    line.setText("as-2, Metering platform")
    assert line.ids() == ["as-2", "as-1"]
    # The list reloading later shows names for the IDs typed.
    line.setText("as-2")
    model.set_items(model.items)
    assert line.text() == "Kafka bus (as-2)" and line.ids_text() == "as-2"


def test_a_duration_is_a_number_and_a_unit(qtbot: Any) -> None:
    edit = DurationInput("P2D")
    qtbot.addWidget(edit)
    assert (edit.number.value(), edit.unit.currentText()) == (2, "days") and edit.text() == "P2D"
    edit.unit.setCurrentIndex(edit.unit.findData("H"))
    assert edit.text() == "PT2H"
    with qtbot.waitSignal(edit.changed):
        edit.number.setValue(36)
    assert edit.text() == "P1DT12H"
    edit.setText("PT90M")
    assert (edit.number.value(), edit.unit.currentData()) == (90, "M")
    edit.number.setValue(0)
    assert edit.text() == ""  # nothing given


def _bottom(widget: QWidget, dialog: QDialog) -> int:
    return widget.mapTo(dialog, QPoint(0, widget.height())).y()


def fits(qtbot: Any, dialog: QDialog, buttons: QDialogButtonBox) -> None:
    """Within the 1280x720 screen (less the window frame), the buttons inside."""
    dialog.fit(SCREEN)  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: dialog.height() <= SCREEN.height() - 40, timeout=2000)
    assert dialog.width() <= SCREEN.width()
    assert 0 < _bottom(buttons, dialog) <= dialog.height()


@pytest.mark.parametrize(
    "kind",
    [multicast_kind(), app_servers_kind(), *network_kinds()[:2]],
    ids=lambda k: k.key,
)
def test_resource_forms_fit_the_screen(qtbot: Any, kind: Any) -> None:
    dialog = ResourceFormDialog(ResourceViewModel(TaskRunner(), kind))
    qtbot.addWidget(dialog)
    dialog.show()
    fits(qtbot, dialog, dialog.buttons)
    required = [s for s in dialog.fields if s.required]
    legend = dialog.findChild(QLabel, "requiredLegend")
    assert legend is not None and legend.text() == "* required"
    for spec in required:
        label = dialog.findChild(QLabel, f"{spec.name}Label")
        assert label is not None and label.text().endswith(" *"), spec.name
        assert f"API name: {spec.name}" in label.toolTip()


def test_message_lines_do_not_move_the_buttons(qtbot: Any) -> None:
    dialog = ResourceFormDialog(ResourceViewModel(TaskRunner(), multicast_kind()))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.fit(SCREEN)
    qtbot.wait(10)
    before = dialog.buttons.mapTo(dialog, QPoint(0, 0))
    dialog.failed("The server is busy, try again", "")
    dialog.editors["name"].show_errors("Name: at most 128 characters", [])
    qtbot.wait(10)
    assert dialog.buttons.mapTo(dialog, QPoint(0, 0)) == before
    assert dialog.form_error.text() == "The server is busy, try again"


def test_the_multicast_form_picks_app_servers_by_name(qtbot: Any) -> None:
    dialog = ResourceFormDialog(ResourceViewModel(TaskRunner(), multicast_kind()))
    qtbot.addWidget(dialog)
    picker = dialog.inputs["appServers"]
    assert isinstance(picker, ReferenceListInput)
    assert dialog.references is not None
    assert picker.list_model is dialog.references.model("appServers")
    picker.list_model.set_items([("as-1", "Metering platform")])
    picker.set_ids(["as-1"])
    assert picker.text() == "Metering platform (as-1)"
    assert dialog.data()["appServers"] == [{"ID": "as-1"}]
    assert dialog.inputs["class"].itemText(2) == "Class C (always listening)"  # type: ignore[union-attr]


def test_the_new_device_form_fits_and_marks_what_is_required(
    qtbot: Any, devices_vm: DevicesViewModel
) -> None:
    dialog = DeviceFormDialog(devices_vm)
    qtbot.addWidget(dialog)
    dialog.show()
    fits(qtbot, dialog, dialog.buttons)
    assert dialog.labels["EUI"].text() == "DevEUI *"
    assert dialog.labels["nwAddress"].text() == "Network address (DevAddr)"
    assert "API name: nwAddress" in dialog.labels["nwAddress"].toolTip()
    dialog.activation.setCurrentIndex(dialog.activation.findData("ABP"))
    assert dialog.labels["nwAddress"].text() == "Network address (DevAddr) *"
    assert dialog.labels["appSKey"].text().endswith(" *")
    # The models offered are those of the connectivity, by name.
    qtbot.waitUntil(lambda: dialog.model_choices.rowCount() > 0, timeout=10000)
    offered = dialog.model_choices.ids()
    assert "LORA/GenericA.1.0.3a_ETSI" in offered and "quectel-bg95-cell" not in offered
    dialog.connectivity.setCurrentIndex(dialog.connectivity.findData("CELLULAR"))
    assert "quectel-bg95-cell" in dialog.model_choices.ids()
    assert "LORA/GenericA.1.0.3a_ETSI" not in dialog.model_choices.ids()
    assert dialog.labels["EUI"].text() == "IMEI *"


def test_edit_offers_only_compatible_models_and_changes_the_model(
    qtbot: Any, devices_vm: DevicesViewModel
) -> None:
    eui = "FEEDE1" + f"{id(qtbot) & 0xFFFFFFFFFF:010X}"
    device = run(
        qtbot,
        devices_vm.client.devices.create(  # type: ignore[union-attr]
            DeviceCreate(
                EUI=eui,
                appEUI="70B3D57ED0000000",
                appKey="2B7E151628AED2A6ABF7158809CF4F3C",
                model=IdRef(ID="itron-cyble-lw"),
            )
        ),
    )
    dialog = DeviceFormDialog(devices_vm, device)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.model_choices.rowCount() > 0, timeout=10000)
    offered = set(dialog.model_choices.ids())
    assert {"itron-cyble-lw", "LORA/GenericA.1.0.3a_ETSI"} <= offered  # LoRaWAN 1.0.x
    assert not {"LORA/GenericA.1.1a_ETSI", "WATT/Flasho.3.1_ETSI", "quectel-bg95-cell"} & offered
    picker = dialog.pickers["model"]
    assert picker.text() == "itron-cyble-lw" and "(itron-cyble-lw)" in picker.currentText()
    assert "model" not in dialog.data()  # unchanged: not sent
    picker.setText("LORA/GenericA.1.0.3a_ETSI")
    assert dialog.data()["model"] == {"ID": "LORA/GenericA.1.0.3a_ETSI"}
    with qtbot.waitSignal(devices_vm.saved, timeout=10000) as saved:
        dialog.ok.click()
    assert saved.args[0].model.ID == "LORA/GenericA.1.0.3a_ETSI"


def test_details_show_references_by_name_and_hide_internals() -> None:
    from lpwa_console.schema.app_servers import AppServer
    from lpwa_console.schema.devices import Device
    from lpwa_console.ui.panes.resources import detail_html
    from lpwa_console.ui.widgets.device_detail import device_html

    device = Device.model_validate(
        {
            "EUI": "70B3D5E75E000001",
            "name": "Meter",
            "hsmGroupID": "hsm-eu-west-1",
            "appServers": [{"ID": "as-2", "name": "Kafka bus"}],
        }
    )
    text = device_html(device, lambda _field, ident: {"hsm-eu-west-1": "HSM EU West 1"}[ident])
    assert "HSM EU West 1 (hsm-eu-west-1)" in text and "Kafka bus (as-2)" in text
    assert "hsm-eu-west-1" in device_html(device)  # without names: the ID
    server = AppServer.model_validate(
        {
            "ID": "as-2", "name": "Kafka bus", "scope": "SUBSCRIPTION", "type": "KAFKA",
            "occContext": {"version": 3}, "contentType": "jsontyped",
            "downlinkSecurity": {"status": "NONE", "maxTimestampDeviation": 30},
        }
    )  # fmt: skip
    html = detail_html(ResourceViewModel(TaskRunner(), app_servers_kind()), server, {})
    assert "occContext" not in html and "Version" not in html  # internal: not even in a title
    assert "Kafka bus" in html and "JSON with types" in html
    assert "Maximum clock difference" in html and "30 s" in html
    assert "title='downlinkSecurity.maxTimestampDeviation'" in html  # the API path on hover
    # A long one in words first, the number the form edits after it.
    slow = server.model_copy(
        update={"downlinkSecurity": server.downlinkSecurity.model_copy(  # type: ignore[union-attr]
            update={"maxTimestampDeviation": 60000})}
    )  # fmt: skip
    html = detail_html(ResourceViewModel(TaskRunner(), app_servers_kind()), slow, {})
    assert "16 hours 40 minutes (60,000 s)" in html


def test_near_duplicate_models_read_in_full_in_the_picker(qtbot: Any) -> None:
    """Near-duplicate models ("Abeeway Micro Tracker", "Abeeway Micro-Tracker"): wide enough for
    "name (ID)" whole, so their IDs tell them apart."""
    from lpwa_console.models.references import ReferenceListModel

    model = ReferenceListModel()
    model.set_items(
        [
            ("ABEEWAY/MICRO-TRACKER-LORAWAN-1.0.2-EU868", "Abeeway Micro Tracker"),
            ("ABEEWAY/MICRO-TRACKER-V2-LORAWAN-1.0.3-EU868", "Abeeway Micro-Tracker"),
        ]
    )
    picker = ReferenceCombo(model, "device profile")
    qtbot.addWidget(picker)
    picker.resize(180, picker.sizeHint().height())
    picker.show()
    picker.showPopup()
    view = picker.view()
    qtbot.waitUntil(view.isVisible, timeout=2000)
    metrics = view.fontMetrics()
    for row in range(2):
        text = model.index(row, 0).data()
        assert text.endswith("-EU868)")
        assert metrics.horizontalAdvance(text) <= view.viewport().width(), text
    picker.hidePopup()
