"""Base station operations: the command queue (`station_commands`), what a station reports
beyond its `stations` row (`station_runtime`), the admin status readings, settings, the
support password (scrypt hash only) and the hardware description of a station's answer."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ...schema.station_admin import version_key
from ..db.sealing import scrypt_hash, scrypt_matches

# The LRR software versions the sandbox's repository offers (all UPTODATE).
LRR_VERSIONS = ("2.4.60", "2.6.15", "2.8.2", "3.0.1")
RF_REGION_NAMES = {"EU868": "Europe 863-870 MHz", "US915": "US 902-928 MHz",
                   "AS923": "Asia 923 MHz", "AU915": "Australia 915-928 MHz",
                   "IN865": "India 865-867 MHz", "KR920": "Korea 920-923 MHz"}  # fmt: skip
REPORT_EVERY_MS = 300_000  # a station reports its health every 5 minutes

_RUNTIME_DEFAULTS: dict[str, Any] = {
    "offline_until": None, "outage_until": None, "disk": None, "recorded_since": None,
    "rfcell_state": 2, "rf_scan_state": 0, "trace_level": 0, "trace_since": None,
    "location_type": 1, "backup_version": None, "backup_date": None,
    "last_system_reboot": None, "ssh_port": None, "beacon": 0, "rx2": 0, "ieee802154": 0,
    "support_pw_hash": None, "support_pw_changed": None, "chains": None, "fpga_keys": None,
    "rf_region_version": 1, "power_status": None, "battery": None, "counters": "{}",
    **{f"{what}_{edge}{ts}": None for what in ("cpu", "ram", "disk", "rtt")
       for edge in ("min", "max") for ts in ("", "_ts")},
}  # fmt: skip


# --- stations as the operations see them -----------------------------------------------------


def station(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    """The station columns operations need (the row exists: routes checked it)."""
    row = conn.execute(
        "SELECT uid, lrr_id, model, cnx_state, cnx_since, sw_version, last_reboot, lat, lon,"
        " alt, rf_region_id, last_up, rf_probe, health_state FROM stations WHERE uid = ?",
        (uid,),
    ).fetchone()
    return dict(row)


def runtime(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    """The station's runtime row, or the defaults of a station not yet simulated."""
    row = conn.execute("SELECT * FROM station_runtime WHERE bs_uid = ?", (uid,)).fetchone()
    return dict(row) if row is not None else {"bs_uid": uid, **_RUNTIME_DEFAULTS}


def ensure_runtime(conn: sqlite3.Connection, uid: int, now_ms: int) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO station_runtime (bs_uid, next_report, recorded_since)"
        " VALUES (?, ?, ?)",
        (uid, now_ms + REPORT_EVERY_MS, now_ms),
    )


def set_runtime(conn: sqlite3.Connection, uid: int, now_ms: int, **values: Any) -> None:
    ensure_runtime(conn, uid, now_ms)
    columns = ", ".join(f"{name} = ?" for name in values)
    conn.execute(f"UPDATE station_runtime SET {columns} WHERE bs_uid = ?", (*values.values(), uid))


def set_station(conn: sqlite3.Connection, uid: int, **values: Any) -> None:
    columns = ", ".join(f"{name} = ?" for name in values)
    conn.execute(f"UPDATE stations SET {columns} WHERE uid = ?", (*values.values(), uid))


# --- the command queue ------------------------------------------------------------------------


def create_command(
    conn: sqlite3.Connection,
    uid: int,
    *,
    command: str,
    cmd_type: str,
    params: dict[str, Any],
    data: str | None,
    now_ms: int,
    start_ms: int,
    run_ms: int | None,
    who: str,
) -> int:
    cur = conn.execute(
        "INSERT INTO station_commands (bs_uid, command, cmd_type, params, status, requested,"
        " due, run_ms, data, who) VALUES (?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?)",
        (uid, command, cmd_type, json.dumps(params), now_ms, now_ms + start_ms, run_ms, data, who),
    )
    return int(cur.lastrowid or 0)


