"""SQLite access: WAL, foreign keys, one connection per thread, ordered migrations.

The schema version lives in `PRAGMA user_version`: step N of `MIGRATIONS` has run when
user_version >= N. A step is never edited once shipped; a change is a new step.

The file holds client secrets and live tokens: it is made readable by its owner only, and
a database this version cannot safely write (newer schema, read-only) is refused up front.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Secondary indexes of the devices table and its link tables. Bulk seeding drops and
# rebuilds them (a sorted build is far faster than a million random inserts).
DEVICE_INDEXES: dict[str, str] = {
    # Every list query is "this subscription, ordered by X": uid closes ties and makes the
    # index covering for the page's uid list.
    "ix_devices_name": "devices(subscription_id, name, uid)",
    "ix_devices_created": "devices(subscription_id, creation_date, uid)",
    "ix_devices_lastup": "devices(subscription_id, last_up, uid)",
    "ix_devices_lastdw": "devices(subscription_id, last_dw, uid)",
    "ix_devices_sf": "devices(subscription_id, last_sf, uid)",
    "ix_devices_snr": "devices(subscription_id, avg_snr, uid)",
    "ix_devices_bat": "devices(subscription_id, last_bat, uid)",
    # Equality filters: the domain set after the value, so a restricted count stays in the index.
    "ix_devices_health_ds": "devices(subscription_id, health, domain_set)",
    "ix_devices_alarm_ds": "devices(subscription_id, alarm_level, domain_set)",
    # Clusters scan boxes by latitude with the domain set at hand (restricted users).
    "ix_devices_geo_ds": "devices(subscription_id, lat, lon, domain_set)",
    # A map tile's devices (clusters: the summary's upkeep and the box's edge tiles).
    "ix_devices_tile": "devices(subscription_id, tile_y, tile_x, domain_set, lat, lon)",
    # The count of a restricted user's devices: a range per visible domain set.
    "ix_devices_domain_set": "devices(subscription_id, domain_set)",
    "ix_devices_conn_ds": "devices(subscription_id, connectivity, domain_set)",
    "ix_devices_atk_ds": "devices(subscription_id, as_transport_key, domain_set)",
    "ix_devices_netctx_ds": "devices(subscription_id, network_context_id, domain_set)",
    "ix_devices_imei": "devices(subscription_id, last_imei)",
    "ix_devices_imsi": "devices(subscription_id, imsi)",
    "ix_devices_iccid": "devices(subscription_id, iccid)",
    "ix_devices_eid": "devices(subscription_id, eid)",
    "ix_device_tags_rev": "device_tags(tag_id, device_uid)",
    "ix_device_domains_rev": "device_domains(domain_id, device_uid)",
    "ix_device_app_servers_rev": "device_app_servers(app_server_id, device_uid)",
}

_V1 = """
CREATE TABLE subscriptions (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    hsm TEXT NOT NULL DEFAULT 'DEACTIVATED',
    show_tag_suggestions INTEGER NOT NULL DEFAULT 1,
    creation_ts INTEGER NOT NULL
);
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    role TEXT NOT NULL,
    client_id TEXT NOT NULL UNIQUE,
    client_secret TEXT NOT NULL,
    name TEXT NOT NULL,
    subscription_id INTEGER REFERENCES subscriptions(id),
    permissions TEXT NOT NULL DEFAULT '[]',   -- JSON: x, a, ra, rc, s1
    rights TEXT NOT NULL DEFAULT '[]',        -- JSON: LPWA_MGR::READ_NODE ...
    restrictions TEXT                          -- JSON domainRestrictions, NULL when none
);
CREATE TABLE tokens (
    token TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE device_models (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    commercial_name TEXT NOT NULL,
    connectivity TEXT NOT NULL
);
CREATE TABLE app_servers (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (subscription_id, ref)
);
CREATE TABLE as_transport_keys (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (subscription_id, ref)
);
CREATE TABLE hsm_groups (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (subscription_id, ref)
);
CREATE TABLE routing_profiles (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    as_transport_key TEXT,
    UNIQUE (subscription_id, ref)
);
CREATE TABLE routing_profile_app_servers (
    profile_id INTEGER NOT NULL REFERENCES routing_profiles(id) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (profile_id, app_server_id)
) WITHOUT ROWID;
CREATE TABLE domains (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    grp TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (subscription_id, grp, name)
);
CREATE TABLE tags (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    name TEXT NOT NULL,
    UNIQUE (subscription_id, name)
);
CREATE TABLE devices (
    uid INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    eui TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    connectivity TEXT NOT NULL,
    activation TEXT,
    model_id INTEGER REFERENCES device_models(id),
    health TEXT NOT NULL DEFAULT 'INIT',
    creation_date INTEGER NOT NULL,
    last_up INTEGER,
    last_dw INTEGER,
    last_sf INTEGER,
    last_rssi REAL,
    last_snr REAL,
    avg_snr REAL,
    last_bat INTEGER,
    lat REAL,
    lon REAL,
    admin_lat REAL,
    admin_lon REAL,
    nw_address TEXT,
    app_eui TEXT,
    app_key TEXT,
    app_skey TEXT,
    as_transport_key TEXT,
    hsm_group_id TEXT,
    routing_profile_id INTEGER REFERENCES routing_profiles(id),
    customer_admin_data TEXT,
    network_context_id TEXT,
    last_imei TEXT,
    imsi TEXT,
    iccid TEXT,
    eid TEXT,
    alarm1 INTEGER NOT NULL DEFAULT 0,
    alarm2 INTEGER NOT NULL DEFAULT 0,
    alarm3 INTEGER NOT NULL DEFAULT 0,
    alarm4 INTEGER NOT NULL DEFAULT 0,
    alarm5 INTEGER NOT NULL DEFAULT 0,
    alarm6 INTEGER NOT NULL DEFAULT 0,
    alarm_level INTEGER NOT NULL DEFAULT 0,
    alarm004 TEXT,          -- JSON thresholds
    history_up TEXT,        -- comma-separated uplinks per day, oldest first
    marker_id INTEGER,
    UNIQUE (subscription_id, eui)
);
CREATE TABLE device_tags (
    device_uid INTEGER NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    PRIMARY KEY (device_uid, tag_id)
) WITHOUT ROWID;
CREATE TABLE device_domains (
    device_uid INTEGER NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (device_uid, domain_id)
) WITHOUT ROWID;
CREATE TABLE device_app_servers (
    device_uid INTEGER NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (device_uid, app_server_id)
) WITHOUT ROWID;
"""


# Step 2 as shipped (later steps changed DEVICE_INDEXES; a shipped step never changes).
_V2 = """
CREATE INDEX IF NOT EXISTS ix_devices_name ON devices(subscription_id, name, uid);
CREATE INDEX IF NOT EXISTS ix_devices_created ON devices(subscription_id, creation_date, uid);
CREATE INDEX IF NOT EXISTS ix_devices_lastup ON devices(subscription_id, last_up, uid);
CREATE INDEX IF NOT EXISTS ix_devices_lastdw ON devices(subscription_id, last_dw, uid);
CREATE INDEX IF NOT EXISTS ix_devices_sf ON devices(subscription_id, last_sf, uid);
CREATE INDEX IF NOT EXISTS ix_devices_snr ON devices(subscription_id, avg_snr, uid);
CREATE INDEX IF NOT EXISTS ix_devices_bat ON devices(subscription_id, last_bat, uid);
CREATE INDEX IF NOT EXISTS ix_devices_health ON devices(subscription_id, health, uid);
CREATE INDEX IF NOT EXISTS ix_devices_alarm ON devices(subscription_id, alarm_level, uid);
CREATE INDEX IF NOT EXISTS ix_devices_geo ON devices(subscription_id, lat, lon, uid);
CREATE INDEX IF NOT EXISTS ix_devices_conn ON devices(subscription_id, connectivity, uid);
CREATE INDEX IF NOT EXISTS ix_devices_atk ON devices(subscription_id, as_transport_key, uid);
CREATE INDEX IF NOT EXISTS ix_devices_netctx ON devices(subscription_id, network_context_id, uid);
CREATE INDEX IF NOT EXISTS ix_devices_imei ON devices(subscription_id, last_imei);
CREATE INDEX IF NOT EXISTS ix_devices_imsi ON devices(subscription_id, imsi);
CREATE INDEX IF NOT EXISTS ix_devices_iccid ON devices(subscription_id, iccid);
CREATE INDEX IF NOT EXISTS ix_devices_eid ON devices(subscription_id, eid);
CREATE INDEX IF NOT EXISTS ix_device_tags_rev ON device_tags(tag_id, device_uid);
CREATE INDEX IF NOT EXISTS ix_device_domains_rev ON device_domains(domain_id, device_uid);
CREATE INDEX IF NOT EXISTS ix_device_app_servers_rev ON device_app_servers(app_server_id, device_uid);
"""


def create_device_indexes_sql() -> str:
    return "\n".join(
        f"CREATE INDEX IF NOT EXISTS {name} ON {target};" for name, target in DEVICE_INDEXES.items()
    )


def drop_device_indexes_sql() -> str:
    return "\n".join(f"DROP INDEX IF EXISTS {name};" for name in DEVICE_INDEXES)


# Step 3: alarms (of devices and, later, multicast groups), hourly traffic buckets, and the
# simulator's persistent state.
_V3 = """
CREATE TABLE alarms (
    id INTEGER PRIMARY KEY,            -- alarmUid is its 16-digit hex form: same order
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    kind TEXT NOT NULL,                -- 'D' device, 'M' multicast group
    device_uid INTEGER REFERENCES devices(uid) ON DELETE CASCADE,
    group_uid INTEGER REFERENCES multicast_groups(uid) ON DELETE CASCADE,
    alarm_id INTEGER NOT NULL,
    state INTEGER NOT NULL,
    level INTEGER NOT NULL DEFAULT 0,
    occurrence INTEGER NOT NULL DEFAULT 1,
    acked INTEGER NOT NULL DEFAULT 0,
    acked_info TEXT,
    acked_ts INTEGER,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    add_info TEXT
);
CREATE INDEX ix_alarms_sub ON alarms(subscription_id, kind);
CREATE INDEX ix_alarms_state ON alarms(subscription_id, kind, state);
CREATE INDEX ix_alarms_created ON alarms(subscription_id, kind, created);
CREATE INDEX ix_alarms_updated ON alarms(subscription_id, kind, updated);
CREATE INDEX ix_alarms_device ON alarms(device_uid, alarm_id, state);
CREATE INDEX ix_alarms_group ON alarms(group_uid, alarm_id, state);
CREATE TABLE frame_buckets (
    device_uid INTEGER NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    ts INTEGER NOT NULL,               -- start of the hour, ms
    up INTEGER NOT NULL DEFAULT 0,
    up_size INTEGER NOT NULL DEFAULT 0,
    dw INTEGER NOT NULL DEFAULT 0,
    dw_size INTEGER NOT NULL DEFAULT 0,
    rssi_sum REAL NOT NULL DEFAULT 0,
    snr_sum REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (device_uid, ts)
) WITHOUT ROWID;
CREATE TABLE multicast_groups (
    uid INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    eui TEXT NOT NULL,
    name TEXT NOT NULL,
    nw_address TEXT NOT NULL,
    app_skey TEXT,
    nw_key TEXT,
    class TEXT,
    customer_admin_data TEXT,
    downlink_data_rate INTEGER,
    downlink_frequency REAL,
    ping_slot_period INTEGER,
    creation_date INTEGER NOT NULL,
    last_dw INTEGER,
    first_dw INTEGER,
    last_fcnt_dn INTEGER,
    history_dw TEXT,
    version INTEGER NOT NULL DEFAULT 0,
    last_update INTEGER,
    who TEXT,
    alarm1 INTEGER NOT NULL DEFAULT 0,
    alarm2 INTEGER NOT NULL DEFAULT 0,
    alarm3 INTEGER NOT NULL DEFAULT 0,
    alarm4 INTEGER NOT NULL DEFAULT 0,
    alarm5 INTEGER NOT NULL DEFAULT 0,
    alarm6 INTEGER NOT NULL DEFAULT 0,
    alarm_level INTEGER NOT NULL DEFAULT 0,
    UNIQUE (subscription_id, eui)
);
CREATE TABLE multicast_group_domains (
    group_uid INTEGER NOT NULL REFERENCES multicast_groups(uid) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (group_uid, domain_id)
) WITHOUT ROWID;
CREATE TABLE multicast_group_app_servers (
    group_uid INTEGER NOT NULL REFERENCES multicast_groups(uid) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (group_uid, app_server_id)
) WITHOUT ROWID;
CREATE TABLE multicast_group_bs_tags (
    group_uid INTEGER NOT NULL REFERENCES multicast_groups(uid) ON DELETE CASCADE,
    name TEXT NOT NULL,
    namespace TEXT NOT NULL DEFAULT 'SUBSCRIBER',
    PRIMARY KEY (group_uid, name)
) WITHOUT ROWID;
CREATE TABLE sim_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sim_silent (device_uid INTEGER PRIMARY KEY);
"""

# Step 4: application server details (scope, type, destinations, security) and the network
# resources (cellular network contexts, HSM exchange keys, network subscriptions).
_V4 = """
ALTER TABLE app_servers ADD COLUMN scope TEXT NOT NULL DEFAULT 'SUBSCRIPTION';
ALTER TABLE app_servers ADD COLUMN type TEXT NOT NULL DEFAULT 'HTTP';
ALTER TABLE app_servers ADD COLUMN state TEXT NOT NULL DEFAULT 'ACTIVE';
ALTER TABLE app_servers ADD COLUMN validation_state TEXT NOT NULL DEFAULT 'VALIDATED';
ALTER TABLE app_servers ADD COLUMN health_state TEXT NOT NULL DEFAULT 'ACTIVE';
ALTER TABLE app_servers ADD COLUMN content_type TEXT;
ALTER TABLE app_servers ADD COLUMN destinations TEXT NOT NULL DEFAULT '[]';     -- JSON
ALTER TABLE app_servers ADD COLUMN custom_headers TEXT NOT NULL DEFAULT '[]';   -- JSON
ALTER TABLE app_servers ADD COLUMN flow_matcher_tags TEXT NOT NULL DEFAULT '[]'; -- JSON
ALTER TABLE app_servers ADD COLUMN security_status TEXT NOT NULL DEFAULT 'NONE';
ALTER TABLE app_servers ADD COLUMN security_as_id TEXT;
ALTER TABLE app_servers ADD COLUMN security_key TEXT;                            -- never returned
ALTER TABLE app_servers ADD COLUMN security_max_deviation INTEGER;
ALTER TABLE app_servers ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE app_servers ADD COLUMN last_update INTEGER;
ALTER TABLE app_servers ADD COLUMN who TEXT;
CREATE TABLE app_server_domains (
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (app_server_id, domain_id)
) WITHOUT ROWID;
ALTER TABLE hsm_groups ADD COLUMN exchange_key_version INTEGER;
ALTER TABLE hsm_groups ADD COLUMN exchange_key_n TEXT;
ALTER TABLE hsm_groups ADD COLUMN exchange_key_e TEXT;
CREATE TABLE network_contexts (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    apn TEXT,
    plmn_id TEXT,
    ip_version TEXT,
    description TEXT,
    UNIQUE (subscription_id, ref)
);
CREATE TABLE network_subscriptions (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    body TEXT NOT NULL,               -- JSON: the NetworkSubscription fields
    UNIQUE (subscription_id, ref)
);
"""

# Which parts of the demo a database holds, so a file made by an older version gets the
# parts added since (multicast groups, network resources) on its next start, once.
_V5 = """
CREATE TABLE demo_parts (name TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO demo_parts SELECT 'base' WHERE EXISTS (SELECT 1 FROM subscriptions);
INSERT INTO demo_parts SELECT 'multicast' WHERE EXISTS (SELECT 1 FROM multicast_groups);
INSERT INTO demo_parts SELECT 'network' WHERE EXISTS (SELECT 1 FROM network_contexts);
"""

# The simulator's schedule: each device's next uplink, so a step reads only the devices due
# (not all of them); devices whose alarm004 thresholds changed are re-checked once.
_V6 = """
CREATE TABLE sim_devices (uid INTEGER PRIMARY KEY, next_up INTEGER NOT NULL);
CREATE INDEX ix_sim_devices_next ON sim_devices(next_up);
CREATE TABLE sim_recheck (device_uid INTEGER PRIMARY KEY);
CREATE INDEX ix_devices_alarm004 ON devices(alarm004) WHERE alarm004 IS NOT NULL;
CREATE TRIGGER tr_sim_recheck AFTER UPDATE OF alarm004 ON devices
BEGIN
    INSERT OR IGNORE INTO sim_recheck VALUES (new.uid);
END;
"""

# Step 7: alarm lists sorted by state or by acknowledgement, ties by update time, newest first
# (the reference's order; the indexes serve the usual directions, state desc and unacknowledged
# first, without a sort); the platform's own RSA exchange key (when no HSM group is used); the
# network subscription of a multicast group (the demo groups use the multicast one).
_V7 = """
DROP INDEX IF EXISTS ix_alarms_state;
CREATE INDEX ix_alarms_state_updated ON alarms(subscription_id, kind, state, updated);
CREATE INDEX ix_alarms_acked_updated ON alarms(subscription_id, kind, acked, updated DESC);
CREATE TABLE platform_exchange_keys (
    kid TEXT PRIMARY KEY,              -- the key version, as JWK `kid`
    n_hex TEXT NOT NULL,               -- modulus, hexadecimal
    e_hex TEXT NOT NULL,               -- public exponent, hexadecimal
    created INTEGER NOT NULL
) WITHOUT ROWID;
-- A 2048-bit stand-in modulus (top bit set, odd): the sandbox never decrypts with it.
INSERT INTO platform_exchange_keys VALUES ('platform-v1',
    'C' || substr(hex(randomblob(256)), 2, 510) || 'B', '010001',
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
ALTER TABLE multicast_groups ADD COLUMN network_subscription TEXT;
UPDATE multicast_groups SET network_subscription = (
    SELECT ns.ref FROM network_subscriptions ns
    WHERE ns.subscription_id = multicast_groups.subscription_id
      AND json_extract(ns.body, '$.communicationType') = 'MULTICAST'
    ORDER BY ns.id LIMIT 1
);
"""

# Step 8: the connectivity of an AS routing profile (LORAWAN or CELLULAR: a device may only
# use a profile of its own connectivity). An existing profile is LoRaWAN when it has an AS
# transport key (`lorawanAsTransportKey`); otherwise CELLULAR when devices use it and all of
# them are cellular; otherwise (unused, or used by LoRaWAN devices) LORAWAN. One pass over the
# devices that have a profile.
_V8 = """
ALTER TABLE routing_profiles ADD COLUMN connectivity TEXT NOT NULL DEFAULT 'LORAWAN'
    CHECK (connectivity IN ('LORAWAN', 'CELLULAR'));
UPDATE routing_profiles SET connectivity = 'CELLULAR'
WHERE coalesce(as_transport_key, '') = ''
  AND id IN (
    SELECT routing_profile_id FROM devices WHERE routing_profile_id IS NOT NULL
    GROUP BY routing_profile_id HAVING sum(connectivity <> 'CELLULAR') = 0
  );
"""

# The simulator forgets a deleted device at once, and notes a new device that got a deleted
# one's uid (SQLite reuses the largest rowid): its schedule is made on the next step.
_V9 = """
CREATE TABLE sim_new (device_uid INTEGER PRIMARY KEY);
CREATE TRIGGER tr_sim_forget AFTER DELETE ON devices
BEGIN
    DELETE FROM sim_devices WHERE uid = old.uid;
    DELETE FROM sim_silent WHERE device_uid = old.uid;
    DELETE FROM sim_recheck WHERE device_uid = old.uid;
END;
CREATE TRIGGER tr_sim_reused AFTER INSERT ON devices
WHEN new.uid <= coalesce(
    (SELECT CAST(value AS INTEGER) FROM sim_state WHERE key = 'known_uid'), 0)
BEGIN
    INSERT OR IGNORE INTO sim_new VALUES (new.uid);
END;
"""

# How many devices each application server has, by the devices' set of domains
# (`domain_key`: their domain ids, ascending, comma-separated; '' for none). The server list
# reads its counts here (a few rows per server) instead of counting a million links, and
# applies the caller's domain restrictions to the keys. Triggers on the two link tables keep
# it exact; bulk seeding drops them and rebuilds the counts once (as it does with indexes).
_DOMAIN_KEY = """coalesce((SELECT group_concat(domain_id, ',') FROM (SELECT domain_id
    FROM device_domains WHERE device_uid = {uid}{extra} ORDER BY domain_id)), '')"""


def _key(uid: str, extra: str = "") -> str:
    return _DOMAIN_KEY.format(uid=uid, extra=extra)


def _bump(key: str, delta: str, servers: str) -> str:
    """Add `delta` to (server, key) for the servers `servers` selects (its column
    app_server_id), then drop the rows that reach zero."""
    return f"""
    INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, {key}, {delta} FROM ({servers}) WHERE 1
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM app_server_device_counts WHERE app_server_id IN ({servers}) AND n = 0;"""


def _servers_of(uid: str) -> str:
    return f"SELECT app_server_id FROM device_app_servers WHERE device_uid = {uid}"


_OLD_KEY_AFTER_DELETE = """coalesce((SELECT group_concat(d, ',') FROM (SELECT domain_id AS d
    FROM device_domains WHERE device_uid = OLD.device_uid UNION SELECT OLD.domain_id
    ORDER BY d)), '')"""

LINK_COUNT_TRIGGERS: dict[str, str] = {
    "tr_as_counts_link_add": f"""AFTER INSERT ON device_app_servers BEGIN
    {_bump(_key("NEW.device_uid"), "1", "SELECT NEW.app_server_id AS app_server_id")}
END""",
    "tr_as_counts_link_remove": f"""AFTER DELETE ON device_app_servers BEGIN
    {_bump(_key("OLD.device_uid"), "-1", "SELECT OLD.app_server_id AS app_server_id")}
END""",
    "tr_as_counts_domain_add": f"""AFTER INSERT ON device_domains BEGIN
    {
        _bump(
            _key("NEW.device_uid", " AND domain_id <> NEW.domain_id"),
            "-1",
            _servers_of("NEW.device_uid"),
        )
    }
    {_bump(_key("NEW.device_uid"), "1", _servers_of("NEW.device_uid"))}
END""",
    "tr_as_counts_domain_remove": f"""AFTER DELETE ON device_domains BEGIN
    {_bump(_OLD_KEY_AFTER_DELETE, "-1", _servers_of("OLD.device_uid"))}
    {_bump(_key("OLD.device_uid"), "1", _servers_of("OLD.device_uid"))}
END""",
}


def create_link_count_triggers() -> list[str]:
    return [f"CREATE TRIGGER IF NOT EXISTS {n} {body};" for n, body in LINK_COUNT_TRIGGERS.items()]


def drop_link_count_triggers() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name};" for name in LINK_COUNT_TRIGGERS]


REBUILD_LINK_COUNTS = [
    "DELETE FROM app_server_device_counts;",
    f"""INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, {_key("l.device_uid")} AS k, count(*) FROM device_app_servers l
    GROUP BY app_server_id, k;""",
]

_V_AS_COUNTS = "\n".join(
    [
        """CREATE TABLE app_server_device_counts (
    app_server_id INTEGER NOT NULL,
    domain_key TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (app_server_id, domain_key)
) WITHOUT ROWID;""",
        *create_link_count_triggers(),
        *REBUILD_LINK_COUNTS,
    ]
)

# The device catalog: vendors, and for each device profile (device_models) its vendor, MAC
# layer, LoRaWAN version, motion indicator and ISM bands. The catalog is not a subscription's:
# subscribers read it (deviceProfiles, deviceVendors) and an operator's catalog view reads
# the same tables.
_DEVICE_CATALOG = """
CREATE TABLE device_vendors (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    logo TEXT
);
ALTER TABLE device_models ADD COLUMN vendor_id INTEGER REFERENCES device_vendors(id);
ALTER TABLE device_models ADD COLUMN type_mac TEXT;
ALTER TABLE device_models ADD COLUMN mac_major INTEGER;
ALTER TABLE device_models ADD COLUMN mac_minor INTEGER;
ALTER TABLE device_models ADD COLUMN motion TEXT;
CREATE INDEX ix_device_models_vendor ON device_models (vendor_id);
CREATE TABLE device_model_bands (
    model_id INTEGER NOT NULL REFERENCES device_models(id) ON DELETE CASCADE,
    band TEXT NOT NULL,
    PRIMARY KEY (model_id, band)
) WITHOUT ROWID;
"""

# --- derived structures: domain sets and map tiles ----------------------------------------
#
# A device's domains, as a set, get an id (`devices.domain_set`, 0 for none): the few distinct
# sets are matched against a user's domain restrictions, so a restriction is a test on one
# column of the row instead of a walk through the link table for every device. And devices
# are counted per map tile (TILE_LEVEL: 2^14 x 2^14 tiles over the world) and domain set in
# `device_tiles`, so clusters over a big box add up a few thousand tiles, not a million rows;
# `device_counts` gives the total of an unfiltered list the same way.
# Triggers keep both exact under every change; bulk seeding drops the triggers and rebuilds.

TILE_LEVEL = 14
TILES = 1 << TILE_LEVEL


def _tile_sql(column: str, low: int, span: int) -> str:
    return (
        f"CASE WHEN {column} BETWEEN {low} AND {low + span} THEN"
        f" min({TILES - 1}, CAST(({column} + {float(-low)}) * {TILES} / {span} AS INTEGER))"
        " END"
    )


TILE_Y_SQL = _tile_sql("lat", -90, 180)
TILE_X_SQL = _tile_sql("lon", -180, 360)


def _recompute_tile(prefix: str) -> str:
    """Statements recomputing the tile row of `prefix` (new/old) from the devices."""
    key = (
        f"subscription_id = {prefix}.subscription_id AND tile_y = {prefix}.tile_y"
        f" AND tile_x = {prefix}.tile_x AND domain_set = {prefix}.domain_set"
    )
    return f"""
    DELETE FROM device_tiles WHERE {key};
    INSERT INTO device_tiles SELECT {prefix}.subscription_id, {prefix}.tile_y, {prefix}.tile_x,
        {prefix}.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM devices WHERE {key} HAVING count(*) > 0;"""


def _domain_set_of(uid: str) -> str:
    """Statements giving device `uid` the id of its set of domains (0: none)."""
    # The primary key walks a device's links by domain id: the key lists them in order.
    key = f"(SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = {uid})"
    return f"""
    INSERT OR IGNORE INTO domain_sets (key) SELECT {key} WHERE {key} IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, device_domains l WHERE s.key = {key} AND l.device_uid = {uid};
    UPDATE devices SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = {key}), 0)
    WHERE uid = {uid};"""


DERIVED_TRIGGERS: dict[str, str] = {
    "tr_domain_set_added": f"AFTER INSERT ON device_domains BEGIN"
    f"{_domain_set_of('new.device_uid')}\nEND",
    "tr_domain_set_removed": f"AFTER DELETE ON device_domains BEGIN"
    f"{_domain_set_of('old.device_uid')}\nEND",
    "tr_domain_set_changed": f"AFTER UPDATE ON device_domains BEGIN"
    f"{_domain_set_of('old.device_uid')}{_domain_set_of('new.device_uid')}\nEND",
    # A device alarm carries its device's domain set, so restricted alarm lists and counts
    # read the alarm rows alone.
    "tr_alarm_domain_set": "AFTER INSERT ON alarms WHEN new.device_uid IS NOT NULL BEGIN"
    " UPDATE alarms SET domain_set = coalesce((SELECT domain_set FROM devices"
    " WHERE uid = new.device_uid), 0) WHERE id = new.id;\nEND",
    "tr_alarms_follow_domain_set": "AFTER UPDATE OF domain_set ON devices"
    " WHEN old.domain_set IS NOT new.domain_set BEGIN"
    " UPDATE alarms SET domain_set = new.domain_set WHERE device_uid = new.uid;\nEND",
    # Devices per subscription and domain set: the total of an unfiltered list.
    "tr_count_added": "AFTER INSERT ON devices BEGIN"
    " INSERT INTO device_counts VALUES (new.subscription_id, new.domain_set, 1)"
    " ON CONFLICT DO UPDATE SET n = n + 1;\nEND",
    "tr_count_removed": "AFTER DELETE ON devices BEGIN"
    " UPDATE device_counts SET n = n - 1"
    " WHERE subscription_id = old.subscription_id AND domain_set = old.domain_set;\nEND",
    "tr_count_moved": "AFTER UPDATE OF domain_set, subscription_id ON devices"
    " WHEN old.domain_set IS NOT new.domain_set OR old.subscription_id IS NOT new.subscription_id"
    " BEGIN UPDATE device_counts SET n = n - 1"
    " WHERE subscription_id = old.subscription_id AND domain_set = old.domain_set;"
    " INSERT INTO device_counts VALUES (new.subscription_id, new.domain_set, 1)"
    " ON CONFLICT DO UPDATE SET n = n + 1;\nEND",
    "tr_tile_added": "AFTER INSERT ON devices WHEN new.tile_y IS NOT NULL AND new.tile_x IS NOT NULL"
    f" BEGIN{_recompute_tile('new')}\nEND",
    "tr_tile_removed": "AFTER DELETE ON devices WHEN old.tile_y IS NOT NULL AND old.tile_x IS NOT NULL"
    f" BEGIN{_recompute_tile('old')}\nEND",
    # (UPDATE OF its columns: the simulator's every-second updates of other columns skip it)
    "tr_tile_moved": "AFTER UPDATE OF lat, lon, domain_set, subscription_id ON devices"
    " WHEN old.lat IS NOT new.lat OR old.lon IS NOT new.lon"
    " OR old.domain_set IS NOT new.domain_set OR old.subscription_id IS NOT new.subscription_id"
    f" BEGIN{_recompute_tile('old')}{_recompute_tile('new')}\nEND",
}


def create_derived_triggers_sql() -> list[str]:
    return [f"CREATE TRIGGER IF NOT EXISTS {n} {body};" for n, body in DERIVED_TRIGGERS.items()]


def drop_derived_triggers_sql() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name};" for name in DERIVED_TRIGGERS]


def rebuild_domain_sets_sql(first_uid: int) -> list[str]:
    """Statements setting `domain_set` of the devices from `first_uid` on (bulk seeding, the
    migration): one pass over their links."""
    first = int(first_uid)
    return [
        "CREATE TEMP TABLE IF NOT EXISTS device_domain_keys (uid INTEGER PRIMARY KEY, key TEXT)",
        "DELETE FROM temp.device_domain_keys",
        "INSERT INTO temp.device_domain_keys SELECT device_uid, group_concat(domain_id)"
        f" FROM device_domains WHERE device_uid >= {first} GROUP BY device_uid",
        "INSERT OR IGNORE INTO domain_sets (key) SELECT DISTINCT key FROM temp.device_domain_keys",
        "INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id FROM"
        " (SELECT key, min(uid) AS uid FROM temp.device_domain_keys GROUP BY key) k"
        " JOIN domain_sets s ON s.key = k.key JOIN device_domains l ON l.device_uid = k.uid",
        "UPDATE devices SET domain_set = k.id FROM (SELECT t.uid, s.id FROM"
        " temp.device_domain_keys t JOIN domain_sets s ON s.key = t.key) k"
        " WHERE devices.uid = k.uid",
        "DROP TABLE temp.device_domain_keys",
        "UPDATE alarms SET domain_set = d.domain_set FROM devices d"
        f" WHERE d.uid = alarms.device_uid AND alarms.device_uid >= {first}"
        " AND alarms.domain_set <> d.domain_set",
    ]


# The summaries (device counts and tiles), from the devices.
REBUILD_SUMMARIES_SQL: list[str] = [
    "DELETE FROM device_counts",
    "INSERT INTO device_counts SELECT subscription_id, domain_set, count(*) FROM devices"
    " GROUP BY subscription_id, domain_set",
    "DELETE FROM device_tiles",
    "INSERT INTO device_tiles SELECT subscription_id, tile_y, tile_x, domain_set, count(*),"
    " sum(lat), sum(lon), min(lat), max(lat), min(lon), max(lon), min(uid) FROM devices"
    " WHERE tile_y IS NOT NULL AND tile_x IS NOT NULL"
    " GROUP BY subscription_id, tile_y, tile_x, domain_set",
]

# Step 10: domain sets and map tiles (above), and the indexes that use them.
_V10 = "\n".join(
    [
        """
CREATE TABLE domain_sets (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE           -- the set's domain ids, ascending, comma-separated
);
CREATE TABLE domain_set_members (
    set_id INTEGER NOT NULL REFERENCES domain_sets(id) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (set_id, domain_id)
) WITHOUT ROWID;
CREATE TABLE device_counts (
    subscription_id INTEGER NOT NULL,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (subscription_id, domain_set)
) WITHOUT ROWID;
CREATE TABLE device_tiles (
    subscription_id INTEGER NOT NULL,
    tile_y INTEGER NOT NULL,
    tile_x INTEGER NOT NULL,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    lat_sum REAL NOT NULL,
    lon_sum REAL NOT NULL,
    lat_min REAL NOT NULL,
    lat_max REAL NOT NULL,
    lon_min REAL NOT NULL,
    lon_max REAL NOT NULL,
    uid_min INTEGER NOT NULL,
    PRIMARY KEY (subscription_id, tile_y, tile_x, domain_set)
) WITHOUT ROWID;
ALTER TABLE devices ADD COLUMN domain_set INTEGER NOT NULL DEFAULT 0;
ALTER TABLE alarms ADD COLUMN domain_set INTEGER NOT NULL DEFAULT 0;
""",
        f"ALTER TABLE devices ADD COLUMN tile_y INTEGER GENERATED ALWAYS AS ({TILE_Y_SQL});",
        f"ALTER TABLE devices ADD COLUMN tile_x INTEGER GENERATED ALWAYS AS ({TILE_X_SQL});",
        *[
            f"DROP INDEX IF EXISTS ix_devices_{name};"
            for name in ("geo", "health", "alarm", "conn", "atk", "netctx")
        ],
        *[f"{statement};" for statement in rebuild_domain_sets_sql(0)],
        create_device_indexes_sql(),
        "CREATE INDEX ix_alarms_domain_set ON alarms(subscription_id, kind, domain_set);",
        *[f"{statement};" for statement in REBUILD_SUMMARIES_SQL],
        *create_derived_triggers_sql(),
        "ANALYZE;",
    ]
)

# Step 13: tagged devices per tag and domain set: the count of a list filtered by one tag, for every
# domain restriction, without visiting the devices (a common tag at 1M devices took a
# second). A device's tags are removed before the device (a BEFORE DELETE trigger), so the
# decrement still finds its domain set.
TAG_COUNT_TRIGGERS: dict[str, str] = {
    "tr_tag_count_added": "AFTER INSERT ON device_tags BEGIN"
    " INSERT INTO tag_counts SELECT new.tag_id, domain_set, 1 FROM devices"
    " WHERE uid = new.device_uid ON CONFLICT DO UPDATE SET n = n + 1;\nEND",
    "tr_tag_count_removed": "AFTER DELETE ON device_tags BEGIN"
    " UPDATE tag_counts SET n = n - 1 WHERE tag_id = old.tag_id"
    " AND domain_set = (SELECT domain_set FROM devices WHERE uid = old.device_uid);\nEND",
    "tr_tag_count_device_removed": "BEFORE DELETE ON devices BEGIN"
    " DELETE FROM device_tags WHERE device_uid = old.uid;\nEND",
    "tr_tag_count_moved": "AFTER UPDATE OF domain_set ON devices"
    " WHEN old.domain_set IS NOT new.domain_set BEGIN"
    " UPDATE tag_counts SET n = n - 1 WHERE domain_set = old.domain_set"
    " AND tag_id IN (SELECT tag_id FROM device_tags WHERE device_uid = new.uid);"
    " INSERT INTO tag_counts SELECT tag_id, new.domain_set, 1 FROM device_tags"
    " WHERE device_uid = new.uid ON CONFLICT DO UPDATE SET n = n + 1;\nEND",
}


def create_tag_count_triggers() -> list[str]:
    return [f"CREATE TRIGGER IF NOT EXISTS {n} {body};" for n, body in TAG_COUNT_TRIGGERS.items()]


def drop_tag_count_triggers() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name};" for name in TAG_COUNT_TRIGGERS]


REBUILD_TAG_COUNTS = [
    "DELETE FROM tag_counts;",
    "INSERT INTO tag_counts SELECT l.tag_id, d.domain_set, count(*) FROM device_tags l"
    " JOIN devices d ON d.uid = l.device_uid GROUP BY l.tag_id, d.domain_set;",
]

_V_TAG_COUNTS = "\n".join(
    [
        """CREATE TABLE tag_counts (
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tag_id, domain_set)
) WITHOUT ROWID;""",
        *create_tag_count_triggers(),
        *REBUILD_TAG_COUNTS,
        # A restricted count of cleared or unacknowledged alarms from an index alone (it
        # read every matching row for its domain set: 280 ms at 1M devices).
        "CREATE INDEX ix_alarms_state_set ON alarms(subscription_id, kind, state, domain_set);",
        "CREATE INDEX ix_alarms_acked_set ON alarms(subscription_id, kind, acked, domain_set);",
        # Statistics for the new indexes, or the planner sorts pages by them (a sample).
        "PRAGMA analysis_limit=1000;",
        "ANALYZE alarms;",
    ]
)

# --- network partners and base stations (Document 2 §2.4, §4.3) ------------------------------
#
# A partner is a subscription that also runs stations (type SUBSCRIBER, `subscription_id`) or
# a supplier (type SUPPLIER). An account acts for one partner (`accounts.partner_uid`).
# Stations reuse the devices' machinery: `domain_set` (their set of domains, in the shared
# `domain_sets`), kept by triggers on `station_domains`, so a restriction is one column test;
# `station_tiles` counts them per level-14 map tile and domain set for the clusters.


def _station_domain_set_of(uid: str) -> str:
    key = f"(SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = {uid})"
    return f"""
    INSERT OR IGNORE INTO domain_sets (key) SELECT {key} WHERE {key} IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, station_domains l WHERE s.key = {key} AND l.station_uid = {uid};
    UPDATE stations SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = {key}), 0)
    WHERE uid = {uid};"""


def _recompute_station_tile(prefix: str) -> str:
    key = (
        f"partner_uid = {prefix}.partner_uid AND tile_y = {prefix}.tile_y"
        f" AND tile_x = {prefix}.tile_x AND domain_set = {prefix}.domain_set"
    )
    return f"""
    DELETE FROM station_tiles WHERE {key};
    INSERT INTO station_tiles SELECT {prefix}.partner_uid, {prefix}.tile_y, {prefix}.tile_x,
        {prefix}.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM stations WHERE {key} HAVING count(*) > 0;"""


STATION_TRIGGERS: dict[str, str] = {
    "tr_station_domain_set_added": "AFTER INSERT ON station_domains BEGIN"
    f"{_station_domain_set_of('new.station_uid')}\nEND",
    "tr_station_domain_set_removed": "AFTER DELETE ON station_domains BEGIN"
    f"{_station_domain_set_of('old.station_uid')}\nEND",
    # Stations per partner and domain set: the total of an unfiltered list.
    "tr_station_count_added": "AFTER INSERT ON stations BEGIN"
    " INSERT INTO station_counts VALUES (new.partner_uid, new.domain_set, 1)"
    " ON CONFLICT DO UPDATE SET n = n + 1;\nEND",
    "tr_station_count_removed": "AFTER DELETE ON stations BEGIN"
    " UPDATE station_counts SET n = n - 1"
    " WHERE partner_uid = old.partner_uid AND domain_set = old.domain_set;\nEND",
    "tr_station_count_moved": "AFTER UPDATE OF domain_set, partner_uid ON stations"
    " WHEN old.domain_set IS NOT new.domain_set OR old.partner_uid IS NOT new.partner_uid"
    " BEGIN UPDATE station_counts SET n = n - 1"
    " WHERE partner_uid = old.partner_uid AND domain_set = old.domain_set;"
    " INSERT INTO station_counts VALUES (new.partner_uid, new.domain_set, 1)"
    " ON CONFLICT DO UPDATE SET n = n + 1;\nEND",
    # An alarm carries its station's domain set, so restricted alarm lists read alarms alone.
    "tr_station_alarm_domain_set": "AFTER INSERT ON station_alarms BEGIN"
    " UPDATE station_alarms SET domain_set = coalesce((SELECT domain_set FROM stations"
    " WHERE uid = new.bs_uid), 0) WHERE id = new.id;\nEND",
    "tr_station_alarms_follow": "AFTER UPDATE OF domain_set ON stations"
    " WHEN old.domain_set IS NOT new.domain_set BEGIN"
    " UPDATE station_alarms SET domain_set = new.domain_set WHERE bs_uid = new.uid;\nEND",
    "tr_station_tile_added": "AFTER INSERT ON stations"
    " WHEN new.tile_y IS NOT NULL AND new.tile_x IS NOT NULL"
    f" BEGIN{_recompute_station_tile('new')}\nEND",
    "tr_station_tile_removed": "AFTER DELETE ON stations"
    " WHEN old.tile_y IS NOT NULL AND old.tile_x IS NOT NULL"
    f" BEGIN{_recompute_station_tile('old')}\nEND",
    "tr_station_tile_moved": "AFTER UPDATE OF lat, lon, domain_set, partner_uid ON stations"
    " WHEN old.lat IS NOT new.lat OR old.lon IS NOT new.lon"
    " OR old.domain_set IS NOT new.domain_set OR old.partner_uid IS NOT new.partner_uid"
    f" BEGIN{_recompute_station_tile('old')}{_recompute_station_tile('new')}\nEND",
}


def create_station_triggers_sql() -> list[str]:
    return [f"CREATE TRIGGER IF NOT EXISTS {n} {body};" for n, body in STATION_TRIGGERS.items()]


def drop_station_triggers_sql() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name};" for name in STATION_TRIGGERS]


# Secondary indexes of stations (bulk seeding drops and rebuilds them).
STATION_INDEXES: dict[str, str] = {
    # The sorts, the domain set last: a restricted page reads the index alone.
    "ix_stations_name": "stations(partner_uid, name, uid, domain_set)",
    "ix_stations_created": "stations(partner_uid, creation_date, uid, domain_set)",
    "ix_stations_lastup": "stations(partner_uid, last_up, uid, domain_set)",
    "ix_stations_lastdw": "stations(partner_uid, last_dw, uid, domain_set)",
    "ix_stations_version": "stations(partner_uid, sw_version, uid, domain_set)",
    "ix_stations_reboot": "stations(partner_uid, last_reboot, uid, domain_set)",
    "ix_stations_lrr": "stations(partner_uid, lrr_id, domain_set)",
    "ix_stations_uuid": "stations(partner_uid, lrr_uuid)",
    "ix_stations_health_ds": "stations(partner_uid, health_state, domain_set)",
    "ix_stations_alarm_ds": "stations(partner_uid, alarm_level, domain_set)",
    "ix_stations_domain_set": "stations(partner_uid, domain_set)",
    "ix_stations_tile": "stations(partner_uid, tile_y, tile_x, domain_set, lat, lon)",
    "ix_station_tags_rev": "station_tags(tag_id, station_uid)",
    "ix_station_domains_rev": "station_domains(domain_id, station_uid)",
}


def create_station_indexes_sql() -> list[str]:
    return [f"CREATE INDEX IF NOT EXISTS {n} ON {t};" for n, t in STATION_INDEXES.items()]


def drop_station_indexes_sql() -> list[str]:
    return [f"DROP INDEX IF EXISTS {name};" for name in STATION_INDEXES]


def rebuild_station_sets_sql() -> list[str]:
    """Statements setting every station's `domain_set` and the tiles (after bulk seeding)."""
    return [
        "CREATE TEMP TABLE IF NOT EXISTS station_domain_keys (uid INTEGER PRIMARY KEY, key TEXT)",
        "DELETE FROM temp.station_domain_keys",
        "INSERT INTO temp.station_domain_keys SELECT station_uid, group_concat(domain_id)"
        " FROM (SELECT station_uid, domain_id FROM station_domains"
        " ORDER BY station_uid, domain_id) GROUP BY station_uid",
        "INSERT OR IGNORE INTO domain_sets (key) SELECT DISTINCT key FROM temp.station_domain_keys",
        "INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id FROM"
        " (SELECT key, min(uid) AS uid FROM temp.station_domain_keys GROUP BY key) k"
        " JOIN domain_sets s ON s.key = k.key JOIN station_domains l ON l.station_uid = k.uid",
        "UPDATE stations SET domain_set = k.id FROM (SELECT t.uid, s.id FROM"
        " temp.station_domain_keys t JOIN domain_sets s ON s.key = t.key) k"
        " WHERE stations.uid = k.uid AND stations.domain_set IS NOT k.id",
        "DROP TABLE temp.station_domain_keys",
        "UPDATE station_alarms SET domain_set = s.domain_set FROM stations s"
        " WHERE s.uid = station_alarms.bs_uid AND station_alarms.domain_set <> s.domain_set",
        "DELETE FROM station_counts",
        "INSERT INTO station_counts SELECT partner_uid, domain_set, count(*) FROM stations"
        " GROUP BY partner_uid, domain_set",
        "DELETE FROM station_tiles",
        "INSERT INTO station_tiles SELECT partner_uid, tile_y, tile_x, domain_set, count(*),"
        " sum(lat), sum(lon), min(lat), max(lat), min(lon), max(lon), min(uid) FROM stations"
        " WHERE tile_y IS NOT NULL AND tile_x IS NOT NULL"
        " GROUP BY partner_uid, tile_y, tile_x, domain_set",
    ]


