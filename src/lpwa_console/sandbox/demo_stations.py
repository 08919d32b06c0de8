"""The demo's network partners and base stations (demo part "stations").

Acme Utilities, the demo subscription, is also a network partner (a subscriber partner, as in
ThingPark Enterprise): its accounts see its stations, placed in the districts of the cities
where its devices are, with the Site domain of their city. A second partner, Demo Network
Partner (a supplier partner, with a grant), has a few stations of its own; the `partner`
account acts for it. `partner-restricted` acts for Acme within France only.

`seed_stations` adds N stations in bulk (the `seed` command and the benchmark): past
BULK_THRESHOLD rows it drops the station indexes and triggers and rebuilds them once.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator

from . import accounts
from .db import (
    Database,
    create_prov_queue_triggers,
    create_station_indexes_sql,
    create_station_triggers_sql,
    drop_prov_queue_triggers,
    drop_station_indexes_sql,
    drop_station_triggers_sql,
    rebuild_station_sets_sql,
)
from .demo_places import CITIES, CITY_WEIGHTS
from .store import partners as partner_store
from .store import station_alarms as alarm_store
from .store.stations import STATION_MODELS

DAY_MS = 86_400_000
BULK_THRESHOLD = 5_000
BATCH = 50_000
SUPPLIER_PARTNER_REF = "demo-networks"
SUPPLIER_PARTNER_GRANT = 40

# Stations name an RF region of the operator's catalog (demo_operator_catalog.RF_REGIONS).
DEMO_RF_REGION = "EU868_DEFAULT"
SITES = ["rooftop", "tower", "water tower", "depot", "mast", "substation"]
MODEL_IDS = list(STATION_MODELS)
VERSIONS = ["2.4.54", "2.4.60", "2.6.12", "2.6.15"]
TAGS = ["rooftop", "indoor", "macro", "pilot", "solar"]
DEFAULT_102 = json.dumps([{"duration": "PT30S", "severity": 6}])
# The platform gives alarm 103 no default (Document 2 §2.4); the demo operator gives every
# station these (the die stays thrown, so the demo's other values stay as they were).
DEFAULT_103 = json.dumps([{"duration": "PT1H", "severity": 4}, {"duration": "PT6H", "severity": 5}])

STATION_COLUMNS = (
    "uid, partner_uid, lrr_id, name, model, state, state_since, health_state, cnx_state,"
    " cnx_since, creation_date, last_up, last_dw, last_reboot, last_report, sw_version,"
    " min_rc, rf_region_id, ism_band, lat, lon, alt, security_type, security_expiration,"
    " security_generation, gps_receiver, rf_probe, alarm102, alarm103, cpu, ram, last_update, who"
)
_MARKS = ", ".join("?" * len(STATION_COLUMNS.split(",")))


def lrr_id_for(uid: int) -> str:
    """A station's demo lrrID from its UID: never reserved (below FFFE0000, never 0)."""
    return f"{0x10000000 + uid:08X}"


