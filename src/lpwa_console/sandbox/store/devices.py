"""Devices: SQL for lists, single devices, creation, update, tags and clusters.

Functions return plain dicts in the wire shape of schema.devices (DeviceBrief, Device);
the routes validate them through their response models.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...schema.common import app_server_href, deprecated_value
from ...schema.devices import (
    AlarmsConfiguration,
    DeviceCreate,
    DeviceFilter,
    DeviceUpdate,
    default_alarm004,
)
from ...schema.domains import DomainRestrictions
from ..db.sealing import seal
from . import domains as domain_store
from . import subscription as subscription_store
from .clusters import DEVICE_SOURCE, cluster_answer, cluster_rows
from .domains import DEVICE_DOMAINS
from .filters import Where, device_restriction_sql, device_where

BASE_HREF = "/subscriptions/mine/devices"

SORT_COLUMNS: dict[str, str] = {
    "name": "d.name",
    "EUI": "d.eui",
    "creationDate": "d.creation_date",
    "lastUpTimestamp": "d.last_up",
    "lastDwTimestamp": "d.last_dw",
    "lastSF": "d.last_sf",
    "avgSNR": "d.avg_snr",
    "lastBatLevel": "d.last_bat",
}

_BRIEF_COLUMNS = """
    d.*, m.ref AS model_ref, m.commercial_name AS model_name, m.connectivity AS model_conn,
    v.ref AS vendor_ref, v.name AS vendor_name
