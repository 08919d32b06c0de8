"""Rules the audits of issue 21 (§4) found broken, over HTTP: a station's last administration
command on the station itself, hrefs the reader can follow, catalog changes in the
provisioning queue, RF region references, and cellular devices' IP address."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lpwa_console.sandbox import SandboxSettings, demo
from lpwa_console.sandbox.db import Database, migrations
from lpwa_console.sandbox.store.devices import cellular_ip
from lpwa_console.sandbox.store.stations import software_type

from .conftest import API, Sandbox

BSS = f"{API}/partners/mine/bss"
OPERATOR = f"{API}/admins/operators/mine"


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def _acme_station(sb: Sandbox, software: str = "LRR_LINUX") -> tuple[int, str]:
    """(UID, lrrID) of one of Acme's stations (the subscriber's `mine`) running `software`."""
    conn = _db(sb).conn()
    rows = conn.execute(
        "SELECT s.uid, s.lrr_id, s.model FROM stations s JOIN partners p ON p.uid = s.partner_uid"
        " WHERE p.type = 'SUBSCRIBER' AND p.ref = '100' ORDER BY s.uid"
    ).fetchall()
    return next((uid, lrr) for uid, lrr, model in rows if software_type(conn, model) == software)


def _acme_partner_uid(sb: Sandbox) -> str:
    return str(sb.get(f"{API}/partners/mine").json()["href"].rsplit("/", 1)[1])


# --- a station's last administration command (Document 2 §2.2) -------------------------------


def test_station_carries_its_last_admin_command(sb: Sandbox) -> None:
    _uid, lrr = _acme_station(sb)
    before = sb.get(f"{BSS}/i{lrr}").json()
    assert "lastAcmdReqType" not in before and "lastCmdType" not in before
    asked = sb.post(
        f"{BSS}/i{lrr}/admins/changeSupportPassword", json={"password": "Sandbox-Pass-42"}
    )
    assert asked.status_code == 201, asked.text
    station = sb.get(f"{BSS}/i{lrr}").json()
    assert station["lastAcmdReqType"] == station["lastCmdType"] == "CHANGE_SUPPORT_PASSWORD"
    status = sb.get(f"{BSS}/i{lrr}/admins/lastCmdStatus").json()
    assert status["lastCmdType"] == station["lastCmdType"]
    # Another command: the station follows.
    assert sb.post(f"{BSS}/i{lrr}/admins/reboot", json={}).status_code == 201
    station = sb.get(f"{BSS}/i{lrr}").json()
    assert (station["lastAcmdReqType"], station["lastCmdType"]) == ("REBOOT", "REBOOT")
    # The operator's view carries them too, and they may be sent back (read-only, ignored).
    partner = _acme_partner_uid(sb)
    seen = sb.get(f"{OPERATOR}/partners/{partner}/stations/i{lrr}", "operator").json()
    assert seen["lastAcmdReqType"] == "REBOOT"
    back = {"name": station["name"], "lastAcmdReqType": "REBOOT", "lastCmdType": "REBOOT"}
    assert sb.put(f"{BSS}/i{lrr}", json=back).status_code == 200


# --- hrefs the reader can follow ---------------------------------------------------------------


def test_station_hrefs_are_ones_the_reader_can_follow(sb: Sandbox) -> None:
    _uid, lrr = _acme_station(sb)
    partner = _acme_partner_uid(sb)
    # The operator's view names the partner by its UID: `mine` names no partner for it.
    seen = sb.get(f"{OPERATOR}/partners/{partner}/stations/i{lrr}", "operator").json()
    assert seen["href"].startswith(f"/partners/{partner}/bss/")
    assert sb.get(API + seen["href"], "operator").status_code == 200
    assert (
        sb.get(f"{API}/partners/mine/bss/{seen['href'].rsplit('/', 1)[1]}", "operator").status_code
        == 403
    )
    # So does the partner interface when the operator reads a partner's stations.
    page = sb.get(f"{API}/partners/{partner}/bss", "operator", params={"pageSize": 5}).json()
    for item in page["briefs"]:
        assert sb.get(API + item["href"], "operator").status_code == 200
        for tag in item.get("tags", []):
            assert tag["href"].startswith(f"/partners/{partner}/bss/")
    # Clusters' stations and a station's tags too.
    one = page["briefs"][0]
    box = {"minLat": one["lat"] - 1e-4, "maxLat": one["lat"] + 1e-4,
           "minLon": one["lon"] - 1e-4, "maxLon": one["lon"] + 1e-4}  # fmt: skip
    near = sb.get(f"{API}/partners/{partner}/bss/clusters", "operator", params=box).json()
    items = [c["item"] for c in near["clusters"] if "item" in c]
    assert items and all(i["href"].startswith(f"/partners/{partner}/bss/") for i in items)
    path = f"{API}/partners/{partner}/bss/i{one['lrrID']}/tags"
    added = sb.post(path, "operator", json={"name": "checked"})
    assert added.status_code == 201, added.text
    assert added.json()["href"].startswith(f"/partners/{partner}/bss/")
    tags = sb.get(path, "operator").json()["briefs"]
    assert tags and all(t["href"].startswith(f"/partners/{partner}/bss/") for t in tags)
    # Its alarms too.
    alarms = sb.get(f"{API}/partners/{partner}/bss/alarms", "operator").json()["briefs"]
    assert alarms and all(a["href"].startswith(f"/partners/{partner}/bss/") for a in alarms)
    # The partner's own accounts keep `mine`.
    own = sb.get(BSS, params={"pageSize": 5}).json()["briefs"]
    assert all(item["href"].startswith("/partners/mine/bss/") for item in own)
    assert sb.get(API + own[0]["href"]).status_code == 200
    mine = sb.get(f"{BSS}/alarms").json()["briefs"]
    assert mine and all(a["href"].startswith("/partners/mine/bss/") for a in mine)


# --- catalog changes reach the provisioning queue (Document 2 §2.2) -----------------------------


def _queued(sb: Sandbox, type_: str) -> list[dict[str, Any]]:
    """The queue's items of a type, oldest first."""
    page = sb.get(f"{OPERATOR}/provqueues", "operator", params={"type": type_, "pageSize": 1000})
    assert page.status_code == 200, page.text
    return list(reversed(page.json()["briefs"]))