def last_command(conn: sqlite3.Connection, uid: int) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT * FROM station_commands WHERE bs_uid = ? ORDER BY id DESC LIMIT 1", (uid,)
    ).fetchone()
    return dict(row) if row is not None else None


def commands(conn: sqlite3.Connection, uid: int, limit: int = 100) -> list[dict[str, Any]]:
    """The station's latest commands, newest first."""
    rows = conn.execute(
        "SELECT * FROM station_commands WHERE bs_uid = ? ORDER BY id DESC LIMIT ?", (uid, limit)
    )
    return [dict(r) for r in rows]


def due_commands(conn: sqlite3.Connection, until_ms: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT c.*, s.cnx_state, r.offline_until, r.outage_until FROM station_commands c"
        " JOIN stations s ON s.uid = c.bs_uid"
        " LEFT JOIN station_runtime r ON r.bs_uid = c.bs_uid"
        " WHERE c.due IS NOT NULL AND c.due <= ? ORDER BY c.due, c.id",
        (until_ms,),
    )
    return [dict(r) for r in rows]


def set_command(
    conn: sqlite3.Connection,
    cmd_id: int,
    status: str,
    at_ms: int,
    due_ms: int | None,
    completion_data: str | None = None,
    data: str | None = None,
) -> None:
    started = "coalesce(started, ?)" if status == "PROCESSING" else "started"
    completed = "?" if due_ms is None else "NULL"
    values: list[Any] = [status]
    if status == "PROCESSING":
        values.append(at_ms)
    if due_ms is None:
        values.append(at_ms)
    values += [due_ms, completion_data, data, cmd_id]
    conn.execute(
        f"UPDATE station_commands SET status = ?, started = {started}, completed = {completed},"
        " due = ?, completion_data = coalesce(?, completion_data), data = coalesce(?, data)"
        " WHERE id = ?",
        values,
    )


def running_command(conn: sqlite3.Connection, uid: int, command: str) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT * FROM station_commands WHERE bs_uid = ? AND command = ? AND due IS NOT NULL"
        " ORDER BY id DESC LIMIT 1",
        (uid, command),
    ).fetchone()
    return dict(row) if row is not None else None


def last_cmd_status(row: dict[str, Any] | None, now_ms: int) -> dict[str, Any]:
    """The wire shape of lastCmdStatus."""
    out: dict[str, Any] = {"now": now_ms}
    if row is None:
        return out
    out |= {
        "lastCmdType": row["cmd_type"],
        "lastCmdID": row["id"] % 2_147_483_647,
        "lastCmdRequestDate": row["requested"],
        "lastCmdCompletionStatus": row["status"],
        "lastCmdCompletionDate": row["completed"],
        "lastCmdData": row["data"],
        "lastCmdCompletionData": row["completion_data"],
    }
    return {k: v for k, v in out.items() if v is not None}


# --- support password -------------------------------------------------------------------------


def password_hash(password: str) -> str:
    """What is stored in place of the password."""
    return scrypt_hash(password)


def password_matches(stored: str, password: str) -> bool:
    return scrypt_matches(stored, password)


# --- status readings --------------------------------------------------------------------------


def available_versions(current: str | None) -> list[dict[str, Any]]:
    now_key = version_key(current or "0")
    return [
        {"version": v, "status": 0, "statusInfo": "Up to date",
         "package": f"lrr-{v}-linux.tar.gz"}
        for v in LRR_VERSIONS if version_key(v) > now_key
    ]  # fmt: skip


def version_status(version: str | None) -> dict[str, Any]:
    latest = version_key(LRR_VERSIONS[-1])
    key = version_key(version or "0")
    status = "UPTODATE" if key >= latest else "OUTDATED"
    if key < version_key(LRR_VERSIONS[0]):
        status = "DEPRECATED"
    info = {"UPTODATE": "Latest version", "OUTDATED": "A newer version is available",
            "DEPRECATED": "No longer supported: upgrade"}[status]  # fmt: skip
    return {"version": version, "status": status, "statusInfo": info}


