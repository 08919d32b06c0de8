"""Base station alarms over HTTP (codes 102-111): raised and cleared through the store as
the simulator does, listed, sorted, paged by cursor, acknowledged, per station, histories,
state distributions, and hidden outside the caller's domains."""

from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.sandbox.store import station_alarms as alarm_store

from .conftest import API, Sandbox

BSS = f"{API}/partners/mine/bss"
ALARMS = f"{BSS}/alarms"


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def _station(sb: Sandbox, role: str = "subscriber", **params: Any) -> dict[str, Any]:
    return sb.get(BSS, role, params={"pageSize": 1000, **params}).json()["briefs"][0]


def _uid(station: dict[str, Any]) -> int:
    return int(station["href"].rsplit("/", 1)[1])


def all_alarms(sb: Sandbox, role: str = "subscriber", **params: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    index = 1
    while True:
        page = sb.get(ALARMS, role, params={**params, "pageIndex": index, "pageSize": 1000})
        assert page.status_code == 200, page.text
        out += page.json()["briefs"]
        if not page.json()["more"]:
            return out
        index += 1


def test_raise_escalate_clear_and_counters(sb: Sandbox) -> None:
    station = _station(sb, healthState="ACTIVE")
    uid, lrr = _uid(station), station["lrrID"]
    db = _db(sb)
    with db.write() as conn:
        alarm_store.raise_alarm(conn, uid, 106, 4, "91", 1_000)
        alarm_store.raise_alarm(conn, uid, 106, 4, "93", 2_000)  # same severity: figure only
    [alarm] = sb.get(f"{BSS}/i{lrr}/alarms", params={"ID": 106}).json()["briefs"]
    assert (alarm["state"], alarm["addInfo2"], alarm["occurrence"]) == (4, "93", 1)
    assert sb.get(f"{BSS}/i{lrr}").json()["alarm4"] >= 1
    with db.write() as conn:
        alarm_store.raise_alarm(conn, uid, 106, 6, "99", 3_000)  # escalates
    [alarm] = sb.get(f"{BSS}/i{lrr}/alarms", params={"ID": 106}).json()["briefs"]
    assert (alarm["state"], alarm["level"], alarm["occurrence"]) == (6, 5, 2)
    assert sb.get(f"{BSS}/i{lrr}").json()["alarmLevel"] == 6
    with db.write() as conn:
        alarm_store.clear_alarm(conn, uid, 106, 4_000)
        alarm_store.clear_alarm(conn, uid, 106, 5_000)  # idempotent
    [alarm] = sb.get(f"{BSS}/i{lrr}/alarms", params={"ID": 106}).json()["briefs"]
    assert alarm["state"] == 1 and alarm["updateTimestamp"] == 4_000
    history = sb.get(f"{BSS}/i{lrr}/alarms/histories", params={"ID": 106}).json()["briefs"]
    assert [a["alarmUid"] for a in history] == [alarm["alarmUid"]]
    with db.write() as conn:
        alarm_store.raise_alarm(conn, uid, 106, 4, "90", 6_000)  # a new row: history kept
    rows = sb.get(f"{BSS}/i{lrr}/alarms", params={"ID": 106}).json()["briefs"]
    assert sorted(a["state"] for a in rows) == [1, 4]


def test_collection_lists_carry_the_station_and_sort(sb: Sandbox) -> None:
    items = all_alarms(sb)
    assert items and all({"lrrID", "name"} <= set(a["bs"]) for a in items)
    assert {a["ID"] for a in items} >= {102}
    updated = [a["updateTimestamp"] for a in items]
    assert updated == sorted(updated, reverse=True)  # default: latest update first
    states = [a["state"] for a in all_alarms(sb, sort="state,desc")]
    assert states == sorted(states, reverse=True)
    assert all(a["state"] >= 5 for a in all_alarms(sb, state=5))
    assert all(a["state"] == 1 for a in all_alarms(sb, state=1, stateFiltering="EQUAL"))
    lrr = items[0]["bs"]["lrrID"]
    assert {a["bs"]["lrrID"] for a in all_alarms(sb, lrrID=lrr.lower())} == {lrr}
    assert all(
        any(d["name"] == "France/Paris" for d in a["bs"]["domains"])
        for a in all_alarms(sb, domain="Site:France/Paris")
    )


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_cursor_only_when_sorted_by_alarm_uid(sb: Sandbox, order: str) -> None:
    total = len(all_alarms(sb))
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"sort": f"alarmUid,{order}", "pageSize": 10}
        if cursor:
            params["pageAfter"] = cursor
        page = sb.get(ALARMS, params=params).json()
        assert ("count" in page) == (cursor is None)
        seen += [a["alarmUid"] for a in page["briefs"]]
        cursor = (page.get("cursors") or {}).get("last")
        if not cursor:
            break
    assert len(seen) == total and seen == sorted(seen, reverse=order == "desc")
    refused = sb.get(ALARMS, params={"sort": "state,asc", "pageAfter": "MDAwMDAwMDAwMDAwMDAwMQ=="})
    assert refused.status_code == 400
    assert (
        sb.get(ALARMS, params={"sort": "alarmUid,asc", "pageAfter": "bm9wZQ=="}).status_code == 400
    )


