"""Base station operations over HTTP, driven by the simulator's clock (no sleeps): commands
and their outcomes, the support password, settings, antennas, RF probe and monitoring."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lpwa_console.sandbox import station_sim, station_trouble
from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.schema.station_admin import COMMAND_NAMES, STATUS_NAMES, LastCmdStatus
from lpwa_console.schema.station_monitoring import (
    CpuHistory,
    CpuRecord,
    Indicators,
    ServedDevices,
)
from lpwa_console.schema.station_radio import StationFrames

from .conftest import API, Sandbox

BSS = f"{API}/partners/mine/bss"
VALID: dict[str, dict[str, Any]] = {
    "upgrade": {"version": "3.0.1"},
    "downloadLrrVersion": {"version": "3.0.1"},
    "updateAntennasGainAndLoss": {"chains": [{"index": 0, "gain": 3, "cableLoss": 1}]},
    "updateFineTimestampKeys": {"fpgaBoards": [{"index": 0, "key": "0A" * 16}]},
    "updateLocation": {"locationType": 1, "adminLat": 48.85, "adminLon": 2.35, "adminAlt": 40},
    "updateLog": {"traceLevel": 2},
    "updateRfRegion": {"rfRegionID": "EU868_DEFAULT"},
    "scanRadio": {"frequency": {"start": 863, "stop": 870, "step": 200}},
}


def _db(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def _stations(sb: Sandbox, software: str) -> list[int]:
    rows = (
        _db(sb)
        .conn()
        .execute(
            "SELECT s.uid, s.model FROM stations s JOIN partners p ON p.uid = s.partner_uid"
            " WHERE p.type = 'SUBSCRIBER' AND p.ref = '100' ORDER BY s.uid"  # Acme's (`mine`)
        )
    )
    from lpwa_console.sandbox.store.stations import software_type

    conn = _db(sb).conn()
    return [uid for uid, model in rows if software_type(conn, model) == software]


@pytest.fixture
def sim(sb: Sandbox) -> Simulator:
    simulator = Simulator(_db(sb), seed=7)
    simulator.step(60)  # stations report for the first time and connect
    return simulator


def _last(sb: Sandbox, uid: int) -> LastCmdStatus:
    answer = sb.get(f"{BSS}/{uid}/admins/lastCmdStatus")
    assert answer.status_code == 200, answer.text
    return LastCmdStatus.model_validate(answer.json())


def _run(sim: Simulator, seconds: int, step: int = 5) -> None:
    for _ in range(seconds // step):
        sim.step(step)


def _open_alarms(sb: Sandbox, uid: int) -> dict[int, dict[str, Any]]:
    rows = (
        _db(sb)
        .conn()
        .execute(
            "SELECT alarm_id, state, add_info2 FROM station_alarms WHERE bs_uid = ? AND state > 1",
            (uid,),
        )
    )
    return {code: {"state": state, "addInfo2": info} for code, state, info in rows}


def test_every_command_is_queued_with_its_parameters(sb: Sandbox, sim: Simulator) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    for name in COMMAND_NAMES:
        body = VALID.get(name, {}) | {"occContext": {"version": 1}}
        answer = sb.post(f"{BSS}/{uid}/admins/{name}", json=body, params={"force": "true"})
        assert answer.status_code == 201, (name, answer.text)
        assert "occContext" not in answer.json()
        last = _last(sb, uid)
        assert last.lastCmdCompletionStatus == "PENDING" and last.lastCmdType
    rows = (
        _db(sb)
        .conn()
        .execute("SELECT command FROM station_commands WHERE bs_uid = ?", (uid,))
        .fetchall()
    )
    assert [r[0] for r in rows] == list(COMMAND_NAMES)


@pytest.mark.parametrize(
    ("name", "body", "word"),
    [
        ("upgrade", {"version": "2.0.0"}, "version"),
        ("upgrade", {}, "version"),
        ("updateLog", {"traceLevel": 7}, "traceLevel"),
        ("updateLocation", {"locationType": 1}, "adminLat"),
        ("reboot", {"colour": "red"}, "colour"),
    ],
)
def test_bad_parameters_are_refused_by_name(
    sb: Sandbox, name: str, body: dict[str, Any], word: str
) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    answer = sb.post(f"{BSS}/{uid}/admins/{name}", json=body)
    assert answer.status_code == 400 and word in answer.json()["message"]


def test_software_rules_and_rights(sb: Sandbox) -> None:
    basic = _stations(sb, "BASIC_STATION_LINUX")[0]
    refused = sb.post(f"{BSS}/{basic}/admins/reboot", json={})
    assert refused.status_code == 400 and "softwareType" in refused.json()["message"]
    ok = sb.post(f"{BSS}/{basic}/admins/updateRfRegion", json={"rfRegionID": "EU868_DEFAULT"})
    assert ok.status_code == 201
    gps = sb.post(f"{BSS}/{basic}/admins/updateLocation", json={"locationType": 2})
    assert gps.status_code == 400 and "locationType" in gps.json()["message"]
    uid = _stations(sb, "LRR_LINUX")[0]
    assert sb.post(f"{BSS}/{uid}/admins/format", json={}).status_code in (400, 404)
    assert sb.post(f"{BSS}/{uid}/admins/reboot", "subscriber-viewer", json={}).status_code == 403


def test_reboot_disconnects_raises_102_and_comes_back(sb: Sandbox, sim: Simulator) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    before = sb.get(f"{BSS}/{uid}").json()
    assert before["cnxState"] == "CNX"
    assert sb.post(f"{BSS}/{uid}/admins/reboot", json={}).status_code == 201
    _run(sim, 10)
    assert _last(sb, uid).lastCmdCompletionStatus == "PROCESSING"
    assert sb.get(f"{BSS}/{uid}").json()["cnxState"] == "DISC"
    _run(sim, 40)
    assert _open_alarms(sb, uid)[102]["state"] == 6  # CRITICAL after 30 s
    status = sb.get(f"{BSS}/{uid}/admins/rfcStatus").json()
    assert status["completionStatus"] == "ERR_NOSTART"  # the station cannot answer now
    _run(sim, 120)
    last = _last(sb, uid)
    assert last.lastCmdCompletionStatus == "COMPLETED" and last.lastCmdType == "REBOOT"
    after = sb.get(f"{BSS}/{uid}").json()
    assert after["cnxState"] == "CNX" and after["lastReboot"] == last.lastCmdCompletionDate
    assert 102 not in _open_alarms(sb, uid)
    uptime = sb.get(f"{BSS}/{uid}/admins/systemUptime").json()
    assert uptime == {"completionStatus": "COMPLETED", "lastsystemReboot": after["lastReboot"]}


def test_upgrades_succeed_or_fail_and_say_why(sb: Sandbox, sim: Simulator) -> None:
    uids = _stations(sb, "LRR_LINUX")
    for uid in uids:
        assert sb.post(f"{BSS}/{uid}/admins/upgrade", json={"version": "3.0.1"}).status_code == 201
    _run(sim, 420, step=30)
    outcomes = set()
    for uid in uids:
        last = _last(sb, uid)
        version = sb.get(f"{BSS}/{uid}/admins/swVersion").json()["version"]["version"]
        outcomes.add(last.lastCmdCompletionStatus)
        if last.lastCmdCompletionStatus == "COMPLETED":
            assert version == "3.0.1"
        else:
            assert last.lastCmdCompletionStatus == "ERR_EXEC" and version != "3.0.1"
            assert last.lastCmdCompletionData
    assert outcomes == {"COMPLETED", "ERR_EXEC"}  # seed 7: some fail


def test_radio_scan_takes_minutes_and_can_be_cancelled(sb: Sandbox, sim: Simulator) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    assert sb.post(f"{BSS}/{uid}/admins/scanRadio", json={}).status_code == 201
    _run(sim, 120, step=10)
    assert sb.get(f"{BSS}/{uid}/admins/scanRadioStatus").json()["rfScanState"] > 0
    assert _last(sb, uid).lastCmdCompletionStatus == "PROCESSING"
    assert sb.post(f"{BSS}/{uid}/admins/cancelRadioScan", json={}).status_code == 201
    _run(sim, 10)
    assert _last(sb, uid).lastCmdCompletionStatus == "COMPLETED"
    assert sb.get(f"{BSS}/{uid}/admins/scanRadioStatus").json()["rfScanState"] == 0
    scan = (
        _db(sb)
        .conn()
        .execute(
            "SELECT status, completion_data FROM station_commands WHERE bs_uid = ?"
            " AND command = 'scanRadio'",
            (uid,),
        )
        .fetchone()
    )
    assert tuple(scan) == ("ERR_EXEC", "cancelled")
    # Uncancelled, a scan ends after its minutes.
    assert sb.post(f"{BSS}/{uid}/admins/scanRadio", json={}).status_code == 201
    _run(sim, 300, step=30)
    assert _last(sb, uid).lastCmdCompletionStatus == "PROCESSING"
    _run(sim, 120, step=30)
    assert _last(sb, uid).lastCmdCompletionStatus == "COMPLETED"


def test_status_readings_follow_the_commands(sb: Sandbox, sim: Simulator) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    for name, body in [("rfcStop", {}), ("updateLog", {"traceLevel": 2}), ("backup", {}),
                       ("updateAntennasGainAndLoss", VALID["updateAntennasGainAndLoss"]),
                       ("updateFineTimestampKeys", VALID["updateFineTimestampKeys"]),
                       ("updateLocation", VALID["updateLocation"]),
                       ("updateRfRegion", {"rfRegionID": "EU868_DEFAULT"}), ("openSsh", {})]:  # fmt: skip
        assert sb.post(f"{BSS}/{uid}/admins/{name}", json=body).status_code == 201
        _run(sim, 80, step=10)
        assert _last(sb, uid).lastCmdCompletionStatus == "COMPLETED", name

    def status(name: str) -> dict[str, Any]:
        answer = sb.get(f"{BSS}/{uid}/admins/{name}")
        assert answer.status_code == 200, answer.text
        assert answer.json().get("completionStatus", "COMPLETED") == "COMPLETED"
        return dict(answer.json())

    assert {n: status(n) for n in STATUS_NAMES}  # every reading answers
    assert status("rfcStatus")["rfcellState"] == 0
    assert status("logStatus")["traceLevel"] == 2
    assert status("backupSwVersion")["backup"]["version"]
    assert status("antennasGainAndLossStatus")["chains"][0]["gain"] == 3
    assert status("fineTimestampKeysStatus")["fpgaBoards"] == [{"index": 0, "key": "0A" * 16}]
    location = status("locationStatus")["location"]
    assert (location["type"], location["latitude"], location["altitude"]) == (1, 48.85, 40)
    assert status("rfRegionStatus")["rfRegion"]["ID"] == "EU868_DEFAULT"
    assert _last(sb, uid).lastCmdData  # the SSH port
    assert sb.get(f"{BSS}/{uid}").json()["reverseSshState"] == 1


def test_support_password_is_never_kept_in_clear(sb: Sandbox, sim: Simulator) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    secret = "Sesame-0pen!"
    assert "lastChanged" not in sb.get(f"{BSS}/{uid}").json().get("supportPassword", {})
    weak = sb.post(f"{BSS}/{uid}/admins/changeSupportPassword", json={"password": "weakweak"})
    assert weak.status_code == 400 and "password" in weak.json()["message"]
    assert "weakweak" not in weak.text
    answer = sb.post(f"{BSS}/{uid}/admins/changeSupportPassword", json={"password": secret})
    assert answer.status_code == 201 and secret not in answer.text
    assert _last(sb, uid).lastCmdType == "CHANGE_SUPPORT_PASSWORD"
    _run(sim, 20)
    last = _last(sb, uid)
    assert last.lastCmdCompletionStatus == "COMPLETED"
    station = sb.get(f"{BSS}/{uid}").json()
    assert station["supportPassword"] == {"lastChanged": last.lastCmdCompletionDate}
    conn = _db(sb).conn()
    dump = "\n".join(conn.iterdump())
    assert secret not in dump
    other = _stations(sb, "BASIC_STATION_LINUX")[0]
    assert "supportPassword" not in sb.get(f"{BSS}/{other}").json()
    refused = sb.post(f"{BSS}/{other}/admins/changeSupportPassword", json={"password": secret})
    assert refused.status_code == 400


def test_settings_antennas_and_rf_probe(sb: Sandbox) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    settings = sb.put(
        f"{BSS}/{uid}/admins/settings",
        json={"activateBeaconTransmission": True, "allowClassB": False, "occContext": {}},
    )
    assert settings.status_code == 200 and settings.json()["activateBeaconTransmission"] is True
    assert sb.get(f"{BSS}/{uid}").json()["activateBeaconTransmission"] is True
    ants = sb.get(f"{BSS}/{uid}/ants").json()["briefs"]
    assert ants and ants[0]["href"].endswith("/ants/0")
    one = sb.get(f"{BSS}/{uid}/ants/0").json()
    changed = sb.put(f"{BSS}/{uid}/ants/0", json=one | {"altitudeAboveGround": 25})
    assert changed.status_code == 200 and changed.json()["altitudeAboveGround"] == 25
    bad = sb.put(f"{BSS}/{uid}/ants/0", json={"altitudeAboveGround": 500})
    assert bad.status_code == 400 and "altitudeAboveGround" in bad.json()["message"]
    cleared = sb.put(f"{BSS}/{uid}/ants/0", json={"altitudeAboveGround": -1}).json()
    assert "altitudeAboveGround" not in cleared
    assert sb.get(f"{BSS}/{uid}/ants/9").status_code == 404
    assert sb.put(f"{BSS}/{uid}/rfProbe", json={"enabled": False}).json() == {"enabled": False}
    assert sb.get(f"{BSS}/{uid}").json()["rfProbe"] == {"enabled": False}
    assert sb.put(f"{BSS}/{uid}/rfProbe", json={"enabled": True}).json() == {"enabled": True}


def test_an_hour_of_reports_and_radio_traffic(sb: Sandbox, sim: Simulator) -> None:
    _run(sim, 3600, step=60)
    conn = _db(sb).conn()
    heard = conn.execute(
        "SELECT bs_uid, count(*) FROM station_devices GROUP BY bs_uid ORDER BY 2 DESC"
    ).fetchall()
    assert heard, "devices near the demo stations are heard"
    linux = set(_stations(sb, "LRR_LINUX"))
    uid = next(bs for bs, _n in heard if bs in linux)  # a Basic Station reports no sys/
    cpu = CpuRecord.model_validate(sb.get(f"{BSS}/{uid}/sys/cpu").json())
    assert cpu.minCPU and cpu.maxCPU and cpu.minCPU.value <= cpu.maxCPU.value  # type: ignore[operator]
    history = CpuHistory.model_validate(
        sb.get(f"{BSS}/{uid}/sys/cpu/histories", params={"duration": "PT6H"}).json()
    )
    assert history.briefs and all(0 <= b.avgCPU <= b.maxCPU <= 100 for b in history.briefs)
    for path in ("sys/ram", "sys/disks/0", "sys/ram/histories", "sys/disks/0/histories",
                 "wans/ints/0", "wans/ints/0/roundTrips", "wans/indicators"):  # fmt: skip
        assert sb.get(f"{BSS}/{uid}/{path}").status_code == 200, path
    assert sb.get(f"{BSS}/{uid}/sys/disks/3").status_code == 404
    inds = Indicators.model_validate(sb.get(f"{BSS}/{uid}/rfcell/indicators").json())
    assert (inds.value("urcv") or 0) > 0
    served = ServedDevices.model_validate(sb.get(f"{BSS}/{uid}/rfcell/servedDevices").json())
    assert served.count > 0 and served.devices
    device = served.devices[0]
    assert -140 < device.rssi < 0 and device.name and device.href
    assert any(lrr.lrrID == device.lrrID for lrr in served.lrrs)
    best = sb.get(f"{BSS}/{uid}/rfcell/servedDevices", params={"bsRank": 1}).json()
    assert best["count"] <= served.count
    # The device says which stations heard it, best first, as the served list does.
    served_uid = device.href.rsplit("/", 1)[1]  # type: ignore[union-attr]
    lrrs = sb.get(f"{API}/subscriptions/mine/devices/{served_uid}").json()["LRRs"]
    assert (
        lrrs
        and len(lrrs) <= 3
        and [x["SNR"] for x in lrrs] == sorted((x["SNR"] for x in lrrs), reverse=True)
    )
    assert lrrs[0]["ID"] == device.lrrID
    frames = StationFrames.model_validate(
        sb.get(f"{BSS}/{uid}/rfProbe/frames", params={"duration": "PT2H"}).json()
    )
    assert sum(frames.series()[1]) > 0


def test_usage_alarms_carry_the_percentage(
    sb: Sandbox, sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    uid = _stations(sb, "LRR_LINUX")[0]
    normal = station_sim.StationSimulator.levels_of

    def hot(self: station_sim.StationSimulator, uids: Any) -> tuple[list[float], ...]:
        cpu, ram, disk = normal(self, uids)
        for i, bs in enumerate(uids.tolist()):
            if bs == uid:
                cpu[i], ram[i], disk[i] = 97.0, 96.0, 95.0
        return cpu, ram, disk

    monkeypatch.setattr(station_sim.StationSimulator, "levels_of", hot)
    _run(sim, 5 * 3600, step=300)  # the load climbs from its usual level
    alarms = _open_alarms(sb, uid)
    assert {106, 107} <= set(alarms)
    _run(sim, 6 * 3600, step=600)  # a disk fills slowly
    alarms = _open_alarms(sb, uid)
    assert {106, 107, 108} <= set(alarms)
    assert 85 <= int(alarms[106]["addInfo2"]) <= 100
    station = sb.get(f"{BSS}/{uid}").json()
    assert station["cpu"] > 80 and station["alarm5"] >= 3
    monkeypatch.setattr(station_sim.StationSimulator, "levels_of", normal)
    _run(sim, 6 * 3600, step=300)
    assert not {106, 107} & set(_open_alarms(sb, uid))


def test_outage_raises_and_clears_102(
    sb: Sandbox, sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = _db(sb).conn()

    def down() -> set[int]:
        rows = conn.execute(
            "SELECT uid FROM stations WHERE cnx_state = 'DISC' AND state = 'ACTIVE'"
        )
        return {uid for (uid,) in rows}

    def alarmed() -> set[int]:
        rows = conn.execute("SELECT bs_uid FROM station_alarms WHERE alarm_id = 102 AND state > 1")
        return {uid for (uid,) in rows}

    already = down()  # the demo's disconnected stations stay away for hours
    started = sim.now_ms
    # Every station, the flaky-backhaul ones too (station_trouble: their own, higher chance).
    monkeypatch.setattr(station_sim, "OUTAGE_CHANCE", 1.0)
    monkeypatch.setattr(station_trouble, "FLAKY_OUTAGE_CHANCE", 1.0)
    _run(sim, 360, step=60)
    monkeypatch.setattr(station_sim, "OUTAGE_CHANCE", 0.0)
    monkeypatch.setattr(station_trouble, "FLAKY_OUTAGE_CHANCE", 0.0)
    dropped = down() - already
    _run(sim, 60, step=15)  # 102 is raised 30 s into an outage (an outage lasts 1 min or more)
    raised = conn.execute(
        "SELECT bs_uid FROM station_alarms WHERE alarm_id = 102 AND created >= ?", (started,)
    )
    assert dropped and dropped <= {uid for (uid,) in raised}
    _run(sim, 40 * 60, step=60)
    assert not (down() - already) and not (alarmed() & dropped)
    back = min(dropped)
    wan = json.loads(
        conn.execute("SELECT counters FROM station_runtime WHERE bs_uid = ?", (back,)).fetchone()[0]
    )
    assert wan["wan"]["cnx"][0] >= 1


def test_neighbouring_stations_report_in_the_same_second_spread_over_the_cycle() -> None:
    import numpy as np

    phases = station_sim.report_phases(1, np.arange(100_000, dtype=np.int64))
    seconds = phases // 1000
    block = station_sim.REPORT_BLOCK
    assert len(set(seconds[:block].tolist())) == 1 and seconds[block] != seconds[0]
    assert ((phases >= 0) & (phases < station_sim.REPORT_MS)).all()
    per_second = np.bincount(seconds, minlength=station_sim.REPORT_MS // 1000)
    assert per_second.min() > 0 and per_second.max() <= 2 * per_second.mean()
    # Each at its own millisecond within its second.
    assert len(set(phases[:block].tolist())) > block // 2


def test_command_history_keeps_every_command_newest_first(sb: Sandbox, sim: Simulator) -> None:
    """The sandbox's own commandHistory: lastCmdStatus keeps only the last command."""
    uid = _stations(sb, "LRR_LINUX")[0]
    for command in ("reboot", "restart"):
        answer = sb.post(f"{BSS}/{uid}/admins/{command}", json={}, params={"force": "true"})
        assert answer.status_code == 201, answer.text
    answer = sb.get(f"{BSS}/{uid}/admins/commandHistory", params={"limit": 5})
    assert answer.status_code == 200, answer.text
    commands = answer.json()["commands"]
    assert [c["lastCmdType"] for c in commands[:2]] == ["RESTART", "REBOOT"], commands
    assert commands[0]["lastCmdID"] == _last(sb, uid).lastCmdID
    assert sb.get(f"{BSS}/{uid}/admins/commandHistory", params={"limit": 0}).status_code == 400
