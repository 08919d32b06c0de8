from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.schema.alarms import MulticastAlarmPage
from lpwa_console.schema.devices import app_skey_xml
from lpwa_console.schema.frames import (
    MULTICAST_RATIO_RANGES,
    MulticastFrames,
    MulticastFramesAggregation,
    ratio_index,
)
from lpwa_console.schema.multicast import BsTagSuggestions, MulticastGroup, MulticastGroupPage

from .conftest import API, Sandbox

GROUPS = f"{API}/subscriptions/mine/multicastGroups"
KEY = "000102030405060708090A0B0C0D0E0F"
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


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
        conn.execute(
            "SELECT unseal(app_skey) FROM multicast_groups WHERE uid = ?", (uid,)
        ).fetchone()[0]
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
    # Raised as MINOR (4), cleared (1) by the next good hour; whether one is still open at
    # the end depends on the hour the wall clock starts the simulation at.
    states = {a["state"] for a in after["briefs"]}
    assert 1 in states and states <= {1, 4}
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
    frames = MulticastFrames.model_validate(response.json())
    assert frames.briefs
    # P7D by default (the reference): older than a day, within a week.
    oldest = min(f.timestamp for f in frames.briefs)
    assert frames.now is not None and DAY_MS < frames.now - oldest <= 7 * DAY_MS
    assert {f.status for f in frames.briefs} == {"SUCCESS", "ABORTED"}
    for f in frames.briefs:
        assert f.bsSuccessCount + f.bsFailedCount == f.bsCount
        assert (f.status == "SUCCESS") == (f.bsSuccessCount == f.bsCount)
    one = sb.get(f"{GROUPS}/e70B3D5E75F000001/frames", params={"duration": "PT6H"})
    assert one.status_code == 200 and len(one.json()["briefs"]) <= 7
    # `overflow` keeps the frames with the overflow indicator only: none here.
    assert sb.get(f"{GROUPS}/frames", params={"overflow": "true"}).json()["briefs"] == []
    metering = sb.get(f"{GROUPS}/frames", params={"appServerID": "as-metering"}).json()
    assert 0 < len(metering["briefs"]) < len(frames.briefs)


def _by_ratio(frames: list[dict[str, Any]], ranges: int = 4) -> list[int]:
    counts = [0] * ranges
    for f in frames:
        counts[ratio_index(f["bsSuccessCount"] / f["bsCount"])] += 1
    return counts


def _totals(body: MulticastFramesAggregation) -> list[int]:
    return [sum(b.successfulTransmissionValues[i].count for b in body.briefs) for i in range(4)]


def test_aggregated_frames_of_all_groups_and_one(sb: Sandbox) -> None:
    response = sb.get(f"{GROUPS}/frames/aggregated")
    assert response.status_code == 200, response.text
    body = MulticastFramesAggregation.model_validate(response.json())
    # P7D of PT1H steps by default, oldest first, the last bucket holding now.
    assert len(body.briefs) == 7 * 24
    stamps = [b.timestamp for b in body.briefs]
    assert all(b - a == HOUR_MS for a, b in itertools.pairwise(stamps))
    assert body.now is not None and stamps[-1] <= body.now < stamps[-1] + HOUR_MS
    assert body.ranges == MULTICAST_RATIO_RANGES
    assert all(len(b.successfulTransmissionValues) == 4 for b in body.briefs)
    # The same downlinks as the raw frames of the same window, by success ratio.
    begin = _iso(stamps[0])
    raw = sb.get(f"{GROUPS}/frames", params={"begin": begin, "duration": "P7D"}).json()
    assert _totals(body) == _by_ratio(raw["briefs"]) and _totals(body)[0] > 0
    assert sum(_totals(body)[1:]) > 0  # some downlinks partly sent
    sizes = sum(v.size for b in body.briefs for v in b.successfulTransmissionValues)
    assert sizes == sum(f["size"] for f in raw["briefs"])
    # One group, by day.
    group = f"{GROUPS}/e70B3D5E75F000001"
    daily = sb.get(f"{group}/frames/aggregated", params={"step": "P1D", "duration": "P3D"})
    assert daily.status_code == 200, daily.text
    one = MulticastFramesAggregation.model_validate(daily.json())
    assert len(one.briefs) == 3 and one.briefs[1].timestamp - one.briefs[0].timestamp == DAY_MS
    raw_one = sb.get(
        f"{group}/frames", params={"begin": _iso(one.briefs[0].timestamp), "duration": "P3D"}
    ).json()["briefs"]
    assert _totals(one) == _by_ratio(raw_one) and sum(_totals(one)) > 0
    # appServerID: the groups directly associated with that server.
    metering = MulticastFramesAggregation.model_validate(
        sb.get(f"{GROUPS}/frames/aggregated", params={"appServerID": "as-metering"}).json()
    )
    assert 0 < sum(_totals(metering)) < sum(_totals(body))
    none = sb.get(f"{GROUPS}/frames/aggregated", params={"appServerID": "nope"}).json()
    assert sum(_totals(MulticastFramesAggregation.model_validate(none))) == 0
    # Bad steps and durations, and limits.
    assert sb.get(f"{group}/frames/aggregated", params={"step": "PT1S"}).status_code == 400
    assert sb.get(f"{group}/frames/aggregated", params={"duration": "x"}).status_code == 400
    assert sb.get(f"{GROUPS}/e0000000000000000/frames/aggregated").status_code == 404
    # Not deprecated, unlike the raw lists.
    paths = sb.client.get("/openapi.json").json()["paths"]
    base = "/thingpark/wireless/rest/subscriptions/mine/multicastGroups"
    assert not paths[f"{base}/frames/aggregated"]["get"].get("deprecated")
    assert not paths[f"{base}/{{multicastGroupUid}}/frames/aggregated"]["get"].get("deprecated")
    assert paths[f"{base}/frames"]["get"]["deprecated"]
    assert paths[f"{base}/{{multicastGroupUid}}/frames"]["get"]["deprecated"]