def _generate(
    partner_uid: int, first_uid: int, n: int, *, seed: int, now: int, who: str
) -> Iterator[tuple[tuple[object, ...], str, str, list[str]]]:
    """(row, country, city, tags) for stations first_uid .. first_uid + n - 1."""
    rng = random.Random(seed * 15_485_863 + first_uid + partner_uid)
    rand = rng.random
    cities = rng.choices(range(len(CITIES)), CITY_WEIGHTS, k=n)
    counters: dict[str, int] = {}
    for i in range(n):
        uid = first_uid + i
        city, country, clat, clon, districts = CITIES[cities[i]]
        district = districts[int(rand() * len(districts))]
        number = counters[city] = counters.get(city, 0) + 1
        name = f"{city} {district} {SITES[int(rand() * len(SITES))]} {number:02d}"
        # Over the devices' spread (±0.08° lat, ±0.12° lon around the centre).
        lat = round(clat + (rand() - 0.5) * 0.15, 6)
        lon = round(clon + (rand() - 0.5) * 0.22, 6)
        created = now - int((30 + rand() * 700) * DAY_MS)
        roll = rand()
        if roll < 0.04:
            health, cnx, since = "INIT", "NEVERCNX", None
        elif roll < 0.10:
            health, cnx, since = "BACKHAUL_CNX_ERROR", "DISC", now - int(rand() * 3 * DAY_MS)
        elif roll < 0.13:
            health, cnx, since = "RF_ERROR", "CNX", now - int(rand() * 20 * DAY_MS)
        else:
            health, cnx, since = "ACTIVE", "CNX", now - int(rand() * 20 * DAY_MS)
        heard = cnx != "NEVERCNX"
        last_up = (since if cnx == "DISC" else now - int(rand() * 60_000)) if heard else None
        reboot = now - int((1 + rand() * 60) * DAY_MS) if heard else None
        model = MODEL_IDS[int(rand() * len(MODEL_IDS))]
        secured = rand() < 0.7
        row = (
            uid, partner_uid, lrr_id_for(uid), name, model, "ACTIVE", created, health, cnx, since,
            created, last_up, None if last_up is None else last_up - int(rand() * 600_000),
            reboot, last_up, VERSIONS[int(rand() * len(VERSIONS))] if heard else None,
            int(rand() * 100) if heard else None, DEMO_RF_REGION,
            "eu868", lat, lon, int(5 + rand() * 60), "IPSEC_X509" if secured else "DISABLE",
            now + int((rand() * 400 - 20) * DAY_MS) if secured else None,
            created if secured else None, "PRESENT" if rand() < 0.8 else "ABSENT",
            int(rand() < 0.15), DEFAULT_102, DEFAULT_103 if rand() < 2 else "[]",
            int(5 + rand() * 40) if heard else None, int(20 + rand() * 50) if heard else None,
            created, who,
        )  # fmt: skip
        tags = [TAGS[int(rand() * len(TAGS))]] if rand() < 0.6 else []
        yield row, country, city, tags


def seed_stations(
    conn: sqlite3.Connection,
    partner_uid: int,
    n: int,
    *,
    seed: int = 1,
    now: int,
    who: str = "seed",
) -> int:
    """Add `n` stations to the partner (inside the caller's transaction), with Site domains
    for a subscriber partner and a few tags. Returns how many were added."""
    partner = partner_store.get(conn, partner_uid)
    assert partner is not None
    sub = partner["subscription_id"]
    first = int(conn.execute("SELECT coalesce(max(uid), 0) + 1 FROM stations").fetchone()[0])
    bulk = n >= BULK_THRESHOLD
    if bulk:
        for statement in [
            *drop_station_indexes_sql(),
            *drop_station_triggers_sql(),
            *drop_prov_queue_triggers(),  # seeding provisions nothing
        ]:
            conn.execute(statement)
    domain_ids: dict[str, int] = {}
    tag_ids: dict[str, int] = {}
    for tag in TAGS:
        conn.execute(
            "INSERT OR IGNORE INTO station_tag_names (partner_uid, name) VALUES (?, ?)",
            (partner_uid, tag),
        )
        tag_ids[tag] = conn.execute(
            "SELECT id FROM station_tag_names WHERE partner_uid = ? AND name = ?",
            (partner_uid, tag),
        ).fetchone()[0]
    rows: list[tuple[object, ...]] = []
    domain_links: list[tuple[int, int]] = []
    tag_links: list[tuple[int, int]] = []

    def flush() -> None:
        conn.executemany(f"INSERT INTO stations ({STATION_COLUMNS}) VALUES ({_MARKS})", rows)
        conn.executemany("INSERT OR IGNORE INTO station_domains VALUES (?, ?)", domain_links)
        conn.executemany("INSERT OR IGNORE INTO station_tags VALUES (?, ?)", tag_links)
        rows.clear()
        domain_links.clear()
        tag_links.clear()

    added = 0
    for row, country, city, tags in _generate(partner_uid, first, n, seed=seed, now=now, who=who):
        uid = int(row[0])  # type: ignore[call-overload]
        rows.append(row)
        if sub is not None:
            site = f"{country}/{city}"
            if site not in domain_ids:
                conn.execute(
                    "INSERT OR IGNORE INTO domains (subscription_id, grp, name) VALUES (?, ?, ?)",
                    (sub, "Site", site),
                )
                domain_ids[site] = conn.execute(
                    "SELECT id FROM domains WHERE subscription_id = ? AND grp = 'Site'"
                    " AND name = ?",
                    (sub, site),
                ).fetchone()[0]
            domain_links.append((uid, domain_ids[site]))
        tag_links += [(uid, tag_ids[t]) for t in tags]
        added += 1
        if len(rows) >= BATCH:
            flush()
    flush()
    if bulk:
        _bulk_alarms(conn, first, seed=seed, now=now)
        for statement in [
            *rebuild_station_sets_sql(),
            *create_station_indexes_sql(),
            *create_station_triggers_sql(),
            *create_prov_queue_triggers(),
        ]:
            conn.execute(statement)
        conn.execute("PRAGMA analysis_limit=1000")
        conn.execute("ANALYZE")
    return added


