"""The operator's operations over HTTP (Document 2 §4.1): the provisioning queue filled as
devices, stations and HSM groups change (`subSystem` filter, newest first, paging), the
command queue fed by base station commands, SIM cards, devices (`imei` exact, `lorawanDebug`)
and HSM groups (create, read, update with a network key rotation)."""

from __future__ import annotations

from typing import Any

from lpwa_console.sandbox.store import operations as ops_store
from lpwa_console.schema.operations import (
    CommandQueuePage,
    OperatorDevicePage,
    OperatorHsmGroup,
    ProvisioningQueuePage,
    SimCardPage,
)

from .conftest import API, DEVICES, Sandbox

OPS = f"{API}/admins/operators/mine"
EUI = "0018B2000000AB77"
IMEI = "359999000000125"


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def _queue(sb: Sandbox, **params: Any) -> dict[str, Any]:
    answer = sb.get(f"{OPS}/provqueues", "operator", params=params)
    assert answer.status_code == 200, answer.text
    ProvisioningQueuePage.model_validate(answer.json())
    return dict(answer.json())


def test_only_the_operator_reads_operations(sb: Sandbox) -> None:
    for path in ("provqueues", "cmdqueues", "sims", "devices", "hsmGroups"):
        assert sb.get(f"{OPS}/{path}", "operator").status_code == 200, path
        assert sb.get(f"{OPS}/{path}", "subscriber").status_code == 403, path
        assert sb.get(f"{OPS}/{path}", "partner").status_code == 403, path
        other = f"{API}/admins/operators/id:someone-else/{path}"
        assert sb.get(other, "operator").status_code == 404, path
        assert sb.get(f"{API}/admins/operators/1/{path}", "operator").status_code == 200


def test_device_changes_are_provisioned_to_their_subsystems(sb: Sandbox) -> None:
    before = _queue(sb)["count"]
    created = sb.post(DEVICES, json={"EUI": EUI, "name": "queued"})
    assert created.status_code == 201, created.text
    ref = created.json()["ref"]
    cellular = sb.post(
        DEVICES, json={"EUI": IMEI, "connectivity": "CELLULAR", "imsi": "208019999000001"}
    )
    assert cellular.status_code == 201, cellular.text
    page = _queue(sb)
    assert page["count"] == before + 3
    newest = page["briefs"][:3]
    assert [(i["type"], i["action"], i["subSystem"]) for i in newest] == [
        ("DEVICE", "ACTIVATION", "PGW"),
        ("DEVICE", "ACTIVATION", "HSS_SPR"),
        ("DEVICE", "ACTIVATION", "LRC"),
    ]
    assert newest[2]["entityID"] == EUI and newest[2]["subscriberID"]
    assert newest[0]["entityID"] == IMEI[:14] and newest[0]["state"] == "PENDING"
    # subSystem filters; an update of a provisioned field queues, a reading does not.
    assert all(i["subSystem"] == "PGW" for i in _queue(sb, subSystem="PGW")["briefs"])
    lrc = _queue(sb, subSystem="LRC")["count"]
    assert sb.put(f"{DEVICES}/{ref}", json={"name": "renamed"}).status_code == 200
    assert sb.put(f"{DEVICES}/{ref}", json={"name": "renamed"}).status_code == 200
    assert _queue(sb, subSystem="LRC")["count"] == lrc + 1
    _db(sb).conn().execute("UPDATE devices SET last_up = 5 WHERE eui = ?", (EUI,))
    assert _queue(sb, subSystem="LRC")["count"] == lrc + 1
    assert sb.client.delete(f"{DEVICES}/{ref}", headers=sb.headers()).status_code == 204
    top = _queue(sb, subSystem="LRC")["briefs"][0]
    assert (top["action"], top["entityID"]) == ("DEACTIVATION", EUI)
    one = sb.get(f"{OPS}/provqueues/{top['UID']}", "operator").json()
    assert one == top
    assert sb.get(f"{OPS}/provqueues/999999999", "operator").status_code == 404
    assert sb.get(f"{OPS}/provqueues", "operator", params={"subSystem": "X"}).status_code == 400


