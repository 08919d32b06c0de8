from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.schema.common import ListEnvelope
from lpwa_console.schema.devices import DEVICE_SORT_CRITERIA, DeviceBrief

from .conftest import DEMO_DEVICES, DEVICES, Sandbox


def _page(sb: Sandbox, **params: Any) -> dict[str, Any]:
    response = sb.get(DEVICES, params=params)
    assert response.status_code == 200, response.text
    ListEnvelope[DeviceBrief].model_validate(response.json())
    return response.json()  # type: ignore[no-any-return]


def test_first_page_has_count_and_later_pages_do_not(sb: Sandbox) -> None:
    first = _page(sb, pageSize=50)
    assert first["count"] == DEMO_DEVICES
    assert len(first["briefs"]) == 50 and first["more"] is True
    second = _page(sb, pageSize=50, pageIndex=2)
    assert "count" not in second
    last = _page(sb, pageSize=50, pageIndex=DEMO_DEVICES // 50)
    assert last["more"] is False
    assert "cursors" not in first  # only when sorted by EUI


def test_page_size_is_clamped(sb: Sandbox) -> None:
    assert len(_page(sb, pageSize=1)["briefs"]) == 10
    assert len(_page(sb, pageSize=5000)["briefs"]) == DEMO_DEVICES  # < 1000 devices
    assert len(_page(sb)["briefs"]) == 100


def test_default_sort_is_creation_date_ascending(sb: Sandbox) -> None:
    dates = [d["creationDate"] for d in sb.all_devices()]
    assert dates == sorted(dates)


def _key(value: Any) -> tuple[int, Any]:
    return (0, 0) if value is None else (1, value)


@pytest.mark.parametrize("criterion", DEVICE_SORT_CRITERIA)
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sort_both_ways(sb: Sandbox, criterion: str, order: str) -> None:
    devices = sb.all_devices(sort=f"{criterion},{order}")
    assert len(devices) == DEMO_DEVICES
    values = [d.get(criterion) for d in devices]
    if criterion == "name":
        values = [v.lower() for v in values]  # names sort case-insensitively
    expected = sorted(values, key=_key, reverse=order == "desc")
    assert values == expected
    assert len({d["EUI"] for d in devices}) == DEMO_DEVICES  # no row twice across pages


def test_bad_sort_is_400(sb: Sandbox) -> None:
    response = sb.get(DEVICES, params={"sort": "colour,asc"})
    assert response.status_code == 400
    assert response.json()["message"].startswith("sort:")


def test_cursor_paging_visits_every_device_once(sb: Sandbox) -> None:
    seen: list[str] = []
    params: dict[str, Any] = {"pageSize": 40, "sort": "EUI,asc"}
    first = True
    while True:
        body = _page(sb, **params)
        assert ("count" in body) == first
        first = False
        seen += [d["EUI"] for d in body["briefs"]]
        cursor = (body.get("cursors") or {}).get("last")
        assert bool(cursor) == body["more"]
        if not cursor:
            break
        assert cursor.endswith("=")
        params["pageAfter"] = cursor
    assert len(seen) == DEMO_DEVICES == len(set(seen))
    assert seen == sorted(seen)


def test_cursor_sent_as_percent_3d_is_understood(sb: Sandbox) -> None:
    first = _page(sb, pageSize=10, sort="EUI,asc")
    cursor = first["cursors"]["last"].replace("=", "%3D")
    url = f"{DEVICES}?pageSize=10&sort=EUI,asc&pageAfter={cursor}"
    second = sb.get(url).json()
    assert second["briefs"][0]["EUI"] > first["briefs"][-1]["EUI"]


def test_cursor_needs_eui_sort_and_a_real_cursor(sb: Sandbox) -> None:
    assert sb.get(DEVICES, params={"pageAfter": "QUJD", "sort": "name,asc"}).status_code == 400
    assert sb.get(DEVICES, params={"pageAfter": "%%%"}).status_code == 400


def _filtered(sb: Sandbox, **params: Any) -> list[dict[str, Any]]:
    devices = sb.all_devices(**params)
    assert devices, f"filter {params} matched nothing in the demo data"
    return devices


def test_filters(sb: Sandbox) -> None:
    everything = sb.all_devices()
    by_eui = {d["EUI"]: d for d in everything}

    def check(params: dict[str, Any], predicate: Any) -> None:
        got = {d["EUI"] for d in _filtered(sb, **params)}
        want = {eui for eui, d in by_eui.items() if predicate(d)}
        assert got == want, params

    some = everything[7]
    check(
        {"name": some["name"][:6].lower()},
        lambda d: d["name"].lower().startswith(some["name"][:6].lower()),
    )
    check({"query": "water"}, lambda d: d["name"].lower().startswith("water"))
    check({"query": some["EUI"][:12]}, lambda d: d["EUI"].startswith(some["EUI"][:12]))
    check(
        {"devEUI": ["70B3D5E75000001", "35000000000002"]},
        lambda d: d["EUI"].startswith(("70B3D5E75000001", "35000000000002")),
    )
    tag_names = lambda d: {t["name"] for t in d["tags"]}  # noqa: E731
    check({"tag": "parking"}, lambda d: "parking" in tag_names(d))
    check({"tag": ["water", "building-A"]}, lambda d: {"water", "building-A"} <= tag_names(d))
    check({"connectivity": "CELLULAR"}, lambda d: d["connectivity"] == "CELLULAR")
    check(
        {"healthState": ["RF_CNX_ERROR", "INIT"]},
        lambda d: d["healthState"] in ("RF_CNX_ERROR", "INIT"),
    )
    check({"alarmLevel": 5}, lambda d: d["alarmLevel"] >= 5)
    check(
        {"networkContextID": "nc-orange-fr"}, lambda d: d.get("networkContextID") == "nc-orange-fr"
    )
    cellular = next(d for d in everything if d["connectivity"] == "CELLULAR")
    check({"imei": cellular["lastIMEI"]}, lambda d: d.get("lastIMEI") == cellular["lastIMEI"])
    check(
        {"simID": cellular["imsi"][:12]},
        lambda d: (d.get("imsi") or "").startswith(cellular["imsi"][:12]),
    )
    check({"simID": cellular["iccid"]}, lambda d: d.get("iccid") == cellular["iccid"])
    box = {"minLat": 48.0, "maxLat": 49.5, "minLon": 2.0, "maxLon": 3.0}
    check(box, lambda d: d.get("lat") is not None and 48 <= d["lat"] <= 49.5 and 2 <= d["lon"] <= 3)
    domains = lambda d: {(x["group"]["name"], x["name"]) for x in d["domains"]}  # noqa: E731
    check({"domain": "Site:France/Paris"}, lambda d: ("Site", "France/Paris") in domains(d))
    # Several of one group: any of them (a device has one domain per group).
    check(
        {"domain": ["Site:France/Paris", "Site:France/Lyon"]},
        lambda d: domains(d) & {("Site", "France/Paris"), ("Site", "France/Lyon")},
    )
    vertical = next(x for d in everything for x in d["domains"] if x["group"]["name"] != "Site")
    both = {("Site", "France/Paris"), (vertical["group"]["name"], vertical["name"])}
    check(
        {"domain": ["Site:France/Paris", f"{vertical['group']['name']}:{vertical['name']}"]},
        lambda d: both <= domains(d),
    )
    servers = lambda d: {s["ID"] for s in d["appServers"]}  # noqa: E731
    check({"appServerID": "as-parking"}, lambda d: "as-parking" in servers(d))
    check(
        {"appServerID": ["as-parking", "as-analytics"]},
        lambda d: {"as-parking", "as-analytics"} <= servers(d),
    )


def test_domain_filter_is_exact_group_and_name(sb: Sandbox) -> None:
    """The reference's rule: `group:name`, exact. A prefix matches nothing; a value without its
    group is refused, naming the parameter."""
    assert sb.all_devices(domain="Site:France/") == []
    assert sb.all_devices(domain="site:France/Paris") == []  # group names are exact too
    refused = sb.get(DEVICES, params={"domain": "France/Paris"})
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("domain")
    assert "group:name" in refused.json()["message"]


def test_as_transport_key_filter_and_routing_profile_servers(sb: Sandbox) -> None:
    keyed = _filtered(sb, asTransportKeyID="atk-metering-2024")
    for brief in keyed[:5]:
        device = sb.get(f"{DEVICES}/{brief['ref']}").json()
        assert device["asTransportKey"]["ID"] == "atk-metering-2024"
        assert device["asTransportKey"]["name"] == "Metering key 2024"
    # Devices reach as-analytics directly or through the rp-metering routing profile.
    direct = {
        d["EUI"] for d in sb.all_devices() if "as-analytics" in {s["ID"] for s in d["appServers"]}
    }
    via = {d["EUI"] for d in _filtered(sb, appServerID="as-analytics")}
    assert direct < via


def test_invalid_filter_values_are_400_naming_the_parameter(sb: Sandbox) -> None:
    for params, field in [
        ({"alarmLevel": 9}, "alarmLevel"),
        ({"healthState": "HAPPY"}, "healthState"),
        ({"minLat": "north"}, "minLat"),
        ({"pageIndex": 0}, "pageIndex"),
    ]:
        response = sb.get(DEVICES, params=params)
        assert response.status_code == 400, params
        assert response.json()["message"].startswith(field), response.json()


@pytest.mark.parametrize("role", ["subscriber", "subscriber-restricted"])
def test_tag_filters_count_and_list_rare_and_common_tags(sb: Sandbox, role: str) -> None:
    # A rare tag is looked up from its devices, a common one tested row by row: same answers.
    euis = [d["EUI"] for d in sb.all_devices(role)[:3]]
    tagged = sb.post(f"{DEVICES}/tags", role, json={"name": "rare-tag", "devEUIs": euis})
    assert tagged.status_code == 200, tagged.text
    everything = sb.all_devices(role)
    for tag in ("rare-tag", "water"):
        want = {d["EUI"] for d in everything if tag in {t["name"] for t in d["tags"]}}
        first = sb.get(DEVICES, role, params={"tag": tag, "pageSize": 10}).json()
        assert first["count"] == len(want), tag
        assert {d["EUI"] for d in sb.all_devices(role, tag=tag)} == want, tag
    assert len({d["EUI"] for d in sb.all_devices(role, tag="rare-tag")}) == 3
