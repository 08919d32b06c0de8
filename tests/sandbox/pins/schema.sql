-- index ix_alarms_acked_set on alarms
CREATE INDEX ix_alarms_acked_set ON alarms(subscription_id, kind, acked, domain_set);

-- index ix_alarms_acked_updated on alarms
CREATE INDEX ix_alarms_acked_updated ON alarms(subscription_id, kind, acked, updated DESC);

-- index ix_alarms_created on alarms
CREATE INDEX ix_alarms_created ON alarms(subscription_id, kind, created);

-- index ix_alarms_device on alarms
CREATE INDEX ix_alarms_device ON alarms(device_uid, alarm_id, state);

-- index ix_alarms_domain_set on alarms
CREATE INDEX ix_alarms_domain_set ON alarms(subscription_id, kind, domain_set);

-- index ix_alarms_group on alarms
CREATE INDEX ix_alarms_group ON alarms(group_uid, alarm_id, state);

-- index ix_alarms_state_set on alarms
CREATE INDEX ix_alarms_state_set ON alarms(subscription_id, kind, state, domain_set);

-- index ix_alarms_state_updated on alarms
CREATE INDEX ix_alarms_state_updated ON alarms(subscription_id, kind, state, updated);

-- index ix_alarms_sub on alarms
CREATE INDEX ix_alarms_sub ON alarms(subscription_id, kind);

-- index ix_alarms_updated on alarms
CREATE INDEX ix_alarms_updated ON alarms(subscription_id, kind, updated);

-- index ix_bs_profiles_source on bs_profiles
CREATE INDEX ix_bs_profiles_source ON bs_profiles (source, ref);

-- index ix_device_app_servers_rev on device_app_servers
CREATE INDEX ix_device_app_servers_rev ON device_app_servers(app_server_id, device_uid);

-- index ix_device_domains_rev on device_domains
CREATE INDEX ix_device_domains_rev ON device_domains(domain_id, device_uid);

-- index ix_device_models_source on device_models
CREATE INDEX ix_device_models_source ON device_models (source, ref);

-- index ix_device_models_vendor on device_models
CREATE INDEX ix_device_models_vendor ON device_models (vendor_id);

-- index ix_device_tags_rev on device_tags
CREATE INDEX ix_device_tags_rev ON device_tags(tag_id, device_uid);

-- index ix_devices_alarm004 on devices
CREATE INDEX ix_devices_alarm004 ON devices(alarm004) WHERE alarm004 IS NOT NULL;

-- index ix_devices_alarm_ds on devices
CREATE INDEX ix_devices_alarm_ds ON devices(subscription_id, alarm_level, domain_set);

-- index ix_devices_atk_ds on devices
CREATE INDEX ix_devices_atk_ds ON devices(subscription_id, as_transport_key, domain_set);

-- index ix_devices_bat on devices
CREATE INDEX ix_devices_bat ON devices(subscription_id, last_bat, uid);

-- index ix_devices_conn_ds on devices
CREATE INDEX ix_devices_conn_ds ON devices(subscription_id, connectivity, domain_set);

-- index ix_devices_created on devices
CREATE INDEX ix_devices_created ON devices(subscription_id, creation_date, uid);

-- index ix_devices_debug on devices
CREATE INDEX ix_devices_debug ON devices(uid) WHERE lorawan_debug = 1;

-- index ix_devices_domain_set on devices
CREATE INDEX ix_devices_domain_set ON devices(subscription_id, domain_set);

-- index ix_devices_eid on devices
CREATE INDEX ix_devices_eid ON devices(subscription_id, eid);

-- index ix_devices_eui_any on devices
CREATE INDEX ix_devices_eui_any ON devices(eui);

-- index ix_devices_geo_ds on devices
CREATE INDEX ix_devices_geo_ds ON devices(subscription_id, lat, lon, domain_set);

-- index ix_devices_health_ds on devices
CREATE INDEX ix_devices_health_ds ON devices(subscription_id, health, domain_set);

-- index ix_devices_iccid on devices
CREATE INDEX ix_devices_iccid ON devices(subscription_id, iccid);

-- index ix_devices_imei on devices
CREATE INDEX ix_devices_imei ON devices(subscription_id, last_imei);

-- index ix_devices_imei_any on devices
CREATE INDEX ix_devices_imei_any ON devices(last_imei) WHERE last_imei IS NOT NULL;

-- index ix_devices_imsi on devices
CREATE INDEX ix_devices_imsi ON devices(subscription_id, imsi);

-- index ix_devices_imsi_any on devices
CREATE INDEX ix_devices_imsi_any ON devices(imsi, uid) WHERE imsi IS NOT NULL;

-- index ix_devices_lastdw on devices
CREATE INDEX ix_devices_lastdw ON devices(subscription_id, last_dw, uid);

-- index ix_devices_lastup on devices
CREATE INDEX ix_devices_lastup ON devices(subscription_id, last_up, uid);

-- index ix_devices_name on devices
CREATE INDEX ix_devices_name ON devices(subscription_id, name, uid);

-- index ix_devices_netctx_ds on devices
CREATE INDEX ix_devices_netctx_ds ON devices(subscription_id, network_context_id, domain_set);

-- index ix_devices_sf on devices
CREATE INDEX ix_devices_sf ON devices(subscription_id, last_sf, uid);

-- index ix_devices_snr on devices
CREATE INDEX ix_devices_snr ON devices(subscription_id, avg_snr, uid);

-- index ix_devices_tile on devices
CREATE INDEX ix_devices_tile ON devices(subscription_id, tile_y, tile_x, domain_set, lat, lon);

-- index ix_km_devices_state on km_devices
CREATE INDEX ix_km_devices_state ON km_devices(subscription_id, state, uid);

-- index ix_km_frames_device on km_frames
CREATE INDEX ix_km_frames_device ON km_frames(device_uid, ts);

-- index ix_km_frames_sub on km_frames
CREATE INDEX ix_km_frames_sub ON km_frames(subscription_id, ts);

-- index ix_kpi_samples_ts on kpi_samples
CREATE INDEX ix_kpi_samples_ts ON kpi_samples(ts);

-- index ix_prov_queue_sub on prov_queue
CREATE INDEX ix_prov_queue_sub ON prov_queue(sub_system, id);

-- index ix_prov_queue_type on prov_queue
CREATE INDEX ix_prov_queue_type ON prov_queue(type, id);

-- index ix_sim_devices_next on sim_devices
CREATE INDEX ix_sim_devices_next ON sim_devices(next_up);