def _new_items(sb: Sandbox, type_: str, before: list[dict[str, Any]]) -> list[tuple[str, str]]:
    seen = {item["UID"] for item in before}
    return [(i["action"], i["entityID"]) for i in _queued(sb, type_) if i["UID"] not in seen]


def test_device_profile_changes_are_queued_once_each(sb: Sandbox) -> None:
    before = _queued(sb, "DEVICE_PROFILE")
    body = {"ID": "queued-sensor", "commercialName": "Queued sensor", "vendor": {"ID": "elsys"},
            "macMinorVersion": 4, "defaultIsmBands": [{"ID": "eu868"}]}  # fmt: skip
    made = sb.post(f"{OPERATOR}/deviceProfiles", "operator", json=body)
    assert made.status_code == 201, made.text
    path = f"{API}{made.json()['href']}"
    assert sb.put(path, "operator", json={"commercialName": "Queued sensor 2"}).status_code == 200
    # Sending back what it holds changes nothing: nothing to provision.
    assert sb.put(path, "operator", json=sb.get(path, "operator").json()).status_code == 200
    assert _new_items(sb, "DEVICE_PROFILE", before) == [
        ("CREATION", "CUSTOM/queued-sensor"),
        ("UPDATE", "CUSTOM/queued-sensor"),
    ]


def test_rf_region_changes_are_queued_once_each(sb: Sandbox) -> None:
    before = _queued(sb, "RF_REGION")
    made = sb.post(
        f"{OPERATOR}/rfRegions",
        "operator",
        json={"ID": "KR920_Q", "name": "KR", "ismBand": "kr920"},
    )
    assert made.status_code == 201, made.text
    path = f"{API}{made.json()['href']}"
    assert sb.put(path, "operator", json={"name": "Korea"}).status_code == 200
    assert sb.put(path, "operator", json={"name": "Korea"}).status_code == 200  # no change
    assert sb.client.delete(path, headers=sb.headers("operator")).status_code == 204
    assert _new_items(sb, "RF_REGION", before) == [
        ("CREATION", "CUSTOM/KR920_Q"),
        ("UPDATE", "CUSTOM/KR920_Q"),
        ("DELETION", "CUSTOM/KR920_Q"),
    ]


