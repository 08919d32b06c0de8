"""Rules the audits of issue 21 (§4) found broken, over HTTP: a station's last administration
command on the station itself, hrefs the reader can follow, catalog changes in the
provisioning queue, RF region references, and cellular devices' IP address."""

from __future__ import annotations

from typing import Any

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
    # The partner's own accounts keep `mine`.
    own = sb.get(BSS, params={"pageSize": 5}).json()["briefs"]
    assert all(item["href"].startswith("/partners/mine/bss/") for item in own)
    assert sb.get(API + own[0]["href"]).status_code == 200