-- index ix_station_alarms_acked on station_alarms
CREATE INDEX ix_station_alarms_acked ON station_alarms(partner_uid, acked, updated);

-- index ix_station_alarms_bs on station_alarms
CREATE INDEX ix_station_alarms_bs ON station_alarms(bs_uid, alarm_id, state);

-- index ix_station_alarms_cleared on station_alarms
CREATE INDEX ix_station_alarms_cleared ON station_alarms(partner_uid, cleared)
    WHERE cleared IS NOT NULL;

-- index ix_station_alarms_partner on station_alarms
CREATE INDEX ix_station_alarms_partner ON station_alarms(partner_uid, updated);

-- index ix_station_alarms_state on station_alarms
CREATE INDEX ix_station_alarms_state ON station_alarms(partner_uid, state, updated);

-- index ix_station_commands_bs on station_commands
CREATE INDEX ix_station_commands_bs ON station_commands(bs_uid, id);

-- index ix_station_commands_due on station_commands
CREATE INDEX ix_station_commands_due ON station_commands(due) WHERE due IS NOT NULL;

-- index ix_station_commands_status on station_commands
CREATE INDEX ix_station_commands_status ON station_commands(status, id);

-- index ix_station_commands_type on station_commands
CREATE INDEX ix_station_commands_type ON station_commands(cmd_type, id);

-- index ix_station_credits on station_credit_transactions
CREATE INDEX ix_station_credits ON station_credit_transactions(partner_uid, id);

-- index ix_station_domains_rev on station_domains
CREATE INDEX ix_station_domains_rev ON station_domains(domain_id, station_uid);

-- index ix_station_runtime_next on station_runtime
CREATE INDEX ix_station_runtime_next ON station_runtime(next_report);

-- index ix_station_tags_rev on station_tags
CREATE INDEX ix_station_tags_rev ON station_tags(tag_id, station_uid);

-- index ix_stations_alarm_ds on stations
CREATE INDEX ix_stations_alarm_ds ON stations(partner_uid, alarm_level, domain_set);

-- index ix_stations_created on stations
CREATE INDEX ix_stations_created ON stations(partner_uid, creation_date, uid, domain_set);

-- index ix_stations_domain_set on stations
CREATE INDEX ix_stations_domain_set ON stations(partner_uid, domain_set);

-- index ix_stations_health_ds on stations
CREATE INDEX ix_stations_health_ds ON stations(partner_uid, health_state, domain_set);

-- index ix_stations_lastdw on stations
CREATE INDEX ix_stations_lastdw ON stations(partner_uid, last_dw, uid, domain_set);

-- index ix_stations_lastup on stations
CREATE INDEX ix_stations_lastup ON stations(partner_uid, last_up, uid, domain_set);

-- index ix_stations_lrr on stations
CREATE INDEX ix_stations_lrr ON stations(partner_uid, lrr_id, domain_set);

-- index ix_stations_name on stations
CREATE INDEX ix_stations_name ON stations(partner_uid, name, uid, domain_set);

-- index ix_stations_reboot on stations
CREATE INDEX ix_stations_reboot ON stations(partner_uid, last_reboot, uid, domain_set);

-- index ix_stations_tile on stations
CREATE INDEX ix_stations_tile ON stations(partner_uid, tile_y, tile_x, domain_set, lat, lon);

-- index ix_stations_uuid on stations
CREATE INDEX ix_stations_uuid ON stations(partner_uid, lrr_uuid);

-- index ix_stations_version on stations
CREATE INDEX ix_stations_version ON stations(partner_uid, sw_version, uid, domain_set);

-- index ix_supplier_apps_sku on supplier_applications
CREATE INDEX ix_supplier_apps_sku ON supplier_applications (supplier_uid, sku);

-- index ix_supplier_products_name on supplier_products
CREATE INDEX ix_supplier_products_name ON supplier_products (supplier_uid, name, uid);

-- index ix_supplier_products_price on supplier_products
CREATE INDEX ix_supplier_products_price ON supplier_products (supplier_uid, upfront_price);

-- index ix_supplier_products_sku on supplier_products
CREATE INDEX ix_supplier_products_sku ON supplier_products (supplier_uid, sku);

-- index ix_supplier_sa on supplier_service_accounts
CREATE INDEX ix_supplier_sa ON supplier_service_accounts (supplier_uid, name, uid);

-- index ix_supplier_versions_stock on supplier_product_versions
CREATE INDEX ix_supplier_versions_stock ON supplier_product_versions (product_uid, status, stock);

-- index sqlite_autoindex_accounts_1 on accounts
None;

-- index sqlite_autoindex_app_servers_1 on app_servers
None;

-- index sqlite_autoindex_applications_1 on applications
None;

-- index sqlite_autoindex_as_transport_keys_1 on as_transport_keys
None;

-- index sqlite_autoindex_bs_profiles_1 on bs_profiles
None;

-- index sqlite_autoindex_bs_vendors_1 on bs_vendors
None;

-- index sqlite_autoindex_catalog_repository_1 on catalog_repository
None;

-- index sqlite_autoindex_catalog_versions_1 on catalog_versions
None;

-- index sqlite_autoindex_device_models_1 on device_models
None;

-- index sqlite_autoindex_device_vendors_1 on device_vendors
None;

-- index sqlite_autoindex_devices_1 on devices
None;

-- index sqlite_autoindex_domain_sets_1 on domain_sets
None;

-- index sqlite_autoindex_domains_1 on domains
None;

-- index sqlite_autoindex_hsm_groups_1 on hsm_groups
None;

-- index sqlite_autoindex_km_as_keys_1 on km_as_keys
None;

-- index sqlite_autoindex_km_devices_1 on km_devices
None;

-- index sqlite_autoindex_multicast_groups_1 on multicast_groups
None;

-- index sqlite_autoindex_network_contexts_1 on network_contexts
None;

-- index sqlite_autoindex_network_subscriptions_1 on network_subscriptions
None;

-- index sqlite_autoindex_partners_1 on partners
None;

-- index sqlite_autoindex_rf_regions_1 on rf_regions
None;

-- index sqlite_autoindex_routing_profiles_1 on routing_profiles
None;

-- index sqlite_autoindex_station_tag_names_1 on station_tag_names
None;

-- index sqlite_autoindex_stations_1 on stations
None;

-- index sqlite_autoindex_subscriptions_1 on subscriptions
None;

