"""Shipped migrations never change: each step's SQL text, the SQL that bulk seeding runs
(drop and rebuild of triggers, indexes and summaries) and the schema of a new database are
pinned here, so moving or generating that SQL differently cannot change a byte of it.

A new migration step appends one hash to `pins/migrations.json` and its objects to
`pins/schema.sql`; regenerate both with `python -m tests.sandbox.test_migration_pins` and read
the diff: only the new step may differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

from lpwa_console.sandbox import db
from lpwa_console.sandbox.db.sealing import Sealer

PINS = Path(__file__).with_name("pins")
STEPS_FILE = PINS / "migrations.json"
SCHEMA_FILE = PINS / "schema.sql"

# What bulk seeding runs outside the migrations (demo.py, demo_stations.py).
SEEDING_SQL: dict[str, Callable[[], object]] = {
    "create_device_indexes_sql": db.create_device_indexes_sql,
    "drop_device_indexes_sql": db.drop_device_indexes_sql,
    "create_derived_triggers_sql": db.create_derived_triggers_sql,
    "drop_derived_triggers_sql": db.drop_derived_triggers_sql,
    "create_link_count_triggers": db.create_link_count_triggers,
    "drop_link_count_triggers": db.drop_link_count_triggers,
    "create_tag_count_triggers": db.create_tag_count_triggers,
    "drop_tag_count_triggers": db.drop_tag_count_triggers,
    "create_prov_queue_triggers": db.create_prov_queue_triggers,
    "drop_prov_queue_triggers": db.drop_prov_queue_triggers,
    "create_station_indexes_sql": db.create_station_indexes_sql,
    "drop_station_indexes_sql": db.drop_station_indexes_sql,
    "create_station_triggers_sql": db.create_station_triggers_sql,
    "drop_station_triggers_sql": db.drop_station_triggers_sql,
    "rebuild_station_sets_sql": db.rebuild_station_sets_sql,
    "rebuild_domain_sets_sql(0)": lambda: db.rebuild_domain_sets_sql(0),
    "rebuild_domain_sets_sql(1000)": lambda: db.rebuild_domain_sets_sql(1000),
    "REBUILD_SUMMARIES_SQL": lambda: db.REBUILD_SUMMARIES_SQL,
    "REBUILD_LINK_COUNTS": lambda: db.REBUILD_LINK_COUNTS,
    "REBUILD_TAG_COUNTS": lambda: db.REBUILD_TAG_COUNTS,
}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def current_pins() -> dict[str, object]:
    return {
        "steps": [_sha(step) for step in db.MIGRATIONS],
        "seeding": {name: _sha(json.dumps(make())) for name, make in SEEDING_SQL.items()},
    }


def current_schema() -> str:
    """The schema of a new database, one object a paragraph, in a stable order."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    Sealer(os.urandom(32)).register(conn)  # the functions the secrets step calls
    db.migrate(conn)
    rows = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    ).fetchall()
    conn.close()
    return "".join(f"-- {kind} {name} on {table}\n{sql};\n\n" for kind, name, table, sql in rows)


def test_shipped_migration_steps_are_byte_identical() -> None:
    pinned = json.loads(STEPS_FILE.read_text())
    now = current_pins()
    assert now["steps"] == pinned["steps"]
    assert now["seeding"] == pinned["seeding"]


def test_a_new_database_has_the_pinned_schema() -> None:
    assert current_schema() == SCHEMA_FILE.read_text()


if __name__ == "__main__":  # regenerate the pins (read the diff before committing)
    PINS.mkdir(exist_ok=True)
    STEPS_FILE.write_text(json.dumps(current_pins(), indent=1) + "\n")
    SCHEMA_FILE.write_text(current_schema())
    sys.exit(0)
