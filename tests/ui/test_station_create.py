"""A new base station from the stations pane, against the live sandbox: the form (LRR ID checked
as typed, the model picked by name), the server's refusals kept on their field, the new row
selected and the partner's count read again, and the button refused with its reason for a
read-only account and for a partner whose grant is used up."""

from __future__ import annotations

import random
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QLineEdit

from lpwa_console.api import LpwaClient
from lpwa_console.models.partners import PartnerViewModel
from lpwa_console.models.references import ID_ROLE
from lpwa_console.schema.partners import Partner
from lpwa_console.ui.panes.stations import StationCreateDialog, StationsPane
from lpwa_console.ui.widgets.reference_input import ReferenceCombo
from tests.helpers import refusal, shot
from tests.ui.conftest import OpenConsole
from tests.ui.test_stations_pane import make as make_pane

MODEL_ID = "KERLINK_WIRNET_ISTATION"


def make(qtbot: Any, client: LpwaClient | None, page_size: int = 50) -> StationsPane:
    pane = make_pane(qtbot, client, page_size)
    if client is not None:  # (the partner's grant decides whether a station may be made)
        qtbot.waitUntil(lambda: pane.partner.partner is not None, timeout=10000)
    return pane


def open_form(qtbot: Any, pane: StationsPane) -> StationCreateDialog:
    assert pane.new_button.isEnabled(), pane.new_button.toolTip()
    pane.new_button.click()
    dialog = pane.create_dialog
    assert isinstance(dialog, StationCreateDialog)
    # The pane owns it (its parent): a console closed by its fixture deletes it first, and
    # qtbot closing it again afterwards would meet a deleted object.
    assert dialog.parent() is pane
    return dialog


def lrr_input(dialog: StationCreateDialog) -> QLineEdit:
    edit = dialog.inputs["lrrID"]
    assert isinstance(edit, QLineEdit)
    return edit


def model_picker(qtbot: Any, dialog: StationCreateDialog) -> ReferenceCombo:
    editor = dialog.editors["model"]
    picker = editor.fields["ID"].input  # type: ignore[attr-defined]
    assert isinstance(picker, ReferenceCombo)
    qtbot.waitUntil(lambda: picker.model().rowCount() > 0, timeout=10000)
    return picker


def pick(picker: ReferenceCombo, ident: str) -> None:
    model = picker.model()
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(ID_ROLE) == ident)
    picker.setCurrentIndex(row)


def create_button(dialog: StationCreateDialog) -> Any:
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Save)


def new_lrr_id() -> str:
    return f"{random.randrange(0x20000000, 0xEFFFFFFF):08x}"  # small letters: stored upper