-- index sqlite_autoindex_supplier_admins_1 on supplier_admins
None;

-- index sqlite_autoindex_supplier_app_options_1 on supplier_app_options
None;

-- index sqlite_autoindex_supplier_applications_1 on supplier_applications
None;

-- index sqlite_autoindex_supplier_categories_1 on supplier_categories
None;

-- index sqlite_autoindex_supplier_cfs_1 on supplier_cfs
None;

-- index sqlite_autoindex_supplier_product_versions_1 on supplier_product_versions
None;

-- index sqlite_autoindex_supplier_products_1 on supplier_products
None;

-- index sqlite_autoindex_supplier_sa_groups_1 on supplier_sa_groups
None;

-- index sqlite_autoindex_supplier_service_accounts_1 on supplier_service_accounts
None;

-- index sqlite_autoindex_suppliers_1 on suppliers
None;

-- index sqlite_autoindex_tags_1 on tags
None;

-- index sqlite_autoindex_users_1 on users
None;

-- index sqlite_autoindex_users_2 on users
None;

-- index sqlite_autoindex_users_3 on users
None;

-- table accounts on accounts
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
, partner_uid INTEGER REFERENCES partners(uid));

-- table alarms on alarms
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
, domain_set INTEGER NOT NULL DEFAULT 0);

-- table app_server_device_counts on app_server_device_counts
CREATE TABLE app_server_device_counts (
    app_server_id INTEGER NOT NULL,
    domain_key TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (app_server_id, domain_key)
) WITHOUT ROWID;

-- table app_server_domains on app_server_domains
CREATE TABLE app_server_domains (
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (app_server_id, domain_id)
) WITHOUT ROWID;

-- table app_servers on app_servers
CREATE TABLE app_servers (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL, scope TEXT NOT NULL DEFAULT 'SUBSCRIPTION', type TEXT NOT NULL DEFAULT 'HTTP', state TEXT NOT NULL DEFAULT 'ACTIVE', validation_state TEXT NOT NULL DEFAULT 'VALIDATED', health_state TEXT NOT NULL DEFAULT 'ACTIVE', content_type TEXT, destinations TEXT NOT NULL DEFAULT '[]', custom_headers TEXT NOT NULL DEFAULT '[]', flow_matcher_tags TEXT NOT NULL DEFAULT '[]', security_status TEXT NOT NULL DEFAULT 'NONE', security_as_id TEXT, security_key TEXT, security_max_deviation INTEGER, version INTEGER NOT NULL DEFAULT 0, last_update INTEGER, who TEXT,
    UNIQUE (subscription_id, ref)
);

-- table applications on applications
CREATE TABLE applications (
    uid INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    publisher TEXT,
    created INTEGER NOT NULL
);

-- table as_transport_keys on as_transport_keys
CREATE TABLE as_transport_keys (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (subscription_id, ref)
);

-- table bs_profiles on bs_profiles
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

-- table bs_vendors on bs_vendors
CREATE TABLE bs_vendors (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    source TEXT NOT NULL DEFAULT 'CATALOG'
);

-- table catalog_repository on catalog_repository
CREATE TABLE catalog_repository (
    catalog TEXT NOT NULL,
    version TEXT NOT NULL,
    content BLOB NOT NULL,
    PRIMARY KEY (catalog, version)
);

-- table catalog_texts on catalog_texts
CREATE TABLE catalog_texts (
    kind TEXT NOT NULL,
    lang TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    name TEXT,
    description TEXT,
    PRIMARY KEY (kind, lang, item_id)
) WITHOUT ROWID;

-- table catalog_versions on catalog_versions
CREATE TABLE catalog_versions (
    catalog TEXT PRIMARY KEY,
    version TEXT,
    installed_at INTEGER
);

-- table demo_parts on demo_parts
CREATE TABLE demo_parts (name TEXT PRIMARY KEY) WITHOUT ROWID;

-- table device_app_servers on device_app_servers
CREATE TABLE device_app_servers (
    device_uid INTEGER NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (device_uid, app_server_id)
) WITHOUT ROWID;

-- table device_counts on device_counts
CREATE TABLE device_counts (
    subscription_id INTEGER NOT NULL,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (subscription_id, domain_set)
) WITHOUT ROWID;

-- table device_domains on device_domains
CREATE TABLE device_domains (
    device_uid INTEGER NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (device_uid, domain_id)
) WITHOUT ROWID;

-- table device_model_bands on device_model_bands
CREATE TABLE device_model_bands (
    model_id INTEGER NOT NULL REFERENCES device_models(id) ON DELETE CASCADE,
    band TEXT NOT NULL,
    PRIMARY KEY (model_id, band)
) WITHOUT ROWID;

-- table device_model_lora_ids on device_model_lora_ids
CREATE TABLE device_model_lora_ids (
    lora_id TEXT NOT NULL,
    model_id INTEGER NOT NULL REFERENCES device_models(id) ON DELETE CASCADE,
    PRIMARY KEY (lora_id, model_id)
) WITHOUT ROWID;

-- table device_models on device_models
CREATE TABLE device_models (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    commercial_name TEXT NOT NULL,
    connectivity TEXT NOT NULL
, vendor_id INTEGER REFERENCES device_vendors(id), type_mac TEXT, mac_major INTEGER, mac_minor INTEGER, motion TEXT, source TEXT NOT NULL DEFAULT 'CATALOG', description TEXT, details TEXT);

-- table device_tags on device_tags
CREATE TABLE device_tags (
    device_uid INTEGER NOT NULL REFERENCES devices(uid) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    PRIMARY KEY (device_uid, tag_id)
) WITHOUT ROWID;

-- table device_tiles on device_tiles
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

-- table device_vendors on device_vendors
CREATE TABLE device_vendors (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT,
    logo TEXT
, lora_vendor_id TEXT, source TEXT NOT NULL DEFAULT 'CATALOG');

-- table devices on devices
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
    marker_id INTEGER, domain_set INTEGER NOT NULL DEFAULT 0, tile_y INTEGER GENERATED ALWAYS AS (CASE WHEN lat BETWEEN -90 AND 90 THEN min(16383, CAST((lat + 90.0) * 16384 / 180 AS INTEGER)) END), tile_x INTEGER GENERATED ALWAYS AS (CASE WHEN lon BETWEEN -180 AND 180 THEN min(16383, CAST((lon + 180.0) * 16384 / 360 AS INTEGER)) END), lorawan_debug INTEGER NOT NULL DEFAULT 0, lorawan_debug_since INTEGER, snr_mean REAL, receptions TEXT,
    UNIQUE (subscription_id, eui)
);

