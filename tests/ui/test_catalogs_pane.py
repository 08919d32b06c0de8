"""The catalogs pane against the live sandbox, as the operator: the lists (qtmodeltester),
the language selector repainting the rows, texts side by side, the profile editor locking
and forcing fields as the user types, the update dialog asking before forcing, a catalog
file imported with its progress bar; and the panes each kind of account sees, rebuilt when
the profile changes."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QLineEdit, QMessageBox, QPushButton

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.catalogs import TABLES, CatalogsViewModel
from lpwa_console.models.profiles import Profile
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.sandbox.demo_catalog import PROFILES, VENDORS
from lpwa_console.sandbox.demo_operator_catalog import CLASS_WORD, RF_REGIONS
from lpwa_console.ui.dialogs.catalogs import CatalogUpdateDialog, ProfileEditor
from lpwa_console.ui.lazy_pane import real_pane
from lpwa_console.ui.panes.catalogs import CatalogsPane
from tests.helpers import newer_catalog_version
from tests.ui.conftest import OpenConsole


@pytest.fixture
def operator(sandbox: Any, qloop: Any, qtbot: Any) -> Iterator[LpwaClient]:
    account = sandbox.account("operator")
    client = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
    )
    yield client
    task = asyncio.ensure_future(client.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


@pytest.fixture
def pane(qtbot: Any, operator: LpwaClient) -> Iterator[CatalogsPane]:
    runner = TaskRunner()
    vm = CatalogsViewModel(runner)
    pane = CatalogsPane(vm)
    qtbot.addWidget(pane)
    pane.resize(1280, 700)
    pane.show()
    vm.set_client(operator)
    qtbot.waitUntil(lambda: pane.language_combo.count() == 4, timeout=10_000)
    yield pane
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=10_000)


def _rows(pane: CatalogsPane, kind: str) -> dict[str, Any]:
    model = pane.vm.models[kind]
    return {i.ID: i for r in range(model.rowCount()) if (i := model.item(r)) is not None}


def _name(pane: CatalogsPane, ID: str) -> str:
    item = _rows(pane, "deviceProfiles").get(ID)
    return str(item.commercialName) if item is not None else ""


def _select(qtbot: Any, pane: CatalogsPane, kind: str, ID: str) -> None:
    model = pane.vm.models[kind]
    qtbot.waitUntil(lambda: ID in _rows(pane, kind), timeout=10_000)
    row = next(r for r in range(model.rowCount()) if (i := model.item(r)) and i.ID == ID)
    pane.tables[kind].selectRow(row)


def test_lists_and_language_switch(qtbot: Any, pane: CatalogsPane, qtmodeltester: Any) -> None:
    model = pane.vm.models["deviceProfiles"]
    qtbot.waitUntil(lambda: "LORA/GenericA.1.1a_ETSI" in _rows(pane, "deviceProfiles"))
    qtmodeltester.check(model)
    qtbot.waitUntil(lambda: pane.version_label.text().startswith("Catalog "), timeout=10_000)
    pane.language_combo.setCurrentIndex(pane.language_combo.findData("de"))
    qtbot.waitUntil(lambda: _name(pane, "LORA/GenericA.1.1a_ETSI") == "LoRaWAN 1.1 - Klasse A",
                    timeout=10_000)  # fmt: skip
    shown = model.index(0, 0).data()
    assert shown and shown != "…"
    pane.tabs.setCurrentIndex(1)
    _select(qtbot, pane, "baseStationProfiles", "TEKTELIC_KONA_MACRO")
    assert "LRR software versions" in pane.station_detail.toPlainText()
    pane.source_combo.setCurrentIndex(pane.source_combo.findData("CUSTOM"))
    qtbot.waitUntil(lambda: "TEKTELIC_KONA_MACRO" not in _rows(pane, "baseStationProfiles"))


def test_texts_side_by_side(qtbot: Any, pane: CatalogsPane) -> None:
    pane.language_combo.setCurrentIndex(pane.language_combo.findData("es"))
    pane.tabs.setCurrentIndex(2)
    _select(qtbot, pane, "deviceVendors", "abeeway")
    editor = pane.texts["deviceVendors"]
    qtbot.waitUntil(lambda: editor.local_description.toPlainText() == "Rastreadores de activos")
    assert editor.default_description.toPlainText() == "Asset trackers"
    assert editor.default_name.isReadOnly() and not editor.local_name.isReadOnly()
    assert "Spanish" in editor.local_header.text() and "English" in editor.default_header.text()
    text = f"Rastreadores {random.randrange(1000)}"
    editor.local_description.setPlainText(text)
    with qtbot.waitSignal(pane.vm.texts_saved, timeout=10_000):
        editor.save_button.click()
    qtbot.waitUntil(lambda: "Saved the Spanish texts" in pane.message.text())
    qtbot.waitUntil(
        lambda: (
            _rows(pane, "deviceVendors").get("abeeway") is not None
            and _rows(pane, "deviceVendors")["abeeway"].commercialDescription == text
        ),
        timeout=10_000,
    )


def test_profile_editor_applies_the_rules(qtbot: Any, pane: CatalogsPane) -> None:
    pane.open_profile_editor(None)
    editor = pane.editor
    assert isinstance(editor, ProfileEditor)
    qtbot.waitExposed(editor)

    def combo(name: str) -> QComboBox:
        widget = editor.inputs[name]
        assert isinstance(widget, QComboBox)
        return widget

    version = combo("macMinorVersion")
    abp = combo("allowedABPAutomaticReset")
    abp.setCurrentIndex(abp.findData("1"))
    assert abp.isEnabled()
    version.setCurrentIndex(version.findData("10"))  # LoRaWAN 1.1
    assert not abp.isEnabled() and abp.currentData() == "0"
    reason = editor.reasons["allowedABPAutomaticReset"]
    assert reason.isVisibleTo(editor) and "forced to 0 by LoRaWAN 1.1" in reason.text()
    assert combo("devNonceCounterBased").currentData() == "1"
    relay = combo("defaultRelayActivation")
    assert not relay.isEnabled() and "relay" in editor.reasons["defaultRelayActivation"].text()
    combo("canOperateAsRelay").setCurrentIndex(combo("canOperateAsRelay").findData("1"))
    assert relay.isEnabled()
    dwell = combo("uplinkDwellTime")
    assert not dwell.isEnabled() and "AS923" in dwell.toolTip()
    bands = editor.inputs["defaultIsmBands"]
    assert isinstance(bands, QLineEdit)
    QTest.keyClicks(bands, "as923")
    assert dwell.isEnabled()
    eirp = editor.inputs["macMaxTxEIRP"]
    assert isinstance(eirp, QLineEdit)
    eirp.setText("14, 40")
    ident = editor.inputs["ID"]
    assert isinstance(ident, QLineEdit)
    ident.setText("ui profile")  # a space: the error says what is wrong, not only "form"
    name = editor.inputs["commercialName"]
    assert isinstance(name, QLineEdit)
    name.setText("UI profile")
    editor.save()
    assert "ID: no spaces allowed" in editor.error_label.text()
    suffix = random.randrange(1 << 30)
    ident.setText(f"ui-{suffix}")
    editor.save()
    assert "36" in editor.error_label.text()  # refused here, nothing sent
    eirp.setText("14, 16")
    editor.save()
    qtbot.waitUntil(lambda: pane.editor is None, timeout=10_000)
    qtbot.waitUntil(lambda: "Saved the device profile CUSTOM/ui-" in pane.message.text())


def test_update_dialog_asks_before_forcing(qtbot: Any, pane: CatalogsPane) -> None:
    pane.open_updates()
    dialog = pane.update_dialog
    assert isinstance(dialog, CatalogUpdateDialog)
    qtbot.waitUntil(lambda: dialog.table.item(2, 2).text() not in ("", "—"), timeout=10_000)
    dialog.table.selectRow(2)  # RF regions
    if pane.vm.comparison("rfRegions") == "newer":
        dialog.update_button.click()
        qtbot.waitUntil(lambda: dialog.status.text().startswith("Installed"), timeout=10_000)
        qtbot.waitUntil(lambda: pane.vm.comparison("rfRegions") == "same", timeout=10_000)
    qtbot.waitUntil(lambda: dialog.update_button.text() == "Reinstall…", timeout=10_000)
    dialog.update_button.click()
    box = dialog.confirm
    assert isinstance(box, QMessageBox) and "anyway" in box.text()
    force = next(b for b in box.buttons() if b.text() == "Install anyway")
    force.click()
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Installed"), timeout=10_000)
    dialog.close()


def test_import_shows_progress_and_asks_for_the_same_version(
    qtbot: Any, pane: CatalogsPane, tmp_path: Path
) -> None:
    suffix = random.randrange(1 << 30)
    path = tmp_path / "regions.json"
    path.write_text(json.dumps({
        "format": "lpwa-catalog/1", "catalog": "rfRegions", "version": newer_catalog_version(),
        "rfRegions": [{"ID": f"UI_{suffix}", "name": "UI region", "ismBand": "in865",
                       "locals": {"fr": {"name": "Région UI"}}}],
    }))  # fmt: skip
    seen: list[bool] = []
    pane.vm.import_progress.connect(lambda _p, _t: seen.append(pane.progress.isVisible()))
    pane.import_file(path)
    assert pane.progress.isVisible() and not pane.import_button.isEnabled()
    qtbot.waitUntil(lambda: "Installed the RF regions" in pane.message.text(), timeout=20_000)
    assert seen and all(seen) and not pane.progress.isVisible()
    pane.import_file(path)
    qtbot.waitUntil(lambda: pane.ask_force is not None, timeout=20_000)
    box = pane.ask_force
    assert box is not None and "installed already" in box.text()
    next(b for b in box.buttons() if b.text() == "Install anyway").click()
    qtbot.waitUntil(
        lambda: "Installed the RF regions catalog" in pane.message.text(), timeout=20_000
    )


def test_panes_follow_the_account(open_console: OpenConsole, qtbot: Any, sandbox: Any) -> None:
    console = open_console("operator")
    window = console.window
    assert window.visible_keys == ["partners", "operations", "catalogs", "dashboard"]
    hidden = {
        window.pane_keys[r] for r in range(window.navigation.count())
        if window.navigation.item(r).isHidden()
    }  # fmt: skip
    assert "devices" in hidden and "catalogs" not in hidden
    names = [a.objectName() for a in window.pane_actions]
    assert names == ["go_partners", "go_operations", "go_catalogs", "go_dashboard"]
    assert window.pane_actions[2].shortcut() == QKeySequence("Ctrl+3")
    QTest.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert real_pane(window.stack.currentWidget()) is console.panes["catalogs"]
    panes = [e.key for e in window.palette_entries() if e.kind == "pane"]
    assert panes == ["partners", "operations", "catalogs", "dashboard"]
    catalogs = console.panes["catalogs"]
    assert isinstance(catalogs, CatalogsPane)
    qtbot.waitUntil(lambda: catalogs.vm.models["deviceProfiles"].rowCount() > 0, timeout=10_000)
    window.navigator.open("devices")  # not this account's: nothing happens
    assert real_pane(window.stack.currentWidget()) is console.panes["catalogs"]
    # Switching to a subscriber's profile rebuilds the navigation.
    account = sandbox.account("subscriber")
    profile = Profile(name="Sandbox as a subscriber", subscriber_url=sandbox.base_url,
                      token_url=sandbox.token_url, client_id=account["client_id"])  # fmt: skip
    console.profiles.save(profile, account["client_secret"])
    console.session.open(profile)
    qtbot.waitUntil(lambda: "devices" in window.visible_keys, timeout=20_000)
    qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
    assert "catalogs" not in window.visible_keys and "partners" not in window.visible_keys
    assert window.pane_actions[0].objectName() == "go_devices"
    assert real_pane(window.stack.currentWidget()) is console.panes["devices"]
    assert not catalogs.vm.has_client  # a subscriber's client is not given to it
    assert all(isinstance(b, QPushButton) for b in (catalogs.import_button,))


def test_the_pane_shown_last_comes_back_once_its_account_signs_in(
    open_console: OpenConsole, qtbot: Any, sandbox: Any
) -> None:
    # At start the window is laid out before anyone signs in, when an operator's pane is not
    # on the list yet: it comes back when the account's panes are.
    console = open_console("operator")
    window = console.window
    operator = console.profiles.get("Sandbox as operator")
    assert operator is not None
    account = sandbox.account("subscriber")
    subscriber = Profile(name="Sandbox as a subscriber", subscriber_url=sandbox.base_url,
                         token_url=sandbox.token_url, client_id=account["client_id"])  # fmt: skip
    console.profiles.save(subscriber, account["client_secret"])
    console.session.open(subscriber)
    qtbot.waitUntil(lambda: "devices" in window.visible_keys, timeout=20_000)
    window.settings.setValue("window/pane_title", "Dashboard")  # what the last run saved
    console.session.open(operator)
    qtbot.waitUntil(lambda: "catalogs" in window.visible_keys, timeout=20_000)
    assert window.pane_keys[window.navigation.currentRow()] == "dashboard"


def test_each_account_keeps_its_catalog_filters(qtbot: Any, pane: CatalogsPane) -> None:
    """Issue 20: the language and the "Show" choice are kept per account, as the other panes'
    filters are; a new account starts from the operator's default language and "All"."""
    pane.set_account("first")
    pane.language_combo.setCurrentIndex(pane.language_combo.findData("de"))
    pane.source_combo.setCurrentIndex(pane.source_combo.findData("CUSTOM"))
    qtbot.waitUntil(lambda: pane.vm.language == "de" and pane.vm.source == "CUSTOM")

    pane.set_account("second")
    assert pane.source_combo.currentData() == "ALL"
    assert pane.language_combo.currentData() == pane.vm.default_language
    qtbot.waitUntil(lambda: pane.vm.language == pane.vm.default_language)
    assert pane.vm.source == "ALL"

    pane.set_account("first")
    assert pane.language_combo.currentData() == "de"
    assert pane.source_combo.currentData() == "CUSTOM"
    qtbot.waitUntil(lambda: pane.vm.language == "de" and pane.vm.source == "CUSTOM")


