"""Network partners over HTTP: `/partners/{partnerUid}` for each account, and the
operator's view (`/admins/operators/{operatorUid}/partners...`): list with used of granted,
creation, grant changes, a partner's station in the operator view, credit transactions."""

from __future__ import annotations

from .conftest import API, Sandbox

OPS = f"{API}/admins/operators/mine/partners"
MODEL = {"ID": "KERLINK_WIRNET_ISTATION"}


def test_partner_answer_carries_the_callers_rights(sb: Sandbox) -> None:
    admin = sb.get(f"{API}/partners/mine").json()
    assert admin["partner"]["grantedPermissions"] == ["x", "a", "ra", "rc", "s1"]
    assert "domainRestrictions" not in admin["partner"]
    assert admin["type"] == "SUBSCRIBER" and "totalBaseStationsGranted" not in admin
    viewer = sb.get(f"{API}/partners/mine", "subscriber-viewer").json()
    assert viewer["partner"]["grantedPermissions"] == ["x"]
    restricted = sb.get(f"{API}/partners/mine", "subscriber-restricted").json()
    assert restricted["partner"]["domainRestrictions"]["and"][0]["group"]["name"] == "Site"


def test_partner_update_rights(sb: Sandbox) -> None:
    body = sb.get(f"{API}/partners/mine").json()
    # What was read goes back, with a change; occContext is deprecated and ignored.
    sent = body | {"alarmStateNotifications": "ENABLED", "occContext": {"version": 3}}
    done = sb.put(f"{API}/partners/mine", json=sent, params={"force": "true"})
    assert done.status_code == 200 and done.json()["alarmStateNotifications"] == "ENABLED"
    assert sb.put(f"{API}/partners/mine", "subscriber-viewer", json={}).status_code == 403
    assert sb.put(f"{API}/partners/mine", json={"colour": "red"}).status_code == 400
    assert (
        sb.put(f"{API}/partners/mine", "partner", json={"alarmStateNotifications": "X"}).status_code
        == 200
    )


def test_operator_lists_partners_with_used_and_granted(sb: Sandbox) -> None:
    page = sb.get(OPS, "operator").json()
    assert page["count"] == 3  # Acme, Demo Network Partner and the second tenant, Globex
    by_id = {p["partner"]["ID"]: p for p in page["briefs"]}
    assert by_id["100"]["totalBaseStationsUsed"] == 36
    assert by_id["200"]["totalBaseStationsUsed"] == 8
    assert by_id["demo-networks"]["totalBaseStationsGranted"] == 40
    for role in ("subscriber", "partner"):
        assert sb.get(OPS, role).status_code == 403
    assert sb.get(f"{API}/admins/operators/id:someone-else/partners", "operator").status_code == 404
    assert (
        sb.get(f"{API}/admins/operators/id:demo-operator/partners", "operator").status_code == 200
    )


def test_operator_creates_a_partner_and_changes_its_grant(sb: Sandbox) -> None:
    created = sb.post(
        OPS,
        "operator",
        json={
            "type": "SUPPLIER",
            "ID": "new-net",
            "name": "New Net",
            "totalBaseStationsGranted": 1,
        },
    )
    assert created.status_code == 201, created.text
    uid = created.json()["href"].rsplit("/", 1)[1]
    assert (
        sb.post(
            OPS, "operator", json={"type": "SUPPLIER", "ID": "new-net", "name": "x"}
        ).status_code
        == 409
    )
    assert sb.post(OPS, "operator", json={"ID": "bad id", "name": "x"}).status_code == 400
    # The operator creates a station for it through /partners/{partnerUid}/bss.
    station = sb.post(f"{API}/partners/id:sup:new-net/bss", "operator", json={"model": MODEL})
    assert station.status_code == 201
    refused = sb.post(f"{API}/partners/{uid}/bss", "operator", json={"model": MODEL})
    assert refused.status_code == 403
    raised = sb.put(
        f"{OPS}/{uid}", "operator", json={"totalBaseStationsGranted": 3, "name": "New Net 2"}
    )
    assert raised.status_code == 200 and raised.json()["totalBaseStationsGranted"] == 3
    assert raised.json()["partner"]["name"] == "New Net 2"
    assert (
        sb.post(f"{API}/partners/{uid}/bss", "operator", json={"model": MODEL}).status_code == 201
    )
    credits = sb.get(f"{OPS}/{uid}/stationCreditTransactions", "operator").json()
    kinds = [c["type"] for c in credits["briefs"]]
    assert credits["count"] == 4 and kinds.count("STATION_CREATED") == 2
    assert kinds.count("GRANT_CHANGED") == 2
    assert credits["briefs"][0]["lrrID"]  # newest first: the last station created


def test_operator_view_of_a_station(sb: Sandbox) -> None:
    lrr = sb.get(f"{API}/partners/mine/bss", params={"pageSize": 10}).json()["briefs"][0]["lrrID"]
    partner = sb.get(f"{API}/partners/mine").json()["href"].rsplit("/", 1)[1]
    seen = sb.get(f"{OPS}/{partner}/stations/i{lrr}", "operator")
    assert seen.status_code == 200 and seen.json()["lrrID"] == lrr
    assert "gpsReceiverConfig" not in seen.json()
    assert "gpsReceiverConfig" in sb.get(f"{API}/partners/mine/bss/i{lrr}").json()
    changed = sb.put(
        f"{OPS}/id:sub:100/stations/i{lrr}", "operator", json={"name": "Checked by operator"}
    )
    assert changed.status_code == 200 and changed.json()["name"] == "Checked by operator"
    assert sb.get(f"{OPS}/id:sub:100/stations/iFFFF0000", "operator").status_code == 404
    assert sb.get(f"{OPS}/{partner}/stations/i{lrr}", "subscriber").status_code == 403
    acme_credits = sb.get(f"{OPS}/id:sub:100/stationCreditTransactions", "operator").json()
    assert acme_credits["count"] == 36


def test_operator_put_takes_the_deprecated_delegation_flags_at_1(sb: Sandbox) -> None:
    """§4.1: the operator's PUT was for the delegation flags, deprecated and always 1 (§2.2)."""
    path = f"{OPS}/id:sup:demo-networks"
    flags = {"delegateAdministration": 1, "delegateBsTagging": 1, "delegateBsValidation": 1}
    assert sb.put(path, "operator", json=flags).status_code == 200
    refused = sb.put(path, "operator", json={"delegateBsValidation": 0})
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("delegateBsValidation")
