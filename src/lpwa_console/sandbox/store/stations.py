"""Base stations: lookup, list, create, update, tags and domains (SQL only).

A station belongs to one partner (`partner_uid`). Its domains are the partner's
subscription's domains (`station_domains`), its set of domains (`domain_set`) kept by
triggers as for devices, so a domain restriction is one column test on the row.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...schema.domains import DomainRestrictions
from ...schema.stations import (
    AlarmsConfiguration,
    AlarmThreshold,
    BaseStationCreate,
    BaseStationFilter,
    BaseStationUpdate,
    default_alarm102,
)
from . import domains as domain_store
from .domains import DomainLinks
from .filters import device_restriction_sql
from .sql import Page, Where, add_box, any_prefix, marks, prefix, select_page

STATION_DOMAINS = DomainLinks("station_domains", "station_uid")
BASE_HREF = "/partners/mine/bss"

# The base station profiles the sandbox knows: ID -> (commercial name, vendor ID, vendor
# name, software type, RF hardware configuration).
STATION_MODELS: dict[str, tuple[str, str, str, str, str]] = {
    "KERLINK_WIRNET_ISTATION": (
        "Kerlink Wirnet iStation", "KERLINK", "Kerlink", "LRR_LINUX", "S1_A2_B1",
    ),
    "KERLINK_WIRNET_IFEMTOCELL": (
        "Kerlink Wirnet iFemtoCell", "KERLINK", "Kerlink", "LRR_LINUX", "S1_A1_B1",
    ),
    "MULTITECH_CONDUIT_AP": (
        "MultiTech Conduit AP", "MULTITECH", "MultiTech", "BASIC_STATION_LINUX", "S1_A1_B1",
    ),
    "TEKTELIC_KONA_MACRO": (
        "Tektelic Kona Macro", "TEKTELIC", "Tektelic", "LRR_LINUX", "S1_A2_B2",
    ),
    "CISCO_IXM": ("Cisco Wireless Gateway IXM", "CISCO", "Cisco", "LRR_LINUX", "S1_A2_B1"),
    "RAK_7268": ("RAKwireless WisGate Edge Lite 2", "RAK", "RAKwireless", "LRR_FREERTOS",
                 "S1_A1_B1"),
}  # fmt: skip

SORT_COLUMNS = {
    "name": "s.name",
    "lastUpFrameDate": "s.last_up",
    "lastDwFrameDate": "s.last_dw",
    "version": "s.sw_version",
    "lastReboot": "s.last_reboot",
    "creationDate": "s.creation_date",
    "lrrID": "s.lrr_id",
}
WEEK_MS = 7 * 86_400_000
MONTH_MS = 30 * 86_400_000


StationModel = tuple[str, str, str, str, str]


def station_model(conn: sqlite3.Connection, model: str) -> StationModel | None:
    """A base station profile: (commercial name, vendor ID, vendor name, software type, RF
    hardware configuration), from the operator's catalog (one catalog: a custom profile is
    a model too), else from the models a database older than the catalog knows."""
    row = conn.execute(
        "SELECT p.commercial_name, v.ref, v.name, p.software_type, p.rf_hw_config"
        " FROM bs_profiles p LEFT JOIN bs_vendors v ON v.id = p.vendor_id WHERE p.ref = ?",
        (model,),
    ).fetchone()
    if row is not None:
        name, vendor_id, vendor, software, config = row
        return (name, vendor_id or "", vendor or "", software, config or "S1_A1_B1")
    return STATION_MODELS.get(model)


def software_type(conn: sqlite3.Connection, model: str) -> str | None:
    found = station_model(conn, model)
    return found[3] if found else None


# --- lookup ----------------------------------------------------------------------------------


def find_uid(
    conn: sqlite3.Connection,
    partner_uid: int,
    *,
    uid: int | None = None,
    lrr_id: str | None = None,
    lrr_uuid: str | None = None,
) -> int | None:
    if uid is not None:
        sql, value = "uid = ?", str(int(uid))
    elif lrr_id is not None:
        sql, value = "lrr_id = ?", lrr_id.upper()
    else:
        sql, value = "lrr_uuid = ?", (lrr_uuid or "").upper()
    row = conn.execute(
        f"SELECT uid FROM stations WHERE {sql} AND partner_uid = ?", (value, partner_uid)
    ).fetchone()
    return None if row is None else int(row[0])


def lrr_id_exists(conn: sqlite3.Connection, lrr_id: str) -> bool:
    """lrrIDs are unique platform-wide, not per partner."""
    return conn.execute("SELECT 1 FROM stations WHERE lrr_id = ?", (lrr_id,)).fetchone() is not None


def uids_by_lrr_id(conn: sqlite3.Connection, w: Where, lrr_ids: Sequence[str]) -> list[int]:
    """The stations among `w` whose lrrID is one of `lrr_ids`."""
    if not lrr_ids:
        return []
    rows = conn.execute(
        f"SELECT s.uid FROM stations s WHERE {w.sql()} AND s.lrr_id IN ({marks(lrr_ids)})",
        [*w.params, *[i.upper() for i in lrr_ids]],
    )
    return [r[0] for r in rows]


def domains_of(conn: sqlite3.Connection, uid: int) -> list[tuple[str, str]]:
    return domain_store.domains_of(conn, STATION_DOMAINS, uid)


def domain_set_of(conn: sqlite3.Connection, uid: int) -> int:
    row = conn.execute("SELECT domain_set FROM stations WHERE uid = ?", (uid,)).fetchone()
    return 0 if row is None else int(row[0])


def restriction_sql(
    restrictions: DomainRestrictions | None, column: str = "s.domain_set"
) -> tuple[str, list[object]]:
    """The stations a user with `restrictions` may see: the devices' rule on the domain set."""
    return device_restriction_sql(restrictions, column)