def test_queue_pages_and_sorts_oldest_first_on_request(sb: Sandbox) -> None:
    # A new demo's queue is empty (the demo provisions nothing): 25 items to page through.
    assert _queue(sb)["count"] == 0
    with _db(sb).write() as conn:
        for n in range(25):
            ops_store.enqueue(conn, "DEVICE_PROFILE", "CREATION", f"CUSTOM/profile-{n}")
    newest = _queue(sb, pageSize=10)
    oldest = _queue(sb, pageSize=10, sort="creationTimestamp,asc")
    assert int(newest["briefs"][0]["UID"]) > int(oldest["briefs"][0]["UID"])
    second = _queue(sb, pageSize=10, pageIndex=2)
    assert "count" not in second
    assert int(second["briefs"][0]["UID"]) < int(newest["briefs"][-1]["UID"])
    bad = sb.get(f"{OPS}/provqueues", "operator", params={"sort": "type,asc"})
    assert bad.status_code == 400


def test_items_are_taken_after_a_moment_and_profiles_can_be_queued(sb: Sandbox) -> None:
    with _db(sb).write() as conn:
        uid = ops_store.enqueue(conn, "DEVICE_PROFILE", "CREATION", "CUSTOM/my-profile")
    item = sb.get(f"{OPS}/provqueues/{uid}", "operator").json()
    assert item["state"] == "PENDING" and item["type"] == "DEVICE_PROFILE"
    _db(sb).conn().execute("UPDATE prov_queue SET done_at = 1 WHERE id = ?", (uid,))
    assert sb.get(f"{OPS}/provqueues/{uid}", "operator").json()["state"] == "DONE"


def test_station_changes_and_commands_reach_the_queues(sb: Sandbox) -> None:
    bss = f"{API}/partners/mine/bss"
    station = sb.get(bss, params={"pageSize": 10}).json()["briefs"][0]
    lrr = station["lrrID"]
    before = _queue(sb, type="BASE_STATION")["count"] if _queue(sb, type="BASE_STATION") else 0
    assert sb.put(f"{bss}/i{lrr}", json={"name": "Renamed station"}).status_code == 200
    top = _queue(sb, type="BASE_STATION")["briefs"][0]
    assert (top["action"], top["entityID"], top["partnerID"]) == ("UPDATE", lrr, "100")
    assert _queue(sb, type="BASE_STATION")["count"] == before + 1
    sent = sb.post(f"{bss}/i{lrr}/admins/reboot", json={}, params={"force": "true"})
    assert sent.status_code == 201, sent.text
    page = sb.get(f"{OPS}/cmdqueues", "operator").json()
    CommandQueuePage.model_validate(page)
    first = page["briefs"][0]
    assert (first["type"], first["lrrID"], first["state"]) == ("REBOOT", lrr, "PENDING")
    assert page["count"] >= 1
    only = sb.get(f"{OPS}/cmdqueues", "operator", params={"lrrID": lrr.lower(), "type": "REBOOT"})
    assert [i["UID"] for i in only.json()["briefs"]] == [first["UID"]]
    none = sb.get(f"{OPS}/cmdqueues", "operator", params={"state": "COMPLETED", "lrrID": lrr})
    assert none.json()["briefs"] == []
    assert sb.get(f"{OPS}/cmdqueues/{first['UID']}", "operator").json() == first
    assert sb.get(f"{OPS}/cmdqueues/99999", "operator").status_code == 404