def test_catalog_install_queues_what_it_writes(sb: Sandbox) -> None:
    before = _queued(sb, "RF_REGION")
    installed = sb.post(f"{OPERATOR}/rfRegions/catalog/selfUpdate", "operator")
    assert installed.status_code == 201, installed.text
    assert ("CREATION", "AU915_SB2") in _new_items(sb, "RF_REGION", before)


def test_hsm_group_creation_and_put_queue_one_item_each(sb: Sandbox) -> None:
    groups = sb.get(f"{OPERATOR}/hsmGroups", "operator").json()["briefs"]
    before = _queued(sb, "HSM_GROUP")
    body = {"ID": "hsm-queue-1", "name": "Queued HSM", "subscriberID": groups[0]["subscriberID"]}
    created = sb.post(f"{OPERATOR}/hsmGroups", "operator", json=body)
    assert created.status_code == 201, created.text
    path = f"{OPERATOR}/hsmGroups/{created.json()['UID']}"
    assert _new_items(sb, "HSM_GROUP", before) == [("CREATION", "hsm-queue-1")]
    before = _queued(sb, "HSM_GROUP")
    # A new name and a new network key in one PUT: one UPDATE.
    changed = created.json() | {"name": "Queued HSM 2", "hsmNwkKeyVersion": "hsm-queue-nwk-v2"}
    assert sb.put(path, "operator", json=changed).status_code == 200
    assert _new_items(sb, "HSM_GROUP", before) == [("UPDATE", "hsm-queue-1")]
    # The same again: nothing changed, nothing queued; back to the first key: one UPDATE.
    before = _queued(sb, "HSM_GROUP")
    assert sb.put(path, "operator", json=changed).status_code == 200
    assert _new_items(sb, "HSM_GROUP", before) == []
    assert (
        sb.put(path, "operator", json={"hsmNwkKeyVersion": "hsm-queue-1-nwk-v1"}).status_code == 200
    )
    assert _new_items(sb, "HSM_GROUP", before) == [("UPDATE", "hsm-queue-1")]


# --- RF region references ----------------------------------------------------------------------


def test_stations_name_rf_regions_of_the_operators_catalog(sb: Sandbox) -> None:
    catalog = sb.get(f"{OPERATOR}/rfRegions", "operator", params={"pageSize": 1000}).json()
    held = {r["ID"] for r in catalog["briefs"]}
    stations = sb.get(BSS, params={"pageSize": 1000}).json()["briefs"]
    used = {s["rfRegionID"] for s in stations if "rfRegionID" in s}
    assert used and used <= held, used - held


def test_update_rf_region_takes_only_a_catalog_region_of_the_stations_band(sb: Sandbox) -> None:
    _uid, lrr = _acme_station(sb)
    path = f"{BSS}/i{lrr}/admins/updateRfRegion"
    nope = sb.post(path, json={"rfRegionID": "NOPE_REGION"})
    assert nope.status_code == 400
    assert (
        nope.json()["message"] == "rfRegionID: the operator's catalog has no RF region NOPE_REGION"
    )
    other_band = sb.post(path, json={"rfRegionID": "US915_SB2"})
    assert other_band.status_code == 400 and "us915" in other_band.json()["message"]
    assert sb.post(path, json={"rfRegionID": "EU868_DEFAULT"}).status_code == 201