-- table domain_set_members on domain_set_members
CREATE TABLE domain_set_members (
    set_id INTEGER NOT NULL REFERENCES domain_sets(id) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (set_id, domain_id)
) WITHOUT ROWID;

-- table domain_sets on domain_sets
CREATE TABLE domain_sets (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE           -- the set's domain ids, ascending, comma-separated
);

-- table domains on domains
CREATE TABLE domains (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    grp TEXT NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (subscription_id, grp, name)
);

-- table frame_buckets on frame_buckets
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

-- table hsm_groups on hsm_groups
CREATE TABLE hsm_groups (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL, exchange_key_version INTEGER, exchange_key_n TEXT, exchange_key_e TEXT, exchange_key_private_pem TEXT,
    UNIQUE (subscription_id, ref)
);

-- table hsm_keys on hsm_keys
CREATE TABLE hsm_keys (
    version TEXT PRIMARY KEY,
    hsm_group_id INTEGER NOT NULL REFERENCES hsm_groups(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('APP', 'NWK')),
    key_hex TEXT NOT NULL,
    created INTEGER NOT NULL
) WITHOUT ROWID;

-- table km_as_keys on km_as_keys
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

-- table km_devices on km_devices
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

-- table km_frames on km_frames
CREATE TABLE km_frames (
    id INTEGER PRIMARY KEY,
    device_uid INTEGER NOT NULL REFERENCES km_devices(uid) ON DELETE CASCADE,
    subscription_id INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    type TEXT NOT NULL
);

-- table kpi_samples on kpi_samples
CREATE TABLE kpi_samples (
    kpi TEXT NOT NULL,
    ts INTEGER NOT NULL,                 -- epoch ms
    key TEXT NOT NULL,                   -- a metric, or a wildcard metric's stem.element
    value REAL NOT NULL,
    PRIMARY KEY (kpi, ts, key)
) WITHOUT ROWID;

-- table lrr_sw_versions on lrr_sw_versions
CREATE TABLE lrr_sw_versions (
    profile_id INTEGER NOT NULL REFERENCES bs_profiles(id) ON DELETE CASCADE,
    version TEXT NOT NULL,
    compatibilities TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (profile_id, version)
) WITHOUT ROWID;

-- table multicast_group_app_servers on multicast_group_app_servers
CREATE TABLE multicast_group_app_servers (
    group_uid INTEGER NOT NULL REFERENCES multicast_groups(uid) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (group_uid, app_server_id)
) WITHOUT ROWID;

-- table multicast_group_bs_tags on multicast_group_bs_tags
CREATE TABLE multicast_group_bs_tags (
    group_uid INTEGER NOT NULL REFERENCES multicast_groups(uid) ON DELETE CASCADE,
    name TEXT NOT NULL,
    namespace TEXT NOT NULL DEFAULT 'SUBSCRIBER',
    PRIMARY KEY (group_uid, name)
) WITHOUT ROWID;

-- table multicast_group_domains on multicast_group_domains
CREATE TABLE multicast_group_domains (
    group_uid INTEGER NOT NULL REFERENCES multicast_groups(uid) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (group_uid, domain_id)
) WITHOUT ROWID;

-- table multicast_groups on multicast_groups
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
    alarm_level INTEGER NOT NULL DEFAULT 0, network_subscription TEXT,
    UNIQUE (subscription_id, eui)
);

-- table network_contexts on network_contexts
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

-- table network_subscriptions on network_subscriptions
CREATE TABLE network_subscriptions (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    body TEXT NOT NULL,               -- JSON: the NetworkSubscription fields
    UNIQUE (subscription_id, ref)
);

-- table operator_settings on operator_settings
CREATE TABLE operator_settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    default_language TEXT NOT NULL DEFAULT 'en',
    languages TEXT NOT NULL DEFAULT '["en", "fr", "de", "es"]',
    catalog_update_method TEXT NOT NULL DEFAULT 'MANUAL'
);

-- table partners on partners
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
    state_ts INTEGER NOT NULL, version INTEGER NOT NULL DEFAULT 0, last_update INTEGER, who TEXT,
    UNIQUE (type, ref)
);

-- table platform_exchange_keys on platform_exchange_keys
CREATE TABLE platform_exchange_keys (
    kid TEXT PRIMARY KEY,              -- the key version, as JWK `kid`
    n_hex TEXT NOT NULL,               -- modulus, hexadecimal
    e_hex TEXT NOT NULL,               -- public exponent, hexadecimal
    created INTEGER NOT NULL
, private_pem TEXT) WITHOUT ROWID;

-- table prov_queue on prov_queue
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

-- table rf_regions on rf_regions
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

-- table routing_profile_app_servers on routing_profile_app_servers
CREATE TABLE routing_profile_app_servers (
    profile_id INTEGER NOT NULL REFERENCES routing_profiles(id) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (profile_id, app_server_id)
) WITHOUT ROWID;

-- table routing_profiles on routing_profiles
CREATE TABLE routing_profiles (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    ref TEXT NOT NULL,
    name TEXT NOT NULL,
    as_transport_key TEXT, connectivity TEXT NOT NULL DEFAULT 'LORAWAN'
    CHECK (connectivity IN ('LORAWAN', 'CELLULAR')),
    UNIQUE (subscription_id, ref)
);

-- table sim_devices on sim_devices
CREATE TABLE sim_devices (uid INTEGER PRIMARY KEY, next_up INTEGER NOT NULL);

-- table sim_new on sim_new
CREATE TABLE sim_new (device_uid INTEGER PRIMARY KEY);

-- table sim_recheck on sim_recheck
CREATE TABLE sim_recheck (device_uid INTEGER PRIMARY KEY);

-- table sim_silent on sim_silent
CREATE TABLE sim_silent (device_uid INTEGER PRIMARY KEY);

-- table sim_state on sim_state
CREATE TABLE sim_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

-- table sqlite_stat1 on sqlite_stat1
CREATE TABLE sqlite_stat1(tbl,idx,stat);

-- table station_alarms on station_alarms
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

-- table station_antennas on station_antennas
CREATE TABLE station_antennas (
    bs_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    fields TEXT NOT NULL DEFAULT '{}',   -- JSON of the antenna's writable fields
    PRIMARY KEY (bs_uid, idx)
) WITHOUT ROWID;

