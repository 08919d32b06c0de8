"""Nothing crosses tenants (issue 21): the demo's two subscriptions (Acme, `subscriber`;
Globex Water, `other-subscriber`) and two suppliers (`supplier`, `other-supplier`) attack
each other, both directions: read, list, count, cluster, tag suggestion, alarm, import and
write, for devices, multicast groups, application servers, the key manager, stations and
the supplier interface."""

from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.sandbox.accounts import listing

from .conftest import API, DEVICES, TOKEN, Sandbox
from .test_device_import import APP_EUI, KEY, line

MINE = f"{API}/subscriptions/mine"
KM = f"{API}/kmSubscriptions/mine/devices"
BSS = f"{API}/partners/mine/bss"
WORLD = {"minLat": -90, "maxLat": 90, "minLon": -180, "maxLon": 180}
PAIRS = [("subscriber", "other-subscriber"), ("other-subscriber", "subscriber")]


def _all(sb: Sandbox, path: str, role: str, key: str = "briefs") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    index = 1
    while True:
        page = sb.get(path, role, params={"pageIndex": index, "pageSize": 1000})
        assert page.status_code == 200, page.text
        body = page.json()
        out += body[key]
        if not body.get("more"):
            return out
        index += 1


def test_the_demo_lists_both_tenants(sb: Sandbox) -> None:
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    roles = {a["role"]: a for a in listing(conn)}
    assert roles["other-subscriber"]["hasSubscription"]
    assert not roles["other-supplier"]["hasSubscription"]
    other = sb.get(MINE, "other-subscriber").json()
    assert other["ID"] == "200" and other["options"]["hsm"] == "DEACTIVATED"
    assert sb.get(MINE).json()["ID"] == "100"
    assert sb.get(f"{API}/suppliers/mine", "other-supplier").json()["ID"] == "other-supplier"


@pytest.mark.parametrize(("me", "them"), PAIRS)
def test_devices_stay_in_their_tenant(sb: Sandbox, me: str, them: str) -> None:
    mine = sb.all_devices(me)
    theirs = sb.all_devices(them)
    assert mine and theirs
    assert not {d["ref"] for d in mine} & {d["ref"] for d in theirs}
    assert sb.get(DEVICES, me, params={"pageSize": 10}).json()["count"] == len(mine)
    clusters = sb.get(f"{DEVICES}/clusters", me, params=WORLD).json()
    located = sb.all_devices(me, **WORLD)
    assert clusters["count"] == len(located)
    victim = theirs[0]
    for ident in (victim["ref"], f"e{victim['EUI']}"):
        assert sb.get(f"{DEVICES}/{ident}", me).status_code == 404
        assert sb.put(f"{DEVICES}/{ident}", me, json={"name": "taken"}).status_code == 404
        assert sb.client.delete(f"{DEVICES}/{ident}", headers=sb.headers(me)).status_code == 404
        assert sb.get(f"{DEVICES}/{ident}/alarms", me).status_code == 404
    tagged = sb.post(f"{DEVICES}/tags", me, json={"name": "xtenant", "devEUIs": [victim["EUI"]]})
    assert tagged.status_code in (200, 201) and tagged.json().get("count", 0) == 0
    # An import line on the other tenant's EUI updates or deletes nothing there.
    activation = sb.get(f"{DEVICES}/{victim['ref']}", them).json().get("activation")
    update = {"OTAA": "UPDATE_OTAA", "ABP": "UPDATE_ABP"}.get(activation, "UPDATE_CELLULAR")
    text = line(update, B=victim["EUI"], K="taken") + line("DELETE", B=victim["EUI"])
    sb.post(f"{DEVICES}/import", me, files={"csv": ("d.csv", text, "text/csv")})
    after = sb.get(f"{DEVICES}/{victim['ref']}", them)
    assert after.status_code == 200 and after.json()["name"] == victim["name"]


