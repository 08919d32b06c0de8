from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from lpwa_console.sandbox import SandboxSettings, demo, links
from lpwa_console.sandbox.simulator import HOUR_MS, Simulator
from lpwa_console.schema.frames import DeviceFrames, FramesAggregation

from .conftest import DEVICES, Sandbox

DAY = 86_400


def _simulator(sb: Sandbox, **kw: Any) -> Simulator:
    return Simulator(sb.client.app.state.services.db, seed=7, **kw)  # type: ignore[attr-defined]


def _device(sb: Sandbox, health: str = "ACTIVE", connectivity: str = "%") -> dict[str, Any]:
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    uid = conn.execute(
        "SELECT uid FROM devices WHERE health = ? AND alarm_level = 0 AND connectivity LIKE ?"
        " ORDER BY uid LIMIT 1",
        (health, connectivity),
    ).fetchone()[0]
    return dict(sb.get(f"{DEVICES}/{uid}").json())


def _alarms(sb: Sandbox, eui: str) -> list[dict[str, Any]]:
    return list(sb.get(f"{DEVICES}/e{eui}/alarms", params={"ID": 4}).json()["briefs"])


def test_devices_send_uplinks_and_traffic_grows(sb: Sandbox) -> None:
    sim = _simulator(sb)
    device = _device(sb, connectivity="LORAWAN")
    report = sim.step(6 * 3600)
    assert report.uplinks > 0 and report.downlinks > 0
    after = sb.get(f"{DEVICES}/{device['ref']}").json()
    assert after["lastUpTimestamp"] > device["lastUpTimestamp"]
    assert after["lastUpTimestamp"] <= sim.now_ms
    assert after["healthState"] == "ACTIVE"
    assert 7 <= after["lastSF"] <= 12 and after["lastSNR"] is not None
    history = sb.get(f"{DEVICES}/{device['ref']}/frames/aggregated", params={"step": "PT1H"})
    assert history.status_code == 200, history.text
    body = FramesAggregation.model_validate(history.json())
    assert len(body.briefs) == 24 and body.now == sim.now_ms
    times, ups, _ = body.series()
    assert times == sorted(times) and all(b - a == HOUR_MS for a, b in itertools.pairwise(times))
    assert sum(ups[-6:]) > 0


def test_silent_device_raises_escalates_and_clears_004(sb: Sandbox) -> None:
    sim = _simulator(sb)
    device = _device(sb)
    uid, eui = int(device["ref"]), device["EUI"]
    sim.step(3600)
    sim.set_silent(uid)
    sim.step(DAY)
    assert _alarms(sb, eui) == []
    sim.step(DAY + 3600)  # more than two days of silence
    alarms = _alarms(sb, eui)
    assert [(a["state"], a["acked"]) for a in alarms] == [(3, False)]
    got = sb.get(f"{DEVICES}/e{eui}").json()
    assert (got["alarm3"], got["alarmLevel"], got["healthState"]) == (1, 3, "RF_CNX_ERROR")
    sim.step(2 * DAY)  # past four days: escalated to MAJOR, same alarm
    alarms = _alarms(sb, eui)
    assert [(a["state"], a["occurrence"]) for a in alarms] == [(5, 2)]
    got = sb.get(f"{DEVICES}/e{eui}").json()
    assert (got["alarm3"], got["alarm5"], got["alarmLevel"]) == (0, 1, 5)
    sim.set_silent(uid, False)
    sim.step(6 * 3600)
    alarms = _alarms(sb, eui)
    assert [a["state"] for a in alarms] == [1]
    got = sb.get(f"{DEVICES}/e{eui}").json()
    assert (got["alarm1"], got["alarm5"], got["alarmLevel"]) == (1, 0, 1)
    assert got["healthState"] == "ACTIVE"
    # Acknowledging the cleared alarm empties the counters.
    sb.post(f"{DEVICES}/e{eui}/alarms/ack")
    assert sb.get(f"{DEVICES}/e{eui}").json()["alarmCount"] == 0


def test_custom_thresholds(sb: Sandbox) -> None:
    sim = _simulator(sb)
    device = _device(sb)
    config = {"alarm004": [{"status": "ENABLE", "level": 6, "duration": "PT6H"}]}
    assert (
        sb.put(f"{DEVICES}/{device['ref']}", json={"alarmsConfiguration": config}).status_code
        == 200
    )
    sim.step(3600)
    sim.set_silent(int(device["ref"]))
    sim.step(7 * 3600)
    assert [a["state"] for a in _alarms(sb, device["EUI"])] == [6]


