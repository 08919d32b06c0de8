"""Demo network: a catalog (models, application servers, keys, domains, tags) and devices
spread over a few European cities. Deterministic for a given seed and `now`.

Bulk seeding drops the secondary indexes, inserts with executemany in big batches and
rebuilds the indexes, all in one transaction: a sorted index build is much faster than
keeping a dozen indexes up to date row by row, and no reader ever sees a half-built index.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from ..schema.devices import default_alarm004
from . import accounts, links
from .db import (
    REBUILD_LINK_COUNTS,
    REBUILD_SUMMARIES_SQL,
    REBUILD_TAG_COUNTS,
    Database,
    create_derived_triggers_sql,
    create_device_indexes_sql,
    create_link_count_triggers,
    create_prov_queue_triggers,
    create_tag_count_triggers,
    drop_derived_triggers_sql,
    drop_device_indexes_sql,
    drop_link_count_triggers,
    drop_prov_queue_triggers,
    drop_tag_count_triggers,
    rebuild_domain_sets_sql,
)
from .db.steps_reference import NETWORK_SUBSCRIPTION_BACKFILL, NETWORK_SUBSCRIPTION_REGULATION
from .demo_places import CITIES, CITY_WEIGHTS
from .settings import SandboxSettings
from .store import alarms as alarm_store
from .store.devices import cellular_ip

log = logging.getLogger("lpwa_console.sandbox.demo")

BATCH = 50_000
BULK_THRESHOLD = 20_000  # from this many devices on, rebuild indexes instead of updating them
DAY_MS = 86_400_000


# vertical, label, tag, app server ref, LoRaWAN model refs
KINDS = [
    ("Metering", "Water meter", "water", "as-metering", ["itron-cyble-lw", "sensus-iperl-lw"]),
    ("Metering", "Gas meter", "gas", "as-metering", ["itron-gas-lw"]),
    ("Parking", "Parking sensor", "parking", "as-parking", ["nedap-sensit-lw"]),
    ("Building", "Temperature sensor", "building", "as-building", ["adeunis-temp-lw"]),
    ("Building", "Door contact", "building", "as-building", ["adeunis-door-lw"]),
    ("Environment", "Air quality sensor", "air-quality", "as-environment", ["elsys-ers-co2-lw"]),
    ("Tracking", "Asset tracker", "tracker", "as-tracking", ["abeeway-micro-lw"]),
]
KIND_WEIGHTS = [22, 10, 20, 15, 10, 10, 13]

MODELS = [
    ("itron-cyble-lw", "Itron Cyble 5 LoRaWAN", "LORAWAN"),
    ("sensus-iperl-lw", "Sensus iPERL LoRaWAN", "LORAWAN"),
    ("itron-gas-lw", "Itron Gallus LoRaWAN", "LORAWAN"),
    ("nedap-sensit-lw", "Nedap SENSIT 3", "LORAWAN"),
    ("adeunis-temp-lw", "Adeunis Temp 4", "LORAWAN"),
    ("adeunis-door-lw", "Adeunis Dry Contacts", "LORAWAN"),
    ("elsys-ers-co2-lw", "Elsys ERS CO2", "LORAWAN"),
    ("abeeway-micro-lw", "Abeeway Micro Tracker", "LORAWAN"),
    ("quectel-bg95-cell", "Quectel BG95 NB-IoT/LTE-M", "CELLULAR"),
    ("nordic-9160-cell", "Nordic nRF9160 LTE-M", "CELLULAR"),
]
APP_SERVERS = [
    ("as-metering", "Metering platform (HTTPS)"),
    ("as-parking", "Smart parking backend"),
    ("as-building", "Building management system"),
    ("as-environment", "Environment dashboard"),
    ("as-tracking", "Fleet tracking"),
    ("as-analytics", "Data lake ingestion"),
]
AS_TRANSPORT_KEYS = [("atk-metering-2024", "Metering key 2024"), ("atk-default", "Default key")]
HSM_GROUPS = [("hsm-eu-west-1", "HSM EU West 1"), ("hsm-eu-central-1", "HSM EU Central 1")]
# ref, name, AS transport key, application servers, connectivity (a device may only use a
# profile of its own connectivity)
ROUTING_PROFILES: list[tuple[str, str, str | None, list[str], str]] = [
    ("rp-metering", "Metering routing", "atk-metering-2024", ["as-metering", "as-analytics"],
     "LORAWAN"),
    ("rp-cellular", "Cellular routing", None, ["as-environment"], "CELLULAR"),
]  # fmt: skip
NETWORK_CONTEXTS = ["nc-orange-fr", "nc-telekom-de", "nc-movistar-es", "nc-kpn-nl"]
COUNTRY_CONTEXT = {"France": 0, "Germany": 1, "Spain": 2, "Netherlands": 3}
EXTRA_TAGS = ["building-A", "building-B", "building-C", "building-D", "pilot", "battery-low"]

_DEFAULT_ALARM004 = json.dumps([t.model_dump() for t in default_alarm004()])

DEVICE_COLUMNS = (
    "uid, subscription_id, eui, name, connectivity, activation, model_id, health, creation_date,"
    " last_up, last_dw, last_sf, last_rssi, last_snr, avg_snr, last_bat, lat, lon, admin_lat,"
    " admin_lon, nw_address, app_eui, app_key, app_skey, as_transport_key, hsm_group_id,"
    " routing_profile_id, network_context_id, last_imei, imsi, iccid, alarm1, alarm2, alarm3,"
    " alarm4, alarm5, alarm6, alarm_level, alarm004, history_up"
)
# Key material is stored sealed (db/sealing.py): the keys' placeholders seal as they insert.
_MARKS = ", ".join(
    "seal(?)" if column.strip() in ("app_key", "app_skey") else "?"
    for column in DEVICE_COLUMNS.split(",")
)


@dataclass
class Catalog:
    models: dict[str, int]
    app_servers: dict[str, int]
    routing_profiles: dict[str, int]
    tags: dict[str, int]
    domains: dict[tuple[str, str], int]


def lora_eui(uid: int) -> str:
    return f"70B3D5E75{uid:07X}"


def imei(uid: int) -> str:
    return f"35{uid:012d}"


def seed_catalog(conn: sqlite3.Connection, sub: int) -> Catalog:
    """Create (if missing) and return the reference data devices point to."""
    conn.executemany(
        "INSERT OR IGNORE INTO device_models (ref, commercial_name, connectivity) VALUES (?, ?, ?)",
        MODELS,
    )
    from .demo_catalog import seed_device_catalog

    seed_device_catalog(conn)  # vendors, MAC layers and bands of those models, and others
    conn.executemany(
        "INSERT OR IGNORE INTO app_servers (subscription_id, ref, name) VALUES (?, ?, ?)",
        [(sub, r, n) for r, n in APP_SERVERS],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO as_transport_keys (subscription_id, ref, name) VALUES (?, ?, ?)",
        [(sub, r, n) for r, n in AS_TRANSPORT_KEYS],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO hsm_groups (subscription_id, ref, name) VALUES (?, ?, ?)",
        [(sub, r, n) for r, n in HSM_GROUPS],
    )
    seed_routing_profiles(conn, sub)
    tag_names = sorted({k[2] for k in KINDS} | set(EXTRA_TAGS))
    conn.executemany(
        "INSERT OR IGNORE INTO tags (subscription_id, name) VALUES (?, ?)",
        [(sub, t) for t in tag_names],
    )
    domain_pairs = [("Site", f"{c[1]}/{c[0]}") for c in CITIES] + [
        ("Vertical", k[0]) for k in KINDS
    ]
    conn.executemany(
        "INSERT OR IGNORE INTO domains (subscription_id, grp, name) VALUES (?, ?, ?)",
        [(sub, g, n) for g, n in domain_pairs],
    )

    def refs(table: str, key: str = "ref", where: str = "subscription_id = ?") -> dict[str, int]:
        args = (sub,) if "?" in where else ()
        return {
            r[0]: r[1] for r in conn.execute(f"SELECT {key}, id FROM {table} WHERE {where}", args)
        }

    return Catalog(
        models=refs("device_models", where="1"),
        app_servers=refs("app_servers"),
        routing_profiles=refs("routing_profiles"),
        tags=refs("tags", key="name"),
        domains={
            (g, n): i
            for g, n, i in conn.execute(
                "SELECT grp, name, id FROM domains WHERE subscription_id = ?", (sub,)
            )
        },
    )


def seed_routing_profiles(conn: sqlite3.Connection, sub: int) -> None:
    """Create the demo's AS routing profiles that are missing, with their application servers
    (those the subscription has)."""
    for ref, name, key, servers, connectivity in ROUTING_PROFILES:
        conn.execute(
            "INSERT OR IGNORE INTO routing_profiles (subscription_id, ref, name, as_transport_key,"
            " connectivity) VALUES (?, ?, ?, ?, ?)",
            (sub, ref, name, key, connectivity),
        )
        conn.execute(
            "INSERT OR IGNORE INTO routing_profile_app_servers SELECT p.id, a.id"
            " FROM routing_profiles p, app_servers a WHERE p.subscription_id = ? AND p.ref = ?"
            f" AND a.subscription_id = p.subscription_id AND a.ref IN ({', '.join('?' * len(servers))})",
            (sub, ref, *servers),
        )


def _taken(conn: sqlite3.Connection, sub: int, first: int, last: int) -> set[str]:
    """EUIs someone already used inside the ranges our uid-derived EUIs will take."""
    out: set[str] = set()
    for make in (lora_eui, imei):
        out |= {
            r[0]
            for r in conn.execute(
                "SELECT eui FROM devices WHERE subscription_id = ? AND eui BETWEEN ? AND ?",
                (sub, make(first), make(last)),
            )
        }
    return out


def _generate(
    cat: Catalog, sub: int, first_uid: int, n: int, seed: int, now: int, taken: set[str]
) -> Iterator[
    tuple[tuple[object, ...], list[tuple[int, int]], list[tuple[int, int]], list[tuple[int, int]]]
]:
    """Rows for devices first_uid .. first_uid + n - 1, with their tag/domain/server links."""
    rng = random.Random(seed * 1_000_003 + first_uid)
    rand = rng.random
    span = min(60_000 * 60, 2 * 365 * DAY_MS // max(n, 1))  # creation spacing, ms
    counters: dict[tuple[str, str], int] = {}
    cities = rng.choices(range(len(CITIES)), CITY_WEIGHTS, k=n)
    kinds = rng.choices(range(len(KINDS)), KIND_WEIGHTS, k=n)
    atk = "atk-metering-2024"
    for i in range(n):
        uid = first_uid + i
        city, country, clat, clon, districts = CITIES[cities[i]]
        vertical, label, kind_tag, server, models = KINDS[kinds[i]]
        cellular = rand() < 0.15
        eui = imei(uid) if cellular else lora_eui(uid)
        if eui in taken:
            continue
        district = districts[int(rand() * len(districts))]
        number = counters[label, city] = counters.get((label, city), 0) + 1
        name = f"{label} {number:04d} {city} {district}"
        lat = round(clat + (rand() - 0.5) * 0.16, 6)
        lon = round(clon + (rand() - 0.5) * 0.24, 6)
        created = now - (n - i) * span - 30 * DAY_MS
        health_roll = rand()
        alarms = [0, 0, 0, 0, 0, 0]
        if health_roll < 0.02:  # never heard
            health, last_up = "INIT", None
        elif health_roll < 0.03:
            health, last_up = "SUSPENDED", now - int(rand() * 30 * DAY_MS)
        elif health_roll < 0.09:  # silent: the no-uplink alarm (004) went off
            silent = 2 * DAY_MS + int(rand() * 8 * DAY_MS)
            health, last_up = "RF_CNX_ERROR", now - silent
            alarms[2] = 1
            if silent > 4 * DAY_MS:
                alarms[4] = 1
        else:
            # Its last uplink as the simulator's schedule has it: it goes on from there.
            health, last_up = "ACTIVE", _thrown(rand(), links.last_uplink(seed, uid, now))
        if rand() < 0.03:
            alarms[5] = 1  # e.g. a tamper alarm
        level = max((s + 1 for s, c in enumerate(alarms) if c), default=0)
        bat = None if last_up is None else int(5 + rand() * 96)
        # The link's own values (what the simulator's uplinks scatter around); the dice are
        # still thrown, so the demo's other values stay as they were.
        link_snr = round(links.base_snr(seed, uid), 1)
        snr = None if last_up is None else _thrown(rand(), link_snr)
        hist = None
        if last_up is not None:
            period, _phase = links.uplink_timing(seed, uid)
            base = _thrown(rand(), DAY_MS // period)  # its uplinks a day
            hist = ",".join(str(max(0, base + int((rand() - 0.5) * 6))) for _ in range(7))
        if cellular:
            ctx = NETWORK_CONTEXTS[COUNTRY_CONTEXT[country]]
            row = (
                uid, sub, eui, name, "CELLULAR", None,
                cat.models["quectel-bg95-cell" if rand() < 0.6 else "nordic-9160-cell"],
                health, created, last_up, None if last_up is None else last_up - 60_000,
                None, None if last_up is None else round(-70 - rand() * 40, 1), None, None, bat,
                lat, lon, None, None, cellular_ip(uid), None, None, None, None, None, None, ctx,
                eui,
                f"20801{uid:010d}", f"8933{uid:015d}", *alarms, level, _DEFAULT_ALARM004, hist,
            )  # fmt: skip
        else:
            abp = rand() < 0.2
            nwaddr = f"{rng.getrandbits(25) | 0x26000000:08X}" if (abp or last_up) else None
            row = (
                uid, sub, eui, name, "LORAWAN", "ABP" if abp else "OTAA",
                cat.models[models[int(rand() * len(models))]], health, created, last_up,
                None if last_up is None or rand() < 0.7 else last_up - int(rand() * DAY_MS),
                None if last_up is None else _thrown(rand(), links.adr_sf(link_snr)),
                None if last_up is None else _thrown(rand(), round(links.base_rssi(seed, uid), 1)),
                snr, snr, bat, lat, lon, None, None, nwaddr,
                None if abp else "70B3D57ED0000000", None if abp else f"{rng.getrandbits(128):032X}",
                f"{rng.getrandbits(128):032X}" if abp else None,
                atk if kind_tag in ("water", "gas") else None,
                "hsm-eu-west-1" if rand() < 0.2 else None,
                cat.routing_profiles["rp-metering"] if kind_tag == "water" and rand() < 0.3 else None,
                None, None, None, None, *alarms, level, _DEFAULT_ALARM004, hist,
            )  # fmt: skip
        tags = [(uid, cat.tags[kind_tag])]
        if rand() < 0.3:
            tags.append((uid, cat.tags[EXTRA_TAGS[int(rand() * 4)]]))
        if rand() < 0.05:
            tags.append((uid, cat.tags["pilot"]))
        if bat is not None and bat < 15:
            tags.append((uid, cat.tags["battery-low"]))
        domains = []
        if rand() < 0.92:
            domains.append((uid, cat.domains["Site", f"{country}/{city}"]))
        if rand() < 0.75:
            domains.append((uid, cat.domains["Vertical", vertical]))
        servers = []
        if rand() < 0.9:
            servers.append((uid, cat.app_servers[server]))
        if rand() < 0.2:
            servers.append((uid, cat.app_servers["as-analytics"]))
        yield row, tags, domains, servers


def has_devices(db: Database) -> bool:
    return db.conn().execute("SELECT 1 FROM devices LIMIT 1").fetchone() is not None


T = TypeVar("T")


def _thrown(_die: float, value: T) -> T:
    """`value`, the die thrown for it before its link decided it ignored."""
    return value


def seed_devices(
    db: Database,
    n: int,
    *,
    seed: int = 1,
    now: int | None = None,
    subscription_ref: str = accounts.SUBSCRIPTION_REF,
    part: str | None = None,
    history: bool = True,
) -> int:
    """Add `n` devices to the subscription in one transaction, recording the demo `part` in
    the same one when given (so an interrupted seeding leaves neither), with their traffic
    history unless `history` is False or the seeding is bulk. Returns how many were added."""
    now = now if now is not None else int(time.time() * 1000)
    # A database without devices is seeded in bulk whatever the number: its derived tables
    # are built once at the end, half the time of updating them row by row.
    bulk = n >= BULK_THRESHOLD or not has_devices(db)
    with db.write() as conn:
        sub = conn.execute(
            "SELECT id FROM subscriptions WHERE ref = ?", (subscription_ref,)
        ).fetchone()[0]
        cat = seed_catalog(conn, sub)
        first = int(conn.execute("SELECT coalesce(max(uid), 0) + 1 FROM devices").fetchone()[0])
        taken = _taken(conn, sub, first, first + n)
        if bulk:
            # (executescript would COMMIT) The derived structures are rebuilt at the end.
            for statement in [
                *drop_device_indexes_sql().splitlines(),
                *drop_derived_triggers_sql(),
                *drop_link_count_triggers(),
                *drop_tag_count_triggers(),
                *drop_prov_queue_triggers(),  # seeding provisions nothing
            ]:
                conn.execute(statement)
        added = 0
        rows: list[tuple[object, ...]] = []
        links: dict[str, list[tuple[int, int]]] = {
            "device_tags": [],
            "device_domains": [],
            "device_app_servers": [],
        }

        def flush() -> None:
            conn.executemany(f"INSERT INTO devices ({DEVICE_COLUMNS}) VALUES ({_MARKS})", rows)
            for table, pairs in links.items():
                conn.executemany(f"INSERT OR IGNORE INTO {table} VALUES (?, ?)", pairs)
                pairs.clear()
            rows.clear()

        for row, tags, domains, servers in _generate(cat, sub, first, n, seed, now, taken):
            rows.append(row)
            links["device_tags"] += tags
            links["device_domains"] += domains
            links["device_app_servers"] += servers
            added += 1
            if len(rows) >= BATCH:
                flush()
        flush()
        seed_alarms(conn, sub, first, seed=seed, now=now)
        if history and n < BULK_THRESHOLD:
            seed_frames(conn, sub, first, seed=seed, now=now)
        if bulk:
            for statement in [
                *rebuild_domain_sets_sql(first),
                *create_device_indexes_sql().splitlines(),
                *REBUILD_SUMMARIES_SQL,
                *create_derived_triggers_sql(),
                *create_prov_queue_triggers(),
            ]:
                conn.execute(statement)
            # The servers' device counts once from the links, not a trigger per row.
            for statement in [
                *create_link_count_triggers(),
                *REBUILD_LINK_COUNTS,
                *create_tag_count_triggers(),
                *REBUILD_TAG_COUNTS,
            ]:
                conn.execute(statement)
            conn.execute("PRAGMA analysis_limit=1000")  # a sampled ANALYZE is enough
            conn.execute("ANALYZE")
        if part is not None:
            conn.execute("INSERT OR IGNORE INTO demo_parts VALUES (?)", (part,))
    return added


# Alarm IDs of the demo besides 004 (no uplink): a tamper alarm.
TAMPER_ALARM_ID = 12


def seed_alarms(conn: sqlite3.Connection, sub: int, first_uid: int, *, seed: int, now: int) -> int:
    """Alarms behind the counters of devices first_uid.. (the no-uplink alarm 004 of silent
    devices, escalated to MAJOR after 4 days, a tamper alarm, and some cleared and
    acknowledged history), then the counters recomputed from them. Returns how many."""
    rng = random.Random(seed * 7_919 + first_uid)
    who = accounts.DEMO_ACCOUNTS[0][2]
    rows: list[tuple[object, ...]] = []
    for uid, last_up, a3, a5, a6 in conn.execute(
        "SELECT uid, last_up, alarm3, alarm5, alarm6 FROM devices WHERE uid >= ?"
        " AND subscription_id = ?",
        (first_uid, sub),
    ).fetchall():
        if (a3 or a5) and last_up is not None:
            raised = last_up + 2 * DAY_MS
            if a5:
                rows.append((sub, uid, 4, 5, 5, 2, 0, None, None, raised, raised + 2 * DAY_MS))
            else:
                rows.append((sub, uid, 4, 3, 3, 1, 0, None, None, raised, raised))
        if a6:
            ts = now - int(rng.random() * 5 * DAY_MS)
            rows.append((sub, uid, TAMPER_ALARM_ID, 6, 6, 1, 0, None, None, ts, ts))
        if last_up is not None and rng.random() < 0.05:  # an old outage, over and acknowledged
            ts = now - int((10 + rng.random() * 50) * DAY_MS)
            rows.append((sub, uid, 4, 1, 3, 2, 1, who, ts + DAY_MS, ts, ts + DAY_MS // 2))
    rows.sort(key=lambda r: r[9])  # type: ignore[arg-type,return-value]  # by creation
    conn.executemany(
        "INSERT INTO alarms (subscription_id, kind, device_uid, alarm_id, state, level,"
        " occurrence, acked, acked_info, acked_ts, created, updated)"
        " VALUES (?, 'D', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    alarm_store.refresh_counters(conn, "D", None)
    return len(rows)


FRAME_HISTORY_HOURS = 72
HOUR_MS = 3_600_000


def seed_frames(
    conn: sqlite3.Connection,
    sub: int,
    first_uid: int,
    *,
    seed: int,
    now: int,
    last_uid: int | None = None,
) -> int:
    """Hourly traffic buckets of the last three days for devices first_uid..last_uid that
    were heard: their uplinks as the simulator's schedule has them (`links`), up to their
    last one. Streamed: rows are written every FRAME_ROWS, not gathered for the whole
    range."""
    rng = random.Random(seed * 104_729 + first_uid)
    rows: list[tuple[object, ...]] = []
    written = 0
    current = now - now % HOUR_MS
    insert = "INSERT OR IGNORE INTO frame_buckets VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    cursor = conn.execute(
        "SELECT uid, last_up, last_rssi, last_snr FROM devices"
        " WHERE uid >= ? AND uid <= ? AND subscription_id = ? AND last_up IS NOT NULL",
        (first_uid, INT64_LAST if last_uid is None else last_uid, sub),
    )
    for uid, last_up, rssi, snr in cursor.fetchall() if last_uid is not None else cursor:
        rssi = -100.0 if rssi is None else rssi
        snr = 0.0 if snr is None else snr
        period, phase = links.uplink_timing(seed, uid)
        for h in range(FRAME_HISTORY_HOURS):
            ts = current - h * HOUR_MS
            if ts > last_up:
                continue
            end = min(ts + HOUR_MS, last_up + 1)
            up = (end - 1 - phase) // period - (ts - 1 - phase) // period  # uplinks in [ts, end)
            if not up:
                continue
            dw = 1 if rng.random() < 0.12 else 0
            rows.append((uid, ts, up, up * 24, dw, dw * 8, rssi * up, snr * up))
        if len(rows) >= FRAME_ROWS:
            conn.executemany(insert, rows)
            written += len(rows)
            rows.clear()
    conn.executemany(insert, rows)
    return written + len(rows)


INT64_LAST = 2**63 - 1
# Rows gathered before they are written (a few MB of tuples, whatever the fleet's size).
FRAME_ROWS = 20_000


# EUI, name, DevAddr, class, app servers, Site domain, base station tags (subscriber's)
MULTICAST_GROUPS = [
    ("70B3D5E75F000001", "Paris water meters firmware", "FC00AC01", "C",
     ["as-metering"], "France/Paris", ["paris-north", "paris-south"]),
    ("70B3D5E75F000002", "Lyon street lights", "FC00AC02", "C",
     ["as-building", "as-analytics"], "France/Lyon", ["lyon-center"]),
    ("70B3D5E75F000003", "Berlin parking reset", "FC00AC03", "B",
     ["as-parking"], "Germany/Berlin", ["berlin-mitte"]),
    ("70B3D5E75F000004", "Madrid trackers config", "FC00AC04", "C",
     ["as-tracking"], "Spain/Madrid", []),
    ("70B3D5E75F000005", "Metering analytics broadcast", "FC00AC05", "B",
     ["as-metering", "as-analytics"], "France/Toulouse", ["toulouse-capitole"]),
]  # fmt: skip
OPERATOR_BS_TAGS = ["operator-indoor", "operator-rooftop"]
MULTICAST_DELIVERY_ALARM_ID = 21


def seed_multicast(conn: sqlite3.Connection, sub: int, *, seed: int, now: int) -> int:
    """The demo's multicast groups, with downlink history and a few alarms."""
    rng = random.Random(seed * 31 + 5)
    cat = seed_catalog(conn, sub)
    who = accounts.DEMO_ACCOUNTS[0][2]
    for i, (eui, name, devaddr, cls, servers, site, bs_tags) in enumerate(MULTICAST_GROUPS):
        created = now - (90 - i * 7) * DAY_MS
        last_dw = now - int(rng.random() * 3_600_000)
        history = ",".join(str(20 + int(rng.random() * 10)) for _ in range(7))
        cur = conn.execute(
            "INSERT INTO multicast_groups (subscription_id, eui, name, nw_address, app_skey,"
            " class, creation_date, last_dw, first_dw, last_fcnt_dn, history_dw, last_update,"
            " who) VALUES (?, ?, ?, ?, seal(?), ?, ?, ?, ?, ?, ?, ?, ?)",
            (sub, eui, name, devaddr, f"{rng.getrandbits(128):032X}", cls, created, last_dw,
             created + DAY_MS, 1000 + i * 37, history, created, who),
        )  # fmt: skip
        uid = int(cur.lastrowid or 0)
        country = site.split("/")[0]
        conn.execute(
            "INSERT INTO multicast_group_domains VALUES (?, ?)", (uid, cat.domains["Site", site])
        )
        conn.executemany(
            "INSERT INTO multicast_group_app_servers VALUES (?, ?)",
            [(uid, cat.app_servers[s]) for s in servers],
        )
        conn.executemany(
            "INSERT INTO multicast_group_bs_tags VALUES (?, ?, ?)",
            [(uid, t, "SUBSCRIBER") for t in bs_tags]
            + [(uid, t, "OPERATOR") for t in OPERATOR_BS_TAGS[: 1 + i % 2]],
        )
        if i in (1, 3):  # a delivery failing right now
            ts = now - int((1 + rng.random()) * 3_600_000)
            alarm_store.insert(
                conn, subscription_id=sub, kind="M", owner=uid,
                alarm_id=MULTICAST_DELIVERY_ALARM_ID, state=4, ts=ts,
                add_info=f"multicast delivery failed on some base stations ({country})",
            )  # fmt: skip
        ts = now - (5 + i) * DAY_MS  # an old failure, over and acknowledged
        conn.execute(
            "INSERT INTO alarms (subscription_id, kind, group_uid, alarm_id, state, level,"
            " occurrence, acked, acked_info, acked_ts, created, updated)"
            " VALUES (?, 'M', ?, ?, 1, 4, 2, 1, ?, ?, ?, ?)",
            (sub, uid, MULTICAST_DELIVERY_ALARM_ID, who, ts + 7_200_000, ts, ts + 3_600_000),
        )
    alarm_store.refresh_counters(conn, "M", None)
    return len(MULTICAST_GROUPS)