@pytest.mark.parametrize("language", ["fr", "de", "es"])
def test_the_demo_catalog_is_complete_in_its_languages(
    qtbot: Any, pane: CatalogsPane, language: str
) -> None:
    """Issue 20: the language switch translated part of the demo catalog ("classe A" beside
    "class A"). Every demo vendor, device profile and RF region now reads in each language
    the operator offers (each row's texts are in that language, none falls back)."""
    demo = {
        "deviceVendors": {v.ref for v in VENDORS},
        "deviceProfiles": {p.ref for p in PROFILES},
        "rfRegions": {r[0] for r in RF_REGIONS},
    }
    pane.language_combo.setCurrentIndex(pane.language_combo.findData(language))

    def read_in_language() -> bool:
        for kind, refs in demo.items():
            rows = _rows(pane, kind)
            if not refs <= rows.keys():
                return False
            if any(rows[ref].languageTag != language for ref in refs):
                return False
        return True

    for kind in demo:  # each tab shown once, so its list loads
        pane.tabs.setCurrentIndex(list(TABLES).index(kind))
    qtbot.waitUntil(read_in_language, timeout=15_000)
    generic = [p.ref for p in PROFILES if p.vendor == "generic"]
    names = [_name(pane, ref) for ref in generic]
    assert all(f"{CLASS_WORD[language]} " in name and "class " not in name for name in names)
    vendors = _rows(pane, "deviceVendors")
    assert vendors["generic"].commercialName != "Generic"
    assert vendors["itron"].commercialDescription != "Water, gas and electricity metering"
    assert _rows(pane, "rfRegions")["US915_SB2"].name != "US915 sub-band 2"


