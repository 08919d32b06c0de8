from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from lpwa_console.schema.alarms import AlarmPage, DeviceAlarmPage

from .conftest import DEVICES, Sandbox

ALARMS = f"{DEVICES}/alarms"


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]


def _counters_consistent(sb: Sandbox) -> None:
    conn = _db(sb)
    expected: Counter[tuple[int, int]] = Counter()
    for uid, state in conn.execute("SELECT device_uid, state FROM alarms WHERE acked = 0"):
        expected[uid, state] += 1
    for row in conn.execute("SELECT uid, alarm1, alarm2, alarm3, alarm4, alarm5, alarm6,"
                            " alarm_level FROM devices"):  # fmt: skip
        counts = [expected[row[0], s] for s in range(1, 7)]
        assert list(row[1:7]) == counts, row[0]
        assert row[7] == max((s for s in range(1, 7) if counts[s - 1]), default=0)


def test_demo_alarms_back_the_counters(sb: Sandbox) -> None:
    page = sb.get(ALARMS, params={"pageSize": 1000})
    assert page.status_code == 200, page.text
    body = DeviceAlarmPage.model_validate(page.json())
    assert body.count == len(body.briefs) > 0
    assert any(a.ID == 4 and a.state == 5 for a in body.briefs)
    assert all(a.device.EUI for a in body.briefs)
    # Default order (the reference's): last update, newest first.
    updated = [a.updateTimestamp for a in body.briefs]
    assert updated == sorted(updated, reverse=True)
    # Every brief has its own href, and a level on the reference's 0..5 scale.
    for alarm in body.briefs:
        assert (
            alarm.href
            == f"/subscriptions/mine/devices/{_uid(sb, alarm.device.EUI)}/alarms/{alarm.alarmUid}"
        )
        assert 0 <= alarm.level <= 5 and alarm.level >= int(alarm.state) - 1
    _counters_consistent(sb)


def _uid(sb: Sandbox, eui: str) -> int:
    return int(_db(sb).execute("SELECT uid FROM devices WHERE eui = ?", (eui,)).fetchone()[0])


