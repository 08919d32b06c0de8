"""Migration steps 1 to 13: the subscriber's devices, alarms, groups and network resources.

A shipped step never changes (tests/sandbox/test_migration_pins.py).
"""

from __future__ import annotations

from .count_triggers import (
    REBUILD_LINK_COUNTS,
    REBUILD_TAG_COUNTS,
    create_link_count_triggers,
    create_tag_count_triggers,
)
from .fleet_triggers import (
    REBUILD_SUMMARIES_SQL,
    create_derived_triggers_sql,
    rebuild_domain_sets_sql,
)
from .indexes import create_device_indexes_sql
from .tiles import TILE_X_SQL, TILE_Y_SQL

V1 = """
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
V2 = """
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

# Step 3: alarms (of devices and, later, multicast groups), hourly traffic buckets, and the
# simulator's persistent state.
V3 = """
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
V4 = """
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
V5 = """
CREATE TABLE demo_parts (name TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO demo_parts SELECT 'base' WHERE EXISTS (SELECT 1 FROM subscriptions);
INSERT INTO demo_parts SELECT 'multicast' WHERE EXISTS (SELECT 1 FROM multicast_groups);
INSERT INTO demo_parts SELECT 'network' WHERE EXISTS (SELECT 1 FROM network_contexts);
"""

# The simulator's schedule: each device's next uplink, so a step reads only the devices due
# (not all of them); devices whose alarm004 thresholds changed are re-checked once.
V6 = """
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
V7 = """
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
V8 = """
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
V9 = """
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

V_AS_COUNTS = "\n".join(
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
DEVICE_CATALOG = """
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


# Step 10: domain sets and map tiles (above), and the indexes that use them.
V10 = "\n".join(
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
V_TAG_COUNTS = "\n".join(
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