def test_sims_and_devices(sb: Sandbox) -> None:
    created = sb.post(
        DEVICES,
        json={"EUI": IMEI, "connectivity": "CELLULAR", "imsi": "208019999000001",
              "iccid": "8933010000000000001"},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    sims = sb.get(f"{OPS}/sims", "operator", params={"imsi": "2080199"}).json()
    SimCardPage.model_validate(sims)
    assert [s["IMSI"] for s in sims["briefs"]] == ["208019999000001"]
    assert sims["briefs"][0]["IMEI"].startswith(IMEI[:14])
    by_imei = sb.get(f"{OPS}/devices", "operator", params={"imei": IMEI}).json()
    OperatorDevicePage.model_validate(by_imei)
    assert [d["imei"] for d in by_imei["briefs"]] == [IMEI[:14]]
    assert by_imei["briefs"][0]["connectivity"] == "CELLULAR"
    fourteen = sb.get(f"{OPS}/devices", "operator", params={"imei": IMEI[:14]}).json()
    assert fourteen["count"] == 1
    assert sb.get(f"{OPS}/devices", "operator", params={"imei": "12"}).status_code == 400
    debug = sb.get(f"{OPS}/devices", "operator", params={"lorawanDebug": "true"}).json()
    assert debug["count"] > 0
    assert all(d["lorawanDebug"] and d["lorawanDebugSince"] for d in debug["briefs"])
    assert all(d["connectivity"] == "LORAWAN" for d in debug["briefs"])
    everything = sb.get(f"{OPS}/devices", "operator").json()
    assert everything["count"] > debug["count"]
    eui = debug["briefs"][0]["devEUI"]
    one = sb.get(f"{OPS}/devices", "operator", params={"devEUI": eui.lower()}).json()
    assert [d["devEUI"] for d in one["briefs"]] == [eui]


def test_hsm_groups_create_read_rotate(sb: Sandbox) -> None:
    listed = sb.get(f"{OPS}/hsmGroups", "operator").json()
    assert listed["count"] >= 1
    body = {
        "ID": "hsm-ops-1",
        "name": "Ops HSM",
        "subscriberID": listed["briefs"][0]["subscriberID"],
    }
    created = sb.post(f"{OPS}/hsmGroups", "operator", json=body)
    assert created.status_code == 201, created.text
    group = OperatorHsmGroup.model_validate(created.json())
    assert group.hsmNwkKeyVersion == "hsm-ops-1-nwk-v1"
    assert group.hsmAppKeyVersion == "hsm-ops-1-app-v1"
    assert sb.post(f"{OPS}/hsmGroups", "operator", json=body).status_code == 409
    unknown = sb.post(f"{OPS}/hsmGroups", "operator", json=body | {"subscriberID": "nobody"})
    assert unknown.status_code == 400 and unknown.json()["message"].startswith("subscriberID")
    path = f"{OPS}/hsmGroups/{group.UID}"
    assert sb.get(f"{OPS}/hsmGroups/id:hsm-ops-1", "operator").json()["UID"] == group.UID
    rotated = sb.put(path, "operator", json=created.json() | {"hsmNwkKeyVersion": "ops-nwk-v2"})
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["hsmNwkKeyVersion"] == "ops-nwk-v2"
    back = sb.put(path, "operator", json={"hsmNwkKeyVersion": "hsm-ops-1-nwk-v1"})
    assert back.json()["hsmNwkKeyVersion"] == "hsm-ops-1-nwk-v1"
    taken = sb.put(path, "operator", json={"hsmNwkKeyVersion": "hsm-ops-1-app-v1"})
    assert taken.status_code == 409
    assert sb.put(path, "operator", json={"ID": "other"}).status_code == 400
    queued = _queue(sb, type="HSM_GROUP")["briefs"]
    assert {i["action"] for i in queued} >= {"CREATION", "UPDATE"}
    assert all(i["entityID"] == "hsm-ops-1" for i in queued[:3])
    assert sb.get(f"{OPS}/hsmGroups/99999", "operator").status_code == 404


def test_wire_json_lists_equal_their_validated_form(sb: Sandbox) -> None:
    """The queues and the device list skip FastAPI's response validation (`wire_json`)."""
    bss = f"{API}/partners/mine/bss"
    lrr = sb.get(bss, params={"pageSize": 10}).json()["briefs"][0]["lrrID"]
    sb.post(f"{bss}/i{lrr}/admins/reboot", json={}, params={"force": "true"})
    sb.post(DEVICES, json={"EUI": IMEI, "connectivity": "CELLULAR", "imsi": "208019999000002"})
    for path, page_type, params in (
        ("provqueues", ProvisioningQueuePage, {"pageSize": 50}),
        ("provqueues", ProvisioningQueuePage, {"pageSize": 10, "subSystem": "PGW"}),
        ("cmdqueues", CommandQueuePage, {}),
        ("devices", OperatorDevicePage, {"pageSize": 200}),
        ("devices", OperatorDevicePage, {"imei": IMEI}),
        ("devices", OperatorDevicePage, {"lorawanDebug": "true"}),
    ):
        sent = sb.get(f"{OPS}/{path}", "operator", params=params).json()
        assert sent["briefs"], (path, params)
        validated = page_type.model_validate(sent).model_dump(mode="json", exclude_none=True)
        assert sent == validated, (path, params)