"""


@dataclass(frozen=True)
class Page:
    uids: list[int]
    more: bool


# --- lists --------------------------------------------------------------------------------


def list_uids(
    conn: sqlite3.Connection,
    where: Where,
    *,
    sort: str,
    descending: bool,
    offset: int,
    limit: int,
    after_eui: str | None = None,
) -> Page:
    """One page of device UIDs. The uid list comes from a covering index alone; the rows
    themselves are read afterwards for the page only (cheap deep pages)."""
    column = SORT_COLUMNS[sort]
    direction = "DESC" if descending else "ASC"
    clauses, params = where.sql(), list(where.params)
    if after_eui is not None:
        clauses += f" AND d.eui {'<' if descending else '>'} ?"
        params.append(after_eui)
        offset = 0
    order = f"{column} {direction}" + ("" if sort == "EUI" else f", d.uid {direction}")
    rows = conn.execute(
        f"SELECT d.uid FROM devices d WHERE {clauses} ORDER BY {order} LIMIT ? OFFSET ?",
        [*params, limit + 1, offset],
    ).fetchall()
    uids = [r[0] for r in rows]
    return Page(uids[:limit], len(uids) > limit)


def count(conn: sqlite3.Connection, where: Where) -> int:
    return int(
        conn.execute(
            f"SELECT count(*) FROM devices d WHERE {where.sql()}", where.params
        ).fetchone()[0]
    )


def total(
    conn: sqlite3.Connection, subscription_id: int, restrictions: DomainRestrictions | None
) -> int:
    """The count of an unfiltered list (what `count` gives for no filter), from the counts
    kept per domain set (migration 10) instead of a pass over the devices."""
    sql, params = device_restriction_sql(restrictions, "c.domain_set")
    return int(
        conn.execute(
            f"SELECT coalesce(sum(c.n), 0) FROM device_counts c WHERE c.subscription_id = ?"
            f" AND {sql}",
            [subscription_id, *params],
        ).fetchone()[0]
    )


def _tag_href(uid: int, tag_id: int) -> str:
    return f"{BASE_HREF}/{uid}/tags/{tag_id}"


def briefs(
    conn: sqlite3.Connection, uids: Sequence[int], *, full: bool = False
) -> list[dict[str, Any]]:
    """The devices `uids` in that order, with tags, domains and application servers."""
    if not uids:
        return []
    marks = ", ".join("?" * len(uids))
    cursor = conn.execute(
        f"SELECT {_BRIEF_COLUMNS} FROM devices d LEFT JOIN device_models m ON m.id = d.model_id"
        f" LEFT JOIN device_vendors v ON v.id = m.vendor_id WHERE d.uid IN ({marks})",
        list(uids),
    )
    # Plain dicts: sqlite3.Row finds a name by comparing it with every column name in turn,
    # and a brief reads some 35 of the 50 columns (that was most of a page's time).
    names = [column[0] for column in cursor.description]
    rows = {r["uid"]: r for r in (dict(zip(names, row, strict=True)) for row in cursor)}
    tags: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for uid, tag_id, name in conn.execute(
        "SELECT dt.device_uid, t.id, t.name FROM device_tags dt JOIN tags t ON t.id = dt.tag_id"
        f" WHERE dt.device_uid IN ({marks}) ORDER BY t.name",
        list(uids),
    ):
        tags[uid].append({"name": name, "href": _tag_href(uid, tag_id)})
    domains: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for uid, group, name in conn.execute(
        "SELECT dd.device_uid, dm.grp, dm.name FROM device_domains dd"
        f" JOIN domains dm ON dm.id = dd.domain_id WHERE dd.device_uid IN ({marks})"
        " ORDER BY dm.grp",
        list(uids),
    ):
        domains[uid].append({"name": name, "group": {"name": group}})
    servers: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for uid, row_id, ref, name, scope in conn.execute(
        "SELECT da.device_uid, a.id, a.ref, a.name, a.scope FROM device_app_servers da"
        f" JOIN app_servers a ON a.id = da.app_server_id WHERE da.device_uid IN ({marks})"
        " ORDER BY a.ref",
        list(uids),
    ):
        servers[uid].append({"ID": ref, "name": name, "href": app_server_href(row_id, ref, scope)})
    histories = _histories(conn, rows)
    out = []
    for uid in uids:
        row = rows.get(uid)
        if row is None:
            continue
        item = _brief(row, tags[uid], domains[uid], servers[uid]) | histories[uid]
        if full:
            item.update(_details(conn, row))
        out.append(item)
    return out


HISTORY_SLOT_MS = 2 * 3_600_000
HISTORY_SLOTS = 12


def _histories(
    conn: sqlite3.Connection, rows: Mapping[int, Mapping[str, Any]]
) -> dict[int, dict[str, Any]]:
    """`historyUpDaily` and `historyDwDaily` of each device: its uplinks (downlinks) per
    2-hour slot over the 24 hours before its last uplink (downlink), oldest first, from the
    hourly traffic buckets (an hour counts in the slot holding its start). One query."""
    span = HISTORY_SLOT_MS * HISTORY_SLOTS
    ends = {uid: (row["last_up"], row["last_dw"]) for uid, row in rows.items()}
    up = {uid: [0] * HISTORY_SLOTS for uid in rows}
    dw = {uid: [0] * HISTORY_SLOTS for uid in rows}
    windows = [[uid, max(e for e in pair if e) - span] for uid, pair in ends.items() if any(pair)]
    for uid, ts, n_up, n_dw in conn.execute(
        "WITH w(uid, since) AS (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]')"
        " FROM json_each(?)) SELECT f.device_uid, f.ts, f.up, f.dw FROM w"
        " JOIN frame_buckets f ON f.device_uid = w.uid AND f.ts >= w.since",
        (json.dumps(windows),),
    ):
        for counts, end, n in ((up[uid], ends[uid][0], n_up), (dw[uid], ends[uid][1], n_dw)):
            if n and end and end - span <= ts <= end:
                counts[min(HISTORY_SLOTS - 1, (ts - end + span) // HISTORY_SLOT_MS)] += n
    return {
        uid: {"historyUpDaily": {"val": up[uid]}, "historyDwDaily": {"val": dw[uid]}}
        for uid in rows
    }


def logo_href(ref: str) -> str:
    """A catalog item's logo, as a station's model and vendor give theirs."""
    return f"/logos/{ref.lower()}.png"


def _brief(
    row: Mapping[str, Any],
    tags: list[dict[str, Any]],
    domains: list[dict[str, Any]],
    servers: list[dict[str, Any]],
) -> dict[str, Any]:
    alarms = [row[f"alarm{i}"] for i in range(1, 7)]
    item: dict[str, Any] = {
        "EUI": row["eui"],
        "name": row["name"],
        "connectivity": row["connectivity"],
        "ref": str(row["uid"]),
        "href": f"{BASE_HREF}/{row['uid']}",
        "activation": row["activation"],
        "healthState": row["health"],
        "creationDate": row["creation_date"],
        "tags": tags,
        "domains": domains,
        "appServers": servers,
        **{f"alarm{i}": n for i, n in enumerate(alarms, start=1)},
        "alarmLevel": row["alarm_level"],
        "alarmCount": sum(alarms),
        "lastUpTimestamp": row["last_up"],
        "lastDwTimestamp": row["last_dw"],
        "lastSF": row["last_sf"],
        "lastRSSI": row["last_rssi"],
        "lastSNR": row["last_snr"],
        "avgSNR": row["avg_snr"],
        "lastBatLevel": row["last_bat"],
        "lat": row["lat"],
        "lon": row["lon"],
        "nwAddress": row["nw_address"],
        "customerAdminData": row["customer_admin_data"],
        "networkContextID": row["network_context_id"],
        "lastIMEI": row["last_imei"],
        "imsi": row["imsi"],
        "iccid": row["iccid"],
    }
    if row["model_ref"]:
        model = {"ID": row["model_ref"], "commercialName": row["model_name"]}
        model["connectivity"] = row["model_conn"]
        model["logo"] = logo_href(row["model_ref"])
        item["model"] = {k: v for k, v in model.items() if v is not None}
    # The model's vendor, as the device profiles name it (a model without one: "generic").
    vendor = row["vendor_ref"] or "generic"
    item["vendor"] = {"commercialName": row["vendor_name"] or "Generic", "logo": logo_href(vendor)}
    if row["marker_id"] is not None:
        item["markerID"] = row["marker_id"]
    # No null members: a list answers with these dicts as they are (`wire_json`).
    return {k: v for k, v in item.items() if v is not None}


def _details(conn: sqlite3.Connection, row: Mapping[str, Any]) -> dict[str, Any]:
    """The fields only a single device carries (Device beyond DeviceBrief)."""
    out: dict[str, Any] = {
        "appEUI": row["app_eui"],
        "hsmGroupID": row["hsm_group_id"],
        "adminLat": row["admin_lat"],
        "adminLon": row["admin_lon"],
        "eid": row["eid"],
        "alarmsConfiguration": {
            "alarm004": json.loads(row["alarm004"]) if row["alarm004"] else None
        },
    }
    from .station_monitoring import device_lrrs  # not imported at start (issue 8)

    lrrs = device_lrrs(conn, row["uid"])
    if lrrs:
        out["LRRs"] = lrrs
    sub = row["subscription_id"]
    if row["as_transport_key"]:
        out["asTransportKey"] = _named(conn, "as_transport_keys", sub, row["as_transport_key"])
    if row["routing_profile_id"] is not None:
        profile = conn.execute(
            "SELECT ref, name, as_transport_key FROM routing_profiles WHERE id = ?",
            (row["routing_profile_id"],),
        ).fetchone()
        if profile:
            out["appServersRoutingProfile"] = {
                "ID": profile["ref"],
                "name": profile["name"],
                "lorawanAsTransportKey": _named(
                    conn, "as_transport_keys", sub, profile["as_transport_key"]
                )
                if profile["as_transport_key"]
                else None,
            }
    return out


def _named(conn: sqlite3.Connection, table: str, sub: int, ref: str) -> dict[str, Any]:
    row = conn.execute(
        f"SELECT name FROM {table} WHERE subscription_id = ? AND ref = ?", (sub, ref)
    ).fetchone()
    return {"ID": ref, "name": row[0] if row else None}


# --- single devices -----------------------------------------------------------------------


def find_uid(
    conn: sqlite3.Connection,
    subscription_id: int,
    *,
    uid: int | None = None,
    eui: str | None = None,
) -> int | None:
    if uid is not None:
        row = conn.execute(
            "SELECT uid FROM devices WHERE uid = ? AND subscription_id = ?", (uid, subscription_id)
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT uid FROM devices WHERE subscription_id = ? AND eui = ?", (subscription_id, eui)
        ).fetchone()
    return int(row[0]) if row else None


def eui_of(conn: sqlite3.Connection, uid: int) -> str:
    return str(conn.execute("SELECT eui FROM devices WHERE uid = ?", (uid,)).fetchone()[0])


def connectivity_of(conn: sqlite3.Connection, uid: int) -> str:
    return str(conn.execute("SELECT connectivity FROM devices WHERE uid = ?", (uid,)).fetchone()[0])


def domains_of(conn: sqlite3.Connection, uid: int) -> list[tuple[str, str]]:
    return domain_store.domains_of(conn, DEVICE_DOMAINS, uid)


def eui_taken(conn: sqlite3.Connection, eui: str) -> bool:
    """Whether a device of any subscription has this EUI: one network routes a join or an
    uplink by its EUI, so the platform refuses a second one wherever it would be."""
    row = conn.execute("SELECT 1 FROM devices WHERE eui = ? LIMIT 1", (eui.upper(),)).fetchone()
    return row is not None


def ref_id(conn: sqlite3.Connection, table: str, subscription_id: int, ref: str) -> int | None:
    row = conn.execute(
        f"SELECT id FROM {table} WHERE subscription_id = ? AND ref = ?", (subscription_id, ref)
    ).fetchone()
    return int(row[0]) if row else None


# Device fields that name another resource of the subscription by its ID: (table, field).
REFERENCE_FIELDS = (("network_contexts", "networkContextID"), ("hsm_groups", "hsmGroupID"))


def unknown_references(
    conn: sqlite3.Connection, subscription_id: int, body: DeviceCreate | DeviceUpdate
) -> list[str]:
    """`field: unknown ID x` for each reference `body` sets (a cellular network context, an
    HSM group) that the subscription does not have. Clearing one (null) is always fine."""
    problems: list[str] = []
    for table, name in REFERENCE_FIELDS:
        value = getattr(body, name)
        given = name in body.model_fields_set and value is not None
        if given and ref_id(conn, table, subscription_id, value) is None:
            problems.append(f"{name}: unknown ID {value}")
    return problems


def hsm_refusal(
    conn: sqlite3.Connection, subscription_id: int, body: DeviceCreate | DeviceUpdate
) -> str | None:
    """`hsmGroupID: <reason>` when `body` sets an HSM group and the subscription's option
    hsm is DEACTIVATED (clearing one, null, is always fine)."""
    given = "hsmGroupID" in body.model_fields_set and body.hsmGroupID is not None
    if given and subscription_store.hsm_deactivated(conn, subscription_id):
        return f"hsmGroupID: {subscription_store.HSM_DEACTIVATED}"
    return None


@dataclass(frozen=True)
class RoutingProfileRef:
    """An AS routing profile a device may point to: its row id and its connectivity."""

    id: int
    ref: str
    connectivity: str


def routing_profile(
    conn: sqlite3.Connection, subscription_id: int, ref: str
) -> RoutingProfileRef | None:
    """The subscription's AS routing profile `ref`, or None when it has no such profile."""
    row = conn.execute(
        "SELECT id, connectivity FROM routing_profiles WHERE subscription_id = ? AND ref = ?",
        (subscription_id, ref),
    ).fetchone()
    return RoutingProfileRef(int(row[0]), ref, row[1]) if row else None


