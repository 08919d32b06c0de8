from __future__ import annotations

from typing import Any

from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.schema.alarms import MulticastAlarmPage
from lpwa_console.schema.devices import app_skey_xml
from lpwa_console.schema.multicast import BsTagSuggestions, MulticastGroup, MulticastGroupPage

from .conftest import API, Sandbox

GROUPS = f"{API}/subscriptions/mine/multicastGroups"
KEY = "000102030405060708090A0B0C0D0E0F"


def _all(sb: Sandbox, role: str = "subscriber", **params: Any) -> list[dict[str, Any]]:
    response = sb.get(GROUPS, role, params=params)
    assert response.status_code == 200, response.text
    return list(response.json()["briefs"])


def test_list_with_alarm_counts_and_app_server_filter(sb: Sandbox) -> None:
    page = MulticastGroupPage.model_validate(sb.get(GROUPS).json())
    assert page.count == len(page.briefs) == 5
    assert sum(g.alarm4 for g in page.briefs) == 2 and all(g.alarm1 == 0 for g in page.briefs)
    for item in sb.get(GROUPS).json()["briefs"]:
        assert all(f"alarm{i}" in item for i in range(1, 7))
    metering = _all(sb, appServerID="as-metering")
    both = _all(sb, appServerID=["as-metering", "as-analytics"])
    assert len(metering) == 2 and len(both) == 1
    assert both[0]["name"] == "Metering analytics broadcast"
    assert [g["name"] for g in _all(sb, sort="name,asc")] == sorted(g["name"] for g in _all(sb))
    assert len(_all(sb, bsTag="lyon-center")) == 1
    assert len(_all(sb, alarmLevel=4)) == 2
    france = _all(sb, "subscriber-restricted")
    assert len(france) == 3
    assert all(g["domains"][0]["name"].startswith("France/") for g in france)


def test_create_get_update_delete(sb: Sandbox) -> None:
    body = {
        "EUI": "70b3d5e75f0000aa", "nwAddress": "fc00ac99", "appSKey": KEY, "name": "New group",
        "appServers": [{"ID": "as-parking"}], "class": "C",
        "domains": [{"name": "France/Paris", "group": {"name": "Site"}}],
    }  # fmt: skip
    created = sb.post(GROUPS, json=body)
    assert created.status_code == 201, created.text
    group = MulticastGroup.model_validate(created.json())
    assert group.EUI == "70B3D5E75F0000AA" and group.class_ == "C" and group.alarm1 == 0
    assert "appSKey" not in created.json()
    assert sb.post(GROUPS, json=body).status_code == 409
    by_eui = sb.get(f"{GROUPS}/e70B3D5E75F0000AA")
    assert by_eui.status_code == 200 and by_eui.json()["name"] == "New group"
    href = created.json()["href"]
    uid = href.rsplit("/", 1)[1]
    updated = sb.put(f"{GROUPS}/{uid}", json={"name": "Renamed", "appSKey": KEY[::-1]})
    assert updated.status_code == 200, updated.text
    assert updated.json()["name"] == "Renamed"
    assert updated.json()["occContext"]["version"] == 1
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    assert (
        conn.execute("SELECT app_skey FROM multicast_groups WHERE uid = ?", (uid,)).fetchone()[0]
        == KEY[::-1]
    )
    # Deprecated appKeys XML with Port="*".
    xml = app_skey_xml(KEY)
    assert 'Port="*"' in xml
    old = sb.post(GROUPS, json={"EUI": "70B3D5E75F0000AB", "nwAddress": "FC00AC98", "appKeys": xml})
    assert old.status_code == 201, old.text
    assert old.json()["name"] == "70B3D5E75F0000AB"
    assert (
        sb.post(GROUPS, json={"EUI": "70B3D5E75F0000AC", "nwAddress": "FC00AC97"}).status_code
        == 400
    )
    bad_server = dict(body, EUI="70B3D5E75F0000AD", appServers=[{"ID": "nope"}])
    assert sb.post(GROUPS, json=bad_server).status_code == 400
    germany = dict(
        body,
        EUI="70B3D5E75F0000AE",
        domains=[{"name": "Germany/Berlin", "group": {"name": "Site"}}],
    )
    assert sb.post(GROUPS, "subscriber-restricted", json=germany).status_code == 403
    assert (
        sb.post(GROUPS, "subscriber-viewer", json=dict(body, EUI="70B3D5E75F0000AF")).status_code
        == 403
    )
    assert sb.client.delete(f"{GROUPS}/{uid}", headers=sb.headers()).status_code == 204
    assert sb.get(f"{GROUPS}/{uid}").status_code == 404


