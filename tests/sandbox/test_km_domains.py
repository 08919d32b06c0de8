"""The key manager follows the network devices' domains (issue 21): a KM device whose EUI
is a network device outside a restricted caller's domains is out of its reach (read,
replace, delete, list, count, states, traffic, create, claim, import). Written from the
France-restricted subscriber's side."""

from __future__ import annotations

from typing import Any

from .conftest import API, DEVICES, Sandbox

KM = f"{API}/kmSubscriptions/mine/devices"
ROLE = "subscriber-restricted"
APP_KEY = "000102030405060708090A0B0C0D0E0F"


def _km_all(sb: Sandbox, role: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    index = 1
    while True:
        page = sb.get(KM, role, params={"pageIndex": index, "pageSize": 1000}).json()
        out += page["briefs"]
        if not page["more"]:
            return out
        index += 1


def _hidden_and_seen(sb: Sandbox) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """KM devices whose network device the restricted caller cannot see, and the others."""
    seen_euis = {d["EUI"] for d in sb.all_devices(ROLE)}
    network = {d["EUI"] for d in sb.all_devices()}
    km = _km_all(sb, "subscriber")
    hidden = [k for k in km if k["EUI"] in network and k["EUI"] not in seen_euis]
    others = [k for k in km if k not in hidden]
    return hidden, others


def test_a_km_device_of_a_hidden_device_is_out_of_reach(sb: Sandbox) -> None:
    hidden, others = _hidden_and_seen(sb)
    assert hidden and others, "the demo has KM devices on both sides"
    target = hidden[0]
    for ident in (target["UID"], f"e{target['EUI']}"):
        assert sb.get(f"{KM}/{ident}", ROLE).status_code == 404
        assert sb.get(f"{KM}/{ident}/frames", ROLE).status_code == 404
        replaced = sb.put(f"{KM}/{ident}", ROLE, json={"appKey": APP_KEY})
        assert replaced.status_code == 404, replaced.text
        deleted = sb.client.delete(f"{KM}/{ident}", headers=sb.headers(ROLE))
        assert deleted.status_code == 404
    assert sb.get(f"{KM}/{target['UID']}").status_code == 200  # still there for the admin
    # Lists, counts and states leave it out; what the caller may reach stays.
    reach = {k["UID"] for k in _km_all(sb, ROLE)}
    assert reach == {k["UID"] for k in others}
    assert sb.get(KM, ROLE, params={"pageSize": 10}).json()["count"] == len(others)
    assert sb.get(f"{KM}/states", ROLE).json()["total"] == len(others)
    frames = sb.get(f"{KM}/frames", ROLE, params={"pageSize": 1000}).json()
    assert not {f["deviceUID"] for f in frames["briefs"]} & {k["UID"] for k in hidden}
    # The import cannot delete it either.
    text = f"DELETE,{target['EUI']}\r\n"
    answer = sb.post(f"{KM}/import", ROLE, files={"csv": ("k.csv", text.encode(), "text/csv")})
    assert answer.status_code == 200 and answer.content, answer.text
    assert sb.get(f"{KM}/{target['UID']}").status_code == 200
    # A KM device the caller reaches still answers.
    assert sb.get(f"{KM}/{others[0]['UID']}", ROLE).status_code == 200


def test_no_km_device_is_made_for_a_hidden_device(sb: Sandbox) -> None:
    seen = {d["EUI"] for d in sb.all_devices(ROLE)}
    km = {k["EUI"] for k in _km_all(sb, "subscriber")}
    target = next(d for d in sb.all_devices() if d["EUI"] not in seen and d["EUI"] not in km)
    made = sb.post(KM, ROLE, json={"EUI": target["EUI"], "appKey": APP_KEY})
    assert made.status_code == 404, made.text
    claim = sb.post(f"{KM}/claim", ROLE, json={"EUI": target["EUI"], "ownerID": "me"})
    assert claim.status_code in (400, 404)
    assert target["EUI"] not in {k["EUI"] for k in _km_all(sb, "subscriber")}
    # The unrestricted account may; then it stays out of the restricted caller's reach.
    assert sb.post(KM, json={"EUI": target["EUI"], "appKey": APP_KEY}).status_code == 201
    assert sb.get(f"{KM}/e{target['EUI']}", ROLE).status_code == 404
    assert sb.get(f"{DEVICES}/e{target['EUI']}", ROLE).status_code == 404