_STATION_TILE_Y = TILE_Y_SQL
_STATION_TILE_X = TILE_X_SQL

_V_STATIONS = "\n".join(
    [
        """
CREATE TABLE partners (
    uid INTEGER PRIMARY KEY,
    type TEXT NOT NULL CHECK (type IN ('SUBSCRIBER', 'SUPPLIER')),
    ref TEXT NOT NULL,                   -- subscriber or supplier ID (id:sub:, id:sup:)
    name TEXT NOT NULL,
    subscription_id INTEGER REFERENCES subscriptions(id),  -- SUBSCRIBER partners
    total_granted INTEGER,               -- NULL: no limit
    show_tag_suggestions INTEGER NOT NULL DEFAULT 1,
    alarm_state_notifications TEXT,
    state TEXT NOT NULL DEFAULT 'ACTIVE',
    creation_ts INTEGER NOT NULL,
    state_ts INTEGER NOT NULL,
    UNIQUE (type, ref)
);
ALTER TABLE accounts ADD COLUMN partner_uid INTEGER REFERENCES partners(uid);
CREATE TABLE stations (
    uid INTEGER PRIMARY KEY,
    partner_uid INTEGER NOT NULL REFERENCES partners(uid),
    lrr_id TEXT NOT NULL UNIQUE,
    lrr_uuid TEXT,
    name TEXT NOT NULL COLLATE NOCASE,
    model TEXT NOT NULL,                 -- base station profile ID
    state TEXT NOT NULL DEFAULT 'ACTIVE',
    state_since INTEGER NOT NULL,
    health_state TEXT NOT NULL DEFAULT 'INIT',
    cnx_state TEXT NOT NULL DEFAULT 'NEVERCNX',
    cnx_since INTEGER,
    creation_date INTEGER NOT NULL,
    last_up INTEGER,
    last_dw INTEGER,
    last_reboot INTEGER,
    last_report INTEGER,
    sw_version TEXT,
    custom_version TEXT,
    min_rc INTEGER,
    rf_region_id TEXT,
    ism_band TEXT,
    lat REAL,
    lon REAL,
    alt INTEGER,
    security_type TEXT NOT NULL DEFAULT 'DISABLE',
    security_expiration INTEGER,
    security_generation INTEGER,
    gps_receiver TEXT,
    rf_probe INTEGER NOT NULL DEFAULT 0,
    alarm102 TEXT NOT NULL DEFAULT '[]',  -- JSON thresholds
    alarm103 TEXT NOT NULL DEFAULT '[]',
    contact_info TEXT,
    customer_admin_data TEXT,
    static_address TEXT,
    smn TEXT,
    rf_coverage_type TEXT,
    rf_hardware_config TEXT,
    cpu INTEGER,
    ram INTEGER,
    version INTEGER NOT NULL DEFAULT 0,   -- optimistic concurrency
    last_update INTEGER,
    who TEXT,
    alarm1 INTEGER NOT NULL DEFAULT 0,
    alarm2 INTEGER NOT NULL DEFAULT 0,
    alarm3 INTEGER NOT NULL DEFAULT 0,
    alarm4 INTEGER NOT NULL DEFAULT 0,
    alarm5 INTEGER NOT NULL DEFAULT 0,
    alarm6 INTEGER NOT NULL DEFAULT 0,
    alarm_level INTEGER NOT NULL DEFAULT 0,
    domain_set INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE station_domains (
    station_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (station_uid, domain_id)
) WITHOUT ROWID;
CREATE TABLE station_app_servers (
    station_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (station_uid, app_server_id)
) WITHOUT ROWID;
CREATE TABLE station_tag_names (
    id INTEGER PRIMARY KEY,
    partner_uid INTEGER NOT NULL REFERENCES partners(uid),
    name TEXT NOT NULL,
    multicast_visibility INTEGER NOT NULL DEFAULT 1,
    UNIQUE (partner_uid, name)
);
CREATE TABLE station_tags (
    station_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES station_tag_names(id) ON DELETE CASCADE,
    PRIMARY KEY (station_uid, tag_id)
) WITHOUT ROWID;
CREATE TABLE station_counts (
    partner_uid INTEGER NOT NULL,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (partner_uid, domain_set)
) WITHOUT ROWID;
CREATE TABLE station_tiles (
    partner_uid INTEGER NOT NULL,
    tile_y INTEGER NOT NULL,
    tile_x INTEGER NOT NULL,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    lat_sum REAL NOT NULL,
    lon_sum REAL NOT NULL,
    lat_min REAL NOT NULL,
    lat_max REAL NOT NULL,
    lon_min REAL NOT NULL,
    lon_max REAL NOT NULL,
    uid_min INTEGER NOT NULL,
    PRIMARY KEY (partner_uid, tile_y, tile_x, domain_set)
) WITHOUT ROWID;
CREATE TABLE station_alarms (
    id INTEGER PRIMARY KEY,              -- alarmUid is its 16-digit hex form
    partner_uid INTEGER NOT NULL REFERENCES partners(uid),
    bs_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    alarm_id INTEGER NOT NULL,           -- 102..111 (Document 2 §6)
    state INTEGER NOT NULL,              -- 1 CLEARED .. 6 CRITICAL
    level INTEGER NOT NULL,              -- the highest severity reached
    occurrence INTEGER NOT NULL DEFAULT 1,
    acked INTEGER NOT NULL DEFAULT 0,
    acked_info TEXT,
    acked_ts INTEGER,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    cleared INTEGER,
    add_info TEXT,
    add_info2 TEXT,
    domain_set INTEGER NOT NULL DEFAULT 0   -- its station's (triggers): restricted lists
);
CREATE INDEX ix_station_alarms_partner ON station_alarms(partner_uid, updated);
CREATE INDEX ix_station_alarms_state ON station_alarms(partner_uid, state, updated);
CREATE INDEX ix_station_alarms_acked ON station_alarms(partner_uid, acked, updated);
CREATE INDEX ix_station_alarms_bs ON station_alarms(bs_uid, alarm_id, state);
CREATE INDEX ix_station_alarms_cleared ON station_alarms(partner_uid, cleared)
    WHERE cleared IS NOT NULL;
CREATE TABLE station_credit_transactions (
    id INTEGER PRIMARY KEY,
    partner_uid INTEGER NOT NULL REFERENCES partners(uid),
    ts INTEGER NOT NULL,
    type TEXT NOT NULL,                  -- STATION_CREATED, GRANT_CHANGED
    amount INTEGER NOT NULL,
    balance INTEGER,
    lrr_id TEXT,
    who TEXT
);
CREATE INDEX ix_station_credits ON station_credit_transactions(partner_uid, id);
""",
        f"ALTER TABLE stations ADD COLUMN tile_y INTEGER GENERATED ALWAYS AS ({_STATION_TILE_Y});",
        f"ALTER TABLE stations ADD COLUMN tile_x INTEGER GENERATED ALWAYS AS ({_STATION_TILE_X});",
        *create_station_indexes_sql(),
        *create_station_triggers_sql(),
    ]
)