def routing_profile_mismatch(profile: RoutingProfileRef, connectivity: str) -> str | None:
    """Why a device of `connectivity` cannot use `profile` (`appServersRoutingProfile: ...`),
    or None when it can: a LoRaWAN device needs a LoRaWAN profile, a cellular one a cellular
    profile. The one compatibility rule of PUT /devices/{id} and the import."""
    if profile.connectivity == connectivity:
        return None
    return (
        f"appServersRoutingProfile: {profile.ref} is a {profile.connectivity} routing profile;"
        f" a {connectivity} device cannot use it"
    )


def model_id(conn: sqlite3.Connection, ref: str) -> int | None:
    row = conn.execute("SELECT id FROM device_models WHERE ref = ?", (ref,)).fetchone()
    return int(row[0]) if row else None


def connectivity(conn: sqlite3.Connection, uid: int) -> str:
    row = conn.execute("SELECT connectivity FROM devices WHERE uid = ?", (uid,)).fetchone()
    return str(row[0]) if row else ""


def tag_id(
    conn: sqlite3.Connection, subscription_id: int, name: str, *, create: bool
) -> int | None:
    row = conn.execute(
        "SELECT id FROM tags WHERE subscription_id = ? AND name = ?", (subscription_id, name)
    ).fetchone()
    if row:
        return int(row[0])
    if not create:
        return None
    cur = conn.execute(
        "INSERT INTO tags (subscription_id, name) VALUES (?, ?)", (subscription_id, name)
    )
    return int(cur.lastrowid or 0)