def test_restricted_user_cannot_see_other_groups(sb: Sandbox) -> None:
    berlin = _all(sb, name="Berlin")[0]
    uid = berlin["href"].rsplit("/", 1)[1]
    assert sb.get(f"{GROUPS}/{uid}", "subscriber-restricted").status_code == 404
    assert sb.get(f"{GROUPS}/{uid}/alarms", "subscriber-restricted").status_code == 404


def test_group_alarms_and_ack(sb: Sandbox) -> None:
    page = MulticastAlarmPage.model_validate(sb.get(f"{GROUPS}/alarms").json())
    open_ = [a for a in page.briefs if not a.acked]
    assert len(open_) == 2 and all(a.state == 4 and a.multicastGroup.EUI for a in open_)
    restricted = sb.get(f"{GROUPS}/alarms", "subscriber-restricted").json()
    assert restricted["count"] < page.count  # type: ignore[operator]
    acked = sb.post(f"{GROUPS}/alarms/ack", json={"alarmUids": [open_[0].alarmUid]})
    assert acked.status_code == 200 and acked.json()["count"] == 1
    assert sum(g["alarm4"] for g in _all(sb)) == 1
    group = f"{GROUPS}/e{open_[1].multicastGroup.EUI}"
    assert sb.get(f"{group}/alarms").json()["briefs"]
    assert sb.post(f"{group}/alarms/ack").json()["count"] == 1
    assert sum(g["alarmCount"] for g in _all(sb)) == 0
    cursor = sb.get(f"{GROUPS}/alarms", params={"sort": "alarmUid,asc", "pageSize": 10}).json()
    assert "cursors" not in cursor or cursor["more"]


def test_simulated_groups_carry_alarms(sb: Sandbox) -> None:
    sim = Simulator(sb.client.app.state.services.db, seed=2)  # type: ignore[attr-defined]
    before = sb.get(f"{GROUPS}/alarms", params={"pageSize": 1000}).json()["count"]
    sim.step(3 * 86_400)
    after = sb.get(f"{GROUPS}/alarms", params={"pageSize": 1000}).json()
    assert after["count"] > before
    states = {a["state"] for a in after["briefs"]}
    assert 1 in states and 4 in states
    for item in _all(sb):
        assert item["lastDwTimestamp"] >= sim.now_ms - 3_600_000


def test_bs_tag_suggestions_and_the_restriction_rule(sb: Sandbox) -> None:
    for path in (
        f"{GROUPS}/bss/tags/suggestions",
        f"{API}/subscriptions/mine/managedCustomerNetwork/bss/tags/suggestions",
    ):
        got = BsTagSuggestions.model_validate(sb.get(path, params={"query": "paris"}).json())
        assert [t.name for t in got.briefs] == ["paris-north", "paris-south"]
        assert sb.get(path, "subscriber-restricted").json()["briefs"]
    network = sb.get(
        f"{API}/subscriptions/mine/managedCustomerNetwork/bss/tags/suggestions",
        params={"query": "operator"},
    ).json()
    assert {t["namespace"] for t in network["briefs"]} == {"OPERATOR"}
    put = sb.put(
        f"{API}/subscriptions/mine", json={"showTagSuggestionsWhenDomainRestrictions": False}
    )
    assert put.status_code == 200, put.text
    for path in (
        f"{GROUPS}/bss/tags/suggestions",
        f"{API}/subscriptions/mine/managedCustomerNetwork/bss/tags/suggestions",
    ):
        assert sb.get(path, "subscriber-restricted").json()["briefs"] == []
        assert sb.get(path).json()["briefs"]


def test_deprecated_frames(sb: Sandbox) -> None:
    response = sb.get(f"{GROUPS}/frames")
    assert response.status_code == 200 and response.headers["Deprecation"] == "true"
    assert response.json()["briefs"]
    one = sb.get(f"{GROUPS}/e70B3D5E75F000001/frames", params={"duration": "PT6H"})
    assert one.status_code == 200 and len(one.json()["briefs"]) <= 7