# ref -> type, content type, destinations, security, Site domain
_HTTP = {"ports": "443", "strategy": "BLAST"}
APP_SERVER_DETAILS: dict[str, tuple[str, str | None, list[dict[str, object]], bool, str | None]] = {
    "as-metering": ("HTTP", "json", [
        {"addresses": ["https://metering-a.acme.example/lora", "https://metering-b.acme.example/lora"],
         **_HTTP},
        {"addresses": ["https://backup.acme.example/lora"], "ports": "8443,9000-9010",
         "strategy": "SEQUENTIAL"},
    ], True, None),
    "as-parking": ("HTTP", "jsontyped", [
        {"addresses": ["https://parking.acme.example/uplink"], **_HTTP}], False, "France/Paris"),
    "as-building": ("HTTP", "xml", [
        {"addresses": ["https://bms.acme.example/tpw"], "ports": "*", "strategy": "BLAST"}],
        False, None),
    "as-environment": ("HTTP_CELLULAR", "json", [
        {"addresses": ["https://env.acme.example/cell"], "strategy": "SEQUENTIAL"}], False, None),
    "as-tracking": ("HTTP", "json", [
        {"addresses": ["https://fleet.acme.example/a", "https://fleet.acme.example/b",
                       "https://fleet.acme.example/c"], **_HTTP}], True, "Germany/Berlin"),
    "as-analytics": ("KAFKA", "json", [{"brokerID": "kafka-eu-1", "topicName": "acme.uplinks"}],
                     False, None),
}  # fmt: skip
# Provided by the operator: readable, never writable. The slash tests percent-encoding.
OPERATOR_APP_SERVERS = [
    ("operator/shared-data-lake", "Operator shared data lake", "HTTP"),
    ("operator-kafka-bus", "Operator Kafka bus", "KAFKA"),
]
NETWORK_CONTEXT_DETAILS = {
    "nc-orange-fr": ("Orange France LTE-M", "iot.orange.fr", "20801", "IPV4"),
    "nc-telekom-de": ("Telekom Deutschland NB-IoT", "iot.telekom.de", "26201", "IPV4V6"),
    "nc-movistar-es": ("Movistar Spain LTE-M", "m2m.movistar.es", "21407", "IPV4"),
    "nc-kpn-nl": ("KPN Netherlands LTE-M", "iot.kpn.nl", "20408", "IPV6"),
}
NETWORK_SUBSCRIPTIONS: list[dict[str, object]] = [
    {"ID": "ns-lora-unicast", "name": "LoRaWAN unicast", "commercialName": "LoRaWAN Pro",
     "connectivity": "LORAWAN", "communicationType": "UNICAST", "hsmGroupID": "hsm-eu-west-1",
     "platformCloudRouting": True, "platformKafkaRouting": True,
     "thirdPartyAppServersRouting": True, "supplier": {"ID": "acme-net", "commercialName": "Acme"},
     "granted": 500_000, "used": 0, "maxDestinationPerRoute": 5, "nwGeolocalization": True,
     "prAllowed": True, "uplinkRate": 144, "uplinkRateUnit": "DAY", "downlinkRate": 10,
     "downlinkRateUnit": "DAY", "downlinkTransmission": True, **NETWORK_SUBSCRIPTION_REGULATION},
    {"ID": "ns-lora-multicast", "name": "LoRaWAN multicast", "commercialName": "Multicast",
     "connectivity": "LORAWAN", "communicationType": "MULTICAST", "hsmGroupID": None,
     "platformCloudRouting": False, "platformKafkaRouting": True,
     "thirdPartyAppServersRouting": True, "granted": 100, "used": 5,
     "multicastMaxLrrCells": 100, **NETWORK_SUBSCRIPTION_BACKFILL["ns-lora-multicast"]},
    {"ID": "ns-cellular", "name": "Cellular LTE-M", "commercialName": "LTE-M Europe",
     "connectivity": "CELLULAR", "communicationType": "UNICAST", "hsmGroupID": "hsm-eu-central-1",
     "platformCloudRouting": True, "platformKafkaRouting": False,
     "thirdPartyAppServersRouting": False, "granted": 100_000, "used": 0,
     **NETWORK_SUBSCRIPTION_BACKFILL["ns-cellular"]},
]  # fmt: skip