def test_installing_an_older_catalog_file_asks_with_both_versions(
    qtbot: Any, pane: CatalogsPane, tmp_path: Path
) -> None:
    suffix = random.randrange(1 << 30)
    base = newer_catalog_version()

    def catalog_file(name: str, version: str) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps({
            "format": "lpwa-catalog/1", "catalog": "rfRegions", "version": version,
            "rfRegions": [{"ID": f"OLD_{suffix}", "name": f"Region {version}",
                           "ismBand": "in865"}],
        }))  # fmt: skip
        return path

    newer = catalog_file("newer.json", f"{base}.2")
    older = catalog_file("older.json", f"{base}.1")
    pane.import_file(newer)
    qtbot.waitUntil(lambda: f"RF regions catalog {base}.2" in pane.message.text(), timeout=20_000)

    def asked() -> QMessageBox:
        pane.import_file(older)
        qtbot.waitUntil(lambda: pane.ask_older is not None, timeout=20_000)
        box = pane.ask_older
        assert box is not None and box.windowTitle() == "Install an older version?"
        assert box.text() == (
            f"This file holds version {base}.1 of the RF regions catalog, which is"
            f" older than version {base}.2, the one installed."
        )
        assert not pane.progress.isVisible() and pane.import_button.isEnabled()
        return box

    # Keep: nothing is sent, the installed version stays and the pane says so.
    box = asked()
    next(b for b in box.buttons() if b.text() == f"Keep version {base}.2").click()
    qtbot.waitUntil(lambda: pane.ask_older is None)
    assert pane.message.text() == (
        f"Kept the RF regions catalog {base}.2: version {base}.1 was not installed"
    )
    qtbot.waitUntil(
        lambda: (v := pane.vm.installed.get("rfRegions")) is not None and v.version == f"{base}.2",
        timeout=10_000,
    )
    # Install: the older version is installed, as the user chose.
    box = asked()
    next(b for b in box.buttons() if b.text() == f"Install version {base}.1").click()
    qtbot.waitUntil(
        lambda: f"Installed the RF regions catalog {base}.1" in pane.message.text(),
        timeout=20_000,
    )
    qtbot.waitUntil(
        lambda: (v := pane.vm.installed.get("rfRegions")) is not None and v.version == f"{base}.1",
        timeout=10_000,
    )
