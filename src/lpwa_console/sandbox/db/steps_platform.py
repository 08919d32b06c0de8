"""Migration steps of the platform's other interfaces: key manager, applications, operator
operations, suppliers, catalogs and the dashboard.

A shipped step never changes (tests/sandbox/test_migration_pins.py).
"""

from __future__ import annotations

from .ddl import create_triggers, drop_triggers
from .prov_queue import RETIRED_PROV_QUEUE_TRIGGERS, SHIPPED_PROV_QUEUE_TRIGGERS

# Key manager (Document 1 §2.7, §4.4): the private halves of the RSA exchange keys (the
# platform's and each HSM group's; the stand-in moduli of step 7 and of older demos are
# replaced by real key pairs when the sandbox starts, `sandbox/km_keys.py`), the HSM groups'
# AES keys by version, AS keys, KM devices with their root keys (in clear: this file plays the
# HSM), and the traffic the key manager served (join requests).
KEY_MANAGER = """
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


# --- application scope (issue 10): applications and the users behind the accounts ---------
#
# `applications` are the platform's (every signed-in user reads them), `ref` the application
# ID (it may hold `/`). `users` gives each account a platform user: its platform ID and the
# OpenID `sub` of its ID tokens, each unique, so a user is found by UID, platform ID or sub.
V_APPLICATIONS = """
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
V_OPERATIONS = _V_OPERATIONS_TABLES + "\n".join(create_triggers(SHIPPED_PROV_QUEUE_TRIGGERS))

# The supplier interface (Document 2 §4.2): one supplier per supplier account
# (supplier_accounts), its admins, service accounts (a scrypt hash of the secret, never the
# secret), groups, modules, custom field sets, categories, applications with their manifest
# and options, devices sold (products) with versions, and orders (read-only, JSON context).
V_SUPPLIERS = """
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
V_CATALOGS = """
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
V_DASHBOARD_KPIS = """
CREATE TABLE kpi_samples (
    kpi TEXT NOT NULL,
    ts INTEGER NOT NULL,                 -- epoch ms
    key TEXT NOT NULL,                   -- a metric, or a wildcard metric's stem.element
    value REAL NOT NULL,
    PRIMARY KEY (kpi, ts, key)
) WITHOUT ROWID;
CREATE INDEX ix_kpi_samples_ts ON kpi_samples(ts);
"""


# Secrets at rest (issue 21): key material sealed with the key file beside the database
# (`sealing.py`: the functions are registered on every connection), bearer tokens and the
# demo accounts' client secrets kept as hashes. The demo secrets become the ones derived
# from the key file (`demo_secret`), which `lpwa-sandbox accounts` lists. Sealing the
# devices' keys is no change to provision: the queue items it would add are dropped.
V_SECRETS_AT_REST = """
UPDATE km_devices SET app_key = seal(app_key), nwk_key = seal(nwk_key)
    WHERE app_key IS NOT NULL OR nwk_key IS NOT NULL;
UPDATE km_as_keys SET key_hex = seal(key_hex) WHERE key_hex IS NOT NULL;
UPDATE hsm_keys SET key_hex = seal(key_hex) WHERE key_hex IS NOT NULL;
UPDATE platform_exchange_keys SET private_pem = seal(private_pem) WHERE private_pem IS NOT NULL;
UPDATE hsm_groups SET exchange_key_private_pem = seal(exchange_key_private_pem)
    WHERE exchange_key_private_pem IS NOT NULL;
CREATE TEMP TABLE secrets_queue_mark AS SELECT coalesce(max(id), 0) AS id FROM prov_queue;
UPDATE devices SET app_key = seal(app_key), app_skey = seal(app_skey)
    WHERE app_key IS NOT NULL OR app_skey IS NOT NULL;
DELETE FROM prov_queue WHERE id > (SELECT id FROM secrets_queue_mark);
DROP TABLE secrets_queue_mark;
UPDATE multicast_groups SET app_skey = seal(app_skey) WHERE app_skey IS NOT NULL;
UPDATE tokens SET token = token_hash(token);
UPDATE accounts SET client_secret = 'sha256$' || token_hash(demo_secret(client_id))
    WHERE role != 'service-account';
"""

# Rules of issue 21 §4: an HSM group's change is one queue item, queued by the store (the
# triggers queued one per key and one for the name); stations name RF regions the operator's
# catalog holds (the demo's EU868 and EU868-ES were in no catalog: EU868_DEFAULT); cellular
# devices have their IP address (`nwAddress`, the operator list's `devAddr`), 10.0.0.0/8 by
# UID as a new one gets it (`store.devices.cellular_ip`). Giving the addresses is no change
# to provision: the queue items it would add are dropped.
V_PLATFORM_RULES = (
    "\n".join(drop_triggers(RETIRED_PROV_QUEUE_TRIGGERS))
    + """
UPDATE stations SET rf_region_id = 'EU868_DEFAULT'
    WHERE rf_region_id IN ('EU868', 'EU868-ES')
    AND EXISTS (SELECT 1 FROM rf_regions WHERE ref = 'EU868_DEFAULT')
    AND NOT EXISTS (SELECT 1 FROM rf_regions r WHERE r.ref = stations.rf_region_id);
CREATE TEMP TABLE rules_queue_mark AS SELECT coalesce(max(id), 0) AS id FROM prov_queue;
UPDATE devices SET nw_address = '10.' || ((uid >> 16) & 255) || '.' || ((uid >> 8) & 255)
    || '.' || (uid & 255)
    WHERE connectivity = 'CELLULAR' AND nw_address IS NULL;
DELETE FROM prov_queue WHERE id > (SELECT id FROM rules_queue_mark);
DROP TABLE rules_queue_mark;
"""
)