MULTICAST_NETWORK_SUBSCRIPTION = "ns-lora-multicast"


def seed_network(conn: sqlite3.Connection, sub: int, *, seed: int, now: int) -> None:
    """Application servers (both scopes, destinations, security), network contexts, HSM
    exchange keys and network subscriptions of the demo subscription."""
    rng = random.Random(seed * 17 + 3)
    cat = seed_catalog(conn, sub)
    who = accounts.DEMO_ACCOUNTS[0][2]
    for ref, (kind, content, dests, secure, site) in APP_SERVER_DETAILS.items():
        conn.execute(
            "UPDATE app_servers SET type = ?, content_type = ?, destinations = ?,"
            " security_status = ?, security_as_id = ?, security_key = ?,"
            " security_max_deviation = ?, last_update = ?, who = ?"
            " WHERE subscription_id = ? AND ref = ?",
            (kind, content, json.dumps(dests), "DOWNLINK_AS_KEY" if secure else "NONE",
             f"{ref}.acme" if secure else None,
             f"{rng.getrandbits(128):032X}" if secure else None, 60_000 if secure else None,
             now, who, sub, ref),
        )  # fmt: skip
        if site:
            conn.execute(
                "INSERT OR IGNORE INTO app_server_domains VALUES (?, ?)",
                (cat.app_servers[ref], cat.domains["Site", site]),
            )
    conn.executemany(
        "INSERT OR IGNORE INTO app_servers (subscription_id, ref, name, scope, type, state,"
        " validation_state, health_state, destinations) VALUES (?, ?, ?, 'OPERATOR', ?, 'ACTIVE',"
        " 'VALIDATED', 'ACTIVE', '[]')",
        [(sub, ref, name, kind) for ref, name, kind in OPERATOR_APP_SERVERS],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO network_contexts (subscription_id, ref, name, apn, plmn_id,"
        " ip_version, description) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(sub, ref, name, apn, plmn, ip, f"{name} (demo)")
         for ref, (name, apn, plmn, ip) in NETWORK_CONTEXT_DETAILS.items()],
    )  # fmt: skip
    # The version of each group's exchange key: the key pair itself is made by the
    # "key-manager" part (demo_km.py), a real RSA pair whose private half stays here.
    conn.executemany(
        "UPDATE hsm_groups SET exchange_key_version = ? WHERE subscription_id = ? AND ref = ?",
        [(i + 1, sub, ref) for i, (ref, _) in enumerate(HSM_GROUPS)],
    )
    used = conn.execute(
        "SELECT connectivity, count(*) FROM devices WHERE subscription_id = ? GROUP BY 1", (sub,)
    ).fetchall()
    counts = dict(used)
    for body in NETWORK_SUBSCRIPTIONS:
        body = dict(body)
        if body["communicationType"] == "UNICAST":
            body["used"] = counts.get(body["connectivity"], 0)
        conn.execute(
            "INSERT OR IGNORE INTO network_subscriptions (subscription_id, ref, body)"
            " VALUES (?, ?, ?)",
            (sub, body["ID"], json.dumps(body)),
        )
    # The demo's multicast groups go through the multicast network subscription.
    conn.execute(
        "UPDATE multicast_groups SET network_subscription = ? WHERE subscription_id = ?"
        " AND network_subscription IS NULL",
        (MULTICAST_NETWORK_SUBSCRIPTION, sub),
    )


