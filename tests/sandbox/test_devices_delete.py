"""DELETE /subscriptions/mine/devices/{deviceUid}: the device goes with all that is its own,
in one transaction; rights as for writes; a device outside the caller's domains is not found."""

from __future__ import annotations

from typing import Any

from lpwa_console.sandbox.simulator import Simulator

from .conftest import DEVICES, Sandbox

DAY = 86_400
EUI = "0018B2000000DE01"
BODY = {
    "EUI": EUI,
    "model": {"ID": "itron-cyble-lw"},
    "appEUI": "70B3D57ED0000000",
    "appKey": "00112233445566778899AABBCCDDEEFF",
    "tags": [{"name": "to-be-deleted"}],
    "domains": [{"name": "France/Lyon", "group": {"name": "Site"}}],
    "appServers": [{"ID": "as-metering"}],
    "alarmsConfiguration": {"alarm004": [{"status": "ENABLE", "level": 4, "duration": "PT1H"}]},
}

# Every table that holds rows of a device, and its column naming the device.
OWN_ROWS = {
    "alarms": "device_uid",
    "frame_buckets": "device_uid",
    "device_tags": "device_uid",
    "device_domains": "device_uid",
    "device_app_servers": "device_uid",
    "sim_devices": "uid",
    "sim_silent": "device_uid",
    "sim_recheck": "device_uid",
}


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def _rows_of(sb: Sandbox, uid: int) -> dict[str, int]:
    conn = _db(sb).conn()
    return {
        table: conn.execute(f"SELECT count(*) FROM {table} WHERE {column} = ?", (uid,)).fetchone()[
            0
        ]
        for table, column in OWN_ROWS.items()
    }


def _delete(sb: Sandbox, ref: str, role: str = "subscriber") -> Any:
    return sb.client.delete(f"{DEVICES}/{ref}", headers=sb.headers(role))


def test_a_deleted_device_leaves_nothing_and_its_eui_starts_clean(sb: Sandbox) -> None:
    sim = Simulator(_db(sb), seed=7)
    created = sb.post(DEVICES, json=BODY)
    assert created.status_code == 201, created.text
    uid = int(created.json()["ref"])
    sim.step(7 * 3600)  # scheduled, heard (every 6 h at most), traffic recorded
    sim.set_silent(uid)
    sim.step(DAY)  # silent past its threshold: alarm 004 raised
    device = sb.get(f"{DEVICES}/{uid}").json()
    assert device["alarmCount"] >= 1 and device["tags"]
    listed = sb.get(f"{DEVICES}/alarms", params={"pageSize": 1000}).json()["briefs"]
    assert EUI in {a["device"]["EUI"] for a in listed}
    before = _rows_of(sb, uid)
    assert before["alarms"] and before["frame_buckets"] and before["device_tags"]
    assert before["sim_silent"]  # (the schedule is in memory: sim_devices stays empty)

    gone = _delete(sb, f"e{EUI}")
    assert gone.status_code == 204 and not gone.content
    assert set(_rows_of(sb, uid).values()) == {0}
    assert sb.get(f"{DEVICES}/{uid}").status_code == 404
    assert _delete(sb, str(uid)).status_code == 404
    listed = sb.get(f"{DEVICES}/alarms", params={"pageSize": 1000}).json()["briefs"]
    assert listed and EUI not in {a["device"]["EUI"] for a in listed}

    again = sb.post(DEVICES, json={k: v for k, v in BODY.items() if k != "tags"})
    assert again.status_code == 201, again.text
    fresh = again.json()
    assert fresh["tags"] == [] and fresh["alarmCount"] == 0 and fresh["alarmLevel"] == 0
    assert "lastUpTimestamp" not in fresh
    alarms = sb.get(f"{DEVICES}/e{EUI}/alarms").json()
    assert alarms["briefs"] == []
    sim.step(7 * 3600)  # the new device is scheduled afresh, not silent like the old one
    assert sb.get(f"{DEVICES}/e{EUI}").json().get("lastUpTimestamp") is not None


def test_deleting_needs_write_rights_and_the_device_in_the_callers_domains(sb: Sandbox) -> None:
    created = sb.post(DEVICES, json=BODY)
    assert created.status_code == 201, created.text
    ref = created.json()["ref"]
    viewer = _delete(sb, ref, "subscriber-viewer")
    assert viewer.status_code == 403
    outside = next(
        d
        for d in sb.all_devices()
        if d["domains"] and not any(x["name"].startswith("France/") for x in d["domains"])
    )
    hidden = _delete(sb, outside["ref"], "subscriber-restricted")
    assert hidden.status_code == 404  # as GET and PUT answer it: not found, not forbidden
    assert sb.get(f"{DEVICES}/{outside['ref']}").status_code == 200
    inside = _delete(sb, ref, "subscriber-restricted")  # France/Lyon is within its domains
    assert inside.status_code == 204
    assert sb.get(f"{DEVICES}/{ref}").status_code == 404


def test_async_is_accepted_and_answered_at_once(sb: Sandbox) -> None:
    created = sb.post(DEVICES, json=BODY)
    assert created.status_code == 201, created.text
    gone = sb.client.delete(
        f"{DEVICES}/{created.json()['ref']}", params={"async": "true"}, headers=sb.headers()
    )
    assert gone.status_code == 204