def status_answer(conn: sqlite3.Connection, uid: int, name: str) -> dict[str, Any]:
    """The wire shape of admins/{name} for one of the status readings."""
    s = station(conn, uid)
    r = runtime(conn, uid)
    if name == "availableLrrVersions":
        return {"briefs": available_versions(s["sw_version"])}
    connected = s["cnx_state"] == "CNX"
    out: dict[str, Any] = {"completionStatus": "COMPLETED" if connected else "ERR_NOSTART"}
    if name == "backupSwVersion" and r["backup_version"]:
        # The last backup known, read while connected or not.
        out["backup"] = version_status(r["backup_version"]) | {"date": r["backup_date"]}
    if not connected:
        return out
    if name == "antennasGainAndLossStatus":
        chains = (
            json.loads(r["chains"])
            if r["chains"]
            else [{"index": 0, "gain": 2.0, "cableLoss": 0.5}]
        )
        out["chains"] = [c | {"name": f"Antenna {c['index']}"} for c in chains]
    elif name == "fineTimestampKeysStatus":
        out["fpgaBoards"] = json.loads(r["fpga_keys"]) if r["fpga_keys"] else []
    elif name == "locationStatus":
        location = {"type": r["location_type"], "latitude": s["lat"], "longitude": s["lon"],
                    "altitude": s["alt"]}  # fmt: skip
        out["location"] = {k: v for k, v in location.items() if v is not None}
    elif name == "logStatus":
        out |= {"traceLevel": r["trace_level"], "ramDirUsed": False}
        if r["trace_since"] is not None:
            out["traceSince"] = r["trace_since"]
    elif name == "rfRegionStatus":
        region = s["rf_region_id"]
        named = conn.execute("SELECT name FROM rf_regions WHERE ref = ?", (region,)).fetchone()
        name = named[0] if named else RF_REGION_NAMES.get(region or "", region)
        out["rfRegion"] = {"ID": region, "name": name,
                           "version": r["rf_region_version"]}  # fmt: skip
        out["rfRegion"] = {k: v for k, v in out["rfRegion"].items() if v is not None}
    elif name == "rfcStatus":
        out["rfcellState"] = r["rfcell_state"]
    elif name == "scanRadioStatus":
        out["rfScanState"] = r["rf_scan_state"]
    elif name == "softwareUptime":
        if s["last_reboot"] is not None:
            out["lastReboot"] = s["last_reboot"]
    elif name == "swVersion":
        out["version"] = version_status(s["sw_version"])
    elif name == "systemUptime":
        since = r["last_system_reboot"] or s["last_reboot"]
        if since is not None:
            out["lastsystemReboot"] = since
    return out


