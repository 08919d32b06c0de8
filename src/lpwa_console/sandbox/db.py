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
    "ix_devices_health": "devices(subscription_id, health, uid)",
    "ix_devices_alarm": "devices(subscription_id, alarm_level, uid)",
    "ix_devices_geo": "devices(subscription_id, lat, lon, uid)",
    "ix_devices_conn": "devices(subscription_id, connectivity, uid)",
    "ix_devices_atk": "devices(subscription_id, as_transport_key, uid)",
    "ix_devices_netctx": "devices(subscription_id, network_context_id, uid)",
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

MIGRATIONS: list[str] = [
    _V1, create_device_indexes_sql(), _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V_AS_COUNTS,
    _DEVICE_CATALOG,
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