def test_ack_by_uid_per_station_and_one(sb: Sandbox) -> None:
    open_ = [a for a in all_alarms(sb, acked="false") if a["state"] > 1]
    first, second = open_[0], open_[1]
    assert sb.post(f"{ALARMS}/ack", json={"alarmUids": [first["alarmUid"]]}).status_code == 204
    acked = all_alarms(sb, alarmUid=first["alarmUid"])[0]
    assert acked["acked"] and acked["ackedInfo"]
    lrr = second["bs"]["lrrID"]
    one = sb.post(f"{BSS}/i{lrr}/alarms/{second['alarmUid']}/ack")
    assert one.status_code == 201
    assert all_alarms(sb, alarmUid=second["alarmUid"])[0]["acked"]
    missing = sb.post(f"{BSS}/i{lrr}/alarms/00000000000fffff/ack")
    assert missing.status_code == 404
    assert sb.post(f"{BSS}/i{lrr}/alarms/ack").status_code == 201
    assert not [a for a in sb.get(f"{BSS}/i{lrr}/alarms").json()["briefs"] if not a["acked"]]
    refused = sb.post(f"{ALARMS}/ack", "subscriber-viewer", json={"alarmUids": [first["alarmUid"]]})
    assert refused.status_code == 403


def test_state_distributions_and_histories(sb: Sandbox) -> None:
    dist = sb.get(f"{ALARMS}/stateDistributions").json()
    assert dist["totalCount"] == len(all_alarms(sb))
    assert sum(b["count"] for b in dist["briefs"]) == dist["totalCount"]
    history = sb.get(f"{ALARMS}/histories", params={"pageSize": 1000}).json()
    assert history["count"] > 0 and all(a["state"] == 1 for a in history["briefs"])
    cleared = [a["updateTimestamp"] for a in history["briefs"]]
    assert cleared == sorted(cleared, reverse=True)
    assert all(
        a["level"] >= 4 for a in sb.get(f"{ALARMS}/histories", params={"state": 5}).json()["briefs"]
    )


def test_restricted_accounts_see_alarms_of_their_stations_only(sb: Sandbox) -> None:
    restricted = all_alarms(sb, "partner-restricted")
    everything = all_alarms(sb)
    assert restricted and len(restricted) < len(everything)
    for alarm in restricted:
        sites = [d["name"] for d in alarm["bs"]["domains"] if d["group"]["name"] == "Site"]
        assert all(s.startswith("France/") for s in sites)
    dist = sb.get(f"{ALARMS}/stateDistributions", "partner-restricted").json()
    assert dist["totalCount"] == len(restricted)
    outside = next(
        a for a in everything
        if any(not d["name"].startswith("France/") for d in a["bs"]["domains"]) and not a["acked"]
    )  # fmt: skip
    sb.post(f"{ALARMS}/ack", "partner-restricted", json={"alarmUids": [outside["alarmUid"]]})
    assert not all_alarms(sb, alarmUid=outside["alarmUid"])[0]["acked"]
    lrr = outside["bs"]["lrrID"]
    assert sb.get(f"{BSS}/i{lrr}/alarms", "partner-restricted").status_code == 404


def test_alarms_follow_their_station_out_of_the_domains(sb: Sandbox) -> None:
    seen = all_alarms(sb, "partner-restricted")
    lrr = seen[0]["bs"]["lrrID"]
    mine = {a["alarmUid"] for a in seen if a["bs"]["lrrID"] == lrr}
    berlin = {"name": "Germany/Berlin", "group": {"name": "Site"}}
    moved = sb.post(f"{BSS}/domains", json={"addedDomains": [berlin], "LRRIDs": [lrr]})
    assert moved.status_code == 204
    after = {a["alarmUid"] for a in all_alarms(sb, "partner-restricted")}
    assert not mine & after and len(after) == len(seen) - len(mine)
    assert mine <= {a["alarmUid"] for a in all_alarms(sb)}