def allocate_lrr_id(conn: sqlite3.Connection, seed: int | None = None) -> str:
    """A free lrrID, never reserved (00000000, FFFE..., FFFF...)."""
    rng = random.Random(seed)
    while True:
        candidate = f"{rng.randrange(0x00000001, 0xFFFE0000):08X}"
        if not lrr_id_exists(conn, candidate):
            return candidate


# --- lists -----------------------------------------------------------------------------------


def where(
    conn: sqlite3.Connection,
    partner_uid: int,
    f: BaseStationFilter,
    restrictions: DomainRestrictions | None,
    *,
    now: int,
    reboot_from: int | None = None,
) -> Where:
    """The list filters (the reference's): prefixes are literal and, for names,
    ASCII case-insensitive."""
    w = Where()
    w.add("s.partner_uid = ?", partner_uid)
    if f.query:
        parts = [
            prefix("s.name", f.query),
            prefix("s.lrr_id", f.query.upper()),
            prefix("s.lrr_uuid", f.query.upper()),
        ]
        w.add("(" + " OR ".join(p[0] for p in parts) + ")", *[x for p in parts for x in p[1]])
    if f.name:
        w.add_test(prefix("s.name", f.name))
    if f.LRRID:
        w.add_test(any_prefix("s.lrr_id", [v.strip().upper() for v in f.LRRID]))
    if f.LRRUUID:
        w.add_test(prefix("s.lrr_uuid", f.LRRUUID.strip().upper()))
    if f.version:
        w.add_test(prefix("s.sw_version", f.version))
    if f.customVersion:
        w.add("s.custom_version = ?", f.customVersion)
    if reboot_from is not None:
        w.add("s.last_reboot >= ?", reboot_from)
    if f.minRC is not None:
        w.add("s.min_rc <= ?", f.minRC)
    if f.alarmLevel is not None:
        w.add("s.alarm_level >= ?", f.alarmLevel)
    if f.healthState:
        w.add(f"s.health_state IN ({marks(f.healthState)})", *f.healthState)
    if f.rfRegionID:
        w.add(f"s.rf_region_id IN ({marks(f.rfRegionID)})", *f.rfRegionID)
    for tag in f.tag:  # all must match
        w.add(
            "s.uid IN (SELECT station_uid FROM station_tags WHERE tag_id IN"
            " (SELECT id FROM station_tag_names WHERE partner_uid = ? AND name = ?))",
            partner_uid,
            tag,
        )
    for server in f.appServerID:  # all must match
        w.add(
            "s.uid IN (SELECT station_uid FROM station_app_servers WHERE app_server_id IN"
            " (SELECT id FROM app_servers WHERE ref = ?))",
            server,
        )
    for group, names in f.domains_by_group().items():
        w.add(
            "s.uid IN (SELECT station_uid FROM station_domains WHERE domain_id IN"
            f" (SELECT id FROM domains WHERE grp = ? AND name IN ({marks(names)})))",
            group,
            *names,
        )
    if f.bsSecurityState == "DISABLED":
        w.add("s.security_type = 'DISABLE'")
    elif f.bsSecurityState == "UNKNOWN":
        w.add("s.security_type = 'IPSEC_X509' AND s.security_expiration IS NULL")
    elif f.bsSecurityState == "EXPIRED":
        w.add("s.security_type = 'IPSEC_X509' AND s.security_expiration < ?", now)
    elif f.bsSecurityState is not None:
        span = WEEK_MS if f.bsSecurityState == "EXPIRATION_IN_LESS_THAN_1_WEEK" else MONTH_MS
        w.add(
            "s.security_type = 'IPSEC_X509' AND s.security_expiration BETWEEN ? AND ?",
            now,
            now + span,
        )
    add_box(w, "s", f.minLat, f.maxLat, f.minLon, f.maxLon)
    w.restrict(restriction_sql(restrictions))
    return w