# The application scope's demo: the console itself (an ID with a slash, as real ones have)
# and a web portal, and a platform user (platform ID, OpenID sub) for every demo account.
DEMO_APPLICATIONS = (
    ("lpwa/console", "LPWA Console",
     "Desktop console for devices, base stations, keys and alarms", "LPWA Console project"),
    ("acme/metering-portal", "Metering portal",
     "Acme Utilities' web portal for meter readings", "Acme Utilities"),
)  # fmt: skip


def seed_applications(conn: sqlite3.Connection, *, now: int) -> None:
    from .store import applications as application_store  # only when the part is missing

    for ref, name, description, publisher in DEMO_APPLICATIONS:
        if application_store.find_application(conn, ref=ref) is None:
            application_store.create_application(conn, ref, name, description, publisher, now)
    application_store.create_missing_users(conn, now, "demo.lpwa.example")


# The parts of the demo, as recorded in `demo_parts` (db.py step 5): a database made before a
# part existed gets it on its next start, once. "routing-cellular": the cellular AS routing
# profile (a database made before step 8 has the LoRaWAN one only).
DEMO_PARTS = (
    "accounts", "devices", "multicast", "network", "routing-cellular", "device-catalog",
    "stations", "key-manager", "applications", "operations", "supplier", "operator-catalogs",
    "hsm-option", "tenants",
)  # fmt: skip


