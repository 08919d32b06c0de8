"""Migration steps of partners, base stations and their simulator.

A shipped step never changes (tests/sandbox/test_migration_pins.py).
"""

from __future__ import annotations

from .ddl import create_triggers
from .fleet_triggers import DERIVED_TRIGGERS, STATION_TRIGGERS
from .indexes import create_station_indexes_sql
from .tiles import TILE_X_SQL, TILE_Y_SQL

# The station triggers the stations' step shipped with; later ones come in steps of their own.
_LATER_STATION_TRIGGERS = ("tr_station_domain_set_changed",)
_FIRST_STATION_TRIGGERS = {
    name: body for name, body in STATION_TRIGGERS.items() if name not in _LATER_STATION_TRIGGERS
}

_STATION_TILE_Y = TILE_Y_SQL
_STATION_TILE_X = TILE_X_SQL

V_STATIONS = "\n".join(
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
        *create_triggers(_FIRST_STATION_TRIGGERS),
    ]
)


# --- base station operations (issue 9): commands, runtime state, hourly health, receptions --
#
# `station_commands` is the command queue (the operator's cmdqueues read it too);
# `station_runtime` what a station reports beyond the `stations` row, with the simulator's
# schedule (`next_report`, indexed: a step reads only the stations due); `station_hours`
# hourly health and traffic samples, at most a week per station (older rows are pruned when
# a station reports); `device_receptions` the stations (at most 3, best first) that heard
# each device's last uplink.
V_STATION_OPS = """
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


# The simulator at 1M devices and 100k stations (issue 9): its device schedule is made in
# memory (when a device sends is a function of its uid), so `sim_devices` is no longer kept;
# `device_receptions` are rewritten in place at each uplink, so the stations' index holds the
# station alone (with the key): an entry moves only when another station takes a rank, not at
# every uplink as (bs_uid, ts) did. Served-device lists read a station's few rows by it.
V_SIM_WHEEL = """
DELETE FROM sim_devices;
DROP INDEX IF EXISTS ix_device_receptions_bs;
CREATE INDEX ix_device_receptions_station ON device_receptions(bs_uid);
"""

# A simulator step writes fewer scattered pages (issue 9): a device's exact running SNR
# average is kept beside the reported, indexed `avg_snr`, which moves only in steps.
V_SIM_STEADY = """
ALTER TABLE devices ADD COLUMN snr_mean REAL;
"""


# A device's receptions move into its row (issue 9): the simulator writes that row at each
# uplink anyway, while `device_receptions` cost a page and moved index entries per uplink
# (a fifth of the receptions change station at their rank). `station_devices` answers which
# devices a station serves; an entry changes only when a station joins or leaves a device's
# set. The list: `[ts, bs_uid, rssi, snr, esp, ...]`, best first (sandbox/receptions.py).
V_RECEPTIONS_INLINE = """
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
V_TILE_TRIGGER = f"""
DROP TRIGGER IF EXISTS tr_tile_moved;
CREATE TRIGGER tr_tile_moved {DERIVED_TRIGGERS["tr_tile_moved"]};
"""

# A station's domain links changed in place (UPDATE, not delete and insert) give it its new
# domain set, as a device's do (`tr_domain_set_changed`); the stations' step lacked it.
V_STATION_DOMAIN_SET_CHANGED = "\n".join(
    create_triggers(
        {"tr_station_domain_set_changed": STATION_TRIGGERS["tr_station_domain_set_changed"]}
    )
)