# Key manager (Document 1 §2.7, §4.4): the private halves of the RSA exchange keys (the
# platform's and each HSM group's; the stand-in moduli of step 7 and of older demos are
# replaced by real key pairs when the sandbox starts, `sandbox/km_keys.py`), the HSM groups'
# AES keys by version, AS keys, KM devices with their root keys (in clear: this file plays the
# HSM), and the traffic the key manager served (join requests).
_KEY_MANAGER = """
ALTER TABLE platform_exchange_keys ADD COLUMN private_pem TEXT;
ALTER TABLE hsm_groups ADD COLUMN exchange_key_private_pem TEXT;
CREATE TABLE hsm_keys (
    version TEXT PRIMARY KEY,
    hsm_group_id INTEGER NOT NULL REFERENCES hsm_groups(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('APP', 'NWK')),
    key_hex TEXT NOT NULL,
    created INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE km_as_keys (
    uid INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT,
    hsm_group_id INTEGER REFERENCES hsm_groups(id),
    key_label TEXT,
    wrap_algo TEXT NOT NULL DEFAULT 'AES_CBC',
    key_hex TEXT NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    UNIQUE (subscription_id, ref)
);
CREATE TABLE km_devices (
    uid INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    eui TEXT NOT NULL,
    name TEXT,
    app_eui TEXT,
    state TEXT NOT NULL
        CHECK (state IN ('PRE_COMMISSIONED', 'GENERIC', 'COMMISSIONED', 'ACTIVATED')),
    lorawan_version TEXT NOT NULL DEFAULT '1.0',
    app_key TEXT,
    nwk_key TEXT,
    hsm_app_key_version TEXT,
    hsm_nwk_key_version TEXT,
    as_key_id INTEGER REFERENCES km_as_keys(uid),
    home_ns_net_id TEXT,
    home_ns_nsid TEXT,
    owner_id TEXT,
    owner_token_hash TEXT,
    owner_token_enc TEXT,
    se_type TEXT,
    tkm_info TEXT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    UNIQUE (subscription_id, eui)
);
CREATE INDEX ix_km_devices_state ON km_devices(subscription_id, state, uid);
CREATE TABLE km_frames (
    id INTEGER PRIMARY KEY,
    device_uid INTEGER NOT NULL REFERENCES km_devices(uid) ON DELETE CASCADE,
    subscription_id INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    type TEXT NOT NULL
);
CREATE INDEX ix_km_frames_sub ON km_frames(subscription_id, ts);
CREATE INDEX ix_km_frames_device ON km_frames(device_uid, ts);
"""

