"""Triggers keeping the fleet entities' derived structures exact: domain sets, counts
and map tiles of devices and stations, and the statements rebuilding them."""

from __future__ import annotations

# --- derived structures: domain sets and map tiles ----------------------------------------
#
# A device's domains, as a set, get an id (`devices.domain_set`, 0 for none): the few distinct
# sets are matched against a user's domain restrictions, so a restriction is a test on one
# column of the row instead of a walk through the link table for every device. And devices
# are counted per map tile (TILE_LEVEL: 2^14 x 2^14 tiles over the world) and domain set in
# `device_tiles`, so clusters over a big box add up a few thousand tiles, not a million rows;
# `device_counts` gives the total of an unfiltered list the same way.
# Triggers keep both exact under every change; bulk seeding drops the triggers and rebuilds.


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