def seed_hsm_option(conn: sqlite3.Connection, sub: int) -> None:
    """The demo subscription's option hsm ACTIVATED: its devices and key manager use HSM
    groups, which the option DEACTIVATED refuses (Document 1 §2.2, enforced since issue 21;
    older demos were made DEACTIVATED)."""
    conn.execute("UPDATE subscriptions SET hsm = 'ACTIVATED' WHERE id = ?", (sub,))


def seed_operations(conn: sqlite3.Connection, *, now: int) -> None:
    """LoRaWAN debugging on for one LoRaWAN device in fifty (the operator's `lorawanDebug`
    filter has something to find), since an hour to two days ago."""
    conn.execute(
        "UPDATE devices SET lorawan_debug = 1,"
        " lorawan_debug_since = ? - 3600000 - (uid % 48) * 3600000"
        " WHERE uid % 50 = 7 AND connectivity = 'LORAWAN'",
        (now,),
    )


def done_parts(db: Database) -> set[str]:
    """The demo parts this database has already (all of them: nothing to create)."""
    done = {row[0] for row in db.conn().execute("SELECT name FROM demo_parts")}
    if "base" in done:  # recorded by versions that seeded accounts and devices as one part
        done |= {"accounts", "devices"}
    return done


def needs_demo(db: Database) -> bool:
    return not done_parts(db) >= set(DEMO_PARTS)