# --- base station operations (issue 9): commands, runtime state, hourly health, receptions --
#
# `station_commands` is the command queue (the operator's cmdqueues read it too);
# `station_runtime` what a station reports beyond the `stations` row, with the simulator's
# schedule (`next_report`, indexed: a step reads only the stations due); `station_hours`
# hourly health and traffic samples, at most a week per station (older rows are pruned when
# a station reports); `device_receptions` the stations (at most 3, best first) that heard
# each device's last uplink.
_V_STATION_OPS = """
CREATE TABLE station_commands (
    id INTEGER PRIMARY KEY,
    bs_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    command TEXT NOT NULL,               -- the API name: reboot, upgrade, ...
    cmd_type TEXT NOT NULL,              -- lastCmdType: REBOOT, UPGRADE, ...
    params TEXT NOT NULL DEFAULT '{}',   -- JSON (never a password)
    status TEXT NOT NULL,                -- PENDING, PROCESSING, COMPLETED, ERR_*
    requested INTEGER NOT NULL,
    started INTEGER,
    completed INTEGER,
    due INTEGER,                         -- when the simulator looks at it again; NULL: done
    run_ms INTEGER,
    data TEXT,                           -- lastCmdData (version, port)
    completion_data TEXT,
    who TEXT
);
CREATE INDEX ix_station_commands_bs ON station_commands(bs_uid, id);
CREATE INDEX ix_station_commands_due ON station_commands(due) WHERE due IS NOT NULL;
CREATE TABLE station_runtime (
    bs_uid INTEGER PRIMARY KEY REFERENCES stations(uid) ON DELETE CASCADE,
    next_report INTEGER NOT NULL,
    offline_until INTEGER,               -- away for a command (reboot, upgrade ...)
    outage_until INTEGER,                -- away for a backhaul outage
    disk INTEGER,
    recorded_since INTEGER NOT NULL,
    cpu_min INTEGER, cpu_min_ts INTEGER, cpu_max INTEGER, cpu_max_ts INTEGER,
    ram_min INTEGER, ram_min_ts INTEGER, ram_max INTEGER, ram_max_ts INTEGER,
    disk_min INTEGER, disk_min_ts INTEGER, disk_max INTEGER, disk_max_ts INTEGER,
    rtt_max INTEGER, rtt_max_ts INTEGER,
    rfcell_state INTEGER NOT NULL DEFAULT 2,
    rf_scan_state INTEGER NOT NULL DEFAULT 0,
    trace_level INTEGER NOT NULL DEFAULT 0,
    trace_since INTEGER,
    location_type INTEGER NOT NULL DEFAULT 1,
    backup_version TEXT,
    backup_date INTEGER,
    last_system_reboot INTEGER,
    ssh_port INTEGER,
    beacon INTEGER NOT NULL DEFAULT 0,
    rx2 INTEGER NOT NULL DEFAULT 0,
    ieee802154 INTEGER NOT NULL DEFAULT 0,
    support_pw_hash TEXT,                -- scrypt, never the password
    support_pw_changed INTEGER,
    chains TEXT,                         -- JSON [{index, gain, cableLoss}]
    fpga_keys TEXT,                      -- JSON [{index, key}]
    rf_region_version INTEGER NOT NULL DEFAULT 1,
    power_status INTEGER,
    battery INTEGER,
    counters TEXT NOT NULL DEFAULT '{}'  -- JSON of the RF cell and WAN counters
);
CREATE INDEX ix_station_runtime_next ON station_runtime(next_report);
CREATE TABLE station_hours (
    bs_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    ts INTEGER NOT NULL,                 -- start of the hour, epoch ms
    n INTEGER NOT NULL DEFAULT 0,        -- reports in the hour
    cpu_sum INTEGER NOT NULL DEFAULT 0, cpu_sq INTEGER NOT NULL DEFAULT 0,
    cpu_max INTEGER NOT NULL DEFAULT 0,
    ram_sum INTEGER NOT NULL DEFAULT 0, ram_max INTEGER NOT NULL DEFAULT 0,
    disk_sum INTEGER NOT NULL DEFAULT 0, disk_max INTEGER NOT NULL DEFAULT 0,
    rtt_sum INTEGER NOT NULL DEFAULT 0, rtt_sq INTEGER NOT NULL DEFAULT 0,
    rtt_max INTEGER NOT NULL DEFAULT 0,
    up INTEGER NOT NULL DEFAULT 0, up_size INTEGER NOT NULL DEFAULT 0,
    up_crc INTEGER NOT NULL DEFAULT 0,
    dw INTEGER NOT NULL DEFAULT 0, dw_size INTEGER NOT NULL DEFAULT 0,
    dw_dropped INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bs_uid, ts)
) WITHOUT ROWID;
CREATE TABLE device_receptions (
    device_uid INTEGER NOT NULL,
    rank INTEGER NOT NULL,               -- 1: the best station of the uplink
    bs_uid INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    rssi REAL NOT NULL,
    snr REAL NOT NULL,
    esp REAL NOT NULL,
    PRIMARY KEY (device_uid, rank)
) WITHOUT ROWID;
CREATE INDEX ix_device_receptions_bs ON device_receptions(bs_uid, ts);
CREATE TRIGGER tr_device_receptions_gone AFTER DELETE ON devices BEGIN
    DELETE FROM device_receptions WHERE device_uid = old.uid;
END;
CREATE TRIGGER tr_station_receptions_gone AFTER DELETE ON stations BEGIN
    DELETE FROM device_receptions WHERE bs_uid = old.uid;
END;
CREATE TABLE station_antennas (
    bs_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    fields TEXT NOT NULL DEFAULT '{}',   -- JSON of the antenna's writable fields
    PRIMARY KEY (bs_uid, idx)
) WITHOUT ROWID;
"""