def test_form_checks_the_lrr_id_while_typing(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    dialog = open_form(qtbot, pane)
    assert dialog.windowTitle() == "New base station"
    assert create_button(dialog).text() == "Create"
    intro = dialog.findChild(QLabel, "formIntro")
    assert intro is not None and "base stations" in intro.text()
    lrr = lrr_input(dialog)
    assert lrr.placeholderText() == "allocated by the network when left empty"
    error = dialog.errors["lrrID"]
    # The form opens with what identifies the station first: LRR ID, name, model.
    assert [s.name for s in dialog.fields[:3]] == ["lrrID", "name", "model"]
    for typed, expected in (
        ("12", "8 hexadecimal digits"),
        ("0A1B2C3G", "8 hexadecimal digits"),
        ("00000000", "reserved"),
        ("fffe0001", "reserved"),
        ("FFFF1234", "reserved"),
    ):
        lrr.setText(typed)
        assert expected in error.text(), (typed, error.text())
        assert not create_button(dialog).isEnabled()
    lrr.setText("0a1b2c3d")
    assert error.text() == ""
    lrr.editingFinished.emit()
    assert lrr.text() == "0A1B2C3D"  # stored upper case: shown so
    # Without a model it cannot be created; the model is picked by name, read "name (ID)".
    assert not create_button(dialog).isEnabled()
    picker = model_picker(qtbot, dialog)
    assert picker.model().index(0, 0).data().endswith(")")
    pick(picker, MODEL_ID)
    assert picker.text() == MODEL_ID
    assert dialog.data()["model"] == {"ID": MODEL_ID}
    assert create_button(dialog).isEnabled()
    lrr.clear()  # left empty: allocated by the network
    assert create_button(dialog).isEnabled() and "lrrID" not in dialog.data()
    dialog.reject()


def test_create_selects_the_new_row_and_counts_it(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    partner = pane.partner
    assert partner is not None and partner.partner is not None
    used = partner.partner.totalBaseStationsUsed
    rows = pane.vm.model.rowCount()
    dialog = open_form(qtbot, pane)
    lrr = new_lrr_id()
    lrr_input(dialog).setText(lrr)
    name = dialog.inputs["name"]
    assert isinstance(name, QLineEdit)
    name.setText(f"Depot {lrr}")
    pick(model_picker(qtbot, dialog), MODEL_ID)
    with qtbot.waitSignal(pane.vm.created, timeout=10000) as created:
        create_button(dialog).click()
    station = created.args[0]
    assert station.lrrID == lrr.upper() and station.name == f"Depot {lrr}"
    assert pane.create_dialog is None  # closed
    assert pane.message.text() == f"Created base station Depot {lrr} (LRR ID {lrr.upper()})"
    # Shown in the detail, its row selected once the list (reloaded) has it.
    assert pane.vm.detail is not None and pane.vm.detail.lrrID == lrr.upper()

    def selected() -> bool:
        rows = pane.selected_rows()
        item = pane.vm.model.item(rows[0]) if len(rows) == 1 else None
        return item is not None and item.lrrID == lrr.upper()

    qtbot.waitUntil(selected, timeout=15000)
    assert pane.detail.showing_station
    assert pane.vm.model.rowCount() == rows + 1  # the list and its count have it
    assert pane.count_label.text() == f"{rows + 1:,} stations"
    qtbot.waitUntil(
        lambda: partner.partner is not None and partner.partner.totalBaseStationsUsed == used + 1,
        timeout=10000,
    )
    assert f"{used + 1:,}" in pane.partner_label.text()


def test_the_new_row_is_found_on_the_last_page(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client, page_size=10)  # 36 stations and more: 4 pages or more
    model = pane.vm.model
    assert model.rowCount() > 30 and model.loaded_pages() == [0]
    lrr = new_lrr_id().upper()
    with qtbot.waitSignal(pane.vm.created, timeout=10000):
        assert pane.vm.create({"model": {"ID": MODEL_ID}, "lrrID": lrr})

    def selected() -> bool:
        rows = pane.selected_rows()
        item = model.item(rows[0]) if len(rows) == 1 else None
        return item is not None and item.lrrID == lrr

    qtbot.waitUntil(selected, timeout=15000)
    assert pane.selected_rows() == [model.rowCount() - 1]  # by creation date: the last


def test_a_refusal_keeps_what_was_typed(qtbot: Any, client: LpwaClient, monkeypatch: Any) -> None:
    pane = make(qtbot, client)
    existing = pane.vm.model.item(0)
    assert existing is not None
    dialog = open_form(qtbot, pane)
    lrr_input(dialog).setText(existing.lrrID.lower())
    notes = dialog.inputs["customerAdminData"]
    assert isinstance(notes, QLineEdit)
    notes.setText("roof, north side")
    pick(model_picker(qtbot, dialog), MODEL_ID)
    # The server refuses a duplicate LRR ID: said next to it, everything typed kept.
    with qtbot.waitSignal(pane.vm.save_failed, timeout=10000):
        create_button(dialog).click()
    assert pane.create_dialog is dialog and dialog.isVisible()
    assert dialog.errors["lrrID"].text() == f"A base station with LRR ID {existing.lrrID} exists"
    assert lrr_input(dialog).text() == existing.lrrID.lower()
    assert notes.text() == "roof, north side"
    assert create_button(dialog).isEnabled()
    shot(dialog, "station-create-refused.png")
    # The partner's grant used up meanwhile (another engineer took the last one): said under
    # the form, the partner read again.
    message = "totalBaseStationsGranted: the partner may have 12 base stations and has them all"

    async def full(*_a: Any, **_k: Any) -> Any:
        raise refusal(403, message)

    monkeypatch.setattr(client.stations, "create", full)
    lrr_input(dialog).setText(new_lrr_id())
    with qtbot.waitSignal(pane.vm.save_failed, timeout=10000):
        create_button(dialog).click()
    assert dialog.form_error.text().startswith(
        "Not created: the partner has used all the base stations it was granted"
    )
    assert notes.text() == "roof, north side" and dialog.isVisible()
    dialog.reject()


def _full(partner: PartnerViewModel, used: int, granted: int | None) -> None:
    partner.partner = Partner.model_validate(
        {
            "partner": {"ID": "demo", "name": "Demo", "grantedPermissions": ["x", "a"]},
            "totalBaseStationsUsed": used,
            "totalBaseStationsGranted": granted,
        }
    )
    partner.changed.emit()


def test_refused_with_its_figures_when_the_grant_is_used(qtbot: Any, client: LpwaClient) -> None:
    pane = make(qtbot, client)
    partner = pane.partner
    assert partner is not None
    _full(partner, 12, 12)
    reason = "No more base stations may be created: 12 of 12 granted base stations are used"
    assert not pane.new_button.isEnabled()
    assert pane.new_button.toolTip() == reason
    pane.new_station()  # Ctrl+N: refused, said
    assert pane.create_dialog is None and pane.message.text() == reason
    menu = pane.row_menu(0)
    action = next(a for a in menu.actions() if a.objectName() == "newStationAction")
    assert not action.isEnabled() and action.toolTip() == reason
    menu.close()
    area = pane.area_menu()
    action = next(a for a in area.actions() if a.objectName() == "newStationAction")
    assert not action.isEnabled() and action.toolTip() == reason
    area.close()
    # A larger grant: allowed again, its own tooltip back.
    _full(partner, 12, 13)
    assert pane.new_button.isEnabled()
    assert pane.new_button.toolTip() == "Create a base station (Ctrl+N)"
    _full(partner, 12, None)  # no limit
    assert pane.new_button.isEnabled()


def test_read_only_account_is_told_why(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber-viewer")
    window = console.window
    window.navigator.open("stations")
    pane = console.panes["stations"]
    pane = getattr(pane, "pane", lambda: pane)()
    assert isinstance(pane, StationsPane)
    reason = (
        "Your account may not create base stations: it lacks the network partner's write"
        " permission ('a')"
    )
    qtbot.waitUntil(lambda: pane.new_button.toolTip() == reason, timeout=10000)
    assert not pane.new_button.isEnabled()
    assert not window.new_station_action.isEnabled()
    assert window.new_station_action.statusTip() == reason
    pane.new_station()
    assert pane.create_dialog is None and pane.message.text() == reason


def test_window_action_opens_the_form(open_console: OpenConsole, qtbot: Any) -> None:
    console = open_console("subscriber")
    window = console.window
    entries = {e.title: e for e in window.palette_entries()}
    assert entries["New base station"].enabled
    window.new_station_action.trigger()
    pane = console.panes["stations"]
    pane = getattr(pane, "pane", lambda: pane)()
    assert isinstance(pane, StationsPane)
    assert window.pane_keys[window.navigation.currentRow()] == "stations"
    qtbot.waitUntil(lambda: pane.create_dialog is not None, timeout=10000)
    dialog = pane.create_dialog
    assert dialog is not None
    dialog.reject()
    qtbot.waitUntil(lambda: pane.create_dialog is None)
    # Ctrl+N on this pane, as on the devices pane, makes a new one of its own.
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: pane.create_dialog is not None, timeout=10000)
    assert pane.create_dialog is not None
    pane.create_dialog.reject()


def test_a_network_partner_creates_within_its_grant(open_console: OpenConsole, qtbot: Any) -> None:
    """The partner account (no subscription: its partner's own permissions and grant)."""
    console = open_console("partner")
    window = console.window
    window.navigator.open("stations")
    pane = console.panes["stations"]
    pane = getattr(pane, "pane", lambda: pane)()
    assert isinstance(pane, StationsPane)
    partner = pane.partner
    assert partner is not None
    qtbot.waitUntil(lambda: partner.partner is not None, timeout=10000)
    assert partner.partner is not None
    used = partner.partner.totalBaseStationsUsed
    granted = partner.partner.totalBaseStationsGranted
    assert granted is not None and used < granted
    qtbot.waitUntil(lambda: pane.vm.first_page_ms is not None, timeout=15000)
    dialog = open_form(qtbot, pane)
    intro = dialog.findChild(QLabel, "formIntro")
    assert intro is not None
    assert f"({used:,} of {granted:,} granted are used)" in intro.text()
    assert not dialog.editors["model"].fields["ismBands"].isVisible()  # type: ignore[attr-defined]
    pick(model_picker(qtbot, dialog), MODEL_ID)
    with qtbot.waitSignal(pane.vm.created, timeout=10000):
        create_button(dialog).click()
    qtbot.waitUntil(
        lambda: partner.partner is not None and partner.partner.totalBaseStationsUsed == used + 1,
        timeout=10000,
    )
    assert f"{used + 1:,} of {granted:,} stations used" in pane.partner_label.text()