def insert(conn: sqlite3.Connection, values: dict[str, Any]) -> int:
    columns = ", ".join(values)
    marks = ", ".join("?" * len(values))
    cur = conn.execute(f"INSERT INTO devices ({columns}) VALUES ({marks})", list(values.values()))
    return int(cur.lastrowid or 0)


_DEFAULT_ALARM004 = json.dumps([t.model_dump() for t in default_alarm004()])


def alarm004_json(config: AlarmsConfiguration | None) -> str:
    """The `alarm004` column: the thresholds given, or the default ones."""
    thresholds = config.alarm004 if config else None
    return json.dumps([t.model_dump() for t in thresholds]) if thresholds else _DEFAULT_ALARM004


def cellular_ip(uid: int) -> str:
    """A cellular device's IP address (its `nwAddress`, the operator list's `devAddr`;
    Document 2 §2.2), which the network gives it: 10.0.0.0/8 by UID, so no two devices share
    one (below 2^24 devices; the sandbox keeps no leases)."""
    return f"10.{(uid >> 16) & 255}.{(uid >> 8) & 255}.{uid & 255}"


def create(
    conn: sqlite3.Connection,
    subscription_id: int,
    body: DeviceCreate,
    *,
    now: int,
    model_id: int | None = None,
    routing_profile_id: int | None = None,
    domains: Sequence[tuple[str, str]] = (),
    app_servers: Sequence[int] = (),
) -> int:
    """Insert the device `body` describes, with its tags, domains and application servers;
    returns its UID. The caller has checked what it reports in its own way (HTTP error or
    refused import row): that the EUI is new, the domains allowed, and resolved the IDs of
    the model, routing profile and application servers."""
    marker = deprecated_value(body, "markerID")
    cellular = body.connectivity == "CELLULAR"
    # A cellular device gets its IP address with its UID (the one SQLite would give it).
    next_uid = int(conn.execute("SELECT coalesce(max(uid), 0) + 1 FROM devices").fetchone()[0])
    uid = insert(
        conn,
        {
            **({"uid": next_uid} if cellular else {}),
            "subscription_id": subscription_id,
            "eui": body.EUI,
            "name": body.name or body.EUI,
            "connectivity": body.connectivity,
            "activation": body.activation,
            "model_id": model_id,
            "health": "INIT",
            "creation_date": now,
            "lat": body.adminLat,
            "lon": body.adminLon,
            "admin_lat": body.adminLat,
            "admin_lon": body.adminLon,
            "nw_address": cellular_ip(next_uid) if cellular else body.nwAddress,
            "app_eui": body.appEUI,
            "app_key": seal(conn, body.appKey),  # stored sealed, never returned
            "app_skey": seal(conn, body.effective_app_skey()),
            "as_transport_key": body.asTransportKey.ID if body.asTransportKey else None,
            "hsm_group_id": body.hsmGroupID,
            "routing_profile_id": routing_profile_id,
            "customer_admin_data": body.customerAdminData,
            "network_context_id": body.networkContextID,
            "last_imei": body.EUI if body.connectivity == "CELLULAR" else None,
            "imsi": body.imsi,
            "iccid": body.iccid,
            "eid": body.eid,
            "alarm004": alarm004_json(body.alarmsConfiguration),
            "marker_id": marker,
        },
    )
    # A new UID has no links yet (they cascade with their device): add only what is given.
    if body.tags:
        set_tags(conn, subscription_id, uid, [t.name for t in body.tags])
    if domains:
        set_domains(conn, subscription_id, uid, list(domains))
    if app_servers:
        set_app_servers(conn, uid, list(app_servers))
    return uid