def page(
    conn: sqlite3.Connection,
    w: Where,
    sort: str,
    descending: bool,
    offset: int,
    limit: int,
    *,
    after: str | None = None,
) -> tuple[list[int], bool]:
    """One page of UIDs; `after` (an lrrID, with the lrrID sort) starts after that station."""
    order = "DESC" if descending else "ASC"
    if after is not None:
        w = Where(list(w.clauses), list(w.params))
        w.add("s.lrr_id < ?" if descending else "s.lrr_id > ?", after)
        offset = 0
    column = SORT_COLUMNS[sort]
    order_by = f"{column} {order}" if sort == "lrrID" else f"{column} {order}, s.uid {order}"
    found: Page = select_page(
        conn, "SELECT s.uid FROM stations s", w, order_by, offset=offset, limit=limit
    )
    return [r[0] for r in found.rows], found.more


def count(conn: sqlite3.Connection, w: Where) -> int:
    row = conn.execute(f"SELECT count(*) FROM stations s WHERE {w.sql()}", w.params).fetchone()
    return int(row[0])


def total(
    conn: sqlite3.Connection, partner_uid: int, restrictions: DomainRestrictions | None
) -> int:
    """The count of an unfiltered list: the partner's stations in the sets the caller sees
    (`station_counts`, kept by triggers)."""
    sql, params = restriction_sql(restrictions, "domain_set")
    row = conn.execute(
        f"SELECT coalesce(sum(n), 0) FROM station_counts WHERE partner_uid = ? AND {sql}",
        [partner_uid, *params],
    ).fetchone()
    return int(row[0])


def lrr_id_of(conn: sqlite3.Connection, uid: int) -> str:
    return str(conn.execute("SELECT lrr_id FROM stations WHERE uid = ?", (uid,)).fetchone()[0])


def used(conn: sqlite3.Connection, partner_uid: int) -> int:
    """totalBaseStationsUsed: the stations the partner has."""
    row = conn.execute(
        "SELECT count(*) FROM stations WHERE partner_uid = ?", (partner_uid,)
    ).fetchone()
    return int(row[0])


def health_counts(
    conn: sqlite3.Connection, partner_uid: int, restrictions: DomainRestrictions | None
) -> dict[str, int]:
    sql, params = restriction_sql(restrictions)
    rows = conn.execute(
        "SELECT s.health_state, count(*) FROM stations s WHERE s.partner_uid = ?"
        f" AND {sql} GROUP BY s.health_state",
        [partner_uid, *params],
    )
    return {r[0]: int(r[1]) for r in rows}


# --- answers ---------------------------------------------------------------------------------


def _thresholds(text: str) -> list[dict[str, Any]]:
    return list(json.loads(text or "[]"))


def tag_href(station_uid: int, tag_id: int, base: str = BASE_HREF) -> str:
    return f"{base}/{station_uid}/tags/{tag_id}"


def ism_band_of(conn: sqlite3.Connection, uid: int) -> str | None:
    row = conn.execute("SELECT ism_band FROM stations WHERE uid = ?", (uid,)).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def station_base(partner_uid: int, own: bool) -> str:
    """Where a reader finds a partner's stations: `/partners/mine/bss` for the partner's own
    accounts, `/partners/{uid}/bss` for the operator (`mine` names no partner for it)."""
    return BASE_HREF if own else f"/partners/{partner_uid}/bss"


def last_command_types(conn: sqlite3.Connection, uid: int) -> dict[str, str]:
    """`lastAcmdReqType` and `lastCmdType` of a station (Document 2 §2.2): the type of its
    newest administration command, as `/admins/lastCmdStatus` names it. Every command the
    sandbox takes is one requested through the API, so the two are the same."""
    row = conn.execute(
        "SELECT cmd_type FROM station_commands WHERE bs_uid = ? ORDER BY id DESC LIMIT 1", (uid,)
    ).fetchone()
    return {} if row is None else {"lastAcmdReqType": row[0], "lastCmdType": row[0]}