def test_cursor_pages_by_alarm_uid(sb: Sandbox) -> None:
    seen: list[str] = []
    params: dict[str, Any] = {"sort": "alarmUid,asc", "pageSize": 10}
    first = True
    while True:
        response = sb.get(ALARMS, params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        assert ("count" in body) == first
        seen += [a["alarmUid"] for a in body["briefs"]]
        if not body["more"]:
            assert "cursors" not in body
            break
        cursor = body["cursors"]["last"]
        assert cursor.endswith("=")
        params["pageAfter"] = cursor
        first = False
    assert seen == sorted(seen) and len(seen) == len(set(seen))
    total = sb.get(ALARMS, params={"pageSize": 10}).json()["count"]
    assert len(seen) == total
    # The raw query string, '=' sent as %3D, works too.
    cursor = sb.get(ALARMS, params={"sort": "alarmUid,asc", "pageSize": 10}).json()["cursors"]
    raw = sb.get(
        f"{ALARMS}?sort=alarmUid,asc&pageSize=10&pageAfter={cursor['last'].replace('=', '%3D')}"
    )
    assert raw.status_code == 200 and raw.json()["briefs"][0]["alarmUid"] == seen[10]


def test_other_sorts_page_by_index_without_cursor(sb: Sandbox) -> None:
    body = sb.get(ALARMS, params={"sort": "state,desc", "pageSize": 10}).json()
    assert "cursors" not in body and body["more"]
    states = [a["state"] for a in body["briefs"]]
    assert states == sorted(states, reverse=True)
    second = sb.get(ALARMS, params={"sort": "state,desc", "pageSize": 10, "pageIndex": 2}).json()
    assert "count" not in second
    refused = sb.get(ALARMS, params={"sort": "state,asc", "pageAfter": "AAAA"})
    assert refused.status_code == 400 and refused.json()["code"] == 40002
    bad = sb.get(ALARMS, params={"sort": "alarmUid,asc", "pageAfter": "not-a-cursor"})
    assert bad.status_code == 400 and bad.json()["code"] == 40002
    assert sb.get(ALARMS, params={"sort": "bogus"}).status_code == 400


def test_filters(sb: Sandbox) -> None:
    def alarms(**params: Any) -> list[dict[str, Any]]:
        response = sb.get(ALARMS, params={"pageSize": 1000, **params})
        assert response.status_code == 200, response.text
        return list(response.json()["briefs"])

    everything = alarms()
    assert all(a["state"] >= 5 for a in alarms(state=5))
    assert all(a["state"] == 3 for a in alarms(state=3, stateFiltering="EQUAL"))
    # The reference: EQUAL_OR_UPPER is the default, so state=1 is every alarm, CLEARED or not;
    # EQUAL with 1 is the cleared ones only.
    assert {a["state"] for a in everything} >= {1, 3, 5}
    assert len(alarms(state=1)) == len(alarms(state=1, stateFiltering="EQUAL_OR_UPPER"))
    assert len(alarms(state=1)) == len(everything)
    cleared = alarms(state=1, stateFiltering="EQUAL")
    assert cleared and all(a["state"] == 1 for a in cleared)
    assert sb.get(ALARMS, params={"stateFiltering": "ABOVE"}).status_code == 400
    assert all(a["acked"] for a in alarms(acked="true"))
    assert all(a["ID"] == 4 for a in alarms(ID=4))
    one = alarms()[0]
    assert [a["alarmUid"] for a in alarms(alarmUid=one["alarmUid"])] == [one["alarmUid"]]
    by_eui = alarms(devEUI=one["device"]["EUI"])
    assert by_eui and all(a["device"]["EUI"] == one["device"]["EUI"] for a in by_eui)
    # devEUI is a prefix (the reference), case-insensitive, repeatable (any of them).
    prefix = one["device"]["EUI"][:12].lower()
    by_prefix = alarms(devEUI=prefix)
    assert len(by_prefix) > len(by_eui)
    assert all(a["device"]["EUI"].startswith(prefix.upper()) for a in by_prefix)
    other = next(a for a in everything if not a["device"]["EUI"].startswith(prefix.upper()))
    both = alarms(devEUI=[prefix, other["device"]["EUI"]])
    assert len(both) == len(by_prefix) + len(alarms(devEUI=other["device"]["EUI"]))
    berlin = alarms(domain="Site:Germany/")
    assert berlin and all(
        any(d["name"].startswith("Germany/") for d in a["device"]["domains"]) for a in berlin
    )
    window = alarms(**{"from": "2000-01-01T00:00:00Z", "to": "2000-01-02T00:00:00Z"})
    assert window == []
    # `from` bounds the creation time, `to` the last update (the reference).
    late = max(everything, key=lambda a: a["updateTimestamp"] - a["creationTimestamp"])
    assert late["updateTimestamp"] > late["creationTimestamp"]
    between = _iso(late["creationTimestamp"] + 1)
    assert late["alarmUid"] not in [a["alarmUid"] for a in alarms(to=between)]
    assert late["alarmUid"] in [a["alarmUid"] for a in alarms(to=_iso(late["updateTimestamp"]))]
    assert late["alarmUid"] in [
        a["alarmUid"] for a in alarms(**{"from": _iso(late["creationTimestamp"])})
    ]


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def test_sorts_of_the_reference(sb: Sandbox) -> None:
    def alarms(sort: str) -> list[dict[str, Any]]:
        response = sb.get(ALARMS, params={"pageSize": 1000, "sort": sort})
        assert response.status_code == 200, response.text
        return list(response.json()["briefs"])

    for order in ("asc", "desc"):
        for criterion in ("state", "acked"):
            rows = alarms(f"{criterion},{order}")
            keys = [(a[criterion], -a["updateTimestamp"]) for a in rows]
            # By the criterion in the order asked, then by update time, newest first.
            expected = sorted(keys, key=lambda k: (-k[0] if order == "desc" else k[0], k[1]))
            assert keys == expected, (criterion, order)
            assert len({a[criterion] for a in rows}) > 1
    none_first = alarms("acked,asc")
    assert not none_first[0]["acked"] and none_first[-1]["acked"]


def test_restricted_account_sees_only_its_domains(sb: Sandbox) -> None:
    body = sb.get(ALARMS, "subscriber-restricted", params={"pageSize": 1000}).json()
    assert body["briefs"]
    for alarm in body["briefs"]:
        sites = [d["name"] for d in alarm["device"]["domains"] if d["group"]["name"] == "Site"]
        assert not sites or sites[0].startswith("France/")
    assert body["count"] < sb.get(ALARMS, params={"pageSize": 10}).json()["count"]


def test_acknowledge_keeps_counters_consistent(sb: Sandbox) -> None:
    open_ = sb.get(ALARMS, params={"acked": "false", "state": 3, "pageSize": 10}).json()["briefs"]
    uids = [a["alarmUid"] for a in open_[:3]]
    eui = open_[0]["device"]["EUI"]
    before = sb.get(f"{DEVICES}/e{eui}").json()
    response = sb.post(f"{ALARMS}/ack", json={"alarmUids": uids})
    assert response.status_code == 200, response.text
    assert response.json()["count"] == 3
    for alarm in sb.get(ALARMS, params={"acked": "true", "pageSize": 1000}).json()["briefs"]:
        if alarm["alarmUid"] in uids:
            assert alarm["ackedInfo"] == "Acme Utilities (administrator)"
            assert alarm["ackedTimestamp"]
    after = sb.get(f"{DEVICES}/e{eui}").json()
    assert after["alarmCount"] == before["alarmCount"] - 1
    _counters_consistent(sb)
    # Acknowledging again changes nothing.
    assert sb.post(f"{ALARMS}/ack", json={"alarmUids": uids}).json()["count"] == 0
    assert sb.post(f"{ALARMS}/ack", json={"alarmUids": []}).status_code == 400
    # A long list (past SQLite's variable limit) is fine too: the known ones are counted.
    many = uids + [f"{i:016X}" for i in range(1 << 40, (1 << 40) + 40_000)]
    assert sb.post(f"{ALARMS}/ack", json={"alarmUids": many}).json()["count"] == 0
    viewer = sb.post(f"{ALARMS}/ack", "subscriber-viewer", json={"alarmUids": uids})
    assert viewer.status_code == 403


def test_one_device_alarms_and_ack(sb: Sandbox) -> None:
    alarm = sb.get(ALARMS, params={"acked": "false", "ID": 4, "pageSize": 10}).json()["briefs"][0]
    device = f"{DEVICES}/e{alarm['device']['EUI']}"
    page = sb.get(f"{device}/alarms")
    assert page.status_code == 200, page.text
    body = AlarmPage.model_validate(page.json())
    assert alarm["alarmUid"] in [a.alarmUid for a in body.briefs]
    one = sb.post(f"{device}/alarms/{alarm['alarmUid']}/ack")
    assert one.status_code == 200 and one.json()["count"] == 1
    everything = sb.post(f"{device}/alarms/ack")
    assert everything.status_code == 200
    assert sb.get(device).json()["alarmCount"] == 0
    assert sb.get(f"{device}/alarms", params={"acked": "false"}).json()["briefs"] == []
    _counters_consistent(sb)
    assert sb.get(f"{DEVICES}/e0000000000000000/alarms").status_code == 404


def test_one_owner_state_filter_of_the_reference(sb: Sandbox) -> None:
    """One device's list has no stateFiltering: 1 is the CLEARED alarms only, 2..6 that
    severity or above; newest update first."""
    conn = _db(sb)
    uid, eui = conn.execute(
        "SELECT d.uid, d.eui FROM devices d WHERE EXISTS (SELECT 1 FROM alarms a"
        " WHERE a.device_uid = d.uid AND a.state = 1) AND EXISTS (SELECT 1 FROM alarms a"
        " WHERE a.device_uid = d.uid AND a.state > 1) LIMIT 1"
    ).fetchone()
    device = f"{DEVICES}/{uid}"

    def states(**params: Any) -> list[int]:
        response = sb.get(f"{device}/alarms", params=params)
        assert response.status_code == 200, response.text
        briefs = response.json()["briefs"]
        updated = [a["updateTimestamp"] for a in briefs]
        assert updated == sorted(updated, reverse=True)
        assert all(
            a["href"].startswith(f"/subscriptions/mine/devices/{uid}/alarms/") for a in briefs
        )
        return [a["state"] for a in briefs]

    every = states()
    assert 1 in every and any(s > 1 for s in every)
    assert states(state=1) == [1] * every.count(1)
    assert states(state=2) == [s for s in every if s >= 2]
    assert sb.get(f"{device}/alarms", params={"state": 7}).status_code == 400
    # Acknowledging with state=1 acknowledges the cleared ones only.
    unacked_open = conn.execute(
        "SELECT count(*) FROM alarms WHERE device_uid = ? AND state > 1 AND acked = 0", (uid,)
    ).fetchone()[0]
    assert sb.post(f"{DEVICES}/e{eui}/alarms/ack", params={"state": 1}).status_code == 200
    assert (
        conn.execute(
            "SELECT count(*) FROM alarms WHERE device_uid = ? AND state > 1 AND acked = 0", (uid,)
        ).fetchone()[0]
        == unacked_open
    )


def test_histories_are_the_cleared_alarms(sb: Sandbox) -> None:
    response = sb.get(f"{ALARMS}/histories", params={"pageSize": 1000})
    assert response.status_code == 200 and response.headers["Deprecation"] == "true"
    briefs = response.json()["briefs"]
    assert briefs and all(a["state"] == 1 for a in briefs)
    updated = [a["updateTimestamp"] for a in briefs]
    assert updated == sorted(updated, reverse=True)
    # `state` (3..6) filters on the highest severity reached: the `level` (0..5 scale).
    peak = sb.get(f"{ALARMS}/histories", params={"state": 3, "pageSize": 1000}).json()["briefs"]
    assert peak and all(a["level"] >= 2 for a in peak)
    assert sb.get(f"{ALARMS}/histories", params={"state": 2}).status_code == 400


def test_restricted_cannot_ack_outside_its_domains(sb: Sandbox) -> None:
    conn = _db(sb)
    row = conn.execute(
        "SELECT a.id FROM alarms a JOIN device_domains dd ON dd.device_uid = a.device_uid"
        " JOIN domains dm ON dm.id = dd.domain_id WHERE dm.grp = 'Site'"
        " AND dm.name LIKE 'Germany/%' AND a.acked = 0 LIMIT 1"
    ).fetchone()
    uid = f"{row[0]:016x}"
    response = sb.post(f"{ALARMS}/ack", "subscriber-restricted", json={"alarmUids": [uid]})
    assert response.status_code == 200 and response.json()["count"] == 0
    assert conn.execute("SELECT acked FROM alarms WHERE id = ?", (row[0],)).fetchone()[0] == 0


def test_first_page_with_100k_alarms_under_every_sort(sb: Sandbox) -> None:
    # (How fast: `./dev bench roles` prints these first pages at a million devices.)
    conn = _db(sb)
    sub, uids = 1, [r[0] for r in conn.execute("SELECT uid FROM devices")]
    now = int(time.time() * 1000)
    rows = [
        (sub, uids[i % len(uids)], 4, 2 + i % 5, 3, 1, i % 3 == 0, now - i * 1000, now - i * 1000)
        for i in range(100_000)
    ]
    with sb.client.app.state.services.db.write() as w:  # type: ignore[attr-defined]
        w.executemany(
            "INSERT INTO alarms (subscription_id, kind, device_uid, alarm_id, state, level,"
            " occurrence, acked, created, updated) VALUES (?, 'D', ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        w.execute("ANALYZE")
    cases: dict[str, tuple[str, dict[str, Any]]] = {
        "default": ("subscriber", {}),
        "alarmUid": ("subscriber", {"sort": "alarmUid,asc"}),
        "state": ("subscriber", {"sort": "state,desc"}),
        "acked": ("subscriber", {"sort": "acked,asc"}),
        "unacked": ("subscriber", {"acked": "false", "sort": "alarmUid,desc"}),
        "restricted": ("subscriber-restricted", {}),
    }
    for label, (role, params) in cases.items():
        response = sb.get(ALARMS, role, params={"pageSize": 100, **params})
        assert response.status_code == 200
        body = response.json()
        assert len(body["briefs"]) == 100
        if role == "subscriber":
            assert body["count"] >= 100_000 * (0.66 if label == "unacked" else 1)
