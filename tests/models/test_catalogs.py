"""The catalogs view-model: the profile editor's rules as the user types, version
comparison, the catalog file check, logos; then against the live sandbox (as the operator):
lists in a language, texts side by side, a profile saved, an import with its progress."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.catalogs import (
    CatalogsViewModel,
    ProfileForm,
    compare_versions,
    logo_problem,
    read_catalog_file,
)
from lpwa_console.models.errors import UserError
from lpwa_console.models.pane_access import (
    PANE_ACCESS,
    PaneRule,
    account_kind,
    client_for_pane,
    pane_visible,
    visible_panes,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.catalogs import DeviceProfileCreate
from tests.helpers import newer_catalog_version

KEYS = ["devices", "map", "alarms", "multicast", "app_servers", "network", "stations",
        "partners", "key_manager", "catalogs"]  # fmt: skip


# --- pane access ------------------------------------------------------------------------------


def test_each_kind_of_account_sees_its_panes() -> None:
    subscriber = visible_panes(KEYS, "subscriber")
    assert "catalogs" not in subscriber and "partners" not in subscriber and "devices" in subscriber
    assert visible_panes(KEYS, "subscriber-viewer") == subscriber
    assert visible_panes(KEYS, "operator") == ["partners", "catalogs"]
    assert visible_panes(KEYS, "partner") == ["map", "alarms", "stations"]
    assert visible_panes(KEYS, "supplier") == []
    assert account_kind("") == "subscriber"  # a remote profile signs in as one
    # a pane nobody declared is everyone's; a declared table extends with one line
    assert pane_visible("something_new", "operator")
    table = PANE_ACCESS | {"suppliers": PaneRule({"supplier"})}
    assert visible_panes([*KEYS, "suppliers"], "supplier", table) == ["suppliers"]
    finer = {"catalogs": PaneRule({"operator"}, allows=lambda role: role != "operator")}
    assert not pane_visible("catalogs", "operator", finer)
    client = object()
    assert client_for_pane("catalogs", "operator", client) is client
    assert client_for_pane("catalogs", "subscriber", client) is None


# --- the profile editor's rules ---------------------------------------------------------------


def test_editor_locks_and_forces_as_the_version_changes() -> None:
    form = ProfileForm(creating=True)
    raws: dict[str, Any] = {"ID": "p", "commercialName": "P", "macMinorVersion": "5"}
    states = form.states(raws)
    assert "allowedABPAutomaticReset" not in states
    assert not states["defaultRelayActivation"].enabled
    assert "relay" in states["defaultRelayActivation"].reason
    assert not states["uplinkDwellTime"].enabled and "AS923" in states["uplinkDwellTime"].reason
    raws |= {"macMinorVersion": "10", "allowedABPAutomaticReset": "1"}
    states = form.states(raws)
    assert states["allowedABPAutomaticReset"].forced == "0"
    assert states["devNonceCounterBased"].forced == "1"
    assert states["allowedABPAutomaticReset"].reason.startswith(
        "Locked: forced to 0 by LoRaWAN 1.1"
    )
    held = form.apply(raws | {"defaultRelayActivation": "1"})
    assert held["allowedABPAutomaticReset"] == "0" and held["defaultRelayActivation"] == ""
    request, errors = form.request(raws)
    assert errors == {} and isinstance(request, DeviceProfileCreate)
    assert request.allowedABPAutomaticReset == 0 and request.permanentlyListening == 0
    raws |= {"canOperateAsRelay": "1", "defaultIsmBands": "as923"}
    states = form.states(raws)
    assert "defaultRelayActivation" not in states and "uplinkDwellTime" not in states
    cellular = form.states({"connectivity": "CELLULAR"})
    assert not cellular["macMinorVersion"].enabled and "mtcLteCategory" not in cellular


def test_editor_errors_by_field() -> None:
    form = ProfileForm(creating=True)
    _request, errors = form.request(
        {"ID": "x" * 34, "commercialName": "", "macMaxTxEIRP": "10, 40", "macMinorVersion": "7"}
    )
    assert "40 characters" in errors["ID"]
    assert errors["commercialName"] and "36" in errors["macMaxTxEIRP"]
    assert "macMinorVersion" in errors
    editing = ProfileForm(creating=False)
    assert not editing.states({})["ID"].enabled


def test_versions_compared_and_files_checked(tmp_path: Path) -> None:
    assert compare_versions("2026.10", "2026.11") == "newer"
    assert compare_versions("2026.10", "2026.10") == "same"
    assert compare_versions("2026.10", "2026.9") == "older"
    assert compare_versions(None, "1") == "newer" and compare_versions("1", None) == "none"
    with pytest.raises(UserError, match="not a JSON"):
        read_catalog_file(b"{")
    with pytest.raises(UserError, match=r"profiles\.0"):
        read_catalog_file(json.dumps({"format": "lpwa-catalog/1", "catalog": "deviceProfiles",
                                      "version": "1", "profiles": [{"ID": "a"}]}).encode())  # fmt: skip
    assert logo_problem(b"\x89PNG\r\n\x1a\n") == ""
    assert "PNG or JPEG" in logo_problem(b"GIF89a")
    assert "256 KB" in logo_problem(b"\x89PNG\r\n\x1a\n" + bytes(300_000))


# --- against the live sandbox ---------------------------------------------------------------


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


def test_lists_follow_the_language_and_texts_load_side_by_side(
    qtbot: Any, operator: LpwaClient
) -> None:
    vm = CatalogsViewModel(TaskRunner())
    vm.set_client(operator)
    qtbot.waitUntil(lambda: vm.language == "en" and "fr" in vm.languages)
    model = vm.models["deviceProfiles"]
    model.fetchMore()
    qtbot.waitUntil(lambda: 0 in model.loaded_pages())

    def name_of(ID: str) -> str:
        for row in range(model.rowCount()):
            item = model.item(row)
            if item is not None and item.ID == ID:
                return str(item.commercialName)
        return ""

    assert name_of("LORA/GenericA.1.1a_ETSI") == "LoRaWAN 1.1 - class A"
    vm.set_language("fr")
    model.fetchMore()
    qtbot.waitUntil(lambda: name_of("LORA/GenericA.1.1a_ETSI") == "LoRaWAN 1.1 - classe A")
    with qtbot.waitSignal(vm.texts_loaded, timeout=10_000) as got:
        vm.load_texts("deviceVendors", "abeeway", "de")
    kind, ID, default, local = got.args
    assert (kind, ID) == ("deviceVendors", "abeeway")
    assert default == ("Abeeway", "Asset trackers") and local == ("Abeeway", "Objekt-Tracker")
    with qtbot.waitSignal(vm.texts_loaded, timeout=10_000) as got:
        vm.load_texts("rfRegions", "US915_SB2", "es")
    # the demo catalog is complete in its languages (issue 20)
    assert got.args[3] == ("US915 subbanda 2", "Norteamérica, canales 8 a 15")
    with qtbot.waitSignal(vm.versions_changed, timeout=10_000):
        vm.read_versions()
    assert set(vm.installed) == {"deviceProfiles", "baseStationProfiles", "rfRegions"}


def test_profile_saved_and_catalog_imported_with_progress(
    qtbot: Any, operator: LpwaClient, tmp_path: Path
) -> None:
    vm = CatalogsViewModel(TaskRunner())
    vm.set_client(operator)
    suffix = random.randrange(1 << 30)
    request, errors = ProfileForm(creating=True).request(
        {"ID": f"vm-{suffix}", "commercialName": "VM profile", "macMinorVersion": "6"}
    )
    assert request is not None, errors
    with qtbot.waitSignal(vm.profile_saved, timeout=10_000) as saved:
        vm.save_profile(request)
    assert f"CUSTOM/vm-{suffix}" == saved.args[0].ID and saved.args[0].devNonceCounterBased == 1
    version = newer_catalog_version()
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({
        "format": "lpwa-catalog/1", "catalog": "rfRegions", "version": version,
        "rfRegions": [{"ID": f"VM_{suffix}", "name": "VM region", "ismBand": "eu868"}],
    }))  # fmt: skip
    seen: list[int] = []
    vm.import_progress.connect(lambda percent, _t: seen.append(percent))
    with qtbot.waitSignal(vm.import_done, timeout=20_000) as done:
        vm.import_file(path)
    assert done.args[0].version == version and done.args[0].added == [f"VM_{suffix}"]
    assert seen[0] == 0 and seen[-1] == 100 and seen == sorted(seen)
    with qtbot.waitSignal(vm.import_needs_force, timeout=20_000) as asked:
        vm.import_file(path)
    assert asked.args == ["rfRegions", version]
    with qtbot.waitSignal(vm.import_done, timeout=20_000):
        vm.import_file(path, force=True)