def backhaul_address(uid: int) -> str:
    """The IP address of a station's Ethernet backhaul (wans/ints/0)."""
    return f"10.{uid >> 16 & 255}.{uid >> 8 & 255}.{uid & 255}"


def backhaul(uid: int, cnx_state: str) -> dict[str, Any]:
    """The reference's `ints` (backhaul interfaces): a sandbox station reaches its LRCs over
    one Ethernet link (wans/ints/0) once it has connected; none is known before."""
    if cnx_state == "NEVERCNX":
        return {}
    return {"int": [{"name": "eth0", "type": "ETHERNET", "ip": backhaul_address(uid)}]}


def _owner_and_host(conn: sqlite3.Connection, partner_uid: int) -> dict[str, Any]:
    row = conn.execute("SELECT ref, name FROM partners WHERE uid = ?", (partner_uid,)).fetchone()
    who = {"ID": row["ref"], "name": row["name"], "accessRight": "RW"}
    return {"owner": who, "host": dict(who)}


def briefs(
    conn: sqlite3.Connection, uids: list[int], *, full: bool = False, base: str = BASE_HREF
) -> list[dict[str, Any]]:
    """Wire-shaped stations, in the order of `uids` (absent ones skipped). `base`: the path
    their `href`s start with, one the reader can follow (`station_base`)."""
    if not uids:
        return []
    m = marks(uids)
    rows = {r["uid"]: r for r in conn.execute(f"SELECT * FROM stations WHERE uid IN ({m})", uids)}
    models = {ref: station_model(conn, ref) for ref in {r["model"] for r in rows.values()}}
    domains = domain_store.domains_by_owner(conn, STATION_DOMAINS, uids)
    tags: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for uid, tag_id, name, visible in conn.execute(
        "SELECT l.station_uid, t.id, t.name, t.multicast_visibility FROM station_tags l"
        f" JOIN station_tag_names t ON t.id = l.tag_id WHERE l.station_uid IN ({m})"
        " ORDER BY t.name",
        uids,
    ):
        tags[uid].append(
            {
                "name": name,
                "multicastVisibility": bool(visible),
                "href": tag_href(uid, tag_id, base),
            }
        )
    out: list[dict[str, Any]] = []
    for uid in uids:
        r = rows.get(uid)
        if r is None:
            continue
        model = models[r["model"]]
        alarms = [r[f"alarm{i}"] for i in range(1, 7)]
        item: dict[str, Any] = {
            "lrrID": r["lrr_id"],
            "name": r["name"],
            "href": f"{base}/{uid}",
            "model": {
                "ID": r["model"],
                "commercialName": model[0] if model else r["model"],
                "logo": f"/logos/{r['model'].lower()}.png",
                "softwareType": model[3] if model else None,
                "rfHardwareConfig": model[4] if model else None,
            },
            "vendor": {
                "ID": model[1] if model else None,
                "commercialName": model[2] if model else None,
                "logo": f"/logos/{(model[1] if model else 'unknown').lower()}.png",
            },
            "state": r["state"],
            "stateSince": r["state_since"],
            "healthState": r["health_state"],
            "cnxState": r["cnx_state"],
            "cnxStateSince": r["cnx_since"],
            "creationDate": r["creation_date"],
            **{f"alarm{i}": n for i, n in enumerate(alarms, start=1)},
            "alarmLevel": r["alarm_level"],
            "alarmCount": sum(alarms),
            "tags": tags[uid],
            "domains": domains[uid],
            "rfProbe": {"enabled": bool(r["rf_probe"])},
            "bsSecurity": {
                "type": r["security_type"],
                "expirationDate": r["security_expiration"],
                "generationDate": r["security_generation"],
            },
            "ismBand": r["ism_band"],
            "rfRegionID": r["rf_region_id"],
            "version": r["sw_version"],
            "lastReboot": r["last_reboot"],
            "lastReport": r["last_report"],
            "cpu": r["cpu"],
            "ram": r["ram"],
            "customerAdminData": r["customer_admin_data"],
            "gpsReceiverConfig": r["gps_receiver"],
            "ints": backhaul(uid, r["cnx_state"]),
        }
        if r["lrr_uuid"]:
            item["lrrUUID"] = r["lrr_uuid"]
        if full:
            item |= {
                "alarmsConfiguration": {
                    "alarm102": _thresholds(r["alarm102"]),
                    "alarm103": _thresholds(r["alarm103"]),
                },
                "lastGeoLat": r["lat"],
                "lastGeoLon": r["lon"],
                "lastGeoAlt": r["alt"],
                "contactInfo": r["contact_info"],
                "staticAddress": r["static_address"],
                "smn": r["smn"],
                "rfCoverageType": r["rf_coverage_type"],
                "rfHardwareConfig": r["rf_hardware_config"] or (model[4] if model else None),
                "identificationMode": "LRR_UUID" if r["lrr_uuid"] else "LRR_ID",
                **last_command_types(conn, uid),
                "occContext": {
                    "version": r["version"],
                    "lastUpdate": r["last_update"],
                    "who": r["who"],
                },
                # No FPGA board is known of a sandbox station; its owner hosts it too.
                "fpgaBoards": [],
                **_owner_and_host(conn, r["partner_uid"]),
            }
        else:
            item |= {
                "lat": r["lat"],
                "lon": r["lon"],
                "alt": r["alt"],
                "lastUpFrameDate": r["last_up"],
                "lastDwFrameDate": r["last_dw"],
                "minRC": r["min_rc"],
                "customVersion": r["custom_version"],
            }
        out.append({k: v for k, v in item.items() if v is not None})
    return out


