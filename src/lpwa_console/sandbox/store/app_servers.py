"""Application servers of a subscription (both scopes; OPERATOR ones are seeded).

`deviceCount` and `multicastGroupCount` count direct associations (not through AS routing
profiles) and, for a user with domain restrictions, only the devices and groups those let
them see (the reference's rule). `baseStationCount` and `rfProbeCount` (base stations and RF
probes directly associated with the server) are not returned: the sandbox keeps no base
station or RF probe inventory (the partner interface of Document 2), so it has nothing to
count, and a constant would be a claim it cannot back.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from typing import Any

from ...schema.domains import DomainRestrictions
from . import devices as device_store
from . import multicast as group_store
from .filters import restriction_sql

BASE_HREF = "/subscriptions/mine/appServers"


def rows(conn: sqlite3.Connection, sub: int, ids: list[int] | None = None) -> list[sqlite3.Row]:
    sql = "SELECT * FROM app_servers WHERE subscription_id = ?"
    params: list[Any] = [sub]
    if ids is not None:
        sql += f" AND id IN ({', '.join('?' * len(ids)) or 'NULL'})"
        params += ids
    return conn.execute(sql + " ORDER BY id", params).fetchall()


def domains(conn: sqlite3.Connection, ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    out: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for sid, grp, name in conn.execute(
        "SELECT l.app_server_id, dm.grp, dm.name FROM app_server_domains l"
        f" JOIN domains dm ON dm.id = l.domain_id WHERE l.app_server_id IN"
        f" ({', '.join('?' * len(ids)) or 'NULL'}) ORDER BY dm.grp",
        ids,
    ):
        out[sid].append((grp, name))
    return out


def counts(
    conn: sqlite3.Connection, ids: list[int], restrictions: DomainRestrictions | None = None
) -> tuple[dict[int, int], dict[int, int]]:
    """(devices, multicast groups) directly associated with each server, of those the
    domain restrictions let the caller see."""
    marks = ", ".join("?" * len(ids)) or "NULL"
    device_sql, device_params = restriction_sql(restrictions)
    devices = dict(
        conn.execute(
            "SELECT l.app_server_id, count(*) FROM device_app_servers l"
            " JOIN devices d ON d.uid = l.device_uid"
            f" WHERE l.app_server_id IN ({marks}) AND {device_sql} GROUP BY l.app_server_id",
            [*ids, *device_params],
        ).fetchall()
    )
    group_sql, group_params = group_store.restriction_sql(restrictions)
    groups = dict(
        conn.execute(
            "SELECT l.app_server_id, count(*) FROM multicast_group_app_servers l"
            " JOIN multicast_groups g ON g.uid = l.group_uid"
            f" WHERE l.app_server_id IN ({marks}) AND {group_sql} GROUP BY l.app_server_id",
            [*ids, *group_params],
        ).fetchall()
    )
    return devices, groups


def brief(
    row: sqlite3.Row,
    doms: list[tuple[str, str]],
    device_count: int,
    group_count: int,
    *,
    full: bool = False,
) -> dict[str, Any]:
    operator = row["scope"] == "OPERATOR"
    item: dict[str, Any] = {
        "ID": row["ref"],
        "name": row["name"],
        "scope": row["scope"],
        "href": f"{BASE_HREF}/{row['id']}" if not operator else None,
        "healthState": row["health_state"],
        "deviceCount": device_count,
        "multicastGroupCount": group_count,
        "domains": [{"name": n, "group": {"name": g}} for g, n in doms],
    }
    if not operator:
        item |= {
            "type": row["type"],
            "state": row["state"],
            "validationState": row["validation_state"],
        }
    if full:
        item["destinations"] = json.loads(row["destinations"])
        item["customHttpHeaders"] = json.loads(row["custom_headers"])
        item["flowMatcherTags"] = json.loads(row["flow_matcher_tags"])
        if not operator:
            item["contentType"] = row["content_type"]
            item["downlinkSecurity"] = security(row)
            item["occContext"] = occ(row)
    return item


def security(row: sqlite3.Row) -> dict[str, Any]:
    out: dict[str, Any] = {"status": row["security_status"]}
    if row["security_status"] != "NONE":
        out |= {
            "asID": row["security_as_id"],
            "maxTimestampDeviation": row["security_max_deviation"],
        }
    return out


def occ(row: sqlite3.Row) -> dict[str, Any]:
    return {"version": row["version"], "lastUpdate": row["last_update"], "who": row["who"]}


def set_domains(conn: sqlite3.Connection, sub: int, sid: int, pairs: list[tuple[str, str]]) -> None:
    conn.execute("DELETE FROM app_server_domains WHERE app_server_id = ?", (sid,))
    conn.executemany(
        "INSERT OR IGNORE INTO app_server_domains VALUES (?, ?)",
        [(sid, device_store.domain_id(conn, sub, g, n)) for g, n in pairs],
    )


def metrics(conn: sqlite3.Connection, sid: int, now: int) -> dict[str, int]:
    """Traffic of the devices routed to this server over the last hour and day."""
    out: dict[str, int] = {}
    for label, span in (("1h", 3_600_000), ("24h", 86_400_000)):
        active, up, dw = conn.execute(
            "SELECT count(DISTINCT f.device_uid), coalesce(sum(f.up), 0), coalesce(sum(f.dw), 0)"
            " FROM frame_buckets f JOIN device_app_servers l ON l.device_uid = f.device_uid"
            " WHERE l.app_server_id = ? AND f.ts >= ? AND f.ts < ? AND f.up > 0",
            (sid, now - span - now % 3_600_000, now),
        ).fetchone()
        out |= {
            f"activeThingsLast{label}": active,
            f"uplinksLast{label}": up,
            f"uplinksLast{label}Failed": up // 200,
            f"downlinksLast{label}": dw,
            f"downlinksLast{label}Failed": dw // 50,
        }
    return out
