"""Base stations over HTTP: list (filters, sorts, cursor, count), create (lrrID, grant),
read, update, clusters, counters, tags, suggestions and domains, for each kind of account."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import API, Sandbox

BSS = f"{API}/partners/mine/bss"
MODEL = {"ID": "KERLINK_WIRNET_ISTATION"}


def all_stations(sb: Sandbox, role: str = "subscriber", **params: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    index = 1
    while True:
        page = sb.get(BSS, role, params={**params, "pageIndex": index, "pageSize": 1000})
        assert page.status_code == 200, page.text
        out += page.json()["briefs"]
        if not page.json()["more"]:
            return out
        index += 1


def test_default_account_sees_its_partner_stations(sb: Sandbox) -> None:
    page = sb.get(BSS, params={"pageSize": 10}).json()
    assert page["count"] == 36 and len(page["briefs"]) == 10 and page["more"]
    first = page["briefs"][0]
    assert {"lrrID", "name", "healthState", "cnxState", "rfProbe", "tags", "domains"} <= set(first)
    created = [b["creationDate"] for b in page["briefs"]]
    assert created == sorted(created)  # default sort: creation date ascending
    second = sb.get(BSS, params={"pageSize": 10, "pageIndex": 2}).json()
    assert "count" not in second  # count on the first page only


def test_partner_account_sees_only_its_own_partner(sb: Sandbox) -> None:
    mine = {b["lrrID"] for b in all_stations(sb, "partner")}
    acme = {b["lrrID"] for b in all_stations(sb)}
    assert len(mine) == 12 and not mine & acme
    partner = sb.get(f"{API}/partners/mine", "partner").json()
    assert partner["type"] == "SUPPLIER" and partner["totalBaseStationsUsed"] == 12
    # Acme's UID is not the partner account's: not found.
    acme_uid = sb.get(f"{API}/partners/mine").json()["href"].rsplit("/", 1)[1]
    assert sb.get(f"{API}/partners/{acme_uid}/bss", "partner").status_code == 404
    assert sb.get(f"{API}/partners/id:sub:100", "partner").status_code == 404


def test_partner_identifier_forms(sb: Sandbox) -> None:
    mine = sb.get(f"{API}/partners/mine").json()
    uid = mine["href"].rsplit("/", 1)[1]
    for ref in (uid, "id:sub:100"):
        again = sb.get(f"{API}/partners/{ref}")
        assert again.status_code == 200 and again.json()["partner"]["ID"] == "100"
    assert sb.get(f"{API}/partners/id:sup:demo-networks", "partner").status_code == 200
    assert sb.get(f"{API}/partners/id:sup:nobody", "operator").status_code == 404
    assert sb.get(f"{API}/partners/mine", "operator").status_code == 403
    operator = sb.get(f"{API}/partners/id:sup:demo-networks/bss", "operator")
    assert operator.status_code == 200 and operator.json()["count"] == 12


def test_restricted_account_sees_its_domains_only(sb: Sandbox) -> None:
    seen = all_stations(sb, "partner-restricted")
    assert seen and all(
        all(d["name"].startswith("France/") for d in b["domains"] if d["group"]["name"] == "Site")
        for b in seen
    )
    assert len(seen) < len(all_stations(sb))
    first = sb.get(BSS, "partner-restricted", params={"pageSize": 10}).json()
    assert first["count"] == len(seen)
    outside = next(
        b
        for b in all_stations(sb)
        if any(not d["name"].startswith("France/") for d in b["domains"])
    )
    assert sb.get(f"{BSS}/i{outside['lrrID']}", "partner-restricted").status_code == 404
    counters = sb.get(f"{BSS}/counters", "partner-restricted").json()
    assert counters["totalCount"] == len(seen)
    partner = sb.get(f"{API}/partners/mine", "partner-restricted").json()
    assert partner["partner"]["domainRestrictions"]["and"][0]["name"] == "France/"


def test_filters(sb: Sandbox) -> None:
    everything = all_stations(sb)
    one = everything[5]
    assert [b["lrrID"] for b in all_stations(sb, LRRID=one["lrrID"].lower())] == [one["lrrID"]]
    prefixed = all_stations(sb, LRRID=one["lrrID"][:7])
    assert one["lrrID"] in {b["lrrID"] for b in prefixed}
    assert all(b["lrrID"].startswith(one["lrrID"][:7]) for b in prefixed)
    by_name = all_stations(sb, name=one["name"][:10].lower())
    assert one["lrrID"] in {b["lrrID"] for b in by_name}
    assert all(b["name"].lower().startswith(one["name"][:10].lower()) for b in by_name)
    assert {b["lrrID"] for b in all_stations(sb, query=one["lrrID"])} == {one["lrrID"]}
    active = all_stations(sb, healthState="ACTIVE")
    assert active and all(b["healthState"] == "ACTIVE" for b in active)
    paris = all_stations(sb, domain="Site:France/Paris")
    assert paris and all(d["name"] == "France/Paris" for b in paris for d in b["domains"])
    box = all_stations(sb, minLat=48, maxLat=49.5, minLon=1.5, maxLon=3.5)
    assert box and all(48 <= b["lat"] <= 49.5 for b in box)
    versions = all_stations(sb, version="2.6")
    assert versions and all(b["version"].startswith("2.6") for b in versions)
    low = all_stations(sb, minRC=30)
    assert all(b["minRC"] <= 30 for b in low)
    assert sb.get(BSS, params={"domain": "no-group"}).status_code == 400
    assert sb.get(BSS, params={"rebootFrom": "yesterday"}).status_code == 400
    recent = all_stations(sb, rebootFrom="2000-01-01T00:00:00Z")
    assert len(recent) == len([b for b in everything if b.get("lastReboot")])


@pytest.mark.parametrize("descending", [False, True])
def test_cursor_only_with_the_lrr_id_sort(sb: Sandbox, descending: bool) -> None:
    order = "desc" if descending else "asc"
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"sort": f"lrrID,{order}", "pageSize": 10}
        if cursor:
            params["pageAfter"] = cursor
        page = sb.get(BSS, params=params).json()
        assert ("count" in page) == (cursor is None)
        seen += [b["lrrID"] for b in page["briefs"]]
        cursor = (page.get("cursors") or {}).get("last")
        if not cursor:
            assert not page["more"]
            break
    assert seen == sorted(seen, reverse=descending) and len(seen) == 36
    refused = sb.get(BSS, params={"sort": "name,asc", "pageAfter": cursor or "MTAwMDAwMDE="})
    assert refused.status_code == 400 and "pageAfter" in refused.json()["message"]


def test_sorts(sb: Sandbox) -> None:
    for criterion, key in (("name", "name"), ("lastReboot", "lastReboot")):
        items = [b.get(key) for b in all_stations(sb, sort=f"{criterion},desc")]
        present = [v for v in items if v is not None]
        assert present == sorted(
            present, key=lambda v: v.lower() if isinstance(v, str) else v, reverse=True
        )
    assert sb.get(BSS, params={"sort": "colour,asc"}).status_code == 400


def test_create_read_update(sb: Sandbox) -> None:
    created = sb.post(
        BSS,
        json={"model": MODEL, "name": "Depot roof", "lrrID": "0a1b2c3d",
              "domains": [{"name": "France/Lyon", "group": {"name": "Site"}}]},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["lrrID"] == "0A1B2C3D"
    assert body["alarmsConfiguration"]["alarm102"] == [{"duration": "PT30S", "severity": 6}]
    again = sb.post(BSS, json={"model": MODEL, "lrrID": "0A1B2C3D"})
    assert again.status_code == 409 and "lrrID" in again.json()["message"]
    reserved = sb.post(BSS, json={"model": MODEL, "lrrID": "FFFE0001"})
    assert reserved.status_code == 400 and "lrrID" in reserved.json()["message"]
    allocated = sb.post(BSS, json={"model": MODEL}).json()
    assert len(allocated["lrrID"]) == 8 and not allocated["lrrID"].startswith(("FFFE", "FFFF"))
    assert allocated["name"] == allocated["lrrID"]
    unknown = sb.post(BSS, json={"model": {"ID": "NO_SUCH_MODEL"}})
    assert unknown.status_code == 400 and unknown.json()["message"].startswith("model")
    for ref in ("i0a1b2c3d", "i0A1B2C3D", body["href"].rsplit("/", 1)[1]):
        assert sb.get(f"{BSS}/{ref}").json()["lrrID"] == "0A1B2C3D"
    # Send back what was read, with a change: the read-only fields are ignored.
    config = {
        "alarm103": [{"duration": "PT1H", "severity": 3}, {"duration": "PT6H", "severity": 5}]
    }
    updated = sb.put(
        f"{BSS}/i0A1B2C3D", json=body | {"name": "Depot", "alarmsConfiguration": config}
    )
    assert updated.status_code == 200, updated.text
    assert updated.json()["name"] == "Depot"
    assert updated.json()["alarmsConfiguration"]["alarm103"][1]["severity"] == 5
    assert updated.json()["alarmsConfiguration"]["alarm102"][0]["duration"] == "PT30S"
    bad = sb.put(
        f"{BSS}/i0A1B2C3D",
        json={"alarmsConfiguration": {"alarm103": [{"duration": "PT6H", "severity": 3},
                                                   {"duration": "PT1H", "severity": 5}]}},
    )  # fmt: skip
    assert bad.status_code == 400 and "alarm103" in bad.json()["message"]
    fixed = sb.put(f"{BSS}/i0A1B2C3D", json={"lrrID": "0A1B2C3E"})
    assert fixed.status_code == 400 and fixed.json()["message"].startswith("lrrID")
    cleared = sb.put(f"{BSS}/i0A1B2C3D", json={"alarmsConfiguration": {"alarm102": []}}).json()
    assert cleared["alarmsConfiguration"]["alarm102"] == []
    assert sb.get(BSS, params={"pageSize": 10}).json()["count"] == 38


def test_rights(sb: Sandbox) -> None:
    assert sb.get(BSS, "subscriber-viewer").status_code == 200
    refused = sb.post(BSS, "subscriber-viewer", json={"model": MODEL})
    assert refused.status_code == 403 and "'a'" in refused.json()["message"]
    assert sb.get(BSS, "supplier").status_code == 403  # acts for no partner
    outside = sb.post(
        BSS, "partner-restricted",
        json={"model": MODEL, "domains": [{"name": "Germany/Berlin", "group": {"name": "Site"}}]},
    )  # fmt: skip
    assert outside.status_code == 403 and outside.json()["code"] == 40302
    supplier_domains = sb.post(
        BSS, "partner", json={"model": MODEL, "domains": [{"name": "X", "group": {"name": "Site"}}]}
    )
    assert supplier_domains.status_code == 400


def test_grant_is_enforced_and_recorded(sb: Sandbox) -> None:
    partner = sb.get(f"{API}/partners/mine", "partner").json()
    left = partner["totalBaseStationsGranted"] - partner["totalBaseStationsUsed"]
    for _ in range(left):
        assert sb.post(BSS, "partner", json={"model": MODEL}).status_code == 201
    refused = sb.post(BSS, "partner", json={"model": MODEL})
    assert refused.status_code == 403 and "totalBaseStationsGranted" in refused.json()["message"]
    assert refused.json()["code"] == 40303
    after = sb.get(f"{API}/partners/mine", "partner").json()
    assert after["totalBaseStationsUsed"] == after["totalBaseStationsGranted"]


def test_clusters_carry_rf_probe(sb: Sandbox) -> None:
    world = sb.get(
        f"{BSS}/clusters", params={"minLat": -90, "maxLat": 90, "minLon": -180, "maxLon": 180}
    ).json()
    assert world["count"] == 36 and 0 < len(world["clusters"]) <= 64
    city = sb.get(
        f"{BSS}/clusters", params={"minLat": 48.7, "maxLat": 49.0, "minLon": 2.1, "maxLon": 2.6}
    ).json()
    singles = [c for c in city["clusters"] if c["count"] == 1]
    assert singles and all("rfProbe" in c["item"] for c in singles)
    restricted = sb.get(
        f"{BSS}/clusters", "partner-restricted",
        params={"minLat": -90, "maxLat": 90, "minLon": -180, "maxLon": 180},
    ).json()  # fmt: skip
    assert restricted["count"] == len(all_stations(sb, "partner-restricted"))
    filtered = sb.get(
        f"{BSS}/clusters",
        params={
            "minLat": -90,
            "maxLat": 90,
            "minLon": -180,
            "maxLon": 180,
            "healthState": "ACTIVE",
        },
    ).json()
    assert filtered["count"] == len(all_stations(sb, healthState="ACTIVE"))
    assert (
        sb.get(
            f"{BSS}/clusters", params={"minLat": 10, "maxLat": 0, "minLon": 0, "maxLon": 1}
        ).status_code
        == 400
    )


def test_tags_and_suggestions(sb: Sandbox) -> None:
    lrr = all_stations(sb)[0]["lrrID"]
    tagged = sb.post(f"{BSS}/tags", json={"name": "north-sector", "LRRIDs": [lrr], "action": "TAG"})
    assert tagged.status_code == 200 and tagged.json()["count"] == 1
    assert lrr in {b["lrrID"] for b in all_stations(sb, tag="north-sector")}
    names = [
        t["name"]
        for t in sb.get(f"{BSS}/tags/suggestions", params={"query": "NORTH"}).json()["briefs"]
    ]
    assert names == ["north-sector"]
    untag = sb.post(
        f"{BSS}/tags", json={"name": "north-sector", "LRRIDs": [lrr], "action": "UNTAG"}
    )
    assert untag.status_code == 200 and untag.json()["count"] == 1
    missing = sb.post(
        f"{BSS}/tags", params={"action": "UNTAG"}, json={"name": "never-made", "LRRIDs": [lrr]}
    )
    assert missing.status_code == 200 and missing.json()["count"] == 0
    # One station's tags.
    added = sb.post(f"{BSS}/i{lrr}/tags", json={"name": "solo", "multicastVisibility": False})
    assert added.status_code == 201 and added.json()["multicastVisibility"] is False
    tags = sb.get(f"{BSS}/i{lrr}/tags").json()["briefs"]
    solo = next(t for t in tags if t["name"] == "solo")
    tag_uid = solo["href"].rsplit("/", 1)[1]
    renamed = sb.put(f"{BSS}/i{lrr}/tags/{tag_uid}", json={"name": "solo-2"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "solo-2"
    new_uid = renamed.json()["href"].rsplit("/", 1)[1]
    assert sb.client.delete(f"{BSS}/i{lrr}/tags/{new_uid}", headers=sb.headers()).status_code == 204
    assert sb.client.delete(f"{BSS}/i{lrr}/tags/{new_uid}", headers=sb.headers()).status_code == 404


def test_restricted_suggestions_follow_the_partner_setting(sb: Sandbox) -> None:
    assert sb.get(f"{BSS}/tags/suggestions", "partner-restricted", params={"query": "r"}).json()[
        "briefs"
    ]
    off = sb.put(f"{API}/partners/mine", json={"showTagSuggestionsWhenDomainRestrictions": False})
    assert (
        off.status_code == 200 and off.json()["showTagSuggestionsWhenDomainRestrictions"] is False
    )
    assert (
        sb.get(f"{BSS}/tags/suggestions", "partner-restricted", params={"query": "r"}).json()[
            "briefs"
        ]
        == []
    )
    assert sb.get(f"{BSS}/tags/suggestions", params={"query": "r"}).json()["briefs"]
    refused = sb.put(
        f"{API}/partners/mine",
        "partner-restricted",
        json={"showTagSuggestionsWhenDomainRestrictions": True},
    )
    assert refused.status_code == 403


def test_domains_added_replace_their_group_and_removed(sb: Sandbox) -> None:
    lrr = all_stations(sb, domain="Site:France/Paris")[0]["lrrID"]
    lyon = {"name": "France/Lyon", "group": {"name": "Site"}}
    vertical = {"name": "Metering", "group": {"name": "Vertical"}}
    done = sb.post(f"{BSS}/domains", json={"addedDomains": [lyon, vertical], "LRRIDs": [lrr]})
    assert done.status_code == 204, done.text
    domains = sb.get(f"{BSS}/i{lrr}").json()["domains"]
    assert sorted(d["name"] for d in domains) == ["France/Lyon", "Metering"]
    sb.post(
        f"{BSS}/domains",
        json={
            "removedDomains": [vertical, {"name": "Nope", "group": {"name": "X"}}],
            "LRRIDs": [lrr],
        },
    )
    assert [d["name"] for d in sb.get(f"{BSS}/i{lrr}").json()["domains"]] == ["France/Lyon"]
    assert lrr in {b["lrrID"] for b in all_stations(sb, "partner-restricted")}
    # The unfiltered count (kept by triggers per domain set) follows the change.
    for role in ("subscriber", "partner-restricted"):
        first = sb.get(BSS, role, params={"pageSize": 10}).json()
        assert first["count"] == len(all_stations(sb, role))
    moved = sb.post(
        f"{BSS}/domains", "partner-restricted",
        json={"addedDomains": [{"name": "Spain/Madrid", "group": {"name": "Site"}}], "LRRIDs": [lrr]},
    )  # fmt: skip
    assert moved.status_code == 403


def test_station_models_are_the_catalog_a_partner_creates_from(sb: Sandbox) -> None:
    page = sb.get(f"{API}/partners/mine/bsProfiles", "partner")
    assert page.status_code == 200, page.text
    body = page.json()
    ids = [m["ID"] for m in body["briefs"]]
    assert MODEL["ID"] in ids and body["count"] == len(ids) and not body["more"]
    kerlink = next(m for m in body["briefs"] if m["ID"] == MODEL["ID"])
    assert kerlink["commercialName"] == "Kerlink Wirnet iStation"
    assert kerlink["vendor"]["ID"] == "KERLINK" and kerlink["softwareType"] == "LRR_LINUX"
    assert "lrrSwVersions" not in kerlink and "href" not in kerlink  # the operator's only
    by_vendor = sb.get(f"{API}/partners/mine/bsProfiles", params={"vendorID": "KERLINK"}).json()
    assert {m["vendor"]["ID"] for m in by_vendor["briefs"]} == {"KERLINK"}
    assert by_vendor["count"] == 2
    # Every model listed can be created (the route checks the same catalog).
    for ident in ids[:2]:
        assert sb.post(BSS, "partner", json={"model": {"ID": ident}}).status_code == 201
    assert sb.get(f"{API}/partners/mine/bsProfiles", "supplier").status_code == 403