def _bulk_alarms(conn: sqlite3.Connection, first_uid: int, *, seed: int, now: int) -> None:
    """Bulk seeding's alarms, inserted at once (the per-station raise would take minutes):
    102 on the disconnected stations, 103 on those in RF error, a CPU alarm on a few; then
    every station's counters once. Their domain sets come with the rebuild that follows."""
    rng = random.Random(seed * 7_907 + first_uid)
    rows: list[tuple[object, ...]] = []
    for uid, partner, cnx, health, since, a103 in conn.execute(
        "SELECT uid, partner_uid, cnx_state, health_state, cnx_since, alarm103 FROM stations"
        " WHERE uid >= ?",
        (first_uid,),
    ):
        if cnx == "DISC":
            ts = (since or now) + 30_000
            rows.append((partner, uid, 102, 6, 6, ts, ts, None))
        if health == "RF_ERROR" and _has_thresholds(a103):  # (no thresholds, no alarm 103)
            ts = now - int(rng.random() * DAY_MS)
            rows.append((partner, uid, 103, 4, 4, ts, ts, None))
        if rng.random() < 0.06:
            ts = now - int(rng.random() * DAY_MS)
            rows.append((partner, uid, 106, 4, 4, ts, ts, str(85 + int(rng.random() * 14))))
    rows.sort(key=lambda r: r[5])  # type: ignore[arg-type,return-value]  # by creation
    conn.executemany(
        "INSERT INTO station_alarms (partner_uid, bs_uid, alarm_id, state, level, created,"
        " updated, add_info2) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    alarm_store.refresh_counters(conn, None)


def _has_thresholds(alarm103: str | None) -> bool:
    return bool(json.loads(alarm103 or "[]"))


def seed_station_alarms(conn: sqlite3.Connection, first_uid: int, *, seed: int, now: int) -> int:
    """Alarms of stations first_uid..: 102 (connection lost) on the disconnected ones, a
    CPU, RAM or disk alarm on a few, 103 on stations in RF error, and some cleared history.
    Through the store's raise/clear, as the simulator does. Returns how many were raised."""
    rng = random.Random(seed * 31_337 + first_uid)
    raised = 0
    for uid, health, cnx, since, cpu, ram, a103 in conn.execute(
        "SELECT uid, health_state, cnx_state, cnx_since, cpu, ram, alarm103 FROM stations"
        " WHERE uid >= ? ORDER BY uid",
        (first_uid,),
    ).fetchall():
        if rng.random() < 0.25:  # an old outage, over (before any current one)
            start = now - int((4 + rng.random() * 20) * DAY_MS)
            alarm_store.raise_alarm(conn, uid, 102, 6, None, start)
            alarm_store.clear_alarm(conn, uid, 102, start + int(rng.random() * 3_600_000))
        if cnx == "DISC":
            alarm_store.raise_alarm(conn, uid, 102, 6, None, (since or now) + 30_000)
            raised += 1
        if health == "RF_ERROR":
            when = now - int(rng.random() * DAY_MS)  # (the die stays thrown)
            if _has_thresholds(a103):  # no thresholds, no alarm 103
                alarm_store.raise_alarm(conn, uid, 103, 4, None, when)
                raised += 1
        roll = rng.random()
        if roll < 0.08 and cpu is not None:
            alarm_store.raise_alarm(
                conn, uid, 106, 4, str(85 + int(rng.random() * 14)), now - 3_600_000
            )
            raised += 1
        elif roll < 0.12 and ram is not None:
            alarm_store.raise_alarm(
                conn, uid, 107, 3, str(80 + int(rng.random() * 15)), now - 7_200_000
            )
            raised += 1
        elif roll < 0.15:
            alarm_store.raise_alarm(
                conn, uid, 108, 5, str(90 + int(rng.random() * 9)), now - 5_400_000
            )
            raised += 1
    return raised


def _account(
    conn: sqlite3.Connection,
    role: str,
    client_id: str,
    name: str,
    partner_uid: int,
    permissions: list[str],
    restrictions: dict[str, object] | None,
) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO accounts (role, client_id, client_secret, name, subscription_id,"
        " permissions, rights, restrictions, partner_uid) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)",
        (
            role, client_id, accounts.demo_secret_hash(conn, client_id), name,
            json.dumps(permissions),
            json.dumps(["PARTNER::ADMIN"]), json.dumps(restrictions) if restrictions else None,
            partner_uid,
        ),
    )  # fmt: skip


def seed_demo_partners(
    conn: sqlite3.Connection, sub: int, *, seed: int, now: int, stations: int = 36
) -> tuple[int, int]:
    """The demo part "stations": the two partners, their accounts and stations. Returns
    the partners' UIDs (Acme's, the supplier partner's)."""
    acme = partner_store.of_subscription(conn, sub)
    if acme is None:
        name = conn.execute("SELECT name FROM subscriptions WHERE id = ?", (sub,)).fetchone()[0]
        ref = conn.execute("SELECT ref FROM subscriptions WHERE id = ?", (sub,)).fetchone()[0]
        acme = partner_store.create(conn, "SUBSCRIBER", ref, name, now=now, subscription_id=sub)
    partner_store.link_accounts(conn, acme, subscription_id=sub)
    other = partner_store.find(conn, "SUPPLIER", SUPPLIER_PARTNER_REF)
    if other is None:
        other = partner_store.create(
            conn, "SUPPLIER", SUPPLIER_PARTNER_REF, "Demo Network Partner", now=now,
            granted=SUPPLIER_PARTNER_GRANT,
        )  # fmt: skip
    every = json.dumps(["x", "a", "ra", "rc", "s1"])
    conn.execute(
        "UPDATE accounts SET partner_uid = ?, permissions = ? WHERE role = 'partner'",
        (other, every),
    )
    _account(
        conn, "partner-restricted", "partner-france", "Acme Utilities (France field team)",
        acme, ["x", "a"], accounts.FRANCE_ONLY,
    )  # fmt: skip
    who = accounts.DEMO_ACCOUNTS[0][2]
    first = int(conn.execute("SELECT coalesce(max(uid), 0) + 1 FROM stations").fetchone()[0])
    seed_stations(conn, acme, stations, seed=seed, now=now, who=who)
    seed_stations(conn, other, 12, seed=seed + 1, now=now, who="Demo Network Partner")
    seed_station_alarms(conn, first, seed=seed, now=now)
    for uid, lrr in conn.execute(
        "SELECT partner_uid, lrr_id FROM stations ORDER BY uid"
    ).fetchall():
        conn.execute(
            "INSERT INTO station_credit_transactions (partner_uid, ts, type, amount, lrr_id, who)"
            " VALUES (?, ?, 'STATION_CREATED', -1, ?, ?)",
            (uid, now, lrr, who),
        )
    return acme, other


def seed_more_stations(db: Database, n: int, *, seed: int = 1, now: int) -> int:
    """`seed`: add `n` stations to the demo subscription's partner in one transaction."""
    with db.write() as conn:
        sub = conn.execute(
            "SELECT id FROM subscriptions WHERE ref = ?", (accounts.SUBSCRIPTION_REF,)
        ).fetchone()[0]
        partner = partner_store.of_subscription(conn, sub)
        if partner is None:
            partner, _ = seed_demo_partners(conn, sub, seed=seed, now=now, stations=0)
        first = int(conn.execute("SELECT coalesce(max(uid), 0) + 1 FROM stations").fetchone()[0])
        added = seed_stations(conn, partner, n, seed=seed, now=now)
        if n < BULK_THRESHOLD:  # (bulk seeding made its alarms already)
            seed_station_alarms(conn, first, seed=seed, now=now)
        return added