# --- application scope (issue 10): applications and the users behind the accounts ---------
#
# `applications` are the platform's (every signed-in user reads them), `ref` the application
# ID (it may hold `/`). `users` gives each account a platform user: its platform ID and the
# OpenID `sub` of its ID tokens, each unique, so a user is found by UID, platform ID or sub.
_V_APPLICATIONS = """
CREATE TABLE applications (
    uid INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    publisher TEXT,
    created INTEGER NOT NULL
);
CREATE TABLE users (
    uid INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
    platform_id TEXT NOT NULL UNIQUE,
    oidc_sub TEXT NOT NULL UNIQUE,
    email TEXT,
    created INTEGER NOT NULL
);
"""

# Operator operations (Document 2 §2.2, §4.1): the provisioning queue, kept by triggers on
# devices, stations and HSM groups (so every path adds its items: routes, the import, the
# key manager) and by `store.operations.enqueue` for profiles; LoRaWAN debugging of devices;
# indexes for the operator's platform-wide lists (SIM cards, IMEI, command types).
_V_OPERATIONS_TABLES = """
ALTER TABLE devices ADD COLUMN lorawan_debug INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN lorawan_debug_since INTEGER;
CREATE INDEX ix_devices_debug ON devices(uid) WHERE lorawan_debug = 1;
CREATE INDEX ix_devices_imei_any ON devices(last_imei) WHERE last_imei IS NOT NULL;
CREATE INDEX ix_devices_imsi_any ON devices(imsi, uid) WHERE imsi IS NOT NULL;
CREATE INDEX ix_devices_eui_any ON devices(eui);
CREATE INDEX ix_station_commands_type ON station_commands(cmd_type, id);
CREATE INDEX ix_station_commands_status ON station_commands(status, id);
CREATE TABLE prov_queue (
    id INTEGER PRIMARY KEY,              -- eventUid
    type TEXT NOT NULL,                  -- DEVICE, BASE_STATION, DEVICE_PROFILE, ...
    action TEXT NOT NULL,                -- CREATION, UPDATE, DELETION, ACTIVATION, ...
    sub_system TEXT NOT NULL,            -- LRC, SPR, HSS_SPR, PGW
    entity_uid INTEGER,
    entity_id TEXT,                      -- DevEUI / IMEI, lrrID, profile or group ID
    subscription_id INTEGER,
    partner_uid INTEGER,
    created INTEGER NOT NULL,
    done_at INTEGER NOT NULL             -- when the subsystem has taken it
);
CREATE INDEX ix_prov_queue_sub ON prov_queue(sub_system, id);
CREATE INDEX ix_prov_queue_type ON prov_queue(type, id);
"""
_NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
# The subsystem takes an item 1.5 to 4.5 seconds after it is queued.
_DONE_AT = f"{_NOW_MS} + 1500 + (abs(random()) % 3000)"


