"""A station's domain links changed in place (UPDATE of `station_domains`) give it its new
domain set, its alarms that set and its count the right row, as a device's links do: the
trigger came with a migration step of its own (the stations' step lacked it)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lpwa_console.sandbox import SandboxSettings, demo
from lpwa_console.sandbox.db import MIGRATIONS, migrate
from lpwa_console.sandbox.db.steps_stations import V_STATION_DOMAIN_SET_CHANGED

from .test_store import _at_step

TRIGGER = "tr_station_domain_set_changed"


def _set_of_links(conn: sqlite3.Connection, uid: int) -> int:
    """The domain set the station's links name (0: none), read from the links themselves."""
    key = conn.execute(
        "SELECT group_concat(domain_id) FROM (SELECT domain_id FROM station_domains"
        " WHERE station_uid = ? ORDER BY domain_id)",
        (uid,),
    ).fetchone()[0]
    row = conn.execute("SELECT id FROM domain_sets WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0


def test_updating_a_station_domain_link_moves_the_station_to_its_new_domain_set(
    tmp_path: Path,
) -> None:
    db = demo.prepare(SandboxSettings(db_path=tmp_path / "s.db", demo_devices=0))
    conn = db.conn()
    uid, old_domain, old_set = conn.execute(
        "SELECT l.station_uid, l.domain_id, s.domain_set FROM station_domains l"
        " JOIN stations s ON s.uid = l.station_uid ORDER BY l.station_uid LIMIT 1"
    ).fetchone()
    new_domain = conn.execute(
        "SELECT id FROM domains WHERE id NOT IN (SELECT domain_id FROM station_domains"
        " WHERE station_uid = ?) ORDER BY id LIMIT 1",
        (uid,),
    ).fetchone()[0]
    conn.execute("INSERT INTO station_alarms (partner_uid, bs_uid, alarm_id, state, level,"
                 " created, updated) SELECT partner_uid, uid, 1, 3, 3, 0, 0 FROM stations"
                 " WHERE uid = ?", (uid,))  # fmt: skip
    with db.write() as tx:
        tx.execute(
            "UPDATE station_domains SET domain_id = ? WHERE station_uid = ? AND domain_id = ?",
            (new_domain, uid, old_domain),
        )
    new_set = conn.execute("SELECT domain_set FROM stations WHERE uid = ?", (uid,)).fetchone()[0]
    assert new_set == _set_of_links(conn, uid) != old_set
    alarm_sets = {r[0] for r in conn.execute(
        "SELECT domain_set FROM station_alarms WHERE bs_uid = ?", (uid,))}  # fmt: skip
    assert alarm_sets == {new_set}
    counted = sorted(tuple(r) for r in conn.execute(
        "SELECT partner_uid, domain_set, n FROM station_counts WHERE n > 0"))  # fmt: skip
    recounted = sorted(tuple(r) for r in conn.execute(
        "SELECT partner_uid, domain_set, count(*) FROM stations GROUP BY 1, 2"))  # fmt: skip
    assert counted == recounted
    db.close()


def test_a_database_made_before_the_step_gets_the_trigger_once(tmp_path: Path) -> None:
    step = MIGRATIONS.index(V_STATION_DOMAIN_SET_CHANGED)  # the steps before it
    conn = _at_step(tmp_path / "old.db", step)
    names = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name = ?"
    assert conn.execute(names, (TRIGGER,)).fetchone() is None
    assert migrate(conn) == len(MIGRATIONS) - step
    assert conn.execute(names, (TRIGGER,)).fetchone() is not None
    assert migrate(conn) == 0
    conn.close()