def prepare(settings: SandboxSettings, *, history: bool = True) -> Database:
    """Open the database; a new one gets the demo accounts and network, an older one the
    demo parts added since it was made. The devices' traffic history too, unless `history`
    is False: the server then calls `fill_history` once it listens."""
    db = Database(settings.db_path)
    done = done_parts(db)
    if "devices" in done and not {HISTORY_PART, HISTORY_PENDING} & done:
        # Made before the history was a part of its own: its devices have theirs already.
        with db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO demo_parts VALUES (?)", (HISTORY_PART,))
    if done >= set(DEMO_PARTS):
        if history and history_pending(db):
            fill_history(db, settings)
        return db
    started = time.perf_counter()
    # Imported only when a part is missing: a warm start needs none of them.
    from . import demo_km, demo_suppliers, demo_tenants, km_crypto
    from .demo_catalog import seed_device_catalog
    from .demo_operator_catalog import seed_operator_catalogs
    from .demo_stations import seed_demo_partners

    # Each part commits with its record: a first start interrupted half-way (a large demo
    # takes minutes) resumes on the next start instead of failing on what it already made.
    # The demo is the network as it stands, not requests to provision it: its parts put
    # nothing in the provisioning queue (the triggers are back at the end; an interrupted
    # start gets them back on its next one, which resumes here).
    with db.write() as conn:
        for statement in drop_prov_queue_triggers():
            conn.execute(statement)
    if "accounts" not in done:
        with db.write() as conn:
            accounts.create_demo_accounts(conn)
            conn.execute("INSERT INTO demo_parts VALUES ('accounts')")
    if "key-manager" not in done:  # its key pairs, made while the devices are written
        km_crypto.make_rsa_pairs_ahead(1 + len(HSM_GROUPS))
    if "devices" not in done:
        # The traffic history (half of a new demo's time) follows once the sandbox listens.
        with db.write() as conn:  # first: the devices' history is owed (fill_history)
            conn.execute("INSERT OR IGNORE INTO demo_parts VALUES (?)", (HISTORY_PENDING,))
        seed_devices(db, settings.demo_devices, seed=settings.seed, part="devices", history=False)
    other_sub: int | None = None
    if "tenants" not in done:  # the second subscription's devices, in their own transaction
        with db.write() as conn:
            other_sub = demo_tenants.other_subscription(conn, now=int(time.time() * 1000))
            seeded = demo_tenants.has_devices(conn, other_sub)
            for statement in drop_prov_queue_triggers():  # the devices' bulk seeding put them back
                conn.execute(statement)
        # As many as the first tenant's, up to a few dozen (`seed` makes a demo without any).
        other_devices = min(demo_tenants.OTHER_DEVICES, settings.demo_devices)
        if not seeded and other_devices:
            seed_devices(
                db, other_devices, seed=settings.seed, history=False,
                subscription_ref=demo_tenants.OTHER_SUBSCRIPTION_REF,
            )  # fmt: skip
        with db.write() as conn:
            demo_tenants.without_hsm(conn, other_sub)
    with db.write() as conn:
        sub = conn.execute(
            "SELECT id FROM subscriptions WHERE ref = ?", (accounts.SUBSCRIPTION_REF,)
        ).fetchone()[0]
        now = int(time.time() * 1000)
        for statement in drop_prov_queue_triggers():  # a bulk seeding of devices put them back
            conn.execute(statement)
        if "hsm-option" not in done:  # before the parts that make HSM groups and keys
            seed_hsm_option(conn, sub)
        if "multicast" not in done:
            seed_multicast(conn, sub, seed=settings.seed, now=now)
        if "network" not in done:
            seed_network(conn, sub, seed=settings.seed, now=now)
        if "routing-cellular" not in done:
            seed_routing_profiles(conn, sub)
        if "device-catalog" not in done:
            seed_device_catalog(conn)
        if "stations" not in done:
            seed_demo_partners(conn, sub, seed=settings.seed, now=now)
        if "key-manager" not in done:
            demo_km.seed_key_manager(conn, sub, seed=settings.seed, now=now)
        if "applications" not in done:
            seed_applications(conn, now=now)
        if "operations" not in done:
            seed_operations(conn, now=now)
        if "supplier" not in done:
            demo_suppliers.seed_supplier(conn, seed=settings.seed, now=now)
        if "operator-catalogs" not in done:  # after the device catalog it describes
            seed_operator_catalogs(conn, now)
        if other_sub is not None:  # last: the first tenant's UIDs stay what they were
            demo_tenants.seed_rest(conn, other_sub, seed=settings.seed, now=now)
        for statement in create_prov_queue_triggers():
            conn.execute(statement)
        conn.executemany(
            "INSERT OR IGNORE INTO demo_parts VALUES (?)", [(part,) for part in DEMO_PARTS]
        )
    log.info(
        "database %s: demo parts %s added in %.1f s",
        settings.db_path,
        ", ".join(sorted(set(DEMO_PARTS) - done)),
        time.perf_counter() - started,
    )
    if history:
        fill_history(db, settings)
    return db


