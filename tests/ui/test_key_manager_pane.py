"""The key manager pane on the live sandbox: states and chart, the state filter, a device
created with its key encrypted on the workstation, claim, key generation shown once, the
import wizard with RSA-encrypted keys."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtWidgets import QApplication

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.key_manager import (
    KeyManagerViewModel,
    KmImportViewModel,
    key_manager_kinds,
)
from lpwa_console.models.resources import ResourceViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.key_manager import KmDevice
from lpwa_console.schema.km_import import km_row_cells
from lpwa_console.ui.dialogs.import_wizard import ImportWizard
from lpwa_console.ui.panes.key_manager import GeneratedKeysDialog, KeyManagerPane
from lpwa_console.ui.panes.resources import references
from tests.helpers import shot

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"


@pytest.fixture
def sent(sandbox: Any, qloop: Any, qtbot: Any) -> Iterator[tuple[LpwaClient, list[dict[str, Any]]]]:
    """A client on the live sandbox that records the JSON bodies it sends."""
    bodies: list[dict[str, Any]] = []

    async def record(request: httpx.Request) -> None:
        if request.headers.get("content-type", "").startswith("application/json"):
            bodies.append(json.loads(request.content or b"null") or {})

    account = sandbox.account("subscriber")
    http = httpx.AsyncClient(event_hooks={"request": [record]})
    client = LpwaClient(
        sandbox.base_url,
        Credentials(sandbox.token_url, account["client_id"], account["client_secret"]),
        http=http,
    )
    yield client, bodies
    task = asyncio.ensure_future(http.aclose())
    qtbot.waitUntil(task.done, timeout=5000)


def _pane(qtbot: Any, client: LpwaClient, runner: TaskRunner) -> KeyManagerPane:
    vms = [ResourceViewModel(runner, kind, client) for kind in key_manager_kinds()]
    km = KeyManagerViewModel(runner)
    importer = KmImportViewModel(runner, client)
    pane = KeyManagerPane(vms, km, importer)
    qtbot.addWidget(pane)
    pane.resize(1200, 700)
    with qtbot.waitSignal(km.states_changed, timeout=10000):
        km.set_client(client)
    with qtbot.waitSignal(vms[0].first_page_loaded, timeout=10000):
        pane.show()
    return pane


def test_states_filter_create_claim_and_keys(
    qtbot: Any, qtmodeltester: Any, sent: tuple[LpwaClient, list[dict[str, Any]]]
) -> None:
    client, bodies = sent
    runner = TaskRunner()
    pane = _pane(qtbot, client, runner)
    devices = pane.vms[0]
    qtmodeltester.check(devices.model)
    total = pane.km.states.total
    assert total > 0 and pane.states.all_button.text() == f"All ({total:,})"
    assert pane.states.buttons["ACTIVATED"].text().startswith("Activated (")
    shot(pane, "key_manager.png")

    with qtbot.waitSignal(devices.first_page_loaded, timeout=10000):
        pane.states.buttons["COMMISSIONED"].click()
    model = devices.model
    states = {model.item(r).state for r in range(model.rowCount())}
    assert states == {"COMMISSIONED"}

    # A device typed with its key in clear: the key leaves encrypted.
    eui = "FEEDC0E3000000" + f"{len(bodies) % 256:02X}"
    errors = devices.check({"EUI": eui, "appKey": KEY}, creating=True)
    assert errors == {}
    refused = devices.check({"EUI": eui, "appKey": KEY, "lorawanVersion": "1.1"}, creating=True)
    assert "LoRaWAN 1.1" in " ".join(refused.values()), refused
    with qtbot.waitSignal(devices.saved, timeout=10000):
        devices.save({"EUI": eui, "appKey": KEY, "homeNsNetID": "000013"})
    detail = devices.detail
    assert detail is not None and eui == detail.EUI and detail.state == "COMMISSIONED"
    create = next(b for b in bodies if b.get("EUI") == eui)
    assert create["appKey"] != KEY and create["exchangeKeyVersion"] == "platform-v1"
    assert KEY not in json.dumps(bodies)

    # Claim: a pre-commissioned device with a secure element.
    pre = "FEEDC0E4000000" + f"{len(bodies) % 256:02X}"
    with qtbot.waitSignal(devices.saved, timeout=10000):
        devices.save({"EUI": pre, "state": "PRE_COMMISSIONED",
                      "secureElement": {"tkmInfo": "SE050:01"}})  # fmt: skip
    with qtbot.waitSignal(pane.km.claimed, timeout=10000) as claimed:
        assert pane.km.claim({"EUI": pre, "ownerID": "acme"})
    assert claimed.args[0].state == "GENERIC"
    with qtbot.waitSignal(pane.km.claim_failed, timeout=10000) as refused:
        pane.km.claim({"EUI": pre, "ownerID": "acme"})
    assert "PRE_COMMISSIONED" in refused.args[0]

    # Generated keys: shown once, copyable, gone when the dialog closes.
    dialog = GeneratedKeysDialog(pane.km, pane)
    qtbot.addWidget(dialog)
    dialog.count.setValue(3)
    with qtbot.waitSignal(pane.km.keys_generated, timeout=10000):
        dialog.generate_button.click()
    keys = dialog.keys.toPlainText().split("\n")
    assert len(keys) == 3 and all(len(k) == 32 for k in keys)
    dialog.copy_button.click()
    assert QApplication.clipboard().text() == "\n".join(keys)
    dialog.reject()
    assert dialog.keys.toPlainText() == ""
    # The AS key a device names opens in the AS keys section (navigator link).
    device = KmDevice.model_validate({"UID": 1, "EUI": eui, "state": "GENERIC",
                                      "asKey": {"ID": "as-key-platform"}})  # fmt: skip
    assert references(device) == [
        ("as-key-platform", "lpwa:key_manager/km_as_keys/as-key-platform")
    ]
    with qtbot.waitSignal(pane.vms[1].detail_changed, timeout=10000):
        pane.open_item("as-key-platform", "km_as_keys")
    assert pane.current_item() == ("as-key-platform", "km_as_keys")
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def test_import_wizard_sends_encrypted_keys(
    qtbot: Any, tmp_path: Path, sent: tuple[LpwaClient, list[dict[str, Any]]]
) -> None:
    client, _bodies = sent
    runner = TaskRunner()
    importer = KmImportViewModel(runner, client)
    wizard = ImportWizard(importer, title="Import key manager devices", show_guide=False)
    qtbot.addWidget(wizard)
    path = tmp_path / "km.csv"
    euis = [f"FEEDC0E5{i:04X}{len(str(tmp_path)) % 256:02X}00" for i in range(3)]
    lines = [",".join(km_row_cells(e, KEY)) for e in euis] + [",".join(km_row_cells("X", KEY))]
    path.write_text("\r\n".join(lines) + "\r\n")
    with qtbot.waitSignal(importer.parsed, timeout=10000) as parsed:
        importer.load(path)
    assert parsed.args == [3, 1]
    assert not wizard.guide.isVisible()
    with qtbot.waitSignal(importer.finished, timeout=20000) as finished:
        importer.upload()
    report = finished.args[0]
    assert (report.okCount, report.errorCount) == (3, 1)
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def test_buttons_open_their_dialogs_and_wait_for_a_connection(
    qtbot: Any, sent: tuple[LpwaClient, list[dict[str, Any]]]
) -> None:
    runner = TaskRunner()
    vms = [ResourceViewModel(runner, kind) for kind in key_manager_kinds()]
    km = KeyManagerViewModel(runner)
    pane = KeyManagerPane(vms, km, KmImportViewModel(runner))
    qtbot.addWidget(pane)
    pane.show()
    buttons = (pane.claim_button, pane.keys_button, pane.import_button)
    assert not any(b.isEnabled() for b in buttons)  # not connected
    pane.states.buttons["GENERIC"].click()  # a filter for later, nothing to load yet
    assert vms[0].filters.state == "GENERIC"
    client, _bodies = sent
    for vm in vms:
        vm.set_client(client)
    pane.importer.set_client(client)
    assert all(b.isEnabled() for b in buttons)
    for button, name in ((pane.claim_button, "kmClaimDialog"), (pane.keys_button, "kmKeysDialog"),
                         (pane.import_button, "importWizard")):  # fmt: skip
        button.click()
        assert pane.dialog is not None and pane.dialog.objectName() == name
        if name == "kmClaimDialog":
            assert set(pane.dialog.editors) == {"EUI", "ownerID", "ownerToken"}  # type: ignore[attr-defined]
        if name == "importWizard":
            assert not pane.dialog.guide.isVisible()  # type: ignore[attr-defined]
        pane.dialog.reject()
        qtbot.waitUntil(lambda: pane.dialog is None, timeout=2000)
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)


def test_claiming_an_unknown_device_says_so_under_its_deveui(
    qtbot: Any, sent: tuple[LpwaClient, list[dict[str, Any]]]
) -> None:
    """A DevEUI the key manager does not hold (another tenant's, a typo): the claim dialog
    says so under the DevEUI, in words (not the platform's "device e<EUI> not found"), and
    keeps what was typed."""
    client, _bodies = sent
    runner = TaskRunner()
    pane = _pane(qtbot, client, runner)
    pane.claim_button.click()
    dialog = pane.dialog
    assert dialog is not None and dialog.objectName() == "kmClaimDialog"
    editors = dialog.editors  # type: ignore[attr-defined]
    qtbot.keyClicks(editors["EUI"].input, "FEEDC0E5FFFFFFFF")
    qtbot.keyClicks(editors["ownerID"].input, "acme")
    with qtbot.waitSignal(pane.km.claim_failed, timeout=10000):
        dialog.save()  # type: ignore[attr-defined]
    said = editors["EUI"].error.text()
    assert said == "The key manager has no device FEEDC0E5FFFFFFFF to claim"
    assert editors["ownerID"].input.text() == "acme"  # nothing typed is lost
    with qtbot.waitSignal(pane.vms[0].first_page_loaded, timeout=10000):
        dialog.reject()  # the list reloads on close
    qtbot.waitUntil(lambda: pane.dialog is None, timeout=2000)
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