def settings_answer(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    r = runtime(conn, uid)
    return {
        "activateBeaconTransmission": bool(r["beacon"]),
        "activateRX2Optimization": bool(r["rx2"]),
        "activateSupportFor802_15_4": bool(r["ieee802154"]),
    }


def save_settings(conn: sqlite3.Connection, uid: int, now_ms: int, values: dict[str, bool]) -> None:
    columns = {"activateBeaconTransmission": "beacon", "activateRX2Optimization": "rx2",
               "activateSupportFor802_15_4": "ieee802154"}  # fmt: skip
    changes = {columns[k]: int(v) for k, v in values.items() if k in columns and v is not None}
    if changes:
        set_runtime(conn, uid, now_ms, **changes)


# --- the station answer's hardware description ------------------------------------------------


def hardware(conn: sqlite3.Connection, uid: int, software_type: str | None) -> dict[str, Any]:
    """mfs, lrcs, power, settings, uptime, RF cell state and supportPassword (LRR_LINUX only,
    with lastChanged once changed) for a station's full answer."""
    s = station(conn, uid)
    r = runtime(conn, uid)
    connected = s["cnx_state"] == "CNX"
    out: dict[str, Any] = {}
    if r["recorded_since"] is not None:  # reported at least once
        disk = r["disk"] if r["disk"] is not None else 30
        out["mfs"] = {"mfs": [{"name": "/", "used": disk}, {"name": "/tmp", "used": 2},
                              {"name": "/var/log", "used": min(100, disk // 2 + 5)}]}  # fmt: skip
        lrc_state = 2 if connected else 0
        out["lrcs"] = {"lrc": [
            {"name": "LRC1", "ID": "00000065", "address": "lrc1.sandbox.invalid",
             "state": lrc_state, "stateSince": s["cnx_since"], "lastCom": s["cnx_since"]},
            {"name": "LRC2", "ID": "00000066", "address": "lrc2.sandbox.invalid",
             "state": lrc_state, "stateSince": s["cnx_since"]},
        ]}  # fmt: skip
        out["power"] = {"status": r["power_status"] or 5} | (
            {"batteryLevel": r["battery"]} if r["battery"] is not None else {}
        )
        out["rfcellState"] = r["rfcell_state"] if connected else None
        out["rfScanState"] = r["rf_scan_state"]
        out["reverseSshState"] = 1 if r["ssh_port"] else 0
        out["lastSystemReboot"] = r["last_system_reboot"]
        out["locationType"] = r["location_type"]
    out |= {
        "activateBeaconTransmission": bool(r["beacon"]),
        "activateRX2Optimization": int(r["rx2"]),
        "activateSupportFor802_15_4": int(r["ieee802154"]),
    }
    if software_type == "LRR_LINUX":
        changed = r["support_pw_changed"]
        out["supportPassword"] = {"lastChanged": changed} if changed is not None else {}
    return {k: v for k, v in out.items() if v is not None}


# --- antennas ---------------------------------------------------------------------------------


def antennas(conn: sqlite3.Connection, uid: int, count: int) -> list[dict[str, Any]]:
    """The station's antennas 0..count-1: what was written over the profile's defaults, with
    gain and cable loss from the last updateAntennasGainAndLoss."""
    stored = {
        idx: json.loads(fields)
        for idx, fields in conn.execute(
            "SELECT idx, fields FROM station_antennas WHERE bs_uid = ? ORDER BY idx", (uid,)
        )
    }
    r = runtime(conn, uid)
    chains = {c["index"]: c for c in json.loads(r["chains"] or "[]")}
    out = []
    for idx in range(count):
        chain = chains.get(idx, {"gain": 2.0, "cableLoss": 0.5})
        item: dict[str, Any] = {
            "index": idx, "name": f"Antenna {idx}", "type": "OMNI", "used": True,
            "gain": chain["gain"], "cableLoss": chain["cableLoss"],
            "environment": "UNDEFINED", "installMode": "UNDEFINED",
            "rx1": {"maxTxPower": 27.0, "effectiveTxPower": 27.0 - chain["cableLoss"]},
            "rx2": {"maxTxPower": 27.0, "effectiveTxPower": 27.0 - chain["cableLoss"]},
        }  # fmt: skip
        item |= stored.get(idx, {})
        out.append({k: v for k, v in item.items() if v is not None})
    return out


CLEAR_VALUES = (-1, -999)


def occ_context(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    """The station's occContext, which its antennas answer too (the reference requires one;
    deprecated for an antenna, §2.4, so an antenna's PUT does not move it on)."""
    version, last_update, who = conn.execute(
        "SELECT version, last_update, who FROM stations WHERE uid = ?", (uid,)
    ).fetchone()
    return {"version": version, "lastUpdate": last_update, "who": who}


def save_antenna(conn: sqlite3.Connection, uid: int, idx: int, values: dict[str, Any]) -> None:
    """Merge `values` into the antenna's stored fields; -1 (-999 for a position) clears."""
    row = conn.execute(
        "SELECT fields FROM station_antennas WHERE bs_uid = ? AND idx = ?", (uid, idx)
    ).fetchone()
    fields = json.loads(row[0]) if row else {}
    for name, value in values.items():
        if value in CLEAR_VALUES and name not in ("clearance", "info1", "info2", "info3"):
            fields.pop(name, None)
        else:
            fields[name] = value
    conn.execute(
        "INSERT OR REPLACE INTO station_antennas VALUES (?, ?, ?)", (uid, idx, json.dumps(fields))
    )


def set_rf_probe(conn: sqlite3.Connection, uid: int, enabled: bool) -> None:
    conn.execute("UPDATE stations SET rf_probe = ? WHERE uid = ?", (int(enabled), uid))