@pytest.mark.parametrize(("me", "them"), PAIRS)
def test_an_eui_of_the_other_tenant_is_not_registered_twice(
    sb: Sandbox, me: str, them: str
) -> None:
    """One network routes a join by its EUI: a second device with it, in any subscription,
    is refused (by the form and by an import line), and the owner's device stays as it is."""
    victim = next(d for d in sb.all_devices(them) if d["connectivity"] == "LORAWAN")
    before = len(sb.all_devices(me))
    for eui in (victim["EUI"], victim["EUI"].lower()):
        made = sb.post(DEVICES, me, json={"EUI": eui, "name": "twin", "connectivity": "LORAWAN"})
        assert made.status_code == 409, made.text
    text = line("CREATE_OTAA", B=victim["EUI"], D="adeunis-temp-lw", E=APP_EUI, F=KEY, K="twin")
    answer = sb.post(f"{DEVICES}/import", me, files={"csv": ("d.csv", text, "text/csv")})
    assert victim["EUI"] in answer.text and "already exists" in answer.text
    assert len(sb.all_devices(me)) == before
    owner = sb.get(f"{DEVICES}/{victim['ref']}", them)
    assert owner.status_code == 200 and owner.json()["name"] == victim["name"]


@pytest.mark.parametrize(("me", "them"), PAIRS)
def test_tags_and_alarms_stay_in_their_tenant(sb: Sandbox, me: str, them: str) -> None:
    own = sb.all_devices(me)[0]
    made = sb.put(f"{DEVICES}/{own['ref']}", me, json={"tags": [{"name": f"secret-{me}"}]})
    assert made.status_code == 200, made.text
    suggested = sb.get(f"{DEVICES}/tags/suggestions", them, params={"query": "secret"}).json()
    assert not suggested["briefs"]
    assert sb.all_devices(them, tag=f"secret-{me}") == []
    mine = {d["EUI"] for d in sb.all_devices(me)}
    alarms = _all(sb, f"{DEVICES}/alarms", me)
    assert alarms and {a["device"]["EUI"] for a in alarms} <= mine
    theirs = _all(sb, f"{DEVICES}/alarms", them)
    ack = sb.post(f"{DEVICES}/alarms/ack", me, json={"alarmUids": [theirs[0]["alarmUid"]]})
    assert ack.status_code in (200, 204, 400, 404)
    again = {a["alarmUid"]: a for a in _all(sb, f"{DEVICES}/alarms", them)}
    assert again[theirs[0]["alarmUid"]]["acked"] == theirs[0]["acked"]


@pytest.mark.parametrize(("me", "them"), PAIRS)
def test_app_servers_and_groups_stay_in_their_tenant(sb: Sandbox, me: str, them: str) -> None:
    server = sb.post(f"{MINE}/appServers", them, json={"name": f"AS of {them}"})
    assert server.status_code == 201, server.text
    uid = server.json()["href"].rsplit("/", 1)[1]
    assert sb.get(f"{MINE}/appServers/{uid}", me).status_code == 404
    assert sb.put(f"{MINE}/appServers/{uid}", me, json={"name": "taken"}).status_code == 404
    seen = {s["href"].rsplit("/", 1)[1] for s in _all(sb, f"{MINE}/appServers", me)}
    assert uid not in seen
    group = sb.post(
        f"{MINE}/multicastGroups", them,
        json={"name": f"group of {them}", "EUI": "00AA00AA00AA00AA", "nwAddress": "0A0B0C0D",
              "appSKey": "000102030405060708090A0B0C0D0E0F"},
    )  # fmt: skip
    assert group.status_code == 201, group.text
    ref = group.json()["href"].rsplit("/", 1)[1]
    assert sb.get(f"{MINE}/multicastGroups/{ref}", me).status_code == 404
    assert sb.put(f"{MINE}/multicastGroups/{ref}", me, json={"name": "x"}).status_code == 404
    hrefs = {g["href"] for g in _all(sb, f"{MINE}/multicastGroups", me)}
    assert group.json()["href"] not in hrefs