-- table station_app_servers on station_app_servers
CREATE TABLE station_app_servers (
    station_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    app_server_id INTEGER NOT NULL REFERENCES app_servers(id) ON DELETE CASCADE,
    PRIMARY KEY (station_uid, app_server_id)
) WITHOUT ROWID;

-- table station_commands on station_commands
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

-- table station_counts on station_counts
CREATE TABLE station_counts (
    partner_uid INTEGER NOT NULL,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (partner_uid, domain_set)
) WITHOUT ROWID;

-- table station_credit_transactions on station_credit_transactions
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

-- table station_devices on station_devices
CREATE TABLE station_devices (
    bs_uid INTEGER NOT NULL,
    device_uid INTEGER NOT NULL,
    PRIMARY KEY (bs_uid, device_uid)
) WITHOUT ROWID;

-- table station_domains on station_domains
CREATE TABLE station_domains (
    station_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    domain_id INTEGER NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    PRIMARY KEY (station_uid, domain_id)
) WITHOUT ROWID;

-- table station_hours on station_hours
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

-- table station_runtime on station_runtime
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

-- table station_tag_names on station_tag_names
CREATE TABLE station_tag_names (
    id INTEGER PRIMARY KEY,
    partner_uid INTEGER NOT NULL REFERENCES partners(uid),
    name TEXT NOT NULL,
    multicast_visibility INTEGER NOT NULL DEFAULT 1,
    UNIQUE (partner_uid, name)
);

-- table station_tags on station_tags
CREATE TABLE station_tags (
    station_uid INTEGER NOT NULL REFERENCES stations(uid) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES station_tag_names(id) ON DELETE CASCADE,
    PRIMARY KEY (station_uid, tag_id)
) WITHOUT ROWID;

-- table station_tiles on station_tiles
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

-- table stations on stations
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
, tile_y INTEGER GENERATED ALWAYS AS (CASE WHEN lat BETWEEN -90 AND 90 THEN min(16383, CAST((lat + 90.0) * 16384 / 180 AS INTEGER)) END), tile_x INTEGER GENERATED ALWAYS AS (CASE WHEN lon BETWEEN -180 AND 180 THEN min(16383, CAST((lon + 180.0) * 16384 / 360 AS INTEGER)) END));

-- table subscriptions on subscriptions
CREATE TABLE subscriptions (
    id INTEGER PRIMARY KEY,
    ref TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    hsm TEXT NOT NULL DEFAULT 'DEACTIVATED',
    show_tag_suggestions INTEGER NOT NULL DEFAULT 1,
    creation_ts INTEGER NOT NULL
, version INTEGER NOT NULL DEFAULT 0, last_update INTEGER, who TEXT);

-- table supplier_accounts on supplier_accounts
CREATE TABLE supplier_accounts (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE
);

-- table supplier_admins on supplier_admins
CREATE TABLE supplier_admins (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    email TEXT NOT NULL COLLATE NOCASE,
    name TEXT,
    api_only INTEGER,
    creation_ts INTEGER NOT NULL,
    UNIQUE (supplier_uid, email)
);

-- table supplier_app_options on supplier_app_options
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

-- table supplier_applications on supplier_applications
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

-- table supplier_categories on supplier_categories
CREATE TABLE supplier_categories (
    uid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT,
    type TEXT NOT NULL
);

-- table supplier_cfs on supplier_cfs
CREATE TABLE supplier_cfs (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    target TEXT NOT NULL,                -- applications, devices, gateways
    id TEXT NOT NULL,
    name TEXT,
    fields TEXT NOT NULL DEFAULT '[]',   -- JSON [{name, label, required}]
    UNIQUE (supplier_uid, target, id)
);

-- table supplier_modules on supplier_modules
CREATE TABLE supplier_modules (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT,
    authentication TEXT NOT NULL,        -- SMP or OIDC
    url TEXT
);

-- table supplier_orders on supplier_orders
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

-- table supplier_product_versions on supplier_product_versions
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

-- table supplier_products on supplier_products
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

-- table supplier_sa_groups on supplier_sa_groups
CREATE TABLE supplier_sa_groups (
    uid INTEGER PRIMARY KEY,
    supplier_uid INTEGER NOT NULL REFERENCES suppliers(uid) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    UNIQUE (supplier_uid, id)
);

-- table supplier_service_accounts on supplier_service_accounts
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

-- table suppliers on suppliers
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

-- table tag_counts on tag_counts
CREATE TABLE tag_counts (
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    domain_set INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tag_id, domain_set)
) WITHOUT ROWID;

-- table tags on tags
CREATE TABLE tags (
    id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    name TEXT NOT NULL,
    UNIQUE (subscription_id, name)
);

-- table tokens on tokens
CREATE TABLE tokens (
    token TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    expires_at REAL NOT NULL
) WITHOUT ROWID;

-- table users on users
CREATE TABLE users (
    uid INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
    platform_id TEXT NOT NULL UNIQUE,
    oidc_sub TEXT NOT NULL UNIQUE,
    email TEXT,
    created INTEGER NOT NULL
);

-- trigger tr_alarm_domain_set on alarms
CREATE TRIGGER tr_alarm_domain_set AFTER INSERT ON alarms WHEN new.device_uid IS NOT NULL BEGIN UPDATE alarms SET domain_set = coalesce((SELECT domain_set FROM devices WHERE uid = new.device_uid), 0) WHERE id = new.id;
END;

-- trigger tr_alarms_follow_domain_set on devices
CREATE TRIGGER tr_alarms_follow_domain_set AFTER UPDATE OF domain_set ON devices WHEN old.domain_set IS NOT new.domain_set BEGIN UPDATE alarms SET domain_set = new.domain_set WHERE device_uid = new.uid;
END;

-- trigger tr_as_counts_domain_add on device_domains
CREATE TRIGGER tr_as_counts_domain_add AFTER INSERT ON device_domains BEGIN
    
    INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, coalesce((SELECT group_concat(domain_id, ',') FROM (SELECT domain_id
    FROM device_domains WHERE device_uid = NEW.device_uid AND domain_id <> NEW.domain_id ORDER BY domain_id)), ''), -1 FROM (SELECT app_server_id FROM device_app_servers WHERE device_uid = NEW.device_uid) WHERE 1
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM app_server_device_counts WHERE app_server_id IN (SELECT app_server_id FROM device_app_servers WHERE device_uid = NEW.device_uid) AND n = 0;
    
    INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, coalesce((SELECT group_concat(domain_id, ',') FROM (SELECT domain_id
    FROM device_domains WHERE device_uid = NEW.device_uid ORDER BY domain_id)), ''), 1 FROM (SELECT app_server_id FROM device_app_servers WHERE device_uid = NEW.device_uid) WHERE 1
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM app_server_device_counts WHERE app_server_id IN (SELECT app_server_id FROM device_app_servers WHERE device_uid = NEW.device_uid) AND n = 0;
END;