def _prov_insert(type_: str, action: str, sub_system: str, uid: str, ref: str,
                 sub: str = "NULL", partner: str = "NULL", when: str = "1") -> str:  # fmt: skip
    return (
        "INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id,"
        " subscription_id, partner_uid, created, done_at)"
        f" SELECT '{type_}', '{action}', '{sub_system}', {uid}, {ref}, {sub}, {partner},"
        f" {_NOW_MS}, {_DONE_AT} WHERE {when};"
    )


def _device_items(action: str, row: str) -> str:
    """A LoRaWAN device goes to the LRC, a cellular one to the HSS/SPR and the PGW."""
    args = (f"{row}.uid", f"{row}.eui", f"{row}.subscription_id", "NULL")
    cellular = f"{row}.connectivity = 'CELLULAR'"
    return "\n    ".join(
        [
            _prov_insert("DEVICE", action, "LRC", *args, when=f"NOT ({cellular})"),
            _prov_insert("DEVICE", action, "HSS_SPR", *args, when=cellular),
            _prov_insert("DEVICE", action, "PGW", *args, when=cellular),
        ]
    )


# What the platform provisions of a device: a change of another column (the simulator's
# readings, alarms, counters) sends nothing to the subsystems.
_PROVISIONED_DEVICE_COLUMNS = (
    "name", "model_id", "activation", "nw_address", "app_eui", "app_key", "app_skey",
    "as_transport_key", "hsm_group_id", "routing_profile_id", "network_context_id", "imsi",
    "iccid", "lorawan_debug",
)  # fmt: skip
_DEVICE_CHANGED = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in _PROVISIONED_DEVICE_COLUMNS)
_STATION_ARGS = ("NEW.uid", "NEW.lrr_id", "NULL", "NEW.partner_uid")
_OLD_STATION_ARGS = ("OLD.uid", "OLD.lrr_id", "NULL", "OLD.partner_uid")
_HSM_ARGS = ("NEW.id", "NEW.ref", "NEW.subscription_id")
PROV_QUEUE_TRIGGERS = {
    "tr_prov_device_added": f"AFTER INSERT ON devices BEGIN\n    "
    f"{_device_items('ACTIVATION', 'NEW')}\nEND",
    # UPDATE OF: the simulator's updates of other columns (every second) skip the trigger.
    "tr_prov_device_changed": f"AFTER UPDATE OF {', '.join(_PROVISIONED_DEVICE_COLUMNS)}"
    f" ON devices WHEN {_DEVICE_CHANGED} BEGIN\n    "
    f"{_device_items('UPDATE', 'NEW')}\nEND",
    "tr_prov_device_removed": f"AFTER DELETE ON devices BEGIN\n    "
    f"{_device_items('DEACTIVATION', 'OLD')}\nEND",
    "tr_prov_station_added": "AFTER INSERT ON stations BEGIN\n    "
    f"{_prov_insert('BASE_STATION', 'ACTIVATION', 'LRC', *_STATION_ARGS)}\nEND",
    # Every change through the API bumps the station's version; the simulator's never does.
    "tr_prov_station_changed": "AFTER UPDATE OF version ON stations"
    " WHEN OLD.version IS NOT NEW.version BEGIN\n    "
    f"{_prov_insert('BASE_STATION', 'UPDATE', 'LRC', *_STATION_ARGS)}\nEND",
    "tr_prov_station_removed": "AFTER DELETE ON stations BEGIN\n    "
    f"{_prov_insert('BASE_STATION', 'DEACTIVATION', 'LRC', *_OLD_STATION_ARGS)}\nEND",
    "tr_prov_hsm_added": "AFTER INSERT ON hsm_groups BEGIN\n    "
    f"{_prov_insert('HSM_GROUP', 'CREATION', 'LRC', *_HSM_ARGS)}\nEND",
    "tr_prov_hsm_changed": "AFTER UPDATE OF name ON hsm_groups"
    " WHEN OLD.name IS NOT NEW.name BEGIN\n    "
    f"{_prov_insert('HSM_GROUP', 'UPDATE', 'LRC', *_HSM_ARGS)}\nEND",
    "tr_prov_hsm_key": "AFTER INSERT ON hsm_keys BEGIN\n    "
    + _prov_insert(
        "HSM_GROUP",
        "UPDATE",
        "LRC",
        "NEW.hsm_group_id",
        "(SELECT ref FROM hsm_groups WHERE id = NEW.hsm_group_id)",
        "(SELECT subscription_id FROM hsm_groups WHERE id = NEW.hsm_group_id)",
    )
    + "\nEND",
    "tr_prov_hsm_removed": "AFTER DELETE ON hsm_groups BEGIN\n    "
    f"{_prov_insert('HSM_GROUP', 'DELETION', 'LRC', 'OLD.id', 'OLD.ref', 'OLD.subscription_id')}"
    "\nEND",
}