_SIMPLE_UPDATES = {
    "customerAdminData": "customer_admin_data",
    "networkContextID": "network_context_id",
    "hsmGroupID": "hsm_group_id",
    "imsi": "imsi",
}


def updated_columns(body: DeviceUpdate) -> dict[str, Any]:
    """The columns the fields given in `body` set, for the fields an update route and an
    import row treat alike (not: name, references, markerID)."""
    given = body.model_fields_set
    values = {column: getattr(body, f) for f, column in _SIMPLE_UPDATES.items() if f in given}
    if "adminLat" in given or "adminLon" in given:
        values |= {"admin_lat": body.adminLat, "admin_lon": body.adminLon}
        values |= {"lat": body.adminLat, "lon": body.adminLon}
    if "appSKey" in given or "appKeys" in given:
        values["app_skey"] = body.effective_app_skey()
    if "alarmsConfiguration" in given:
        values["alarm004"] = alarm004_json(body.alarmsConfiguration)
    return values


# Key material: stored sealed (db/sealing.py), never returned.
SEALED_COLUMNS = ("app_key", "app_skey")


def update_columns(conn: sqlite3.Connection, uid: int, values: dict[str, Any]) -> None:
    values = {c: seal(conn, v) if c in SEALED_COLUMNS else v for c, v in values.items()}
    if values:
        sets = ", ".join(f"{column} = ?" for column in values)
        conn.execute(f"UPDATE devices SET {sets} WHERE uid = ?", [*values.values(), uid])