-- trigger tr_as_counts_domain_remove on device_domains
CREATE TRIGGER tr_as_counts_domain_remove AFTER DELETE ON device_domains BEGIN
    
    INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, coalesce((SELECT group_concat(d, ',') FROM (SELECT domain_id AS d
    FROM device_domains WHERE device_uid = OLD.device_uid UNION SELECT OLD.domain_id
    ORDER BY d)), ''), -1 FROM (SELECT app_server_id FROM device_app_servers WHERE device_uid = OLD.device_uid) WHERE 1
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM app_server_device_counts WHERE app_server_id IN (SELECT app_server_id FROM device_app_servers WHERE device_uid = OLD.device_uid) AND n = 0;
    
    INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, coalesce((SELECT group_concat(domain_id, ',') FROM (SELECT domain_id
    FROM device_domains WHERE device_uid = OLD.device_uid ORDER BY domain_id)), ''), 1 FROM (SELECT app_server_id FROM device_app_servers WHERE device_uid = OLD.device_uid) WHERE 1
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM app_server_device_counts WHERE app_server_id IN (SELECT app_server_id FROM device_app_servers WHERE device_uid = OLD.device_uid) AND n = 0;
END;

-- trigger tr_as_counts_link_add on device_app_servers
CREATE TRIGGER tr_as_counts_link_add AFTER INSERT ON device_app_servers BEGIN
    
    INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, coalesce((SELECT group_concat(domain_id, ',') FROM (SELECT domain_id
    FROM device_domains WHERE device_uid = NEW.device_uid ORDER BY domain_id)), ''), 1 FROM (SELECT NEW.app_server_id AS app_server_id) WHERE 1
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM app_server_device_counts WHERE app_server_id IN (SELECT NEW.app_server_id AS app_server_id) AND n = 0;
END;

-- trigger tr_as_counts_link_remove on device_app_servers
CREATE TRIGGER tr_as_counts_link_remove AFTER DELETE ON device_app_servers BEGIN
    
    INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, coalesce((SELECT group_concat(domain_id, ',') FROM (SELECT domain_id
    FROM device_domains WHERE device_uid = OLD.device_uid ORDER BY domain_id)), ''), -1 FROM (SELECT OLD.app_server_id AS app_server_id) WHERE 1
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
    DELETE FROM app_server_device_counts WHERE app_server_id IN (SELECT OLD.app_server_id AS app_server_id) AND n = 0;
END;

-- trigger tr_count_added on devices
CREATE TRIGGER tr_count_added AFTER INSERT ON devices BEGIN INSERT INTO device_counts VALUES (new.subscription_id, new.domain_set, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- trigger tr_count_moved on devices
CREATE TRIGGER tr_count_moved AFTER UPDATE OF domain_set, subscription_id ON devices WHEN old.domain_set IS NOT new.domain_set OR old.subscription_id IS NOT new.subscription_id BEGIN UPDATE device_counts SET n = n - 1 WHERE subscription_id = old.subscription_id AND domain_set = old.domain_set; INSERT INTO device_counts VALUES (new.subscription_id, new.domain_set, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- trigger tr_count_removed on devices
CREATE TRIGGER tr_count_removed AFTER DELETE ON devices BEGIN UPDATE device_counts SET n = n - 1 WHERE subscription_id = old.subscription_id AND domain_set = old.domain_set;
END;

-- trigger tr_domain_set_added on device_domains
CREATE TRIGGER tr_domain_set_added AFTER INSERT ON device_domains BEGIN
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid) WHERE (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, device_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid) AND l.device_uid = new.device_uid;
    UPDATE devices SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid)), 0)
    WHERE uid = new.device_uid;
END;

-- trigger tr_domain_set_changed on device_domains
CREATE TRIGGER tr_domain_set_changed AFTER UPDATE ON device_domains BEGIN
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid) WHERE (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, device_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid) AND l.device_uid = old.device_uid;
    UPDATE devices SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid)), 0)
    WHERE uid = old.device_uid;
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid) WHERE (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, device_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid) AND l.device_uid = new.device_uid;
    UPDATE devices SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = new.device_uid)), 0)
    WHERE uid = new.device_uid;
END;

-- trigger tr_domain_set_removed on device_domains
CREATE TRIGGER tr_domain_set_removed AFTER DELETE ON device_domains BEGIN
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid) WHERE (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, device_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid) AND l.device_uid = old.device_uid;
    UPDATE devices SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM device_domains WHERE device_uid = old.device_uid)), 0)
    WHERE uid = old.device_uid;
END;

-- trigger tr_prov_device_added on devices
CREATE TRIGGER tr_prov_device_added AFTER INSERT ON devices BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'ACTIVATION', 'LRC', NEW.uid, NEW.eui, NEW.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE NOT (NEW.connectivity = 'CELLULAR');
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'ACTIVATION', 'HSS_SPR', NEW.uid, NEW.eui, NEW.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE NEW.connectivity = 'CELLULAR';
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'ACTIVATION', 'PGW', NEW.uid, NEW.eui, NEW.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE NEW.connectivity = 'CELLULAR';
END;

-- trigger tr_prov_device_changed on devices
CREATE TRIGGER tr_prov_device_changed AFTER UPDATE OF name, model_id, activation, nw_address, app_eui, app_key, app_skey, as_transport_key, hsm_group_id, routing_profile_id, network_context_id, imsi, iccid, lorawan_debug ON devices WHEN OLD.name IS NOT NEW.name OR OLD.model_id IS NOT NEW.model_id OR OLD.activation IS NOT NEW.activation OR OLD.nw_address IS NOT NEW.nw_address OR OLD.app_eui IS NOT NEW.app_eui OR OLD.app_key IS NOT NEW.app_key OR OLD.app_skey IS NOT NEW.app_skey OR OLD.as_transport_key IS NOT NEW.as_transport_key OR OLD.hsm_group_id IS NOT NEW.hsm_group_id OR OLD.routing_profile_id IS NOT NEW.routing_profile_id OR OLD.network_context_id IS NOT NEW.network_context_id OR OLD.imsi IS NOT NEW.imsi OR OLD.iccid IS NOT NEW.iccid OR OLD.lorawan_debug IS NOT NEW.lorawan_debug BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'UPDATE', 'LRC', NEW.uid, NEW.eui, NEW.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE NOT (NEW.connectivity = 'CELLULAR');
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'UPDATE', 'HSS_SPR', NEW.uid, NEW.eui, NEW.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE NEW.connectivity = 'CELLULAR';
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'UPDATE', 'PGW', NEW.uid, NEW.eui, NEW.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE NEW.connectivity = 'CELLULAR';
END;