# --- create and update -----------------------------------------------------------------------


def _config_json(thresholds: list[AlarmThreshold] | None) -> str:
    return json.dumps([t.model_dump() for t in thresholds or []])


def create(
    conn: sqlite3.Connection,
    partner_uid: int,
    body: BaseStationCreate,
    *,
    lrr_id: str,
    now: int,
    who: str,
    domains: list[tuple[str, str]],
    subscription_id: int | None,
) -> int:
    """Insert the station `body` describes; returns its UID. The caller checked the lrrID
    is free, the model known, the domains allowed and the partner's grant."""
    config = body.alarmsConfiguration or AlarmsConfiguration()
    cur = conn.execute(
        "INSERT INTO stations (partner_uid, lrr_id, lrr_uuid, name, model, state, state_since,"
        " creation_date, ism_band, security_type, gps_receiver, rf_probe, alarm102, alarm103,"
        " contact_info, customer_admin_data, static_address, smn, rf_coverage_type,"
        " rf_hardware_config, last_update, who)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            partner_uid, lrr_id, body.lrrUUID, body.name or lrr_id, body.model.ID,
            body.state or "ACTIVE", now, now, body.ismBand,
            body.bsSecurity.type if body.bsSecurity else "DISABLE", body.gpsReceiverConfig,
            int(bool(body.rfProbe and body.rfProbe.enabled)), _config_json(config.alarm102),
            _config_json(config.alarm103), body.contactInfo, body.customerAdminData,
            body.staticAddress, body.smn, body.rfCoverageType, body.rfHardwareConfig, now, who,
        ),
    )  # fmt: skip
    uid = int(cur.lastrowid or 0)
    if domains and subscription_id is not None:
        domain_store.set_domains(conn, STATION_DOMAINS, subscription_id, uid, domains)
    return uid


_UPDATED_COLUMNS = {
    "name": "name",
    "ismBand": "ism_band",
    "contactInfo": "contact_info",
    "customerAdminData": "customer_admin_data",
    "staticAddress": "static_address",
    "smn": "smn",
    "rfCoverageType": "rf_coverage_type",
    "rfHardwareConfig": "rf_hardware_config",
    "gpsReceiverConfig": "gps_receiver",
}


def update(
    conn: sqlite3.Connection,
    uid: int,
    body: BaseStationUpdate,
    *,
    now: int,
    who: str,
    domains: list[tuple[str, str]] | None,
    subscription_id: int | None,
) -> None:
    """Change what `body` gives (an empty name becomes the lrrID), a new version; `domains`
    replace the station's when not None. Within alarmsConfiguration, a list given replaces
    the thresholds; alarm102 given as null is the default again, [] none."""
    given = body.model_fields_set
    values: dict[str, Any] = {
        c: getattr(body, f) for f, c in _UPDATED_COLUMNS.items() if f in given
    }
    if "name" in values and not values["name"]:
        values["name"] = lrr_id_of(conn, uid)
    if "rfProbe" in given and body.rfProbe is not None:
        values["rf_probe"] = int(body.rfProbe.enabled)
    if "bsSecurity" in given and body.bsSecurity is not None:
        values["security_type"] = body.bsSecurity.type
    if "state" in given and body.state is not None:
        current = conn.execute("SELECT state FROM stations WHERE uid = ?", (uid,)).fetchone()[0]
        if current != body.state:
            values |= {"state": body.state, "state_since": now}
    config = body.alarmsConfiguration
    if "alarmsConfiguration" in given and config is not None:
        if "alarm102" in config.model_fields_set:
            chosen = default_alarm102() if config.alarm102 is None else config.alarm102
            values["alarm102"] = _config_json(chosen)
        if "alarm103" in config.model_fields_set:
            values["alarm103"] = _config_json(config.alarm103)
    values |= {"last_update": now, "who": who}
    sets = ", ".join(f"{c} = ?" for c in values)
    conn.execute(
        f"UPDATE stations SET {sets}, version = version + 1 WHERE uid = ?", [*values.values(), uid]
    )
    if domains is not None and subscription_id is not None:
        domain_store.set_domains(conn, STATION_DOMAINS, subscription_id, uid, domains)