HISTORY_PART = "traffic-history"
# Recorded with demo devices whose traffic history is still to be made.
HISTORY_PENDING = "traffic-history-pending"


HEALTH_PART = "station-health"
# The dashboard's KPI samples of the history's hours (store/kpis.py), made from it.
KPI_PART = "kpi-history"


def history_pending(db: Database) -> bool:
    """The demo's traffic or station history is still to be made (`fill_history`)."""
    return not {HISTORY_PART, HEALTH_PART, KPI_PART} <= done_parts(db)


def history_devices(db: Database) -> int:
    """How many devices the database holds: what decides whether the demo history is made
    (not the serve setting's demo size, which a `seed` run since then no longer describes)."""
    return int(db.conn().execute("SELECT count(*) FROM devices").fetchone()[0])


# The demo history is made for a database of at most this many devices (the default demo
# is 2,000): beyond, as after a bulk `seed`, the simulator makes the history as it runs.
# The station part is one transaction (its sums are not safe to resume half-way), so this
# bound is what keeps it to a fraction of a second.
HISTORY_MAX_DEVICES = 5_000
# Devices whose traffic buckets (up to 72 each) are written per transaction: the write
# lock is held for tens of milliseconds at a time, and sign-in's token insert gets in
# between.
HISTORY_BATCH = 250