-- trigger tr_prov_device_removed on devices
CREATE TRIGGER tr_prov_device_removed AFTER DELETE ON devices BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'DEACTIVATION', 'LRC', OLD.uid, OLD.eui, OLD.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE NOT (OLD.connectivity = 'CELLULAR');
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'DEACTIVATION', 'HSS_SPR', OLD.uid, OLD.eui, OLD.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE OLD.connectivity = 'CELLULAR';
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'DEVICE', 'DEACTIVATION', 'PGW', OLD.uid, OLD.eui, OLD.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE OLD.connectivity = 'CELLULAR';
END;

-- trigger tr_prov_hsm_added on hsm_groups
CREATE TRIGGER tr_prov_hsm_added AFTER INSERT ON hsm_groups BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'HSM_GROUP', 'CREATION', 'LRC', NEW.id, NEW.ref, NEW.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE 1;
END;

-- trigger tr_prov_hsm_removed on hsm_groups
CREATE TRIGGER tr_prov_hsm_removed AFTER DELETE ON hsm_groups BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'HSM_GROUP', 'DELETION', 'LRC', OLD.id, OLD.ref, OLD.subscription_id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE 1;
END;

-- trigger tr_prov_station_added on stations
CREATE TRIGGER tr_prov_station_added AFTER INSERT ON stations BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'BASE_STATION', 'ACTIVATION', 'LRC', NEW.uid, NEW.lrr_id, NULL, NEW.partner_uid, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE 1;
END;

-- trigger tr_prov_station_changed on stations
CREATE TRIGGER tr_prov_station_changed AFTER UPDATE OF version ON stations WHEN OLD.version IS NOT NEW.version BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'BASE_STATION', 'UPDATE', 'LRC', NEW.uid, NEW.lrr_id, NULL, NEW.partner_uid, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE 1;
END;

-- trigger tr_prov_station_removed on stations
CREATE TRIGGER tr_prov_station_removed AFTER DELETE ON stations BEGIN
    INSERT INTO prov_queue (type, action, sub_system, entity_uid, entity_id, subscription_id, partner_uid, created, done_at) SELECT 'BASE_STATION', 'DEACTIVATION', 'LRC', OLD.uid, OLD.lrr_id, NULL, OLD.partner_uid, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 1500 + (abs(random()) % 3000) WHERE 1;
END;

-- trigger tr_sim_forget on devices
CREATE TRIGGER tr_sim_forget AFTER DELETE ON devices
BEGIN
    DELETE FROM sim_devices WHERE uid = old.uid;
    DELETE FROM sim_silent WHERE device_uid = old.uid;
    DELETE FROM sim_recheck WHERE device_uid = old.uid;
END;

-- trigger tr_sim_recheck on devices
CREATE TRIGGER tr_sim_recheck AFTER UPDATE OF alarm004 ON devices
BEGIN
    INSERT OR IGNORE INTO sim_recheck VALUES (new.uid);
END;

-- trigger tr_sim_reused on devices
CREATE TRIGGER tr_sim_reused AFTER INSERT ON devices
WHEN new.uid <= coalesce(
    (SELECT CAST(value AS INTEGER) FROM sim_state WHERE key = 'known_uid'), 0)
BEGIN
    INSERT OR IGNORE INTO sim_new VALUES (new.uid);
END;

-- trigger tr_station_alarm_domain_set on station_alarms
CREATE TRIGGER tr_station_alarm_domain_set AFTER INSERT ON station_alarms BEGIN UPDATE station_alarms SET domain_set = coalesce((SELECT domain_set FROM stations WHERE uid = new.bs_uid), 0) WHERE id = new.id;
END;

-- trigger tr_station_alarms_follow on stations
CREATE TRIGGER tr_station_alarms_follow AFTER UPDATE OF domain_set ON stations WHEN old.domain_set IS NOT new.domain_set BEGIN UPDATE station_alarms SET domain_set = new.domain_set WHERE bs_uid = new.uid;
END;

-- trigger tr_station_count_added on stations
CREATE TRIGGER tr_station_count_added AFTER INSERT ON stations BEGIN INSERT INTO station_counts VALUES (new.partner_uid, new.domain_set, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- trigger tr_station_count_moved on stations
CREATE TRIGGER tr_station_count_moved AFTER UPDATE OF domain_set, partner_uid ON stations WHEN old.domain_set IS NOT new.domain_set OR old.partner_uid IS NOT new.partner_uid BEGIN UPDATE station_counts SET n = n - 1 WHERE partner_uid = old.partner_uid AND domain_set = old.domain_set; INSERT INTO station_counts VALUES (new.partner_uid, new.domain_set, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- trigger tr_station_count_removed on stations
CREATE TRIGGER tr_station_count_removed AFTER DELETE ON stations BEGIN UPDATE station_counts SET n = n - 1 WHERE partner_uid = old.partner_uid AND domain_set = old.domain_set;
END;

-- trigger tr_station_devices_device_gone on devices
CREATE TRIGGER tr_station_devices_device_gone AFTER DELETE ON devices
WHEN old.receptions IS NOT NULL BEGIN
    DELETE FROM station_devices WHERE device_uid = old.uid AND bs_uid IN
        (SELECT value FROM json_each(old.receptions) WHERE key % 4 = 1);
END;

-- trigger tr_station_devices_station_gone on stations
CREATE TRIGGER tr_station_devices_station_gone AFTER DELETE ON stations BEGIN
    DELETE FROM station_devices WHERE bs_uid = old.uid;
END;

-- trigger tr_station_domain_set_added on station_domains
CREATE TRIGGER tr_station_domain_set_added AFTER INSERT ON station_domains BEGIN
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid) WHERE (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, station_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid) AND l.station_uid = new.station_uid;
    UPDATE stations SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid)), 0)
    WHERE uid = new.station_uid;
END;