def test_demo_silent_devices_stay_silent(sb: Sandbox) -> None:
    sim = _simulator(sb)
    silent = _device(sb, "INIT")
    sim.step(DAY)
    again = sb.get(f"{DEVICES}/{silent['ref']}").json()
    assert again.get("lastUpTimestamp") is None and again["healthState"] == "INIT"


def _fingerprint(path: Path) -> list[Any]:
    db = demo.prepare(SandboxSettings(db_path=path, demo_devices=0))
    demo.seed_devices(db, 200, seed=3, now=1_800_000_000_000)
    sim = Simulator(db, seed=3, start_ms=1_800_000_000_000)
    for _ in range(4):
        sim.step(DAY)
    conn = db.conn()
    out = [
        list(conn.execute("SELECT uid, last_up, last_sf, last_rssi, alarm_level FROM devices")),
        list(conn.execute("SELECT * FROM frame_buckets WHERE ts >= 1800000000000")),
        list(
            conn.execute("SELECT device_uid, state, created, updated FROM alarms WHERE kind = 'D'")
        ),
    ]
    db.close()
    return [[tuple(r) for r in rows] for rows in out]


def test_deterministic_for_a_seed(tmp_path: Path) -> None:
    assert _fingerprint(tmp_path / "a.db") == _fingerprint(tmp_path / "b.db")


def test_clock_survives_a_restart(sb: Sandbox) -> None:
    sim = _simulator(sb)
    sim.step(DAY)
    assert _simulator(sb).now_ms == sim.now_ms


def test_background_thread(sb: Sandbox) -> None:
    import time

    sim = _simulator(sb, speed=3600)
    before = sim.now_ms
    sim.start(tick_s=0.05)
    # However slow the machine: wait until the thread has simulated six minutes
    # (pytest-timeout bounds the wait); once stopped, the clock stands still.
    while sim.now_ms - before < 360 * 1000:
        time.sleep(0.05)
    sim.stop()
    stopped = sim.now_ms
    time.sleep(0.2)
    assert sim.now_ms == stopped
    # The steps' pages were copied into the database by the checkpointer, now stopped.
    assert sim.checkpointer.runs > 0 and not sim.checkpointer.running


def test_aggregated_steps_and_deprecated_frames(sb: Sandbox) -> None:
    device = _device(sb)
    path = f"{DEVICES}/{device['ref']}"
    daily = sb.get(f"{path}/frames/aggregated", params={"step": "DAY", "duration": "P3D"}).json()
    assert len(daily["briefs"]) == 3 and sum(b["up"]["count"] for b in daily["briefs"]) > 0
    begin = sb.get(
        f"{path}/frames/aggregated",
        params={"begin": "2020-01-01T00:00:00Z", "duration": "PT6H", "step": "PT1H"},
    ).json()
    assert begin["briefs"][0]["timestamp"] == 1_577_836_800_000
    assert all(b["up"]["count"] == 0 for b in begin["briefs"])
    assert sb.get(f"{path}/frames/aggregated", params={"step": "PT1S"}).status_code == 400
    assert sb.get(f"{path}/frames/aggregated", params={"duration": "bogus"}).status_code == 400
    assert sb.get(f"{DEVICES}/e0000000000000000/frames/aggregated").status_code == 404
    old = sb.get(f"{path}/frames")
    assert old.status_code == 200 and old.headers["Deprecation"] == "true"
    frames = DeviceFrames.model_validate(old.json())
    assert frames.briefs and {f.type for f in frames.briefs} <= {0, 1}
    stamps = [f.timestamp for f in frames.briefs]
    assert stamps == sorted(stamps, reverse=True)
    openapi = sb.client.get("/openapi.json").json()
    assert openapi["paths"][
        "/thingpark/wireless/rest/subscriptions/mine/devices/{deviceUid}/frames"
    ]["get"]["deprecated"]


def test_a_reused_uid_is_scheduled_again(sb: Sandbox) -> None:
    """SQLite hands a deleted device's uid to the next device: that one must send too, and
    must not inherit the old device's silence."""
    body = {
        "EUI": "0018B2000000AB01",
        "model": {"ID": "itron-cyble-lw"},
        "appEUI": "70B3D57ED0000000",
        "appKey": "00112233445566778899AABBCCDDEEFF",
    }
    sim = _simulator(sb)
    first = sb.post(DEVICES, json=body)
    assert first.status_code == 201, first.text
    sim.step(60)
    sim.set_silent(int(first.json()["ref"]))
    gone = sb.post(
        f"{DEVICES}/import", files={"csv": ("a.csv", f"DELETE,{body['EUI']}\r\n", "text/csv")}
    )
    assert gone.status_code == 200 and not gone.content, gone.text
    again = sb.post(DEVICES, json={**body, "EUI": "0018B2000000AB02"})  # at once
    assert again.status_code == 201 and again.json()["ref"] == first.json()["ref"]
    sim.step(DAY)
    assert sb.get(f"{DEVICES}/{again.json()['ref']}").json().get("lastUpTimestamp") is not None