def create_prov_queue_triggers() -> list[str]:
    return [f"CREATE TRIGGER IF NOT EXISTS {n} {body};" for n, body in PROV_QUEUE_TRIGGERS.items()]


def drop_prov_queue_triggers() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name};" for name in PROV_QUEUE_TRIGGERS]


_V_OPERATIONS = _V_OPERATIONS_TABLES + "\n".join(create_prov_queue_triggers())

# The supplier interface (Document 2 §4.2): one supplier per supplier account
# (supplier_accounts), its admins, service accounts (a scrypt hash of the secret, never the
# secret), groups, modules, custom field sets, categories, applications with their manifest
# and options, devices sold (products) with versions, and orders (read-only, JSON context).
_V_SUPPLIERS = """
CREATE TABLE suppliers (
    uid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    email TEXT,
    description TEXT,
    validation_state TEXT,
    currency TEXT,
    cfs_id TEXT,
    exclusive_vendor TEXT,               -- device_vendors.ref
    custom_fields TEXT,                  -- JSON object
    creation_ts INTEGER NOT NULL
);
CREATE TABLE supplier_accounts (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE
);
CREATE TABLE supplier_admins (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    email TEXT NOT NULL COLLATE NOCASE,
    name TEXT,
    api_only INTEGER,
    creation_ts INTEGER NOT NULL,
    UNIQUE (supplier_uid, email)
);
CREATE TABLE supplier_sa_groups (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    UNIQUE (supplier_uid, id)
);
CREATE TABLE supplier_service_accounts (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    client_id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    group_uid INTEGER REFERENCES supplier_sa_groups(uid) ON DELETE SET NULL,
    secret_hash TEXT,                    -- scrypt$salt$digest; NULL until a secret is made
    secret_ts INTEGER,
    creation_ts INTEGER NOT NULL
);
CREATE INDEX ix_supplier_sa ON supplier_service_accounts (supplier_uid, name, uid);
CREATE TABLE supplier_modules (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT,
    authentication TEXT NOT NULL,        -- SMP or OIDC
    url TEXT
);
CREATE TABLE supplier_cfs (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    target TEXT NOT NULL,                -- applications, devices, gateways
    id TEXT NOT NULL,
    name TEXT,
    fields TEXT NOT NULL DEFAULT '[]',   -- JSON [{name, label, required}]
    UNIQUE (supplier_uid, target, id)
);
CREATE TABLE supplier_categories (
    uid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT,
    type TEXT NOT NULL
);
CREATE TABLE supplier_applications (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    sku TEXT,
    description TEXT,
    state TEXT NOT NULL DEFAULT 'ACTIVE',
    validation_state TEXT,
    cfs_id TEXT,
    custom_fields TEXT,                  -- JSON object
    deprecated TEXT,                     -- JSON of the deprecated price fields sent
    manifest TEXT NOT NULL DEFAULT '{}', -- JSON {version, description, permissions}
    creation_ts INTEGER NOT NULL,
    UNIQUE (supplier_uid, id)
);
CREATE INDEX ix_supplier_apps_sku ON supplier_applications (supplier_uid, sku);
CREATE TABLE supplier_app_options (
    uid INTEGER PRIMARY KEY,
    app_uid INTEGER NOT NULL REFERENCES supplier_applications(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    sku TEXT,
    description TEXT,
    deprecated TEXT,
    creation_ts INTEGER NOT NULL,
    UNIQUE (app_uid, id)
);
CREATE TABLE supplier_products (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    sku TEXT,
    description TEXT,
    validation_state TEXT,
    cfs_id TEXT,
    custom_fields TEXT,
    price_plan TEXT,                     -- JSON
    upfront_price REAL,
    stock INTEGER,
    status TEXT,
    vendor TEXT,                         -- device_vendors.ref
    deprecated TEXT,                     -- JSON of weight, width, height, depth
    creation_ts INTEGER NOT NULL,
    UNIQUE (supplier_uid, id)
);
CREATE INDEX ix_supplier_products_sku ON supplier_products (supplier_uid, sku);
CREATE INDEX ix_supplier_products_price ON supplier_products (supplier_uid, upfront_price);
CREATE INDEX ix_supplier_products_name ON supplier_products (supplier_uid, name, uid);
CREATE TABLE supplier_product_versions (
    uid INTEGER PRIMARY KEY,
    product_uid INTEGER NOT NULL REFERENCES supplier_products(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    stock INTEGER,
    status TEXT,
    creation_ts INTEGER NOT NULL,
    UNIQUE (product_uid, id)
);
CREATE INDEX ix_supplier_versions_stock ON supplier_product_versions (product_uid, status, stock);
CREATE TABLE supplier_orders (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    state TEXT NOT NULL,
    subscriber_id TEXT,
    subscriber_name TEXT,
    context TEXT NOT NULL,               -- JSON orderContext
    creation_ts INTEGER NOT NULL
);
"""