def _frames_in_batches(db: Database, settings: SandboxSettings, now: int) -> None:
    """The traffic buckets, HISTORY_BATCH devices per transaction (the part is recorded
    after the last). Buckets are INSERT OR IGNORE and each batch's random draws are seeded
    by its first uid, so a run interrupted half-way makes the same rows again next time."""
    conn = db.conn()
    sub = conn.execute(
        "SELECT id FROM subscriptions WHERE ref = ?", (accounts.SUBSCRIPTION_REF,)
    ).fetchone()[0]
    after = 0
    while True:
        row = conn.execute(
            "SELECT max(uid) FROM (SELECT uid FROM devices WHERE uid > ? ORDER BY uid LIMIT ?)",
            (after, HISTORY_BATCH),
        ).fetchone()
        if row[0] is None:
            return
        with db.write() as wconn:
            seed_frames(wconn, sub, after + 1, seed=settings.seed, now=now, last_uid=row[0])
        after = int(row[0])


def fill_history(db: Database, settings: SandboxSettings) -> None:
    """Three days of hourly traffic for the demo devices, made after the sandbox listens:
    a new data folder shows its devices without waiting for these ~100,000 rows. A database
    of more than HISTORY_MAX_DEVICES devices (a bulk seeding) has none. Each part is made in
    transactions short enough for requests to write between them."""
    started = time.perf_counter()
    now = int(time.time() * 1000)
    small = history_devices(db) <= HISTORY_MAX_DEVICES
    done = done_parts(db)
    if HISTORY_PART not in done:
        if small:
            _frames_in_batches(db, settings, now)
        with db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO demo_parts VALUES (?)", (HISTORY_PART,))
            conn.execute("DELETE FROM demo_parts WHERE name = ?", (HISTORY_PENDING,))
    if HEALTH_PART not in done:
        with db.write() as conn:
            if small:
                # A past day of station reports and the stations that heard each device,
                # from the traffic above (numpy is imported only here).
                from .station_sim import StationSimulator

                StationSimulator(settings.seed).backfill(conn, now)
                # A quarter of the demo's stations send Class B beacons (alarm 111 for
                # those that fail them: station_trouble.py).
                conn.execute("UPDATE station_runtime SET beacon = 1 WHERE bs_uid % 4 = 1")
            conn.execute("INSERT OR IGNORE INTO demo_parts VALUES (?)", (HEALTH_PART,))
    if KPI_PART not in done:
        with db.write() as conn:
            if small:
                from .store import kpis as kpi_store

                kpi_store.backfill(conn, now)
            conn.execute("INSERT OR IGNORE INTO demo_parts VALUES (?)", (KPI_PART,))
    log.info("demo traffic and station history made in %.1f s", time.perf_counter() - started)