def test_the_schedule_finds_the_devices_due_as_their_periods_say(tmp_path: Path) -> None:
    """The in-memory timing wheel gives exactly the devices whose `phase + k * period` falls
    in a step, for short and long steps, across period boundaries, and for devices added
    later (checked one by one before they are merged)."""
    import numpy as np

    from lpwa_console.sandbox.simulator import DeviceSchedule

    db = demo.prepare(SandboxSettings(db_path=tmp_path / "s.db", demo_devices=0))
    sim = Simulator(db, seed=5, start_ms=1_800_000_000_000)
    schedule = DeviceSchedule(5)
    schedule.add(np.arange(1, 3001, dtype=np.int64))
    schedule.add(np.array([5000, 4000, 4000, 17], dtype=np.int64))  # 17: scheduled already
    assert len(schedule) == 3002 and schedule.known == 5000
    uids = [*range(1, 3001), 4000, 5000]

    def expected(t0: int, t1: int) -> list[int]:
        out = []
        for uid in uids:
            period, phase = sim._period(uid)
            if (t1 - phase) // period > (t0 - phase) // period:
                out.append(uid)
        return out

    t = 1_800_000_000_000
    for t0, t1 in [(t, t + 1000), (t + 899_500, t + 900_500), (t, t + 3_600_000),
                   (t - 7, t + 86_400_000), (t + 5, t + 6)]:  # fmt: skip
        assert schedule.due(t0, t1).tolist() == expected(t0, t1)
    db.close()


def test_a_device_stays_on_its_links_sf_and_its_average_snr_moves_in_steps(sb: Sandbox) -> None:
    """The demo gives a device the values of its link; the simulator (with the demo's seed)
    sends around them: the SF the ADR settled on (now and then one higher), and an average
    SNR that is reported again only once it has moved by half a dB."""
    db = sb.client.app.state.services.db  # type: ignore[attr-defined]
    conn = db.conn()
    query = (
        "SELECT uid, last_sf, avg_snr, last_up FROM devices WHERE connectivity = 'LORAWAN'"
        " AND health = 'ACTIVE' AND last_up IS NOT NULL"
    )
    before = {row[0]: tuple(row[1:]) for row in conn.execute(query)}
    for uid, (sf, avg, _) in before.items():
        assert sf == links.adr_sf(avg) and avg == round(links.base_snr(1, uid), 1)
    sim = Simulator(db, seed=1)  # the demo's seed
    sim.step(900)  # at most one uplink per device (periods are 15 minutes or more)
    heard = moved = 0
    for uid, sf, avg, last_up in conn.execute(query):
        if last_up == before[uid][2]:
            continue
        heard += 1
        adr = links.adr_sf(links.base_snr(1, uid))
        assert sf in (adr, min(adr + 1, 12))
        if avg != before[uid][1]:
            moved += 1
            assert abs(avg - before[uid][1]) >= 0.4
    assert heard > 50 and moved < heard / 4


def test_the_demos_traffic_history_holds_steady_up_to_its_last_hour(sb: Sandbox) -> None:
    """A new demo's devices sent as the simulator's schedule says, up to their last uplink:
    its last complete hour carries as much traffic as the hours before (the dashboard's
    rate showed a false drop of a third there when last uplinks were drawn at random)."""
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    latest = conn.execute("SELECT max(last_up) FROM devices").fetchone()[0]
    last_complete = latest - latest % HOUR_MS - HOUR_MS
    ups = [
        conn.execute("SELECT sum(up) FROM frame_buckets WHERE ts = ?", (hour,)).fetchone()[0]
        for hour in (last_complete - 2 * HOUR_MS, last_complete - HOUR_MS, last_complete)
    ]
    assert min(ups) > 0.9 * max(ups), ups
    for uid, last_up in conn.execute(
        "SELECT uid, last_up FROM devices WHERE health = 'ACTIVE' ORDER BY uid LIMIT 50"
    ):
        assert last_up == links.last_uplink(1, uid, last_up)  # on its schedule
