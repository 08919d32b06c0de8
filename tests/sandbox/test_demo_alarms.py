"""The demo's alarms over its first simulated day (issue 21 §4): every alarm code the sandbox
knows shows, the station alarms raised by the living network itself, and alarm 103 only per
a station's thresholds. The simulator runs on its own clock, 5 minutes a step (no sleeps)."""

from __future__ import annotations

import json
from typing import Any

from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.schema.station_alarms import STATION_ALARM_CODES

from .conftest import API, DEVICES, Sandbox

BSS = f"{API}/partners/mine/bss"
DAY_S = 86_400
STEP_S = 300
# Devices and multicast groups (Document 1 §6): no uplink, tamper, multicast delivery.
DEVICE_CODES, MULTICAST_CODES = (4, 12), (21,)


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def _alarms(sb: Sandbox, path: str, role: str, code: int) -> list[dict[str, Any]]:
    page = sb.get(path, role, params={"ID": code, "pageSize": 1000})
    assert page.status_code == 200, page.text
    return list(page.json()["briefs"])


def _raised_since(alarm: dict[str, Any], start: int) -> bool:
    """Raised in the day: created then, or raised again at a new severity (still open)."""
    return bool(
        alarm["creationTimestamp"] >= start
        or (alarm["updateTimestamp"] >= start and alarm["state"] > 1)
    )


def test_the_demo_shows_every_alarm_code_within_its_first_day(sb: Sandbox) -> None:
    sim = Simulator(_db(sb), seed=1)
    start = sim.now_ms
    for _ in range(DAY_S // STEP_S):
        sim.step(STEP_S)
    # Station alarms, of both demo partners: each code raised by the simulated network.
    for code in STATION_ALARM_CODES:
        found = [
            alarm
            for role in ("subscriber", "partner")
            for alarm in _alarms(sb, f"{BSS}/alarms", role, code)
        ]
        raised = [a for a in found if _raised_since(a, start)]
        assert raised, f"no station alarm {code} raised in the first simulated day"
        if code != 102 and code != 103:  # the percentage alarms say their figure
            assert all(a.get("addInfo2") for a in raised), code
    # Device and multicast alarms: each code shows (open at the day's end, or raised in it).
    for path, codes in (
        (f"{DEVICES}/alarms", DEVICE_CODES),
        (f"{API}/subscriptions/mine/multicastGroups/alarms", MULTICAST_CODES),
    ):
        for code in codes:
            found = _alarms(sb, path, "subscriber", code)
            assert any(a["state"] > 1 or _raised_since(a, start) for a in found), code
    assert any(
        _raised_since(a, start)
        for a in _alarms(sb, f"{API}/subscriptions/mine/multicastGroups/alarms", "subscriber", 21)
    )


def _station_103(sb: Sandbox, lrr: str) -> list[dict[str, Any]]:
    page = sb.get(f"{BSS}/alarms", params={"ID": 103, "lrrID": lrr, "pageSize": 100})
    assert page.status_code == 200, page.text
    return list(page.json()["briefs"])


def test_alarm_103_follows_the_stations_thresholds_only(sb: Sandbox) -> None:
    """Document 2 §2.4: alarm103 has no default. A station that hears nothing (in RF error)
    raises no 103 without thresholds; with them it does; removing them clears it."""
    conn = _db(sb).conn()
    uid, lrr = conn.execute(
        "SELECT s.uid, s.lrr_id FROM stations s JOIN partners p ON p.uid = s.partner_uid"
        " WHERE p.ref = '100' AND s.cnx_state = 'CNX' AND s.health_state = 'ACTIVE'"
        " AND s.alarm3 + s.alarm4 + s.alarm5 + s.alarm6 = 0 ORDER BY s.uid LIMIT 1"
    ).fetchone()
    none = {"alarmsConfiguration": {"alarm103": []}}
    assert sb.put(f"{BSS}/{uid}", json=none).status_code == 200
    assert (
        json.loads(
            conn.execute("SELECT alarm103 FROM stations WHERE uid = ?", (uid,)).fetchone()[0]
        )
        == []
    )
    conn.execute("UPDATE stations SET health_state = 'RF_ERROR' WHERE uid = ?", (uid,))
    conn.commit()
    sim = Simulator(_db(sb), seed=1)
    for _ in range(3 * 12):  # three hours without an uplink
        sim.step(STEP_S)
    assert _station_103(sb, lrr) == []
    one_hour = {"alarmsConfiguration": {"alarm103": [{"duration": "PT1H", "severity": 4}]}}
    assert sb.put(f"{BSS}/{uid}", json=one_hour).status_code == 200
    sim.step(STEP_S)
    assert [(a["state"], a["ID"]) for a in _station_103(sb, lrr)] == [(4, 103)]
    assert sb.put(f"{BSS}/{uid}", json=none).status_code == 200
    sim.step(STEP_S)
    assert [a["state"] for a in _station_103(sb, lrr)] == [1]  # cleared with its thresholds