def set_domains(
    conn: sqlite3.Connection, subscription_id: int, uid: int, pairs: list[tuple[str, str]]
) -> None:
    domain_store.set_domains(conn, STATION_DOMAINS, subscription_id, uid, pairs)


# --- tags ------------------------------------------------------------------------------------


def tag_id(
    conn: sqlite3.Connection,
    partner_uid: int,
    name: str,
    *,
    create: bool,
    multicast_visibility: bool | None = None,
) -> int | None:
    if create:
        conn.execute(
            "INSERT OR IGNORE INTO station_tag_names (partner_uid, name, multicast_visibility)"
            " VALUES (?, ?, ?)",
            (partner_uid, name, 1 if multicast_visibility is None else int(multicast_visibility)),
        )
        if multicast_visibility is not None:
            conn.execute(
                "UPDATE station_tag_names SET multicast_visibility = ?"
                " WHERE partner_uid = ? AND name = ?",
                (int(multicast_visibility), partner_uid, name),
            )
    row = conn.execute(
        "SELECT id FROM station_tag_names WHERE partner_uid = ? AND name = ?", (partner_uid, name)
    ).fetchone()
    return None if row is None else int(row[0])


def tag_row(conn: sqlite3.Connection, tid: int) -> dict[str, Any]:
    name, visible = conn.execute(
        "SELECT name, multicast_visibility FROM station_tag_names WHERE id = ?", (tid,)
    ).fetchone()
    return {"name": name, "multicastVisibility": bool(visible)}


def tag_stations(conn: sqlite3.Connection, tid: int, uids: list[int], *, untag: bool) -> int:
    """Tag (or untag) the stations; returns how many changed."""
    before = conn.total_changes
    if untag:
        conn.executemany(
            "DELETE FROM station_tags WHERE station_uid = ? AND tag_id = ?",
            [(u, tid) for u in uids],
        )
    else:
        conn.executemany(
            "INSERT OR IGNORE INTO station_tags VALUES (?, ?)", [(u, tid) for u in uids]
        )
    return conn.total_changes - before


def station_tags(conn: sqlite3.Connection, uid: int, base: str = BASE_HREF) -> list[dict[str, Any]]:
    return [
        {"name": n, "multicastVisibility": bool(v), "href": tag_href(uid, t, base)}
        for t, n, v in conn.execute(
            "SELECT t.id, t.name, t.multicast_visibility FROM station_tags l"
            " JOIN station_tag_names t ON t.id = l.tag_id WHERE l.station_uid = ? ORDER BY t.name",
            (uid,),
        )
    ]


def station_has_tag(conn: sqlite3.Connection, uid: int, tid: int) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM station_tags WHERE station_uid = ? AND tag_id = ?", (uid, tid)
        ).fetchone()
        is not None
    )


def tag_suggestions(
    conn: sqlite3.Connection, partner_uid: int, query: str, exclude: list[str], limit: int = 20
) -> list[dict[str, Any]]:
    """Tag names starting with `query` (literally, ASCII case-insensitive), by name."""
    name_sql, params = prefix("name COLLATE NOCASE", query)
    sql = f"SELECT name, multicast_visibility FROM station_tag_names WHERE partner_uid = ? AND {name_sql}"
    args: list[object] = [partner_uid, *params]
    if exclude:
        sql += f" AND name NOT IN ({marks(exclude)})"
        args += exclude
    rows = conn.execute(sql + " ORDER BY name COLLATE NOCASE, name LIMIT ?", [*args, limit])
    return [{"name": n, "multicastVisibility": bool(v)} for n, v in rows]