-- trigger tr_station_domain_set_changed on station_domains
CREATE TRIGGER tr_station_domain_set_changed AFTER UPDATE ON station_domains BEGIN
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid) WHERE (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, station_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid) AND l.station_uid = old.station_uid;
    UPDATE stations SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid)), 0)
    WHERE uid = old.station_uid;
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid) WHERE (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, station_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid) AND l.station_uid = new.station_uid;
    UPDATE stations SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = new.station_uid)), 0)
    WHERE uid = new.station_uid;
END;

-- trigger tr_station_domain_set_removed on station_domains
CREATE TRIGGER tr_station_domain_set_removed AFTER DELETE ON station_domains BEGIN
    INSERT OR IGNORE INTO domain_sets (key) SELECT (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid) WHERE (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid) IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, station_domains l WHERE s.key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid) AND l.station_uid = old.station_uid;
    UPDATE stations SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = (SELECT group_concat(domain_id) FROM station_domains WHERE station_uid = old.station_uid)), 0)
    WHERE uid = old.station_uid;
END;

-- trigger tr_station_tile_added on stations
CREATE TRIGGER tr_station_tile_added AFTER INSERT ON stations WHEN new.tile_y IS NOT NULL AND new.tile_x IS NOT NULL BEGIN
    DELETE FROM station_tiles WHERE partner_uid = new.partner_uid AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set;
    INSERT INTO station_tiles SELECT new.partner_uid, new.tile_y, new.tile_x,
        new.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM stations WHERE partner_uid = new.partner_uid AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set HAVING count(*) > 0;
END;

-- trigger tr_station_tile_moved on stations
CREATE TRIGGER tr_station_tile_moved AFTER UPDATE OF lat, lon, domain_set, partner_uid ON stations WHEN old.lat IS NOT new.lat OR old.lon IS NOT new.lon OR old.domain_set IS NOT new.domain_set OR old.partner_uid IS NOT new.partner_uid BEGIN
    DELETE FROM station_tiles WHERE partner_uid = old.partner_uid AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set;
    INSERT INTO station_tiles SELECT old.partner_uid, old.tile_y, old.tile_x,
        old.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM stations WHERE partner_uid = old.partner_uid AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set HAVING count(*) > 0;
    DELETE FROM station_tiles WHERE partner_uid = new.partner_uid AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set;
    INSERT INTO station_tiles SELECT new.partner_uid, new.tile_y, new.tile_x,
        new.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM stations WHERE partner_uid = new.partner_uid AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set HAVING count(*) > 0;
END;

-- trigger tr_station_tile_removed on stations
CREATE TRIGGER tr_station_tile_removed AFTER DELETE ON stations WHEN old.tile_y IS NOT NULL AND old.tile_x IS NOT NULL BEGIN
    DELETE FROM station_tiles WHERE partner_uid = old.partner_uid AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set;
    INSERT INTO station_tiles SELECT old.partner_uid, old.tile_y, old.tile_x,
        old.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM stations WHERE partner_uid = old.partner_uid AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set HAVING count(*) > 0;
END;

-- trigger tr_tag_count_added on device_tags
CREATE TRIGGER tr_tag_count_added AFTER INSERT ON device_tags BEGIN INSERT INTO tag_counts SELECT new.tag_id, domain_set, 1 FROM devices WHERE uid = new.device_uid ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- trigger tr_tag_count_device_removed on devices
CREATE TRIGGER tr_tag_count_device_removed BEFORE DELETE ON devices BEGIN DELETE FROM device_tags WHERE device_uid = old.uid;
END;

-- trigger tr_tag_count_moved on devices
CREATE TRIGGER tr_tag_count_moved AFTER UPDATE OF domain_set ON devices WHEN old.domain_set IS NOT new.domain_set BEGIN UPDATE tag_counts SET n = n - 1 WHERE domain_set = old.domain_set AND tag_id IN (SELECT tag_id FROM device_tags WHERE device_uid = new.uid); INSERT INTO tag_counts SELECT tag_id, new.domain_set, 1 FROM device_tags WHERE device_uid = new.uid ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- trigger tr_tag_count_removed on device_tags
CREATE TRIGGER tr_tag_count_removed AFTER DELETE ON device_tags BEGIN UPDATE tag_counts SET n = n - 1 WHERE tag_id = old.tag_id AND domain_set = (SELECT domain_set FROM devices WHERE uid = old.device_uid);
END;

-- trigger tr_tile_added on devices
CREATE TRIGGER tr_tile_added AFTER INSERT ON devices WHEN new.tile_y IS NOT NULL AND new.tile_x IS NOT NULL BEGIN
    DELETE FROM device_tiles WHERE subscription_id = new.subscription_id AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set;
    INSERT INTO device_tiles SELECT new.subscription_id, new.tile_y, new.tile_x,
        new.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM devices WHERE subscription_id = new.subscription_id AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set HAVING count(*) > 0;
END;

-- trigger tr_tile_moved on devices
CREATE TRIGGER tr_tile_moved AFTER UPDATE OF lat, lon, domain_set, subscription_id ON devices WHEN old.lat IS NOT new.lat OR old.lon IS NOT new.lon OR old.domain_set IS NOT new.domain_set OR old.subscription_id IS NOT new.subscription_id BEGIN
    DELETE FROM device_tiles WHERE subscription_id = old.subscription_id AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set;
    INSERT INTO device_tiles SELECT old.subscription_id, old.tile_y, old.tile_x,
        old.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM devices WHERE subscription_id = old.subscription_id AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set HAVING count(*) > 0;
    DELETE FROM device_tiles WHERE subscription_id = new.subscription_id AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set;
    INSERT INTO device_tiles SELECT new.subscription_id, new.tile_y, new.tile_x,
        new.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM devices WHERE subscription_id = new.subscription_id AND tile_y = new.tile_y AND tile_x = new.tile_x AND domain_set = new.domain_set HAVING count(*) > 0;
END;

-- trigger tr_tile_removed on devices
CREATE TRIGGER tr_tile_removed AFTER DELETE ON devices WHEN old.tile_y IS NOT NULL AND old.tile_x IS NOT NULL BEGIN
    DELETE FROM device_tiles WHERE subscription_id = old.subscription_id AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set;
    INSERT INTO device_tiles SELECT old.subscription_id, old.tile_y, old.tile_x,
        old.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM devices WHERE subscription_id = old.subscription_id AND tile_y = old.tile_y AND tile_x = old.tile_x AND domain_set = old.domain_set HAVING count(*) > 0;
END;