@pytest.mark.parametrize(("me", "them"), PAIRS)
def test_the_key_manager_stays_in_its_tenant(sb: Sandbox, me: str, them: str) -> None:
    mine = _all(sb, KM, me)
    theirs = _all(sb, KM, them)
    assert mine and theirs and not {k["UID"] for k in mine} & {k["UID"] for k in theirs}
    assert sb.get(f"{KM}/states", me).json()["total"] == len(mine)
    victim = theirs[0]
    assert sb.get(f"{KM}/{victim['UID']}", me).status_code == 404
    assert sb.put(f"{KM}/{victim['UID']}", me, json={"name": "taken"}).status_code == 404
    assert sb.client.delete(f"{KM}/{victim['UID']}", headers=sb.headers(me)).status_code == 404
    ref = sb.get(MINE, them).json()["ID"]
    for other in (f"id:{ref}", f"id:sub:{ref}"):
        assert sb.get(f"{API}/kmSubscriptions/{other}/devices", me).status_code == 404
    text = f"DELETE,{victim['EUI']}\r\n"
    answer = sb.post(f"{KM}/import", me, files={"csv": ("k.csv", text.encode(), "text/csv")})
    assert answer.status_code == 200 and answer.content  # the line refused: no such device
    assert sb.get(f"{KM}/{victim['UID']}", them).status_code == 200


@pytest.mark.parametrize(("me", "them"), PAIRS)
def test_stations_stay_in_their_tenant(sb: Sandbox, me: str, them: str) -> None:
    mine = _all(sb, BSS, me)
    theirs = _all(sb, BSS, them)
    assert mine and theirs and not {s["lrrID"] for s in mine} & {s["lrrID"] for s in theirs}
    assert sb.get(BSS, me, params={"pageSize": 10}).json()["count"] == len(mine)
    clusters = sb.get(f"{BSS}/clusters", me, params=WORLD).json()
    assert clusters["count"] == len(mine)
    victim = theirs[0]["lrrID"]
    assert sb.get(f"{BSS}/i{victim}", me).status_code == 404
    assert sb.put(f"{BSS}/i{victim}", me, json={"name": "taken"}).status_code == 404
    tagged = sb.post(f"{BSS}/tags", me, json={"name": "xt", "LRRIDs": [victim], "action": "TAG"})
    assert tagged.status_code == 404 or tagged.json()["count"] == 0, tagged.text
    assert victim not in {
        s["lrrID"] for s in sb.get(BSS, them, params={"tag": "xt"}).json()["briefs"]
    }
    # A tag on my own station is no suggestion for them; alarms stay with their stations.
    own = sb.post(
        f"{BSS}/tags",
        me,
        json={"name": f"hidden-{me}", "LRRIDs": [mine[0]["lrrID"]], "action": "TAG"},
    )
    assert own.status_code == 200 and own.json()["count"] == 1
    suggested = sb.get(f"{BSS}/tags/suggestions", them, params={"query": "hidden"}).json()
    assert not suggested["briefs"]
    my_alarms = {a["alarmUid"] for a in _all(sb, f"{BSS}/alarms", me)}
    their_alarms = {a["alarmUid"] for a in _all(sb, f"{BSS}/alarms", them)}
    assert my_alarms and their_alarms and not my_alarms & their_alarms
    partner = sb.get(f"{API}/partners/mine", them).json()["href"].rsplit("/", 1)[1]
    assert sb.get(f"{API}/partners/{partner}", me).status_code == 404


@pytest.mark.parametrize(("me", "them"), [("supplier", "other-supplier"),
                                          ("other-supplier", "supplier")])  # fmt: skip
def test_suppliers_stay_apart(sb: Sandbox, me: str, them: str) -> None:
    theirs = sb.get(f"{API}/suppliers/mine", them).json()
    assert sb.get(f"{API}/suppliers/id:{theirs['ID']}", me).status_code == 404
    base = f"{API}/suppliers/mine"
    accounts = _all(sb, f"{base}/serviceAccounts", them)
    victim = accounts[0]["ID"]
    assert victim not in {a["ID"] for a in _all(sb, f"{base}/serviceAccounts", me)}
    assert sb.post(f"{base}/serviceAccounts/{victim}/secret", me).status_code == 404
    their_products = {p["ID"] for p in _all(sb, f"{base}/devices", them)}
    assert not their_products & {p["ID"] for p in _all(sb, f"{base}/devices", me)}
    # Their service account signs in as them, never as me.
    secret = sb.post(f"{base}/serviceAccounts/{victim}/secret", them).json()["clientSecret"]
    token = sb.client.post(TOKEN, data={"grant_type": "client_credentials",
                                        "client_id": victim, "client_secret": secret})  # fmt: skip
    headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
    assert sb.client.get(base, headers=headers).json()["ID"] == theirs["ID"]
