"""Triggers keeping the fleet entities' derived structures exact: domain sets, counts and
map tiles of devices and stations, generated from each entity's table names, and the
statements rebuilding them after bulk seeding.

A device's domains, as a set, get an id (`devices.domain_set`, 0 for none): the few distinct
sets are matched against a user's domain restrictions, so a restriction is a test on one
column of the row instead of a walk through the link table for every device. And devices
are counted per map tile (TILE_LEVEL: 2^14 x 2^14 tiles over the world) and domain set in
`device_tiles`, so clusters over a big box add up a few thousand tiles, not a million rows;
`device_counts` gives the total of an unfiltered list the same way. Stations reuse the same
machinery (`station_domains`, `station_counts`, `station_tiles`; the sets are shared in
`domain_sets`). Triggers keep all of it exact under every change; bulk seeding drops the
triggers and rebuilds.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ddl import create_triggers, drop_triggers


@dataclass(frozen=True)
class FleetTables:
    """The tables of one fleet entity that its derived structures follow."""

    table: str  # devices
    owner: str  # the column of the owning subscription or partner
    domain_links: str  # device_domains
    link_column: str  # its column naming the entity, device_uid
    counts: str  # entities per owner and domain set
    tiles: str  # entities per owner, level-14 map tile and domain set
    alarms: str  # alarms
    alarm_column: str  # the alarm's column naming the entity
    alarm_when: str  # a condition on the new alarm row ("" for every row)

    @classmethod
    def of(
        cls, entity: str, *, owner: str, alarms: str, alarm_column: str, alarm_when: str = ""
    ) -> FleetTables:
        """The tables named after `entity` (device: devices, device_domains by device_uid,
        device_counts, device_tiles), with its owner column and alarms."""
        return cls(
            f"{entity}s", owner, f"{entity}_domains", f"{entity}_uid", f"{entity}_counts",
            f"{entity}_tiles", alarms, alarm_column, alarm_when,
        )  # fmt: skip


DEVICES = FleetTables.of(
    "device", owner="subscription_id", alarms="alarms", alarm_column="device_uid",
    alarm_when=" WHEN new.device_uid IS NOT NULL",  # the table holds group alarms too
)  # fmt: skip
STATIONS = FleetTables.of(
    "station", owner="partner_uid", alarms="station_alarms", alarm_column="bs_uid"
)


def _domain_set_of(t: FleetTables, uid: str) -> str:
    """Statements giving entity `uid` the id of its set of domains (0: none)."""
    # The primary key walks an entity's links by domain id: the key lists them in order.
    key = f"(SELECT group_concat(domain_id) FROM {t.domain_links} WHERE {t.link_column} = {uid})"
    return f"""
    INSERT OR IGNORE INTO domain_sets (key) SELECT {key} WHERE {key} IS NOT NULL;
    INSERT OR IGNORE INTO domain_set_members SELECT s.id, l.domain_id
        FROM domain_sets s, {t.domain_links} l WHERE s.key = {key} AND l.{t.link_column} = {uid};
    UPDATE {t.table} SET domain_set = coalesce((SELECT id FROM domain_sets WHERE key = {key}), 0)
    WHERE uid = {uid};"""


def _recompute_tile(t: FleetTables, prefix: str) -> str:
    """Statements recomputing the tile row of `prefix` (new/old) from the entities."""
    key = (
        f"{t.owner} = {prefix}.{t.owner} AND tile_y = {prefix}.tile_y"
        f" AND tile_x = {prefix}.tile_x AND domain_set = {prefix}.domain_set"
    )
    return f"""
    DELETE FROM {t.tiles} WHERE {key};
    INSERT INTO {t.tiles} SELECT {prefix}.{t.owner}, {prefix}.tile_y, {prefix}.tile_x,
        {prefix}.domain_set, count(*), sum(lat), sum(lon), min(lat), max(lat), min(lon),
        max(lon), min(uid)
    FROM {t.table} WHERE {key} HAVING count(*) > 0;"""


def fleet_triggers(t: FleetTables) -> dict[str, str]:
    """The triggers of entity `t` by what they do (each entity names them: `*_TRIGGERS`)."""
    links, table, counts, owner = t.domain_links, t.table, t.counts, t.owner
    count_added = (
        f" INSERT INTO {counts} VALUES (new.{owner}, new.domain_set, 1)"
        " ON CONFLICT DO UPDATE SET n = n + 1;\nEND"
    )
    count_removed = (
        f" UPDATE {counts} SET n = n - 1"
        f" WHERE {owner} = old.{owner} AND domain_set = old.domain_set;"
    )
    return {
        "domain_set_added": f"AFTER INSERT ON {links} BEGIN"
        f"{_domain_set_of(t, f'new.{t.link_column}')}\nEND",
        "domain_set_removed": f"AFTER DELETE ON {links} BEGIN"
        f"{_domain_set_of(t, f'old.{t.link_column}')}\nEND",
        "domain_set_changed": f"AFTER UPDATE ON {links} BEGIN"
        f"{_domain_set_of(t, f'old.{t.link_column}')}"
        f"{_domain_set_of(t, f'new.{t.link_column}')}\nEND",
        # An alarm carries its entity's domain set, so restricted alarm lists and counts
        # read the alarm rows alone.
        "alarm_domain_set": f"AFTER INSERT ON {t.alarms}{t.alarm_when} BEGIN"
        f" UPDATE {t.alarms} SET domain_set = coalesce((SELECT domain_set FROM {table}"
        f" WHERE uid = new.{t.alarm_column}), 0) WHERE id = new.id;\nEND",
        "alarms_follow": f"AFTER UPDATE OF domain_set ON {table}"
        " WHEN old.domain_set IS NOT new.domain_set BEGIN"
        f" UPDATE {t.alarms} SET domain_set = new.domain_set"
        f" WHERE {t.alarm_column} = new.uid;\nEND",
        # Entities per owner and domain set: the total of an unfiltered list.
        "count_added": f"AFTER INSERT ON {table} BEGIN{count_added}",
        "count_removed": f"AFTER DELETE ON {table} BEGIN{count_removed}\nEND",
        "count_moved": f"AFTER UPDATE OF domain_set, {owner} ON {table}"
        f" WHEN old.domain_set IS NOT new.domain_set OR old.{owner} IS NOT new.{owner}"
        f" BEGIN{count_removed}{count_added}",
        "tile_added": f"AFTER INSERT ON {table}"
        " WHEN new.tile_y IS NOT NULL AND new.tile_x IS NOT NULL"
        f" BEGIN{_recompute_tile(t, 'new')}\nEND",
        "tile_removed": f"AFTER DELETE ON {table}"
        " WHEN old.tile_y IS NOT NULL AND old.tile_x IS NOT NULL"
        f" BEGIN{_recompute_tile(t, 'old')}\nEND",
        # (UPDATE OF its columns: the simulator's every-second updates of other columns skip it)
        "tile_moved": f"AFTER UPDATE OF lat, lon, domain_set, {owner} ON {table}"
        " WHEN old.lat IS NOT new.lat OR old.lon IS NOT new.lon"
        f" OR old.domain_set IS NOT new.domain_set OR old.{owner} IS NOT new.{owner}"
        f" BEGIN{_recompute_tile(t, 'old')}{_recompute_tile(t, 'new')}\nEND",
    }


def _named(t: FleetTables, names: dict[str, str]) -> dict[str, str]:
    """The triggers of `t` under their shipped names (name -> what it does), in that order."""
    bodies = fleet_triggers(t)
    return {name: bodies[role] for name, role in names.items()}


DERIVED_TRIGGERS: dict[str, str] = _named(
    DEVICES,
    {
        "tr_domain_set_added": "domain_set_added",
        "tr_domain_set_removed": "domain_set_removed",
        "tr_domain_set_changed": "domain_set_changed",
        "tr_alarm_domain_set": "alarm_domain_set",
        "tr_alarms_follow_domain_set": "alarms_follow",
        "tr_count_added": "count_added",
        "tr_count_removed": "count_removed",
        "tr_count_moved": "count_moved",
        "tr_tile_added": "tile_added",
        "tr_tile_removed": "tile_removed",
        "tr_tile_moved": "tile_moved",
    },
)
STATION_TRIGGERS: dict[str, str] = _named(
    STATIONS,
    {
        "tr_station_domain_set_added": "domain_set_added",
        "tr_station_domain_set_removed": "domain_set_removed",
        # Added by a later step (steps_stations.V_STATION_DOMAIN_SET_CHANGED), as devices have.
        "tr_station_domain_set_changed": "domain_set_changed",
        "tr_station_count_added": "count_added",
        "tr_station_count_removed": "count_removed",
        "tr_station_count_moved": "count_moved",
        "tr_station_alarm_domain_set": "alarm_domain_set",
        "tr_station_alarms_follow": "alarms_follow",
        "tr_station_tile_added": "tile_added",
        "tr_station_tile_removed": "tile_removed",
        "tr_station_tile_moved": "tile_moved",
    },
)


def create_derived_triggers_sql() -> list[str]:
    return create_triggers(DERIVED_TRIGGERS)


def drop_derived_triggers_sql() -> list[str]:
    return drop_triggers(DERIVED_TRIGGERS)


def create_station_triggers_sql() -> list[str]:
    return create_triggers(STATION_TRIGGERS)


def drop_station_triggers_sql() -> list[str]:
    return drop_triggers(STATION_TRIGGERS)


def rebuild_summaries_sql(t: FleetTables) -> list[str]:
    """The counts and tiles of entity `t`, from its rows."""
    return [
        f"DELETE FROM {t.counts}",
        f"INSERT INTO {t.counts} SELECT {t.owner}, domain_set, count(*) FROM {t.table}"
        f" GROUP BY {t.owner}, domain_set",
        f"DELETE FROM {t.tiles}",
        f"INSERT INTO {t.tiles} SELECT {t.owner}, tile_y, tile_x, domain_set, count(*),"
        f" sum(lat), sum(lon), min(lat), max(lat), min(lon), max(lon), min(uid) FROM {t.table}"
        " WHERE tile_y IS NOT NULL AND tile_x IS NOT NULL"
        f" GROUP BY {t.owner}, tile_y, tile_x, domain_set",
    ]


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


# The devices' summaries (counts and tiles), from the devices.
REBUILD_SUMMARIES_SQL: list[str] = rebuild_summaries_sql(DEVICES)


def rebuild_station_sets_sql() -> list[str]:
    """Statements setting every station's `domain_set`, its alarms' and the summaries (after
    bulk seeding)."""
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
        *rebuild_summaries_sql(STATIONS),
    ]