# --- the operator's catalogs (Document 2 §2.2, §4.1) -----------------------------------------
#
# The device profiles stay `device_models` (the subscriber's picker reads them): one catalog,
# two views. Added: where a row comes from (CATALOG or CUSTOM), its description, the LoRaWAN
# parameters as JSON (`details`), the alliance profile IDs it covers; base-station vendors and
# profiles with their LRR software versions; RF regions with their logo; the texts of every
# catalog item per language (`catalog_texts`; the item's own columns are in the operator's
# default language); the installed version of each catalog and the repository of versions the
# sandbox offers for `selfUpdate`.
_V_CATALOGS = """
CREATE TABLE operator_settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    default_language TEXT NOT NULL DEFAULT 'en',
    languages TEXT NOT NULL DEFAULT '["en", "fr", "de", "es"]',
    catalog_update_method TEXT NOT NULL DEFAULT 'MANUAL'
);
INSERT INTO operator_settings (id, ref, name) VALUES (1, 'demo-operator', 'Demo Operator');
ALTER TABLE device_models ADD COLUMN source TEXT NOT NULL DEFAULT 'CATALOG';
ALTER TABLE device_models ADD COLUMN description TEXT;
ALTER TABLE device_models ADD COLUMN details TEXT;
ALTER TABLE device_vendors ADD COLUMN lora_vendor_id TEXT;
ALTER TABLE device_vendors ADD COLUMN source TEXT NOT NULL DEFAULT 'CATALOG';
CREATE INDEX ix_device_models_source ON device_models (source, ref);
CREATE TABLE device_model_lora_ids (
    lora_id TEXT NOT NULL,
    model_id INTEGER NOT NULL REFERENCES device_models(id) ON DELETE CASCADE,
    PRIMARY KEY (lora_id, model_id)
) WITHOUT ROWID;
CREATE TABLE bs_vendors (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    source TEXT NOT NULL DEFAULT 'CATALOG'
);
CREATE TABLE bs_profiles (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    commercial_name TEXT NOT NULL,
    description TEXT,
    vendor_id INTEGER REFERENCES bs_vendors(id),
    software_type TEXT NOT NULL,
    rf_hw_config TEXT,
    source TEXT NOT NULL DEFAULT 'CATALOG'
);
CREATE INDEX ix_bs_profiles_source ON bs_profiles (source, ref);
CREATE TABLE lrr_sw_versions (
    profile_id INTEGER NOT NULL REFERENCES bs_profiles(id) ON DELETE CASCADE,
    version TEXT NOT NULL,
    compatibilities TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (profile_id, version)
) WITHOUT ROWID;
CREATE TABLE rf_regions (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    ism_band TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'CATALOG',
    logo BLOB,
    logo_type TEXT
);
CREATE TABLE catalog_texts (
    kind TEXT NOT NULL,
    lang TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    name TEXT,
    description TEXT,
    PRIMARY KEY (kind, lang, item_id)
) WITHOUT ROWID;
CREATE TABLE catalog_versions (
    catalog TEXT PRIMARY KEY,
    version TEXT,
    installed_at INTEGER
);
CREATE TABLE catalog_repository (
    catalog TEXT NOT NULL,
    version TEXT NOT NULL,
    content BLOB NOT NULL,
    PRIMARY KEY (catalog, version)
);
"""

# --- the operator's dashboard (issue 10): KPI samples ----------------------------------------
#
# `kpi_samples` holds each KPI's values by time: the simulator records one every few
# simulated minutes, a new demo gets hourly ones for its traffic history (store/kpis.py).
# (No index on frame_buckets(ts): SQLite then read whole hours' GROUP BY through it, a
# lookup per row, 10x slower than the scan, other modules' queries included.)
_V_DASHBOARD_KPIS = """
CREATE TABLE kpi_samples (
    kpi TEXT NOT NULL,
    ts INTEGER NOT NULL,                 -- epoch ms
    key TEXT NOT NULL,                   -- a metric, or a wildcard metric's stem.element
    value REAL NOT NULL,
    PRIMARY KEY (kpi, ts, key)
) WITHOUT ROWID;
CREATE INDEX ix_kpi_samples_ts ON kpi_samples(ts);
"""


# The simulator at 1M devices and 100k stations (issue 9): its device schedule is made in
# memory (when a device sends is a function of its uid), so `sim_devices` is no longer kept;
# `device_receptions` are rewritten in place at each uplink, so the stations' index holds the
# station alone (with the key): an entry moves only when another station takes a rank, not at
# every uplink as (bs_uid, ts) did. Served-device lists read a station's few rows by it.
_V_SIM_WHEEL = """
DELETE FROM sim_devices;
DROP INDEX IF EXISTS ix_device_receptions_bs;
CREATE INDEX ix_device_receptions_station ON device_receptions(bs_uid);
"""

# A simulator step writes fewer scattered pages (issue 9): a device's exact running SNR
# average is kept beside the reported, indexed `avg_snr`, which moves only in steps.
_V_SIM_STEADY = """
ALTER TABLE devices ADD COLUMN snr_mean REAL;
"""


# A device's receptions move into its row (issue 9): the simulator writes that row at each
# uplink anyway, while `device_receptions` cost a page and moved index entries per uplink
# (a fifth of the receptions change station at their rank). `station_devices` answers which
# devices a station serves; an entry changes only when a station joins or leaves a device's
# set. The list: `[ts, bs_uid, rssi, snr, esp, ...]`, best first (sandbox/receptions.py).
_V_RECEPTIONS_INLINE = """
ALTER TABLE devices ADD COLUMN receptions TEXT;
CREATE TABLE station_devices (
    bs_uid INTEGER NOT NULL,
    device_uid INTEGER NOT NULL,
    PRIMARY KEY (bs_uid, device_uid)
) WITHOUT ROWID;
INSERT INTO station_devices SELECT bs_uid, device_uid FROM device_receptions ORDER BY 1, 2;
UPDATE devices SET receptions = (
    SELECT '[' || max(ts) || ',' || group_concat(bs_uid || ',' || rssi || ',' || snr || ','
        || esp, ',') || ']'
    FROM (SELECT * FROM device_receptions r WHERE r.device_uid = devices.uid ORDER BY rank)
) WHERE uid IN (SELECT device_uid FROM device_receptions);
DROP TRIGGER IF EXISTS tr_device_receptions_gone;
DROP TRIGGER IF EXISTS tr_station_receptions_gone;
DROP TABLE device_receptions;
CREATE TRIGGER tr_station_devices_device_gone AFTER DELETE ON devices
WHEN old.receptions IS NOT NULL BEGIN
    DELETE FROM station_devices WHERE device_uid = old.uid AND bs_uid IN
        (SELECT value FROM json_each(old.receptions) WHERE key % 4 = 1);
END;
CREATE TRIGGER tr_station_devices_station_gone AFTER DELETE ON stations BEGIN
    DELETE FROM station_devices WHERE bs_uid = old.uid;
END;
"""


# The map tiles' trigger fires on the columns that move a device between tiles only, not on
# every update of a device row (the simulator writes hundreds a second).
_V_TILE_TRIGGER = f"""
DROP TRIGGER IF EXISTS tr_tile_moved;
CREATE TRIGGER tr_tile_moved {DERIVED_TRIGGERS["tr_tile_moved"]};
"""


MIGRATIONS: list[str] = [
    _V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V_AS_COUNTS, _DEVICE_CATALOG, _V10,
    _V_TAG_COUNTS, _V_STATIONS, _KEY_MANAGER, _V_STATION_OPS, _V_APPLICATIONS, _V_OPERATIONS,
    _V_SUPPLIERS, _V_CATALOGS, _V_DASHBOARD_KPIS, _V_SIM_WHEEL, _V_SIM_STEADY,
    _V_RECEPTIONS_INLINE, _V_TILE_TRIGGER,
]  # fmt: skip


def _open(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we open transactions ourselves (BEGIN IMMEDIATE for writes).
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA cache_size=-65536")  # 64 MB: the hot indexes of 1M devices fit
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA mmap_size=1073741824")
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Run the steps not yet recorded in user_version; returns the number run."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    pending = MIGRATIONS[version:]
    for number, step in enumerate(pending, start=version + 1):
        # executescript commits first, so the step and its version bump share one BEGIN.
        conn.executescript(f"BEGIN IMMEDIATE;\n{step}\nPRAGMA user_version={number};\nCOMMIT;")
    return len(pending)


class DatabaseRefused(Exception):
    """This file cannot be served; the message says why in plain words."""


PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700
# What SQLite keeps beside the database; it gives them the database file's mode.
SIDECARS = ("-wal", "-shm", "-journal")


def _make_private(path: Path) -> None:
    """Owner-only permissions (POSIX): create the file 0600 before SQLite does, and narrow
    an existing one (and its sidecars) made by an older version."""
    if os.name != "posix":
        return  # Windows: the user's profile folder is private already
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, PRIVATE_FILE))
    for file in (path, *(path.with_name(path.name + s) for s in SIDECARS)):
        try:
            info = file.stat()
        except FileNotFoundError:
            continue
        if info.st_mode & 0o077 and info.st_uid == os.geteuid():
            os.chmod(file, stat.S_IMODE(info.st_mode) & ~0o077)


def check_writable(path: Path) -> None:
    """Refuse a database the sandbox could read but not keep: SQLite also writes its
    journal files beside it, so the folder must be writable too."""
    folder = path.parent
    if path.is_dir():
        raise DatabaseRefused(f"{path} is a folder, not a database file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DatabaseRefused(
            f"The folder {folder} is not writable: the sandbox keeps its database there"
        )
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise DatabaseRefused(f"The database {path} is read-only: the sandbox needs to write it")


def check_version(conn: sqlite3.Connection, path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise DatabaseRefused(
            f"The database {path} was made by a newer version of the sandbox (schema"
            f" {version}, this version knows up to {len(MIGRATIONS)}): use a newer LPWA"
            " Console, or another database file"
        )


class Database:
    """Connections to one SQLite file: one per thread, closed together."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        if not self.path.parent.exists():
            try:
                self.path.parent.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise DatabaseRefused(
                    f"The folder {self.path.parent} cannot be created: {reason}"
                ) from exc
        check_writable(self.path)
        try:
            _make_private(self.path)
            conn = self.conn()
            check_version(conn, self.path)
            self.migrations_run = migrate(conn)
        except sqlite3.DatabaseError as exc:
            self.close()
            raise DatabaseRefused(f"The database {self.path} cannot be used: {exc}") from exc
        except DatabaseRefused:
            self.close()
            raise
        # New: every step ran, i.e. the file started at version 0.
        self.created = self.migrations_run == len(MIGRATIONS)

    def conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = _open(self.path)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: BEGIN IMMEDIATE so concurrent writers queue, not deadlock."""
        conn = self.conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()