def test_aggregated_frames_follow_the_domain_restrictions(sb: Sandbox) -> None:
    berlin = _all(sb, name="Berlin")[0]
    path = f"{GROUPS}/e{berlin['EUI']}/frames/aggregated"
    assert sb.get(path).status_code == 200
    assert sb.get(path, "subscriber-restricted").status_code == 404
    everyone = MulticastFramesAggregation.model_validate(
        sb.get(f"{GROUPS}/frames/aggregated").json()
    )
    france = MulticastFramesAggregation.model_validate(
        sb.get(f"{GROUPS}/frames/aggregated", "subscriber-restricted").json()
    )
    assert 0 < sum(_totals(france)) < sum(_totals(everyone))
    assert sb.get(f"{GROUPS}/frames/aggregated", "operator").status_code == 403


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


def test_network_subscription_filter_of_the_reference(sb: Sandbox) -> None:
    """networkSubscriptionID: that network subscription's groups (exact), `_unset` (none),
    `_any` (any one)."""
    every = _all(sb)
    assert len(every) == 5
    for group in every:
        assert group["networkSubscription"]["ID"] == "ns-lora-multicast"
        assert group["networkSubscription"]["commercialName"] == "Multicast"
        assert group["networkSubscription"]["multicastMaxLrrCells"] == 100
        assert group["networkSubscription"]["href"].startswith(
            "/subscriptions/mine/networkSubscriptions/"
        )
    page = MulticastGroupPage.model_validate(sb.get(GROUPS).json())
    assert all(g.networkSubscription and g.networkSubscription.ID for g in page.briefs)
    assert len(_all(sb, networkSubscriptionID="ns-lora-multicast")) == 5
    assert len(_all(sb, networkSubscriptionID="_any")) == 5
    assert _all(sb, networkSubscriptionID="_unset") == []
    assert _all(sb, networkSubscriptionID="ns-lora-unicast") == []
    assert _all(sb, networkSubscriptionID="nope") == []
    created = sb.post(
        GROUPS, json={"EUI": "70B3D5E75F0000B0", "nwAddress": "FC00AC90", "appSKey": KEY}
    )
    assert created.status_code == 201, created.text
    assert "networkSubscription" not in created.json()
    assert [g["EUI"] for g in _all(sb, networkSubscriptionID="_unset")] == ["70B3D5E75F0000B0"]
    assert len(_all(sb, networkSubscriptionID="_any")) == 5
    assert len(_all(sb, "subscriber-restricted", networkSubscriptionID="ns-lora-multicast")) == 3


def test_prefix_filters_are_literal(sb: Sandbox) -> None:
    """`%` and `_` in the name, devEUI, devAddr and query prefixes are characters, not
    wildcards; the prefixes still ignore ASCII case."""
    body = {"EUI": "70b3d5e75f0000ab", "nwAddress": "fc00ac98", "appSKey": KEY,
            "name": "50%_off promo"}  # fmt: skip
    assert sb.post(GROUPS, json=body).status_code == 201
    assert len(_all(sb)) == 6
    for params in ({"name": "%"}, {"name": "_"}, {"query": "%"}, {"devEUI": "%"},
                   {"devEUI": "70B3D5E75F_"}, {"devAddr": "%"}, {"name": "50_"}):  # fmt: skip
        assert _all(sb, **params) == [], params
    assert [g["name"] for g in _all(sb, name="50%_")] == ["50%_off promo"]
    assert [g["name"] for g in _all(sb, name="50%_OFF")] == ["50%_off promo"]
    assert [g["EUI"] for g in _all(sb, devEUI="70b3d5e75f0000a")] == ["70B3D5E75F0000AB"]
    assert len(_all(sb, devAddr="FC00AC9")) == 1
    suggestions = sb.get(f"{GROUPS}/bss/tags/suggestions", params={"query": "%"}).json()
    assert suggestions["briefs"] == []
