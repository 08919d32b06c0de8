"""Triggers keeping per-link counts exact: devices per application server and per tag."""

from __future__ import annotations

from .ddl import create_triggers, drop_triggers

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
    return create_triggers(LINK_COUNT_TRIGGERS)


def drop_link_count_triggers() -> list[str]:
    return drop_triggers(LINK_COUNT_TRIGGERS)


REBUILD_LINK_COUNTS = [
    "DELETE FROM app_server_device_counts;",
    f"""INSERT INTO app_server_device_counts (app_server_id, domain_key, n)
    SELECT app_server_id, {_key("l.device_uid")} AS k, count(*) FROM device_app_servers l
    GROUP BY app_server_id, k;""",
]


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
    return create_triggers(TAG_COUNT_TRIGGERS)


def drop_tag_count_triggers() -> list[str]:
    return drop_triggers(TAG_COUNT_TRIGGERS)


REBUILD_TAG_COUNTS = [
    "DELETE FROM tag_counts;",
    "INSERT INTO tag_counts SELECT l.tag_id, d.domain_set, count(*) FROM device_tags l"
    " JOIN devices d ON d.uid = l.device_uid GROUP BY l.tag_id, d.domain_set;",
]