def test_only_an_unused_custom_rf_region_can_be_deleted(sb: Sandbox) -> None:
    regions = f"{OPERATOR}/rfRegions"
    delete = lambda path: sb.client.delete(path, headers=sb.headers("operator"))  # noqa: E731
    catalog = delete(f"{regions}/id:AS923_1")
    assert catalog.status_code == 403
    assert "source CATALOG" in catalog.json()["message"]
    assert sb.get(f"{regions}/id:AS923_1", "operator").status_code == 200
    # A custom region a station uses stays until no station does.
    made = sb.post(regions, "operator", json={"ID": "EU868_X", "name": "EU X", "ismBand": "eu868"})
    assert made.status_code == 201, made.text
    _uid, lrr = _acme_station(sb)
    conn = _db(sb).conn()
    conn.execute("UPDATE stations SET rf_region_id = 'CUSTOM/EU868_X' WHERE lrr_id = ?", (lrr,))
    conn.commit()
    used = delete(f"{API}{made.json()['href']}")
    assert used.status_code == 400 and "still used by 1 base station" in used.json()["message"]
    conn.execute("UPDATE stations SET rf_region_id = 'EU868_DEFAULT' WHERE lrr_id = ?", (lrr,))
    conn.commit()
    assert delete(f"{API}{made.json()['href']}").status_code == 204


# --- cellular devices' IP address ---------------------------------------------------------------


def test_cellular_devices_carry_their_ip_address(sb: Sandbox) -> None:
    listed = sb.get(f"{OPERATOR}/devices", "operator", params={"pageSize": 1000}).json()["briefs"]
    cellular = [d for d in listed if d["connectivity"] == "CELLULAR"]
    assert cellular and all(d["devAddr"].startswith("10.") for d in cellular)
    assert len({d["devAddr"] for d in cellular}) == len(cellular)
    # A new one gets its address at creation, read by the subscriber as its nwAddress.
    made = sb.post(
        f"{API}/subscriptions/mine/devices",
        json={"EUI": "356938035643809", "connectivity": "CELLULAR", "imsi": "208019999000077"},
    )
    assert made.status_code == 201, made.text
    uid = int(made.json()["ref"])
    address = f"10.{(uid >> 16) & 255}.{(uid >> 8) & 255}.{uid & 255}"
    assert made.json()["nwAddress"] == address
    found = sb.get(f"{OPERATOR}/devices", "operator", params={"imei": "35693803564380"}).json()
    assert [d["devAddr"] for d in found["briefs"]] == [address]
    # Sent back, it is no change.
    assert sb.put(f"{API}/subscriptions/mine/devices/{uid}", json=made.json()).status_code == 200


# --- an older database -------------------------------------------------------------------------


def test_the_rules_step_brings_an_older_database_in_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migration step V_PLATFORM_RULES: the demo's stations name the catalog's RF region,
    cellular devices get their IP address (nothing queued for it), and the per-row HSM
    triggers are gone."""
    path = tmp_path / "old.db"
    step = migrations.MIGRATIONS.index(migrations.V_PLATFORM_RULES)
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:step])
    db = demo.prepare(SandboxSettings(db_path=path, demo_devices=40), history=False)
    with db.write() as conn:  # as the version before made them
        conn.execute("UPDATE stations SET rf_region_id = 'EU868' WHERE uid % 2 = 0")
        conn.execute("UPDATE stations SET rf_region_id = 'EU868-ES' WHERE uid % 2 = 1")
        conn.execute("UPDATE devices SET nw_address = NULL WHERE connectivity = 'CELLULAR'")
        queued = conn.execute("SELECT count(*) FROM prov_queue").fetchone()[0]
    db.close()
    monkeypatch.undo()
    db = Database(path)
    assert db.migrations_run == len(migrations.MIGRATIONS) - step
    conn = db.conn()
    assert {r[0] for r in conn.execute("SELECT DISTINCT rf_region_id FROM stations")} == {
        "EU868_DEFAULT"
    }
    cellular = conn.execute(
        "SELECT uid, nw_address FROM devices WHERE connectivity = 'CELLULAR'"
    ).fetchall()
    assert cellular and all(ip == cellular_ip(uid) for uid, ip in cellular)
    assert conn.execute("SELECT count(*) FROM prov_queue").fetchone()[0] == queued
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert "tr_prov_hsm_added" in triggers and "tr_prov_hsm_key" not in triggers
    db.close()