def set_tags(conn: sqlite3.Connection, subscription_id: int, uid: int, names: list[str]) -> None:
    conn.execute("DELETE FROM device_tags WHERE device_uid = ?", (uid,))
    for name in dict.fromkeys(names):
        tid = tag_id(conn, subscription_id, name, create=True)
        conn.execute("INSERT OR IGNORE INTO device_tags VALUES (?, ?)", (uid, tid))


def set_domains(
    conn: sqlite3.Connection, subscription_id: int, uid: int, pairs: list[tuple[str, str]]
) -> None:
    domain_store.set_domains(conn, DEVICE_DOMAINS, subscription_id, uid, pairs)


def app_server_ids_of(conn: sqlite3.Connection, uid: int) -> set[int]:
    """Row ids of the application servers a device routes to."""
    rows = conn.execute("SELECT app_server_id FROM device_app_servers WHERE device_uid = ?", (uid,))
    return {int(r[0]) for r in rows}


def set_app_servers(conn: sqlite3.Connection, uid: int, server_ids: list[int]) -> None:
    conn.execute("DELETE FROM device_app_servers WHERE device_uid = ?", (uid,))
    conn.executemany(
        "INSERT OR IGNORE INTO device_app_servers VALUES (?, ?)", [(uid, s) for s in server_ids]
    )


def delete(conn: sqlite3.Connection, uid: int) -> None:
    """Delete device `uid` and all that is its own, inside the caller's transaction: alarms,
    traffic, links to tags, domains and servers, and its simulator schedule. The foreign keys
    and triggers would do most of it; saying it here keeps a device that gets the same EUI (or
    the same reused uid) clean even on a connection without them."""
    for table, column in (
        ("alarms", "device_uid"),
        ("frame_buckets", "device_uid"),
        ("device_tags", "device_uid"),
        ("device_domains", "device_uid"),
        ("device_app_servers", "device_uid"),
        ("sim_devices", "uid"),
        ("sim_silent", "device_uid"),
        ("sim_recheck", "device_uid"),
    ):
        conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (uid,))
    conn.execute("DELETE FROM devices WHERE uid = ?", (uid,))


def tag_devices(conn: sqlite3.Connection, tid: int, uids: list[int], untag: bool) -> int:
    """Tag or untag; returns how many devices changed (the rows of the statement itself, not
    those its triggers change)."""
    if untag:
        cursor = conn.executemany(
            "DELETE FROM device_tags WHERE device_uid = ? AND tag_id = ?", [(u, tid) for u in uids]
        )
    else:
        cursor = conn.executemany(
            "INSERT OR IGNORE INTO device_tags VALUES (?, ?)", [(u, tid) for u in uids]
        )
    return max(cursor.rowcount, 0)


