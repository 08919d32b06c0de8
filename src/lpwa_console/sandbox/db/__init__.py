"""The sandbox's SQLite database: connections (`connection`), the ordered migration steps
(`migrations`, `steps_*`), and the triggers and indexes the steps and bulk seeding share.

Callers import from here; the modules behind it may move.
"""

from __future__ import annotations

from .connection import Database, DatabaseRefused, check_version, check_writable
from .count_triggers import (
    LINK_COUNT_TRIGGERS,
    REBUILD_LINK_COUNTS,
    REBUILD_TAG_COUNTS,
    TAG_COUNT_TRIGGERS,
    create_link_count_triggers,
    create_tag_count_triggers,
    drop_link_count_triggers,
    drop_tag_count_triggers,
)
from .fleet_triggers import (
    DERIVED_TRIGGERS,
    REBUILD_SUMMARIES_SQL,
    STATION_TRIGGERS,
    create_derived_triggers_sql,
    create_station_triggers_sql,
    drop_derived_triggers_sql,
    drop_station_triggers_sql,
    rebuild_domain_sets_sql,
    rebuild_station_sets_sql,
)
from .indexes import (
    DEVICE_INDEXES,
    STATION_INDEXES,
    create_device_indexes_sql,
    create_station_indexes_sql,
    drop_device_indexes_sql,
    drop_station_indexes_sql,
)
from .migrations import MIGRATIONS, migrate
from .private import PRIVATE_DIR, PRIVATE_FILE, SIDECARS
from .prov_queue import PROV_QUEUE_TRIGGERS, create_prov_queue_triggers, drop_prov_queue_triggers
from .tiles import TILE_LEVEL, TILE_X_SQL, TILE_Y_SQL, TILES

__all__ = [
    "DERIVED_TRIGGERS",
    "DEVICE_INDEXES",
    "LINK_COUNT_TRIGGERS",
    "MIGRATIONS",
    "PRIVATE_DIR",
    "PRIVATE_FILE",
    "PROV_QUEUE_TRIGGERS",
    "REBUILD_LINK_COUNTS",
    "REBUILD_SUMMARIES_SQL",
    "REBUILD_TAG_COUNTS",
    "SIDECARS",
    "STATION_INDEXES",
    "STATION_TRIGGERS",
    "TAG_COUNT_TRIGGERS",
    "TILES",
    "TILE_LEVEL",
    "TILE_X_SQL",
    "TILE_Y_SQL",
    "Database",
    "DatabaseRefused",
    "check_version",
    "check_writable",
    "create_derived_triggers_sql",
    "create_device_indexes_sql",
    "create_link_count_triggers",
    "create_prov_queue_triggers",
    "create_station_indexes_sql",
    "create_station_triggers_sql",
    "create_tag_count_triggers",
    "drop_derived_triggers_sql",
    "drop_device_indexes_sql",
    "drop_link_count_triggers",
    "drop_prov_queue_triggers",
    "drop_station_indexes_sql",
    "drop_station_triggers_sql",
    "drop_tag_count_triggers",
    "migrate",
    "rebuild_domain_sets_sql",
    "rebuild_station_sets_sql",
]