def uids_by_eui(conn: sqlite3.Connection, where: Where, euis: list[str]) -> list[int]:
    """The devices among `euis` that `where` admits (restrictions included)."""
    out: list[int] = []
    for start in range(0, len(euis), 500):
        chunk = euis[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        out += [
            r[0]
            for r in conn.execute(
                f"SELECT d.uid FROM devices d WHERE {where.sql()} AND d.eui IN ({marks})",
                [*where.params, *chunk],
            )
        ]
    return out


# --- tag suggestions ----------------------------------------------------------------------


def tag_suggestions(
    conn: sqlite3.Connection, subscription_id: int, query: str, exclude: list[str], limit: int = 20
) -> list[str]:
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    sql = "SELECT name FROM tags WHERE subscription_id = ? AND name LIKE ? ESCAPE '\\'"
    params: list[object] = [subscription_id, escaped + "%"]
    if exclude:
        sql += f" AND name NOT IN ({', '.join('?' * len(exclude))})"
        params += exclude
    sql += " ORDER BY name COLLATE NOCASE, name LIMIT ?"
    return [r[0] for r in conn.execute(sql, [*params, limit])]


# --- clusters -----------------------------------------------------------------------------


def clusters(
    conn: sqlite3.Connection,
    subscription_id: int,
    f: DeviceFilter,
    restrictions: DomainRestrictions | None,
    box: tuple[float, float, float, float],
) -> tuple[int, list[dict[str, Any]]]:
    """Devices in the box grouped by map tile (store/clusters.py). Returns (total, clusters)."""
    rows = cluster_rows(
        conn,
        DEVICE_SOURCE,
        subscription_id,
        device_where(subscription_id, f, restrictions),
        device_restriction_sql(restrictions, "t.domain_set"),
        box,
        filtered=not f.is_empty(),
    )
    return cluster_answer(rows, lambda uids: {int(b["ref"]): b for b in briefs(conn, uids)})


# A tag on at least this share of the subscription's devices is tested row by row in the
# order of the sort (a first page stops after a few hundred rows); a rarer one drives the
# query from its own devices (a common one that way sorted 200,000 rows for one page).
COMMON_TAG_SHARE = 0.02


def where_for(
    subscription_id: int,
    f: DeviceFilter,
    restrictions: DomainRestrictions | None,
    conn: sqlite3.Connection | None = None,
) -> Where:
    """The filter as SQL; with `conn`, tag tests shaped by how common each tag is."""
    common: list[str] = []
    if conn is not None and f.tag:
        everyone = total(conn, subscription_id, None)
        common = [
            tag
            for tag in f.tag
            if tag_total(conn, subscription_id, tag, None) >= everyone * COMMON_TAG_SHARE
        ]
    return device_where(subscription_id, f, restrictions, common_tags=common)


def tag_total(
    conn: sqlite3.Connection,
    subscription_id: int,
    tag: str,
    restrictions: DomainRestrictions | None,
) -> int:
    """Devices with `tag` the restrictions let see, from the counts kept per tag and domain
    set (`tag_counts`)."""
    sql, params = device_restriction_sql(restrictions, "c.domain_set")
    return int(
        conn.execute(
            "SELECT coalesce(sum(c.n), 0) FROM tag_counts c WHERE c.tag_id IN"
            f" (SELECT id FROM tags WHERE subscription_id = ? AND name = ?) AND {sql}",
            [subscription_id, tag, *params],
        ).fetchone()[0]
    )


def filtered_total(
    conn: sqlite3.Connection,
    subscription_id: int,
    f: DeviceFilter,
    restrictions: DomainRestrictions | None,
    where: Where,
) -> int:
    """`count` of a filtered list, from the kept counts when the filter allows it (none,
    or one tag alone), else by counting the rows."""
    if f.is_empty():
        return total(conn, subscription_id, restrictions)
    if len(f.tag) == 1 and f.model_copy(update={"tag": []}).is_empty():
        return tag_total(conn, subscription_id, f.tag[0], restrictions)
    return count(conn, where)
